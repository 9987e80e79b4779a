"""DLPack: kjarni arrays to and from CuPy, PyTorch, JAX, numpy (the array API standard's protocol).

On CUDA the exchange is zero-copy and ordered as the standard says: ``array.__dlpack__(stream=s)``
records an event on the array's queue (``array.queue``) that the consumer's stream ``s`` waits for,
and ``kjarni.from_dlpack(x, queue)`` passes ``queue``'s stream to the producer, which orders its
own work before it. On OpenCL there is no device pointer to share (buffers are ``cl_mem``): arrays
are exported through the host, as a numpy copy, and imported by copying to the device.
"""

import numpy

from . import _kjarni
from .errors import ArgumentError, UnsupportedError

kDLCPU, kDLCUDA, kDLCUDAHost, kDLOpenCL, kDLCUDAManaged = 1, 2, 3, 4, 13


def _is_cuda(array):
    return array.device.context.api.shortcut == "cuda"


def _producer_queue(array):
    queue = getattr(array, "queue", None)
    if queue is None:
        raise ArgumentError(
            "the array has no queue to order the exchange after: set array.queue to the queue its last "
            "writer used (arrays made by from_host, zeros or from_dlpack have one)", "queue")
    return queue


def __dlpack_device__(self):
    """(kDLCUDA, device ordinal) for a CUDA array; (kDLCPU, 0) on OpenCL, whose arrays are exported
    through a host copy."""
    if _is_cuda(self):
        return (kDLCUDA, int(self.device.device.native_handle))
    return (kDLCPU, 0)


def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    """A DLPack capsule of this array.

    CUDA: no copy; everything enqueued on ``self.queue`` so far is ordered before the consumer's
    ``stream`` (None: the legacy default stream; -1: no ordering; an int: a CUstream). With
    ``copy=True`` a device copy is exported instead. ``dl_device=(kDLCPU, 0)`` asks for a host copy.

    OpenCL: always a host copy (a numpy array's capsule), since OpenCL memory has no address another
    library can use; ``copy=False`` is then refused with BufferError.
    """
    queue = _producer_queue(self)
    versioned = max_version is not None and max_version[0] >= 1
    want_host = dl_device is not None and tuple(dl_device)[0] in (kDLCPU, kDLCUDAHost)
    if _is_cuda(self) and not want_host:
        if dl_device is not None and tuple(dl_device) != __dlpack_device__(self):
            raise BufferError(f"cannot export to device {tuple(dl_device)} from {__dlpack_device__(self)}")
        source = self.copy(queue) if copy else self
        return _kjarni._dlpack_export_cuda(source, queue, stream, versioned, False)
    if copy is False:
        raise BufferError("kjarni exports this array through the host, which needs a copy")
    host = self.get(queue)
    if max_version is None:
        return host.__dlpack__()
    return host.__dlpack__(max_version=max_version)


def from_dlpack(x, queue, copy=None):
    """An Array over a DLPack producer's data (a CuPy, PyTorch or JAX tensor, a numpy array...).

    A CUDA tensor on ``queue``'s device is used in place (no copy unless ``copy=True``): the
    producer orders its pending work before ``queue``, and keeps the memory alive as long as the
    array or any of its views. A host tensor (numpy...) is copied to the device. OpenCL queues
    cannot use CUDA memory: UnsupportedError.
    """
    device_type, device_id = x.__dlpack_device__()
    api = queue.device.context.api.shortcut
    if device_type in (kDLCUDA, kDLCUDAManaged) and api == "cuda":
        stream = int(queue.native_handle)
        try:
            capsule = x.__dlpack__(stream=stream, max_version=(1, 1))
        except TypeError:  # producers of DLPack < 1.0
            capsule = x.__dlpack__(stream=stream)
        array = _kjarni._dlpack_import_cuda(capsule, queue)
        if copy:
            array = array.copy(queue)
        array.queue = queue
        return array
    if device_type in (kDLCPU, kDLCUDAHost):
        if copy is False:
            raise BufferError("a host tensor is copied to the device")
        return _kjarni.Array.from_host(queue, numpy.from_dlpack(x))
    raise UnsupportedError(
        f"a tensor on DLPack device {(device_type, device_id)} cannot be used by a {api} queue: "
        "pass a host array (it is then copied)")


_kjarni.Array.__dlpack__ = __dlpack__
_kjarni.Array.__dlpack_device__ = __dlpack_device__
