"""numpy's differences, products and integrals on kjarni arrays, each numpy 2.4's Python definition
followed step by step on the arrays' queue: gradient, cross, kron, ediff1d, polyval, trapezoid,
cumulative_prod, cumulative_sum and lexsort. They are composed from views (slices, transposes, inserted axes),
elementwise expressions evaluated into new arrays or written into views of one (kjarni.assign),
kjarni's sums, scans, gathers and stable argsort; kjarni/_numpy_common.py says what they share.
Where numpy gives a scalar (a 1-d trapezoid, 0-d polyval or lexsort), the result is a 0-d Array."""

import operator
import warnings

import numpy

from . import _kjarni
from .errors import ArgumentError, ArgumentTypeError
from ._numpy_common import Array, Expr, _queue, _evaluated, _refuse, _axes, _new_like, _all_true
from ._numpy_elementwise import _diff
from ._numpy_linalg import _on_device


def _at(ndim, axis, key):
    """The index tuple that takes `key` along `axis` and everything along the other axes."""
    return tuple(key if k == axis else slice(None) for k in range(ndim))


def _put(queue, view, value):
    """numpy's `view[...] = value`: the value cast (unsafely, as numpy's setitem) to the view's dtype."""
    expr = Expr(value)
    if numpy.dtype(expr.dtype) != numpy.dtype(view.dtype):
        expr = expr.astype(view.dtype)
    _kjarni.assign(queue, view, expr)


def _finished(queue, value):
    """An Array of `value` on `queue` (an Expr evaluated)."""
    value = _evaluated(queue, value)
    value.queue = queue
    return value


# ---- gradient -------------------------------------------------------------------------------------

def _spacing(queue, f, axes, varargs):
    """numpy's dx: one spacing per axis, a host scalar (uniform) or the differences of an axis's
    coordinates (an Array; a host scalar of their dtype where they are all equal, as numpy's
    `diffx[0]`)."""
    n = len(varargs)
    if n == 0:
        return [1.0] * len(axes)
    if n == 1 and numpy.ndim(varargs[0]) == 0:
        return list(varargs) * len(axes)
    if n != len(axes):
        raise ArgumentTypeError("numpy.gradient: invalid number of arguments", "varargs")
    dx = list(varargs)
    for i, distances in enumerate(dx):
        if numpy.ndim(distances) == 0:
            continue
        distances = _on_device(queue, distances)
        if distances.ndim != 1:
            raise ArgumentError("numpy.gradient: distances must be either scalars or 1d", "varargs")
        if distances.shape[0] != f.shape[axes[i]]:
            raise ArgumentError("numpy.gradient: when 1d, distances must match the length of the corresponding "
                                "dimension", "varargs")
        if numpy.dtype(distances.dtype).kind in "iu":
            # (numpy's: float64 first, so that the differences do not wrap)
            distances = _on_device(queue, distances, numpy.float64)
        diffx = _diff(distances)
        if diffx.shape[0] == 0:
            raise IndexError("numpy.gradient: index 0 is out of bounds for axis 0 with size 0")
        # numpy's: constant distances are the scalar case (diffx[0], a numpy scalar of their dtype)
        dx[i] = diffx[0:1].get(queue)[0] if _all_true(queue, Expr(diffx) == diffx[0]) else diffx
    return dx


def _interior(queue, f, out, axis, ax_dx):
    """numpy's second-order central differences at f's interior points along `axis`."""
    at = lambda key: f[_at(f.ndim, axis, key)]  # noqa: E731
    target = out[_at(f.ndim, axis, slice(1, -1))]
    if numpy.ndim(ax_dx) == 0:  # (numpy's uniform spacing: a number, numpy scalar or 0-d array)
        _put(queue, target, (Expr(at(slice(2, None))) - at(slice(None, -2))) / (2. * ax_dx))
        return
    dx1, dx2 = ax_dx[0:-1], ax_dx[1:]
    shape = [1] * f.ndim
    shape[axis] = -1  # (numpy's: the coefficients along `axis`, broadcast along the others)
    a = _finished(queue, -Expr(dx2) / (Expr(dx1) * (Expr(dx1) + dx2))).reshape(shape)
    b = _finished(queue, (Expr(dx2) - dx1) / (Expr(dx1) * dx2)).reshape(shape)
    c = _finished(queue, Expr(dx1) / (Expr(dx2) * (Expr(dx1) + dx2))).reshape(shape)
    _put(queue, target, Expr(a) * at(slice(None, -2)) + Expr(b) * at(slice(1, -1)) + Expr(c) * at(slice(2, None)))


def _edges(queue, f, out, axis, ax_dx, edge_order):
    """numpy's one-sided differences at both ends along `axis`: first order for edge_order 1, second
    order otherwise (numpy's `else`: edge_order 0, -1 and 1.5 too)."""
    at = lambda k: f[_at(f.ndim, axis, k)]  # noqa: E731
    uniform = numpy.ndim(ax_dx) == 0
    if edge_order == 1:
        _put(queue, out[_at(f.ndim, axis, 0)], (Expr(at(1)) - at(0)) / (ax_dx if uniform else ax_dx[0]))
        _put(queue, out[_at(f.ndim, axis, -1)], (Expr(at(-1)) - at(-2)) / (ax_dx if uniform else ax_dx[-1]))
        return
    if uniform:
        a, b, c = -1.5 / ax_dx, 2. / ax_dx, -0.5 / ax_dx
    else:
        dx1, dx2 = Expr(ax_dx[0]), Expr(ax_dx[1])
        a = _finished(queue, -(2. * dx1 + dx2) / (dx1 * (dx1 + dx2)))
        b = _finished(queue, (dx1 + dx2) / (dx1 * dx2))
        c = _finished(queue, -dx1 / (dx2 * (dx1 + dx2)))
    _put(queue, out[_at(f.ndim, axis, 0)], Expr(at(0)) * a + Expr(at(1)) * b + Expr(at(2)) * c)
    if uniform:
        a, b, c = 0.5 / ax_dx, -2. / ax_dx, 1.5 / ax_dx
    else:
        dx1, dx2 = Expr(ax_dx[-2]), Expr(ax_dx[-1])
        a = _finished(queue, dx2 / (dx1 * (dx1 + dx2)))
        b = _finished(queue, -(dx2 + dx1) / (dx1 * dx2))
        c = _finished(queue, (2. * dx2 + dx1) / (dx2 * (dx1 + dx2)))
    _put(queue, out[_at(f.ndim, axis, -1)], Expr(at(-3)) * a + Expr(at(-2)) * b + Expr(at(-1)) * c)


def _gradient(f, *varargs, axis=None, edge_order=1):
    # numpy's: per axis, central differences inside and one-sided ones at the ends, into a new array
    # of f's inexact dtype (integers as float64; bool stays bool, and numpy's subtraction refuses it).
    queue = _queue("gradient", f, *varargs)
    f = _on_device(queue, f)
    axes = tuple(range(f.ndim)) if axis is None else _axes(axis, f.ndim, "gradient")
    dx = _spacing(queue, f, axes, varargs)
    if edge_order > 2:
        raise ArgumentError("numpy.gradient: 'edge_order' greater than 2 not supported", "edge_order")
    otype = numpy.dtype(f.dtype)
    if otype.kind in "mM":
        _refuse("gradient", "datetime or timedelta array")
    if otype.kind not in "fc":
        if otype.kind in "iu":
            f = _on_device(queue, f, numpy.float64)  # (numpy's: so that the differences do not wrap)
        otype = numpy.dtype(numpy.float64)
    outvals = []
    for ax, ax_dx in zip(axes, dx):
        if f.shape[ax] < edge_order + 1:
            raise ArgumentError("numpy.gradient: Shape of array too small to calculate a numerical gradient, at "
                                "least (edge_order + 1) elements are required.", "f")
        out = _new_like("gradient", f, otype, None, None)
        _interior(queue, f, out, ax, ax_dx)
        _edges(queue, f, out, ax, ax_dx, edge_order)
        outvals.append(out)
    return outvals[0] if len(axes) == 1 else tuple(outvals)


# ---- cross ----------------------------------------------------------------------------------------

_TWO_ELEMENT_VECTORS = []


def _numpy_takes_two_element_vectors():
    """Whether the numpy at hand still takes 2-element vectors in cross (2.0-2.4 warn; later ones,
    where the deprecation expired, raise ValueError): kjarni does as that numpy does."""
    if not _TWO_ELEMENT_VECTORS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            try:
                numpy.cross(numpy.ones(2), numpy.ones(3))
                _TWO_ELEMENT_VECTORS.append(True)
            except ValueError:
                _TWO_ELEMENT_VECTORS.append(False)
    return _TWO_ELEMENT_VECTORS[0]


def _cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    # numpy's: the working axes moved last, the components products in promote_types(a, b) written
    # into the parts of a new array, whose last axis then moves to axisc; 2-element vectors have a
    # zero third component (numpy 2's DeprecationWarning), two of them a z component only.
    if axis is not None:
        axisa, axisb, axisc = (axis,) * 3
    queue = _queue("cross", a, b)
    a, b = _on_device(queue, a), _on_device(queue, b)
    if a.ndim < 1 or b.ndim < 1:
        raise ArgumentError("numpy.cross: At least one array has zero dimension", "a" if a.ndim < 1 else "b")
    (axisa,), (axisb,) = _axes(axisa, a.ndim, "cross (axisa)"), _axes(axisb, b.ndim, "cross (axisb)")
    a = a.transpose([k for k in range(a.ndim) if k != axisa] + [axisa])
    b = b.transpose([k for k in range(b.ndim) if k != axisb] + [axisb])
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ArgumentError("numpy.cross: incompatible dimensions for cross product\n(dimension must be 2 or 3)",
                            "a" if a.shape[-1] not in (2, 3) else "b")
    if a.shape[-1] == 2 or b.shape[-1] == 2:
        if not _numpy_takes_two_element_vectors():
            raise ArgumentError("numpy.cross: Both input arrays must be (arrays of) 3-dimensional vectors, but they "
                                f"are {a.shape[-1]} and {b.shape[-1]} dimensional instead.", "a")
        # (stacklevel 3: the caller of numpy.cross, past kjarni/_numpy.py's __array_function__)
        warnings.warn("Arrays of 2-dimensional vectors are deprecated. Use arrays of 3-dimensional vectors instead. "
                      "(deprecated in NumPy 2.0)", DeprecationWarning, stacklevel=3)
    shape = numpy.broadcast_shapes(tuple(a.shape[:-1]), tuple(b.shape[:-1]))
    three = a.shape[-1] == 3 or b.shape[-1] == 3
    if three:
        shape += (3,)
        (axisc,) = _axes(axisc, len(shape), "cross (axisc)")
    dtype = numpy.promote_types(a.dtype, b.dtype)
    a, b = _on_device(queue, a, dtype), _on_device(queue, b, dtype)
    ai = [Expr(a[..., k]) for k in range(a.shape[-1])]
    bi = [Expr(b[..., k]) for k in range(b.shape[-1])]
    if not three:
        return _finished(queue, ai[0] * bi[1] - ai[1] * bi[0])
    # (bool: numpy's subtract and negative refuse it, and so do kjarni's, ArgumentTypeError)
    cp = _new_like("cross", a, dtype, shape, None)
    if len(ai) == 2:
        parts = (ai[1] * bi[2], -(ai[0] * bi[2]), ai[0] * bi[1] - ai[1] * bi[0])
    elif len(bi) == 2:
        parts = (-(ai[2] * bi[1]), ai[2] * bi[0], ai[0] * bi[1] - ai[1] * bi[0])
    else:
        parts = (ai[1] * bi[2] - ai[2] * bi[1], ai[2] * bi[0] - ai[0] * bi[2], ai[0] * bi[1] - ai[1] * bi[0])
    for k, part in enumerate(parts):
        _put(queue, cp[..., k], part)
    last = len(shape) - 1
    order = list(range(last))
    order.insert(axisc, last)  # numpy's moveaxis(cp, -1, axisc): a view
    return cp.transpose(order)


# ---- kron, ediff1d, polyval ------------------------------------------------------------------------

def _kron(a, b):
    # numpy's: a given b's number of dimensions (leading 1s), both given size-1 axes between their
    # own (a's at odd, b's at even positions), their broadcast product reshaped to the product of
    # the shapes.
    queue = _queue("kron", a, b)
    b = _on_device(queue, b)
    a = _on_device(queue, a)
    if a.ndim < b.ndim:
        a = a.reshape((1,) * (b.ndim - a.ndim) + tuple(a.shape))
    nda, ndb = a.ndim, b.ndim
    if nda == 0 or ndb == 0:
        return _finished(queue, Expr(a) * b)
    from . import _algorithms
    as_ = (1,) * (ndb - nda) + tuple(a.shape)
    bs = (1,) * (nda - ndb) + tuple(b.shape)
    a_arr = _algorithms.reshape(queue, a, [n for m in as_ for n in (m, 1)])
    b_arr = _algorithms.reshape(queue, b, [n for m in bs for n in (1, m)])
    product = _finished(queue, Expr(a_arr) * b_arr)
    return _algorithms.reshape(queue, product, tuple(m * n for m, n in zip(as_, bs)))


def _ediff1d_end(queue, what, value, dtype):
    """to_begin or to_end as a flat Array on `queue` (None for None), after numpy's same_kind check."""
    if value is None:
        return None
    value_dtype = value.dtype if isinstance(value, (Array, Expr)) else numpy.asanyarray(value).dtype
    if not numpy.can_cast(value_dtype, dtype, casting="same_kind"):
        raise ArgumentTypeError(f"numpy.ediff1d: dtype of `{what}` must be compatible with input `ary` under the "
                                "`same_kind` rule.", what)
    value = _on_device(queue, value)
    from . import _algorithms
    return _algorithms.reshape(queue, value, (-1,))


def _ediff1d(ary, to_end=None, to_begin=None):
    # numpy's: the differences of the flattened array in its dtype, after to_begin and before
    # to_end (both cast to that dtype).
    queue = _queue("ediff1d", ary, to_end, to_begin)
    from . import _algorithms
    ary = _algorithms.reshape(queue, _on_device(queue, ary), (-1,))
    ary.queue = queue
    if to_begin is None and to_end is None:
        return _finished(queue, Expr(ary[1:]) - ary[:-1])
    dtype = numpy.dtype(ary.dtype)
    begin = _ediff1d_end(queue, "to_begin", to_begin, dtype)
    end = _ediff1d_end(queue, "to_end", to_end, dtype)
    l_begin = 0 if begin is None else begin.shape[0]
    l_end = 0 if end is None else end.shape[0]
    l_diff = max(ary.shape[0] - 1, 0)
    if dtype == numpy.bool_:
        raise ArgumentTypeError("numpy.ediff1d: numpy boolean subtract, the `-` operator, is not supported", "ary")
    result = _new_like("ediff1d", ary, None, (l_diff + l_begin + l_end,), None)
    if l_begin > 0:
        _put(queue, result[:l_begin], begin)
    if l_end > 0:
        _put(queue, result[l_begin + l_diff:], end)
    if l_diff > 0:
        _put(queue, result[l_begin:l_begin + l_diff], Expr(ary[1:]) - ary[:-1])
    return result


def _polyval(p, x):
    # numpy's Horner loop, y = y * x + p[i] from y = zeros_like(x), each step evaluated in numpy's
    # types: p's elements are strong (numpy scalars or 0-d views), x an array (a Python number as
    # numpy.asarray makes it).
    queue = _queue("polyval", p, x)
    if isinstance(p, Expr):
        p = _on_device(queue, p)
    elif not isinstance(p, Array):
        p = numpy.asarray(p)
        if p.ndim > 1:
            p = _on_device(queue, p)  # (rows broadcast against x on the device)
    if p.ndim == 0:
        raise ArgumentTypeError("numpy.polyval: iteration over a 0-d array", "p")
    if isinstance(x, numpy.poly1d):
        _refuse("polyval", "poly1d x")
    x = _on_device(queue, x)
    y = _new_like("polyval", x, None, None, 0)
    for i in range(p.shape[0]):
        y = _finished(queue, Expr(y) * x + p[i])
    return y


# ---- trapezoid, cumulative_prod ---------------------------------------------------------------------

def _trapezoid(y, x=None, dx=1.0, axis=-1):
    # numpy's: the sum along `axis` of d * (y[1:] + y[:-1]) / 2.0, where d is dx or the differences
    # of x (1-d x along `axis`); numpy's slice lists give an IndexError for an axis y lacks.
    queue = _queue("trapezoid", y, x, dx)
    y = _on_device(queue, y)
    if x is None:
        d = dx
    else:
        x = _on_device(queue, x)
        if x.ndim == 1:
            d = _diff(x)
            shape = [1] * y.ndim
            shape[axis] = d.shape[0]
            d = d.reshape(shape)
        else:
            d = _diff(x, axis=axis)
    nd = y.ndim
    slice1 = [slice(None)] * nd
    slice2 = [slice(None)] * nd
    slice1[axis] = slice(1, None)
    slice2[axis] = slice(None, -1)
    values = _finished(queue, d * (Expr(y[tuple(slice1)]) + y[tuple(slice2)]) / 2.0)
    from . import _algorithms
    return _algorithms.sum(queue, values, axis)


def _cumulative(what, scan, identity, x, axis, dtype, out, include_initial):
    """numpy's _cumulative_func (cumulative_sum, cumulative_prod): a 0-d array as one element, an
    axis required past one dimension, include_initial the operation's identity first along the axis;
    `scan` is kjarni's cumsum or cumprod."""
    queue = _queue(what, x, out)
    x = _on_device(queue, x)
    if x.ndim == 0:
        x = x.reshape(1)
    if axis is None:
        if x.ndim >= 2:
            raise ArgumentError(f"numpy.{what}: For arrays which have more than one dimension ``axis`` "
                                "argument is required.", "axis")
        axis = 0
    (ax,) = _axes(axis, x.ndim, what)
    if out is not None and include_initial:
        scan(queue, x, ax, dtype, out[_at(x.ndim, ax, slice(1, None))])
        out[_at(x.ndim, ax, 0)].fill(identity, queue)
        return out
    res = scan(queue, x, ax, dtype, out)
    if out is not None:
        return out  # (numpy returns out itself)
    if include_initial:
        from . import _algorithms
        initial = _new_like(what, res, None, tuple(1 if k == ax else n for k, n in enumerate(x.shape)), identity)
        res = _algorithms.concatenate(queue, [initial, res], ax)
    res.queue = queue
    return res


def _cumulative_prod(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    from . import _algorithms
    return _cumulative("cumulative_prod", _algorithms.cumprod, 1, x, axis, dtype, out, include_initial)


def _cumulative_sum(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    from . import _algorithms
    return _cumulative("cumulative_sum", _algorithms.cumsum, 0, x, axis, dtype, out, include_initial)


# ---- lexsort ----------------------------------------------------------------------------------------

def _rows_of(queue, key, ax):
    """`key` with `ax` moved last, as a C-contiguous (rows, n) matrix."""
    from . import _algorithms
    moved = key.transpose([k for k in range(key.ndim) if k != ax] + [ax])
    return _algorithms.reshape(queue, _algorithms.ascontiguousarray(queue, moved), (-1, key.shape[ax]))


def _lexsort(keys, axis=-1):
    # numpy's indirect sort by several keys, the last the primary one: a stable argsort by the first
    # key, then, key by key, the stable argsort of the next key gathered in that order (each a
    # least significant digit pass). Along `axis` of each key; a 0-d key is one element.
    if isinstance(keys, Array):
        keys = [keys[i] for i in range(keys.shape[0])] if keys.ndim else []  # (its rows, as numpy)
    keys = list(keys)
    if not keys:
        raise ArgumentTypeError("numpy.lexsort: need sequence of keys with len > 0 in lexsort", "keys")
    axis = operator.index(axis)
    queue = _queue("lexsort", *keys)
    keys = [_on_device(queue, k) for k in keys]
    shape = tuple(keys[0].shape)
    if any(tuple(k.shape) != shape for k in keys):
        raise ArgumentError("numpy.lexsort: all keys need to be the same shape", "keys")
    if any(numpy.dtype(k.dtype).kind == "c" for k in keys):
        _refuse("lexsort", "complex keys")
    if not shape:
        keys = [k.reshape(1) for k in keys]
    (ax,) = _axes(axis, keys[0].ndim, "lexsort")
    n = keys[0].shape[ax]
    if keys[0].size == 0:
        return _new_like("lexsort", keys[0], numpy.int64, shape, None)
    from . import _algorithms
    rows = [_rows_of(queue, k, ax) for k in keys]
    count = rows[0].shape[0]
    starts = Array.from_host(queue, (numpy.arange(count, dtype=numpy.int64) * n).reshape(-1, 1))
    order = numpy.argsort(rows[0], axis=1)
    for key in rows[1:]:
        gathered = _algorithms.take(queue, key.reshape(-1), _finished(queue, Expr(order) + starts)).reshape(count, n)
        gathered.queue = queue
        step = numpy.argsort(gathered, axis=1)
        order = _algorithms.take(queue, order.reshape(-1), _finished(queue, Expr(step) + starts)).reshape(count, n)
    order = _on_device(queue, order, numpy.int64)
    moved = [m for k, m in enumerate(keys[0].shape) if k != ax] + [n]
    back = list(range(len(moved) - 1))
    back.insert(ax, len(moved) - 1)
    result = _algorithms.ascontiguousarray(queue, order.reshape(moved).transpose(back))
    result = result.reshape(shape)
    result.queue = queue
    return result


def functions():
    """numpy's function object -> its composition here (those numpy has)."""
    table = {
        "gradient": _gradient, "cross": _cross, "kron": _kron, "ediff1d": _ediff1d, "polyval": _polyval,
        "trapezoid": _trapezoid, "cumulative_prod": _cumulative_prod, "cumulative_sum": _cumulative_sum,
        "lexsort": _lexsort,
    }
    return {getattr(numpy, name): f for name, f in table.items() if hasattr(numpy, name)}
