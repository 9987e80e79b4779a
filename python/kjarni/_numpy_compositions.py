"""numpy functions on kjarni arrays that kjarni composes from its own operations (views, expressions,
reductions), for kjarni/_numpy.py's ``__array_function__``: each follows numpy 2.4's definition of
the function, on the queue of its arrays (``x.queue``), and raises ArgumentTypeError naming the
options it leaves out. Elementwise results are Exprs, as numpy's ufuncs give on kjarni arrays;
reductions and views are Arrays; allclose and array_equal read their one answer back (a bool)."""

import builtins
import math

import numpy

from . import _kjarni
from .errors import ArgumentError, ArgumentTypeError

Array = _kjarni.Array
Expr = _kjarni.Expr


def _queue(what, *operands):
    from ._numpy import _required_queue
    return _required_queue(f"numpy.{what}", *operands)


def _evaluated(queue, value):
    """An Array of `value` (an Array stays itself, an Expr is evaluated on `queue`)."""
    if isinstance(value, Array):
        return value
    from . import _algorithms
    return _algorithms.evaluate(queue, value)


def _refuse(what, option):
    raise ArgumentTypeError(f"numpy.{what} on kjarni arrays takes no {option} here (copy to the host first: x.get())",
                            option)


def _axes(axis, ndim, what):
    """numpy's normalize_axis_tuple: each axis in [-ndim, ndim), none twice."""
    axes = (axis,) if isinstance(axis, (int, numpy.integer)) else tuple(axis)
    for a in axes:
        if not -ndim <= a < ndim:
            raise ArgumentError(f"numpy.{what}: axis {a} is out of bounds for {ndim} dimensions (numpy's AxisError)",
                                "axis")
    normalized = tuple(int(a) % ndim for a in axes)
    if len(set(normalized)) != len(normalized):
        raise ArgumentError(f"numpy.{what}: repeated axis", "axis")
    return normalized


# ---- new arrays shaped like another ----------------------------------------------------------------

def _new_like(what, a, dtype, shape, fill):
    queue = _queue(what, a)
    shape = a.shape if shape is None else ((shape,) if isinstance(shape, (int, numpy.integer)) else tuple(shape))
    # (kjarni's new arrays are C-contiguous whatever `order` asks: docs/numpy-differences.md.)
    out = Array.empty(a.device, shape, a.dtype if dtype is None else dtype)
    out.queue = queue
    if fill is not None:
        out.fill(fill, queue)  # converted as numpy's copyto converts it
    return out


def _zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return _new_like("zeros_like", a, dtype, shape, 0)


def _ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return _new_like("ones_like", a, dtype, shape, 1)


def _empty_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return _new_like("empty_like", a, dtype, shape, None)


def _full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return _new_like("full_like", a, dtype, shape, fill_value)


# ---- views --------------------------------------------------------------------------------------

def _expand_dims(a, axis):
    ndim = a.ndim + (1 if isinstance(axis, (int, numpy.integer)) else len(tuple(axis)))
    axes = _axes(axis, ndim, "expand_dims")
    dims = iter(a.shape)
    return a.reshape(tuple(1 if k in axes else next(dims) for k in range(ndim)))


def _moveaxis(a, source, destination):
    source, destination = _axes(source, a.ndim, "moveaxis"), _axes(destination, a.ndim, "moveaxis")
    if len(source) != len(destination):
        raise ArgumentError("numpy.moveaxis: `source` and `destination` must have the same number of elements",
                            "destination")
    order = [n for n in range(a.ndim) if n not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return a.transpose(order)


def _matrix_transpose(x):
    if x.ndim < 2:
        raise ArgumentError(f"numpy.matrix_transpose: the array has {x.ndim} dimensions, at least 2 wanted", "x")
    return x.swapaxes(-1, -2)


def _atleast(name):
    def atleast(*arys):
        from . import _algorithms  # noqa: F401 (the queue helpers)
        results = []
        for a in arys:
            view = getattr(_kjarni, name)(a)
            view.queue = getattr(a, "queue", None)
            results.append(view)
        return results[0] if len(results) == 1 else tuple(results)
    return atleast


def _splitter(name, with_axis):
    def split(ary, indices_or_sections, axis=0):
        args = (ary, indices_or_sections, axis) if with_axis else (ary, indices_or_sections)
        parts = getattr(_kjarni, name)(*args)
        for part in parts:
            part.queue = getattr(ary, "queue", None)
        return list(parts)
    return split


# ---- elementwise ----------------------------------------------------------------------------------

def _isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    # numpy's: y in result_type(y, 1.0), then |x - y| <= atol + rtol |y| where y is finite, or x == y.
    y = b
    dtype = getattr(b, "dtype", None)
    if dtype is not None:
        wanted = numpy.result_type(dtype, 1.0)
        if wanted != dtype:
            y = Expr(b).astype(wanted)
    elif isinstance(b, int):
        y = float(b)
    x = a
    result = ((_kjarni.absolute(Expr(x) - y) <= atol + rtol * _kjarni.absolute(Expr(y))) &
              _kjarni._array_api.unary("isfinite", y)) | (Expr(x) == y)
    if equal_nan:
        result = result | (_kjarni._array_api.unary("isnan", x) & _kjarni._array_api.unary("isnan", y))
    return result


def _all_true(queue, value):
    from . import _algorithms
    return builtins.bool(_algorithms.all(queue, _evaluated(queue, value)).get(queue))


def _allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return _all_true(_queue("allclose", a, b), _isclose(a, b, rtol, atol, equal_nan))


def _array_equal(a1, a2, equal_nan=False):
    queue = _queue("array_equal", a1, a2)
    if tuple(numpy.shape(a1)) != tuple(numpy.shape(a2)):
        return False
    same = Expr(a1) == a2
    inexact = [numpy.dtype(getattr(v, "dtype", numpy.float64)).kind in "fc" for v in (a1, a2)]
    if equal_nan and builtins.all(inexact):
        same = same | (_kjarni._array_api.unary("isnan", a1) & _kjarni._array_api.unary("isnan", a2))
    return _all_true(queue, same)


def _nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    queue = _queue("nan_to_num", x)
    kind = numpy.dtype(x.dtype).kind
    if kind == "c":
        _refuse("nan_to_num", "complex array")
    if kind != "f":
        return x.copy(queue) if copy else x
    info = numpy.finfo(x.dtype)
    big = info.max if posinf is None else posinf
    small = info.min if neginf is None else neginf
    typed = [numpy.asarray(v).astype(x.dtype)[()] for v in (nan, big, small)]  # numpy's copyto casts them
    isinf = _kjarni._array_api.unary("isinf", x)
    value = _kjarni.where(_kjarni._array_api.unary("isnan", x), typed[0],
                          _kjarni.where(isinf & (Expr(x) > 0), typed[1], _kjarni.where(isinf, typed[2], x)))
    if copy:
        return _evaluated(queue, value)
    _kjarni.assign(queue, x, value)
    return x


def _outer(a, b, out=None):
    if out is not None:
        _refuse("outer", "out")
    return Expr(a.ravel().reshape(-1, 1)) * b.ravel().reshape(1, -1)


# ---- reductions -----------------------------------------------------------------------------------

def _ptp(a, axis=None, out=None, keepdims=False):
    queue = _queue("ptp", a)
    from . import _algorithms
    spread = Expr(_algorithms.max(queue, a, axis, keepdims)) - _algorithms.min(queue, a, axis, keepdims)
    if out is None:
        return _evaluated(queue, spread)
    _kjarni.assign(queue, out, spread)
    return out


def _average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    queue = _queue("average", a)
    from . import _algorithms
    if weights is None:
        average = _algorithms.mean(queue, a, axis, None, keepdims)
        if not returned:
            return average
        # (numpy's scale: the count each output averages, in the average's dtype and shape)
        count = math.prod(a.shape) // builtins.max(math.prod(average.shape), 1)
        return average, _new_like("average", average, None, None, count)
    if tuple(numpy.shape(weights)) != tuple(a.shape):
        _refuse("average", "weights of another shape than the array's")
    # numpy: the weighted sum in result_type(a, weights) (float64 at least for integer and bool
    # arrays) over the sum of the weights in that type; a zero sum of weights is its ZeroDivisionError.
    kinds = numpy.dtype(a.dtype).kind in "biu"
    dtype = numpy.result_type(a.dtype, weights.dtype, "f8") if kinds else numpy.result_type(a.dtype, weights.dtype)
    scale = _algorithms.sum(queue, weights, axis, dtype, keepdims)
    if not _all_true(queue, Expr(scale) != 0):
        raise ArgumentError("numpy.average: the weights sum to zero, can't be normalized (numpy's ZeroDivisionError)",
                            "weights")
    total = _algorithms.sum(queue, _evaluated(queue, (Expr(a) * weights).astype(dtype)), axis, dtype, keepdims)
    average = _evaluated(queue, Expr(total) / scale)
    average.queue = queue
    if returned:
        scale.queue = queue
        return average, scale
    return average


def _norm(x, ord=None, axis=None, keepdims=False):
    # numpy.linalg.norm with ord None ('fro' for two axes): sqrt(sum(|x|^2)), in float (integers as
    # float64), the result real.
    if ord not in (None, "fro") or (ord == "fro" and (axis is None or len(tuple(numpy.atleast_1d(axis))) != 2)):
        _refuse("linalg.norm", f"ord={ord!r}")
    queue = _queue("linalg.norm", x)
    from . import _algorithms
    kind = numpy.dtype(x.dtype).kind
    value = Expr(x) if kind in "fc" else Expr(x).astype(numpy.float64)
    magnitude = _kjarni.absolute(value) if kind == "c" else value
    axis = None if axis is None else (_axes(axis, x.ndim, "linalg.norm"))
    squares = _algorithms.sum(queue, _evaluated(queue, magnitude * magnitude), axis, None, keepdims)
    result = _evaluated(queue, _kjarni.sqrt(squares))
    result.queue = queue
    return result


def _cumulative_sum(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    if include_initial:
        _refuse("cumulative_sum", "include_initial=True")
    if axis is None and x.ndim > 1:
        raise ArgumentError("numpy.cumulative_sum: an array of more than one dimension wants an axis", "axis")
    from . import _algorithms
    return _algorithms.cumsum(_queue("cumulative_sum", x), x, 0 if axis is None else axis, dtype, out)


# ---- sorting, searching, counting (kjarni's radix sort, unique and searches) ----------------------

def _namespace_call(what, a, name, *args, **kwargs):
    """kjarni.array_api's `name` on kjarni arrays (the namespace's checks and edge cases), the
    results back as kjarni arrays on a's queue."""
    queue = _queue(what, a)
    results = getattr(a.__array_namespace__(), name)(*args, **kwargs)

    def back(r):
        k = r.to_kjarni()
        k.queue = queue
        return k
    return tuple(back(r) for r in results) if isinstance(results, tuple) else back(results)


def _flattened(a, axis):
    return (a.reshape(-1), 0) if axis is None else (a, axis)


def _sort(a, axis=-1, kind=None, order=None, *, stable=None):
    # (Every kind sorts to the same values; kjarni's sort is stable.)
    if order is not None:
        _refuse("sort", "order")
    a, axis = _flattened(a, axis)
    return _namespace_call("sort", a, "sort", a, axis=axis)


def _argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    # kjarni's argsort is numpy's kind="stable" whatever `kind` says: equal elements keep their
    # order, where numpy's default quicksort may not (docs/numpy-differences.md).
    if order is not None:
        _refuse("argsort", "order")
    a, axis = _flattened(a, axis)
    return _namespace_call("argsort", a, "argsort", a, axis=axis)


def _unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True,
            sorted=True):
    # numpy's: the flattened array's distinct values (NaNs as one: equal_nan=True), each first
    # index, the inverse in the array's shape, the counts.
    if axis is not None:
        _refuse("unique", "axis")
    kind = numpy.dtype(ar.dtype).kind
    if kind == "c":
        _refuse("unique", "complex array")
    if not equal_nan and kind == "f":
        _refuse("unique", "equal_nan=False")
    queue = _queue("unique", ar)
    i64 = numpy.dtype("int64")
    if ar.size == 0:
        parts = [Array.empty(ar.device, (0,), ar.dtype), Array.empty(ar.device, (0,), i64),
                 Array.empty(ar.device, ar.shape, i64), Array.empty(ar.device, (0,), i64)]
    else:
        parts = list(_kjarni._array_api.unique(queue, ar.reshape(-1), return_index, return_inverse, return_counts))
        if parts[2] is not None:
            parts[2] = parts[2].reshape(ar.shape)
    for part in parts:
        if part is not None:
            part.queue = queue
    wanted = [parts[0]] + [p for p, asked in zip(parts[1:], (return_index, return_inverse, return_counts)) if asked]
    return wanted[0] if len(wanted) == 1 else tuple(wanted)


def _searchsorted(a, v, side="left", sorter=None):
    queue = _queue("searchsorted", a)
    values = v
    if not isinstance(v, Array):
        values = Array.from_host(queue, numpy.asarray(v, dtype=a.dtype))
        values.queue = queue
    return _namespace_call("searchsorted", a, "searchsorted", a, values, side=side, sorter=sorter)


def _nonzero(a):
    return _namespace_call("nonzero", a, "nonzero", a)


def _flatnonzero(a):
    return _nonzero(a.reshape(-1))[0]


def _count_nonzero(a, axis=None, *, keepdims=False):
    queue = _queue("count_nonzero", a)
    axes = None if axis is None else _axes(axis, a.ndim, "count_nonzero")
    counts = _kjarni._array_api.count_nonzero(queue, a, None if axes is None else list(axes))
    if axis is None and not keepdims:
        return int(counts.get(queue))  # numpy's integer for the whole array
    if keepdims:
        counts = counts.reshape(tuple(1 if axes is None or k in axes else n for k, n in enumerate(a.shape)))
    counts.queue = queue
    return counts


def _flip(m, axis=None):
    axes = range(m.ndim) if axis is None else _axes(axis, m.ndim, "flip")
    return m[tuple(slice(None, None, -1) if k in axes else slice(None) for k in range(m.ndim))]


def _diff(a, n=1, axis=-1, prepend=None, append=None):
    # numpy's: a[1:] - a[:-1] along `axis`, n times (booleans by not_equal).
    if prepend is not None or append is not None:
        _refuse("diff", "prepend" if prepend is not None else "append")
    queue = _queue("diff", a)
    (axis,) = _axes(axis, a.ndim, "diff")
    for _ in range(n):
        upper = a[tuple(slice(1, None) if k == axis else slice(None) for k in range(a.ndim))]
        lower = a[tuple(slice(None, -1) if k == axis else slice(None) for k in range(a.ndim))]
        a = _evaluated(queue, Expr(upper) != lower if numpy.dtype(a.dtype) == numpy.bool_ else Expr(upper) - lower)
        a.queue = queue
    return a


def _median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    # numpy's: the mean of the middle one or two of the sorted slice (integers in float64), NaN where
    # the slice holds one (sorted last).
    if a.ndim == 0:
        return a.item()
    if isinstance(axis, (tuple, list)):
        if len(axis) != 1:
            _refuse("median", "several axes")
        (axis,) = axis
    if numpy.dtype(a.dtype).kind == "c":
        _refuse("median", "complex array")
    queue = _queue("median", a)
    data, ax = (a.reshape(-1), 0) if axis is None else (a, _axes(axis, a.ndim, "median")[0])
    ordered = _namespace_call("median", data, "sort", data, axis=ax)
    n = data.shape[ax]
    middle = slice(n // 2, n // 2 + 1) if n % 2 else slice(n // 2 - 1, n // 2 + 1)
    from . import _algorithms
    result = _algorithms.mean(queue, ordered[tuple(middle if k == ax else slice(None) for k in range(data.ndim))], ax)
    if numpy.dtype(a.dtype).kind == "f" and n > 0:
        last = ordered[tuple(-1 if k == ax else slice(None) for k in range(data.ndim))]
        nan = numpy.array(numpy.nan, dtype=result.dtype)[()]
        result = _evaluated(queue, _kjarni.where(_kjarni._array_api.unary("isnan", last), nan, result))
    if keepdims:
        result = result.reshape(tuple(1 if axis is None or k == ax else m for k, m in enumerate(a.shape)))
    result.queue = queue
    if out is not None:
        _kjarni.assign(queue, out, result)
        return out
    return result


def _quantile_of(what, a, q, axis, out, keepdims, method):
    # numpy's "linear" method for a Python number q (weak: the result in a's dtype, integers in
    # float64), step by step: the virtual index (n - 1) q in the sorted slice, its floor and the
    # next (both the last at or past n - 1), gamma = index - floor, then numpy's _lerp
    # (a + (b - a) gamma, or b - (b - a)(1 - gamma) from gamma 0.5 on), NaN where the slice holds one.
    if method != "linear":
        _refuse(what, f"method={method!r}")
    if type(q) not in (int, float):
        _refuse(what, "q other than one Python number")
    if numpy.dtype(a.dtype).kind == "c":
        raise ArgumentTypeError(f"numpy.{what}: a must be an array of real numbers (numpy's TypeError)", "a")
    if isinstance(axis, (tuple, list)):
        if len(axis) != 1:
            _refuse(what, "several axes")
        (axis,) = axis
    quantile = numpy.true_divide(q, 100) if what == "percentile" else q
    if not 0 <= quantile <= 1:
        raise ArgumentError(f"numpy.{what}: {q} is out of range (numpy's ValueError)", "q")
    queue = _queue(what, a)
    data, ax = (a.reshape(-1), 0) if axis is None else (a, _axes(axis, a.ndim, what)[0])
    n = data.shape[ax]
    if n == 0:
        _refuse(what, "an empty slice")
    ordered = _namespace_call(what, data, "sort", data, axis=ax)
    at = lambda k: ordered[tuple(k if d == ax else slice(None) for d in range(data.ndim))]  # noqa: E731
    virtual = (n - 1) * quantile
    if isinstance(virtual, int):
        value = Expr(at(virtual))  # numpy takes the element itself (an integer array stays integer)
    else:
        previous = math.floor(virtual)
        following = previous + 1
        if virtual >= n - 1:
            previous = following = -1
        elif virtual < 0:
            previous = following = 0
        gamma = float(virtual - previous)
        low, high = at(previous), at(following)
        step = Expr(high) - low
        value = Expr(high) - step * (1 - gamma) if gamma >= 0.5 else Expr(low) + step * gamma
    if numpy.dtype(a.dtype).kind == "f":
        nan = numpy.array(numpy.nan, dtype=value.dtype)[()]
        value = _kjarni.where(_kjarni._array_api.unary("isnan", at(-1)), nan, value)
    result = _evaluated(queue, value)
    if keepdims:
        result = result.reshape(tuple(1 if axis is None or k == ax else m for k, m in enumerate(a.shape)))
    result.queue = queue
    if out is not None:
        _kjarni.assign(queue, out, result)
        return out
    return result


def _percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
                weights=None, interpolation=None):
    if weights is not None or interpolation is not None:
        _refuse("percentile", "weights" if weights is not None else "interpolation")
    return _quantile_of("percentile", a, q, axis, out, keepdims, method)


def _quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
              weights=None, interpolation=None):
    if weights is not None or interpolation is not None:
        _refuse("quantile", "weights" if weights is not None else "interpolation")
    return _quantile_of("quantile", a, q, axis, out, keepdims, method)


# ---- more views and copies -------------------------------------------------------------------

def _take(a, indices, axis=None, out=None, mode="raise"):
    # (indices from the host, a list or a number, go up first: numpy's take takes any array-like)
    queue = _queue("take", a)
    if not isinstance(indices, Array):
        indices = Array.from_host(queue, numpy.asarray(indices, dtype=numpy.int64))
    from . import _algorithms
    result = _algorithms.take(queue, a, indices, axis, mode)
    if out is not None:
        _kjarni.assign(queue, out, result)
        return out
    return result


def _roll(a, shift, axis=None):
    # numpy's: the elements shifted along `axis` (the flattened array when None), those past the end
    # coming round to the front: two slices joined.
    if not isinstance(shift, (int, numpy.integer)) or not (axis is None or isinstance(axis, (int, numpy.integer))):
        _refuse("roll", "several shifts or axes")
    queue = _queue("roll", a)
    data, ax = (a.reshape(-1), 0) if axis is None else (a, _axes(axis, a.ndim, "roll")[0])
    n = data.shape[ax]
    k = int(shift) % n if n else 0
    from . import _algorithms
    if k == 0:
        rolled = data.copy(queue)
    else:
        cut = lambda part: data[tuple(part if d == ax else slice(None) for d in range(data.ndim))]  # noqa: E731
        rolled = _algorithms.concatenate(queue, [cut(slice(n - k, None)), cut(slice(None, n - k))], axis=ax)
    return rolled.reshape(a.shape) if axis is None else rolled


def _fliplr(m):
    if m.ndim < 2:
        raise ArgumentError("numpy.fliplr: the array must have at least 2 dimensions", "m")
    return _flip(m, 1)


def _flipud(m):
    if m.ndim < 1:
        raise ArgumentError("numpy.flipud: the array must have at least 1 dimension", "m")
    return _flip(m, 0)


def _rot90(m, k=1, axes=(0, 1)):
    # numpy's: k quarter turns from axes[0] towards axes[1], as flips and a transpose (views).
    if len(axes) != 2 or m.ndim < 2:
        raise ArgumentError("numpy.rot90: two axes of an array of at least 2 dimensions", "axes")
    a0, a1 = _axes(axes, m.ndim, "rot90")
    k %= 4
    if k == 0:
        return m[...]
    if k == 2:
        return _flip(_flip(m, a0), a1)
    order = list(range(m.ndim))
    order[a0], order[a1] = order[a1], order[a0]
    if k == 1:
        return _flip(m, a1).transpose(order)
    return _flip(m.transpose(order), a1)


def _argwhere(a):
    # numpy's: the indices of the nonzero elements, one row each (a 0-d array as one of shape (1,)).
    queue = _queue("argwhere", a)
    data = a.reshape(1) if a.ndim == 0 else a
    parts = _nonzero(data)
    from . import _algorithms
    rows = _algorithms.stack(queue, list(parts), axis=1)
    return rows[:, :0] if a.ndim == 0 else rows


def _inner(a, b):
    if getattr(a, "ndim", 0) != 1 or getattr(b, "ndim", 0) != 1:
        _refuse("inner", "arrays of other than 1 dimension")
    from ._numpy import _np_dot
    return _np_dot(a, b)


def fabs(x):
    """numpy's fabs ufunc (kjarni/_numpy.py's ufunc table): numpy has float loops only, so an
    integer or bool array is cast to the first float type that holds it safely (int8 -> float16,
    int32 -> float64); complex has none."""
    dtype = numpy.dtype(Expr(x).dtype)
    if dtype.kind == "c":
        raise ArgumentTypeError("numpy.fabs is not defined for complex values (numpy's UFuncTypeError)", "x")
    loop = next(t for t in (numpy.float16, numpy.float32, numpy.float64) if numpy.can_cast(dtype, t))
    return _kjarni.absolute(Expr(x) if dtype == loop else Expr(x).astype(loop))


# ---- views of other strides (stride 0 for broadcasting, a step along two axes for a diagonal) ------

def _strided(a, shape, strides, offset, dtype=None):
    from .dtypes import dtype as kjarni_dtype
    view = Array.from_buffer(a.base, kjarni_dtype(a.dtype if dtype is None else dtype), list(shape), list(strides),
                             offset)
    view.queue = getattr(a, "queue", None)
    return view


def _broadcast_to(array, shape, subok=False):
    # numpy's view of stride 0 along the new and the broadcast axes (numpy's is read-only; writing
    # into kjarni's writes the shared elements).
    shape = (shape,) if isinstance(shape, (int, numpy.integer)) else tuple(shape)
    if numpy.broadcast_shapes(array.shape, shape) != shape:
        raise ArgumentError(f"numpy.broadcast_to: cannot broadcast {array.shape} to {shape}", "shape")
    lead = len(shape) - array.ndim
    strides = [0] * lead + [0 if n == 1 and m != 1 else st
                            for n, m, st in zip(array.shape, shape[lead:], array.strides)]
    return _strided(array, shape, strides, array.offset)


def _diagonal(a, offset=0, axis1=0, axis2=1):
    # numpy's view: the other axes, then the diagonal (one step along both axes).
    if a.ndim < 2:
        raise ArgumentError("numpy.diagonal: the array must have at least 2 dimensions", "a")
    ax1, ax2 = _axes((axis1, axis2), a.ndim, "diagonal")
    rest = [k for k in range(a.ndim) if k not in (ax1, ax2)]
    n1, n2 = a.shape[ax1], a.shape[ax2]
    length = max(0, min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2))
    start = a.offset + (offset * a.strides[ax2] if offset >= 0 else -offset * a.strides[ax1]) if length else a.offset
    return _strided(a, [a.shape[k] for k in rest] + [length], [a.strides[k] for k in rest] +
                    [a.strides[ax1] + a.strides[ax2]], start)


def real(val):
    """numpy's real: of a complex array the view of its real parts, else the array itself."""
    if numpy.dtype(val.dtype).kind != "c":
        return val
    part = numpy.dtype(val.dtype).type(0).real.dtype
    return _strided(val, val.shape, val.strides, val.offset, part)


def imag(val):
    """numpy's imag: of a complex array the view of its imaginary parts, else zeros (numpy's are
    read-only; these a new array)."""
    if numpy.dtype(val.dtype).kind != "c":
        return _new_like("imag", val, None, None, 0)
    part = numpy.dtype(val.dtype).type(0).real.dtype
    return _strided(val, val.shape, val.strides, val.offset + part.itemsize, part)


def _angle(z, deg=False):
    # numpy's: arctan2(z.imag, z.real), in degrees on request.
    if numpy.dtype(z.dtype).kind == "c":
        result = _kjarni._array_api.binary("atan2", imag(z), real(z))
    else:
        result = _kjarni._array_api.binary("atan2", 0, z)
    return result * (180 / numpy.pi) if deg else result


def _trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    queue = _queue("trace", a)
    from . import _algorithms
    return _algorithms.sum(queue, _diagonal(a, offset, axis1, axis2), -1, dtype, False, out)


def _diag(v, k=0):
    # numpy's: of a matrix its k-th diagonal; of a vector the square matrix holding it there.
    if v.ndim == 2:
        return _diagonal(v, k)
    if v.ndim != 1:
        raise ArgumentError("numpy.diag: the input must be 1- or 2-dimensional", "v")
    n = v.shape[0] + abs(k)
    out = _new_like("diag", v, None, (n, n), 0)
    _kjarni.assign(out.queue, _diagonal(out, k), v)
    return out


def _repeat(a, repeats, axis=None):
    # numpy's: each element `repeats` times along `axis` (the flattened array when None): a new
    # axis of stride 0 after it, joined to it by a copying reshape.
    if not isinstance(repeats, (int, numpy.integer)):
        _refuse("repeat", "repeats other than one number")
    queue = _queue("repeat", a)
    data, ax = (a.reshape(-1), 0) if axis is None else (a, _axes(axis, a.ndim, "repeat")[0])
    spread = list(data.shape[:ax + 1]) + [int(repeats)] + list(data.shape[ax + 1:])
    view = _broadcast_to(data.reshape(data.shape[:ax + 1] + (1,) + data.shape[ax + 1:]), tuple(spread))
    shape = list(data.shape)
    shape[ax] *= int(repeats)
    return view.copy(queue).reshape(tuple(shape))


def _tile(A, reps):
    # numpy's: A repeated reps[k] times along axis k (A and reps padded with leading 1s to one
    # length): a view of stride 0 before each axis, copied into the joined shape.
    reps = (reps,) if isinstance(reps, (int, numpy.integer)) else tuple(reps)
    queue = _queue("tile", A)
    ndim = max(A.ndim, len(reps))
    reps = (1,) * (ndim - len(reps)) + tuple(int(r) for r in reps)
    data = A.reshape((1,) * (ndim - A.ndim) + tuple(A.shape))
    paired = tuple(x for r, n in zip(reps, data.shape) for x in (1, n))
    spread = tuple(x for r, n in zip(reps, data.shape) for x in (r, n))
    view = _broadcast_to(data.reshape(paired), spread)
    return view.copy(queue).reshape(tuple(r * n for r, n in zip(reps, data.shape)))


def _meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    if sparse or not copy or indexing not in ("xy", "ij"):
        _refuse("meshgrid", "sparse=True, copy=False or another indexing")
    queue = _queue("meshgrid", *xi)
    n = len(xi)
    shape = [x.size for x in xi]
    if indexing == "xy" and n > 1:
        shape[0], shape[1] = shape[1], shape[0]
    grids = []
    for k, x in enumerate(xi):
        axis = (1 if k == 0 else 0 if k == 1 else k) if indexing == "xy" and n > 1 else k
        lined = x.reshape(tuple(-1 if d == axis else 1 for d in range(n)))
        grids.append(_broadcast_to(lined, tuple(shape)).copy(queue))
    return grids


def functions():
    """numpy's function object -> its composition here (those numpy has)."""
    table = {
        "zeros_like": _zeros_like, "ones_like": _ones_like, "empty_like": _empty_like, "full_like": _full_like,
        "expand_dims": _expand_dims, "moveaxis": _moveaxis, "matrix_transpose": _matrix_transpose,
        "atleast_1d": _atleast("atleast_1d"), "atleast_2d": _atleast("atleast_2d"), "atleast_3d": _atleast("atleast_3d"),
        "array_split": _splitter("array_split", True), "hsplit": _splitter("hsplit", False),
        "vsplit": _splitter("vsplit", False), "dsplit": _splitter("dsplit", False),
        "isclose": _isclose, "allclose": _allclose, "array_equal": _array_equal, "nan_to_num": _nan_to_num,
        "outer": _outer, "ptp": _ptp, "average": _average, "cumulative_sum": _cumulative_sum,
        "sort": _sort, "argsort": _argsort, "unique": _unique, "searchsorted": _searchsorted, "nonzero": _nonzero,
        "flatnonzero": _flatnonzero, "count_nonzero": _count_nonzero, "flip": _flip, "diff": _diff,
        "median": _median, "take": _take, "roll": _roll, "fliplr": _fliplr, "flipud": _flipud, "rot90": _rot90,
        "argwhere": _argwhere, "inner": _inner, "percentile": _percentile, "quantile": _quantile,
        "broadcast_to": _broadcast_to, "diagonal": _diagonal, "trace": _trace, "diag": _diag, "repeat": _repeat,
        "tile": _tile, "meshgrid": _meshgrid, "real": real, "imag": imag, "angle": _angle,
    }
    found = {getattr(numpy, name): f for name, f in table.items() if hasattr(numpy, name)}
    if hasattr(numpy, "around"):
        from ._numpy import _np_round
        found[numpy.around] = _np_round
    found[numpy.linalg.norm] = _norm
    return found
