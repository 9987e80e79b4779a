"""The rules of the known difference classes (known.py), one per entry of known_differences.json.
Each looks at the operation where the two sides part (`c.op`), the arrays before it (`c.values`)
and the difference (`c.diff`); each is as narrow as the class, so that a new difference of the same
operation is not hidden by it."""

import numpy as np

from . import bounds, dtypes
from .known import rule
from .oracle import evaluate_tree


def _kind(x):
    return np.asarray(x).dtype.kind


def _reduced_value(c):
    """The array a reduction reduces: its `src`, or (fused_reduce) its expression's value."""
    if "src" in c.op:
        return c.values[c.op["src"]].data
    v, _ = evaluate_tree(c.op["expr"], c.values)
    return np.asarray(v)


def _conversions(c, node=None):
    """(source value, target dtype) of every conversion the operation makes: astype nodes of its
    expression, its astype, its dtype= (reductions, scans, ascontiguous), its assignment into `dst`."""
    op = c.op
    out = []
    if node is None:
        if op["op"] == "astype" or (op["op"] == "ascontiguous" and op.get("dtype")):
            out.append((c.values[op["src"]].data, op["dtype"]))
        if op["op"] in ("reduce", "scan", "fused_reduce") and op.get("dtype"):
            out.append((_reduced_value(c), op["dtype"]))
        if op["op"] in ("reduce", "scan", "fused_reduce") and op.get("out_arg"):
            out.append((_reduced_value(c), str(c.values[op["out_arg"]].data.dtype)))
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


@rule("float-to-int")
def _(c):
    return c.diff.kind == "values" and any(_out_of_range(v, t) for v, t in _conversions(c))


@rule("device-capability")
def _(c):
    return (c.diff.kind == "kjarni_error" and c.diff.kjarni_error["type"] == "UnsupportedError"
            and ("has no half precision" in c.kjarni_message or "double precision" in c.kjarni_message))


SIGNED64 = ("int8", "int16", "int32", "int64")


@rule("int-negative-power")
def _(c):
    return (c.diff.kind == "numpy_error" and "Integers to negative integer powers" in c.numpy_message
            and "power" in c.functions())


@rule("weak-int-result-out-of-range")
def _(c):
    """kjarni refuses a weak integer its computing dtype cannot hold where numpy takes a wider dtype
    (a bare integer above int64's range)."""
    beyond_int64 = any(leaf[0] == "weak" and leaf[1] in ("int", "uint") and not -2**63 <= leaf[2] < 2**63
                       for leaf in c.leaves())
    # clip's own weak bounds past its operand's range are numpy's rule now (dropped), so only a weak
    # integer beyond int64 (an operation of two weak integers, which numpy does in Python) counts there.
    return (c.diff.kind == "kjarni_error" and "is out of bounds for" in c.kjarni_message
            and any(leaf[0] == "weak" for leaf in c.leaves()) and ("clip" not in c.functions() or beyond_int64))


def _weak_int_under_where(node):
    """Whether a `where` node of the expression has a weak integer among its two values."""
    if node is None or "f" not in node:
        return False
    if node["f"] == "where" and any("weak" in a and a["kind"] in ("int", "uint") for a in node["args"][1:]):
        return True
    return any(_weak_int_under_where(a) for a in node["args"])


@rule("logical-weak-int-beyond-int64")
def _(c):
    """numpy's logical_and / logical_or / logical_xor of a weak (Python) integer beyond int64 raise
    OverflowError ("Python int too large to convert to C long"), where add, equal and maximum take
    it; kjarni computes the truth value."""
    beyond_int64 = any(leaf[0] == "weak" and leaf[1] in ("int", "uint") and not -2**63 <= leaf[2] < 2**63
                       for leaf in c.leaves())
    return (c.diff.kind == "numpy_error" and "too large to convert to C long" in c.numpy_message and beyond_int64
            and bool(c.functions() & {"logical_and", "logical_or", "logical_xor"}))


@rule("where-weak-int-numpy-2.4")
def _(c):
    """numpy before 2.5 wraps np.where's weak integer into the result dtype; kjarni raises, as numpy
    2.5 does (and as the ufuncs always have)."""
    major, minor = (int(x) for x in np.__version__.split(".")[:2])
    return ((major, minor) < (2, 5) and c.diff.kind == "kjarni_error" and "is out of bounds for" in c.kjarni_message
            and c.diff.numpy_error is None and _weak_int_under_where(c.op.get("expr")))


@rule("float16-running-sum-range")
def _(c):
    """numpy's float16 scan saturates at its first overflow (each partial rounded to float16);
    kjarni's running value is float32: an output where numpy is infinite although the running value
    (computed exactly enough, in float64) rounds to a finite float16, below 65520 in magnitude
    (65504 and half of its ulp of 32: -65515.7 rounds to -65504)."""
    op = c.op
    if c.diff.kind != "values" or op["op"] != "scan":
        return False
    src = np.asarray(c.values[op["src"]].data)
    target = np.dtype(op["dtype"]) if op.get("dtype") else np.result_type(src, np.float16)
    if target != np.float16 or src.dtype.kind == "c":
        return False
    x = src.astype(np.float16).astype(np.float64)
    axis = op["axis"]
    if axis is None:
        x, axis = x.reshape(-1), 0
    fn = np.cumsum if op["fn"] == "cumsum" else np.cumprod
    with np.errstate(all="ignore"):
        numpy_result = fn(x.astype(np.float16), axis=axis)
        running = fn(x, axis=axis)
    rounds_finite = float(np.finfo(np.float16).max) + 16  # values from here on round to infinity
    return bool((np.isinf(numpy_result) & (np.abs(running) < rounds_finite)).any())




@rule("float16-sum-partials")
def _(c):
    """numpy's float16 sum along an axis outside its iterator's inner loop rounds each partial to
    float16; kjarni accumulates in float32. Every differing element: kjarni's value the correctly
    rounded sum (within float16's rounding and float32's summation error of the exact one), at least
    as close to it as numpy's, and numpy's within float16's sequential rounding bound of it, or
    infinite where its float16 partials could pass float16's largest (the sum of magnitudes does):
    numpy's sum or mean with dtype=float16 of a wider array overflows so ([0, 32767, 32767, -3, 4]
    int16: inf), kjarni's float32 accumulator does not (1.31e4)."""
    op = c.op
    kj, ref = c.diff.data.get("kjarni"), c.diff.data.get("numpy")
    if c.diff.kind != "values" or op["op"] not in ("reduce", "fused_reduce") or op["fn"] not in ("sum", "mean") or kj is None:
        return False
    if ref.dtype != np.float16 or kj.dtype != np.float16:
        return False
    x = _reduced_value(c)
    if x.dtype.kind == "c":
        return False
    axes = None if op["axes"] is None else tuple(op["axes"])
    wide = x.astype(np.float64)
    n = wide.size if axes is None else int(np.prod([x.shape[a] for a in axes]))
    with np.errstate(all="ignore"):
        exact = np.sum(wide, axis=axes, keepdims=op["keepdims"])
        scale = np.sum(np.abs(wide), axis=axes, keepdims=op["keepdims"])
        if op["fn"] == "mean":
            exact, scale = exact / max(n, 1), scale / max(n, 1)
        kj64, ref64 = kj.astype(np.float64), ref.astype(np.float64)
        differs = (kj64 != ref64) & ~(np.isnan(kj64) & np.isnan(ref64))
        if not differs.any() or not np.isfinite(scale[differs]).all():
            return False
        eps16, eps32 = float(dtypes.eps(np.float16)), float(dtypes.eps(np.float32))
        tiny = float(np.finfo(np.float16).smallest_subnormal)
        kj_gap = np.abs(kj64 - exact)
        ref_gap = np.abs(ref64 - exact)
        kjarni_rounded = kj_gap <= eps16 * np.abs(exact) + bounds.summation_ulps(n) * eps32 * scale + tiny
        numpy_sequential = ref_gap <= n * eps16 * scale + tiny
        # (scale is a mean's for mean: its partial sums reach n times it)
        partial_reach = scale * (max(n, 1) if op["fn"] == "mean" else 1)
        numpy_overflowed = np.isinf(ref64) & (partial_reach > float(np.finfo(np.float16).max))
        return bool((kjarni_rounded & (numpy_sequential | numpy_overflowed) & (kj_gap <= ref_gap))[differs].all())


def _rows_along(x, axes):
    """x as rows along the one reduced axis (or flattened: one row)."""
    if axes is None:
        return x.reshape(1, -1)
    moved = np.moveaxis(x, axes[0], -1)
    return moved.reshape(-1, moved.shape[-1])


@rule("nanargmin-nan-as-infinity")
def _(c):
    """numpy's nanargmin (nanargmax) answers with a NaN's index where the smallest (largest) other
    value is +inf (-inf): every differing element is numpy's index of a NaN, and kjarni's is the
    first occurrence of the extreme among the values other than NaN."""
    op = c.op
    kj, ref = c.diff.data.get("kjarni"), c.diff.data.get("numpy")
    if c.diff.kind != "values" or op["op"] != "nanreduce" or op["fn"] not in ("nanargmin", "nanargmax") or kj is None:
        return False
    x = np.asarray(c.values[op["src"]].data)
    if x.dtype.kind not in "fc":
        return False
    rows = _rows_along(x, op["axes"])
    kj, ref = np.asarray(kj).reshape(-1), np.asarray(ref).reshape(-1)
    pick = np.argmin if op["fn"] == "nanargmin" else np.argmax
    for k in np.flatnonzero(kj != ref):
        row = rows[k]
        nan = np.isnan(row.real) | np.isnan(row.imag) if row.dtype.kind == "c" else np.isnan(row)
        kept = np.flatnonzero(~nan)
        if not nan[ref[k]] or not kept.size or kj[k] != kept[pick(row[kept])]:
            return False
        extreme = row[kj[k]].real
        if extreme != (np.inf if op["fn"] == "nanargmin" else -np.inf):
            return False
    return True
