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
    """A C constant of ``val`` (a Python or numpy number, a structured numpy scalar, or a numpy
    array), of dtype ``d``.

    Without ``d`` a numpy scalar or array keeps its dtype, and a Python number gets the type grunnur
    gives it, so that a template renders the same arithmetic under both: an int within int32's range
    is an int32 constant (``3``, a C ``int``), a larger one min_scalar_type's; a float or a complex
    is of min_scalar_type's (float32 / complex64 within float32's range: ``0.1f``, never a double
    that a device without float64 could not compile), a bool ``1`` or ``0``.

    An array of one or more dimensions is an initializer nested in braces per dimension, in C order
    (grunnur's): ``{{0, 1, 2}, {3, 4, 5}}``; an array of one element keeps its braces (``{7}``), a
    0-d array is its element.
    """
    if d is not None:
        nd = numpy.dtype(d)
    elif isinstance(val, (bool, numpy.generic)) or not isinstance(val, (int, float, complex)):
        nd = numpy.asarray(val).dtype
    elif isinstance(val, int) and -(2**31) <= val < 2**31:
        nd = numpy.dtype(numpy.int32)
    else:
        nd = min_scalar_type(val)
    values = numpy.asarray(val, dtype=nd)
    kd = dtype(nd)
    if values.ndim == 0:
        return _kjarni._c_constant_bytes(values.tobytes(), kd)
    return _c_constant_nested(values, kd)


def _c_constant_nested(values, kd):
    """``{...}`` of each item along the first axis: nested initializers down to the elements."""
    if values.ndim == 0:
        return _kjarni._c_constant_bytes(values.tobytes(), kd)
    return "{" + ", ".join(_c_constant_nested(item, kd) for item in values) + "}"


def is_complex(d):
    return _kjarni._is_complex(dtype(d))


def is_double(d):
    return _kjarni._is_double(dtype(d))


def is_integer(d):
    return _kjarni._is_integer(dtype(d))


def is_real(d):
    return _kjarni._is_real(dtype(d))


def _is_python_number(x):
    # numpy.float64 and numpy.complex128 derive from float and complex: they are not weak scalars.
    return isinstance(x, (int, float, complex)) and not isinstance(x, numpy.generic)


def _widened(nd):
    """The GPU rule on one numpy dtype: narrow integers and float16 widen to 32 bits."""
    return to_numpy(_kjarni._result_type([dtype(nd)]))


def result_type(*dtypes):
    """numpy's result_type, then the GPU rule (narrow integers and float16 widen to 32 bits).

    Python numbers (``1``, ``1.5``, ``1j``, ``True``) are numpy's weak scalars, as numpy.result_type
    (and grunnur) take them: ``result_type("int8", 1)`` is int8, widened to int32."""
    if any(_is_python_number(d) for d in dtypes):
        return _widened(numpy.result_type(*[to_numpy(d) if isinstance(d, DType) else d for d in dtypes]))
    return to_numpy(_kjarni._result_type([dtype(d) for d in dtypes]))


def min_scalar_type(val, force_signed=False):
    """The dtype for a scalar, then the GPU rule (grunnur's): a numpy scalar keeps its own dtype
    (``numpy.int32(51)`` is int32), a Python number gets the smallest dtype holding it
    (numpy's min_scalar_type: ``51`` is uint8, widened to uint32); bool for a boolean, as numpy and
    grunnur. ``force_signed`` makes non-negative integers signed (a Python int, or a numpy unsigned
    scalar, then gets the smallest signed type holding its value)."""
    if isinstance(val, (bool, numpy.bool_)):
        return numpy.dtype(numpy.bool_)
    if isinstance(val, numpy.number) and not (force_signed and isinstance(val, numpy.unsignedinteger)):
        return _widened(val.dtype)
    if isinstance(val, (int, numpy.integer)):
        val = int(val)
        if not -(2**63) <= val < 2**64:
            raise _errors().ArgumentError(
                f"min_scalar_type: {val} fits no integer dtype (they hold -2**63 to 2**64 - 1)", "val")
        f = _kjarni._min_scalar_type_int if val < 2**63 else _kjarni._min_scalar_type_uint
        return to_numpy(f(val, force_signed))
    if isinstance(val, (complex, numpy.complexfloating)):
        return to_numpy(_kjarni._min_scalar_type_complex(complex(val), force_signed))
    return to_numpy(_kjarni._min_scalar_type_float(float(val), force_signed))


_COMPLEX_FOR = {numpy.dtype(numpy.float32): numpy.dtype(numpy.complex64),
                numpy.dtype(numpy.float64): numpy.dtype(numpy.complex128)}
_REAL_FOR = {c: r for r, c in _COMPLEX_FOR.items()}


def complex_for(d):
    """The complex dtype of a float32 or float64 (complex64, complex128); ArgumentError (a
    ValueError) for any other dtype, a complex or float16 one included, as grunnur."""
    nd = to_numpy(d)
    if nd not in _COMPLEX_FOR:
        raise _errors().ArgumentError(f"complex_for: {nd} is not float32 or float64, so it has no complex dtype",
                                      "dtype")
    return _COMPLEX_FOR[nd]


def real_for(d):
    """The real dtype of a complex64 or complex128 (float32, float64); ArgumentError (a
    ValueError) for any other dtype, a real one included, as grunnur."""
    nd = to_numpy(d)
    if nd not in _REAL_FOR:
        raise _errors().ArgumentError(f"real_for: {nd} is not complex64 or complex128, so it has no real dtype",
                                      "dtype")
    return _REAL_FOR[nd]


def align(d):
    """The struct with the offsets a C compiler gives it (numpy's align=True), recursively."""
    return to_numpy(_kjarni._align(dtype(d)))


class FieldInfo(tuple):
    """One scalar element of a (nested) dtype, as flatten_dtype gives it: a pair ``(path, dtype)``
    (grunnur 0.3's, so that ``for path, d in flatten_dtype(...)`` works) with grunnur 0.6's
    FieldInfo attributes ``path`` (field names and array indices), ``dtype`` (numpy), ``offset``
    (bytes from the start of the outermost struct) and ``c_path`` (``.a[0].b``)."""

    def __new__(cls, path, dtype, offset):
        self = super().__new__(cls, (path, dtype))
        self.offset = offset
        return self

    @property
    def path(self):
        return self[0]

    @property
    def dtype(self):
        return self[1]

    @property
    def c_path(self):
        """The C expression that reaches this element from a struct value, starting with its
        first field's ``.`` (grunnur 0.6's; c_path(path) gives it without the dot)."""
        return "".join(f".{step}" if isinstance(step, str) else f"[{step}]" for step in self[0])

    def __repr__(self):
        return f"FieldInfo(path={self[0]!r}, dtype={self[1]!r}, offset={self.offset!r})"


def _flatten(nd, path, offset, out):
    if nd.names is None:
        out.append(FieldInfo(path, nd, offset))
        return
    for name in nd.names:
        field, field_offset = nd.fields[name][:2]
        if field.subdtype is None:
            _flatten(field, [*path, name], offset + field_offset, out)
            continue
        base, shape = field.subdtype
        for flat, index in enumerate(numpy.ndindex(*shape)):
            _flatten(base, [*path, name, *index], offset + field_offset + flat * base.itemsize, out)


def flatten_dtype(d):
    """Every scalar element of a (nested) dtype: a list of FieldInfo, each a ``(path, numpy
    dtype)`` pair with ``.path``, ``.dtype``, ``.offset`` and ``.c_path``. Fields come in the
    dtype's order of names (grunnur's), array fields element by element in C order; a scalar
    dtype gives one FieldInfo with an empty path."""
    out = []
    _flatten(to_numpy(d), [], 0, out)
    return out


def c_path(path):
    """The C expression for a path of field names and indices: ``a.b[2].c`` (grunnur 0.3's;
    grunnur 0.6's FieldInfo.c_path starts with a dot)."""
    return _kjarni._c_path(list(path))


def extract_field(arr, path):
    """The field at ``path`` (as flatten_dtype gives it) of every element of a structured numpy
    array: the fields named along the path, then its array indices, in order, on the axes the
    sub-array fields add after the array's own (a numpy scalar where no axis is left)."""
    out, indices = arr, []
    for step in path:
        if isinstance(step, str):
            out = out[step]
        else:
            indices.append(step)
    if not indices:
        return out
    return out[(slice(None),) * (out.ndim - len(indices)) + tuple(indices)]
