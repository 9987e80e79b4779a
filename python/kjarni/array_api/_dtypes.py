"""The standard's data types (numpy's dtype objects: kjarni's element types are numpy's) and its
data type functions: astype, can_cast, finfo, iinfo, isdtype, result_type."""

from dataclasses import dataclass

import builtins

import numpy

from .. import _kjarni
from ..dtypes import dtype as _kdtype
from ._array_object import Array, device_of, wrap

from ._dtype_objects import BY_NAME, DType, dtype_of

bool = BY_NAME["bool"]  # noqa: A001 (the standard's names)
int8, int16, int32, int64 = (BY_NAME[n] for n in ("int8", "int16", "int32", "int64"))
uint8, uint16, uint32, uint64 = (BY_NAME[n] for n in ("uint8", "uint16", "uint32", "uint64"))
float32, float64 = BY_NAME["float32"], BY_NAME["float64"]
complex64, complex128 = BY_NAME["complex64"], BY_NAME["complex128"]

ALL = (bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64, complex64, complex128)

_KINDS = {
    "bool": "b", "signed integer": "i", "unsigned integer": "u", "integral": "iu", "real floating": "f",
    "complex floating": "c", "numeric": "iufc",
}


def check(dtype):
    """Our dtype object for `dtype` (one of ours, or a numpy dtype of the same name)."""
    if isinstance(dtype, DType):
        return dtype
    if isinstance(dtype, numpy.dtype) and dtype.name in BY_NAME:
        return BY_NAME[dtype.name]
    raise ValueError(f"not a data type of the array API standard: {dtype!r}")


bool_ = builtins.bool


def astype(x, dtype, /, *, copy=True, device=None):
    check(dtype)
    if device is not None and device_of(device) is not x.device:
        x = x.to_device(device)
    dtype = check(dtype)
    if not copy and x.dtype == dtype:
        return x
    if x.dtype.kind == "c" and dtype.kind != "c":
        raise TypeError(f"astype from {x.dtype} to {dtype}: the standard leaves complex to real undefined")
    queue = x.device.queue
    if x.size == 0:
        return wrap(_kjarni.Array._empty(queue.device, list(x.shape), _kdtype(dtype), None, 0, None), x.device)
    return wrap(_kjarni.evaluate(queue, _kjarni._expr_astype(x._data, _kdtype(dtype)), None), x.device)


def can_cast(from_, to, /):
    from_ = from_.dtype if isinstance(from_, Array) else check(from_)
    return bool_(numpy.can_cast(from_.dtype, check(to).dtype, casting="safe"))


@dataclass(frozen=True)
class finfo_object:  # noqa: N801 (the standard's name)
    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: numpy.dtype


@dataclass(frozen=True)
class iinfo_object:  # noqa: N801
    bits: int
    max: int
    min: int
    dtype: numpy.dtype


def finfo(type, /):  # noqa: A002
    dtype = type.dtype if isinstance(type, Array) else check(type)
    f = numpy.finfo(dtype.dtype)
    real = dtype_of(f.dtype)
    return finfo_object(f.bits, float(f.eps), float(f.max), float(f.min), float(f.smallest_normal), real)


def iinfo(type, /):  # noqa: A002
    dtype = type.dtype if isinstance(type, Array) else check(type)
    i = numpy.iinfo(dtype.dtype)
    return iinfo_object(i.bits, int(i.max), int(i.min), dtype)


def isdtype(dtype, kind):
    dtype = check(dtype)
    if isinstance(kind, tuple):
        return any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, str):
        if kind not in _KINDS:
            raise ValueError(f"unknown data type kind {kind!r}")
        return dtype.kind in _KINDS[kind]
    return dtype == check(kind)


def result_type(*arrays_and_dtypes):
    """numpy's promotion, which is the standard's where the standard defines one; mixed kinds
    (integer with floating) follow numpy too (the standard leaves them to the library)."""
    if not arrays_and_dtypes:
        raise ValueError("result_type needs at least one array or dtype")
    dtypes = []
    scalars = []
    for a in arrays_and_dtypes:
        if isinstance(a, Array):
            dtypes.append(a.dtype)
        elif isinstance(a, (int, float, complex)):
            scalars.append(a)
        else:
            dtypes.append(check(a))
    if not dtypes:
        raise ValueError("result_type needs at least one array or dtype beside Python scalars")
    # numpy's algorithm for several dtypes at once, not a left fold of promote_types (int8, uint16,
    # float32 is float32 in numpy, the fold float64): concat promotes its arrays through this, as
    # np.concatenate does.
    result = numpy.result_type(*(d.dtype for d in dtypes))
    for s in scalars:
        result = numpy.result_type(result, s)
    return dtype_of(result)
