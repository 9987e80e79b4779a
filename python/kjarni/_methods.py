"""The rest of the array methods numpy's and CuPy's users reach for, on kjarni arrays (issue 39
item 4), on the array's own queue (``x.queue``):

- Python scalars and lists: ``float(x)``, ``int(x)``, ``complex(x)``, ``bool(x)``, ``x.item()``,
  ``x.tolist()`` read the array back (and so wait for its queue) and follow numpy's rules for the
  result, errors included (``bool`` of more than one element is ambiguous: ValueError);
- shapes: ``x.ravel()`` (a view where the layout allows, else a copy), ``x.flatten()`` (a copy),
  ``x.squeeze(axis=None)`` and ``x.swapaxes(a, b)`` (views), ``x.real`` and ``x.imag`` (views of a
  complex array's parts);
- computations: ``x @ y`` (matmul: kjarni's BLAS for floating types, through kjarni.array_api),
  ``x.std()``, ``x.var()`` (numpy's ddof, dtype and out), ``x.round(decimals)`` (numpy's algorithm, half
  to even), ``x.cumsum()`` (new arrays on the queue), ``x.clip(lo, hi)`` (an expression, as numpy's ufuncs give);
- ``x.set(host)`` without a queue (CuPy's and PyOpenCL's form; grunnur's ``x.set(queue, host)``
  stays)."""


import numpy

from . import _kjarni
from ._array import _set as _grunnur_set
from .errors import ArgumentError, ArgumentTypeError, AxisError

Array = _kjarni.Array


def _queue(self, what):
    queue = getattr(self, "queue", None)
    if queue is None:
        raise ArgumentError(f"{what} needs the array's queue (array.queue): set it, or use the kjarni function "
                            "with a queue", "queue")
    return queue


def _standard(self):
    """The namespace of the array API standard over kjarni arrays (array_api/_kjarni_arrays.py)."""
    from .array_api import _kjarni_arrays
    return _kjarni_arrays.namespace()


def _float(self):
    return float(self.get())


def _int(self):
    return int(self.get())


def _index(self):
    """operator.index (a[x], range(x)): a 0-d integer array, as numpy's."""
    if self.ndim != 0 or self.dtype.kind not in "iu":
        raise TypeError("only integer scalar arrays can be converted to a scalar index")
    return int(self.get())


def _complex(self):
    return complex(self.get())


def _bool(self):
    return bool(self.get())


def _item(self, *args):
    return self.get().item(*args)


def _tolist(self):
    return self.get().tolist()


def _ravel(self, order="C"):
    """The elements in one dimension: a view where the layout allows one, else a copy."""
    try:
        return self.reshape(-1, order=order)
    except ArgumentError:
        return self.copy(_queue(self, "ravel()"), order).reshape(-1, order=order)


def _flatten(self, order="C"):
    """A copy of the elements in one dimension."""
    return self.copy(_queue(self, "flatten()"), order).reshape(-1, order=order)


def _squeeze(self, axis=None):
    """A view without the axes of extent 1 (those of ``axis`` only, when given; another extent
    there is an ArgumentError, numpy's ValueError)."""
    shape = self.shape
    if axis is None:
        axes = {i for i, n in enumerate(shape) if n == 1}
    else:
        axes = set()
        for a in (axis if isinstance(axis, (tuple, list)) else (axis,)):
            if not -len(shape) <= a < len(shape):
                raise AxisError(f"axis {a} is out of bounds for an array of {len(shape)} dimensions", "axis")
            a %= len(shape)
            if shape[a] != 1:
                raise ArgumentError(f"cannot squeeze axis {a}, of extent {shape[a]}", "axis")
            axes.add(a)
    return self.reshape(tuple(n for i, n in enumerate(shape) if i not in axes))


def _swapaxes(self, axis1, axis2):
    """A view with the two axes exchanged."""
    axes = list(range(self.ndim))
    for a in (axis1, axis2):
        if not -self.ndim <= a < self.ndim:
            raise AxisError(f"axis {a} is out of bounds for an array of {self.ndim} dimensions", "axis")
    a, b = axis1 % self.ndim, axis2 % self.ndim
    axes[a], axes[b] = axes[b], axes[a]
    return self.transpose(axes)


def _matmul(self, other):
    if not isinstance(other, Array):
        return NotImplemented
    _queue(self, "x @ y")
    return _standard(self).matmul(self, other).to_kjarni()


def _rmatmul(self, other):
    if not isinstance(other, Array):
        return NotImplemented
    return _standard(self).matmul(other, self).to_kjarni()


def _std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    return _statistic(self, "std", axis, dtype, out, ddof, keepdims)


def _var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    return _statistic(self, "var", axis, dtype, out, ddof, keepdims)


def _statistic(self, name, axis, dtype, out, ddof, keepdims):
    """numpy's x.var() / x.std(): kjarni's one-reduction moments (computed in `dtype` when given, in
    float64 for integer and bool arrays, float16 in float32 with the result rounded)."""
    from . import _algorithms
    queue = _queue(self, f"{name}()")
    axis = tuple(axis) if isinstance(axis, list) else axis
    return getattr(_algorithms, name)(queue, self, axis, dtype, ddof, keepdims, out)


def _power_of_ten(n):
    """numpy's power_of_ten (calculation.c): 1e0 ... 1e8 exactly, past that 1e9 times 10 repeatedly
    (each product rounded, as numpy's C loop rounds it)."""
    if n < 9:
        return (1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8)[n]
    value = 1e9
    for _ in range(n - 9):
        value *= 10.0
    return value


def _round(self, decimals=0, out=None):
    """numpy's round (PyArray_Round): complex arrays part by part; integers as they are for
    decimals >= 0 (the array itself), else divided by 10**-decimals in float64, rounded half to
    even, multiplied back and cast to the integer type; floats rint(x * 10**d) / 10**d (for
    negative decimals the division first), each step rounded in the array's float type (the
    factor, a Python float, converted to it first); decimals=0 is rint. out= takes the result's
    dtype (and shape)."""
    import operator
    from . import _algorithms
    queue = _queue(self, "round()")
    decimals = operator.index(decimals)
    dtype = numpy.dtype(self.dtype)
    if dtype.kind == "c":
        result = self.copy(queue) if out is None else _checked_out(self, out, dtype)
        from ._numpy_shapes import real, imag
        for source, target in ((real(self), real(result)), (imag(self), imag(result))):
            source.queue = queue
            _kjarni.assign(queue, target, _round(source, decimals))
        return result
    if dtype.kind in "iu" and decimals < 0 and out is not None:
        _refuse_out(dtype, out)
    if dtype.kind in "iu" and decimals >= 0:
        if out is None:
            return self
        if not numpy.can_cast(dtype, out.dtype, "same_kind"):
            raise ArgumentTypeError(f"round(): cannot cast {dtype} to {out.dtype} with casting rule 'same_kind'",
                                    "out")
        _kjarni.assign(queue, out, _kjarni.Expr(self).astype(out.dtype))
        return out
    if dtype == numpy.bool_ and decimals != 0:
        # (numpy's multiply into a bool array: its casting error)
        raise ArgumentTypeError("round(): Cannot cast ufunc 'multiply' output from dtype('float64') to dtype('bool') "
                                "with casting rule 'same_kind'", "decimals")
    if decimals == 0:
        result = _rint(self, queue)
    else:
        work = numpy.dtype(numpy.float64) if dtype.kind in "iu" else dtype
        with numpy.errstate(over="ignore"):
            factor = numpy.asarray(_power_of_ten(abs(decimals))).astype(work)[()]
        x = _kjarni.Expr(self) if dtype == work else _kjarni.Expr(self).astype(work)
        # (each step evaluated: numpy rounds each in the float type)
        scaled = _algorithms.evaluate(queue, x * factor if decimals > 0 else x / factor)
        scaled.queue = queue
        rounded = _rint(scaled, queue)
        back = _kjarni.Expr(rounded) / factor if decimals > 0 else _kjarni.Expr(rounded) * factor
        result = _algorithms.evaluate(queue, back if dtype == work else back.astype(dtype))
        result.queue = queue
    if out is None:
        return result
    _kjarni.assign(queue, _checked_out(self, out, numpy.dtype(result.dtype)), result)
    return out


def _refuse_out(dtype, out):
    """An integer array rounded to negative decimals into out=: numpy computes its float64 steps into
    out (an integer out: its casting TypeError); kjarni takes no out there."""
    raise ArgumentTypeError(f"round() on kjarni arrays takes no out for {dtype} arrays and negative decimals", "out")


def _checked_out(self, out, dtype):
    if not isinstance(out, Array) or tuple(out.shape) != tuple(self.shape):
        raise ArgumentError("round(): out must be a kjarni Array of the array's shape", "out")
    if numpy.dtype(out.dtype) != dtype:
        # (numpy computes each step into out: in another type its steps round otherwise)
        raise ArgumentTypeError(f"round() on kjarni arrays takes an out of the result's dtype ({dtype}) only",
                                "out")
    return out


def _rint(self, queue):
    """numpy's rint of a float or bool array (bool in numpy's float16 loop)."""
    from . import _algorithms
    if numpy.dtype(self.dtype) == numpy.bool_:
        # (numpy rounds booleans in its float16 loop: 0.0 and 1.0 as float16)
        result = _algorithms.evaluate(queue, _kjarni.Expr(self).astype(numpy.float16))
        result.queue = queue
        return result
    if numpy.dtype(self.dtype) == numpy.float16:
        # (kjarni.array_api has no float16: rounded in float32, exactly, and back)
        wide = _algorithms.evaluate(queue, _kjarni.Expr(self).astype(numpy.float32))
        rounded = _standard(wide).round(wide).to_kjarni()
        result = _algorithms.evaluate(queue, _kjarni.Expr(rounded).astype(numpy.float16))
        result.queue = queue
        return result
    result = _standard(self).round(self).to_kjarni()
    result.queue = queue
    return result


def _cumsum(self, axis=None, dtype=None, out=None):
    from . import _algorithms
    return _algorithms.cumsum(_queue(self, "cumsum()"), self, axis=axis, dtype=dtype, out=out)


def _clip(self, min=None, max=None):  # noqa: A002 (numpy's names)
    if min is None and max is None:
        raise ArgumentError("clip() needs min or max", "min")
    e = _kjarni.Expr(self)
    if min is not None and max is not None:
        # numpy's clip ufunc: one promotion over the three operands, its own loop's ties.
        return _kjarni.clip(e, min, max)
    bound = min if min is not None else max
    if self.dtype.kind in "iu" and type(bound) is int:
        # numpy's _clip leaves out a Python integer bound at or past the dtype's range (uint64's
        # clip(min=-3) clips nothing), where maximum / minimum would refuse it: kjarni.clip does the
        # same, given the dtype's other end as the missing bound (which clips nothing either).
        info = numpy.iinfo(self.dtype)
        return _kjarni.clip(e, info.min if min is None else min, info.max if max is None else max)
    if min is not None:
        e = _kjarni.maximum(e, min)
    if max is not None:
        e = _kjarni.minimum(e, max)
    return e


def _iter(self):
    """numpy's iteration: the subarrays along the first axis (TypeError for a 0-d array). Without it
    Python's fallback calls __getitem__ until an IndexError, which kjarni's index does not raise."""
    if self.ndim == 0:
        raise TypeError("iteration over a 0-d array")
    for i in range(self.shape[0]):
        yield self[i]


def _set(self, *args, **kwargs):
    """``x.set(queue, host)`` (grunnur's) or ``x.set(host)`` on the array's queue (CuPy's,
    PyOpenCL's): copies a numpy array (synchronously) or another Array (in queue order) into x."""
    if args and not isinstance(args[0], _kjarni.Queue) and "array" not in kwargs:
        queue = kwargs.pop("queue", None) or _queue(self, "set()")
        return _grunnur_set(self, queue, *args, **kwargs)
    return _grunnur_set(self, *args, **kwargs)


def attach():
    Array.__float__ = _float
    Array.__int__ = _int
    Array.__complex__ = _complex
    Array.__index__ = _index
    Array.__bool__ = _bool
    Array.item = _item
    Array.tolist = _tolist
    Array.ravel = _ravel
    Array.flatten = _flatten
    Array.squeeze = _squeeze
    Array.swapaxes = _swapaxes
    Array.__matmul__ = _matmul
    Array.__rmatmul__ = _rmatmul
    Array.std = _std
    Array.var = _var
    from . import _numpy_shapes
    Array.real = property(_numpy_shapes.real, doc="numpy's x.real: a view of a complex array's real parts.")
    Array.imag = property(_numpy_shapes.imag, doc="numpy's x.imag: a view of a complex array's imaginary parts.")
    Array.round = _round
    Array.cumsum = _cumsum
    Array.clip = _clip
    Array.set = _set
    Array.__iter__ = _iter


attach()
