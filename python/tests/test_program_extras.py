"""Programs beyond a source: compiled binaries loaded back (PyCUDA's module_from_buffer / PyOpenCL's
Program from binaries), separately compiled units linked, PTX files and JIT options, module
globals (CUDA), kernel attributes (PyCUDA's Function attributes, PyOpenCL's work-group info), cache
preferences, and structs of any size passed by value (numpy structured scalars)."""

import numpy
import pytest

import kjarni
from kjarni import dtypes

SCALE = """
KERNEL void scale(GLOBAL_MEM int *y, GLOBAL_MEM const int *x, int a)
{
    const SIZE_T i = get_global_id(0);
    y[i] = a * x[i] - 7;
}
"""

CALLER = """
FUNCTION int mix(int x, int a);
KERNEL void apply(GLOBAL_MEM int *y, GLOBAL_MEM const int *x, int a)
{
    const SIZE_T i = get_global_id(0);
    y[i] = mix(x[i], a);
}
"""

CALLEE = """
FUNCTION int halve(int x) { return x / 2; }
FUNCTION int mix(int x, int a) { return a * x - halve(x); }
"""

ORPHAN = """
FUNCTION int nowhere_defined_in_python(int x);
KERNEL void orphan(GLOBAL_MEM int *y) { y[get_global_id(0)] = nowhere_defined_in_python(1); }
"""


def is_cuda(context):
    return context.api.id == kjarni.cuda_api_id()


def run_int_kernel(queue, kernel, x, a):
    y = kjarni.Array.empty(queue.device, x.shape, numpy.int32)
    kernel(queue, x.size, None, y, kjarni.Array.from_host(queue, x), numpy.int32(a))
    return y.get(queue)


def test_binary_round_trip(queue, rng):
    program = kjarni.Program(queue.device, SCALE)
    binary = program.binary(queue.device)
    assert isinstance(binary, bytes) and len(binary) > 0
    assert program.binaries[queue.device] == binary
    loaded = kjarni.Program.from_binary(queue.device, binary)
    assert loaded.kernel_names == ["scale"]
    x = rng.integers(-10000, 10000, 1000, dtype=numpy.int32)
    a = int(rng.integers(-300, 300))
    numpy.testing.assert_array_equal(run_int_kernel(queue, loaded.kernel.scale, x, a), a * x - 7)
    with pytest.raises(kjarni.ArgumentError, match="no program option"):
        kjarni.Program.from_binary(queue.device, binary, optimise=True)
    with pytest.raises((kjarni.BackendError, kjarni.CompileError, kjarni.ArgumentError)):
        kjarni.Program.from_binary(queue.device, b"certainly not a program binary")


def test_compile_units_and_link(queue, rng, tmp_path):
    x = rng.integers(-40000, 40000, 3000, dtype=numpy.int32)
    a = int(rng.integers(-500, 500))
    expected = a * x - numpy.fix(x / 2).astype(numpy.int32)  # C's division truncates
    linked = kjarni.Program.link(queue.device, [CALLER, CALLEE])
    assert linked.kernel_names == ["apply"]
    numpy.testing.assert_array_equal(run_int_kernel(queue, linked.kernel.apply, x, a), expected)
    # A unit compiled on its own links like a source.
    callee = kjarni.Program.compile_unit(queue.device, CALLEE)
    assert isinstance(callee, bytes) and callee
    relinked = kjarni.Program.link(queue.device, [CALLER, callee])
    numpy.testing.assert_array_equal(run_int_kernel(queue, relinked.kernel.apply, x, a), expected)
    # The linked binary is an ordinary program binary, also from a file.
    path = tmp_path / ("linked.cubin" if is_cuda(queue.device.context) else "linked.bin")
    path.write_bytes(linked.binary(queue.device))
    from_file = kjarni.Program.from_file(queue.device, path)
    numpy.testing.assert_array_equal(run_int_kernel(queue, from_file.kernel.apply, x, a), expected)
    with pytest.raises(kjarni.LinkError) as info:
        kjarni.Program.link(queue.device, [ORPHAN])
    assert isinstance(info.value, RuntimeError) and isinstance(info.value.log, str) and info.value.api
    if is_cuda(queue.device.context):  # PoCL's linker gives no log; NVIDIA's names the symbol
        assert "nowhere_defined_in_python" in info.value.log


def test_ptx_and_jit_options(queue, rng, tmp_path):
    program = kjarni.Program(queue.device, SCALE)
    if not is_cuda(queue.device.context):
        with pytest.raises(kjarni.UnsupportedError):
            program.ptx(queue.device)
        return
    ptx = program.ptx(queue.device)
    assert ".entry" in ptx and "scale" in ptx
    path = tmp_path / "scale.ptx"
    path.write_text(ptx)
    x = rng.integers(-10000, 10000, 500, dtype=numpy.int32)
    for loaded in (kjarni.Program.from_file(queue.device, path),
                   kjarni.Program.from_binary(queue.device, ptx.encode(), jit_max_registers=32,
                                              jit_optimization_level=2)):
        numpy.testing.assert_array_equal(run_int_kernel(queue, loaded.kernel.scale, x, 3), 3 * x - 7)


def test_module_globals(queue, rng):
    if not is_cuda(queue.device.context):
        program = kjarni.Program(queue.device, SCALE)
        with pytest.raises(kjarni.UnsupportedError):
            program.get_global("anything")
        return
    program = kjarni.Program(queue.device, """
    __device__ float table[16];
    KERNEL void lookup(GLOBAL_MEM float *y, GLOBAL_MEM const int *index)
    {
        const SIZE_T i = get_global_id(0);
        y[i] = table[index[i]] * 2.0f;
    }""")
    buffer, size = program.get_global("table")
    assert size == 64
    table = rng.standard_normal(16, dtype=numpy.float32)
    buffer.set(queue, table)
    index = rng.integers(0, 16, 200, dtype=numpy.int32)
    y = kjarni.Array.empty(queue.device, 200, numpy.float32)
    program.kernel.lookup(queue, 200, None, y, kjarni.Array.from_host(queue, index))
    numpy.testing.assert_array_equal(y.get(queue), table[index] * numpy.float32(2))
    with pytest.raises(kjarni.ArgumentError, match="no global variable"):
        program.get_global("missing")


def test_kernel_attributes(queue):
    program = kjarni.Program(queue.device, """
    KERNEL void staged(GLOBAL_MEM float *y)
    {
        LOCAL_MEM_DECL float stage[256];
        const SIZE_T i = get_local_id(0);
        stage[i] = (float)i;
        LOCAL_BARRIER;
        y[get_global_id(0)] = stage[255 - i];
    }""")
    kernel = program.kernel.staged
    attributes = kernel.attributes(queue.device)
    assert attributes.max_total_local_size == kernel.max_total_local_sizes[0] > 0
    assert attributes.shared_bytes >= 256 * 4
    assert attributes.preferred_local_size_multiple >= 1
    assert attributes.max_dynamic_local_bytes > 0
    # PyCUDA's and PyOpenCL's names for the same figures.
    assert attributes.max_threads_per_block == attributes.work_group_size == attributes.max_total_local_size
    assert attributes.num_regs == attributes.registers and attributes.local_mem_size == attributes.shared_bytes
    assert attributes.preferred_work_group_size_multiple == attributes.preferred_local_size_multiple
    if is_cuda(queue.device.context):
        assert attributes.registers > 0
        kernel.set_cache_preference(queue.device, kjarni.CachePreference.shared)
        kernel.set_shared_memory_carveout(queue.device, 50)
    else:
        with pytest.raises(kjarni.UnsupportedError):
            kernel.set_cache_preference(queue.device, kjarni.CachePreference.shared)


STRUCT_KERNEL = """
KERNEL void unpack(GLOBAL_MEM int *ints, GLOBAL_MEM double *doubles, GLOBAL_MEM float *floats, ${s} value,
                   ${small} pair)
{
    if (get_global_id(0) != 0) return;
    ints[0] = value.count; ints[1] = value.flag; ints[2] = pair.k;
    doubles[0] = value.weight;
    for (int j = 0; j < 5; ++j) floats[j] = value.samples[j];
    floats[5] = pair.v;
}
"""


def test_structs_of_any_size_by_value(queue, rng):
    # 40 bytes (larger than the 16 a scalar slot holds) and 8 bytes, aligned as C lays them out.
    big = dtypes.align(numpy.dtype([("count", numpy.int32), ("weight", numpy.float64),
                                    ("samples", numpy.float32, 5), ("flag", numpy.uint8)]))
    small = dtypes.align(numpy.dtype([("k", numpy.int32), ("v", numpy.float32)]))
    assert big.itemsize > 16
    program = kjarni.Program(queue.device, STRUCT_KERNEL,
                             render_globals=dict(s=dtypes.ctype(big), small=dtypes.ctype(small)))
    value = numpy.zeros((), big)
    value["count"] = rng.integers(-2**31, 2**31 - 1)
    value["weight"] = rng.standard_normal()
    value["samples"] = rng.standard_normal(5)
    value["flag"] = rng.integers(1, 255)
    pair = numpy.zeros((), small)
    pair["k"], pair["v"] = rng.integers(-1000, 1000), rng.standard_normal()
    ints = kjarni.Array.zeros(queue, 3, numpy.int32)
    doubles = kjarni.Array.zeros(queue, 1, numpy.float64)
    floats = kjarni.Array.zeros(queue, 6, numpy.float32)
    for as_scalar in (True, False):  # a numpy.void scalar, or the 0-d array itself
        v, p = (value[()], pair[()]) if as_scalar else (value, pair)
        program.kernel.unpack(queue, 1, None, ints, doubles, floats, v, p)
        numpy.testing.assert_array_equal(ints.get(queue), [value["count"], value["flag"], pair["k"]])
        numpy.testing.assert_array_equal(doubles.get(queue), [value["weight"]])
        numpy.testing.assert_array_equal(floats.get(queue), numpy.append(value["samples"], pair["v"]))
    # A bound launch keeps the struct's bytes alive with its arguments.
    bound = program.kernel.unpack.prepare(1).bind(queue, ints, doubles, floats, value[()].copy(), pair[()])
    kjarni.fill(queue, ints, numpy.int32(0))
    bound()
    numpy.testing.assert_array_equal(ints.get(queue), [value["count"], value["flag"], pair["k"]])
    for host_array in (numpy.zeros(2, big), numpy.zeros(1, small), numpy.float32([1.5])):
        with pytest.raises(kjarni.ArgumentError, match="host array"):
            program.kernel.unpack(queue, 1, None, ints, doubles, floats, value, host_array)
