"""The memory kinds beside device arrays, as numpy arrays where the host can see them: page-locked
host memory (PyCUDA's ``pagelocked_empty``, ``register_host_memory``), managed / shared virtual
memory (PyCUDA's ``managed_empty``, PyOpenCL's ``svm_empty``), IPC handles, pitched allocations and
rectangular copies (PyCUDA's ``mem_alloc_pitch``, ``Memcpy2D``/``Memcpy3D``; PyOpenCL's
``enqueue_copy`` with origins and pitches).

A numpy array made here keeps its memory alive (``array.base`` leads to it: ``host_memory_of``),
and one of managed memory is a kernel argument as it is: the launch passes its address.
"""

import numpy

from . import _kjarni
from .errors import ArgumentError

HostMemory = _kjarni.HostMemory
HostMemoryPool = _kjarni.HostMemoryPool
ManagedMemory = _kjarni.ManagedMemory
ManagedHostAccess = _kjarni.ManagedHostAccess
ManagedAttach = _kjarni.ManagedAttach
SVMPool = _kjarni.SVMPool
PooledSVM = _kjarni.PooledSVM
IpcEvent = _kjarni.IpcEvent
PitchedBuffer = _kjarni.PitchedBuffer
managed_memory_capabilities = _kjarni.managed_memory_capabilities
allocate_pitched = _kjarni.allocate_pitched
fill_2d = _kjarni.fill_2d
pointer_attributes = _kjarni.pointer_attributes
mem_get_info = _kjarni.mem_get_info
MemoryType = _kjarni.MemoryType
DeferredAllocator = _kjarni.DeferredAllocator
ImmediateAllocator = _kjarni.ImmediateAllocator


def _nbytes(shape, dtype, order="C"):
    shape = (shape,) if isinstance(shape, (int, numpy.integer)) else tuple(shape)
    if any(int(extent) < 0 for extent in shape):
        raise ArgumentError(f"a shape has no negative extents: {shape}", "shape")
    if order not in ("C", "F"):
        raise ArgumentError(f"order must be 'C' or 'F', not {order!r}", "order")
    dtype = numpy.dtype(dtype)
    return shape, dtype, int(numpy.prod(shape, dtype=numpy.int64)) * dtype.itemsize


def _view(memory, shape, dtype, order, nbytes):
    """A numpy array over the first `nbytes` of `memory` (anything with the buffer protocol), whose
    base chain keeps `memory` alive."""
    flat = numpy.frombuffer(memory, dtype=numpy.uint8, count=nbytes)
    return flat.view(dtype).reshape(shape, order=order)


def host_memory_of(array):
    """The HostMemory or ManagedMemory (or PooledSVM) a numpy array made here lies in, found through
    its ``base`` chain (PyCUDA's ``array.base``); None for other arrays."""
    kinds = (HostMemory, ManagedMemory, PooledSVM, ManagedHostAccess)
    seen = array
    for _ in range(32):
        if isinstance(seen, kinds):
            return seen
        seen = getattr(seen, "base", None)
        if seen is None:
            return None
        if isinstance(seen, memoryview):
            seen = seen.obj
    return None


def pagelocked_empty(context, shape, dtype, order="C", *, portable=False, mapped=False, write_combined=False):
    """A numpy array in page-locked host memory of `context` (PyCUDA's ``pagelocked_empty``, whose
    ``mem_flags`` are the keyword arguments here). Transfers from and to it need no staging;
    with ``mapped=True`` kernels reach it through ``host_memory_of(a).device_buffer(device)``."""
    shape, dtype, nbytes = _nbytes(shape, dtype, order)
    memory = HostMemory.allocate(context, nbytes, portable=portable, mapped=mapped, write_combined=write_combined)
    return _view(memory, shape, dtype, order, nbytes)


def pagelocked_zeros(context, shape, dtype, order="C", **flags):
    """pagelocked_empty, filled with zeros (PyCUDA's ``pagelocked_zeros``)."""
    a = pagelocked_empty(context, shape, dtype, order, **flags)
    a.fill(0)
    return a


def pagelocked_empty_like(context, array, **flags):
    """pagelocked_empty with the shape, dtype and order of `array` (PyCUDA's ``pagelocked_empty_like``)."""
    order = "F" if array.flags.f_contiguous and not array.flags.c_contiguous else "C"
    return pagelocked_empty(context, array.shape, array.dtype, order, **flags)


def pagelocked_zeros_like(context, array, **flags):
    a = pagelocked_empty_like(context, array, **flags)
    a.fill(0)
    return a


def register_host_memory(context, array, *, portable=False, mapped=False):
    """Page-locks an existing C- or Fortran-contiguous, writable numpy array for `context` (PyCUDA's
    ``register_host_memory``): returns a numpy array over the same bytes whose base is the
    registration, which keeps `array` alive and is undone when the last view goes."""
    array = numpy.asarray(array)
    if not (array.flags.c_contiguous or array.flags.f_contiguous) or not array.flags.writeable:
        raise ArgumentError("only a contiguous, writable array can be registered", "array")
    flat = array.ravel(order="K").view(numpy.uint8)  # a view: the array is contiguous
    memory = HostMemory._register(context, flat, portable, mapped)
    memory._host = array  # the registered bytes must outlive the registration
    order = "F" if array.flags.f_contiguous and not array.flags.c_contiguous else "C"
    return _view(memory, array.shape, array.dtype, order, array.nbytes)


def managed_empty(where, shape, dtype, order="C", *, attach_host=False, coarse_grain=False):
    """A numpy array in managed memory (PyCUDA's ``managed_empty``; PyOpenCL's ``svm_empty`` with
    fine-grained SVM) of a Context (every device) or a BoundDevice. The host reads and writes it
    directly (within the rules of ManagedMemory: synchronize the queues that use it first), and a
    kernel takes the array itself as a pointer argument. Coarse-grained SVM has no host view
    outside a mapping: ``ManagedMemory.allocate`` and ``managed_host_view`` then."""
    shape, dtype, nbytes = _nbytes(shape, dtype, order)
    memory = ManagedMemory.allocate(where, nbytes, attach_host=attach_host, coarse_grain=coarse_grain)
    if not memory.fine_grained:
        raise ArgumentError("this device gives coarse-grained shared virtual memory, which the host sees only "
                            "while mapped: use ManagedMemory.allocate and managed_host_view(queue, memory, ...)",
                            "where")
    return _view(memory, shape, dtype, order, nbytes)


def managed_zeros(where, shape, dtype, order="C", **flags):
    a = managed_empty(where, shape, dtype, order, **flags)
    a.fill(0)
    return a


def managed_host_view(access, shape, dtype, order="C"):
    """A numpy array over an open host access scope (``memory.host_access(queue)``: PyOpenCL's
    ``SVM(...).map_rw(queue)``), valid until the scope ends."""
    shape, dtype, nbytes = _nbytes(shape, dtype, order)
    if nbytes > access.size:
        raise ArgumentError(f"{nbytes} bytes do not fit the scope's {access.size}", "shape")
    return _view(access, shape, dtype, order, nbytes)


def svm_empty(pool_or_context, shape, dtype, order="C", queue=None):
    """A numpy array in shared virtual memory: from an SVMPool (PyOpenCL's ``SVMPool`` as an
    allocator) or a Context. Needs fine-grained memory for the host view."""
    if isinstance(pool_or_context, SVMPool):
        shape, dtype, nbytes = _nbytes(shape, dtype, order)
        block = pool_or_context.allocate(queue, nbytes) if queue is not None else pool_or_context.allocate(nbytes)
        return _view(block, shape, dtype, order, nbytes)
    return managed_empty(pool_or_context, shape, dtype, order)


def _ipc_handle(self):
    """Bytes naming this buffer's memory for another process (PyCUDA's ``mem_get_ipc_handle``;
    CUDA only). The other process opens them with ``Buffer.open_ipc(device, handle)``."""
    return _kjarni._buffer_ipc_handle(self)


def _open_ipc(device, handle):
    """The memory another process exported with ``ipc_handle()`` (PyCUDA's ``IPCMemoryHandle``)."""
    return _kjarni._buffer_open_ipc(device, bytes(handle))


_kjarni.Buffer.ipc_handle = _ipc_handle
_kjarni.Buffer.open_ipc = staticmethod(_open_ipc)


def _side(obj, name):
    if isinstance(obj, _kjarni.Buffer):
        return obj
    if isinstance(obj, _kjarni.Array):
        return obj.data
    if isinstance(obj, PitchedBuffer):
        return obj.buffer
    array = numpy.asarray(obj) if not isinstance(obj, (bytes, bytearray, memoryview)) else obj
    if isinstance(array, numpy.ndarray) and not array.flags.c_contiguous:
        raise ArgumentError("a host side of a rectangular copy must be C-contiguous", name)
    return array


def copy_rect(queue, dst, src, region, *, dst_origin=(0, 0, 0), src_origin=(0, 0, 0), dst_pitch=0,
              src_pitch=0, dst_slice_pitch=0, src_slice_pitch=0, dst_offset=0, src_offset=0):
    """A box of ``region = (width bytes, height rows, depth slices)`` copied between device buffers
    and host arrays, each side with its own origin (x in bytes, y rows, z slices), row pitch and
    slice pitch (0: packed). PyCUDA's ``Memcpy2D``/``Memcpy3D``, PyOpenCL's ``enqueue_copy`` with
    ``buffer_origin``/``host_origin``/``region``/pitches. Synchronous."""
    region = [int(r) for r in (region if hasattr(region, "__len__") else (region,))]
    height = region[1] if len(region) > 1 else 1
    depth = region[2] if len(region) > 2 else 1

    def slice_pitch(given, origin, pitch):
        # A 2D copy: the slice is every row up to the box's last (the library checks that the box
        # lies inside one slice; PyOpenCL's 0 means region height x row pitch, which starts at row 0).
        if given or depth > 1 or len(origin) < 2:
            return int(given)
        return (int(origin[1]) + height) * (int(pitch) or region[0])

    dst_slice_pitch = slice_pitch(dst_slice_pitch, dst_origin, dst_pitch)
    src_slice_pitch = slice_pitch(src_slice_pitch, src_origin, src_pitch)
    _kjarni._copy_rect(queue, _side(dst, "dst"), [int(v) for v in dst_origin], int(dst_offset), int(dst_pitch),
                       int(dst_slice_pitch), _side(src, "src"), [int(v) for v in src_origin], int(src_offset),
                       int(src_pitch), int(src_slice_pitch), region)


class PitchedArray:
    """A 2D device allocation with padded rows (PyCUDA's ``mem_alloc_pitch``): ``buffer``, ``pitch``
    (bytes from one row to the next), ``shape`` and ``dtype``; ``set``/``get`` move a numpy array
    of that shape row by row."""

    def __init__(self, device, shape, dtype):
        if len(shape) != 2:
            raise ArgumentError(f"a pitched array has 2 dimensions, not {len(shape)}", "shape")
        self.shape, self.dtype = tuple(int(s) for s in shape), numpy.dtype(dtype)
        height, width = self.shape
        self.buffer, self.pitch = allocate_pitched(device, width * self.dtype.itemsize, height,
                                                    self.dtype.itemsize)

    def set(self, queue, array):
        array = numpy.ascontiguousarray(array, dtype=self.dtype)
        if array.shape != self.shape:
            raise ArgumentError(f"shape {array.shape} is not the pitched array's {self.shape}", "array")
        height, width = self.shape
        copy_rect(queue, self.buffer, array, (width * self.dtype.itemsize, height), dst_pitch=self.pitch)

    def get(self, queue, out=None):
        out = numpy.empty(self.shape, self.dtype) if out is None else out
        height, width = self.shape
        copy_rect(queue, out, self.buffer, (width * self.dtype.itemsize, height), src_pitch=self.pitch)
        return out
