"""Modules and snippets render as grunnur (the peer, from PyPI) renders them: the same objects built
with each library's constructors, the rendered sources compared byte for byte."""

import numpy
import pytest

import kjarni

grunnur = pytest.importorskip("grunnur")


def build(lib):
    """The same render tree, made of `lib`'s Snippet and Module."""
    add = lib.Snippet.from_callable(lambda varname, num=1: "${varname} + ${num} + ${k}", render_globals=dict(k=5))
    struct = lib.Module.from_string("typedef struct { int x; } ${prefix};", render_globals={})
    shared = lib.Module.from_callable(
        lambda prefix: "FUNCTION ${s} ${prefix}(${s} v) { return v; }", name="shared",
        render_globals=dict(s=struct))
    scaled = lib.Module.from_callable(
        lambda prefix, factor: """
        FUNCTION int ${prefix}(int x)
        {
            return ${shared}((${s}){x}).x * ${factor} + ${add('x', 2)};
        }
        """, name="scaled", render_globals=dict(shared=shared, s=struct, add=add))

    class Holder:
        def __init__(self, module):
            self.module = module

        def __process_modules__(self, process):
            return Holder(process(self.module))

    source = """
    KERNEL void test(GLOBAL_MEM int *arr)
    {
        const SIZE_T idx = get_global_id(0);
        int x = ${shared}(arr[idx]);
        % for i in range(2):
        x = ${scaled(i + 2)}(x) + ${holder.module}(x);
        % endfor
        arr[idx] = ${add('x')};
    }
    """
    return source, dict(add=add, shared=shared, scaled=scaled, holder=Holder(shared))


def test_render_tree_matches_grunnur():
    import grunnur._modules
    source, render_globals = build(kjarni)
    ours = kjarni.render_with_modules(source, render_globals=render_globals)
    source, render_globals = build(grunnur)
    theirs = grunnur._modules.render_with_modules(source, render_globals=render_globals)
    assert "_mod_scaled_" in ours and "x + 2 + 5" in ours  # the modules and the snippet did render
    assert ours == theirs


def _parse_constant(text):
    """(kind, value) of a real constant grunnur or kjarni writes: 'f' for float32, 'd' for float64."""
    if text.endswith("f"):
        return "f", numpy.float32(float(text[:-1]))
    return "d", float(text)


def test_c_constant_of_python_numbers_has_grunnurs_type():
    """A Python number without a dtype becomes a constant of the type grunnur gives it: the same
    text for ints within int32's range, float32 for floats within its range (the same value; the
    digits differ: kjarni writes float32's shortest), float64 beyond."""
    from grunnur.dtypes import c_constant as theirs
    rng = numpy.random.default_rng(12)
    ints = [0, 1, -1, 2**31 - 1, -(2**31)] + [int(v) for v in rng.integers(-(2**31), 2**31, size=200)]
    for v in ints:
        assert kjarni.dtypes.c_constant(v) == theirs(v), v
    floats = [0.1, -0.0, 3.4e38, 3.5e38, 1e-40, 1e300] + list(rng.standard_normal(200) * 10.0 ** rng.integers(-40, 40, 200))
    for v in floats:
        v = float(v)
        assert _parse_constant(kjarni.dtypes.c_constant(v)) == _parse_constant(theirs(v)), v
    assert kjarni.dtypes.c_constant(1.5 + 2j) == "COMPLEX64_CTR(1.5f, 2.0f)"  # grunnur: COMPLEX_CTR(float2)
    assert kjarni.dtypes.min_scalar_type(True) == grunnur.dtypes.min_scalar_type(True) == numpy.bool_
