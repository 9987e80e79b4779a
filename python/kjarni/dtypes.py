"""Data types (grunnur.dtypes): numpy dtypes in, kjarni's C types and constants out.

Everything here takes numpy dtypes (or anything ``numpy.dtype()`` takes, or a kjarni ``DType``)
and returns numpy dtypes; struct dtypes are numpy's structured dtypes, with their offsets and
alignment as numpy states them.
"""

import numpy

from . import _kjarni

DType = _kjarni.DType


def dtype(d):
    """kjarni's ``DType`` for a numpy dtype-like (``numpy.float32``, ``"int32"``, a structured dtype)."""
    if isinstance(d, DType):
        return d
    nd = numpy.dtype(d)
    if nd.fields is None:
        if nd.subdtype is not None:
            raise _errors().ArgumentError(f"a sub-array dtype {nd} is not an element type", "dtype")
        return _kjarni._dtype_scalar(nd.name)
    fields = []
    for name in nd.names:
        fd, offset = nd.fields[name][:2]
        shape = ()
        if fd.subdtype is not None:
            fd, shape = fd.subdtype
        fields.append((name, dtype(fd), offset, list(shape)))
    return _kjarni._dtype_struct(fields, bool(nd.isalignedstruct), nd.itemsize)


def to_numpy(d):
    """The numpy dtype of a kjarni ``DType`` (or of anything numpy.dtype() takes)."""
    if not isinstance(d, DType):
        return numpy.dtype(d)
    if not d.is_struct:
        return numpy.dtype(d.name)
    names, formats, offsets = [], [], []
    for name, fd, offset, shape in d.fields:
        names.append(name)
        base = to_numpy(fd)
        formats.append((base, tuple(shape)) if shape else base)
        offsets.append(offset)
    return numpy.dtype(dict(names=names, formats=formats, offsets=offsets, itemsize=d.itemsize),
                       align=d.is_aligned_struct)


def _errors():
    from . import errors
    return errors


def ctype(d):
    """The C type for a dtype: a string for scalars, the ``ctype_struct`` Module for structs."""
    return _kjarni._ctype(dtype(d))


def ctype_struct(d, ignore_alignment=False):
    """The Module with ``typedef struct {...} ${prefix};`` for an aligned struct dtype."""
    return _kjarni._ctype_struct(dtype(d), ignore_alignment)


def complex_ctr(d):
    """The constructor macro of a complex dtype: ``COMPLEX64_CTR`` / ``COMPLEX128_CTR``."""
    return _kjarni._complex_ctr(dtype(d))


def c_constant(val, d=None):
    """A C constant of ``val`` (a Python or numpy number, or a structured numpy scalar), of dtype ``d``.

    Without ``d`` a numpy scalar keeps its dtype, and a Python number gets the type grunnur gives
    it, so that a template renders the same arithmetic under both: an int within int32's range is
    an int32 constant (``3``, a C ``int``), a larger one min_scalar_type's; a float or a complex is
    of min_scalar_type's (float32 / complex64 within float32's range: ``0.1f``, never a double
    that a device without float64 could not compile), a bool ``1`` or ``0``.
    """
    if d is not None:
        nd = numpy.dtype(d)
    elif isinstance(val, (bool, numpy.generic)) or not isinstance(val, (int, float, complex)):
        nd = numpy.asarray(val).dtype
    elif isinstance(val, int) and -(2**31) <= val < 2**31:
        nd = numpy.dtype(numpy.int32)
    else:
        nd = min_scalar_type(val)
    element = numpy.asarray(val, dtype=nd).reshape(())
    return _kjarni._c_constant_bytes(element.tobytes(), dtype(nd))


def is_complex(d):
    return _kjarni._is_complex(dtype(d))


def is_double(d):
    return _kjarni._is_double(dtype(d))


def is_integer(d):
    return _kjarni._is_integer(dtype(d))


def is_real(d):
    return _kjarni._is_real(dtype(d))


def result_type(*dtypes):
    """numpy's result_type, then the GPU rule (narrow integers and float16 widen to 32 bits)."""
    return to_numpy(_kjarni._result_type([dtype(d) for d in dtypes]))


def min_scalar_type(val, force_signed=False):
    """The smallest dtype holding ``val`` (numpy's min_scalar_type), then the GPU rule; bool for a
    boolean, as numpy and grunnur."""
    if isinstance(val, (bool, numpy.bool_)):
        return numpy.dtype(numpy.bool_)
    if isinstance(val, (int, numpy.integer)):
        f = _kjarni._min_scalar_type_int if val < 0 or val < 2**63 else _kjarni._min_scalar_type_uint
        return to_numpy(f(int(val), force_signed))
    if isinstance(val, (complex, numpy.complexfloating)):
        return to_numpy(_kjarni._min_scalar_type_complex(complex(val), force_signed))
    return to_numpy(_kjarni._min_scalar_type_float(float(val), force_signed))


def complex_for(d):
    return to_numpy(_kjarni._complex_for(dtype(d)))


def real_for(d):
    return to_numpy(_kjarni._real_for(dtype(d)))


def align(d):
    """The struct with the offsets a C compiler gives it (numpy's align=True), recursively."""
    return to_numpy(_kjarni._align(dtype(d)))


def flatten_dtype(d):
    """Every scalar element of a (nested) dtype: a list of (path, numpy dtype) in memory order."""
    return [(list(path), to_numpy(fd)) for path, fd in _kjarni._flatten_dtype(dtype(d))]


def c_path(path):
    """The C expression for a path of field names and indices: ``a.b[2].c``."""
    return _kjarni._c_path(list(path))


def extract_field(arr, path):
    """The field at ``path`` of every element of a structured numpy array."""
    out = arr
    for step in path:
        if isinstance(step, str):
            out = out[step]
        else:
            out = out[..., step]
    return out
