"""The known differences from numpy: each class has an entry in known_differences.json (its reason
and whether it is being fixed: the table of docs/numpy-differences.md) and a rule here that
recognises a difference of that class from the program and the operation where the two sides part.
A difference no rule claims is new: the fuzzer fails and prints its reproduction."""

import json
import os

import numpy as np

from .oracle import run_program

HERE = os.path.dirname(os.path.abspath(__file__))
LIST = os.path.join(os.path.dirname(HERE), "known_differences.json")
DOCS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))), "docs", "numpy-differences.md")

RULES = {}


def rule(class_id):
    def register(f):
        RULES[class_id] = f
        return f
    return register


def load():
    with open(LIST) as f:
        entries = json.load(f)["differences"]
    ids = {e["id"] for e in entries}
    missing = sorted(ids - set(RULES))
    extra = sorted(set(RULES) - ids)
    if missing or extra:
        raise SystemExit(f"known_differences.json and fuzz/known.py disagree: no rule for {missing}, "
                         f"not listed: {extra}")
    with open(DOCS) as f:
        table = f.read()
    undocumented = sorted(i for i in ids if f"| `{i}` |" not in table)
    if undocumented:
        raise SystemExit(f"docs/numpy-differences.md has no row for {undocumented}")
    return entries


# The fields of an operation that hold an expression tree (fused_dot has two).
EXPRESSION_KEYS = ("expr", "expr_b")


class Context:
    """What the rules look at: the operation where the sides part and the arrays before it."""

    def __init__(self, program, data, diff):
        self.program = program
        self.diff = diff
        self.op = program["ops"][diff.op] if diff.op < len(program["ops"]) else None
        self.values = run_program(program, data, stop_before=diff.op) if self.op is not None else {}
        self.kjarni_message = (diff.kjarni_error or {}).get("message", "")
        self.numpy_message = (diff.numpy_error or {}).get("message", "")

    def dtype(self, name):
        return str(self.values[name].data.dtype)

    def leaves(self, node=None):
        """The expression's leaves: ("array", dtype, name), ("weak", kind, value), ("scalar", dtype, value)
        (of both of fused_dot's expressions)."""
        if node is None:
            return [leaf for key in EXPRESSION_KEYS if self.op.get(key) for leaf in self.leaves(self.op[key])]
        if "array" in node:
            return [("array", self.dtype(node["array"]), node["array"])]
        if "weak" in node:
            return [("weak", node["kind"], node["weak"])]
        if "scalar" in node:
            return [("scalar", node["dtype"], node["scalar"])]
        return [leaf for a in node["args"] for leaf in self.leaves(a)]

    def functions(self, node=None):
        if node is None:
            return set().union(*(self.functions(self.op[key]) for key in EXPRESSION_KEYS if self.op.get(key)))
        if "f" not in node:
            return set()
        out = {node["f"]}
        for a in node["args"]:
            out |= self.functions(a)
        return out

    def overlaps(self, dst, others):
        d = self.values[dst].data
        return any(np.shares_memory(d, self.values[o].data) for o in others if o in self.values)

    def same_view(self, a, b):
        x, y = self.values[a].data, self.values[b].data
        return (x.__array_interface__["data"][0] == y.__array_interface__["data"][0]
                and x.strides == y.strides and x.shape == y.shape)


def classify(program, data, diff):
    """The ids of the known classes that claim the difference (empty: a new one)."""
    ctx = Context(program, data, diff)
    return [cid for cid, f in RULES.items() if _safe(f, ctx)]


def _safe(f, ctx):
    try:
        return bool(f(ctx))
    except Exception:
        return False


from . import known_rules  # noqa: E402,F401  (registers the rules)
