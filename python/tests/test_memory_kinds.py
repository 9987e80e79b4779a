"""The memory kinds of PyCUDA's and PyOpenCL's driver layers, from Python: page-locked host memory
(allocated, mapped, registered, pooled), managed memory / SVM and its pool, IPC handles, pitched
allocations and rectangular copies, pointer attributes, allocators for arrays. Checked against
numpy on fresh random data; what only CUDA has is checked to refuse with UnsupportedError elsewhere
(and runs on the GPU machine)."""

import subprocess
import sys
import textwrap

import numpy
import pytest

import kjarni

AFFINE = """
KERNEL void affine(GLOBAL_MEM float *y, GLOBAL_MEM const float *x, float a, float b, unsigned int n)
{
    const SIZE_T i = get_global_id(0);
    if (i < n) y[i] = a * x[i] + b;
}
"""


def is_cuda(context):
    return context.api.id == kjarni.cuda_api_id()


def affine_kernel(queue):
    return kjarni.Program(queue.device, AFFINE).kernel.affine


def assert_affine(y, x, a, b):
    """y == a * x + b in float32: each of the (at most two) roundings, or one of a fused
    multiply-add, errs by at most half an ulp of what it rounds, so |y - exact| stays within
    eps * (|a x| + |b|) of the exact value (computed in float64, where it is exact)."""
    exact = numpy.float64(a) * x.astype(numpy.float64) + numpy.float64(b)
    bound = numpy.finfo(numpy.float32).eps * (numpy.abs(numpy.float64(a) * x) + abs(b))
    assert numpy.all(numpy.abs(y.astype(numpy.float64) - exact) <= bound), numpy.max(numpy.abs(y - exact) - bound)


def test_pagelocked_arrays_round_trip(context, queue, rng):
    a = kjarni.pagelocked_empty(context, (37, 21), numpy.float32)
    assert a.shape == (37, 21) and a.dtype == numpy.float32 and a.flags.c_contiguous and a.flags.writeable
    memory = kjarni.host_memory_of(a)
    assert isinstance(memory, kjarni.HostMemory) and memory.size == a.nbytes and memory.context == context
    a[...] = rng.standard_normal(a.shape, dtype=numpy.float32)
    device = kjarni.Array.from_host(queue, a)
    back = kjarni.pagelocked_zeros_like(context, a)
    assert not back.any()
    device.get(queue, dest=back)
    numpy.testing.assert_array_equal(back, a)

    f = kjarni.pagelocked_empty(context, (5, 7), numpy.int64, order="F")
    assert f.flags.f_contiguous and not f.flags.c_contiguous
    z = kjarni.pagelocked_zeros(context, 100, numpy.uint8, portable=True)
    assert z.shape == (100,) and not z.any() and kjarni.host_memory_of(z).portable
    assert kjarni.pagelocked_empty(context, (0, 3), numpy.float32).shape == (0, 3)
    with pytest.raises(kjarni.ArgumentError, match="negative"):
        kjarni.pagelocked_empty(context, (4, -1), numpy.float32)
    with pytest.raises(kjarni.ArgumentError, match="order"):
        kjarni.pagelocked_empty(context, 4, numpy.float32, order="X")
    assert kjarni.host_memory_of(numpy.zeros(3)) is None


def test_mapped_pagelocked_memory_seen_by_kernels(context, queue, rng):
    n = 1000
    host = kjarni.pagelocked_empty(context, n, numpy.float32, mapped=True)
    host[...] = -1
    if queue.device.context.api.id != kjarni.cuda_api_id() and not queue.device.device.properties.unified_memory:
        # OpenCL maps page-locked memory into kernels only where the device shares the host's
        # memory (NVIDIA's discrete GPUs do not): the library says so instead of copying silently.
        with pytest.raises(kjarni.UnsupportedError, match="CL_DEVICE_HOST_UNIFIED_MEMORY"):
            kjarni.host_memory_of(host).device_buffer(queue.device)
        return
    buffer = kjarni.host_memory_of(host).device_buffer(queue.device)
    assert buffer.size >= host.nbytes
    x = rng.standard_normal(n, dtype=numpy.float32)
    affine_kernel(queue)(queue, n, None, buffer, kjarni.Array.from_host(queue, x), numpy.float32(1.5),
                         numpy.float32(-0.25), numpy.uint32(n))
    queue.synchronize()
    assert_affine(host, x, 1.5, -0.25)


def test_register_host_memory(context, queue, rng):
    original = rng.standard_normal((64, 48)).astype(numpy.float32)
    registered = kjarni.register_host_memory(context, original)
    assert numpy.shares_memory(registered, original) and registered.shape == original.shape
    assert isinstance(kjarni.host_memory_of(registered), kjarni.HostMemory)
    device = kjarni.Array.from_host(queue, registered)
    registered[...] = 0  # the same bytes: the original sees it
    assert not original.any()
    device.get(queue, dest=registered)
    numpy.testing.assert_array_equal(original, device.get(queue))
    with pytest.raises(kjarni.ArgumentError, match="contiguous"):
        kjarni.register_host_memory(context, original[:, ::2])


def test_host_memory_pool_reuses_blocks(context, rng):
    pool = kjarni.HostMemoryPool()
    block = pool.allocate(context, 1000)
    assert block.size >= 1000 and pool.active_blocks == 1 and pool.held_blocks == 0
    view = numpy.frombuffer(block, numpy.uint8, count=1000)
    data = rng.integers(0, 255, 1000, dtype=numpy.uint8)
    view[...] = data
    numpy.testing.assert_array_equal(numpy.frombuffer(block, numpy.uint8, count=1000), data)
    address = block.address
    del view, block
    assert pool.active_blocks == 0 and pool.held_blocks == 1
    again = pool.allocate(context, 1000)
    assert again.address == address and pool.held_blocks == 0
    del again
    pool.free_held()
    assert pool.held_blocks == 0


def managed_or_skip(context):
    caps = kjarni.managed_memory_capabilities(context.device.device)
    if not caps.supported:
        with pytest.raises(kjarni.UnsupportedError):
            kjarni.ManagedMemory.allocate(context, 64)
        pytest.skip(f"no managed memory / SVM here ({caps.missing}); refused as it should be")
    return caps


def test_managed_memory_as_numpy_and_kernel_argument(context, queue, rng):
    managed_or_skip(context)
    n = 777
    kernel = affine_kernel(queue)
    # coarse_grain asks OpenCL for coarse-grained SVM even where the device has fine-grained (PoCL
    # has both); CUDA ignores it.
    for coarse_grain in (True, False):
        memory = kjarni.ManagedMemory.allocate(context, 4 * n, coarse_grain=coarse_grain)
        x = rng.standard_normal(n, dtype=numpy.float32)
        with memory.host_access(queue) as scope:
            kjarni.managed_host_view(scope, n, numpy.float32)[...] = x
            if not memory.fine_grained:  # no kernel may use it while the host holds it
                with pytest.raises(kjarni.ArgumentError, match="host access scope"):
                    kernel(queue, n, None, memory, memory, numpy.float32(2), numpy.float32(-1), numpy.uint32(n))
        assert not scope.is_open
        # The allocation itself as the pointer: y = 2x - 1 in place.
        kernel(queue, n, None, memory, memory, numpy.float32(2), numpy.float32(-1), numpy.uint32(n))
        queue.synchronize()
        with memory.host_access(queue, "read") as scope:
            y = kjarni.managed_host_view(scope, n, numpy.float32).copy()
        assert_affine(y, x, 2, -1)
        if not memory.fine_grained:
            with pytest.raises(BufferError, match="host access scope"):
                numpy.frombuffer(memory, numpy.uint8)
            with pytest.raises(kjarni.ArgumentError, match="coarse-grained"):
                kjarni.managed_empty(context, n, numpy.float32, coarse_grain=True)
    if not memory.fine_grained:
        return
    # Fine-grained (CUDA managed, fine-grained SVM): numpy arrays over it, views included, are
    # kernel arguments as they are.
    a = kjarni.managed_empty(context, 2 * n, numpy.float32)
    a[...] = rng.standard_normal(2 * n, dtype=numpy.float32)
    before = a.copy()
    kernel(queue, n, None, a[n:], a[:n], numpy.float32(0.5), numpy.float32(3), numpy.uint32(n))
    queue.synchronize()
    numpy.testing.assert_array_equal(a[:n], before[:n])
    assert_affine(a[n:], before[:n], 0.5, 3)
    z = kjarni.managed_zeros(queue.device, 10, numpy.int32)
    assert not z.any() and isinstance(kjarni.host_memory_of(z), kjarni.ManagedMemory)


def test_managed_memory_copies_and_device_buffer(context, queue, rng):
    managed_or_skip(context)
    n = 300
    memory = kjarni.ManagedMemory.allocate(queue.device, 4 * n)
    x = rng.standard_normal(n, dtype=numpy.float32)
    source = kjarni.Array.from_host(queue, x)
    memory.copy_from(queue, source.data)
    target = kjarni.Array.empty(queue.device, n, numpy.float32)
    memory.copy_to(queue, target.data)
    numpy.testing.assert_array_equal(target.get(queue), x)
    as_buffer = memory.device_buffer(queue.device)
    assert as_buffer.size == 4 * n
    y = numpy.empty(n, numpy.float32)
    as_buffer.get(queue, y)
    numpy.testing.assert_array_equal(y, x)
    if not is_cuda(context):
        with pytest.raises(kjarni.UnsupportedError):
            memory.attach(queue, kjarni.ManagedAttach.host)


def test_svm_pool_blocks(context, queue, rng):
    caps = managed_or_skip(context)
    pool = kjarni.SVMPool(context)
    n = 500
    x = rng.standard_normal(n, dtype=numpy.float32)
    block = pool.allocate(queue, 4 * n)
    assert block and block.size == 4 * n and pool.active_blocks == 1
    with block.memory.host_access(queue) as scope:
        # The block may lie anywhere in its memory: view it at its own address.
        offset = block.address - block.memory.address
        kjarni.managed_host_view(scope, block.memory.size // 4, numpy.float32)[offset // 4:offset // 4 + n] = x
    affine_kernel(queue)(queue, n, None, block, block, numpy.float32(-3), numpy.float32(0.125), numpy.uint32(n))
    queue.synchronize()
    with block.memory.host_access(queue, "read") as scope:
        y = kjarni.managed_host_view(scope, block.memory.size // 4, numpy.float32)[offset // 4:offset // 4 + n].copy()
    assert_affine(y, x, -3, 0.125)
    block.release()
    assert not block and pool.active_blocks == 0 and pool.held_blocks == 1
    with pytest.raises(kjarni.ArgumentError, match="released"):
        affine_kernel(queue)(queue, n, None, block, block, numpy.float32(1), numpy.float32(0), numpy.uint32(n))
    if caps.svm_fine_grain_buffer or caps.managed_memory:
        # Fine-grained: a numpy array over a pooled block, a kernel argument as it is.
        a = kjarni.svm_empty(pool, n, numpy.float32, queue=queue)
        assert isinstance(kjarni.host_memory_of(a), kjarni.PooledSVM) and pool.active_blocks == 1
        a[...] = x
        affine_kernel(queue)(queue, n, None, a, a, numpy.float32(4), numpy.float32(-2), numpy.uint32(n))
        queue.synchronize()
        assert_affine(a, x, 4, -2)


IPC_CHILD = textwrap.dedent("""
    import sys, numpy, kjarni
    api_index, device_index, handle, n = sys.argv[1], int(sys.argv[2]), bytes.fromhex(sys.argv[3]), int(sys.argv[4])
    device = kjarni.API.cuda().platforms[0].devices[device_index]
    context = kjarni.Context.from_devices([device])
    queue = kjarni.Queue(context.device)
    buffer = kjarni.Buffer.open_ipc(context.device, handle)
    host = numpy.empty(n, numpy.float32)
    buffer.get(queue, host)
    print(" ".join(repr(float(v)) for v in host))
""")


def test_ipc_memory_handle(context, queue, rng):
    buffer = kjarni.Buffer.allocate(queue.device, 4 * 50)
    if not is_cuda(context):
        with pytest.raises(kjarni.UnsupportedError):
            buffer.ipc_handle()
        with pytest.raises(kjarni.UnsupportedError):
            kjarni.IpcEvent.create(queue.device)
        return
    # CUDA: another process opens the handle and reads what this one wrote.
    x = rng.standard_normal(50, dtype=numpy.float32)
    buffer.set(queue, x)
    queue.synchronize()
    handle = buffer.ipc_handle()
    assert len(handle) == kjarni._kjarni.ipc_memory_handle_bytes
    device_index = [d.name for d in context.api.platforms[0].devices].index(queue.device.name)
    out = subprocess.run([sys.executable, "-c", IPC_CHILD, "cuda", str(device_index), handle.hex(), "50"],
                         capture_output=True, text=True, timeout=120, check=True)
    numpy.testing.assert_array_equal(numpy.array([float(v) for v in out.stdout.split()], numpy.float32), x)
    event = kjarni.IpcEvent.create(queue.device)
    event.record(queue)
    assert len(event.handle()) == kjarni._kjarni.ipc_event_handle_bytes
    event.event().wait()


def test_pitched_array_and_kernel_reading_rows(queue, rng):
    height, width = 19, 37
    pitched = kjarni.PitchedArray(queue.device, (height, width), numpy.float32)
    assert pitched.pitch >= width * 4 and pitched.pitch % 4 == 0
    data = rng.standard_normal((height, width), dtype=numpy.float32)
    pitched.set(queue, data)
    numpy.testing.assert_array_equal(pitched.get(queue), data)
    # A kernel that walks the rows by the pitch sees the same values.
    program = kjarni.Program(queue.device, """
    KERNEL void unpitch(GLOBAL_MEM float *out, GLOBAL_MEM const char *in, unsigned int pitch, unsigned int width)
    {
        const SIZE_T x = get_global_id(0), y = get_global_id(1);
        if (x < width) out[y * width + x] = ((GLOBAL_MEM const float *)(in + y * pitch))[x];
    }""")
    dense = kjarni.Array.empty(queue.device, (height, width), numpy.float32)
    program.kernel.unpitch(queue, (width, height), None, dense, pitched.buffer, numpy.uint32(pitched.pitch),
                           numpy.uint32(width))
    numpy.testing.assert_array_equal(dense.get(queue), data)


def test_fill_2d_and_copy_rect_with_origins(queue, rng):
    height, width = 12, 10
    buffer, pitch = kjarni.allocate_pitched(queue.device, width * 4, height, 4)
    value = numpy.uint32(rng.integers(1, 2**32 - 1))
    kjarni.fill_2d(queue, buffer, pitch, width, height, value)
    whole = numpy.empty((height, pitch // 4), numpy.uint32)
    kjarni.copy_rect(queue, whole, buffer, (pitch, height), src_pitch=pitch)
    numpy.testing.assert_array_equal(whole[:, :width], value)

    # A box of a host array copied into a box of a device buffer, each with its own origin and pitch.
    host = rng.integers(0, 2**31, (9, 8), dtype=numpy.int32)
    device = kjarni.Array.zeros(queue, (7, 11), numpy.int32)
    kjarni.copy_rect(queue, device, host, (3 * 4, 4), src_origin=(2 * 4, 1), dst_origin=(5 * 4, 2),
                     src_pitch=8 * 4, dst_pitch=11 * 4)
    expected = numpy.zeros((7, 11), numpy.int32)
    expected[2:6, 5:8] = host[1:5, 2:5]
    numpy.testing.assert_array_equal(device.get(queue), expected)
    with pytest.raises(kjarni.ArgumentError):
        kjarni.copy_rect(queue, numpy.zeros(4), numpy.zeros(4), (16,))


def test_pointer_attributes_and_memory_info(context, queue):
    free, total = kjarni.mem_get_info(queue.device)
    assert total > 0 and (free is None or 0 <= free <= total)
    if not is_cuda(context):
        return
    buffer = kjarni.Buffer.allocate(queue.device, 4096)
    attributes = kjarni.pointer_attributes(context, buffer.native_handle)
    assert attributes.type == kjarni.MemoryType.device and attributes.device_pointer == buffer.native_handle
    host = kjarni.pagelocked_empty(context, 1024, numpy.float32)
    assert kjarni.pointer_attributes(context, kjarni.host_memory_of(host).address).type == kjarni.MemoryType.host


def test_pools_and_allocators_for_arrays(queue, rng):
    x = rng.standard_normal(1000, dtype=numpy.float32)
    for allocator in (kjarni.DeferredAllocator(), kjarni.ImmediateAllocator(queue)):
        a = kjarni.Array.empty(queue.device, x.shape, x.dtype, allocator=allocator)
        a.set(queue, x)
        numpy.testing.assert_array_equal(a.get(queue), x)
    pool = kjarni.MemoryPool(kjarni.ImmediateAllocator(queue))
    a = kjarni.Array.empty(queue.device, x.shape, x.dtype, allocator=pool)
    assert pool.active_blocks == 1 and pool.active_bytes >= x.nbytes
    a.set(queue, x)
    y = kjarni.evaluate(queue, 2 * a + 1, allocator=pool)
    assert pool.active_blocks == 2
    assert_affine(y.get(queue), x, 2, 1)
    del a, y
    queue.synchronize()
    assert pool.active_blocks == 0 and pool.held_blocks == 2
    b = kjarni.Array.zeros(queue, 1000, numpy.float32, allocator=pool)
    assert pool.held_blocks == 1 and not b.get(queue).any()
    with pytest.raises(kjarni.ArgumentError, match="allocator"):
        kjarni.Array.empty(queue.device, 4, numpy.float32, allocator=42)
