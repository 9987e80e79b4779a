"""Modules and snippets render as grunnur (the peer, from PyPI) renders them: the same objects built
with each library's constructors, the rendered sources compared byte for byte."""

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
