"""Random input data that reaches the edge cases: for integers the extremes, -1, 0 and values near
2^53 (where float64 stops holding every integer); for floats signed zeros, NaN, infinities, the
largest and smallest numbers, integers (so that conversions are exact) and values around 1; small
magnitudes mostly, so that most arithmetic stays in range and the bounds stay tight."""

import numpy as np

from . import dtypes


def _integers(rng, dtype, n, special):
    info = np.iinfo(dtype)
    lo, hi = int(info.min), int(info.max)
    small = rng.integers(max(lo, -8), min(hi, 8) + 1, size=n, dtype=np.int64).astype(object)
    out = small
    if special:
        edges = [lo, hi, 0, 1, lo + 1, hi - 1]
        if lo < 0:
            edges.append(-1)
        if info.bits == 64:
            for b in (2**53, 2**53 + 1, 2**53 - 1, 2**63 - 1):
                if lo <= b <= hi:
                    edges.append(b)
                if lo <= -b <= hi:
                    edges.append(-b)
        full = [int(rng.integers(lo, hi, endpoint=True, dtype=np.dtype(dtype))) for _ in range(n)]
        pick = rng.random(n)
        out = [edges[rng.integers(len(edges))] if p < 0.25 else full[k] if p < 0.5 else small[k]
               for k, p in enumerate(pick)]
    return np.array(out, dtype=object).astype(dtype)


def _reals(rng, dtype, n, special, finite, moderate=False):
    dt = np.dtype(dtype)
    scale = rng.choice([1.0, 1.0, 4.0, 0.01, 100.0])
    x = rng.standard_normal(n) * scale
    ints = rng.random(n) < 0.2
    x[ints] = np.round(x[ints] * 3)
    if special and moderate:
        pick = rng.random(n) < 0.2
        x[pick] = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 2.5, 1e3])[rng.integers(7, size=int(pick.sum()))]
    elif special:
        info = np.finfo(dt)
        edges = [0.0, -0.0, 1.0, -1.0, float(info.max), -float(info.max), float(info.tiny), float(info.tiny) / 4,
                 0.5, 2.5, -2.5, 1e3, 3e4]
        if not finite:
            edges += [np.nan, np.inf, -np.inf, np.nan]
        if dt.itemsize == 8:
            edges += [2.0**53, 2.0**53 + 2, -(2.0**53), 2.0**63, 1.8e19]
        pick = rng.random(n) < 0.2
        x[pick] = np.array(edges)[rng.integers(len(edges), size=int(pick.sum()))]
    with np.errstate(all="ignore"):
        return x.astype(dt)


def random_values(rng, dtype, shape, special=None, finite=False, moderate=False):
    """An array of `dtype` and `shape` (C order); `special`: whether edge values appear (random
    when not given); `finite`: no NaN or infinity; `moderate`: finite and far from overflow (BLAS
    operands: where a product overflows inside a BLAS kernel depends on its order of operations)."""
    finite = finite or moderate
    n = int(np.prod(shape, dtype=np.int64))
    if special is None:
        special = rng.random() < 0.5
    k = dtypes.kind(dtype)
    if k == "b":
        out = rng.random(n) < 0.5
    elif k in "iu":
        out = _integers(rng, dtype, n, special)
    elif k == "f":
        out = _reals(rng, dtype, n, special, finite, moderate)
    else:
        r = dtypes.real_of(dtype)
        out = np.empty(n, dtype=dtype)
        out.real = _reals(rng, r, n, special, finite, moderate)
        out.imag = _reals(rng, r, n, special, finite, moderate)
    return np.asarray(out, dtype=dtype).reshape(shape)
