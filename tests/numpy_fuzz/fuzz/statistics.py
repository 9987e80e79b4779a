"""The NaN-aware reductions (nansum ... nanmean) and the moments (var, std, nanvar, nanstd) as fuzzer
operations (their entries are in operations.py's table; their handlers in runner/interpreter.cpp),
with their bounds. The summation bounds are reduce's (operations._reduce_bound, bounds.py); the
moments' is derived below (_moment_bound)."""

import numpy as np

from . import bounds, dtypes
from .bounds import INF, magnitude
from .oracle import Tracked, err_like

NAN_REDUCTIONS = ["nansum", "nanprod", "nanmin", "nanmax", "nanargmin", "nanargmax", "nanmean"]
MOMENTS = ["var", "std", "nanvar", "nanstd"]


def _gen_axes(gen, nd, one_axis):
    """reduce's choice of axes: one axis or all for argmin's kind, else any subset (negative ones
    too), or None."""
    if one_axis:
        return None if nd == 0 or gen.rng.random() < 0.3 else [int(gen.rng.integers(-nd, nd))]
    if gen.rng.random() < 0.25:
        return None
    k = int(gen.rng.integers(0, nd + 1))
    return [int(a) - (nd if gen.rng.random() < 0.3 else 0) for a in gen.rng.permutation(nd)[:k]]


def _gen_dtype(gen, src_dtype):
    """A `dtype=` kjarni's NaN reductions and moments take: a float or complex type, complex for
    complex arrays (kjarni refuses the others, where numpy would take an integer dtype or drop the
    imaginary part: not generated, so that those refusals do not end programs)."""
    return gen.dtype("c" if dtypes.kind(src_dtype) == "c" else "f")


def gen_nanreduce(gen):
    src = gen.pick()
    if src is None:
        return None
    fn = str(gen.rng.choice(NAN_REDUCTIONS))
    op = {"op": "nanreduce", "out": gen.name("s"), "fn": fn, "src": src,
          "axes": _gen_axes(gen, len(gen.shape_of(src)), fn in ("nanargmin", "nanargmax")),
          "keepdims": bool(gen.rng.random() < 0.3), "dtype": None}
    if fn in ("nansum", "nanprod", "nanmean") and gen.rng.random() < 0.25:
        op["dtype"] = _gen_dtype(gen, gen.dtype_of(src))
    return op


def _axis_arg(op, one_axis):
    axes = op["axes"]
    if axes is None:
        return None
    return axes[0] if one_axis and len(axes) == 1 else tuple(axes)


def _nan_mask(x):
    x = np.asarray(x)
    if x.dtype.kind == "c":
        return np.isnan(x.real) | np.isnan(x.imag)
    if x.dtype.kind == "f":
        return np.isnan(x)
    return np.zeros(x.shape, dtype=bool)


def _slice_size(x, axes):
    if x.ndim == 0:
        return 1
    ax = range(x.ndim) if axes is None else [a % x.ndim for a in axes]
    return int(np.prod([x.shape[a] for a in ax], dtype=np.int64))


def _nanreduce_bound(op, x, err, r):
    """The bound of a NaN-aware reduction: the plain reduction's (reduce's bound) over the array
    with its NaNs replaced by the neutral element, as numpy computes it (np.nansum is np.sum of the
    array with NaN -> 0, nanprod with NaN -> 1, nanmin numpy's fmin.reduce), and for float16 the
    sequential rounding of numpy's side, which sums float16 row by row along an axis outside its
    inner loop (each partial rounded to float16: n roundings, float16-sum-partials' class for sum)
    and rounds the total to float16 before nanmean divides it."""
    from .operations import _reduce_bound
    fn, axes, keep = op["fn"][3:], op["axes"], op["keepdims"]
    nan = _nan_mask(x)
    # An element whose NaN-ness is undecided (its bound inf) may be left out on one side only.
    undecided = _reduce(np.isinf(np.broadcast_to(err, x.shape)), axes, keep, np.any)
    plain = dict(op, fn=fn)
    if fn in ("argmin", "argmax") or not dtypes.is_inexact(x.dtype):
        # No NaN to leave out (integers and bool: numpy calls the plain reduction).
        out = _reduce_bound(plain, x, err, r)
        if fn in ("sum", "mean") and _float16_sum(x, op):
            out = _float16_partials(out, x, x, axes, keep, fn, np.ones(x.shape, dtype=bool))
        return np.where(undecided, INF, out)
    filled = np.where(nan, 0 if fn in ("sum", "mean") else 1, x).astype(x.dtype) if fn in ("sum", "mean", "prod") else x
    e = np.where(nan, 0.0, np.broadcast_to(err, x.shape))
    if fn == "mean":
        # nanmean = nansum / count of the non-NaN elements: the sum's bound divided by that count.
        total = np.asarray(np.nansum(filled, axis=_axis_arg(op, False), keepdims=keep, dtype=op["dtype"]))
        out = _reduce_bound(dict(op, fn="sum"), filled, e, total)
        count = _reduce(~nan, axes, keep, np.sum)
        with np.errstate(all="ignore"):
            out = out / np.maximum(count, 1) + bounds.rounding(r, r.dtype, "divide")
    else:
        out = _reduce_bound(plain, filled, e, r)
    if fn in ("sum", "mean") and _float16_sum(x, op):
        out = _float16_partials(out, x, filled, axes, keep, fn, ~nan)
    return np.where(undecided, INF, out)


def _float16_partials(out, x, filled, axes, keep, fn, counted):
    """numpy's float16 sums: n roundings of a partial to float16 (row by row), and partial sums
    past float16's largest number where kjarni's float32 ones are not (undecidable)."""
    n = _slice_size(x, axes)
    s = _reduce(magnitude(filled), axes, keep, np.sum)
    with np.errstate(all="ignore"):
        extra = n * dtypes.eps(np.float16) * s
        if fn == "mean":
            extra = extra / np.maximum(_reduce(counted, axes, keep, np.sum), 1)
        return np.where(s > dtypes.largest(np.float16), INF, out + extra)


def _float16_sum(x, op):
    """Whether numpy sums in float16 (a float16 array without dtype, or dtype float16)."""
    return (op["dtype"] == "float16") or (op["dtype"] is None and x.dtype == np.float16)


def _reduce(x, axes, keep, f):
    return f(x, axis=None if axes is None else tuple(axes), keepdims=keep)


def eval_nanreduce(values, op):
    t = values[op["src"]]
    fn = op["fn"]
    one = fn in ("nanargmin", "nanargmax")
    kwargs = {"axis": _axis_arg(op, one), "keepdims": op["keepdims"]}
    if op["dtype"] is not None:
        kwargs["dtype"] = op["dtype"]
    with np.errstate(all="ignore"):
        r = np.asarray(getattr(np, fn)(t.data, **kwargs))
        x = t.data
        if op["dtype"] is not None and dtypes.kind(op["dtype"]) != dtypes.kind(x.dtype):
            x = x.astype(op["dtype"])
        err = bounds.finish(r, _nanreduce_bound(op, x, t.err, r), [])
    values[op["out"]] = Tracked(r, err_like(r, err))
    return [op["out"]]


# ---- the moments --------------------------------------------------------------------------------

def gen_moments(gen):
    src = gen.pick()
    if src is None:
        return None
    ddof = [0, 0, 1, 1, 2, 0.5][int(gen.rng.integers(6))]
    op = {"op": "moments", "out": gen.name("s"), "fn": str(gen.rng.choice(MOMENTS)), "src": src,
          "axes": _gen_axes(gen, len(gen.shape_of(src)), False), "keepdims": bool(gen.rng.random() < 0.3),
          "ddof": ddof, "dtype": None}
    # (A complex dtype= makes the result complex, its imaginary part 0, on both sides, for real
    # arrays too.)
    if gen.rng.random() < 0.2:
        op["dtype"] = gen.dtype("c" if dtypes.kind(gen.dtype_of(src)) == "c" else "fc")
    return op


def _working_type(x, op, r):
    """The coarsest float type numpy's two passes compute in: the array's (nanvar subtracts the mean
    in the array's dtype whatever `dtype` is; var's deviations are in the promoted type), `dtype`,
    and the result's (float64 for integers). Its eps and largest number bound both sides (kjarni
    computes in that type or a wider one: float16 in float32)."""
    types = [dtypes.real_of(r.dtype)]
    if dtypes.is_inexact(x.dtype):
        types.append(dtypes.real_of(x.dtype))
    if op["dtype"] is not None:
        types.append(dtypes.real_of(op["dtype"]))
    return max(types, key=dtypes.eps)


def _moment_bound(op, x, err, r, var):
    """The bound of var, std, nanvar, nanstd (`var`: numpy's variance, for std's square root).

    S = sum |x_i - mean|^2 over a slice of n (non-NaN) elements, Q = sum |x_i|^2, eps the working
    type's (_working_type):
    - numpy's two passes: the mean off by d <= (summation ulps) eps sum|x_i| / n, which adds
      n d^2 <= (ulps eps)^2 Q (Cauchy-Schwarz) to S; each deviation and square rounded (1.5 eps, 2
      for complex), the conversion of integers to float64 (eps: 2 |x_i - mean| |x_i| eps/2 summed is
      at most eps Q), then the pairwise summation of the squares: ulps eps S.
    - kjarni's pairwise update of (count, mean, M2) (Chan, Golub, LeVeque): O(log n eps kappa S)
      with the condition number kappa = sqrt(Q / S), i.e. O(log n eps sqrt(Q S)) <= O(log n eps Q).
    Both within (ulps + 6) eps Q with ulps = summation_ulps(n) (n for float16, which numpy sums row
    by row). Q, not S: the variance of values large against their spread is ill-conditioned, and its
    bound says so. The inputs' bounds e_i add exactly 2 sum |x_i - mean| e_i + sum e_i^2 to S.
    Then var = S / dof, std = sqrt(var): |sqrt(a) - sqrt(v)| <= min(sqrt(|a - v|), |a - v| / sqrt(v)).

    Undecidable: a slice with an undecided element, one whose sums of |x| or of |x|^2 pass the
    working type's largest number (numpy's mean or squares overflow where kjarni's update need not),
    and var's slices with dof <= 0 and elements (S / 0 is inf or NaN as S is exactly 0 or not, which
    the roundings decide). Certain NaN (bound 0, compared exactly: var([inf]) must be NaN): a slice
    with an infinity or (var, std) a NaN, nanvar's slices with dof <= 0, empty slices."""
    axes, keep, ddof = op["axes"], op["keepdims"], op["ddof"]
    # numpy's nanvar and nanstd of an array whose dtype holds no NaN (integers, bool) are its var
    # and std (_replace_nan gives no mask): their slices with dof <= 0 are var's, undecided.
    nan_aware = op["fn"].startswith("nan") and x.dtype.kind in "fc"
    err = np.broadcast_to(np.asarray(err, dtype=np.float64), x.shape)
    with np.errstate(all="ignore"):
        xw = x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
        nan = _nan_mask(x)
        use = ~nan if nan_aware else np.ones(x.shape, dtype=bool)
        xz = np.where(use, xw, 0)
        nonfinite = _reduce(use & ~np.isfinite(np.abs(xw)), axes, keep, np.any)
        if not nan_aware:
            nonfinite |= _reduce(nan, axes, keep, np.any)
        undecided = _reduce(np.isinf(err), axes, keep, np.any)
        count = _reduce(use, axes, keep, np.sum).astype(np.float64)
        mean = np.sum(xz, axis=None if axes is None else tuple(axes), keepdims=True) / np.maximum(
            np.sum(use, axis=None if axes is None else tuple(axes), keepdims=True), 1)
        dev = np.abs(xz - mean)
        q = _reduce(np.abs(xz) ** 2, axes, keep, np.sum)
        a = _reduce(np.abs(xz), axes, keep, np.sum)
        e = np.where(use, err, 0.0)
        carried = _reduce(bounds.mul(2 * dev, e) + e * e, axes, keep, np.sum)
        work = _working_type(x, op, r)
        n = _slice_size(x, axes)
        ulps = max(bounds.summation_ulps(n), n) if work == "float16" else bounds.summation_ulps(n)
        b_s = carried + (ulps + 6) * dtypes.eps(work) * q
        dof = count - ddof
        b_var = b_s / np.maximum(dof, 1e-300) + bounds.rounding(var, r.dtype, "divide")
        if op["fn"] in ("std", "nanstd"):
            v = np.abs(np.asarray(var, dtype=np.float64))
            out = np.minimum(np.sqrt(b_var), b_var / np.sqrt(v)) + bounds.rounding(r, r.dtype, "sqrt")
        else:
            out = b_var
        top = dtypes.largest(work)
        overflow = ~np.isfinite(q) | (q > top / 4) | (a > top / 4)
        out = np.where(overflow, INF, out)
        if nan_aware:
            out = np.where(dof <= 0, 0.0, out)
        else:
            out = np.where((dof <= 0) & (count > 0), INF, out)
        out = np.where(count == 0, 0.0, out)
        out = np.where(nonfinite, 0.0, out)
    return np.where(undecided, INF, out)


def eval_moments(values, op):
    t = values[op["src"]]
    kwargs = {"axis": _axis_arg(op, False), "keepdims": op["keepdims"], "ddof": op["ddof"]}
    if op["dtype"] is not None:
        kwargs["dtype"] = op["dtype"]
    fn = op["fn"]
    with np.errstate(all="ignore"):
        r = np.asarray(getattr(np, fn)(t.data, **kwargs))
        var = np.asarray(getattr(np, "nanvar" if fn.startswith("nan") else "var")(t.data, **kwargs))
        err = bounds.finish(r, _moment_bound(op, t.data, t.err, r, var), [])
    values[op["out"]] = Tracked(r, err_like(r, err))
    return [op["out"]]
