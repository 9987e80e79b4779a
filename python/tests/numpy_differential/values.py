"""Random inputs: dtypes, shapes, values reaching the edge cases, and layouts (views) of them."""

import numpy as np

DTYPES = [np.dtype(name) for name in (
    "bool int8 uint8 int16 uint16 int32 uint32 int64 uint64 float16 float32 float64 complex64 complex128").split()]
INTEGERS = [d for d in DTYPES if d.kind in "iu"]
INEXACT = [d for d in DTYPES if d.kind in "fc"]


def pick(rng, items, weights=None):
    if weights is not None:
        weights = np.asarray(weights, dtype=float)
        weights = weights / weights.sum()
    return items[int(rng.choice(len(items), p=weights))]


def random_dtype(rng, kinds=None):
    candidates = [d for d in DTYPES if kinds is None or d.kind in kinds]
    return pick(rng, candidates)


def random_shape(rng, max_ndim=3):
    ndim = int(pick(rng, [0, 1, 2, 3][:max_ndim + 1], [0.15, 0.35, 0.3, 0.2][:max_ndim + 1]))
    # Extents 0 and 1 often: empty arrays and size-1 axes (broadcasting, squeezing) are edge cases.
    return tuple(int(pick(rng, [0, 1, 2, 3, 4, 5, 7], [0.06, 0.2, 0.2, 0.2, 0.14, 0.12, 0.08])) for _ in range(ndim))


def broadcast_partner(rng, shape):
    """A shape that broadcasts with `shape`: leading axes dropped, some extents made 1, rarely a
    mismatch (numpy's ValueError)."""
    if rng.random() < 0.5:
        return shape
    out = list(shape[int(rng.integers(0, len(shape) + 1)):]) if shape else []
    out = [1 if rng.random() < 0.3 else n for n in out]
    if rng.random() < 0.15:
        out = [1] + out  # an extra leading axis of 1
    if out and rng.random() < 0.04:
        out[-1] = out[-1] + 1  # incompatible: both must raise
    return tuple(out)


def edge_values(dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return [False, True]
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        values = {info.min, info.max, info.min + 1, info.max - 1, 0, 1, 2, 3, 7}
        if dtype.kind == "i":
            values |= {-1, -2, -7}
        return sorted(values)
    f = np.finfo(dtype.char.lower() if dtype.kind == "c" else dtype)
    real = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, np.nan, np.inf, -np.inf, float(f.max), -float(f.max),
            float(f.tiny), float(f.smallest_subnormal), -float(f.smallest_subnormal), float(2.0 ** (f.nmant + 1)) + 0.0,
            float(f.eps), 1e-3, 100.5, -7.25]
    if dtype.kind == "f":
        return real
    return [complex(x, y) for x in real for y in (0.0, -0.0, 1.0, -2.0, np.nan, np.inf, float(f.max))]


def _small(rng, dtype, n):
    if dtype.kind == "b":
        return rng.random(n) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return np.clip(rng.integers(-6, 7, n), info.min, info.max)
    if dtype.kind == "f":
        # Quarters: sums and products of them are often exact.
        return np.round(rng.standard_normal(n) * 4) / 4 if rng.random() < 0.5 else rng.standard_normal(n) * 3
    return _small(rng, np.dtype(np.float64), n) + 1j * _small(rng, np.dtype(np.float64), n)


def _wide(rng, dtype, n):
    if dtype.kind in "b":
        return rng.random(n) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(int(info.min), int(info.max), n, dtype=dtype, endpoint=True)
    real = np.dtype(dtype.char.lower()) if dtype.kind == "c" else dtype
    f = np.finfo(real)
    top = np.log10(float(f.max))
    def one():
        return np.where(rng.random(n) < 0.5, -1, 1) * 10.0 ** rng.uniform(-top, top, n)
    if dtype.kind == "c":
        return one() + 1j * one()
    return one()


def random_values(rng, dtype, shape, style=None):
    """A C-contiguous numpy array of `dtype` and `shape`: small values, the whole range, or edge
    values mixed in."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64))
    style = style or pick(rng, ["small", "wide", "edge"], [0.45, 0.25, 0.3])
    if style == "small":
        flat = _small(rng, dtype, n)
    elif style == "wide":
        flat = _wide(rng, dtype, n)
    else:
        flat = np.array(_small(rng, dtype, n), dtype=dtype)
        edges = edge_values(dtype)
        for i in range(n):
            if rng.random() < 0.4:
                flat[i] = edges[int(rng.integers(len(edges)))]
    with np.errstate(all="ignore"):
        return np.array(flat, dtype=dtype).reshape(shape)


LAYOUTS = ["contiguous", "transposed", "reversed", "stepped", "offset"]


def layout_view(layout, shape):
    """(the shape of the base array, the key or transpose making the view of `shape`)."""
    if layout == "transposed" and len(shape) >= 2:
        return tuple(reversed(shape)), "T"
    if layout == "reversed" and len(shape) >= 1:
        return shape, (slice(None, None, -1),) * len(shape)
    if layout == "stepped" and len(shape) >= 1:
        return (2 * shape[0],) + tuple(shape[1:]), (slice(None, None, 2),)
    if layout == "offset" and len(shape) >= 1:
        return (shape[0] + 1,) + tuple(shape[1:]), (slice(1, None),)
    return shape, None


def apply_view(base, view):
    if view is None:
        return base
    if view == "T":
        return base.T
    return base[view]


def view_text(view):
    if view is None:
        return ""
    if view == "T":
        return ".T"
    parts = []
    for s in view:
        parts.append(f"{'' if s.start is None else s.start}:{'' if s.stop is None else s.stop}"
                     f"{'' if s.step is None else ':' + str(s.step)}")
    return "[" + ", ".join(parts) + "]"
