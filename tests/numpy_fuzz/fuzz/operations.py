"""The operations of a fuzzer program, one entry each: how the generator makes one (`generate`),
what numpy does with it (`evaluate`, on the oracle's Tracked values, returning the names it made or
wrote, as the C++ runner's handler of the same name does: runner/interpreter.cpp), and how it reads
as numpy code (`render`). Adding an operation is one entry here and one handler there."""

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from . import bounds, dtypes
from .bounds import INF, magnitude
from .oracle import Tracked, err_like, evaluate_tree, complex_value
from .expressions import astype_bound
from . import render as rnd
from . import fusion, ordering, selection, statistics


@dataclass
class Operation:
    name: str
    weight: float
    generate: Callable  # (gen) -> op dict, or None when it found nothing to work on
    evaluate: Callable  # (values, op) -> [names made or written]
    render: Callable    # (op) -> a line of numpy code


def _index_tuple(index):
    out = []
    for e in index:
        if isinstance(e, int):
            out.append(e)
        elif e == "newaxis":
            out.append(np.newaxis)
        elif e == "...":
            out.append(Ellipsis)
        else:
            out.append(slice(e[0], e[1], e[2]))
    # A trailing ... keeps a 0-d result a view (numpy gives a scalar for integers alone; kjarni a view).
    if Ellipsis not in out:
        out.append(Ellipsis)
    return tuple(out)


def _new(values, name, data, err):
    data = np.asarray(data)
    values[name] = Tracked(data, err_like(data, err))
    return [name]


# ---- views -------------------------------------------------------------------------------------

def _gen_view(gen):
    src = gen.pick()
    if src is None:
        return None
    shape = gen.shape_of(src)
    index = []
    for n in shape:
        r = gen.rng.random()
        if r < 0.2 and n > 0:
            index.append(int(gen.rng.integers(-n, n)))
        elif r < 0.85:
            step = int(gen.rng.choice([1, 1, 2, 3, -1, -2]))
            start = None if gen.rng.random() < 0.5 else int(gen.rng.integers(-n - 1, n + 2))
            stop = None if gen.rng.random() < 0.5 else int(gen.rng.integers(-n - 1, n + 2))
            index.append([start, stop, step])
        else:
            index.append([None, None, 1])
        if gen.rng.random() < 0.1:
            index.append("newaxis")
    if index and gen.rng.random() < 0.2:
        index[int(gen.rng.integers(len(index)))] = "..."
    if gen.rng.random() < 0.03 and shape:  # an index out of range: both must refuse
        index[0] = int(shape[0]) + 1
    while index and index[-1] == [None, None, 1] and gen.rng.random() < 0.5:
        index.pop()
    return {"op": "view", "out": gen.name("v"), "src": src, "index": index}


def _eval_view(values, op):
    t = values[op["src"]]
    idx = _index_tuple(op["index"])
    return _set(values, op["out"], Tracked(t.data[idx], t.err[idx]))


def _set(values, name, tracked):
    values[name] = tracked
    return [name]


def _gen_transpose(gen):
    src = gen.pick(lambda s, d: len(s) >= 2)
    if src is None:
        return None
    nd = len(gen.shape_of(src))
    axes = None if gen.rng.random() < 0.3 else [int(a) for a in gen.rng.permutation(nd)]
    return {"op": "transpose", "out": gen.name("t"), "src": src, "axes": axes}


def _eval_transpose(values, op):
    t = values[op["src"]]
    return _set(values, op["out"], Tracked(np.transpose(t.data, op["axes"]), np.transpose(t.err, op["axes"])))


def _gen_reshape(gen):
    src = gen.pick()
    if src is None:
        return None
    size = int(np.prod(gen.shape_of(src), dtype=np.int64))
    shape = []
    rest = size
    for _ in range(int(gen.rng.integers(0, 4))):
        divisors = [d for d in range(1, max(rest, 1) + 1) if rest % d == 0] if rest else [0, 1, 2]
        d = int(gen.rng.choice(divisors))
        shape.append(d)
        rest = rest // d if d else rest
    shape.append(rest if size else 0)
    if size and gen.rng.random() < 0.3:
        shape[int(gen.rng.integers(len(shape)))] = -1
    if gen.rng.random() < 0.03:
        shape[-1] += 1  # sizes that differ: both must refuse
    return {"op": "reshape", "out": gen.name("r"), "src": src, "shape": shape,
            "order": str(gen.rng.choice(["C", "C", "F"])),
            "copy": str(gen.rng.choice(["if_needed", "if_needed", "always", "never"]))}


def _eval_reshape(values, op):
    t = values[op["src"]]
    copy = {"if_needed": None, "always": True, "never": False}[op["copy"]]
    data = np.reshape(t.data, op["shape"], order=op["order"], copy=copy)
    err = np.reshape(t.err, op["shape"], order=op["order"], copy=copy)
    return _set(values, op["out"], Tracked(data, err))


# ---- expressions -------------------------------------------------------------------------------

def _gen_expr(gen):
    shape = gen.target_shape()
    tree = gen.tree(shape)
    return {"op": "expr", "out": gen.name("e"), "expr": tree}


def _eval_expr(values, op):
    r, err = evaluate_tree(op["expr"], values)
    data = np.array(r, copy=True)  # a new array, even of a bare array leaf
    return _new(values, op["out"], data, np.broadcast_to(err, data.shape))


def _convert_into(dst, r, err):
    """The bound of `r` (with `err`) once converted to dst's dtype."""
    if np.asarray(r).dtype == dst.data.dtype:
        return err
    converted = np.asarray(r).astype(dst.data.dtype)
    return bounds.finish(converted, astype_bound(r, err, converted, dst.data.dtype), [err])


def _gen_assign(gen):
    dst = gen.pick()
    if dst is None:
        return None
    shape = gen.shape_of(dst)
    if gen.rng.random() < 0.05:
        shape = shape[1:]  # broadcast into out: numpy's out= allows it
    return {"op": "assign", "dst": dst, "expr": gen.tree(shape, prefer=dst)}


def _eval_assign(values, op):
    dst = values[op["dst"]]
    r, err = evaluate_tree(op["expr"], values)
    # kjarni::assign is numpy's ufunc with out=: same_kind casting, the value computed first (as
    # numpy copies inputs that overlap the output), and the value's shape broadcast to out's (not
    # copyto's looser rule, which also drops leading axes of extent 1).
    if np.broadcast_shapes(np.shape(r), dst.data.shape) != dst.data.shape:
        raise ValueError(f"non-broadcastable output operand with shape {dst.data.shape} doesn't match "
                         f"the broadcast shape {np.shape(r)}")
    with np.errstate(all="ignore"):
        np.copyto(dst.data, r, casting="same_kind")
    dst.err[...] = _convert_into(dst, r, err)
    return [op["dst"]]


def _gen_fill(gen):
    dst = gen.pick()
    if dst is None:
        return None
    return {"op": "fill", "dst": dst, "expr": gen.scalar()}


def _eval_fill(values, op):
    dst = values[op["dst"]]
    r, err = evaluate_tree(op["expr"], values)
    with np.errstate(all="ignore"):
        dst.data[...] = r
    dst.err[...] = _convert_into(dst, r, err)
    return [op["dst"]]


def _gen_set(gen):
    dst = gen.pick()
    if dst is None:
        return None
    shape, dtype = gen.shape_of(dst), gen.dtype_of(dst)
    src = None
    if gen.rng.random() < 0.5:
        src = gen.overlapping_view(dst)
    if src is None:
        src = gen.pick(lambda s, d: s == shape and d == dtype and gen.rng.random() < 0.5)
    if src is None:
        src = gen.new_input(dtype if gen.rng.random() < 0.97 else gen.dtype(), shape)
    return {"op": "set", "dst": dst, "src": src}


def _eval_set(values, op):
    dst, src = values[op["dst"]], values[op["src"]]
    # kjarni's Array::set copies, never converts nor broadcasts (assign does): numpy's equivalent is
    # copyto with casting="no" (its TypeError) and equal shapes (a ValueError).
    if src.data.dtype != dst.data.dtype:
        raise TypeError("set: the dtypes differ")
    if src.data.shape != dst.data.shape:
        raise ValueError("set: the shapes differ")
    data, err = src.data.copy(), src.err.copy()  # numpy's a[...] = b copies overlapping b first
    dst.data[...] = data
    dst.err[...] = err
    return [op["dst"]]


# ---- conversions and copies --------------------------------------------------------------------

def _gen_astype(gen):
    src = gen.pick()
    if src is None:
        return None
    return {"op": "astype", "out": gen.name("c"), "src": src, "dtype": gen.dtype(),
            "order": str(gen.rng.choice(["C", "F"]))}


def _eval_astype(values, op):
    t = values[op["src"]]
    with np.errstate(all="ignore"):
        data = t.data.astype(op["dtype"], order=op["order"])
    err = bounds.finish(data, astype_bound(t.data, t.err, data, data.dtype), [t.err])
    values[op["out"]] = Tracked(data, err_like(data, err))
    return [op["out"]]


def _gen_copy(gen):
    src = gen.pick()
    if src is None:
        return None
    return {"op": "copy", "out": gen.name("c"), "src": src, "order": str(gen.rng.choice(["C", "F"]))}


def _eval_copy(values, op):
    t = values[op["src"]]
    data = t.data.copy(order=op["order"])
    values[op["out"]] = Tracked(data, err_like(data, t.err))
    return [op["out"]]


# ---- reductions and scans ----------------------------------------------------------------------

REDUCTIONS = ["sum", "prod", "min", "max", "argmin", "argmax", "any", "all", "mean"]


def _gen_reduce(gen):
    src = gen.pick()
    if src is None:
        return None
    shape = gen.shape_of(src)
    fn = str(gen.rng.choice(REDUCTIONS))
    nd = len(shape)
    if fn in ("argmin", "argmax"):
        axes = None if nd == 0 or gen.rng.random() < 0.3 else [int(gen.rng.integers(-nd, nd))]
    elif gen.rng.random() < 0.25:
        axes = None
    else:
        k = int(gen.rng.integers(0, nd + 1))
        axes = [int(a) - (nd if gen.rng.random() < 0.3 else 0) for a in gen.rng.permutation(nd)[:k]]
    op = {"op": "reduce", "out": gen.name("s"), "fn": fn, "src": src, "axes": axes,
          "keepdims": bool(gen.rng.random() < 0.3), "dtype": None, "out_arg": None}
    if fn in ("sum", "prod", "mean") and gen.rng.random() < 0.25:
        op["dtype"] = gen.dtype("iufc")
    if gen.rng.random() < 0.15:
        op["out_arg"] = gen.output_for(op)
    return op


def _reduced(x, axes, keepdims, f):
    return f(x, axis=None if axes is None else tuple(axes), keepdims=keepdims)


def _axes_of(op, ndim):
    if op["axes"] is None:
        return tuple(range(ndim))
    return tuple(a % ndim if ndim else a for a in op["axes"])


def _reduce_bound(op, x, err, r):
    """The bound of a reduction's result (see bounds.py and summation_ulps)."""
    fn, axes, keep = op["fn"], op["axes"], op["keepdims"]
    with np.errstate(all="ignore"):
        e_any = _reduced(np.asarray(err) > 0, axes, keep, np.any)
        n = int(np.prod([x.shape[a] for a in _axes_of(op, x.ndim)], dtype=np.int64)) if x.ndim else 1
        if fn in ("argmin", "argmax", "any", "all"):
            if fn in ("any", "all"):
                doubt = _reduced((np.asarray(err) > 0) & (magnitude(x) <= err), axes, keep, np.any)
                return np.where(doubt, INF, 0.0)
            return np.where(e_any, INF, 0.0)
        if fn in ("min", "max"):
            # (err broadcast to x's shape: err + 0 * |x| was NaN for an infinite x, which lost an
            # undecided input's inf, so that a dot's NaN-or-infinity went on as certain)
            return _reduced(np.broadcast_to(np.asarray(err, dtype=np.float64), np.shape(x)), axes, keep, np.max)
        if not dtypes.is_inexact(r.dtype):
            return np.where(e_any, INF, 0.0)
        acc = np.result_type(r.dtype, np.float32) if r.dtype == np.float16 else r.dtype
        xm = magnitude(x.astype(r.dtype) if dtypes.kind(x.dtype) != "c" or dtypes.kind(r.dtype) == "c" else x.real.astype(r.dtype))
        em = _reduced(np.broadcast_to(err, x.shape), axes, keep, np.sum)
        if fn in ("sum", "mean"):
            s = _reduced(xm, axes, keep, np.sum)
            out = em + bounds.summation_ulps(n) * dtypes.eps(acc) * s
            # Partial sums past the largest number: one order overflows where another need not.
            out = np.where(np.isfinite(magnitude(r)) & (s > dtypes.largest(acc)), INF, out)
            if fn == "mean":
                out = out / max(n, 1)
            return out + bounds.rounding(r, r.dtype, "divide" if fn == "mean" else "basic")
        # prod: relative errors add; partial products may overflow or underflow in one order only.
        rel = _reduced(np.where(err > 0, np.asarray(err) / xm, 0.0), axes, keep, np.sum)
        lg = np.log2(np.where(xm > 0, xm, 1.0))
        up = _reduced(np.where(lg > 0, lg, 0.0), axes, keep, np.sum)
        down = _reduced(np.where(lg < 0, lg, 0.0), axes, keep, np.sum)
        info = np.finfo(dtypes.real_of(acc))
        risky = (up > info.maxexp - 2) | (down < info.minexp + 2)
        out = bounds.mul(magnitude(r), rel + n * dtypes.eps(acc)) + bounds.rounding(r, r.dtype, "basic")
        return np.where(risky, INF, out)


def _eval_reduce(values, op):
    t = values[op["src"]]
    fn = op["fn"]
    kwargs = {"keepdims": op["keepdims"]}
    axes = op["axes"]
    if fn in ("argmin", "argmax"):
        kwargs["axis"] = None if axes is None else (axes[0] if len(axes) == 1 else tuple(axes))
    else:
        kwargs["axis"] = None if axes is None else tuple(axes)
    if op["dtype"] is not None:
        kwargs["dtype"] = op["dtype"]
    out = values[op["out_arg"]] if op["out_arg"] else None
    if out is not None:
        kwargs["out"] = out.data
    with np.errstate(all="ignore"):
        r = np.asarray(getattr(np, fn)(t.data, **kwargs))
    src_data = t.data
    if op["dtype"] is not None and dtypes.kind(op["dtype"]) != dtypes.kind(t.data.dtype):
        src_data = t.data.astype(op["dtype"]) if not (dtypes.kind(t.data.dtype) == "c" and dtypes.kind(op["dtype"]) != "c") else t.data
    err = bounds.finish(r, _reduce_bound(op, src_data, t.err, r), [])
    if out is not None:
        out.err[...] = err
        values[op["out"]] = out
        return [op["out"]]
    values[op["out"]] = Tracked(r, err_like(r, err))
    return [op["out"]]


def _gen_dot(gen):
    n = int(gen.rng.choice([0, 1, 2, 5, 9]))
    dt = gen.dtype("fc" if gen.rng.random() < 0.8 else "biu")
    a = gen.vector(n, dt)
    b = gen.vector(n, dt if gen.rng.random() < 0.9 else gen.dtype())
    return {"op": "dot", "out": gen.name("d"), "a": a, "b": b, "out_arg": None}


def _eval_dot(values, op):
    a, b = values[op["a"]], values[op["b"]]
    with np.errstate(all="ignore"):
        r = np.asarray(np.dot(a.data, b.data))
        s = np.sum(magnitude(a.data) * magnitude(b.data))
        e = np.sum(bounds.mul(magnitude(a.data), b.err) + bounds.mul(magnitude(b.data), a.err))
    if dtypes.is_inexact(r.dtype):
        err = e + (bounds.summation_ulps(a.data.size) + 1) * dtypes.eps(r.dtype) * s + bounds.rounding(r, r.dtype, "basic")
        # Products or partial sums past the largest number: whether they overflow depends on the order.
        err = np.where(~np.isfinite(s) | (s >= dtypes.largest(r.dtype) / 2), INF, err)
    else:
        err = np.where(e > 0, INF, 0.0)
    undecided = np.isinf(a.err).any() or np.isinf(b.err).any()
    return _new(values, op["out"], r, bounds.finish(r, err, [INF if undecided else 0.0]))


def _gen_scan(gen):
    src = gen.pick()
    if src is None:
        return None
    nd = len(gen.shape_of(src))
    axis = None if nd == 0 or gen.rng.random() < 0.3 else int(gen.rng.integers(-nd, nd))
    op = {"op": "scan", "out": gen.name("q"), "fn": str(gen.rng.choice(["cumsum", "cumprod"])), "src": src,
          "axis": axis, "dtype": None, "out_arg": None}
    if gen.rng.random() < 0.2:
        op["dtype"] = gen.dtype("iufc")
    if gen.rng.random() < 0.1:
        op["out_arg"] = gen.output_for(op)
    return op


def _scan_bound(op, x, err, r):
    axis = op["axis"]
    if axis is None:
        x, err = x.reshape(-1), np.broadcast_to(err, x.shape).reshape(-1)
        axis = 0
    err = np.broadcast_to(err, x.shape)
    # An undecided input leaves every later position of its row undecided. (Carried through the
    # sums below, its inf would meet a NaN input's NaN magnitude and give NaN, which finish() takes
    # for a certain NaN: sqrt(cos(cosh(-79.86))) is NaN in numpy and 0.53 on another side, both
    # right, and the cumsum after it was compared with a bound of 0.)
    undecided = np.cumsum(np.isinf(err), axis=axis) > 0
    with np.errstate(all="ignore"):
        if not dtypes.is_inexact(r.dtype):
            return np.where(np.cumsum(err > 0, axis=axis) > 0, INF, 0.0)
        # numpy accumulates a float16 scan in float16 (a rounding per step); kjarni in float32.
        acc = r.dtype
        n = x.shape[axis]
        shape = [1] * x.ndim
        shape[axis] = n
        j = np.arange(n).reshape(shape)
        lg = math.ceil(math.log2(n)) if n > 1 else 0
        xm = magnitude(x)
        if op["fn"] == "cumsum":
            s = np.cumsum(xm, axis=axis)
            out = np.cumsum(err, axis=axis) + (j + 8 + lg) * dtypes.eps(acc) * s
            out = np.where(np.isfinite(magnitude(r)) & (s > dtypes.largest(acc)), INF, out)
            return np.where(undecided, INF, out + bounds.rounding(r, r.dtype, "basic"))
        rel = np.cumsum(np.where(err > 0, err / xm, 0.0), axis=axis)
        l2 = np.log2(np.where(xm > 0, xm, 1.0))
        info = np.finfo(dtypes.real_of(acc))
        risky = (np.cumsum(np.maximum(l2, 0), axis=axis) > info.maxexp - 2) | (np.cumsum(np.minimum(l2, 0), axis=axis) < info.minexp + 2)
        out = bounds.mul(magnitude(r), rel + (j + 8 + lg) * dtypes.eps(acc)) + bounds.rounding(r, r.dtype, "basic")
        return np.where(risky | undecided, INF, out)


def _eval_scan(values, op):
    t = values[op["src"]]
    kwargs = {"axis": op["axis"]}
    if op["dtype"] is not None:
        kwargs["dtype"] = op["dtype"]
    out = values[op["out_arg"]] if op["out_arg"] else None
    if out is not None:
        kwargs["out"] = out.data
    with np.errstate(all="ignore"):
        r = np.asarray(getattr(np, op["fn"])(t.data, **kwargs))
        x = t.data
        if dtypes.kind(r.dtype) != dtypes.kind(x.dtype) and not (dtypes.kind(x.dtype) == "c"):
            x = x.astype(r.dtype)
    err = bounds.finish(r, _scan_bound(op, x, t.err, r), [])
    if out is not None:
        out.err[...] = err
        values[op["out"]] = out
        return [op["out"]]
    values[op["out"]] = Tracked(r, err_like(r, err))
    return [op["out"]]


# ---- joining, splitting, gathering -------------------------------------------------------------

def _gen_join(kind):
    def gen_join(gen):
        src = gen.pick(lambda s, d: len(s) >= (1 if kind == "concatenate" else 0))
        if src is None:
            return None
        shape, dtype = list(gen.shape_of(src)), gen.dtype_of(src)
        nd = len(shape)
        axis = int(gen.rng.integers(-nd, nd)) if kind == "concatenate" else int(gen.rng.integers(-nd - 1, nd + 1))
        srcs = [src]
        for _ in range(int(gen.rng.integers(0, 3))):
            s = list(shape)
            if kind == "concatenate":
                s[axis] = int(gen.rng.choice([0, 1, 2, 3]))
            other = gen.pick(lambda ss, d: list(ss) == s and d == dtype and gen.rng.random() < 0.5)
            srcs.append(other or gen.new_input(dtype if gen.rng.random() < 0.95 else gen.dtype(), tuple(s)))
        return {"op": kind, "out": gen.name("j"), "srcs": srcs, "axis": axis}
    return gen_join


def _eval_join(kind):
    def evaluate(values, op):
        ts = [values[s] for s in op["srcs"]]
        f = getattr(np, kind)
        if len({t.data.dtype for t in ts}) > 1:
            # kjarni joins one dtype only (kjarni/array_operations.hpp): numpy would promote.
            raise TypeError(f"{kind}: the inputs' dtypes differ")
        data = f([t.data for t in ts], axis=op["axis"])
        err = f([t.err for t in ts], axis=op["axis"])
        values[op["out"]] = Tracked(data, err)
        return [op["out"]]
    return evaluate


def _gen_split(gen):
    src = gen.pick(lambda s, d: len(s) >= 1)
    if src is None:
        return None
    shape = gen.shape_of(src)
    nd = len(shape)
    axis = int(gen.rng.integers(-nd, nd))
    n = shape[axis]
    fn = str(gen.rng.choice(["split", "array_split"]))
    op = {"op": "split", "fn": fn, "src": src, "axis": axis}
    if gen.rng.random() < 0.5:
        divisors = [d for d in range(1, n + 1) if n % d == 0] or [1]
        sections = int(gen.rng.choice(divisors)) if fn == "split" and gen.rng.random() < 0.9 else int(gen.rng.integers(1, 5))
        op["sections"] = sections
        parts = sections
    else:
        indices = sorted(int(i) for i in gen.rng.integers(-n - 1, n + 2, size=int(gen.rng.integers(0, 4))))
        op["indices"] = indices
        parts = len(indices) + 1
    op["outs"] = [gen.name("p") for _ in range(parts)]
    return op


def _eval_split(values, op):
    t = values[op["src"]]
    f = getattr(np, op["fn"])
    at = op["sections"] if "sections" in op else op["indices"]
    datas = f(t.data, at, axis=op["axis"])
    errs = f(t.err, at, axis=op["axis"])
    for name, d, e in zip(op["outs"], datas, errs):
        values[name] = Tracked(d, e)
    return list(op["outs"])


def _gen_take(gen):
    src = gen.pick()
    if src is None:
        return None
    shape = gen.shape_of(src)
    nd = len(shape)
    axis = None if nd == 0 or gen.rng.random() < 0.3 else int(gen.rng.integers(-nd, nd))
    n = int(np.prod(shape)) if axis is None else shape[axis]
    mode = str(gen.rng.choice(["raise", "raise", "wrap", "clip"]))
    if mode == "wrap" and n == 0:
        # numpy 2.4.6's take never returns in mode "wrap" from an empty axis whose result is empty
        # but whose outer axes are not (np.take(np.zeros((2, 0, 0)), [-1], axis=1, mode="wrap")
        # loops forever): no oracle there. "clip" draws nothing more from rng.
        mode = "clip"
    ishape = gen.shape(max_ndim=2)
    lo, hi = (-n, n - 1) if mode == "raise" and gen.rng.random() < 0.95 else (-2 * n - 2, 2 * n + 2)
    idx_dtype = str(gen.rng.choice(["int64", "int32", "int16", "uint8", "int8"]))
    info = np.iinfo(idx_dtype)
    data = gen.rng.integers(max(lo, info.min), max(min(hi, info.max), max(lo, info.min)) + 1, size=ishape).astype(idx_dtype)
    indices = gen.input_from(data)
    return {"op": "take", "out": gen.name("k"), "src": src, "indices": indices, "axis": axis, "mode": mode}


def _eval_take(values, op):
    t, idx = values[op["src"]], values[op["indices"]]
    data = np.take(t.data, idx.data, axis=op["axis"], mode=op["mode"])
    err = np.take(t.err, idx.data, axis=op["axis"], mode=op["mode"])
    values[op["out"]] = Tracked(np.array(data, order="C"), np.array(err, order="C"))
    return [op["out"]]


def _gen_stack_along(gen):
    src = gen.pick()
    if src is None:
        return None
    shape, dtype = gen.shape_of(src), gen.dtype_of(src)
    fn = str(gen.rng.choice(["hstack", "vstack", "dstack"]))
    srcs = [src]
    for _ in range(int(gen.rng.integers(0, 3))):
        s = list(shape)
        axis = {"hstack": 1 if len(s) > 1 else 0, "vstack": 0, "dstack": 2}[fn]
        if axis < len(s) and gen.rng.random() < 0.5:
            s[axis] = int(gen.rng.choice([0, 1, 2]))
        srcs.append(gen.new_input(dtype, tuple(s)))
    return {"op": "stack_along", "fn": fn, "out": gen.name("j"), "srcs": srcs}


def _eval_stack_along(values, op):
    ts = [values[s] for s in op["srcs"]]
    f = getattr(np, op["fn"])
    values[op["out"]] = Tracked(f([t.data for t in ts]), f([t.err for t in ts]))
    return [op["out"]]


def _gen_atleast(gen):
    src = gen.pick()
    if src is None:
        return None
    return {"op": "atleast", "out": gen.name("v"), "src": src, "ndim": int(gen.rng.integers(1, 4))}


def _eval_atleast(values, op):
    t = values[op["src"]]
    f = getattr(np, f"atleast_{op['ndim']}d")
    return _set(values, op["out"], Tracked(f(t.data), f(t.err)))


def _gen_ascontiguous(gen):
    src = gen.pick()
    if src is None:
        return None
    return {"op": "ascontiguous", "out": gen.name("c"), "src": src, "order": str(gen.rng.choice(["C", "F"])),
            "dtype": gen.dtype() if gen.rng.random() < 0.3 else None}


def _eval_ascontiguous(values, op):
    t = values[op["src"]]
    f = np.ascontiguousarray if op["order"] == "C" else np.asfortranarray
    with np.errstate(all="ignore"):
        data = f(t.data, dtype=op["dtype"])
    if data.dtype == t.data.dtype:
        # The array itself when it already is so (numpy's and kjarni's rule): a view, else a copy.
        # A 0-d array gives a 1-d view of itself (ndim >= 1): its bound the same view of the bound.
        err = t.err if np.shares_memory(data, t.data) and t.err.shape == data.shape else f(t.err)
        return _set(values, op["out"], Tracked(data, err))
    err = bounds.finish(data, astype_bound(t.data, t.err, data, data.dtype), [t.err])
    return _set(values, op["out"], Tracked(data, err_like(data, err)))


# ---- BLAS --------------------------------------------------------------------------------------

BLAS_OPS = ["none", "transpose", "adjoint"]


def _apply(m, which):
    if which == "transpose":
        return np.swapaxes(m, -1, -2)
    if which == "adjoint":
        return np.conj(np.swapaxes(m, -1, -2))
    return m


def _blas_scalar(gen, dt):
    v = [float(gen.rng.choice([1.0, -1.0, 0.5, 2.0, 0.0])), 0.0]
    if dtypes.kind(dt) == "c" and gen.rng.random() < 0.5:
        v[1] = float(gen.rng.choice([1.0, -0.5]))
    return v


def _gen_blas(kind):
    def generate(gen):
        dt = gen.dtype("fc") if kind in ("gemm", "gemm_batched") else str(gen.rng.choice(["float32", "float64", "complex64", "complex128"]))
        m, n, k = (int(gen.rng.choice([1, 2, 3, 5])) for _ in range(3))
        batch = int(gen.rng.choice([1, 2, 3]))
        op = {"op": kind, "out": gen.name("m"), "alpha": _blas_scalar(gen, dt), "beta": _blas_scalar(gen, dt)}
        if kind == "blas_dot":
            op.update(x=gen.vector(n, dt, moderate=True), y=gen.vector(n, dt, moderate=True),
                      conjugate_x=bool(gen.rng.random() < 0.5))
            del op["alpha"], op["beta"]
            return op
        if kind == "ger":
            op.update(x=gen.vector(m, dt, moderate=True), y=gen.vector(n, dt, moderate=True),
                      a=gen.matrix((m, n), dt) if gen.rng.random() < 0.5 else None)
            del op["beta"]
            return op
        op_a = str(gen.rng.choice(BLAS_OPS))
        a_shape = (m, k) if op_a == "none" else (k, m)
        if kind == "gemv":
            op.update(a=gen.matrix(a_shape, dt), x=gen.vector(k, dt, moderate=True),
                      y=gen.vector(m, dt, moderate=True) if gen.rng.random() < 0.5 else None, op_a=op_a)
            return op
        op_b = str(gen.rng.choice(BLAS_OPS))
        b_shape = (k, n) if op_b == "none" else (n, k)
        lead = (batch,) if kind == "gemm_batched" else ()
        op.update(a=gen.matrix(lead + a_shape, dt), b=gen.matrix(lead + b_shape, dt),
                  c=gen.matrix(lead + (m, n), dt) if gen.rng.random() < 0.5 else None, op_a=op_a, op_b=op_b)
        return op
    return generate


def _blas_result(values, op, name_c, product, product_scale, product_err):
    """out = alpha * product + beta * c (c, when given, written in place). The reference is computed in
    complex128 / float64; the bound is blas_test.cpp's: (|alpha| |A||B| + |beta| |C|) 2 eps (k + 3)."""
    alpha = complex_value(op["alpha"])
    beta = complex_value(op.get("beta", 0.0))
    c = values[op[name_c]] if op.get(name_c) else None
    dt = np.dtype(op["_dtype"])
    k = op["_k"]
    with np.errstate(all="ignore"):
        exact = alpha * product
        scale = abs(alpha) * product_scale
        err = abs(alpha) * product_err
        if c is not None and (beta != 0 or op["op"] == "ger"):
            cb = 1.0 if op["op"] == "ger" else beta
            exact = exact + cb * c.data.astype(np.complex128)
            scale = scale + abs(cb) * magnitude(c.data)
            err = err + abs(cb) * c.err
        r = np.asarray((exact if dt.kind == "c" else exact.real).astype(dt))  # a 0-d array for dot, not a scalar
        err = err + 2 * dtypes.eps(dt) * (k + 3) * scale + bounds.rounding(r, dt, "basic")
        # Products or partial sums past the largest number: whether they overflow depends on the order.
        err = np.where(scale * (1 + 4 * dtypes.eps(dt) * (k + 3)) >= dtypes.largest(dt), INF, err)
    err = bounds.finish(r, err, [] if c is None else [c.err])
    if c is not None:
        c.data[...] = r
        c.err[...] = err
        values[op["out"]] = c
    else:
        values[op["out"]] = Tracked(r, err_like(r, err))
    return [op["out"]]


def _eval_blas(kind):
    def evaluate(values, op):
        wide = np.complex128
        if kind == "blas_dot":
            x, y = values[op["x"]], values[op["y"]]
            xs = np.conj(x.data.astype(wide)) if op["conjugate_x"] else x.data.astype(wide)
            op = dict(op, alpha=1.0, beta=0.0, _dtype=str(x.data.dtype), _k=x.data.size)
            _check_same_dtype([x, y])
            prod = np.dot(xs, y.data.astype(wide))
            scale = np.sum(magnitude(x.data) * magnitude(y.data))
            perr = np.sum(bounds.mul(magnitude(x.data), y.err) + bounds.mul(magnitude(y.data), x.err))
            return _blas_result(values, op, "-", prod, scale, perr)
        if kind == "ger":
            x, y = values[op["x"]], values[op["y"]]
            _check_same_dtype([x, y] + ([values[op["a"]]] if op["a"] else []))
            if x.data.ndim != 1 or y.data.ndim != 1 or (op["a"] and values[op["a"]].data.shape != x.data.shape + y.data.shape):
                raise ValueError("BLAS ger: a must have the shape (len(x), len(y))")
            op = dict(op, _dtype=str(x.data.dtype), _k=1)
            prod = np.outer(x.data.astype(wide), y.data.astype(wide))
            scale = np.outer(magnitude(x.data), magnitude(y.data))
            perr = bounds.mul(magnitude(x.data)[:, None], y.err[None, :]) + bounds.mul(x.err[:, None], magnitude(y.data)[None, :])
            return _blas_result(values, op, "a", prod, scale, perr)
        a = values[op["a"]]
        other = values[op["x"]] if kind == "gemv" else values[op["b"]]
        out_name = "y" if kind == "gemv" else "c"
        _check_same_dtype([a, other] + ([values[op[out_name]]] if op.get(out_name) else []))
        _check_blas_shapes(kind, a.data.shape, op["op_a"], other.data.shape, op.get("op_b", "none"),
                           values[op[out_name]].data.shape if op.get(out_name) else None)
        am, ae = _apply(a.data.astype(wide), op["op_a"]), _apply(a.err, op["op_a"])
        bm = other.data.astype(wide) if kind == "gemv" else _apply(other.data.astype(wide), op["op_b"])
        be = other.err if kind == "gemv" else _apply(other.err, op["op_b"])
        k = am.shape[-1]
        op = dict(op, _dtype=str(a.data.dtype), _k=k)
        prod = am @ bm
        scale = np.abs(am) @ np.abs(bm)
        perr = np.abs(am) @ be + ae @ np.abs(bm)
        return _blas_result(values, op, out_name, prod, scale, perr)
    return evaluate


def _check_blas_shapes(kind, a_shape, op_a, b_shape, op_b, c_shape):
    """BLAS multiplies exactly the shapes it is given: no broadcasting of the batch, of c or y
    (numpy's @ and + would broadcast them, so the shrinker's shortened inputs must be refused here
    as kjarni refuses them)."""
    ndim = 3 if kind == "gemm_batched" else 2
    if len(a_shape) != ndim:
        raise ValueError(f"BLAS {kind}: a has {len(a_shape)} axes")
    rows, inner = (a_shape[-2], a_shape[-1]) if op_a == "none" else (a_shape[-1], a_shape[-2])
    if kind == "gemv":
        if len(b_shape) != 1 or b_shape[0] != inner:
            raise ValueError(f"BLAS gemv: x of shape {b_shape} against op(a) {rows} x {inner}")
        expected = (rows,)
    else:
        if len(b_shape) != ndim:
            raise ValueError(f"BLAS {kind}: b has {len(b_shape)} axes")
        b_inner, cols = (b_shape[-2], b_shape[-1]) if op_b == "none" else (b_shape[-1], b_shape[-2])
        if b_inner != inner or a_shape[:-2] != b_shape[:-2]:
            raise ValueError(f"BLAS {kind}: shapes {a_shape} and {b_shape} do not multiply")
        expected = tuple(a_shape[:-2]) + (rows, cols)
    if c_shape is not None and tuple(c_shape) != expected:
        raise ValueError(f"BLAS {kind}: c or y has shape {c_shape}, the product {expected}")


def _check_same_dtype(ts):
    if len({t.data.dtype for t in ts}) > 1:
        raise TypeError("BLAS: every array of a call must have the same dtype")


OPERATIONS = {o.name: o for o in [
    Operation("view", 1.5, _gen_view, _eval_view, rnd.view),
    Operation("transpose", 0.5, _gen_transpose, _eval_transpose, rnd.transpose),
    Operation("reshape", 0.6, _gen_reshape, _eval_reshape, rnd.reshape),
    Operation("expr", 4.0, _gen_expr, _eval_expr, rnd.expr),
    Operation("assign", 1.5, _gen_assign, _eval_assign, rnd.assign),
    Operation("fill", 0.3, _gen_fill, _eval_fill, rnd.fill),
    Operation("set", 1.0, _gen_set, _eval_set, rnd.set_),
    Operation("astype", 1.0, _gen_astype, _eval_astype, rnd.astype),
    Operation("copy", 0.3, _gen_copy, _eval_copy, rnd.copy),
    Operation("reduce", 2.5, _gen_reduce, _eval_reduce, rnd.reduce),
    Operation("dot", 0.3, _gen_dot, _eval_dot, rnd.dot),
    Operation("scan", 1.0, _gen_scan, _eval_scan, rnd.scan),
    Operation("concatenate", 0.5, _gen_join("concatenate"), _eval_join("concatenate"), rnd.join),
    Operation("stack", 0.4, _gen_join("stack"), _eval_join("stack"), rnd.join),
    Operation("stack_along", 0.3, _gen_stack_along, _eval_stack_along, rnd.stack_along),
    Operation("atleast", 0.2, _gen_atleast, _eval_atleast, rnd.atleast),
    Operation("ascontiguous", 0.3, _gen_ascontiguous, _eval_ascontiguous, rnd.ascontiguous),
    Operation("split", 0.5, _gen_split, _eval_split, rnd.split),
    Operation("take", 0.5, _gen_take, _eval_take, rnd.take),
    Operation("nanreduce", 0.6, statistics.gen_nanreduce, statistics.eval_nanreduce, rnd.nanreduce),
    Operation("moments", 0.6, statistics.gen_moments, statistics.eval_moments, rnd.moments),
    Operation("sort", 0.35, ordering.gen_sort("sort"), ordering.eval_sort, rnd.sort),
    Operation("argsort", 0.35, ordering.gen_sort("argsort"), ordering.eval_argsort, rnd.sort),
    Operation("unique", 0.3, ordering.gen_unique, ordering.eval_unique, rnd.unique),
    Operation("searchsorted", 0.3, ordering.gen_searchsorted, ordering.eval_searchsorted, rnd.searchsorted),
    Operation("nonzero", 0.2, ordering.gen_nonzero, ordering.eval_nonzero, rnd.nonzero),
    Operation("count_nonzero", 0.2, ordering.gen_count_nonzero, ordering.eval_count_nonzero, rnd.count_nonzero),
    Operation("fused_reduce", 1.5, fusion.gen_fused_reduce, fusion.eval_fused_reduce, rnd.fused_reduce),
    Operation("fused_dot", 0.3, fusion.gen_fused_dot, fusion.eval_fused_dot, rnd.fused_dot),
    # (expr and assign operations whose tree is a form the row kernel is for: fusion.py)
    Operation("fused_expr", 1.0, fusion.gen_fused_expr, _eval_expr, rnd.expr),
    Operation("boolean_index", 0.3, selection.gen_boolean_index, selection.eval_boolean_index, selection.render),
    Operation("boolean_index_assign", 0.3, selection.gen_boolean_index_assign, selection.eval_boolean_index_assign,
              selection.render),
    Operation("integer_index", 0.3, selection.gen_integer_index, selection.eval_integer_index, selection.render),
    Operation("integer_index_assign", 0.3, selection.gen_integer_index_assign, selection.eval_integer_index_assign,
              selection.render),
    Operation("argwhere", 0.2, selection.gen_argwhere, selection.eval_argwhere, selection.render),
    Operation("blas_dot", 0.15, _gen_blas("blas_dot"), _eval_blas("blas_dot"), rnd.blas),
    Operation("gemv", 0.15, _gen_blas("gemv"), _eval_blas("gemv"), rnd.blas),
    Operation("gemm", 0.25, _gen_blas("gemm"), _eval_blas("gemm"), rnd.blas),
    Operation("gemm_batched", 0.15, _gen_blas("gemm_batched"), _eval_blas("gemm_batched"), rnd.blas),
    Operation("ger", 0.15, _gen_blas("ger"), _eval_blas("ger"), rnd.blas),
]}
