"""The standard's linear algebra functions in the main namespace: matmul, tensordot, vecdot and
matrix_transpose. matmul (and tensordot, which is one matmul) runs through kjarni's BLAS (gemm,
gemm_batched) for the dtypes BLAS has: float32, float64, complex64, complex128. Integer dtypes,
which BLAS lacks, and vecdot form the products elementwise by broadcasting and sum them with
kjarni's reduction on the device."""

import operator

import numpy

from .. import _kjarni
from ..dtypes import dtype as _kdtype
from ..errors import UnsupportedError
from ._array_object import Array, empty_on, wrap


def matrix_transpose(x, /):
    if x.ndim < 2:
        raise ValueError("matrix_transpose needs an array of at least 2 dimensions")
    axes = list(range(x.ndim - 2)) + [x.ndim - 1, x.ndim - 2]
    from ._manipulation import permute_dims
    return permute_dims(x, axes)


def _sum_products(a, b, axis, dtype, shape):
    """sum(a * b, axis) in `dtype`: the products evaluated (one kernel), then reduced (one more)."""
    from ._manipulation import broadcast_to
    device = a.device
    if 0 in shape:
        return empty_on(shape, dtype, device)
    prod_expr = _kjarni._expr_astype(_kjarni.Expr(a._data), _kdtype(dtype)) * \
        _kjarni._expr_astype(_kjarni.Expr(b._data), _kdtype(dtype))
    full_shape = numpy.broadcast_shapes(a.shape, b.shape)
    if 0 in full_shape:
        out = empty_on(shape, dtype, device)
        _kjarni.fill(device.queue, out._data, numpy.zeros((), dtype=dtype)[()])
        return out
    products = _kjarni.evaluate(device.queue, prod_expr, None)
    if tuple(products.shape) != tuple(full_shape):
        products = broadcast_to(wrap(products, device), full_shape)._data
    return wrap(_kjarni.sum(device.queue, products, [axis % len(full_shape)], _kdtype(dtype), False, None, None),
                device)


def _check_numeric(*xs):
    for x in xs:
        if not isinstance(x, Array) or x.dtype.kind not in "iufc":
            raise TypeError("linear algebra takes numeric kjarni.array_api arrays")


_BLAS_DTYPES = frozenset(numpy.dtype(t) for t in ("float32", "float64", "complex64", "complex128"))


def _blas_matmul(a, b, dtype, batch):
    """a @ b for a (..., m, k) and b (..., k, n), both at least 2-d, through gemm (no batch) or
    gemm_batched over the broadcast batch axes flattened into one. An operand without a batch of
    its own is repeated by a batch stride of 0 (broadcast_to's view), not copied; BLAS copies an
    operand whose layout it cannot read (a flipped view, for one) into a temporary itself."""
    from ._dtypes import astype
    from ._manipulation import broadcast_to, reshape
    device = a.device
    queue = device.queue
    a, b = astype(a, dtype, copy=False), astype(b, dtype, copy=False)
    if not batch:
        return wrap(_kjarni.blas.gemm(queue, 1.0, a._data, b._data, 0.0, None, "N", "N"), device)
    count = int(numpy.prod(batch, dtype=numpy.int64))

    def stacked(x):
        return reshape(broadcast_to(x, batch + x.shape[-2:]), (count,) + x.shape[-2:])._data

    c = _kjarni.blas.gemm_batched(queue, 1.0, stacked(a), stacked(b), 0.0, None, "N", "N")
    return reshape(wrap(c, device), batch + (a.shape[-2], b.shape[-1]))


def matmul(x1, x2, /):
    _check_numeric(x1, x2)
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError("matmul does not take 0-d arrays")
    from ._dtypes import result_type
    from ._manipulation import expand_dims, reshape
    dtype = result_type(x1, x2)
    a, b = x1, x2
    if a.ndim == 1:
        a = expand_dims(a, axis=0)
    if b.ndim == 1:
        b = expand_dims(b, axis=1)
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"matmul: {x1.shape} and {x2.shape} do not match in the contracted dimension")
    batch = tuple(numpy.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
    m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
    shape = batch + (m, n)
    if k == 0 or 0 in shape:
        out = empty_on(shape, dtype, x1.device)
        if out.size:
            _kjarni.fill(x1.device.queue, out._data, numpy.zeros((), dtype=dtype)[()])
    else:
        out = None
        if numpy.dtype(dtype) in _BLAS_DTYPES:
            try:
                out = _blas_matmul(a, b, dtype, batch)
            except UnsupportedError:
                # The vendor BLAS is missing (cuBLAS or CLBlast are loaded at run time): the path
                # below gives the same values without it.
                out = None
        if out is None:
            # Integers (BLAS has no integer gemm), or no BLAS: the (..., m, k, n) products are
            # formed in one kernel and summed over k by the reduction (an m*k*n temporary).
            a3 = reshape(a, a.shape[:-2] + (m, k, 1))
            b3 = reshape(b, b.shape[:-2] + (1, k, n))
            out = _sum_products(a3, b3, -2, dtype, shape)
    if x1.ndim == 1:
        out = reshape(out, out.shape[:-2] + out.shape[-1:])
    if x2.ndim == 1:
        out = reshape(out, out.shape[:-1])
    return out


def tensordot(x1, x2, /, *, axes=2):
    _check_numeric(x1, x2)
    from ._manipulation import permute_dims, reshape
    if isinstance(axes, int):
        if axes < 0 or axes > min(x1.ndim, x2.ndim):
            raise ValueError("tensordot's axes must be between 0 and the arrays' dimensions")
        a_axes = list(range(x1.ndim - axes, x1.ndim))
        b_axes = list(range(axes))
    else:
        a_axes = [operator.index(a) % x1.ndim for a in axes[0]]
        b_axes = [operator.index(b) % x2.ndim for b in axes[1]]
        if len(a_axes) != len(b_axes):
            raise ValueError("tensordot needs as many axes of x1 as of x2")
    for i, j in zip(a_axes, b_axes):
        if x1.shape[i] != x2.shape[j]:
            raise ValueError("tensordot's contracted axes must have equal lengths")
    a_free = [i for i in range(x1.ndim) if i not in a_axes]
    b_free = [j for j in range(x2.ndim) if j not in b_axes]
    k = int(numpy.prod([x1.shape[i] for i in a_axes], dtype=numpy.int64))
    m = int(numpy.prod([x1.shape[i] for i in a_free], dtype=numpy.int64))
    n = int(numpy.prod([x2.shape[j] for j in b_free], dtype=numpy.int64))
    a = reshape(permute_dims(x1, a_free + a_axes), (m, k))
    b = reshape(permute_dims(x2, b_axes + b_free), (k, n))
    out = matmul(a, b)
    return reshape(out, tuple(x1.shape[i] for i in a_free) + tuple(x2.shape[j] for j in b_free))


def vecdot(x1, x2, /, *, axis=-1):
    _check_numeric(x1, x2)
    from ._dtypes import result_type
    from ._elementwise import conj
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError("vecdot does not take 0-d arrays")
    full_shape = numpy.broadcast_shapes(x1.shape, x2.shape)
    axis = operator.index(axis)
    if not -len(full_shape) <= axis < 0 and not 0 <= axis < len(full_shape):
        raise ValueError("vecdot's axis is out of range")
    if axis >= 0:
        # The standard counts a non-negative axis in the broadcast shape; kjarni's arrays are
        # aligned at the end, so the axis counts from there.
        axis -= len(full_shape)
    if x1.shape[axis] != x2.shape[axis] if -x1.ndim <= axis and -x2.ndim <= axis else True:
        raise ValueError("vecdot's arrays must have the contracted axis with equal lengths")
    dtype = result_type(x1, x2)
    shape = tuple(s for i, s in enumerate(full_shape) if i != axis % len(full_shape))
    a = conj(x1) if x1.dtype.kind == "c" else x1
    if full_shape[axis] == 0:
        out = empty_on(shape, dtype, x1.device)
        if out.size:
            _kjarni.fill(x1.device.queue, out._data, numpy.zeros((), dtype=dtype)[()])
        return out
    return _sum_products(a, x2, axis, dtype, shape)
