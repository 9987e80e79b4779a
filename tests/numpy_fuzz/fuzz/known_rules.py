"""The rules of the known difference classes (known.py), one per entry of known_differences.json.
Each looks at the operation where the two sides part (`c.op`), the arrays before it (`c.values`)
and the difference (`c.diff`); each is as narrow as the class, so that a new difference of the same
operation is not hidden by it."""

import numpy as np

from . import dtypes
from .known import rule
from .oracle import evaluate_tree


def _kind(x):
    return np.asarray(x).dtype.kind


def _conversions(c, node=None):
    """(source value, target dtype) of every conversion the operation makes: astype nodes of its
    expression, its astype, its dtype= (reductions, scans), its assignment into `dst`."""
    op = c.op
    out = []
    if node is None:
        if op["op"] == "astype":
            out.append((c.values[op["src"]].data, op["dtype"]))
        if op["op"] in ("reduce", "scan") and op.get("dtype"):
            out.append((c.values[op["src"]].data, op["dtype"]))
        if op["op"] in ("reduce", "scan") and op.get("out_arg"):
            out.append((c.values[op["src"]].data, str(c.values[op["out_arg"]].data.dtype)))
        if op["op"] in ("assign", "fill"):
            v, _ = evaluate_tree(op["expr"], c.values)
            out.append((v, str(c.values[op["dst"]].data.dtype)))
        node = op.get("expr")
        if node is None:
            return out
    if "f" in node:
        if node["f"] == "astype":
            v, _ = evaluate_tree(node["args"][0], c.values)
            out.append((v, node["dtype"]))
        for a in node["args"]:
            out += _conversions(c, a)
    return out


def _out_of_range(value, target):
    """Whether converting `value` to the integer dtype `target` meets NaN, an infinity or a value
    outside the target's range (undefined behaviour in C, which numpy's x86-64 build answers in its
    own way)."""
    v = np.asarray(value)
    if v.dtype.kind not in "fc" or dtypes.kind(target) not in "iu":
        return False
    v = (v.real if v.dtype.kind == "c" else v).astype(np.float64)
    info = np.iinfo(target)
    with np.errstate(all="ignore"):
        return bool((~np.isfinite(v) | (np.trunc(v) < info.min) | (np.trunc(v) > info.max)).any())


@rule("overlapping-set")
def _(c):
    return c.op["op"] == "set" and c.overlaps(c.op["dst"], [c.op["src"]])


@rule("overlapping-assign")
def _(c):
    if c.op["op"] != "assign" or c.diff.kind != "kjarni_error" or "overlap" not in c.kjarni_message:
        return False
    arrays = [leaf[2] for leaf in c.leaves() if leaf[0] == "array"]
    return c.overlaps(c.op["dst"], arrays)


@rule("float-to-int")
def _(c):
    return c.diff.kind == "values" and any(_out_of_range(v, t) for v, t in _conversions(c))


@rule("float16-conversions")
def _(c):
    return c.diff.kind == "kjarni_error" and "float16 is not supported by function modules" in c.kjarni_message


@rule("same-kind-casting")
def _(c):
    if c.diff.kind != "numpy_error" or "same_kind" not in c.numpy_message or c.op["op"] != "assign":
        return False
    v, _ = evaluate_tree(c.op["expr"], c.values)
    return not np.can_cast(np.asarray(v).dtype, c.values[c.op["dst"]].data.dtype, "same_kind")


@rule("device-capability")
def _(c):
    return (c.diff.kind == "kjarni_error" and c.diff.kjarni_error["type"] == "UnsupportedError"
            and ("has no half precision" in c.kjarni_message or "double precision" in c.kjarni_message))


@rule("dot-result-dtype")
def _(c):
    return c.op["op"] == "dot" and c.diff.kind == "dtype"


@rule("gemm-batched-one")
def _(c):
    return (c.op["op"] == "gemm_batched" and c.diff.kind == "kjarni_error"
            and "InvalidDimension" in c.kjarni_message and c.values[c.op["a"]].data.shape[0] == 1)


@rule("reduction-out-dtype")
def _(c):
    if c.op["op"] not in ("reduce", "scan") or not c.op.get("out_arg") or c.diff.kind != "kjarni_error":
        return False
    return "has dtype" in c.kjarni_message and c.diff.kjarni_error["type"] == "ArgumentError"


@rule("int64-uint64-comparison")
def _(c):
    """Comparisons that mix int64 and uint64 (or a 64-bit integer with a float64): numpy's loops
    compare exactly, kjarni through float64, which cannot tell integers apart past 2^53."""
    comparisons = {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "minimum", "maximum"}
    if c.diff.kind != "values" or not (c.functions() & comparisons):
        return False
    kinds = {(t[1] if t[0] != "weak" else None) for t in c.leaves()}
    return bool({"int64", "uint64"} <= kinds or ({"uint64"} <= kinds and any(k in kinds for k in SIGNED64)))


SIGNED64 = ("int8", "int16", "int32", "int64")


@rule("int-negative-power")
def _(c):
    return (c.diff.kind == "numpy_error" and "Integers to negative integer powers" in c.numpy_message
            and "power" in c.functions())



COMPLEX_FUNCTIONS = {"tanh", "exp", "sin", "cos", "log", "sqrt", "power", "divide", "multiply"}


@rule("complex-special-values")
def _(c):
    """kjarni's complex functions (src/algorithms/expression_math.cpp) are written for finite
    operands of moderate size: infinities, NaNs and parts whose double overflows give NaN where
    numpy follows C99's Annex G (ctanh(inf + iy) = 1 + i0 sin 2y) or reduces the argument first."""
    if c.diff.kind != "values" or not (c.functions() & COMPLEX_FUNCTIONS):
        return False
    k, n = c.diff.data.get("kjarni"), c.diff.data.get("numpy")
    complex_operand = any((leaf[0] == "weak" and leaf[1] == "complex") or
                          (leaf[0] != "weak" and dtypes.kind(leaf[1]) == "c") for leaf in c.leaves())
    if k is None or not complex_operand:
        return False
    with np.errstate(all="ignore"):
        bad = (k != n) & ~(np.isnan(k) & np.isnan(n))
        return bool((~np.isfinite(k[bad]) | ~np.isfinite(n[bad])).any())


def _float16_overflow(c, node, root=True):
    """Whether an intermediate float16 result of the expression overflows to inf in numpy while
    its operands are finite."""
    if "f" not in node:
        return False
    if not root:
        try:
            r = np.asarray(evaluate_tree(node, c.values)[0])
            if r.dtype == np.float16 and np.isinf(r).any():
                args = [np.asarray(evaluate_tree(a, c.values)[0]) for a in node["args"]]
                if all(not (a.dtype.kind in "fc" and np.isinf(a).any()) for a in args):
                    return True
        except Exception:
            pass
    return any(_float16_overflow(c, a, False) for a in node["args"])


@rule("float16-intermediate")
def _(c):
    return c.diff.kind == "values" and c.op.get("expr") is not None and _float16_overflow(c, c.op["expr"])
