"""kjarni's fused paths (include/kjarni/fusion.hpp) as fuzzer operations and expression nodes (their
entries are in operations.py's table; their handlers in runner/interpreter.cpp and
runner/json_decoding.cpp):

- `fused_reduce`: sum, prod, mean, min, max, argmin, argmax, any, all, var, std of an expression
  tree (one kernel: the expression computed inside the reduction's loads). The header promises the
  reduction of the array evaluate() would give, each value rounded to the expression's dtype
  first: numpy's side evaluates the tree (its bound, expressions.py), then reduces that array as
  the reduce and moments operations do (their bounds: operations._reduce_bound,
  statistics._moment_bound).
- `fused_dot`: dot of two 1-d expressions, numpy's np.dot of the two evaluated arrays (the dot
  operation's bound).
- Lazy reductions inside expressions ({"f": "reduce", ...} nodes of any tree): kjarni plans them
  into one row kernel (every reduction over the same trailing axes with keepdims) or one kernel per
  reduction and an elementwise one. The generator makes both random nodes and the forms the row
  kernel is for (x - mean(x), x / sum(x), softmax, layer normalisation), and sets
  KJARNI_FUSION_ROWS for the operation ("always": the row kernel even on a CPU device, "never").
  A node's bound is its reduction's, from the child's value and bound."""

import numpy as np

from . import dtypes
from .oracle import Tracked, evaluate_tree

EAGER = ["sum", "prod", "mean", "min", "max", "argmin", "argmax", "any", "all", "var", "std"]
# The row kernel computes these (of float16, float32, float64 values); the others go one kernel each.
ROW_KINDS = ["sum", "prod", "mean", "min", "max", "var", "std"]
DDOFS = [0, 0, 1, 2, 0.5]


def _gen_axes(gen, nd, fn, keepdims=None):
    """(axes, keepdims) of a reduction of an nd-array: argmin and argmax one axis or all (numpy's
    argmin takes no tuple); the others any subset, or all (None)."""
    from .statistics import _gen_axes as axes_of
    axes = axes_of(gen, nd, fn in ("argmin", "argmax"))
    return axes, bool(gen.rng.random() < 0.3) if keepdims is None else keepdims


def _reduce_dtype(gen, fn, value_dtype):
    """A dtype= as the reduce and moments operations draw it."""
    if fn in ("sum", "prod"):
        return gen.dtype("iufc")
    if fn == "mean":
        return gen.dtype("fc")
    if fn in ("var", "std"):
        return gen.dtype("c" if dtypes.kind(value_dtype) == "c" else "fc")
    return None


# ---- fused_reduce ------------------------------------------------------------------------------

def gen_fused_reduce(gen):
    shape = gen.target_shape()
    tree = gen.tree(shape)
    try:
        value, _ = evaluate_tree(tree, gen.values)
    except Exception:
        value = np.zeros(shape)  # an expression numpy refuses: the reduction's options do not matter
    value = np.asarray(value)
    fn = str(gen.rng.choice(EAGER))
    axes, keepdims = _gen_axes(gen, value.ndim, fn)
    op = {"op": "fused_reduce", "out": gen.name("s"), "fn": fn, "expr": tree, "axes": axes, "keepdims": keepdims,
          "dtype": None, "out_arg": None}
    if fn in ("var", "std"):
        op["ddof"] = DDOFS[int(gen.rng.integers(len(DDOFS)))]
    if fn in ("sum", "prod", "mean", "var", "std") and gen.rng.random() < 0.2:
        op["dtype"] = _reduce_dtype(gen, fn, str(value.dtype))
    if fn not in ("var", "std") and gen.rng.random() < 0.15:  # (the moments op has no out=)
        op["out_arg"] = _output_of_result_dtype(gen, op)
    return op


def _output_of_result_dtype(gen, op):
    """An out= array of the result's shape and dtype: kjarni's reductions of expressions want the
    result's dtype (ReduceOptions::out, kjarni/reduction.hpp: ArgumentError for another, where numpy
    casts), so other dtypes are not generated."""
    probe = dict(op, out="_probe", out_arg=None)
    values = {k: Tracked(v.data.copy(), v.err.copy()) for k, v in gen.values.items()}
    try:
        eval_fused_reduce(values, probe)
    except Exception:
        return None
    r = values["_probe"].data
    return gen.new_input(str(r.dtype), r.shape)


def _as_source(values, r, err):
    """values with the expression's value as the array "_fused" (a reduction's source)."""
    r = np.asarray(r)
    tmp = dict(values)
    tmp["_fused"] = Tracked(r, np.array(np.broadcast_to(np.asarray(err, dtype=np.float64), r.shape)))
    return tmp


def eval_fused_reduce(values, op):
    from .operations import _eval_reduce
    from .statistics import eval_moments
    r, err = evaluate_tree(op["expr"], values)
    tmp = _as_source(values, r, err)
    plain = dict(op, src="_fused")
    if op["fn"] in ("var", "std"):
        eval_moments(tmp, plain)
    else:
        _eval_reduce(tmp, plain)
        t = tmp[op["out"]]
        t.err[...] = _with_float16_partials(op, tmp["_fused"].data, t.err)
    values[op["out"]] = tmp[op["out"]]
    return [op["out"]]


# ---- fused_dot ---------------------------------------------------------------------------------

def gen_fused_dot(gen):
    n = int(gen.rng.choice([0, 1, 2, 5, 9, 33]))
    return {"op": "fused_dot", "out": gen.name("d"), "expr": gen.tree((n,)), "expr_b": gen.tree((n,)),
            "out_arg": None}


def eval_fused_dot(values, op):
    from .operations import _eval_dot
    a, ea = evaluate_tree(op["expr"], values)
    b, eb = evaluate_tree(op["expr_b"], values)
    if np.ndim(a) != 1 or np.ndim(b) != 1:
        # kjarni's dot of expressions takes 1-d ones (fusion.hpp; ArgumentError), where np.dot
        # would multiply a 0-d one or multiply matrices.
        raise ValueError("dot: a 1-d expression is needed")
    tmp = _as_source(values, a, ea)
    tmp["_fused_b"] = _as_source(values, b, eb)["_fused"]
    _eval_dot(tmp, dict(op, a="_fused", b="_fused_b"))
    values[op["out"]] = tmp[op["out"]]
    return [op["out"]]


# ---- lazy reductions: expression nodes ----------------------------------------------------------

def reduce_node(node, x, err):
    """(numpy's value, its bound) of a lazy reduction node over the value x with bound err: the
    eager reduction's (reduce's, moments'), plus numpy's own float16 sequential rounding where it
    sums float16 values in float16 (statistics._float16_partials: partials rounded to float16 row
    by row; kjarni accumulates float16 in float32; for the reduce operation this is the known
    class float16-sum-partials, inside an expression no rule could see it)."""
    x = np.asarray(x)
    op = {"op": "reduce", "out": "_node", "fn": node["fn"], "axes": node["axes"], "keepdims": node["keepdims"],
          "dtype": node.get("dtype"), "out_arg": None, "ddof": node.get("ddof", 0)}
    from .operations import _eval_reduce
    from .statistics import eval_moments
    tmp = _as_source({}, x, err)
    if op["fn"] in ("var", "std"):
        eval_moments(tmp, dict(op, src="_fused"))
    else:
        _eval_reduce(tmp, dict(op, src="_fused"))
    t = tmp["_node"]
    return np.asarray(t.data), _with_float16_partials(op, x, np.asarray(t.err))


def _with_float16_partials(op, x, e):
    """A sum's or mean's bound plus numpy's float16 sequential rounding where numpy sums float16
    values in float16 (sum of float16 values, or dtype=float16; np.mean of float16 sums in float32
    unless dtype=float16): statistics._float16_partials. Part of the bound here (as nanreduce's),
    not the known class float16-sum-partials (the reduce op's), whose rule takes exact inputs: a
    fused reduction's or a node's values carry the expression's bound."""
    from .statistics import _float16_partials
    x = np.asarray(x)
    float16_sum = (op["fn"] == "sum" and (op["dtype"] == "float16" or (op["dtype"] is None and x.dtype == np.float16))) \
        or (op["fn"] == "mean" and op["dtype"] == "float16")
    if not float16_sum or x.dtype.kind == "c":
        return e
    return _float16_partials(e, x, x, op["axes"], op["keepdims"], op["fn"], np.ones(x.shape, dtype=bool))


def _node(fn, child, axes, keepdims, dtype=None, ddof=None):
    n = {"f": "reduce", "fn": fn, "axes": axes, "keepdims": keepdims, "args": [child]}
    if dtype is not None:
        n["dtype"] = dtype
    if ddof is not None:
        n["ddof"] = ddof
    return n


def _row_axes(gen, nd):
    """The trailing axes the row kernel reduces (keepdims): the last k, some spelled negative."""
    k = int(gen.rng.integers(1, nd + 1)) if nd else 0
    axes = list(range(nd - k, nd))
    return [a - nd if gen.rng.random() < 0.4 else a for a in axes]


def random_node(gen, shape, depth, prefer):
    """A lazy reduction of a random subtree, its result broadcasting to `shape`: keepdims (the row
    kernel's trailing axes mostly, else any), the leading axes without keepdims, or all."""
    child = gen._tree(shape, depth + 1, prefer)
    try:
        value, _ = evaluate_tree(child, gen.values)
        nd = np.ndim(value)
        kind = np.asarray(value).dtype.kind
    except Exception:
        return child
    fn = str(gen.rng.choice(EAGER if gen.rng.random() < 0.5 else ROW_KINDS))
    r = gen.rng.random()
    if fn in ("argmin", "argmax"):
        if nd == 0 or r < 0.3:
            axes, keepdims = None, bool(gen.rng.random() < 0.5)
        elif r < 0.7:
            axes, keepdims = [int(gen.rng.integers(-nd, nd))], True
        else:
            axes, keepdims = [0], False
    elif r < 0.25:
        axes, keepdims = None, bool(gen.rng.random() < 0.5)
    elif r < 0.7:
        axes, keepdims = _row_axes(gen, nd), True
    elif r < 0.85:
        axes, keepdims = _gen_axes(gen, nd, fn, keepdims=True)
    else:
        axes, keepdims = list(range(int(gen.rng.integers(0, nd + 1)))), False
    dtype = None
    if fn in ("sum", "prod", "mean") and gen.rng.random() < 0.1:
        dtype = _reduce_dtype(gen, fn, "complex128" if kind == "c" else "float64")
    ddof = DDOFS[int(gen.rng.integers(len(DDOFS)))] if fn in ("var", "std") else None
    return _node(fn, child, axes, keepdims, dtype, ddof)


def gen_fused_expr(gen):
    """An expr (or assign) whose tree is one of the forms the row kernel is for, over a random
    subtree t and one choice of axes: t - mean(t), t / sum(t), t - max(t), softmax
    exp(t - max(t)) / sum(exp(t - max(t))), layer normalisation (t - mean(t)) / sqrt(var(t) + c)."""
    shape = gen.target_shape()
    if gen.rng.random() < 0.7:
        # Mostly float values: the row kernel's
        src = gen.pick(lambda s, d: dtypes.kind(d) == "f" and len(s) >= 1)
        shape = gen.shape_of(src) if src else shape
        t = {"array": src} if src and gen.rng.random() < 0.6 else gen.tree(shape)
    else:
        t = gen.tree(shape)
    nd = len(shape)
    axes = _row_axes(gen, nd) if gen.rng.random() < 0.8 else None
    keep = True

    def red(fn, child):
        return _node(fn, child, axes, keep, ddof=DDOFS[int(gen.rng.integers(len(DDOFS)))] if fn in ("var", "std") else None)

    form = int(gen.rng.integers(5))
    if form == 0:
        tree = {"f": "subtract", "args": [t, red(str(gen.rng.choice(["mean", "max", "min"])), t)]}
    elif form == 1:
        tree = {"f": "divide", "args": [t, red(str(gen.rng.choice(["sum", "prod", "std"])), t)]}
    elif form == 2:
        e = {"f": "exp", "args": [{"f": "subtract", "args": [t, red("max", t)]}]}
        tree = {"f": "divide", "args": [e, red("sum", e)]}
    elif form == 3:
        d = {"f": "subtract", "args": [t, red("mean", t)]}
        v = {"f": "add", "args": [red(str(gen.rng.choice(["var", "std"])), t), {"weak": 1e-3, "kind": "float"}]}
        tree = {"f": "divide", "args": [d, {"f": "sqrt", "args": [v]}]}
    else:
        tree = {"f": "multiply", "args": [red(str(gen.rng.choice(ROW_KINDS)), t), t]}
    if gen.rng.random() < 0.25:
        dst = gen.pick(lambda s, d: s == tuple(shape))
        if dst is not None:
            return {"op": "assign", "dst": dst, "expr": tree}
    return {"op": "expr", "out": gen.name("e"), "expr": tree}


def has_reduction(node):
    if not isinstance(node, dict) or "f" not in node:
        return False
    return node["f"] == "reduce" or any(has_reduction(a) for a in node["args"])
