"""Shrinking a program that shows a difference: candidates one step smaller (an operation left
out, an input no longer used left out, an expression replaced by one of its operands, an input's
extents shortened) run as one batch; the first that still shows the same class of difference
replaces the program, until no candidate does or the round limit is reached."""

import copy

import numpy as np

from .compare import Counts, compare
from .oracle import run_program


def _names_used(op):
    used = set()

    def walk(x):
        if isinstance(x, dict):
            if "array" in x:
                used.add(x["array"])
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    for key in ("src", "dst", "a", "b", "x", "y", "c", "indices", "out_arg", "sorted", "values", "mask", "value"):
        if isinstance(op.get(key), str):
            used.add(op[key])
    for key in ("srcs",):
        used.update(op.get(key) or [])
    walk(op.get("expr"))
    walk(op.get("expr_b"))
    return used


def _names_made(op):
    return set(op.get("outs") or []) | ({op["out"]} if "out" in op else set())


def _valid(program):
    known = {i["name"] for i in program["inputs"]}
    for op in program["ops"]:
        if not _names_used(op) <= known:
            return False
        known |= _names_made(op)
    return True


def _subtrees(node, path=()):
    if isinstance(node, dict) and "f" in node:
        for k, a in enumerate(node["args"]):
            yield path + (k,), a
            yield from _subtrees(a, path + (k,))


def _replace(node, path, new):
    if not path:
        return new
    node = dict(node, args=list(node["args"]))
    node["args"][path[0]] = _replace(node["args"][path[0]], path[1:], new)
    return node


def candidates(program, data):
    """Programs one step smaller, with their data."""
    out = []
    ops = program["ops"]
    # Leave out operations after the difference, then each other operation.
    for k in range(len(ops)):
        p = dict(program, ops=ops[:k] + ops[k + 1:])
        if _valid(p):
            out.append((p, data))
    # Replace an expression by one of its subtrees.
    for k, op in enumerate(ops):
        if "expr" in op:
            for path, sub in _subtrees(op["expr"]):
                p = dict(program, ops=list(ops))
                p["ops"][k] = dict(op, expr=_replace(op["expr"], (), sub) if len(path) == 1 else _replace(op["expr"], path[:1], sub))
                out.append((p, data))
    # Leave out unused inputs.
    used = set().union(*[_names_used(op) for op in ops]) if ops else set()
    kept = [i for i in program["inputs"] if i["name"] in used]
    if len(kept) < len(program["inputs"]):
        out.append((dict(program, inputs=kept), data))
    # Shorten an input along one axis (its leading elements kept), or cut it to one element.
    for k, inp in enumerate(program["inputs"]):
        for axis, n in enumerate(inp["shape"]):
            for m in sorted({1, n // 2}):
                if 0 < m < n:
                    d = dict(data)
                    d[inp["name"]] = np.ascontiguousarray(np.take(data[inp["name"]], range(m), axis=axis))
                    inputs = list(program["inputs"])
                    inputs[k] = dict(inp, shape=list(d[inp["name"]].shape))
                    out.append((dict(program, inputs=inputs), d))
    return out


def shrink(program, data, runner, signature, rounds=30, batch=60):
    """The smallest program found whose difference has `signature(program, data, diff)` unchanged."""
    for _ in range(rounds):
        cands = candidates(program, data)[:batch]
        if not cands:
            break
        for k, (p, d) in enumerate(cands):
            p["id"] = k
        results = runner.run([p for p, _ in cands], [d for _, d in cands])
        for k, (p, d) in enumerate(cands):
            try:
                diff = compare(p, results[k], run_program(p, d), Counts())
            except Exception:
                continue
            if diff is not None and signature(p, d, diff):
                program, data = copy.deepcopy(p), d
                break
        else:
            break
    return program, data
