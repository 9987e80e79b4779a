"""kjarni's namespace of the Python array API standard (2023.12), as numpy 2, CuPy and PyTorch
offer theirs: libraries written against the standard (array-api-compat, scikit-learn's and SciPy's
array-API paths) run on kjarni devices.

    import kjarni.array_api as xp
    x = xp.asarray([1.0, 2.0, 3.0])          # on xp.__array_namespace_info__().default_device()
    y = xp.sum(xp.sin(x) ** 2)

Arrays (``kjarni.array_api.Array``) wrap kjarni's ``Array`` on a device's queue; every function
and operator runs on that device (kjarni's expressions, reductions, sorts, selections), and
returns when its work is enqueued. Where the result's shape depends on the data (boolean indexing,
unique, nonzero, repeat by an array) the size is read back. docs/python.md lists what the
namespace does on the host and where it differs from the standard.
"""

import math as _math

from ._array_object import Array, Device
from ._dtypes import (  # noqa: F401 (the standard's names)
    bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64, complex64, complex128,
    astype, can_cast, finfo, iinfo, isdtype, result_type,
)
from ._creation import (  # noqa: F401
    arange, asarray, empty, empty_like, eye, from_dlpack, full, full_like, linspace, meshgrid, ones, ones_like,
    tril, triu, zeros, zeros_like,
)
from ._elementwise import (  # noqa: F401
    abs, acos, acosh, add, asin, asinh, atan, atan2, atanh, bitwise_and, bitwise_invert, bitwise_left_shift,
    bitwise_or, bitwise_right_shift, bitwise_xor, ceil, clip, conj, copysign, cos, cosh, divide, equal, exp,
    expm1, floor, floor_divide, greater, greater_equal, hypot, imag, isfinite, isinf, isnan, less, less_equal,
    log, log1p, log2, log10, logaddexp, logical_and, logical_not, logical_or, logical_xor, maximum, minimum,
    multiply, negative, not_equal, positive, pow, real, remainder, round, sign, signbit, sin, sinh, sqrt, square,
    subtract, tan, tanh, trunc,
)
from ._indexing import take  # noqa: F401
from ._linalg import matmul, matrix_transpose, tensordot, vecdot  # noqa: F401
from ._manipulation import (  # noqa: F401
    broadcast_arrays, broadcast_to, concat, expand_dims, flip, moveaxis, permute_dims, repeat, reshape, roll,
    squeeze, stack, tile, unstack,
)
from ._searching import argmax, argmin, argsort, nonzero, searchsorted, sort, where  # noqa: F401
from ._sets import unique_all, unique_counts, unique_inverse, unique_values  # noqa: F401
from ._statistical import all, any, cumulative_sum, max, mean, min, prod, std, sum, var  # noqa: F401
from ._info import __array_namespace_info__  # noqa: F401

__array_api_version__ = "2023.12"

e = _math.e
inf = _math.inf
nan = _math.nan
pi = _math.pi
newaxis = None
