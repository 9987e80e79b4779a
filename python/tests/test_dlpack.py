"""DLPack. On OpenCL: through the host (numpy consumes and produces). On CUDA: zero-copy with a
consumer stream (needs a CUDA device; bench/python/dlpack_round_trip.py does CuPy and PyTorch)."""

import numpy
import pytest

import kjarni


def test_exchange_with_numpy(queue, rng):
    host = rng.standard_normal((6, 5)).astype(numpy.float32)
    a = kjarni.Array.from_host(queue, host)
    if queue.device.context.api.shortcut == "opencl":
        assert a.__dlpack_device__() == (1, 0)
        with pytest.raises(BufferError):
            a.__dlpack__(copy=False)
        numpy.testing.assert_array_equal(numpy.from_dlpack(a), host)
    back = kjarni.from_dlpack(host[::2], queue)
    numpy.testing.assert_array_equal(back.get(queue), host[::2])


def test_cuda_zero_copy_with_stream(queue, rng):
    if queue.device.context.api.shortcut != "cuda":
        pytest.skip("zero-copy DLPack needs a CUDA device")
    host = rng.standard_normal(1000).astype(numpy.float32)
    a = kjarni.Array.from_host(queue, host)
    other = kjarni.Queue(queue.device)
    capsule = a.__dlpack__(stream=int(other.native_handle), max_version=(1, 0))
    b = kjarni._kjarni._dlpack_import_cuda(capsule, other)
    assert b.base.native_handle + b.base.offset + b.offset == a.base.native_handle + a.base.offset + a.offset
    numpy.testing.assert_array_equal(b.get(other), host)
