"""dtypes against numpy; discovery and filters; the exception hierarchy."""

import numpy
import pytest

import kjarni
from kjarni import dtypes


@pytest.mark.parametrize("dtype", [
    numpy.dtype([("a", numpy.int8), ("b", numpy.float64)]),
    numpy.dtype([("a", numpy.int8), ("b", numpy.float64)], align=True),
    numpy.dtype([("x", numpy.complex64), ("n", [("p", numpy.int16), ("q", numpy.uint32, (2, 3))])], align=True),
    numpy.dtype(numpy.complex128),
])
def test_dtype_round_trip(dtype):
    k = dtypes.dtype(dtype)
    assert k.itemsize == dtype.itemsize
    assert dtypes.to_numpy(k) == dtype


def test_dtype_helpers_match_numpy():
    pairs = [(numpy.int32, numpy.float32), (numpy.int64, numpy.uint64), (numpy.float32, numpy.complex64)]
    for a, b in pairs:
        assert dtypes.result_type(a, b) == numpy.result_type(a, b)
    assert dtypes.result_type(numpy.int8, numpy.int8) == numpy.int32  # the GPU rule widens small integers
    assert dtypes.complex_for(numpy.float64) == numpy.complex128
    assert dtypes.real_for(numpy.complex64) == numpy.float32
    assert dtypes.is_complex(numpy.complex64) and not dtypes.is_complex(numpy.float32)
    assert dtypes.c_constant(numpy.float32(1.5)) == "1.5f"
    aligned = dtypes.align(numpy.dtype([("a", numpy.int8), ("b", numpy.float64)]))
    assert aligned == numpy.dtype([("a", numpy.int8), ("b", numpy.float64)], align=True)
    flat = dtypes.flatten_dtype(numpy.dtype([("a", numpy.int8), ("b", numpy.float32, (2,))]))
    assert [p for p, _ in flat] == [["a"], ["b", 0], ["b", 1]]
    assert dtypes.c_path(["b", 1]) == "b[1]"


def test_result_type_of_several_dtypes_is_numpys():
    # numpy's algorithm for several dtypes at once, which is not a left fold of promote_types (int8,
    # uint16, float32 is float32 in numpy, the fold float64), then the GPU rule (narrow integers and
    # float16 widen to 32 bits).
    import itertools

    def gpu_rule(d):
        if d.kind in "iu" and d.itemsize < 4:
            return numpy.dtype(d.kind + "4")
        return numpy.dtype(numpy.float32) if d == numpy.float16 else d

    names = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16", "float32",
             "float64", "complex64", "complex128"]
    for triple in itertools.product(names, repeat=3):
        assert dtypes.result_type(*triple) == gpu_rule(numpy.result_type(*triple)), triple


def test_discovery_and_filters():
    api = kjarni.any_api
    assert api in kjarni.API.all_available()
    platform = api.platforms[0]
    device = platform.devices[0]
    assert device.platform == platform and platform.api == api
    found = kjarni.Device.all_filtered(platform, kjarni.DeviceFilter(include_masks=[device.name[:4]]))
    assert device in found
    assert kjarni.Device.all_filtered(platform, kjarni.DeviceFilter(exclude_masks=["."])) == []
    assert device.params.max_total_local_size >= 1
    context = kjarni.Context.from_criteria(api, device_filter=kjarni.DeviceFilter(include_masks=[device.name[:4]]))
    assert context.device.name == context.devices[0].name
    with pytest.raises(kjarni.NotFoundError):
        kjarni.Context.from_criteria(api, device_filter=kjarni.DeviceFilter(include_masks=["no such device, surely"]))
    with pytest.raises(kjarni.ArgumentError):
        kjarni.Platform.from_index(api, 1000)


def test_hierarchy():
    assert issubclass(kjarni.ArgumentError, ValueError) and issubclass(kjarni.ArgumentError, kjarni.Error)
    assert issubclass(kjarni.OutOfMemoryError, MemoryError) and issubclass(kjarni.OutOfMemoryError, kjarni.BackendError)
    assert issubclass(kjarni.CompileError, kjarni.Error) and issubclass(kjarni.RenderError, kjarni.Error)
