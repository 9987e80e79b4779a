"""The exception numpy raises for a bad call is the one kjarni raises on kjarni arrays: an axis the
array lacks is numpy's AxisError (kjarni.AxisError is one), an index past an extent an IndexError
(kjarni.IndexOutOfBoundsError), a Python int a dtype cannot hold an OverflowError
(kjarni.ScalarOverflowError), a type no loop takes a TypeError, other bad values a ValueError; so
that code catching numpy's exceptions catches kjarni's. Each call runs on a numpy array and on a
kjarni copy of it, and kjarni's exception must be an instance of the class numpy's is that code
catches (PRINCIPAL: numpy's UFuncTypeError counts as the TypeError it is)."""

import numpy
import pytest

import kjarni
from numpy_comparison import device, random

# The classes code catches, most specific first (numpy's AxisError is a ValueError and an IndexError).
PRINCIPAL = (numpy.exceptions.AxisError, ZeroDivisionError, OverflowError, IndexError, KeyError, TypeError, ValueError)

# name -> f(xp, x): xp is numpy, x a numpy or a kjarni array of shape (2, 3) (int8, uint8 or float64).
CALLS = {
    "sum along axis 2": lambda xp, x: xp.sum(x, axis=2),
    "sum along axis -3": lambda xp, x: xp.sum(x, axis=-3),
    "sum along axis 0 twice": lambda xp, x: xp.sum(x, axis=(0, 0)),
    "mean along axis 2": lambda xp, x: xp.mean(x, axis=2),
    "argmax along axis 2": lambda xp, x: xp.argmax(x, axis=2),
    "cumsum along axis 2": lambda xp, x: xp.cumsum(x, axis=2),
    "sort along axis 2": lambda xp, x: xp.sort(x, axis=2),
    "take of index 10": lambda xp, x: xp.take(x, [10]),
    "take along axis 3": lambda xp, x: xp.take(x, [0], axis=3),
    "take from an empty axis": lambda xp, x: xp.take(x[:0], [0], axis=0),
    "array_split of a 0-d array": lambda xp, x: xp.array_split(x[0, 0], 1),
    "getitem [5]": lambda xp, x: x[5],
    "getitem [-3]": lambda xp, x: x[-3],
    "getitem [0, 7]": lambda xp, x: x[0, 7],
    "getitem with too many indices": lambda xp, x: x[0, 0, 0],
    "getitem [[0, 9]]": lambda xp, x: x[[0, 9]],
    "setitem [5]": lambda xp, x: x.__setitem__(5, 1),
    "swapaxes 0 and 4": lambda xp, x: xp.swapaxes(x, 0, 4),
    "transpose (0, 3)": lambda xp, x: xp.transpose(x, (0, 3)),
    "transpose (0, -3)": lambda xp, x: xp.transpose(x, (0, -3)),
    "transpose (0, 0)": lambda xp, x: xp.transpose(x, (0, 0)),
    "transpose (-1, 0)": lambda xp, x: xp.transpose(x, (-1, 0)),
    "expand_dims at 5": lambda xp, x: xp.expand_dims(x, 5),
    "concatenate along axis 3": lambda xp, x: xp.concatenate([x, x], axis=3),
    "flip along axis 3": lambda xp, x: xp.flip(x, axis=3),
    "moveaxis from 5": lambda xp, x: xp.moveaxis(x, 5, 0),
    "roll along axis 4": lambda xp, x: xp.roll(x, 1, axis=4),
    "median along axis 4": lambda xp, x: xp.median(x, axis=4),
    "squeeze axis 0 of extent 2": lambda xp, x: xp.squeeze(x, axis=0),
    "squeeze axis 3": lambda xp, x: xp.squeeze(x, axis=3),
    "reshape to 7": lambda xp, x: x.reshape(7),
    "add 300": lambda xp, x: xp.add(x, 300),
    "multiply by -1000": lambda xp, x: x * -1000,
    "bitwise and with 256": lambda xp, x: x & 256,
    "fill with 300": lambda xp, x: x.fill(300),
    "setitem 300": lambda xp, x: x.__setitem__((0, 0), 300),
    "bitwise_and of floats": lambda xp, x: xp.bitwise_and(x, x),
    "average with weights summing to zero": lambda xp, x: xp.average(x, axis=1, weights=[[1.0, -1.0, 0.0], [2.0, 0.0, -2.0]]),
    "cov with zero weights": lambda xp, x: xp.cov(x, aweights=[0.0, 0.0, 0.0]),
    "power by -1": lambda xp, x: x ** -1,
    "power by -200": lambda xp, x: x ** -200,
    "sqrt into an int16 out": lambda xp, x: xp.sqrt(x, out=_zeros_like(x, (2, 3), "int16")),
    "std into an int32 out": lambda xp, x: xp.std(x, axis=0, out=_zeros_like(x, (3,), "int32")),
    "argmax into a complex out": lambda xp, x: xp.argmax(x, axis=0, out=_zeros_like(x, (3,), "complex128")),
    "broadcast against 4": lambda xp, x: x + (xp.ones(4) if isinstance(x, numpy.ndarray) else _like(x, 4)),
}


def _like(x, n):
    return device(x.queue, numpy.ones(n))


def _zeros_like(x, shape, dtype):
    """Zeros of `dtype` on x's side: numpy's or the kjarni array's queue."""
    zeros = numpy.zeros(shape, dtype)
    return zeros if isinstance(x, numpy.ndarray) else device(x.queue, zeros)


def _outcome(call, xp, x):
    """None where the call succeeds (an expression evaluated, as numpy's ufuncs are at once), else
    the exception."""
    try:
        result = call(xp, x)
        if isinstance(result, (kjarni.Expr, kjarni.Array)):
            result.get()
        return None
    except Exception as e:  # noqa: BLE001 - every exception is compared
        return e


@pytest.mark.parametrize("dtype", ["int8", "uint8", "float64"])
def test_exceptions_are_numpys(queue, rng, dtype):
    host = random(rng, (2, 3), dtype)
    wrong = []
    for name, call in CALLS.items():
        expected = _outcome(call, numpy, host.copy())
        got = _outcome(call, numpy, device(queue, host))
        if expected is None:
            if got is not None:
                wrong.append(f"{name}: numpy succeeds, kjarni raises {type(got).__name__}: {got}")
        elif not isinstance(got, next(c for c in PRINCIPAL + (Exception,) if isinstance(expected, c))):
            wrong.append(f"{name}: numpy raises {type(expected).__name__}, kjarni "
                         f"{'nothing' if got is None else type(got).__name__ + ': ' + str(got)}")
    assert not wrong, "\n".join(wrong)


def test_new_error_classes_are_numpys_and_pythons():
    assert issubclass(kjarni.AxisError, numpy.exceptions.AxisError)
    assert issubclass(kjarni.AxisError, kjarni.errors.ArgumentError)
    assert issubclass(kjarni.IndexOutOfBoundsError, IndexError)
    assert issubclass(kjarni.ScalarOverflowError, OverflowError)
    e = kjarni.AxisError("sum: axis 2 is out of range", "axes")
    assert str(e) == "argument 'axes': sum: axis 2 is out of range" and e.argument == "axes"
    assert e.args == (str(e),)
