"""The standard's inspection namespace (``__array_namespace_info__()``)."""

from . import _dtypes
from ._array_object import default_device, device_of, devices


class Info:
    """What kjarni.array_api offers: its capabilities, devices and data types."""

    def capabilities(self):
        # Boolean indexing and unique's results have shapes that depend on the data: kjarni reads
        # their sizes back from the device, so they are available.
        return {"boolean indexing": True, "data-dependent shapes": True}

    def default_device(self):
        return default_device()

    def default_dtypes(self, *, device=None):
        device_of(device)
        return {"real floating": _dtypes.float64, "complex floating": _dtypes.complex128,
                "integral": _dtypes.int64, "indexing": _dtypes.int64}

    def devices(self):
        return devices()

    def dtypes(self, *, device=None, kind=None):
        device_of(device)
        names = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32",
                 "float64", "complex64", "complex128")
        out = {}
        for name in names:
            d = getattr(_dtypes, name)
            if kind is None or _dtypes.isdtype(d, kind):
                out[name] = d
        return out


def __array_namespace_info__():
    return Info()
