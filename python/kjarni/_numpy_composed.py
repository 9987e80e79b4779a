"""numpy's partitioning, counting, binning, interpolation and padding on kjarni arrays (partition,
argpartition, bincount, histogram, interp, pad), composed from kjarni's sorts, searches, cumulative
sums, gathers (take) and writes into views: kjarni/_numpy_common.py says what they share."""

import operator
import warnings

import numpy

from . import _kjarni
from .errors import ArgumentError, ArgumentTypeError
from ._numpy_common import Array, Expr, _queue, _evaluated, _refuse, _axes, _new_like, _all_true
from ._numpy_linalg import _on_device, _one_dimensional
from ._numpy_shapes import real, imag
from ._numpy_sorting import _sort, _argsort, _searchsorted


def _unary(name, x):
    return _kjarni._array_api.unary(name, x)


# ---- partition ----------------------------------------------------------------------------------

def _partitioned(what, a, kth, axis, kind, order, sort):
    # numpy's checks, then a full sort along the axis: a sorted slice is a valid partition for
    # every kth (numpy leaves the order on either side of kth unspecified).
    if kind != "introselect":
        raise ArgumentError(f"numpy.{what}: select kind must be 'introselect' (got {kind!r})", "kind")
    if order is not None:
        _refuse(what, "order")
    kth = numpy.asarray(kth)
    if kth.dtype == numpy.bool_:
        raise ArgumentError(f"numpy.{what}: Booleans unacceptable as partition index", "kth")
    if kth.dtype.kind not in "iu":
        raise ArgumentTypeError(f"numpy.{what}: Partition index must be integer", "kth")
    if kth.ndim > 1:
        raise ArgumentError(f"numpy.{what}: object too deep for desired array", "kth")
    a = _on_device(_queue(what, a), a)
    if numpy.dtype(a.dtype).kind == "c":
        _refuse(what, "complex array")
    data, ax = (a.reshape(-1), 0) if axis is None else (a, _axes(axis, a.ndim, what)[0])
    n = data.shape[ax]
    for k in kth.reshape(-1).tolist() if data.size else ():
        if not 0 <= (k + n if k < 0 else k) < n:
            raise ArgumentError(f"numpy.{what}: kth(={k + n if k < 0 else k}) out of bounds ({n})", "kth")
    return sort(data, axis=ax)


def _partition(a, kth, axis=-1, kind="introselect", order=None):
    return _partitioned("partition", a, kth, axis, kind, order, _sort)


def _argpartition(a, kth, axis=-1, kind="introselect", order=None):
    # (the indices of kjarni's stable sort: numpy's may order equal elements otherwise)
    return _partitioned("argpartition", a, kth, axis, kind, order, _argsort)


# ---- bincount and histogram ---------------------------------------------------------------------

def _arange(queue, n):
    """0, 1, ..., n - 1 (int64) on the device: the values each count is searched for."""
    values = Array.from_host(queue, numpy.arange(n, dtype=numpy.int64))
    values.queue = queue
    return values


def _bin_sums(queue, ordered, starts, ends, dtype):
    """The sums of `ordered` (the weights in the order of the sorted values) over [starts, ends) of
    each bin: differences of their cumulative sum in `dtype`, from 0."""
    from . import _algorithms
    zero = _new_like("bincount", ordered, dtype, (1,), 0)
    cumulative = _algorithms.concatenate(queue, [zero, _algorithms.cumsum(queue, ordered, 0, dtype)])
    return Expr(_algorithms.take(queue, cumulative, ends)) - _algorithms.take(queue, cumulative, starts)


def _bincount(x, /, weights=None, minlength=0):
    # numpy's: x one-dimensional of integers (bool too) cast to intp, non-negative; the counts of
    # 0 ... max(x) (minlength at least) in intp, or the float64 sums of the weights. Here each bin
    # is a range of the sorted x (searchsorted for each value), a sum a difference of the
    # cumulative sum of the weights in that order.
    queue = _queue("bincount", x, weights)
    x = _one_dimensional(queue, "bincount", x, "x")
    if numpy.dtype(x.dtype).kind not in "biu":
        raise ArgumentTypeError(f"numpy.bincount: Cannot cast array data from dtype('{x.dtype}') to dtype('int64') "
                                "according to the rule 'safe'", "x")
    if minlength is None:
        raise ArgumentTypeError("numpy.bincount: use 0 instead of None for minlength", "minlength")
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ArgumentError("numpy.bincount: 'minlength' must not be negative", "minlength")
    if x.size == 0:
        return _new_like("bincount", x, numpy.int64, (minlength,), 0)  # numpy's, weights or not
    x = _on_device(queue, x, numpy.int64)  # (numpy's cast: a uint64 past int64 wraps to negative)
    from . import _algorithms
    if not _all_true(queue, Expr(x) >= 0):
        raise ArgumentError("numpy.bincount: 'list' argument must have no negative elements", "x")
    size = max(int(_algorithms.max(queue, x).get(queue)) + 1, minlength)
    if weights is not None:
        weights = _one_dimensional(queue, "bincount", weights, "weights")
        if not numpy.can_cast(weights.dtype, numpy.float64):
            raise ArgumentTypeError(f"numpy.bincount: Cannot cast array data from dtype('{weights.dtype}') to "
                                    "dtype('float64') according to the rule 'safe'", "weights")
        if weights.size != x.size:
            raise ArgumentError("numpy.bincount: The weights and list don't have the same length.", "weights")
    order = None if weights is None else _argsort(x)
    ordered = _sort(x) if order is None else _algorithms.take(queue, x, order)
    bounds = _searchsorted(ordered, _arange(queue, size + 1))
    starts, ends = bounds[:-1], bounds[1:]
    if weights is None:
        return _evaluated(queue, Expr(ends) - starts)
    in_order = _algorithms.take(queue, _on_device(queue, weights, numpy.float64), order)
    return _evaluated(queue, _bin_sums(queue, in_order, starts, ends, numpy.float64))


def _histogram(a, bins=10, range=None, density=None, weights=None):  # noqa: A002 (numpy's names)
    # numpy's: the bin edges (numpy's linspace of the range for a number of bins), then the count
    # (or the weights' sum) of each bin [e_k, e_k+1), the last one closed, as numpy's uniform and
    # cumulative algorithms both give it: searches of the edges in the sorted values.
    queue = _queue("histogram", a, bins, weights)
    a = _on_device(queue, a)
    if a.dtype == numpy.bool_:
        warnings.warn(f"Converting input from {a.dtype} to {numpy.uint8} for compatibility.", RuntimeWarning,
                      stacklevel=2)
        a = _on_device(queue, a, numpy.uint8)
    if numpy.dtype(a.dtype).kind == "c":
        _refuse("histogram", "complex array")
    from . import _algorithms
    if weights is not None:
        weights = _on_device(queue, weights)
        if tuple(weights.shape) != tuple(a.shape):
            raise ArgumentError("numpy.histogram: weights should have the same shape as a.", "weights")
        weights = _algorithms.reshape(queue, weights, -1)
    a = _algorithms.reshape(queue, a, -1)
    edges, uniform = _bin_edges(queue, a, bins, range)
    common = numpy.result_type(a.dtype, edges.dtype)  # numpy's searches (and its uniform path) compare in it
    values, cut = _on_device(queue, a, common), _on_device(queue, edges, common)
    order = None if weights is None else _argsort(values)
    ordered = _sort(values) if order is None else _algorithms.take(queue, values, order)
    cumulative = _algorithms.concatenate(queue, [_searchsorted(ordered, cut[:-1]),
                                                 _searchsorted(ordered, cut[-1:], side="right")])
    starts, ends = cumulative[:-1], cumulative[1:]
    if weights is None:
        n = _evaluated(queue, Expr(ends) - starts)
    else:
        total = _weight_sum_type(weights.dtype, uniform)
        in_order = _algorithms.take(queue, weights, order)
        n = _evaluated(queue, _bin_sums(queue, in_order, starts, ends, total).astype(weights.dtype))
    n.queue = queue
    if density:
        widths = (Expr(edges[1:]) - edges[:-1]).astype(numpy.float64)  # numpy's array(diff(bin_edges), float)
        n = _evaluated(queue, Expr(n) / widths / _algorithms.sum(queue, n))
        n.queue = queue
    return n, edges


def _weight_sum_type(dtype, uniform):
    """The type numpy's histogram sums weights of `dtype` in before casting them back: its uniform
    path sums by bincount (float64, complex as two), its other path by cumsum (numpy's type for it:
    int64 for smaller integers; bool is its UFuncTypeError)."""
    if uniform and (numpy.can_cast(dtype, numpy.float64) or numpy.can_cast(dtype, numpy.complex128)):
        return numpy.dtype(numpy.complex128 if numpy.dtype(dtype).kind == "c" else numpy.float64)
    total = numpy.cumsum(numpy.zeros(0, dtype)).dtype
    if not numpy.can_cast(total, dtype, "same_kind"):
        raise ArgumentTypeError(f"numpy.histogram: Cannot cast ufunc 'add' output from dtype('{total}') to "
                                f"dtype('{dtype}') with casting rule 'same_kind'", "weights")
    return total


def _bin_edges(queue, a, bins, range):  # noqa: A002
    """numpy's _get_bin_edges without the estimators: the edges on the device and whether they are
    numpy's uniform ones (for a number of bins)."""
    if isinstance(bins, str):
        _refuse("histogram", f"bins={bins!r} (an estimator)")
    ndim = bins.ndim if isinstance(bins, (Array, Expr)) else numpy.ndim(bins)
    if ndim == 1:
        edges = _on_device(queue, bins)
        if not _all_true(queue, _unary("logical_not", Expr(edges[:-1]) > edges[1:])):
            raise ArgumentError("numpy.histogram: `bins` must increase monotonically, when an array", "bins")
        return edges, False
    if ndim != 0:
        raise ArgumentError("numpy.histogram: `bins` must be 1d, when an array", "bins")
    try:
        count = operator.index(bins)
    except TypeError:
        raise ArgumentTypeError("numpy.histogram: `bins` must be an integer, a string, or an array", "bins") from None
    if count < 1:
        raise ArgumentError("numpy.histogram: `bins` must be positive, when an integer", "bins")
    first, last = _outer_edges(queue, a, range)
    bin_type = numpy.result_type(first, last, a.dtype)
    if numpy.issubdtype(bin_type, numpy.integer):
        bin_type = numpy.result_type(bin_type, float)
    # (numpy's linspace of two host scalars: the edges exactly as numpy makes them)
    edges = numpy.linspace(first, last, count + 1, endpoint=True, dtype=bin_type)
    if numpy.any(edges[:-1] >= edges[1:]):
        raise ArgumentError(f"numpy.histogram: Too many bins for data range. Cannot create {count} finite-sized "
                            "bins.", "bins")
    return _on_device(queue, edges), True


def _outer_edges(queue, a, range):  # noqa: A002
    """numpy's _get_outer_edges: the range, or the array's least and greatest elements (numpy
    scalars of its dtype, read back), widened by a half on each side when they are equal."""
    if range is not None:
        first, last = range
        if first > last:
            raise ArgumentError("numpy.histogram: max must be larger than min in range parameter.", "range")
        if not (numpy.isfinite(first) and numpy.isfinite(last)):
            raise ArgumentError(f"numpy.histogram: supplied range of [{first}, {last}] is not finite", "range")
    elif a.size == 0:
        first, last = 0, 1
    else:
        from . import _algorithms
        first, last = (_algorithms.min(queue, a).get(queue)[()], _algorithms.max(queue, a).get(queue)[()])
        if not (numpy.isfinite(first) and numpy.isfinite(last)):
            raise ArgumentError(f"numpy.histogram: autodetected range of [{first}, {last}] is not finite", "a")
    if first == last:
        first, last = first - 0.5, last + 0.5
    return first, last


# ---- interp -------------------------------------------------------------------------------------

def _interp(x, xp, fp, left=None, right=None, period=None):
    # numpy's compiled interp, step by step: x and xp in float64, fp in float64 or complex128; j
    # the last index with xp[j] <= x (the search numpy's binary search makes in a sorted xp); NaN
    # for a NaN x, `right` past xp[-1], `left` before xp[0], fp[j] at j = len(xp) - 1 or where
    # xp[j] == x, else slope (x - xp[j]) + fp[j], from the other end where that is NaN, and fp[j]
    # where that is NaN too and fp[j] == fp[j + 1].
    queue = _queue("interp", x, xp, fp)
    fp = _one_dimensional(queue, "interp", fp, "fp")
    kind = numpy.dtype(fp.dtype).kind
    if kind not in "biufc":
        raise ArgumentTypeError(f"numpy.interp: fp of {fp.dtype} is not a number", "fp")
    fp = _on_device(queue, fp, numpy.complex128 if kind == "c" else numpy.float64)
    xp = _one_dimensional(queue, "interp", xp, "xp")
    x = _on_device(queue, x)
    for name, value in (("xp", xp), ("x", x)):
        if not numpy.can_cast(value.dtype, numpy.float64):
            raise ArgumentTypeError(f"numpy.interp: Cannot cast array data from dtype('{value.dtype}') to "
                                    "dtype('float64') according to the rule 'safe'", name)
    xp, x = _on_device(queue, xp, numpy.float64), _on_device(queue, x, numpy.float64)
    if period is not None:
        xp, fp, x = _periodic(queue, xp, fp, x, period)
        left = right = None
    if xp.shape[0] == 0:
        raise ArgumentError("numpy.interp: array of sample points is empty", "xp")
    if fp.shape[0] != xp.shape[0]:
        raise ArgumentError("numpy.interp: fp and xp are not of the same length.", "fp")
    if x.size == 0:
        return _new_like("interp", x, fp.dtype, None, None)
    j = _evaluated(queue, Expr(_searchsorted(xp, x, side="right")) - 1)
    if kind != "c":
        return _evaluated(queue, _interpolated(queue, x, xp, fp, j, _fill(fp, left, 0), _fill(fp, right, -1), False))
    out = _new_like("interp", x, numpy.complex128, None, None)
    for part, take_part in ((real(out), numpy.real), (imag(out), numpy.imag)):
        fill = [None if v is None else take_part(complex(v)) for v in (left, right)]
        parts = real(fp) if take_part is numpy.real else imag(fp)
        value = _interpolated(queue, x, xp, parts, j, _fill(parts, fill[0], 0), _fill(parts, fill[1], -1), True)
        if take_part is numpy.imag and xp.shape[0] > 1:
            value = _kjarni.where(_unary("isnan", x), 0.0, value)  # numpy's complex interp of a NaN x: NaN + 0j
        _kjarni.assign(queue, part, value)
    return out


def _fill(fp, value, end):
    """interp's left or right: the value given (a float64), else fp's first or last element."""
    return fp[end] if value is None else numpy.float64(float(value))  # (float(): numpy's TypeError for complex)


def _interpolated(queue, x, xp, fp, j, low, high, reciprocal):
    """numpy's interp of real fp (float64) at x, j the index of each x's interval (see _interp);
    the slope divided by the step, or times its reciprocal as numpy's complex interp makes it."""
    n = xp.shape[0]
    if n == 1:
        # (numpy's one sample point: no NaN test, a NaN x gets fp[0])
        return _kjarni.where(Expr(x) < xp[0], low, _kjarni.where(Expr(x) > xp[0], high, fp[0]))
    from . import _algorithms
    lower = _evaluated(queue, _kjarni.clip(j, 0, n - 2))
    upper = _evaluated(queue, Expr(lower) + 1)
    x0, x1 = (_algorithms.take(queue, xp, k) for k in (lower, upper))
    f0, f1 = (_algorithms.take(queue, fp, k) for k in (lower, upper))
    step = Expr(x1) - x0
    slope = (Expr(f1) - f0) * (1.0 / step) if reciprocal else (Expr(f1) - f0) / step
    slope = _evaluated(queue, slope)
    value = _evaluated(queue, Expr(slope) * (Expr(x) - x0) + f0)
    value = _kjarni.where(_unary("isnan", value), Expr(slope) * (Expr(x) - x1) + f1, value)
    value = _kjarni.where(_unary("isnan", value) & (Expr(f0) == f1), f0, value)
    value = _kjarni.where(Expr(x0) == x, f0, value)
    value = _kjarni.where(Expr(j) == n - 1, fp[n - 1], value)
    value = _kjarni.where(Expr(x) < xp[0], low, value)
    value = _kjarni.where(Expr(x) > xp[n - 1], high, value)
    return _kjarni.where(_unary("isnan", x), x, value)


def _periodic(queue, xp, fp, x, period):
    """numpy's interp with a period: x and xp taken modulo it, xp sorted (fp with it), and one
    point more at each end, across the period."""
    if period == 0:
        raise ArgumentError("numpy.interp: period must be a non-zero value", "period")
    period = abs(period)
    if fp.shape[0] != xp.shape[0]:
        raise ArgumentError("numpy.interp: fp and xp are not of the same length", "fp")
    from . import _algorithms
    x = _evaluated(queue, Expr(x) % period)
    xp = _evaluated(queue, Expr(xp) % period)
    xp.queue = queue
    # (kjarni's argsort is stable: numpy's quicksort may order equal xp otherwise)
    order = _argsort(xp)
    xp, fp = _algorithms.take(queue, xp, order), _algorithms.take(queue, fp, order)
    xp = _algorithms.concatenate(queue, [_evaluated(queue, Expr(xp[-1:]) - period), xp,
                                         _evaluated(queue, Expr(xp[0:1]) + period)])
    fp = _algorithms.concatenate(queue, [fp[-1:], fp, fp[0:1]])
    return xp, fp, x


# ---- pad ----------------------------------------------------------------------------------------

_PAD_OPTIONS = {"constant": {"constant_values"}, "edge": set(), "reflect": {"reflect_type"},
                "symmetric": {"reflect_type"}, "wrap": set(), "empty": set()}
_PAD_REFUSED = ("linear_ramp", "maximum", "mean", "median", "minimum")


def _pad(array, pad_width, mode="constant", **kwargs):
    # numpy's, step by step: a new array of the padded shape holding the array in its middle, then
    # each axis's pad areas written in turn (each from the area the axes before have filled:
    # numpy's _view_roi), from the middle's values, the edges, reflections or wraps, which for a
    # pad wider than the array repeat, numpy's chunk by chunk.
    if callable(mode) or mode in _PAD_REFUSED:
        _refuse("pad", f"mode={getattr(mode, '__name__', mode)!r}")
    if mode not in _PAD_OPTIONS:
        raise ArgumentError(f"numpy.pad: mode '{mode}' is not supported", "mode")
    unsupported = set(kwargs) - _PAD_OPTIONS[mode]
    if unsupported:
        raise ArgumentError(f"numpy.pad: unsupported keyword arguments for mode '{mode}': {unsupported}", "kwargs")
    reflect_type = kwargs.get("reflect_type", "even")
    queue = _queue("pad", array)
    array = _on_device(queue, array)
    widths = _pad_widths(pad_width, array.ndim)
    padded = _new_like("pad", array, None, tuple(w[0] + n + w[1] for n, w in zip(array.shape, widths)), None)
    middle = tuple(slice(w[0], w[0] + n) for n, w in zip(array.shape, widths))
    padded[middle] = array
    roi = lambda axis: padded[(slice(None),) * (axis + 1) + middle[axis + 1:]]  # noqa: E731 (numpy's _view_roi)
    if mode == "constant":
        values = _as_pairs(kwargs.get("constant_values", 0), array.ndim)
        for axis, (width, value) in enumerate(zip(widths, values)):
            _set_pad_area(roi(axis), axis, width, value)
    elif mode == "empty":
        pass  # (numpy's: the pad areas as the new array holds them)
    elif array.size == 0:
        for axis, width in enumerate(widths):
            if array.shape[axis] == 0 and any(width):
                raise ArgumentError(f"numpy.pad: can't extend empty axis {axis} using modes other than 'constant' or "
                                    "'empty'", "pad_width")
    elif mode == "edge":
        for axis, width in enumerate(widths):
            _set_pad_area(roi(axis), axis, width, _edges(roi(axis), axis, width))
    elif mode == "wrap":
        for axis, width in enumerate(widths):
            while width[0] > 0 or width[1] > 0:
                width = _set_wrap_both(roi(axis), axis, width, array.shape[axis])
    else:
        for axis, width in enumerate(widths):
            if array.shape[axis] == 1 and any(width):
                # (numpy's legacy: a reflection of one element is its edge)
                _set_pad_area(padded, axis, width, _edges(padded, axis, width))
                continue
            while width[0] > 0 or width[1] > 0:
                width = _set_reflect_both(roi(axis), axis, width, reflect_type, array.shape[axis],
                                          mode == "symmetric")
    return padded


def _pad_widths(pad_width, ndim):
    """numpy's pad_width as (before, after) for each axis: a dict of axes, or integers that
    broadcast to (ndim, 2) (numpy's TypeError for others)."""
    if isinstance(pad_width, dict):
        pairs = [(0, 0)] * ndim
        for axis, width in pad_width.items():
            pairs[axis] = (width, width) if isinstance(width, int) else tuple(width)
        pad_width = pairs
    pad_width = numpy.asarray(pad_width)
    if pad_width.dtype.kind != "i":
        raise ArgumentTypeError("numpy.pad: `pad_width` must be of integral type.", "pad_width")
    pairs = _as_pairs(pad_width, ndim)
    # (numpy's _as_pairs checks the widths given, before they are repeated for each axis: a 0-d
    # array's negative width is refused too)
    if any(w < 0 for pair in pairs for w in pair) or (pad_width.size and pad_width.min() < 0):
        raise ArgumentError("numpy.pad: index can't contain negative values", "pad_width")
    return [tuple(int(w) for w in pair) for pair in pairs]


def _as_pairs(x, ndim):
    """numpy's _as_pairs: one value, one (before, after) pair, or one pair for each axis."""
    x = numpy.array(x)
    if x.ndim < 3 and x.size == 1:
        return [(x.ravel()[0], x.ravel()[0])] * ndim
    if x.ndim < 3 and x.size == 2 and x.shape != (2, 1):
        return [(x.ravel()[0], x.ravel()[1])] * ndim
    return [tuple(pair) for pair in numpy.broadcast_to(x, (ndim, 2))]


def _along(axis, part):
    """numpy's _slice_at_axis: `part` along `axis`, everything along the others."""
    return (slice(None),) * axis + (part,) + (...,)


def _set_pad_area(padded, axis, width, values):
    padded[_along(axis, slice(None, width[0]))] = values[0]
    padded[_along(axis, slice(padded.shape[axis] - width[1], None))] = values[1]


def _edges(padded, axis, width):
    end = padded.shape[axis] - width[1]
    return padded[_along(axis, slice(width[0], width[0] + 1))], padded[_along(axis, slice(end - 1, end))]


def _set_reflect_both(padded, axis, width, method, original_period, include_edge):
    """numpy's: a chunk (at most the valid length) of each pad area reflected from the values
    beside it, about the edge ("odd": 2 edge - value); the pad widths left."""
    left_pad, right_pad = width
    old_length = padded.shape[axis] - right_pad - left_pad
    if include_edge:
        old_length = old_length // original_period * original_period
        edge_offset = 1
    else:
        old_length = (old_length - 1) // (original_period - 1) * (original_period - 1) + 1
        edge_offset = 0
        old_length -= 1
    if left_pad > 0:
        chunk_length = min(old_length, left_pad)
        stop = left_pad - edge_offset
        chunk = Expr(padded[_along(axis, slice(stop + chunk_length, stop, -1))])
        if method == "odd":
            chunk = 2 * Expr(padded[_along(axis, slice(left_pad, left_pad + 1))]) - chunk
        padded[_along(axis, slice(left_pad - chunk_length, left_pad))] = chunk
        left_pad -= chunk_length
    if right_pad > 0:
        chunk_length = min(old_length, right_pad)
        start = -right_pad + edge_offset - 2
        chunk = Expr(padded[_along(axis, slice(start, start - chunk_length, -1))])
        if method == "odd":
            chunk = 2 * Expr(padded[_along(axis, slice(-right_pad - 1, -right_pad))]) - chunk
        start = padded.shape[axis] - right_pad
        padded[_along(axis, slice(start, start + chunk_length))] = chunk
        right_pad -= chunk_length
    return left_pad, right_pad


def _set_wrap_both(padded, axis, width, original_period):
    """numpy's: each pad area (at most a period of it) from the valid values at the other end;
    the pad widths left."""
    left_pad, right_pad = width
    period = (padded.shape[axis] - right_pad - left_pad) // original_period * original_period
    new_left_pad = new_right_pad = 0
    if left_pad > 0:
        end = left_pad + period
        chunk = padded[_along(axis, slice(end - min(period, left_pad), end))]
        if left_pad > period:
            area, new_left_pad = slice(left_pad - period, left_pad), left_pad - period
        else:
            area = slice(None, left_pad)
        padded[_along(axis, area)] = chunk
    if right_pad > 0:
        start = -right_pad - period
        chunk = padded[_along(axis, slice(start, start + min(period, right_pad)))]
        if right_pad > period:
            area, new_right_pad = slice(-right_pad, -right_pad + period), right_pad - period
        else:
            area = slice(-right_pad, None)
        padded[_along(axis, area)] = chunk
    return new_left_pad, new_right_pad


def functions():
    """numpy's function object -> its composition here (those numpy has)."""
    table = {"partition": _partition, "argpartition": _argpartition, "bincount": _bincount,
             "histogram": _histogram, "interp": _interp, "pad": _pad}
    return {getattr(numpy, name): f for name, f in table.items() if hasattr(numpy, name)}
