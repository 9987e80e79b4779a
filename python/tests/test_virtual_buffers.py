"""Virtual buffers (grunnur's virtual_alloc): allocation and sharing by dependencies, statistics
after every step, pack, the dependency forms Python gives, and virtual arrays as kernel arguments
(checked against numpy on fresh random data)."""

import numpy
import pytest

import kjarni


def stats(real, virtual):
    """The statistics a manager holding real allocations of sizes `real` and live virtual ones of
    sizes `virtual` reports."""
    def sizes(values):
        out = {}
        for v in values:
            out[v] = out.get(v, 0) + 1
        return out
    return dict(real_num=len(real), real_size_total=sum(real), real_sizes=sizes(real),
                virtual_num=len(virtual), virtual_size_total=sum(virtual), virtual_sizes=sizes(virtual))


def as_dict(s):
    return {name: getattr(s, name) for name in ("real_num", "real_size_total", "real_sizes", "virtual_num",
                                                "virtual_size_total", "virtual_sizes")}


def test_zero_offset_statistics_after_each_step(context, queue):
    manager = kjarni.ZeroOffsetManager(context.device)
    assert manager.device == context.device
    assert as_dict(manager.statistics()) == stats([], [])
    a = manager.allocate(1000)
    assert a.size == 1000 and kjarni.virtual_allocation_id(a) is not None
    b = manager.allocate(500, a)  # dependent: a real allocation of its own
    assert as_dict(manager.statistics()) == stats([1000, 500], [1000, 500])
    c = manager.allocate(800, [b])  # dependent on b only: shares a's real allocation
    assert as_dict(manager.statistics()) == stats([1000, 500], [1000, 500, 800])
    assert c.native_handle == a.native_handle and c.offset == 0
    assert b.native_handle != a.native_handle
    part = a.get_sub_region(10, 20)  # keeps a's virtual allocation alive
    assert kjarni.virtual_allocation_id(part) == kjarni.virtual_allocation_id(a)
    del a
    assert as_dict(manager.statistics()) == stats([1000, 500], [1000, 500, 800])
    del b  # its real allocation is kept for later requests
    assert as_dict(manager.statistics()) == stats([1000, 500], [1000, 800])
    d = manager.allocate(2000, part)  # an unused real allocation too small is replaced
    assert as_dict(manager.statistics()) == stats([1000, 2000], [1000, 800, 2000])
    del c, d
    assert as_dict(manager.statistics()) == stats([1000, 2000], [1000])
    manager.pack(queue)
    assert as_dict(manager.statistics()) == stats([1000], [1000])
    assert manager.statistics() == manager.statistics()
    assert "virtual: 1 allocations" in repr(manager.statistics())


def test_trivial_manager_allocates_per_request(context):
    manager = kjarni.TrivialManager(context.device)
    a = manager.allocate(1000)
    b = manager.allocate(1000)  # independent, yet its own allocation
    assert as_dict(manager.statistics()) == stats([1000, 1000], [1000, 1000])
    assert a.native_handle != b.native_handle
    del a
    assert as_dict(manager.statistics()) == stats([1000], [1000])
    del b
    assert as_dict(manager.statistics()) == stats([], [])


class Workspace:
    """grunnur's hook: an object exposing the allocations it uses."""

    def __init__(self, arrays, as_method=False):
        if as_method:
            self.__virtual_allocations__ = lambda: arrays
        else:
            self.__virtual_allocations__ = arrays


def test_dependency_forms(context):
    device = context.device
    manager = kjarni.ZeroOffsetManager(device)
    a = kjarni.Array.empty(device, 64, numpy.float32, allocator=manager.allocator())
    b = kjarni.Array.empty(device, 64, numpy.float32, allocator=manager.allocator(a))
    persistent = kjarni.Array.empty(device, 64, numpy.float32)
    assert kjarni.virtual_allocation_id(persistent.base) is None
    ids = sorted([kjarni.virtual_allocation_id(a.base), kjarni.virtual_allocation_id(b.base)])
    for form in ([a, b, persistent], (a, b), {"x": a, "y": [b]}, Workspace([a, b]), Workspace([a, b], True),
                 [Workspace([a]), b.base.get_sub_region(0, 4)], (x for x in (a, b)), [[a], [b, a]]):
        assert manager.allocator(form).dependencies == ids, form
    # A view counts as its array.
    assert manager.allocator(a[1:10]).dependencies == [kjarni.virtual_allocation_id(a.base)]
    assert manager.allocator(manager.allocator([a, b])).dependencies == ids
    assert manager.allocator().dependencies == []

    # Dependent on both: a third real allocation; on neither: shares one.
    c = kjarni.Array.empty(device, 64, numpy.float32, allocator=manager.allocator(Workspace([a, b])))
    assert manager.statistics().real_num == 3
    kjarni.Array.empty(device, 64, numpy.float32, allocator=manager.allocator([a, b, c]))
    assert manager.statistics().real_num == 4
    e = kjarni.Array.empty(device, 64, numpy.float32, allocator=manager.allocator(a))
    assert manager.statistics().real_num == 4
    assert e.base.native_handle != a.base.native_handle

    for bad in ("a", 3, numpy.float32(1), object()):
        with pytest.raises(kjarni.ArgumentError) as info:
            manager.allocator([a, bad])
        assert info.value.argument == "dependencies"


def test_wrong_device_or_queue(multi_context):
    manager = kjarni.ZeroOffsetManager(multi_context.devices[0])
    with pytest.raises(kjarni.ArgumentError):
        manager.allocator()(multi_context.devices[1], 16)
    with pytest.raises(kjarni.ArgumentError):
        manager.pack(kjarni.Queue(multi_context.devices[1]))


AXPY = """
KERNEL void axpy(GLOBAL_MEM float *y, GLOBAL_MEM const float *x, GLOBAL_MEM const float *b, float a)
{
    const SIZE_T i = get_global_id(0);
    y[i] = a * x[i] + b[i];
}
"""


@pytest.mark.parametrize("manager_class", [kjarni.ZeroOffsetManager, kjarni.TrivialManager])
def test_virtual_arrays_as_kernel_arguments(context, queue, rng, manager_class):
    """A pipeline of temporaries: each stage's output depends on its inputs; the last stage's
    result is compared with numpy. A shared byte would show as clobbered data."""
    device = context.device
    n = 1000
    manager = manager_class(device)
    program = kjarni.Program(device, AXPY)
    x = rng.standard_normal(n).astype(numpy.float32)
    b = rng.standard_normal(n).astype(numpy.float32)
    x_dev = kjarni.Array.empty(device, n, numpy.float32, allocator=manager.allocator())
    x_dev.set(queue, x)
    b_dev = kjarni.Array.empty(device, n, numpy.float32, allocator=manager.allocator(x_dev))
    b_dev.set(queue, b)
    # Stage 1: y1 = 0.5 x + b. Stage 2: y2 = 0.25 y1 + x (x and y1 still used; b is not: y2 may
    # take b's memory).
    y1 = kjarni.Array.empty(device, n, numpy.float32, allocator=manager.allocator([x_dev, b_dev]))
    program.kernel.axpy(queue, [n], None, y1, x_dev, b_dev, numpy.float32(0.5))
    y2 = kjarni.Array.empty(device, n, numpy.float32, allocator=manager.allocator([x_dev, y1]))
    program.kernel.axpy(queue, [n], None, y2, y1.base, x_dev, numpy.float32(0.25))  # a Buffer argument too
    expected1 = numpy.float32(0.5) * x + b  # 0.5 x exact: one rounding, fused or not
    expected2 = numpy.float32(0.25) * expected1 + x
    numpy.testing.assert_array_equal(y1.get(queue), expected1)
    numpy.testing.assert_array_equal(y2.get(queue), expected2)
    if manager_class is kjarni.ZeroOffsetManager:
        assert y2.base.native_handle == b_dev.base.native_handle  # reuse, as the dependencies allow
        assert manager.statistics().real_num == 3
    else:
        assert manager.statistics().real_num == 4
    # An expression evaluated into a virtual allocation.
    z = kjarni.evaluate(queue, 2 * y2 + x_dev, allocator=manager.allocator([y2, x_dev]))
    assert kjarni.virtual_allocation_id(z.base) is not None
    numpy.testing.assert_allclose(z.get(queue), 2 * expected2 + x, rtol=numpy.finfo(numpy.float32).eps,
                                  atol=numpy.finfo(numpy.float32).eps * numpy.abs(x).max())
