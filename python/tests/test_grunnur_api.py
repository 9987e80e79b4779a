"""grunnur's API in kjarni, checked against grunnur itself (the peer, from PyPI, running on PoCL
through pyopencl where it can): the same code with only the library changed gives the same results,
metadata and rendered sources; and kjarni's own checks of what grunnur leaves to chance."""

import os
import pathlib
import subprocess
import sys

import numpy
import pytest

import kjarni
from kjarni import functions

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python"


def _grunnur_with_opencl():
    """grunnur, where it imports and has an OpenCL platform (pyopencl installed), else None."""
    try:
        import grunnur
        grunnur.API.opencl()
        if not grunnur.API.opencl().platforms:
            return None
        return grunnur
    except Exception:  # noqa: BLE001  (any failure to reach pyopencl means: no peer here)
        return None


GRUNNUR = _grunnur_with_opencl()
needs_grunnur = pytest.mark.skipif(GRUNNUR is None, reason="grunnur with pyopencl (PyPI) is not installed")


# ---- APIs, devices ---------------------------------------------------------------------------------

def test_api_constructors():
    available = kjarni.API.all_available()
    assert kjarni.API.any() == available[0]
    for shortcut, make in (("cuda", kjarni.API.cuda), ("opencl", kjarni.API.opencl)):
        if any(api.shortcut == shortcut for api in available):
            assert make().shortcut == shortcut
        else:
            with pytest.raises(kjarni.ApiUnavailableError):
                make().platforms  # noqa: B018


def test_as_unbound_and_align_words(context):
    device = context.device
    assert device.as_unbound() == device.device
    assert isinstance(device.as_unbound(), kjarni.Device)
    assert [device.params.align_words(w) for w in (4, 8, 16)] == [16, 16, 8]
    with pytest.raises(kjarni.ArgumentError, match="word_size"):
        device.params.align_words(3)


# ---- Snippets and modules: grunnur's argument orders -----------------------------------------------

def _render_tree(lib):
    snippet06 = lib.Snippet.from_string(["x", "y"], "${x} * ${y} + ${k}", "scaled", {"k": 3})
    module = lib.Module.from_string("FUNCTION int ${prefix}(int v) { return v + ${n}; }", "plus", {"n": 7})
    extended = snippet06.with_added_globals({"m": module})
    source = "KERNEL void f(GLOBAL_MEM int *a) { a[0] = ${m}(${s('a[1]', 'a[2]')}); }"
    return source, {"s": extended, "m": module}


@needs_grunnur
def test_from_string_orders_render_as_grunnur():
    import grunnur._modules
    source, render_globals = _render_tree(kjarni)
    ours = kjarni.render_with_modules(source, render_globals=render_globals)
    source, render_globals = _render_tree(GRUNNUR)
    theirs = grunnur._modules.render_with_modules(source, render_globals=render_globals)
    assert "a[1] * a[2] + 3" in ours and "return v + 7" in ours
    assert ours == theirs


def test_snippet_from_string_of_grunnur_03():
    # 0.3's form: a snippet without parameters, (source, name, render_globals).
    snippet = kjarni.Snippet.from_string("${a} + ${b}", "sum", dict(a=1, b=2))
    assert snippet.name == "sum"
    assert kjarni.render_with_modules("${s}", render_globals=dict(s=snippet)).strip() == "1 + 2"


def test_with_added_globals_refuses_a_global_it_has():
    snippet = kjarni.Snippet.from_string(["x"], "${x} + ${k}", render_globals={"k": 1})
    with pytest.raises(ValueError, match="'k'"):
        snippet.with_added_globals({"k": 2})
    assert dict(snippet.render_globals) == {"k": 1}  # the original keeps its globals


# ---- functions.cast: grunnur's order, converting the right way --------------------------------------

CAST_KERNEL = """
KERNEL void convert(GLOBAL_MEM ${out_ctype} *dest, GLOBAL_MEM const ${in_ctype} *src)
{
    const SIZE_T i = get_global_id(0);
    dest[i] = ${cast}(src[i]);
}
"""


@pytest.mark.parametrize("in_dtype, out_dtype", [(numpy.float32, numpy.int32), (numpy.int32, numpy.float32),
                                                 (numpy.float32, numpy.complex64), (numpy.int16, numpy.float32)])
def test_cast_converts_from_the_first_dtype_to_the_second(queue, rng, in_dtype, out_dtype):
    n = 64
    # |values| < 1000: exact in every type here; floats to ints truncate toward zero in C and numpy alike.
    host = rng.uniform(-1000, 1000, n).astype(in_dtype)
    program = kjarni.Program(queue.device, CAST_KERNEL, render_globals=dict(
        in_ctype=kjarni.dtypes.ctype(in_dtype), out_ctype=kjarni.dtypes.ctype(out_dtype),
        cast=functions.cast(in_dtype, out_dtype)))
    src = kjarni.Array.from_host(queue, host)
    dest = kjarni.Array.empty(queue.device, n, out_dtype)
    program.kernel.convert(queue, n, None, dest, src)
    numpy.testing.assert_array_equal(dest.get(queue), host.astype(out_dtype))


def test_cast_refuses_to_drop_an_imaginary_part():
    with pytest.raises(kjarni.ArgumentError, match="imaginary"):
        functions.cast(numpy.complex64, numpy.float32)


@needs_grunnur
def test_cast_signature_is_grunnurs():
    import inspect
    assert list(inspect.signature(functions.cast).parameters) == \
        list(inspect.signature(GRUNNUR.functions.cast).parameters) == ["in_dtype", "out_dtype"]


# ---- ArrayMetadata, empty_like, minimum_subregion ---------------------------------------------------

LAYOUTS = [
    dict(shape=(3, 4), dtype=numpy.float32),
    dict(shape=7, dtype=numpy.int16),
    dict(shape=(3, 4), dtype=numpy.float32, strides=(16, -4), first_element_offset=100),
    dict(shape=(2, 5), dtype=numpy.complex64, strides=(8, 16), buffer_size=500),
]

METADATA_FIELDS = ("shape", "dtype", "strides", "first_element_offset", "buffer_size", "span", "min_offset",
                   "is_contiguous")


@needs_grunnur
@pytest.mark.parametrize("layout", LAYOUTS, ids=range(len(LAYOUTS)))
def test_array_metadata_as_grunnur(layout):
    layout = dict(layout)
    shape, dtype = layout.pop("shape"), layout.pop("dtype")
    ours = kjarni.ArrayMetadata(shape, dtype, **layout)
    theirs = GRUNNUR.ArrayMetadata(shape, dtype, **layout)
    assert {f: getattr(ours, f) for f in METADATA_FIELDS} == {f: getattr(theirs, f) for f in METADATA_FIELDS}
    assert ours.with_().dtype == ours.dtype and ours == kjarni.ArrayMetadata(shape, dtype, **layout)


def test_array_metadata_of_no_elements_spans_nothing():
    # grunnur counts 16 bytes for a (4, 0) float64 array (its span formula takes the -1 of the empty
    # axis); kjarni's empty arrays span 0 bytes, as numpy's nbytes says (docs/python.md, differences).
    empty = kjarni.ArrayMetadata((4, 0), numpy.float64)
    assert (empty.span, empty.buffer_size, empty.first_element_offset, empty.strides) == (0, 0, 0, (0, 8))
    assert kjarni.ArrayMetadata((3, 4), numpy.float32).with_(numpy.int32).dtype == numpy.int32


def test_array_metadata_refuses_what_does_not_fit():
    with pytest.raises(kjarni.ArgumentError, match="first_element_offset"):
        kjarni.ArrayMetadata((3, 4), numpy.float32, strides=(16, -4), first_element_offset=4)
    with pytest.raises(kjarni.ArgumentError, match="buffer_size"):
        kjarni.ArrayMetadata((3, 4), numpy.float32, buffer_size=47)


def test_empty_like_and_metadata_of_a_view(queue, rng):
    host = rng.standard_normal((4, 64)).astype(numpy.float32)
    x = kjarni.Array.from_host(queue, host)
    view = x[2:4, :3]
    m = view.metadata
    assert (m.shape, m.strides, m.first_element_offset, m.buffer_size) == ((2, 3), (256, 4), 512, 1024)
    like = kjarni.Array.empty_like(queue.device, view)
    assert like.metadata == m
    like_host = kjarni.Array.empty_like(queue.device, host[:, ::2])
    assert (like_host.shape, like_host.strides, like_host.dtype) == ((4, 32), (256, 8), numpy.float32)
    # The minimum subregion (aligned here: the view starts 512 bytes in) holds the same elements.
    sub = view.minimum_subregion()
    assert sub.base.size == m.span and sub.offset == 0
    numpy.testing.assert_array_equal(sub.get(queue), host[2:4, :3])


# ---- Sizes, kernel calls, errors --------------------------------------------------------------------

FILL_KERNEL = "KERNEL void fill(GLOBAL_MEM int *a) { const SIZE_T i = get_global_id(0); a[i] = (int)i * 3; }"


def test_integer_sizes_are_one_tuples(queue):
    program = kjarni.Program(queue.device, FILL_KERNEL)
    a = kjarni.Array.empty(queue.device, 8, numpy.int32)
    expected = numpy.arange(8, dtype=numpy.int32) * 3
    for call in (lambda: program.kernel.fill(queue, 8, None, a), lambda: program.kernel.fill(queue, 8, 4, a),
                 lambda: program.kernel.fill.prepare(8)(queue, a),
                 lambda: program.kernel.fill.prepare(8, local_size=4)(queue, a),
                 lambda: program.kernel.fill.prepare({0: 8}, {0: 4})(queue, a),
                 lambda: program.kernel.fill.prepare({queue.device: 8})(queue, a)):
        kjarni.fill(queue, a, numpy.int32(-1))
        assert call() is None  # a launch returns nothing (launch() returns an Event)
        numpy.testing.assert_array_equal(a.get(queue), expected)
    event = program.kernel.fill.prepare(8).launch(queue, a)
    event.wait()
    for bad, culprit in (("8", "global_size"), (-8, "global_size"), ([8, 1.5], "global_size")):
        with pytest.raises(kjarni.ArgumentError) as info:
            program.kernel.fill.prepare(bad)
        assert info.value.argument == culprit


def test_static_kernel_sizes_and_virtual_size_error(queue):
    source = """
    KERNEL void k(GLOBAL_MEM int *a)
    {
        if (${static.skip}()) return;
        a[${static.global_id}(0)] = ${static.global_id}(0) * 2;
    }"""
    kernel = kjarni.StaticKernel(queue.device, source, "k", 10, local_size=4)
    a = kjarni.Array.empty(queue.device, 10, numpy.int32)
    kernel(queue, a)
    numpy.testing.assert_array_equal(a.get(queue), numpy.arange(10) * 2)
    too_many = queue.device.params.max_total_local_size + 1
    with pytest.raises(kjarni.VirtualSizeError) as info:
        kjarni.StaticKernel(queue.device, source, "k", [8], local_size=[too_many])
    assert info.value.argument == "local_size" and isinstance(info.value, kjarni.ArgumentError)


def test_compilation_error_is_grunnurs_name(queue):
    assert kjarni.CompilationError is kjarni.CompileError
    with pytest.raises(kjarni.CompilationError) as info:
        kjarni.Program(queue.device, "KERNEL void broken(GLOBAL_MEM int *a) { a[0] = undeclared; }")
    assert isinstance(info.value, RuntimeError) and "undeclared" in info.value.log


# ---- grunnur's tutorial and reference examples, only the import changed ------------------------------

def _run(script_text):
    env = dict(os.environ)
    env.setdefault("POCL_DEVICES", "pthread pthread")
    result = subprocess.run([sys.executable, "-c", script_text], capture_output=True, text=True, timeout=300,
                            env=env)
    assert result.returncode == 0, result.stderr
    return result.stdout


TUTORIALS = sorted(EXAMPLES.glob("tutorial_*.py"))


@needs_grunnur
@pytest.mark.parametrize("script", TUTORIALS, ids=[p.name for p in TUTORIALS])
def test_tutorial_as_grunnur_runs_it(script):
    """Each tutorial script prints the sources it renders and, last, True when every result equals
    numpy's: grunnur's output must be the same, line for line."""
    text = script.read_text()
    ours = _run(text)
    theirs = _run(text.replace("from kjarni import render_with_modules", "from grunnur._modules import "
                               "render_with_modules")
                  .replace("from kjarni import", "from grunnur import").replace("import kjarni.", "import grunnur."))
    assert ours.strip().splitlines()[-1] == "True"
    assert ours == theirs
