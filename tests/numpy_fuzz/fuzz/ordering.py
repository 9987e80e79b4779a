"""Sorting, unique, searchsorted and the selections of non-zero elements as fuzzer operations (their
entries are in operations.py's table; their handlers in runner/interpreter.cpp). All compare
exactly where the order of the values is decided: values within the inputs' bounds may compare
either way on the two sides, so the positions they decide are undecidable (inf)."""

import numpy as np

from . import dtypes
from .bounds import INF
from .oracle import Tracked, err_like

# Pairwise decisions are checked on rows of at most this many elements (larger ones: undecided).
PAIRWISE_LIMIT = 2048


def _real(gen):
    """A value of a real dtype (kjarni's sorting refuses complex arrays: UnsupportedError, where
    numpy sorts them lexicographically; not generated, as that refusal would end the program)."""
    return gen.pick(lambda s, d: dtypes.kind(d) != "c")


def _exact_picks(gen, real):
    """Names whose values are exact (every bound 0): the ops whose result's shape depends on the
    values (unique, nonzero) take them, so that both sides make the same shape."""
    return [n for n, t in gen.values.items() if t.shape_decided and (not real or t.data.dtype.kind != "c")
            and not np.any(t.err)]


def _pick_exact(gen, real):
    names = _exact_picks(gen, real)
    return str(gen.rng.choice(names)) if names else None


def _rank_decided(x, e):
    """For a 1-d row: whether each element's place in the (stable) sorted order is the same on
    both sides: no other element lies within their bounds together (e_i + e_j > 0). Equal exact
    values keep their order (the sort is stable); NaN and infinities (exact, their bounds finite)
    overlap nothing."""
    n = x.size
    if n == 0:
        return np.ones(0, dtype=bool)
    if np.isinf(e).any() or n > PAIRWISE_LIMIT:
        return np.zeros(n, dtype=bool)
    if not e.any():
        return np.ones(n, dtype=bool)
    xw = x.astype(np.float64)
    with np.errstate(all="ignore"):
        gap = np.abs(xw[:, None] - xw[None, :])
        slack = e[:, None] + e[None, :]
        clash = (gap <= slack) & (slack > 0)
    np.fill_diagonal(clash, False)
    return ~clash.any(axis=1)


def _rows(a, axis):
    """The array as rows along `axis` (the flattened array for None): (2-d view, how to put a
    result of the same 2-d shape back)."""
    if axis is None:
        flat = a.reshape(-1)
        return flat.reshape(1, -1), lambda r: r.reshape(-1)
    moved = np.moveaxis(a, axis, -1)
    shape = moved.shape
    rows = moved.reshape(int(np.prod(shape[:-1], dtype=np.int64)), shape[-1])
    return rows, lambda r: np.moveaxis(r.reshape(shape), -1, axis)


def gen_sort(kind):
    def generate(gen):
        src = _real(gen)
        if src is None:
            return None
        nd = len(gen.shape_of(src))
        axis = None if nd == 0 or gen.rng.random() < 0.3 else int(gen.rng.integers(-nd, nd))
        if gen.rng.random() < 0.02:
            axis = nd  # an axis out of range: both must refuse
        return {"op": kind, "out": gen.name("o"), "src": src, "axis": axis}
    return generate


def eval_sort(values, op):
    """np.sort: each sorted value within the largest bound of its row (sorting is 1-Lipschitz in
    the max norm: |sort(x)_k - sort(y)_k| <= max |x_i - y_i|); -0.0 and 0.0, equal, in either order
    (compare.py compares -0.0 == 0.0: docs/numpy-differences.md), NaN last."""
    t = values[op["src"]]
    r = np.sort(t.data, axis=op["axis"])
    err = np.broadcast_to(t.err, t.data.shape)
    rows, back = _rows(err, op["axis"])
    worst = rows.max(axis=1, keepdims=True, initial=0.0)
    return _store(values, op["out"], r, back(np.broadcast_to(worst, rows.shape)))


def eval_argsort(values, op):
    """np.argsort(kind="stable") exactly, where the element numpy places there has a decided rank."""
    t = values[op["src"]]
    r = np.argsort(t.data, axis=op["axis"], kind="stable")
    xs, _ = _rows(t.data, op["axis"])
    es, _ = _rows(np.broadcast_to(t.err, t.data.shape), op["axis"])
    rs, back = _rows(r, op["axis"])
    out = np.empty(rs.shape, dtype=np.float64)
    for k in range(rs.shape[0]):
        decided = _rank_decided(xs[k], es[k])
        out[k] = np.where(decided[rs[k]], 0.0, INF)
    return _store(values, op["out"], r, back(out))


def _store(values, name, r, err):
    r = np.asarray(r)
    values[name] = Tracked(r, err_like(r, err))
    return [name]


# ---- unique ---------------------------------------------------------------------------------------

def gen_unique(gen):
    src = _pick_exact(gen, real=True)
    if src is None:
        return None
    flags = {k: bool(gen.rng.random() < 0.5) for k in ("return_index", "return_inverse", "return_counts")}
    outs = [gen.name("u")] + [gen.name(k[7]) for k, v in flags.items() if v]
    return dict({"op": "unique", "outs": outs, "src": src}, **flags)


def eval_unique(values, op):
    """np.unique(equal_nan=True) of the flattened array: values, counts, first indices and inverse
    (numpy 2's: the input's shape) exactly, the values within their elements' bounds (-0.0 == 0.0:
    kjarni keeps the first of the two zeros, numpy the first in its unstable sort). Where two
    elements lie within their bounds of each other, whether they are one value is undecided, and
    so is the result's shape: every result is then marked so (Tracked.shape_decided)."""
    t = values[op["src"]]
    flat = t.data.reshape(-1)
    res = np.unique(t.data, return_index=op["return_index"], return_inverse=op["return_inverse"],
                    return_counts=op["return_counts"], equal_nan=True)
    res = list(res) if isinstance(res, tuple) else [res]
    e = np.broadcast_to(t.err, t.data.shape).reshape(-1)
    decided = bool(_rank_decided(flat, e).all()) if flat.size else True
    names = []
    for k, (name, r) in enumerate(zip(op["outs"], res)):
        r = np.asarray(r)
        if not decided:
            values[name] = Tracked(r, err_like(r, INF), shape_decided=False)
        elif k == 0 and e.any():
            # A value of a group of several is exact (decided groups have bound 0); alone, its bound.
            _, inverse = np.unique(flat, return_inverse=True, equal_nan=True)
            bound = np.zeros(r.shape)
            np.maximum.at(bound, inverse.reshape(-1), e)
            values[name] = Tracked(r, bound)
        else:
            values[name] = Tracked(r, err_like(r))
        names.append(name)
    return names


# ---- searchsorted ---------------------------------------------------------------------------------

def gen_searchsorted(gen):
    """A sort of a real value (flattened: 1-d, numpy's order) as the sorted array, then the
    positions of other values (any shape; the common dtype numpy's) in it."""
    src = _real(gen)
    if src is None:
        return None
    sorted_name = gen.name("o")
    sort_op = {"op": "sort", "out": sorted_name, "src": src, "axis": None}
    gen.program["ops"].append(sort_op)
    gen._run(sort_op)
    v = _real(gen)
    return {"op": "searchsorted", "out": gen.name("i"), "sorted": sorted_name, "values": v,
            "side": str(gen.rng.choice(["left", "right"]))}


def eval_searchsorted(values, op):
    """np.searchsorted exactly: for a sorted array, the position is the number of its elements
    below the value (not above it, for side right), whatever the search's order; it is decided
    where no element lies within their bounds of the value. An unsorted array (the shrinker may
    leave the sort out) has no defined answer: undecided."""
    s, v = values[op["sorted"]], values[op["values"]]
    r = np.asarray(np.searchsorted(s.data, v.data, side=op["side"]))
    common = np.result_type(s.data, v.data)
    if s.data.ndim != 1:
        return _store(values, op["out"], r, INF)
    sc, vc = s.data.astype(common), v.data.astype(common)
    if not _numpy_sorted(sc):
        return _store(values, op["out"], r, INF)
    se = np.broadcast_to(s.err, s.data.shape)
    ve = np.broadcast_to(v.err, v.data.shape).reshape(-1)
    if np.isinf(se).any():
        return _store(values, op["out"], r, INF)
    err = np.zeros(vc.size)
    if se.any() or ve.any():
        if sc.size > PAIRWISE_LIMIT:
            return _store(values, op["out"], r, INF)
        with np.errstate(all="ignore"):
            gap = np.abs(vc.reshape(-1).astype(np.float64)[:, None] - sc.astype(np.float64)[None, :])
            slack = ve[:, None] + se[None, :]
            clash = ((gap <= slack) & (slack > 0)).any(axis=1) | np.isinf(ve)
        err = np.where(clash, INF, 0.0)
    return _store(values, op["out"], r, err.reshape(r.shape))


def _numpy_sorted(a):
    """Whether a 1-d array is in numpy's order (NaN last)."""
    if a.size < 2:
        return True
    if a.dtype.kind == "f":
        nan = np.isnan(a)
        k = int((~nan).sum())
        return not nan[:k].any() and bool(np.all(a[:k][1:] >= a[:k][:-1]))
    return bool(np.all(a[1:] >= a[:-1]))


# ---- nonzero, count_nonzero -----------------------------------------------------------------------

def _zero_decided(x, e):
    """Whether each element's being zero is the same on both sides: exact, or farther from zero
    than its bound (NaN, exact, is non-zero)."""
    with np.errstate(all="ignore"):
        m = np.abs(x.astype(np.complex128 if x.dtype.kind == "c" else np.float64))
        return (e == 0) | (m > e)


def gen_nonzero(gen):
    src = _pick_exact(gen, real=False)
    if src is None:
        return None
    nd = len(gen.shape_of(src))
    return {"op": "nonzero", "outs": [gen.name("z") for _ in range(nd)], "src": src}


def eval_nonzero(values, op):
    """np.nonzero (0-d: numpy's ValueError, kjarni's ArgumentError): exact where every element's
    zero-ness is decided, else the result's shape is undecided."""
    t = values[op["src"]]
    res = np.nonzero(t.data)
    if len(res) != len(op["outs"]):
        raise ValueError("nonzero: the program names another number of results")
    decided = bool(_zero_decided(t.data, np.broadcast_to(t.err, t.data.shape)).all())
    for name, r in zip(op["outs"], res):
        values[name] = Tracked(r, err_like(r, 0.0 if decided else INF), shape_decided=decided)
    return list(op["outs"])


def gen_count_nonzero(gen):
    src = gen.pick()
    if src is None:
        return None
    nd = len(gen.shape_of(src))
    axes = None
    if gen.rng.random() < 0.7:
        k = int(gen.rng.integers(0, nd + 1))
        axes = [int(a) - (nd if gen.rng.random() < 0.3 else 0) for a in gen.rng.permutation(nd)[:k]]
    return {"op": "count_nonzero", "out": gen.name("n"), "src": src, "axes": axes}


def eval_count_nonzero(values, op):
    """np.count_nonzero (int64) exactly, where every element of the slice is decided."""
    t = values[op["src"]]
    axis = None if op["axes"] is None else tuple(op["axes"])
    r = np.asarray(np.count_nonzero(t.data, axis=axis)).astype(np.int64)
    undecided = ~_zero_decided(t.data, np.broadcast_to(t.err, t.data.shape))
    bad = np.any(undecided, axis=axis)
    return _store(values, op["out"], r, np.where(bad, INF, 0.0))
