"""numpy's gradient, cross, kron, ediff1d, polyval, trapezoid, cumulative_prod and lexsort on kjarni
arrays (kjarni/_numpy_calculus.py), against numpy 2.4 on the same random data: dtype, shape and
values (integers and single roundings exactly; floats within a bound on the rounding errors of the
arithmetic each one makes, which is the same as numpy's step by step, so that only a fused
multiply-add or another summation order can differ), numpy's exception classes for bad input, and
ArgumentTypeError for the options kjarni leaves out."""

import warnings

import numpy
import pytest

import kjarni
from numpy_comparison import device, eps, random, same

FLOATS = [numpy.float32, numpy.float64, numpy.complex64]
DTYPES = FLOATS + [numpy.int32]


def coordinates(rng, n, dtype=numpy.float64):
    """Increasing, unevenly spaced coordinates (steps in [0.1, 1.1))."""
    return numpy.cumsum(rng.random(n) + 0.1).astype(dtype)


def raises_as_numpy(call_numpy, call_kjarni):
    """call_kjarni raises what call_numpy raises, by class: a TypeError (kjarni's ArgumentTypeError),
    else an IndexError that is not numpy's AxisError, else a ValueError (kjarni's ArgumentError;
    numpy's AxisError is a ValueError too)."""
    with pytest.raises(Exception) as expected:
        call_numpy()
    kind = next(k for k in (TypeError, IndexError, ValueError) if isinstance(expected.value, k)
                and not (k is IndexError and isinstance(expected.value, numpy.exceptions.AxisError)))
    with pytest.raises(kind):
        call_kjarni()


# ---- gradient -------------------------------------------------------------------------------------

def gradient_bound(f, spacing, axis, edge_order, dtype):
    """The rounding bound of numpy's gradient along `axis`: each result is sum_j G_ij f_j with at most
    three terms, G the linear map of the spacing (numpy's gradient of the identity), each coefficient
    and product rounded once and two additions: 16 eps (|G| |f|)_i bounds two evaluations of it in
    `dtype` that differ by fused multiply-adds (a float32 f with float64 spacing computes in float64
    and rounds once more)."""
    n = f.shape[axis]
    g = numpy.abs(numpy.gradient(numpy.eye(n), *([] if spacing is None else [spacing]), axis=0,
                                 edge_order=edge_order))
    magnitude = numpy.moveaxis(numpy.tensordot(g, numpy.abs(numpy.moveaxis(f, axis, 0)).astype(numpy.float64),
                                               axes=(1, 0)), 0, axis)
    return 16 * eps(dtype) * magnitude


def check_gradient(queue, f, want, got, spacings, axes, edge_order):
    """got is numpy's result `want` (an array for one axis, a tuple for several)."""
    assert isinstance(got, tuple) == isinstance(want, tuple)
    wants, gots = (want, got) if isinstance(want, tuple) else ((want,), (got,))
    assert len(gots) == len(wants)
    for w, g, spacing, axis in zip(wants, gots, spacings, axes):
        same(queue, g, w, gradient_bound(f, spacing, axis, edge_order, w.dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_gradient(queue, rng, dtype):
    # integer arrays give float64; the spacing: none, one scalar, or per axis a scalar or
    # coordinates (uneven; even ones, which numpy takes as their scalar step; integer ones, as
    # float64; kjarni arrays or host sequences), for every axis or those of axis=
    for shape, axis, spacing, edge_order in [
            ((7,), None, (), 1), ((7,), None, (), 2), ((7,), None, (0.5,), 2), ((3,), None, ("x",), 2),
            ((7,), 0, ("x",), 1), ((7,), -1, ("x",), 2), ((7,), None, ("xi",), 1), ((7,), None, ("even",), 2),
            ((4, 5), None, (), 1), ((4, 5), None, (numpy.float64(2.0),), 2), ((4, 5), None, (3, "x"), 1),
            ((4, 5), 1, ("x",), 2), ((4, 5), (1,), ("hx",), 1), ((4, 5), (1, 0), ("x", "x"), 2),
            ((3, 4, 5), None, ("x", 0.25, "hx"), 2), ((3, 4, 5), (0, 2), (), 1), ((3, 4, 5), -2, (2,), 1),
            ((2, 3), 0, (), 1), ((0, 3), 1, ("x",), 1)]:
        f = random(rng, shape, dtype)
        axes = tuple(range(f.ndim)) if axis is None else tuple(numpy.atleast_1d(axis) % f.ndim)
        host_args, device_args = [], []
        for ax, s in zip(axes, spacing):  # (one scalar spacing for several axes: zip takes it once)
            n = f.shape[ax]
            if s in ("x", "hx"):
                x = coordinates(rng, n)
                host_args.append(x)
                device_args.append(device(queue, x) if s == "x" else list(x))
            elif s == "xi":
                x = numpy.cumsum(rng.integers(1, 4, n)).astype(numpy.int32)
                host_args.append(x)
                device_args.append(device(queue, x))
            elif s == "even":
                x = numpy.arange(n) * 0.5 + 1
                host_args.append(x)
                device_args.append(device(queue, x))
            else:
                host_args.append(s)
                device_args.append(s)
        want = numpy.gradient(f, *host_args, axis=axis, edge_order=edge_order)
        got = numpy.gradient(device(queue, f), *device_args, axis=axis, edge_order=edge_order)
        per_axis = host_args * len(axes) if len(host_args) == 1 else host_args or [None] * len(axes)
        check_gradient(queue, f, want, got, per_axis, axes, edge_order)


def test_gradient_edge_cases(queue, rng):
    # a 0-d array has no axes: an empty tuple; a spacing given as a 0-d kjarni array; float16
    # coordinates with float32 data (their differences in float16, the formulas in float32)
    assert numpy.gradient(device(queue, numpy.float32(3))) == ()
    f = random(rng, (6,), numpy.float32)
    step = numpy.float64(0.5)
    same(queue, numpy.gradient(device(queue, f), device(queue, step)), numpy.gradient(f, step),
         gradient_bound(f, step, 0, 1, numpy.float32))
    x = coordinates(rng, 6, numpy.float16)
    same(queue, numpy.gradient(device(queue, f), device(queue, x), edge_order=2), numpy.gradient(f, x, edge_order=2),
         gradient_bound(f, x.astype(numpy.float64), 0, 2, numpy.float16))
    # bool data: numpy's subtraction refuses it (even spacing), its uneven second-order formulas take it
    b = rng.random(5) < 0.5
    raises_as_numpy(lambda: numpy.gradient(b), lambda: numpy.gradient(device(queue, b)))
    x = coordinates(rng, 5)
    same(queue, numpy.gradient(device(queue, b), device(queue, x), edge_order=2),
         numpy.gradient(b, x, edge_order=2), gradient_bound(b, x, 0, 2, numpy.float64))


def test_gradient_errors_as_numpys(queue, rng):
    f = random(rng, (4, 5), numpy.float64)
    d = device(queue, f)
    for args, kwargs in [((), {"edge_order": 3}), ((), {"axis": 2}), ((), {"axis": (0, 0)}), ((1.0, 2.0, 3.0), {}),
                         ((numpy.ones((4, 1)), 1.0), {}), ((numpy.ones(3), 1.0), {}),
                         ((), {"axis": 0, "edge_order": 4}), ((numpy.ones(1),), {"axis": 0})]:
        raises_as_numpy(lambda: numpy.gradient(f, *args, **kwargs), lambda: numpy.gradient(d, *args, **kwargs))
    for shape, edge_order in [((1, 5), 1), ((2, 5), 2)]:  # too short an axis for the edges
        g = random(rng, shape, numpy.float32)
        raises_as_numpy(lambda: numpy.gradient(g, edge_order=edge_order),
                        lambda: numpy.gradient(device(queue, g), edge_order=edge_order))
    # one coordinate: numpy's IndexError (the first of no differences)
    one = numpy.ones(1)
    raises_as_numpy(lambda: numpy.gradient(one, one), lambda: numpy.gradient(device(queue, one), one))


# ---- cross ----------------------------------------------------------------------------------------

def cross_bound(a, b, dtype):
    """Each component is x y - z w (or one product): each product and the difference rounded once,
    within 2 eps (|x y| + |z w|) <= 4 eps max|a| max|b| of the exact value, so two evaluations that
    differ by a fused multiply-add agree within twice that."""
    return 8 * eps(dtype) * numpy.max(numpy.abs(a), initial=0) * numpy.max(numpy.abs(b), initial=0)


@pytest.mark.parametrize("dtype", DTYPES + [numpy.uint8])
def test_cross(queue, rng, dtype):
    # 3 x 3, 2 x 3, 3 x 2 and 2 x 2 vectors (numpy 2's DeprecationWarning for 2), broadcast stacks,
    # axisa / axisb / axisc and axis=, mixed dtypes (promote_types), a host operand
    for sa, sb, kwargs in [((3,), (3,), {}), ((5, 3), (3,), {}), ((4, 1, 3), (5, 3), {}),
                           ((3, 4), (4, 3), {"axisa": 0, "axisc": 0}), ((2, 3, 4), (1, 3, 4), {"axis": 1}),
                           ((5, 2), (5, 3), {}), ((5, 3), (2,), {"axisc": 0}), ((2,), (2,), {}),
                           ((6, 2), (1, 2), {"axisc": 7}), ((2, 5), (5, 2), {"axisa": 0}), ((0, 3), (3,), {}),
                           ((1, 3), (3,), {"axisc": -2})]:
        a, b = random(rng, sa, dtype), random(rng, sb, dtype)
        axisa, axisb = (kwargs.get(name, kwargs.get("axis", -1)) for name in ("axisa", "axisb"))
        two = sa[axisa] == 2 or sb[axisb] == 2
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            try:
                want = numpy.cross(a, b, **kwargs)
            except ValueError:  # numpy after 2.4: the deprecation expired, 2-element vectors raise
                assert two
                with pytest.raises(ValueError, match="3-dimensional vectors"):
                    numpy.cross(device(queue, a), device(queue, b), **kwargs)
                continue
        with (pytest.warns(DeprecationWarning, match="2-dimensional vectors") if two else warnings.catch_warnings()):
            got = numpy.cross(device(queue, a), device(queue, b), **kwargs)
        same(queue, got, want, None if eps(dtype) == 0 else cross_bound(a, b, dtype))
    a, b = random(rng, (4, 3), numpy.float32), random(rng, (3,), numpy.int32)
    same(queue, numpy.cross(device(queue, a), b), numpy.cross(a, b), cross_bound(a, b, numpy.float64))


def test_cross_errors_as_numpys(queue, rng):
    ones = numpy.ones
    for a, b, kwargs in [(ones(3), numpy.float64(1), {}), (ones(4), ones(3), {}), (ones(3), ones(1), {}),
                         (ones((2, 3)), ones((3, 3)), {}), (ones(3), ones(3), {"axisa": 1}),
                         (ones(3), ones(3), {"axisb": -2}), (ones((2, 3)), ones(3), {"axisc": 2}),
                         (ones(3, bool), ones(3, bool), {})]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            raises_as_numpy(lambda: numpy.cross(a, b, **kwargs),
                            lambda: numpy.cross(device(queue, a), device(queue, b), **kwargs))


# ---- kron, ediff1d -------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES + [numpy.bool_])
def test_kron(queue, rng, dtype):
    # one product each: exact; shapes of fewer dimensions get leading 1s, 0-d operands multiply,
    # a transposed (not contiguous) operand, an empty one, mixed dtypes
    for sa, sb in [((3,), (4,)), ((2, 3), (4, 2)), ((3,), (2, 2)), ((2, 2, 2), (3, 2)), ((), (3,)), ((3,), ()),
                   ((), ()), ((0, 2), (3,)), ((1,), (1, 1, 1))]:
        a, b = random(rng, sa, dtype), random(rng, sb, dtype)
        same(queue, numpy.kron(device(queue, a), device(queue, b)), numpy.kron(a, b))
    a, b = random(rng, (3, 4), dtype), random(rng, (2, 3), numpy.float32)
    same(queue, numpy.kron(device(queue, a).T, device(queue, b)), numpy.kron(a.T, b))
    same(queue, numpy.kron(a.tolist(), device(queue, b)), numpy.kron(a.tolist(), b))


@pytest.mark.parametrize("dtype", DTYPES)
def test_ediff1d(queue, rng, dtype):
    # one subtraction each: exact; the flattened array, to_begin and to_end (numbers, sequences,
    # kjarni arrays) cast to its dtype, empty and one-element arrays
    for shape, kwargs in [((7,), {}), ((3, 4), {}), ((2, 3, 2), {"to_begin": 5}), ((5,), {"to_end": [1, 2]}),
                          ((4, 2), {"to_begin": [[3, 4]], "to_end": 0}), ((1,), {}), ((1,), {"to_end": 2}),
                          ((0,), {"to_begin": 1}), ((), {}), ((6,), {"to_begin": "device"})]:
        a = random(rng, shape, dtype)
        if kwargs.get("to_begin") == "device":
            begin = random(rng, (2, 2), dtype)
            want = numpy.ediff1d(a, to_begin=begin)
            got = numpy.ediff1d(device(queue, a), to_begin=device(queue, begin))
        else:
            want = numpy.ediff1d(a, **kwargs)
            got = numpy.ediff1d(device(queue, a), **kwargs)
        same(queue, got, want)
    # a wider float into float32: numpy's same_kind allows it, the value rounded into the dtype
    a = random(rng, (5,), numpy.float32)
    same(queue, numpy.ediff1d(device(queue, a), to_end=numpy.float64(0.1)), numpy.ediff1d(a, to_end=numpy.float64(0.1)))


def test_ediff1d_errors_as_numpys(queue, rng):
    ints = numpy.arange(4, dtype=numpy.int32)
    for a, kwargs in [(ints, {"to_begin": 0.5}), (ints, {"to_end": [1.5]}),
                      (ints.astype(numpy.uint8), {"to_begin": -1}),
                      (numpy.ones(3, bool), {}), (numpy.ones(3, bool), {"to_end": True}),
                      (numpy.ones(3, numpy.float32), {"to_begin": 1j})]:
        raises_as_numpy(lambda: numpy.ediff1d(a, **kwargs), lambda: numpy.ediff1d(device(queue, a), **kwargs))


# ---- polyval --------------------------------------------------------------------------------------

def horner_bound(p, x, dtype):
    """Horner's rule over n coefficients makes 2n roundings in the dtype: within gamma_2n
    polyval(|p|, |x|) of the exact value, so two evaluations (numpy's, and one with fused
    multiply-adds) agree within twice that, 4 n eps polyval(|p|, |x|) (plus one rounding into a
    narrower result dtype)."""
    p = numpy.abs(numpy.asarray(p)).astype(numpy.float64)
    n = len(p)
    return (4 * n + 2) * eps(dtype) * numpy.polyval(p, numpy.abs(numpy.asarray(x)).astype(numpy.float64))


@pytest.mark.parametrize("dtype", DTYPES)
def test_polyval(queue, rng, dtype):
    # p a kjarni array or a host list (numpy's float64 / int64 array: strong types), x of any
    # shape, a Python number, an empty p (zeros like x), a 2-d p (rows broadcast against x)
    for pshape, x in [((4,), (6,)), ((1,), (2, 3)), ((5,), (2, 3, 2)), ((3,), ()), ((0,), (3,)), ((3,), (0,))]:
        p, xs = random(rng, pshape, dtype), random(rng, x, dtype)
        want = numpy.polyval(p, xs)
        same(queue, numpy.polyval(device(queue, p), device(queue, xs)), want, horner_bound(p, xs, dtype))
        same(queue, numpy.polyval(p.tolist(), device(queue, xs)), numpy.polyval(p.tolist(), xs),
             horner_bound(p, xs, numpy.result_type(numpy.asarray(p.tolist()), xs)))
    p = random(rng, (3,), dtype)
    same(queue, numpy.polyval(device(queue, p), 1.5), numpy.polyval(p, 1.5), horner_bound(p, 1.5, numpy.float64))
    p, xs = random(rng, (3, 4), dtype), random(rng, (4,), dtype)
    same(queue, numpy.polyval(device(queue, p), device(queue, xs)), numpy.polyval(p, xs),
         horner_bound(numpy.abs(p).max(axis=1), xs, dtype))
    # int32 x with a float32 p: numpy's float64 (int32 with float32)
    p, xs = random(rng, (3,), numpy.float32), random(rng, (5,), numpy.int32)
    same(queue, numpy.polyval(device(queue, p), device(queue, xs)), numpy.polyval(p, xs),
         horner_bound(p, xs, numpy.float64))


def test_polyval_errors_as_numpys(queue):
    p = numpy.array(2.0)
    raises_as_numpy(lambda: numpy.polyval(p, numpy.ones(3)), lambda: numpy.polyval(device(queue, p), numpy.ones(3)))
    with pytest.raises(kjarni.ArgumentTypeError, match="poly1d"):
        numpy.polyval(device(queue, numpy.ones(2)), numpy.poly1d([1.0, 2.0]))


# ---- trapezoid ------------------------------------------------------------------------------------

def trapezoid_bound(y, d, axis, dtype):
    """The terms d (y[1:] + y[:-1]) / 2.0 make 3 roundings each, then their sum along `axis` (numpy's
    pairwise, kjarni's tree): every order is within (n - 1) eps sum |term| of the exact sum, so two
    results agree within 2 (n + 3) eps sum |d| (|y[1:]| + |y[:-1]|) / 2 (d as numpy broadcasts it)."""
    magnitude = numpy.abs(y).astype(numpy.float64)
    n = y.shape[axis]
    lower, upper = numpy.take(magnitude, range(0, n - 1), axis), numpy.take(magnitude, range(1, n), axis)
    terms = numpy.abs(d) * (upper + lower) / 2
    return 2 * (n + 3) * eps(dtype) * terms.sum(axis=axis)


@pytest.mark.parametrize("dtype", DTYPES + [numpy.bool_])
def test_trapezoid(queue, rng, dtype):
    # dx (Python numbers: weak; a numpy float64: strong), 1-d x along the axis, x of y's shape, an
    # axis of one element (0) and of none, a host x
    for shape, axis, spacing in [((7,), -1, None), ((7,), 0, 0.5), ((4, 5), 0, None), ((4, 5), -1, "x"),
                                 ((4, 5), 0, "x"), ((3, 4, 5), 1, "xfull"), ((3, 4, 5), -1, numpy.float64(0.25)),
                                 ((2, 1), 1, None), ((0,), -1, None), ((3, 0), 0, "x"), ((4, 3), 1, 2),
                                 ((5,), 0, "hostx")]:
        y = random(rng, shape, dtype)
        if spacing in ("x", "hostx"):
            x = coordinates(rng, shape[axis])
            d = numpy.diff(x).reshape([-1 if k == axis % len(shape) else 1 for k in range(len(shape))])
            want = numpy.trapezoid(y, x=x, axis=axis)
            got = numpy.trapezoid(device(queue, y), x=device(queue, x) if spacing == "x" else list(x), axis=axis)
        elif spacing == "xfull":
            x = numpy.cumsum(rng.random(shape) + 0.1, axis=axis)
            d = numpy.diff(x, axis=axis)
            want = numpy.trapezoid(y, x=x, axis=axis)
            got = numpy.trapezoid(device(queue, y), x=device(queue, x), axis=axis)
        else:
            d = 1.0 if spacing is None else spacing
            kwargs = {} if spacing is None else {"dx": spacing}
            want = numpy.trapezoid(y, axis=axis, **kwargs)
            got = numpy.trapezoid(device(queue, y), axis=axis, **kwargs)
        same(queue, got, want, trapezoid_bound(y, d, axis, want.dtype))


def test_trapezoid_errors_as_numpys(queue, rng):
    y = random(rng, (4, 5), numpy.float64)
    for kwargs in [{"axis": 2}, {"axis": -3}, {"x": numpy.arange(4.0)}, {"x": numpy.ones((3, 5)), "axis": 0},
                   {"x": numpy.ones((4, 5)), "axis": 2}]:
        raises_as_numpy(lambda: numpy.trapezoid(y, **kwargs), lambda: numpy.trapezoid(device(queue, y), **kwargs))
    raises_as_numpy(lambda: numpy.trapezoid(numpy.float64(2)), lambda: numpy.trapezoid(device(queue, numpy.float64(2))))


# ---- cumulative_prod --------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES + [numpy.int8, numpy.bool_])
def test_cumulative_prod(queue, rng, dtype):
    # numpy's multiply.accumulate (small integers in int64), a 0-d array as one element, dtype=,
    # include_initial (a leading 1), out= (with include_initial too). A product of k factors in a
    # parallel scan is associated otherwise than numpy's left to right: each within k eps of the
    # exact product, relatively, so within 2 n eps |result| of numpy's; integers wrap alike
    # (multiplication modulo 2^64 is associative).
    for shape, kwargs in [((9,), {}), ((), {}), ((4, 5), {"axis": 1}), ((3, 4, 2), {"axis": -2}),
                          ((4, 5), {"axis": 0, "include_initial": True}), ((6,), {"dtype": numpy.float64}),
                          ((0,), {"include_initial": True}), ((2, 0), {"axis": 1})]:
        x = random(rng, shape, dtype) if numpy.dtype(dtype).kind not in "fc" else random(rng, shape, dtype) / 2
        want = numpy.cumulative_prod(x, **kwargs)
        got = numpy.cumulative_prod(device(queue, x), **kwargs)
        n = max(shape[kwargs.get("axis", 0)], 1) if shape else 1
        same(queue, got, want, None if eps(want.dtype) == 0 else 2 * n * eps(want.dtype) * numpy.abs(want))
    x = random(rng, (3, 4), dtype)
    for include_initial in (False, True):
        want = numpy.cumulative_prod(x, axis=1, include_initial=include_initial)
        out = device(queue, numpy.zeros(want.shape, want.dtype))
        assert numpy.cumulative_prod(device(queue, x), axis=1, out=out, include_initial=include_initial) is out
        same(queue, out, want, None if eps(want.dtype) == 0 else 8 * eps(want.dtype) * numpy.abs(want))


def test_cumulative_prod_errors_as_numpys(queue, rng):
    x = random(rng, (3, 4), numpy.float32)
    for kwargs in [{}, {"axis": 2}, {"axis": -3}]:
        raises_as_numpy(lambda: numpy.cumulative_prod(x, **kwargs),
                        lambda: numpy.cumulative_prod(device(queue, x), **kwargs))


# ---- lexsort --------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64, numpy.int32, numpy.bool_])
def test_lexsort(queue, rng, dtype):
    # keys with many ties (small integers, NaN among floats, sorted last), one to three of them, of
    # mixed dtypes, along each axis; a 2-d kjarni array as its rows; a 0-d key; empty keys
    for shape, count, axis in [((12,), 1, -1), ((12,), 2, -1), ((15,), 3, 0), ((4, 6), 2, -1), ((4, 6), 2, 0),
                               ((3, 4, 5), 3, 1), ((3, 4, 5), 2, 0), ((), 2, -1), ((0, 3), 2, 1), ((1,), 1, 0)]:
        keys = [random(rng, shape, dtype) for _ in range(count)]
        if numpy.dtype(dtype).kind == "f":
            keys = [k // 3 for k in keys]  # (ties)
            for k in (keys[0], keys[-1]):
                k.reshape(-1)[[1, 3] if k.size > 3 else []] = numpy.nan
        if count == 3:
            keys[1] = random(rng, shape, numpy.int32)
        want = numpy.lexsort(tuple(keys), axis=axis)
        same(queue, numpy.lexsort(tuple(device(queue, k) for k in keys), axis=axis), want)
    rows = random(rng, (3, 10), numpy.int32) // 4
    same(queue, numpy.lexsort(device(queue, rows)), numpy.lexsort(rows))
    key = random(rng, (8,), dtype)
    same(queue, numpy.lexsort((key, device(queue, rows[0, :8]))), numpy.lexsort((key, rows[0, :8])))


def test_lexsort_errors_as_numpys(queue, rng):
    a, b = random(rng, (4,), numpy.float32), random(rng, (5,), numpy.float32)
    for keys, axis in [((a, b), -1), ((a,), 1), ((a,), -2), ((a,), None)]:
        raises_as_numpy(lambda: numpy.lexsort(keys, axis=axis),
                        lambda: numpy.lexsort(tuple(device(queue, k) for k in keys), axis=axis))
    raises_as_numpy(lambda: numpy.lexsort(numpy.float32(1)), lambda: numpy.lexsort(device(queue, numpy.float32(1))))
    with pytest.raises(kjarni.ArgumentTypeError, match="complex"):
        numpy.lexsort((device(queue, random(rng, (4,), numpy.complex64)),))
