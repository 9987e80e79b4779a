"""Programs, templates, modules, snippets, static kernels and errors."""

import numpy
import pytest

import kjarni
from kjarni import dtypes, functions

MULTIPLY = """
KERNEL void multiply_them(GLOBAL_MEM ${ctype} *dest, GLOBAL_MEM ${ctype} *a, GLOBAL_MEM ${ctype} *b)
{
    const SIZE_T i = get_global_id(0);
    dest[i] = ${mul}(a[i], b[i]);
}
"""


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.complex64])
def test_template_program_with_function_module(context, queue, rng, dtype):
    n = 300
    a = (rng.standard_normal(n) + (1j * rng.standard_normal(n) if dtype == numpy.complex64 else 0)).astype(dtype)
    b = (rng.standard_normal(n) + (1j * rng.standard_normal(n) if dtype == numpy.complex64 else 0)).astype(dtype)
    program = kjarni.Program([context.device], MULTIPLY,
                             render_globals=dict(ctype=dtypes.ctype(dtype), mul=functions.mul(dtype, dtype)))
    a_dev, b_dev = kjarni.Array.from_host(queue, a), kjarni.Array.from_host(queue, b)
    dest = kjarni.Array.empty(context.device, a.shape, a.dtype)
    program.kernel.multiply_them(queue, [n], None, dest, a_dev, b_dev)
    # One real product is exact in IEEE float32; a complex one is (ac - bd) + i(ad + bc), where a
    # contracted multiply-add may round once less than numpy: 2 ulp of the largest term.
    result = dest.get(queue)
    scale = numpy.abs(a) * numpy.abs(b)
    assert numpy.all(numpy.abs(result - a * b) <= 4 * numpy.finfo(numpy.float32).eps * scale)


def test_prepared_kernel_scalars_and_errors(context, queue, rng):
    program = kjarni.Program(context.device, """
    KERNEL void axpb(GLOBAL_MEM float *y, GLOBAL_MEM const float *x, float a, int b)
    {
        const SIZE_T i = get_global_id(0);
        y[i] = a * x[i] + (float)b;
    }
    """)
    x = rng.standard_normal(256).astype(numpy.float32)
    x_dev = kjarni.Array.from_host(queue, x)
    y_dev = kjarni.Array.empty(context.device, x.shape, x.dtype)
    kernel = program.kernel.axpb.prepare([256])
    kernel(queue, y_dev, x_dev, numpy.float32(0.5), numpy.int32(3))
    # 0.5 * x is exact; adding 3 rounds once (a fused multiply-add gives the same single rounding).
    numpy.testing.assert_array_equal(y_dev.get(queue), numpy.float32(0.5) * x + numpy.float32(3))
    event = kernel.launch(queue, y_dev, x_dev, numpy.float32(1), numpy.int32(0))
    event.wait()
    assert event.is_complete
    with pytest.raises(kjarni.ArgumentError) as info:
        kernel(queue, y_dev, x_dev, 0.5, numpy.int32(3))
    assert info.value.argument == "argument 2"

    # Bound: checked once, then launched as often as asked. The binding keeps its input alive (no
    # other name holds it; memory freed early would be reused by the array allocated next).
    x2 = rng.standard_normal(256).astype(numpy.float32)
    y2 = kjarni.Array.empty(context.device, x2.shape, x2.dtype)
    bound = kernel.bind(queue, y2, kjarni.Array.from_host(queue, x2), numpy.float32(2), numpy.int32(-1))
    reuse = kjarni.Array.from_host(queue, numpy.full(256, 7, numpy.float32))
    assert isinstance(bound, kjarni.BoundKernel) and bound.queue.device.index == queue.device.index
    assert bound() is None
    bound.launch().wait()
    # 2 * x is exact; adding -1 rounds once.
    numpy.testing.assert_array_equal(y2.get(queue), numpy.float32(2) * x2 + numpy.float32(-1))
    del reuse
    with pytest.raises(kjarni.ArgumentError) as info:
        kernel.bind(queue, y_dev, x_dev, numpy.float64(2), numpy.int32(3))
    # (OpenCL adds the parameter's name, "argument 2 ('a')"; CUDA's driver does not tell it.)
    assert info.value.argument.startswith("argument 2") and "8 bytes" in str(info.value)


def test_launch_call_path(context, queue, rng):
    """The launch's fast path (the kernels' call slot, numpy scalars read where numpy keeps them,
    arrays packed as their element region) gives what the general path gave, and refuses the same."""
    program = kjarni.Program(context.device, """
    KERNEL void axpb(GLOBAL_MEM float *y, GLOBAL_MEM const float *x, float a, int b)
    {
        const SIZE_T i = get_global_id(0);
        y[i] = a * x[i] + (float)b;
    }
    """)
    x = rng.standard_normal(1536).astype(numpy.float32)
    x_dev = kjarni.Array.from_host(queue, x)
    y_dev = kjarni.Array.empty(context.device, (256,), numpy.float32)
    kernel = program.kernel.axpb.prepare([256])
    # Scalars of one type, launch after launch: each launch reads its own object's value.
    for a, b in ((0.5, 3), (2.0, -1), (-4.0, 7)):
        kernel(queue, y_dev, x_dev, numpy.float32(a), numpy.int32(b))
        # a * x is exact for these powers of two; adding b rounds once.
        numpy.testing.assert_array_equal(y_dev.get(queue), numpy.float32(a) * x[:256] + numpy.float32(b))
    # A view starting past its buffer's start (at 4096 bytes, a multiple of any OpenCL device's
    # base address alignment: NVIDIA's is 512 bytes): the kernel sees its first element at index 0.
    kernel(queue, y_dev, x_dev[1024:], numpy.float32(1), numpy.int32(0))
    numpy.testing.assert_array_equal(y_dev.get(queue), x[1024:1280])
    with pytest.raises(kjarni.ArgumentError) as info:
        kernel(queue, y_dev, x_dev[::-1], numpy.float32(1), numpy.int32(0))
    assert info.value.argument == "array" and "negative strides" in str(info.value)
    with pytest.raises(kjarni.ArgumentError) as info:
        kernel(queue, y_dev, x_dev.astype(queue, numpy.float64), numpy.float32(1), numpy.int32(0))
    assert info.value.argument == "argument 1" and "float64" in str(info.value)
    with pytest.raises(kjarni.ArgumentError) as info:
        kernel(queue, y_dev, x_dev, numpy.float32(1), b=numpy.int32(0))
    assert info.value.argument == "kwargs"
    with pytest.raises(kjarni.ArgumentError) as info:
        kernel()
    assert info.value.argument == "queue"
    with pytest.raises(kjarni.ArgumentError) as info:
        kernel("a queue", y_dev, x_dev, numpy.float32(1), numpy.int32(0))
    assert info.value.argument == "queue"
    bound = kernel.bind(queue, y_dev, x_dev, numpy.float32(1), numpy.int32(0))
    with pytest.raises(kjarni.ArgumentError) as info:
        bound(queue)
    assert info.value.argument == "args"
    # A Python subclass of a kernel type whose constructor never ran is refused, not read.
    class Unmade(kjarni.StaticKernel):
        def __init__(self):
            pass
    with pytest.raises(kjarni.ArgumentError) as info:
        Unmade()(queue)
    assert info.value.argument == "self"


def test_snippets_and_modules_render_as_grunnur_says(context, queue, rng):
    add = kjarni.Snippet.from_callable(lambda varname: "${varname} + ${num}", render_globals=dict(num=1))
    module = kjarni.Module.from_callable(
        lambda prefix, arg: """
        FUNCTION int ${prefix}(int x)
        {
            return x + ${num} + ${arg};
        }
        """, name="foobar", render_globals=dict(num=1))
    source = """
    KERNEL void test(GLOBAL_MEM int *arr)
    {
        const SIZE_T idx = get_global_id(0);
        int x = arr[idx];
        arr[idx] = ${mod(2)}(${add('x')});
    }
    """
    rendered = kjarni.render_with_modules(source, render_globals=dict(add=add, mod=module))
    assert "FUNCTION int _mod_foobar_0_(int x)" in rendered
    assert "arr[idx] = _mod_foobar_0_(\nx + 1\n);" in rendered
    program = kjarni.Program(context.device, source, render_globals=dict(add=add, mod=module))
    data = rng.integers(-1000, 1000, 64).astype(numpy.int32)
    arr = kjarni.Array.from_host(queue, data)
    program.kernel.test(queue, [64], None, arr)
    numpy.testing.assert_array_equal(arr.get(queue), data + 1 + 1 + 2)


def test_python_values_in_templates(context):
    calls = []

    def twice(x):
        calls.append(x)
        return 2 * x

    class Config:
        size = 7

        def __process_modules__(self, process):
            return self

    source = """
    % for name, value in sorted(consts.items()):
    #define ${name} ${value}
    % endfor
    #define N ${twice(cfg.size)}
    #define T ${dtype}
    KERNEL void k(GLOBAL_MEM int *y) { y[0] = N + ${sum(items)}; }
    """
    program = kjarni.Program(context.device, source, render_globals=dict(
        consts={"A": 1, "B": "2.5f"}, twice=twice, cfg=Config(), dtype=numpy.dtype(numpy.int16), items=[1, 2, 3]))
    text = program.sources[context.device]
    assert "#define A 1" in text and "#define B 2.5f" in text and "#define N 14" in text
    assert "#define T short" in text or "#define T int16_t" in text
    assert calls == [7]


def test_render_error_has_the_position(context):
    with pytest.raises(kjarni.RenderError) as info:
        kjarni.Program(context.device, "KERNEL void k()\n{\n    ${undefined_name + 1}\n}\n")
    assert info.value.line == 3
    assert info.value.column > 0
    assert "undefined_name" in str(info.value)


def test_compile_error_has_the_log(context):
    with pytest.raises(kjarni.CompileError) as info:
        kjarni.Program(context.device, "KERNEL void k(GLOBAL_MEM int *y) { y[0] = not_declared; }")
    assert "not_declared" in info.value.log
    assert "not_declared" in info.value.source
    assert isinstance(info.value, kjarni.Error)


def test_static_kernel_virtual_sizes(context, queue):
    shape = (5, 3, 4)  # three virtual dimensions, first fastest
    kernel = kjarni.StaticKernel(context.device, """
    KERNEL void fill(GLOBAL_MEM int *out)
    {
        if (${static.skip}()) return;
        out[${static.global_flat_id}()] = (int)(${static.global_id}(0) + 10 * ${static.global_id}(1)
                                                + 100 * ${static.global_id}(2));
    }
    """, "fill", shape)
    out = kjarni.Array.empty(context.device, (numpy.prod(shape),), numpy.int32)
    kernel(queue, out)
    i, j, k = numpy.meshgrid(*[numpy.arange(s) for s in shape], indexing="ij")
    expected = (i + 10 * j + 100 * k).ravel()  # C order: the last dimension fastest, as grunnur's
    numpy.testing.assert_array_equal(out.get(queue), expected)
    # Bound once: the output is written again after being overwritten.
    bound = kernel.bind(queue, out)
    kjarni.fill(queue, out, numpy.int32(-1))
    bound()
    numpy.testing.assert_array_equal(out.get(queue), expected)


def test_struct_dtype_in_a_kernel(context, queue, rng):
    dtype = numpy.dtype([("i", numpy.int32), ("x", numpy.float64)], align=True)
    data = numpy.zeros(32, dtype)
    data["i"] = rng.integers(-50, 50, 32)
    data["x"] = rng.standard_normal(32)
    program = kjarni.Program(context.device, """
    KERNEL void k(GLOBAL_MEM ${s} *y)
    {
        const SIZE_T i = get_global_id(0);
        y[i].i = y[i].i * 2;
        y[i].x = y[i].x + 1.0;
    }
    """, render_globals=dict(s=dtypes.ctype(dtype)))
    arr = kjarni.Array.from_host(queue, data)
    program.kernel.k(queue, [32], None, arr)
    back = arr.get(queue)
    numpy.testing.assert_array_equal(back["i"], data["i"] * 2)
    numpy.testing.assert_array_equal(back["x"], data["x"] + 1.0)  # one double addition: exact as numpy's


def test_multi_queue_launch(multi_context, rng):
    mqueue = kjarni.MultiQueue.on_devices(multi_context.devices)
    program = kjarni.Program(multi_context, """
    KERNEL void add_offset(GLOBAL_MEM int *y, int offset)
    {
        y[get_global_id(0)] += offset;
    }
    """)
    host = rng.integers(-100, 100, 20).astype(numpy.int32)
    arr = kjarni.MultiArray.from_host(mqueue, host)
    d0, d1 = multi_context.devices[0], multi_context.devices[1]
    kernel = program.kernel.add_offset.prepare({d0.index: [10], d1.index: [10]})
    kernel(mqueue, arr, {d0.index: numpy.int32(1), d1.index: numpy.int32(1000)})
    expected = host.copy()
    expected[:10] += 1
    expected[10:] += 1000
    numpy.testing.assert_array_equal(arr.get(mqueue), expected)


def test_def_template_with_render_args(context, queue):
    template = kjarni.Template.from_string("""
<%def name="kernel(name, value)">
KERNEL void ${name}(GLOBAL_MEM int *y) { y[get_global_id(0)] = ${value} + ${offset}; }
</%def>
""")
    definition = template.get_def("kernel")
    assert definition.argnames == ["name", "value"]
    assert "fill(" in definition.render("fill", 3, offset=1)
    program = kjarni.Program(context.device, definition, render_args=["fill", 40], render_globals=dict(offset=2))
    y = kjarni.Array.empty(context.device, (8,), numpy.int32)
    program.kernel.fill(queue, [8], None, y)
    numpy.testing.assert_array_equal(y.get(queue), numpy.full(8, 42, numpy.int32))
    assert kjarni.Template.from_string("${a} ${b[1]} ${c['k']}").render(a=1.5, b=[1, "x"], c={"k": None}) == "1.5 x None"
