"""numpy's side: runs a program with numpy, keeping beside every value a bound on how far kjarni's
may lie from it (bounds.py), and records what each operation produced, as the runner does."""

from dataclasses import dataclass

import numpy as np

from . import bounds, dtypes
from .expressions import FUNCTIONS, astype_bound


@dataclass
class Tracked:
    """An array and its error bound; views of one are views of the other (same indexing), so
    writes through views reach both. `shape_decided` is False for a result whose shape depends
    on values that are undecided (unique, nonzero of values within their bounds of each other or of
    zero): the two sides' shapes may then differ, and nothing of it is compared."""
    data: np.ndarray
    err: np.ndarray
    shape_decided: bool = True


def err_like(data, err=0.0):
    """A bound array laid out as `data` is (so that reshapes of both are views or copies alike)."""
    out = np.empty_like(np.asarray(data), dtype=np.float64)
    out[...] = err
    return out


def real_value(v):
    if isinstance(v, str):
        return {"nan": float("nan"), "inf": float("inf"), "-inf": float("-inf")}[v]
    return float(v)


def complex_value(v):
    if isinstance(v, list):
        return complex(real_value(v[0]), real_value(v[1]))
    return complex(real_value(v), 0.0)


def weak_value(node):
    """A C++ literal of kjarni's as Python's scalar of the same kind (numpy treats both as weak)."""
    kind, v = node["kind"], node["weak"]
    if kind == "bool":
        return bool(v)
    if kind in ("int", "uint"):
        return int(v)
    if kind == "float":
        return real_value(v)
    return complex_value(v)


def typed_value(node):
    dt = np.dtype(node["dtype"])
    v = node["scalar"]
    if dt.kind == "c":
        return dt.type(complex_value(v))
    if dt.kind == "f":
        return dt.type(real_value(v))
    return dt.type(int(v))


def _wide(x):
    a = np.asarray(x)
    if a.dtype.kind == "c":
        return a.astype(np.clongdouble)
    if a.dtype.kind == "f":
        return a.astype(np.longdouble)
    return a


def evaluate_tree(node, values):
    """(numpy's value, its bound) of an expression tree; weak scalars stay Python scalars."""
    if "array" in node:
        t = values[node["array"]]
        return t.data, t.err
    if "weak" in node:
        return weak_value(node), 0.0
    if "scalar" in node:
        return typed_value(node), 0.0
    args = [evaluate_tree(a, values) for a in node["args"]]
    vals = [a[0] for a in args]
    errs = [a[1] for a in args]
    f = node["f"]
    with np.errstate(all="ignore"):
        if f == "reduce":  # a lazy reduction (fusion.py)
            from .fusion import reduce_node
            r, err = reduce_node(node, vals[0], errs[0])
            return r, bounds.finish(r, err, [])
        if f == "astype":
            r = np.asarray(vals[0]).astype(node["dtype"])
            return r, bounds.finish(r, astype_bound(vals[0], errs[0], r, r.dtype), errs)
        fn = FUNCTIONS[f]
        r = np.asarray(fn.numpy(*vals))
        err = fn.bound(vals, errs, r, r.dtype)
        if dtypes.is_inexact(r.dtype) and f not in ("where", "clip", "minimum", "maximum"):
            # A result numpy rounded to inf that lies near the largest number: the other side may
            # have stayed finite.
            inf_now = np.isinf(r)
            if inf_now.any():
                try:
                    wide = np.asarray(fn.numpy(*[_wide(v) for v in vals]))
                    err = np.where(inf_now & bounds.near_overflow(wide, r.dtype), bounds.INF, err)
                except (TypeError, ValueError, OverflowError):
                    pass
        return r, bounds.finish(r, err, errs)


def _copy(t):
    return Tracked(np.array(t.data, copy=True), np.array(t.err, copy=True), t.shape_decided)


def _principal_class(error):
    """The class of numpy's exception that code catches by name, most specific first (its
    UFuncTypeError subclasses are the TypeError they are; AxisError both a ValueError and an
    IndexError): compare.py's REFUSALS_OF says which kjarni refusals answer it."""
    for cls in (np.exceptions.AxisError, ZeroDivisionError, OverflowError, IndexError, TypeError):
        if isinstance(error, cls):
            return cls.__name__
    return type(error).__name__


def run_program(program, data, stop_before=None):
    """numpy's run of a program, as the runner reports kjarni's: the snapshot of every array each
    operation made or wrote (copies, taken right after it), the first error (the program stops
    there) and every array at the end. With `stop_before`, the values just before that operation."""
    from .operations import OPERATIONS
    values = {}
    for inp in program["inputs"]:
        d = np.array(data[inp["name"]], copy=True)
        values[inp["name"]] = Tracked(d, err_like(d))
    result = {"snapshots": [], "error": None}
    for k, op in enumerate(program["ops"]):
        if stop_before is not None and k == stop_before:
            return values
        try:
            with np.errstate(all="ignore"):
                names = OPERATIONS[op["op"]].evaluate(values, op)
        except Exception as e:  # numpy refused (any exception: kjarni must refuse too)
            result["error"] = {"op": k, "type": _principal_class(e), "message": str(e)}
            break
        for n in names:
            result["snapshots"].append({"op": k, "name": n, "value": _copy(values[n])})
    if stop_before is not None:
        return values
    result["final"] = {n: _copy(t) for n, t in values.items()}
    return result
