"""Random trees of modules and snippets render as grunnur renders them: each tree is built twice
from one seed, once with kjarni's Module and Snippet and once with grunnur's, and the two
render_with_modules results are compared byte for byte. A tree mixes modules from strings and from
callables with extra arguments (passed where a template uses them), the same module reached along
several paths (rendered once), modules held in lists and dicts of render globals, plain values, and
snippets whose bodies use modules."""

import random

import pytest

import kjarni

grunnur = pytest.importorskip("grunnur")


def _use(expression, arguments):
    """`${expression}`, or `${expression(a, b)}` for a module that takes arguments."""
    call = "(" + ", ".join(map(str, arguments)) + ")" if arguments else ""
    return "${" + expression + call + "}"


def _random_tree(lib, seed):
    rng = random.Random(seed)
    modules = []  # (module, the arguments its uses pass)

    def uses_of_earlier_modules(render_globals):
        uses = []
        for j in range(rng.randint(0, 2)):
            if modules and rng.random() < 0.6:
                module, arguments = rng.choice(modules)
                render_globals[f"g{j}"] = module
                uses.append(_use(f"g{j}", arguments))
            if rng.random() < 0.3:
                render_globals[f"v{j}"] = rng.randint(0, 9)
                uses.append(f"${{v{j}}}")
        if modules and rng.random() < 0.3:
            (a, a_args), (b, b_args) = rng.choice(modules), rng.choice(modules)
            render_globals["listed"] = [a, b]
            uses.append(_use("listed[0]", a_args) + "_" + _use("listed[1]", b_args))
        if modules and rng.random() < 0.2:
            a, a_args = rng.choice(modules)
            render_globals["keyed"] = {"a": a}
            uses.append(_use("keyed['a']", a_args))
        return " ".join(uses)

    def new_part():
        render_globals = {}
        body = uses_of_earlier_modules(render_globals)
        kind = rng.random()
        if kind < 0.4:
            source = f"int ${{prefix}}_f() {{ {body} }}"
            modules.append((lib.Module.from_string(source, render_globals=render_globals), []))
            return "module", modules[-1]
        if kind < 0.8:
            names = [f"a{i}" for i in range(rng.randint(0, 2))]
            arguments = [rng.randint(0, 5) for _ in names]
            source = f"int ${{prefix}}_g({' '.join('${%s}' % n for n in names)}) {{ {body} }}"
            template = eval("lambda " + ", ".join(["prefix"] + names) + ": " + repr(source))
            name = rng.choice(["_module", "mod", "x"])
            modules.append((lib.Module.from_callable(template, name=name, render_globals=render_globals), arguments))
            return "module", modules[-1]
        snippet_source = f"(${{x}} + {body or '1'})"
        return "snippet", lib.Snippet.from_callable(lambda x: snippet_source, render_globals=render_globals)

    parts = [new_part() for _ in range(rng.randint(1, 6))]
    uses, render_globals = [], {}
    for i, (kind, part) in enumerate(parts):
        if kind == "snippet":
            render_globals[f"s{i}"] = part
            uses.append(f"${{s{i}('y')}}")
        elif rng.random() < 0.7:
            render_globals[f"m{i}"] = part[0]
            uses.append(_use(f"m{i}", part[1]))
    return "KERNEL void k() { " + " ; ".join(uses) + " }", render_globals


def test_random_module_trees_render_as_grunnur():
    import grunnur._modules
    rendered_modules = 0
    for seed in range(300):
        source, render_globals = _random_tree(kjarni, seed)
        ours = kjarni.render_with_modules(source, render_globals=render_globals)
        source, render_globals = _random_tree(grunnur, seed)
        theirs = grunnur._modules.render_with_modules(source, render_globals=render_globals)
        assert ours == theirs, seed
        rendered_modules += ours.count("_mod_")
    assert rendered_modules > 300  # the trees did hold modules
