"""The standard's data type objects. Not numpy's dtypes themselves: ``numpy.dtype("float64") ==
None`` is true (numpy reads None as its default dtype), which the standard's equality forbids.
Each wraps the numpy dtype of the same name (``.dtype``, so numpy and kjarni take it as one)."""

import numpy


class DType:
    __slots__ = ("dtype", "name", "kind", "itemsize")

    def __init__(self, name):
        self.dtype = numpy.dtype(name)
        self.name = name
        self.kind = self.dtype.kind
        self.itemsize = self.dtype.itemsize

    def __eq__(self, other):
        if isinstance(other, DType):
            return self.name == other.name
        if isinstance(other, numpy.dtype):
            return self.dtype == other
        return False

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return f"kjarni.array_api.{self.name}"

    def __str__(self):
        return self.name


NAMES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64",
         "complex64", "complex128")
BY_NAME = {name: DType(name) for name in NAMES}


def dtype_of(numpy_dtype):
    """Our dtype object for a numpy dtype (ValueError for one the standard lacks)."""
    d = BY_NAME.get(numpy.dtype(numpy_dtype).name)
    if d is None:
        raise ValueError(f"{numpy_dtype} is not a data type of the array API standard")
    return d
