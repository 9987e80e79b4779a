"""numpy's sums of products on kjarni arrays, composed from kjarni's elementwise expressions, reductions
and BLAS matmul (``@``): linalg.vecdot, tensordot, cov, corrcoef, and the 1-d convolve and correlate
(a matmul of a strided window view), and the ufuncs vecdot, matvec and vecmat (numpy 2.4's, through
kjarni/_numpy.py's ufunc table): kjarni/_numpy_common.py says what they share."""

import math
import operator
import warnings

import numpy

from . import _kjarni
from .errors import ArgumentError, ArgumentTypeError, AxisError, DivisionByZeroError
from ._numpy_common import Array, Expr, _queue, _evaluated, _refuse, _axes, _new_like, _all_true, _on_device
from ._numpy_shapes import _diagonal, _strided, real, imag


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
        raise DivisionByZeroError("numpy.cov: Weights sum to zero, can't be normalized",
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


# ---- numpy.linalg's array API functions, norms, multi_dot, matrix_power ------------------------------

class LinAlgError(ArgumentError, numpy.linalg.LinAlgError):
    """numpy's LinAlgError (a ValueError), as kjarni's ArgumentError naming the argument."""


def _linalg_matmul(x1, x2, /):
    # numpy's matmul: kjarni's BLAS through @ (bool as counts, float16 in float32: _matmul).
    queue = _queue("linalg.matmul", x1, x2)
    x1, x2 = _on_device(queue, x1), _on_device(queue, x2)
    for k, x in enumerate((x1, x2)):
        if x.ndim == 0:
            raise ArgumentError(f"matmul: Input operand {k} does not have enough dimensions (has 0, gufunc core with "
                                "signature (n?,k),(k,m?)->(n?,m?) requires 1)", f"x{k + 1}")
    return _matmul(queue, x1, x2)


def _linalg_matrix_transpose(x, /):
    from ._numpy_shapes import _matrix_transpose
    return _matrix_transpose(x)


def _linalg_outer(x1, x2, /):
    queue = _queue("linalg.outer", x1, x2)
    x1, x2 = _on_device(queue, x1), _on_device(queue, x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise ArgumentError(f"numpy.linalg.outer: Input arrays must be one-dimensional, but they are x1.ndim={x1.ndim} "
                            f"and x2.ndim={x2.ndim}.", "x1" if x1.ndim != 1 else "x2")
    from ._numpy_elementwise import _outer
    return _outer(x1, x2)


def _linalg_tensordot(x1, x2, /, *, axes=2):
    return _tensordot(x1, x2, axes)


def _linalg_trace(x, /, *, offset=0, dtype=None):
    from ._numpy_statistics import _trace
    return _trace(x, offset, -2, -1, dtype)


def _linalg_diagonal(x, /, *, offset=0):
    diagonal = _diagonal(x, offset, -2, -1)
    diagonal.queue = _queue("linalg.diagonal", x)
    return diagonal


def _linalg_cross(x1, x2, /, *, axis=-1):
    queue = _queue("linalg.cross", x1, x2)
    x1, x2 = _on_device(queue, x1), _on_device(queue, x2)
    try:
        n1, n2 = x1.shape[axis], x2.shape[axis]
    except IndexError:
        # numpy 2.4 lets the shape's IndexError out, 2.5 raises AxisError: an AxisError is both.
        raise AxisError(f"numpy.linalg.cross: axis {axis} is out of range for the operands' dimensions",
                        "axis") from None
    if n1 != 3 or n2 != 3:
        raise ArgumentError("numpy.linalg.cross: Both input arrays must be (arrays of) 3-dimensional vectors, but "
                            f"they are {n1} and {n2} dimensional instead.", "x1" if n1 != 3 else "x2")
    from ._numpy_calculus import _cross
    return _cross(x1, x2, axis=axis)


def _finished(queue, value):
    value = _evaluated(queue, value)
    value.queue = queue
    return value


def _reduced(queue, name, x, axis, keepdims=False):
    """kjarni's reduction `name` (sum, max, min) of the Array or Expr x over `axis`."""
    from . import _algorithms
    x = _finished(queue, x)
    if name == "sum":
        result = _algorithms.sum(queue, x, axis, None, keepdims)
    else:
        result = getattr(_algorithms, name)(queue, x, axis, keepdims)
    result.queue = queue
    return result


def _max_from_zero(queue, x, axis, keepdims=False):
    """numpy's max(x, axis, initial=0) of magnitudes: 0 over an empty axis."""
    x = _finished(queue, x)
    if x.shape[axis] == 0:
        shape = tuple(1 if k == axis else n for k, n in enumerate(x.shape)) if keepdims else \
            tuple(n for k, n in enumerate(x.shape) if k != axis)
        return _new_like("linalg.norm", x, None, shape, 0)
    return _finished(queue, _kjarni.maximum(_reduced(queue, "max", x, axis, keepdims), 0))


def _norm(x, ord=None, axis=None, keepdims=False):
    # numpy's linalg.norm, step by step: x in a float type (integers as float64); no ord and no axis
    # (or 'fro' of a matrix, 2 of a vector) sqrt of the sum of squares of everything; over one axis
    # max / min / count of nonzeros / sum of |x|, or (sum |x|**ord) ** (1 / ord); over two axes
    # the largest or smallest row or column sum of |x|, or Frobenius'. The 2, -2 and nuclear
    # norms of matrices need singular values, which kjarni does not compute: refused.
    queue = _queue("linalg.norm", x)
    x = _on_device(queue, x)
    if numpy.dtype(x.dtype).kind not in "fc":
        x = _on_device(queue, x, numpy.float64)
    nd = x.ndim
    if axis is None and (ord is None or (isinstance(ord, str) and ord in ("f", "fro") and nd == 2)
                         or (not isinstance(ord, str) and ord == 2 and nd == 1)):
        from . import _algorithms
        flat = _algorithms.reshape(queue, x, (-1,))
        squares = _sum_of_squares(queue, flat, 0, False)
        result = _finished(queue, _kjarni.sqrt(squares))
        return result.reshape((1,) * nd) if keepdims else result
    if axis is None:
        axis = tuple(range(nd))
    elif not isinstance(axis, tuple):
        try:
            axis = int(axis)
        except Exception as e:
            raise ArgumentTypeError("numpy.linalg.norm: 'axis' must be None, an integer or a tuple of integers",
                                    "axis") from e
        axis = (axis,)
    text = isinstance(ord, str)
    if len(axis) == 1:
        if text:  # (numpy's: before the reductions look at the axis)
            raise ArgumentError(f"numpy.linalg.norm: Invalid norm order '{ord}' for vectors", "ord")
        (ax,) = _axes(axis, nd, "linalg.norm")
        magnitude = _kjarni.absolute(x)
        if not text and ord == numpy.inf:
            return _max_from_zero(queue, magnitude, ax, keepdims)
        if not text and ord == -numpy.inf:
            return _reduced(queue, "min", magnitude, ax, keepdims)
        if not text and ord == 0:
            return _reduced(queue, "sum", (Expr(x) != 0).astype(numpy.dtype(real(x).dtype)), ax, keepdims)
        if not text and ord == 1:
            return _reduced(queue, "sum", magnitude, ax, keepdims)
        if ord is None or (not text and ord == 2):
            return _finished(queue, _kjarni.sqrt(_sum_of_squares(queue, x, ax, keepdims)))
        absx = _finished(queue, magnitude)
        powered = absx ** ord  # (numpy's absx **= ord: the operator's shortcuts, cast back in place)
        if numpy.dtype(powered.dtype) != numpy.dtype(absx.dtype):
            powered = Expr(powered).astype(absx.dtype)
        ret = _reduced(queue, "sum", powered, ax, keepdims)
        exponent = numpy.reciprocal(ord, dtype=numpy.dtype(ret.dtype))
        return _finished(queue, _power(ret, exponent))
    if len(axis) == 2:
        row_axis, col_axis = (_axes(a, nd, "linalg.norm")[0] for a in axis)
        if row_axis == col_axis:
            raise ArgumentError("numpy.linalg.norm: Duplicate axes given.", "axis")
        if (not text and ord in (2, -2)) or ord == "nuc":
            _refuse("linalg.norm", f"ord={ord!r} of matrices (it needs singular values)")
        magnitude = _kjarni.absolute(x)
        if not text and ord in (1, -1):
            sums = _reduced(queue, "sum", magnitude, row_axis)
            col_axis -= 1 if col_axis > row_axis else 0
            ret = _max_from_zero(queue, sums, col_axis) if ord == 1 else _reduced(queue, "min", sums, col_axis)
        elif not text and ord in (numpy.inf, -numpy.inf):
            sums = _reduced(queue, "sum", magnitude, col_axis)
            row_axis -= 1 if row_axis > col_axis else 0
            ret = _max_from_zero(queue, sums, row_axis) if ord > 0 else _reduced(queue, "min", sums, row_axis)
        elif ord is None or ord in ("fro", "f"):
            ret = _finished(queue, _kjarni.sqrt(_sum_of_squares(queue, x, (row_axis, col_axis), False)))
        else:
            raise ArgumentError("numpy.linalg.norm: Invalid norm order for matrices.", "ord")
        if keepdims:
            shape = list(x.shape)
            shape[axis[0]] = 1
            shape[axis[1]] = 1
            ret = ret.reshape(shape)
            ret.queue = queue
        return ret
    raise ArgumentError("numpy.linalg.norm: Improper number of dimensions to norm.", "axis")


def _sum_of_squares(queue, x, axis, keepdims):
    """numpy's add.reduce((x.conj() * x).real) over `axis`, in x's real float type."""
    if numpy.dtype(x.dtype).kind == "c":
        re, im = Expr(real(x)), Expr(imag(x))
        squares = re * re + im * im
    else:
        squares = Expr(x) * x
    return _reduced(queue, "sum", squares, axis, keepdims)


def _power(a, b):
    from ._numpy import _UFUNCS
    return _UFUNCS["power"](a, b)


def _vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    # numpy's: x flattened (axis None) or its axes moved first and merged (a tuple), norm over axis 0
    # (or the one axis), the reduced axes kept as 1s on request.
    queue = _queue("linalg.vector_norm", x)
    x = _on_device(queue, x)
    shape = list(x.shape)
    from . import _algorithms
    if axis is None:
        x = _algorithms.reshape(queue, x, (-1,))
        x.queue = queue
        _axis = 0
    elif isinstance(axis, tuple):
        normalized = _axes(axis, x.ndim, "linalg.vector_norm")
        rest = tuple(i for i in range(x.ndim) if i not in normalized)
        moved = x.transpose(list(normalized) + list(rest))
        x = _algorithms.reshape(queue, moved, (math.prod(x.shape[i] for i in normalized),
                                               *[x.shape[i] for i in rest]))
        x.queue = queue
        _axis = 0
    else:
        _axis = axis
    res = _norm(x, axis=_axis, ord=ord)
    if keepdims:
        for i in _axes(range(len(shape)) if axis is None else axis, len(shape), "linalg.vector_norm"):
            shape[i] = 1
        res = res.reshape(tuple(shape))
        res.queue = queue
    return res


def _matrix_norm(x, /, *, keepdims=False, ord="fro"):
    return _norm(x, axis=(-2, -1), keepdims=keepdims, ord=ord)


def _dot(queue, a, b):
    """numpy's dot of two matrices (kjarni's BLAS: _matmul)."""
    return _matmul(queue, a, b)


def _chain_order(shapes):
    """numpy's matrix chain order for multi_dot: split[i][j] is where the cheapest product of
    matrices i..j splits (the first of equal costs)."""
    n = len(shapes)
    p = [s[0] for s in shapes] + [shapes[-1][1]]
    cost = [[0.0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + float(p[i] * p[k + 1] * p[j + 1])
                if q < cost[i][j]:
                    cost[i][j] = q
                    split[i][j] = k
    return split


def _into(queue, result, out):
    """numpy's dot(..., out=out): out of the result's dtype and shape, or its ValueError."""
    if out is None:
        result.queue = queue
        return result
    if not isinstance(out, Array) or tuple(out.shape) != tuple(result.shape) or out.dtype != result.dtype:
        raise ArgumentError("numpy.linalg.multi_dot: output array is not acceptable (must have the right datatype, "
                            "number of dimensions, and be a C-Array)", "out")
    _kjarni.assign(queue, out, result)
    return out


def _multi_dot(arrays, *, out=None):
    # numpy's: two arrays are dot; more, a first and a last 1-d array as a row and a column, all
    # 2-d, multiplied in numpy's order (its cost formula for three, the matrix chain order for more),
    # the result raveled (or its one element) where an end was 1-d.
    arrays = list(arrays)
    n = len(arrays)
    if n < 2:
        raise ArgumentError("numpy.linalg.multi_dot: Expecting at least two arrays.", "arrays")
    queue = _queue("linalg.multi_dot", *arrays)
    arrays = [_on_device(queue, a) for a in arrays]
    ndim_first, ndim_last = arrays[0].ndim, arrays[-1].ndim
    if n == 2:
        if not (1 <= ndim_first <= 2 and 1 <= ndim_last <= 2):
            from ._numpy import _np_dot
            return _np_dot(arrays[0], arrays[1], out=out)  # (numpy's dot of other dimensions: refused there)
        return _into(queue, _dot(queue, arrays[0], arrays[1]), out)
    if ndim_first == 1:
        arrays[0] = arrays[0].reshape(1, -1)
    if ndim_last == 1:
        arrays[-1] = arrays[-1].reshape(-1, 1)
    for a in arrays:
        if a.ndim != 2:
            raise LinAlgError(f"numpy.linalg.multi_dot: {a.ndim}-dimensional array given. Array must be "
                              "two-dimensional", "arrays")
    if out is not None and (ndim_first == 1 or ndim_last == 1):
        _refuse("linalg.multi_dot", "out with a 1-d first or last array")
    if n == 3:
        A, B, C = arrays
        a0, a1b0 = A.shape
        b1c0, c1 = C.shape
        if a0 * b1c0 * (a1b0 + c1) < a1b0 * c1 * (a0 + b1c0):
            result = _dot(queue, _dot(queue, A, B), C)
        else:
            result = _dot(queue, A, _dot(queue, B, C))
    else:
        split = _chain_order([tuple(a.shape) for a in arrays])

        def product(i, j):
            if i == j:
                return arrays[i]
            return _dot(queue, product(i, split[i][j]), product(split[i][j] + 1, j))
        result = product(0, n - 1)
    if out is not None:
        return _into(queue, result, out)
    result.queue = queue
    if ndim_first == 1 and ndim_last == 1:
        return result.reshape(())
    if ndim_first == 1 or ndim_last == 1:
        return result.reshape(-1)
    return result


def _matrix_power(a, n):
    # numpy's: a stack of square matrices; n = 0 the identity, 1 a itself, 2 and 3 the products,
    # more by squaring (the bits of n from the least significant). A negative n needs an inverse,
    # which kjarni does not compute: refused.
    queue = _queue("linalg.matrix_power", a)
    a = _on_device(queue, a)
    if a.ndim < 2:
        raise LinAlgError(f"numpy.linalg.matrix_power: {a.ndim}-dimensional array given. Array must be at least "
                          "two-dimensional", "a")
    if a.shape[-1] != a.shape[-2]:
        raise LinAlgError("numpy.linalg.matrix_power: Last 2 dimensions of the array must be square", "a")
    try:
        n = operator.index(n)
    except TypeError as e:
        raise ArgumentTypeError("numpy.linalg.matrix_power: exponent must be an integer", "n") from e
    if n == 0:
        identity = _new_like("linalg.matrix_power", a, None, None, 0)
        _diagonal(identity, 0, -2, -1).fill(1, queue)
        return identity
    if n < 0:
        _refuse("linalg.matrix_power", "negative n (it needs the inverse)")
    if n == 1:
        return a
    if n == 2:
        return _matmul(queue, a, a)
    if n == 3:
        return _matmul(queue, _matmul(queue, a, a), a)
    z = result = None
    while n > 0:
        z = a if z is None else _matmul(queue, z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else _matmul(queue, result, z)
    return result


def functions():
    """numpy's function object -> its composition here (those numpy has)."""
    table = {"tensordot": _tensordot, "cov": _cov, "corrcoef": _corrcoef, "correlate": _correlate,
             "convolve": _convolve}
    found = {getattr(numpy, name): f for name, f in table.items() if hasattr(numpy, name)}
    linalg = {"vecdot": _vecdot, "matmul": _linalg_matmul, "matrix_transpose": _linalg_matrix_transpose,
              "outer": _linalg_outer, "tensordot": _linalg_tensordot, "trace": _linalg_trace,
              "diagonal": _linalg_diagonal, "cross": _linalg_cross, "norm": _norm, "vector_norm": _vector_norm,
              "matrix_norm": _matrix_norm, "multi_dot": _multi_dot, "matrix_power": _matrix_power}
    found.update({getattr(numpy.linalg, name): f for name, f in linalg.items() if hasattr(numpy.linalg, name)})
    return found
