"""numpy's sums of products on kjarni arrays, composed from kjarni's elementwise expressions, reductions
and BLAS matmul (``@``): linalg.vecdot, tensordot, cov, corrcoef, and the 1-d convolve and correlate
(a matmul of a strided window view), and the ufuncs vecdot, matvec and vecmat (numpy 2.4's, through
kjarni/_numpy.py's ufunc table): kjarni/_numpy_common.py says what they share."""

import math
import operator
import warnings

import numpy

from . import _kjarni
from .errors import ArgumentError, ArgumentTypeError
from ._numpy_common import Array, Expr, _queue, _evaluated, _axes, _new_like, _all_true
from ._numpy_shapes import _diagonal, _strided, real, imag


def _on_device(queue, value, dtype=None):
    """`value` as an Array on `queue` in `dtype` (when given): an Expr evaluated, a host array-like
    uploaded (numpy functions take lists and numbers for any operand)."""
    if isinstance(value, Expr):
        value = _evaluated(queue, value)
    elif not isinstance(value, Array):
        value = Array.from_host(queue, numpy.asarray(value, dtype=dtype))
    if dtype is not None and numpy.dtype(value.dtype) != numpy.dtype(dtype):
        value = _evaluated(queue, Expr(value).astype(dtype))
    value.queue = queue
    return value


def _conjugate(queue, a):
    """numpy's conjugate of a complex Array (a copy, its imaginary parts negated); other arrays as they are."""
    if numpy.dtype(a.dtype).kind != "c":
        return a
    return _evaluated(queue, _kjarni._array_api.unary("conjugate", a))


def _gemm_type(dtype):
    """The type kjarni's matmul computes numpy's dot of `dtype` in: bool as counts (int64), float16
    in float32 (numpy's float16 dot accumulates in float32 too), the others as they are."""
    return {numpy.dtype(numpy.bool_): numpy.dtype(numpy.int64),
            numpy.dtype(numpy.float16): numpy.dtype(numpy.float32)}.get(numpy.dtype(dtype), numpy.dtype(dtype))


def _matmul(queue, a, b, dtype=None):
    """numpy's dot of a matrix and a matrix or vector, in `dtype` (result_type(a, b) when None), by
    kjarni's BLAS in _gemm_type(dtype): bool as numpy's OR of ANDs (the counts != 0), float16 rounded."""
    dtype = numpy.result_type(a.dtype, b.dtype) if dtype is None else numpy.dtype(dtype)
    wide = _gemm_type(dtype)
    product = _on_device(queue, a, wide) @ _on_device(queue, b, wide)
    if dtype == numpy.bool_:
        product = _evaluated(queue, Expr(product) != 0)
    elif wide != dtype:
        product = _evaluated(queue, Expr(product).astype(dtype))
    product.queue = queue
    return product


def _core_last(queue, x, k, axis):
    """Operand k of vecdot with its core axis `axis` moved last (numpy's errors for a 0-d one)."""
    x = _on_device(queue, x)
    if x.ndim == 0:
        raise ArgumentError(f"vecdot: Input operand {k} does not have enough dimensions (has 0, gufunc core with "
                            "signature (n),(n)->() requires 1)", f"x{k + 1}")
    (ax,) = _axes(axis, x.ndim, "linalg.vecdot")
    return x.transpose([d for d in range(x.ndim) if d != ax] + [ax])


def _vecdot(x1, x2, /, *, axis=-1):
    # numpy's gufunc (n),(n)->(): sum(conj(x1) * x2) over `axis` of each operand (the core
    # dimensions equal, the others broadcast), in result_type(x1, x2); bool as an OR of ANDs.
    queue = _queue("linalg.vecdot", x1, x2)
    x1, x2 = _core_last(queue, x1, 0, axis), _core_last(queue, x2, 1, axis)
    if x1.shape[-1] != x2.shape[-1]:
        raise ArgumentError(f"vecdot: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
                            f"(n),(n)->() (size {x2.shape[-1]} is different from {x1.shape[-1]})", "x2")
    dtype = numpy.result_type(x1.dtype, x2.dtype)
    from . import _algorithms
    if dtype == numpy.bool_:
        return _algorithms.any(queue, _evaluated(queue, Expr(x1) & x2), -1)
    products = _evaluated(queue, Expr(_conjugate(queue, _on_device(queue, x1, dtype))) * _on_device(queue, x2, dtype))
    # (numpy's float16 loop accumulates in float32, as kjarni's float16 sum does)
    return _algorithms.sum(queue, products, -1, dtype)


def vecdot(x1, x2):
    """numpy's vecdot ufunc (numpy 2.4; kjarni/_numpy.py's ufunc table): linalg.vecdot's sum."""
    return _vecdot(x1, x2)


def matvec(x1, x2):
    """numpy's matvec ufunc, (m,n),(n)->(m): sum_j x1[i, j] x2[j], no conjugate; as vecdot of
    conj(x1)'s rows with x2 (conjugate twice is the identity)."""
    queue = _queue("matvec", x1, x2)
    x1, x2 = _on_device(queue, x1), _on_device(queue, x2)
    if x1.ndim < 2 or x2.ndim < 1:
        raise ArgumentError("matvec: operands need (m,n) and (n) core dimensions", "x1" if x1.ndim < 2 else "x2")
    rows = _conjugate(queue, x1) if numpy.dtype(x1.dtype).kind == "c" else x1
    return _vecdot(rows, x2.reshape(tuple(x2.shape[:-1]) + (1, x2.shape[-1])))


def vecmat(x1, x2):
    """numpy's vecmat ufunc, (n),(n,m)->(m): sum_i conj(x1[i]) x2[i, j]; vecdot along the axis
    before last."""
    queue = _queue("vecmat", x1, x2)
    x1, x2 = _on_device(queue, x1), _on_device(queue, x2)
    if x1.ndim < 1 or x2.ndim < 2:
        raise ArgumentError("vecmat: operands need (n) and (n,m) core dimensions", "x1" if x1.ndim < 1 else "x2")
    return _vecdot(x1.reshape(tuple(x1.shape) + (1,)), x2, axis=-2)


def _tensordot(a, b, axes=2):
    # numpy's, step by step: the summed axes moved to the end of a and the front of b, both
    # reshaped to matrices, their dot, reshaped to a's free axes then b's.
    queue = _queue("tensordot", a, b)
    a, b = _on_device(queue, a), _on_device(queue, b)
    try:
        iter(axes)
    except TypeError:
        axes_a, axes_b = list(range(-axes, 0)), list(range(0, axes))
    else:
        axes_a, axes_b = axes
    axes_a = list(axes_a) if hasattr(axes_a, "__len__") else [axes_a]
    axes_b = list(axes_b) if hasattr(axes_b, "__len__") else [axes_b]
    if len(axes_a) != len(axes_b) or any(a.shape[i] != b.shape[j] for i, j in zip(axes_a, axes_b)):
        raise ArgumentError("numpy.tensordot: shape-mismatch for sum", "axes")
    axes_a = [i + a.ndim if i < 0 else i for i in axes_a]
    axes_b = [j + b.ndim if j < 0 else j for j in axes_b]
    free_a = [k for k in range(a.ndim) if k not in axes_a]
    free_b = [k for k in range(b.ndim) if k not in axes_b]
    size = lambda x, axes: math.prod(x.shape[k] for k in axes)  # noqa: E731
    from . import _algorithms
    at = _algorithms.reshape(queue, a.transpose(free_a + axes_a), (size(a, free_a), size(a, axes_a)))
    bt = _algorithms.reshape(queue, b.transpose(axes_b + free_b), (size(b, axes_b), size(b, free_b)))
    product = _matmul(queue, at, bt)
    return _algorithms.reshape(queue, product, tuple(a.shape[k] for k in free_a) + tuple(b.shape[k] for k in free_b))


def _cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *, dtype=None):
    # numpy's, step by step: the variables as rows of X (in dtype: float64 at least by default), y's
    # rows after m's, X less each row's (weighted) average, X times the conjugate transpose of X
    # (times the weights), times 1 / fact where fact is the count (or weight sum) less ddof (0
    # with numpy's warning where that is not positive), squeezed.
    if ddof is not None and ddof != int(ddof):
        raise ArgumentError("numpy.cov: ddof must be integer", "ddof")
    queue = _queue("cov", m, y)
    m = _on_device(queue, m)
    if m.ndim > 2:
        raise ArgumentError("numpy.cov: m has more than 2 dimensions", "m")
    if y is not None:
        y = _on_device(queue, y)
        if y.ndim > 2:
            raise ArgumentError("numpy.cov: y has more than 2 dimensions", "y")
    if dtype is None:
        dtype = numpy.result_type(m.dtype, numpy.float64) if y is None else \
            numpy.result_type(m.dtype, y.dtype, numpy.float64)
    X = _rows(queue, m, dtype, not rowvar and m.ndim != 1)
    if X.shape[0] == 0:
        return _new_like("cov", X, numpy.float64, (0, 0), None)
    if y is not None:
        from . import _algorithms
        X = _algorithms.concatenate(queue, [X, _rows(queue, y, dtype, not rowvar and y.ndim == 2 and y.shape[0] != 1)])
    if ddof is None:
        ddof = 1 if bias == 0 else 0
    w, aweights = _cov_weights(queue, X.shape[1], fweights, aweights)
    average, w_sum = _row_averages(queue, X, w)
    if w is None:
        fact = X.shape[1] - ddof
    elif ddof == 0:
        fact = w_sum
    elif aweights is None:
        fact = w_sum - ddof
    else:
        from . import _algorithms
        fact = w_sum - ddof * _algorithms.sum(queue, _evaluated(queue, Expr(w) * aweights)).get(queue)[()] / w_sum
    if fact <= 0:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
        fact = 0.0
    centered = _evaluated(queue, (Expr(X) - average.reshape(-1, 1)).astype(dtype))  # numpy's X -= avg[:, None]
    weighted = centered if w is None else _evaluated(queue, Expr(centered) * w.reshape(1, -1))
    c = _matmul(queue, centered, _conjugate(queue, weighted.T))
    factor = numpy.true_divide(1, fact)  # numpy's c *= 1 / fact: a float64 factor, the product cast back
    c = _evaluated(queue, (Expr(c) * factor).astype(c.dtype))
    c = c.squeeze()
    c.queue = queue
    return c


def _rows(queue, m, dtype, transposed):
    """numpy's array(m, ndmin=2, dtype=dtype), transposed when asked (read only: a view where m has dtype)."""
    rows = m.reshape((1,) * (2 - m.ndim) + tuple(m.shape))
    return _on_device(queue, rows.T if transposed else rows, dtype)


def _cov_weights(queue, count, fweights, aweights):
    """numpy's checks of cov's weights (in float64) and their product w (None without weights)."""
    w = None
    for name, weights in (("fweights", fweights), ("aweights", aweights)):
        if weights is None:
            continue
        weights = _on_device(queue, weights, numpy.float64)
        if name == "fweights" and not _all_true(queue, Expr(weights) == _kjarni._array_api.unary("rint", weights)):
            raise ArgumentTypeError("numpy.cov: fweights must be integer", name)
        if weights.ndim > 1:
            raise ArgumentError(f"numpy.cov: cannot handle multidimensional {name} (numpy's RuntimeError)", name)
        if weights.shape[0] != count:
            raise ArgumentError(f"numpy.cov: incompatible numbers of samples and {name} (numpy's RuntimeError)", name)
        if not _all_true(queue, Expr(weights) >= 0):
            raise ArgumentError(f"numpy.cov: {name} cannot be negative", name)
        w = weights if w is None else _evaluated(queue, Expr(w) * weights)
        if name == "aweights":
            aweights = weights
    return w, aweights


def _row_averages(queue, X, w):
    """numpy's average(X, axis=1, weights=w, returned=True) with the first weight sum (a host scalar)."""
    from . import _algorithms
    if w is None:
        return _algorithms.mean(queue, X, 1), X.shape[1]
    dtype = numpy.result_type(X.dtype, w.dtype)
    scale = _algorithms.sum(queue, w, None, dtype).get(queue)[()]
    if scale == 0:
        raise ArgumentError("numpy.cov: Weights sum to zero, can't be normalized (numpy's ZeroDivisionError)",
                            "weights")
    total = _algorithms.sum(queue, _evaluated(queue, (Expr(X) * w.reshape(1, -1)).astype(dtype)), 1, dtype)
    return _evaluated(queue, Expr(total) / scale), scale


def _corrcoef(x, y=None, rowvar=True, *, dtype=None):
    # numpy's: cov divided by the standard deviations of the rows, then of the columns, its real
    # (and imaginary) parts clipped to [-1, 1]; a 0-d cov is c / c.
    queue = _queue("corrcoef", x, y)
    c = _cov(x, y, rowvar, dtype=dtype)
    if c.ndim != 2:
        return _evaluated(queue, Expr(c) / c)
    stddev = _evaluated(queue, _kjarni.sqrt(real(_diagonal(c))))
    c = _evaluated(queue, Expr(c) / stddev.reshape(-1, 1) / stddev.reshape(1, -1))
    for part in (real(c), imag(c)) if numpy.dtype(c.dtype).kind == "c" else (c,):
        _kjarni.assign(queue, part, _kjarni.clip(part, -1, 1))
    c.queue = queue
    return c


_MODES = {"valid": 0, "same": 1, "full": 2}


def _mode(mode):
    """numpy's convolve/correlate mode: a name or its number 0, 1, 2."""
    if isinstance(mode, str):
        if mode not in _MODES:
            raise ArgumentError(f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})", "mode")
        return _MODES[mode]
    if operator.index(mode) not in (0, 1, 2):
        raise ArgumentError("integer convolve/correlate mode must be 0, 1, or 2", "mode")
    return operator.index(mode)


def _correlation(queue, a, v, mode):
    """numpy's _pyarray_correlate: out[k] = sum_j a[k - left + j] v[j] over the j that fall in a
    (the longer operand first: `inverted` when they were swapped), as the matmul of the windows
    of a padded with zeros (a strided view, one element apart) and v."""
    inverted = a.shape[0] < v.shape[0]
    if inverted:
        a, v = v, a
    n1, n = a.shape[0], v.shape[0]
    left, right = ((0, 0), (n // 2, n - n // 2 - 1), (n - 1, n - 1))[mode]
    length = n1 + left + right - n + 1
    dtype = numpy.result_type(a.dtype, v.dtype)
    padded = _new_like("correlate", a, _gemm_type(dtype), (n1 + left + right,), 0)
    _kjarni.assign(queue, padded[left:left + n1], _on_device(queue, a, padded.dtype))
    step = padded.strides[0]
    windows = _strided(padded, (length, n), (step, step), padded.offset)
    v = _on_device(queue, v, padded.dtype).copy(queue)
    result = _matmul(queue, windows, v, dtype)
    if (left or right) and numpy.dtype(padded.dtype).kind in "fc" and not _all_true(
            queue, _kjarni._array_api.unary("isfinite", v)):
        # numpy sums only the products that fall in a: where v holds an infinity or NaN, the
        # padding's zeros times it (NaN) must not enter the outputs at the ends; those are the
        # sums of the overlapping parts alone.
        for k in list(range(left)) + list(range(length - right, length)):
            lo, hi = max(left - k, 0), min(n, n1 + left - k)
            row = _matmul(queue, padded[k + lo:k + hi].reshape((1, hi - lo)), v[lo:hi].copy(queue), dtype)
            _kjarni.assign(queue, result[k:k + 1], Expr(row))
    return result, inverted


def _one_dimensional(queue, what, x, name):
    x = _on_device(queue, x)
    if x.ndim != 1:
        raise ArgumentError(f"numpy.{what}: object {'too deep' if x.ndim else 'of too small depth'} for desired "
                            "array", name)
    return x


def _correlate(a, v, mode="valid"):
    # numpy's correlate2: v conjugated, the operands swapped when v is the longer one (the result
    # then reversed), in result_type(a, v).
    queue = _queue("correlate", a, v)
    a, v = _one_dimensional(queue, "correlate", a, "a"), _one_dimensional(queue, "correlate", v, "v")
    mode = _mode(mode)
    for name, x in (("first", a), ("second", v)):
        if x.shape[0] == 0:
            raise ArgumentError(f"numpy.correlate: {name} array argument cannot be empty",
                                "a" if name == "first" else "v")
    dtype = numpy.result_type(a.dtype, v.dtype)
    result, inverted = _correlation(queue, a, _conjugate(queue, _on_device(queue, v, dtype)), mode)
    return result[::-1].copy(queue) if inverted else result


def _convolve(a, v, mode="full"):
    # numpy's: the longer operand first, then the (unconjugated) correlation with the other reversed.
    queue = _queue("convolve", a, v)
    a, v = (x.reshape(1) if x.ndim == 0 else x for x in (_on_device(queue, a), _on_device(queue, v)))
    a, v = _one_dimensional(queue, "convolve", a, "a"), _one_dimensional(queue, "convolve", v, "v")
    if v.shape[0] > a.shape[0]:
        a, v = v, a
    for name, x in (("a", a), ("v", v)):
        if x.shape[0] == 0:
            raise ArgumentError(f"numpy.convolve: {name} cannot be empty", name)
    return _correlation(queue, a, v[::-1], _mode(mode))[0]


def functions():
    """numpy's function object -> its composition here (those numpy has)."""
    table = {"tensordot": _tensordot, "cov": _cov, "corrcoef": _corrcoef, "correlate": _correlate,
             "convolve": _convolve}
    found = {getattr(numpy, name): f for name, f in table.items() if hasattr(numpy, name)}
    if hasattr(numpy.linalg, "vecdot"):
        found[numpy.linalg.vecdot] = _vecdot
    return found
