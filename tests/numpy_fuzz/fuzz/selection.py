"""Boolean-mask and integer-array ("fancy") indexing, to read and to assign, and argwhere
(include/kjarni/selection.hpp) as fuzzer operations (their entries are in operations.py's table;
their handlers in runner/interpreter.cpp). The selection is exact (the masks and indices are exact
values: new inputs, or exact values made before), so the elements selected are the same on both
sides and compared with their own bounds; values assigned are converted as astype converts them
(their bound astype's)."""

import numpy as np

from . import dtypes
from .expressions import astype_bound
from . import bounds
from .oracle import Tracked


def _mask_for(gen, shape):
    """An exact bool mask of the leading k axes of `shape` (k = 0: a 0-d mask): an exact bool value
    made before when one fits, else a new input; now and then one of a wrong shape (both refuse)."""
    k = int(gen.rng.integers(0, len(shape) + 1))
    want = tuple(shape[:k])
    if gen.rng.random() < 0.03:
        want = want + (2,) if len(want) < len(shape) or not want else want[:-1] + (want[-1] + 1,)
    names = [n for n, t in gen.values.items() if t.shape_decided and t.data.dtype == np.bool_
             and t.data.shape == want and not np.any(t.err)]
    if names and gen.rng.random() < 0.5:
        return str(gen.rng.choice(names))
    return gen.input_from(gen.rng.random(want) < float(gen.rng.choice([0.1, 0.5, 0.9])))


def _indices_for(gen, n):
    """An exact integer index array into an axis of extent n: within [-n, n), now and then out of it
    (both refuse)."""
    ishape = gen.shape(max_ndim=2)
    lo, hi = (-n, n - 1) if gen.rng.random() < 0.97 else (-n - 2, n + 1)
    dt = str(gen.rng.choice(["int64", "int32", "int16", "int8", "uint8"]))
    info = np.iinfo(dt)
    lo, hi = max(lo, int(info.min)), min(hi, int(info.max))
    if hi < lo:
        lo = hi = 0
    return gen.input_from(gen.rng.integers(lo, hi + 1, size=ishape).astype(dt))


def _values_for(gen, dst, shape):
    """Values to assign: a new input broadcasting to `shape` (its trailing axes, or extents of 1),
    of dst's dtype or one that casts to it safely (an unsafe cast of NaN or a value out of range
    into an integer type is undefined in C: the class float-to-int, which these ops do not model)."""
    sub = list(shape)[int(gen.rng.integers(0, len(shape) + 1)):]
    sub = [1 if gen.rng.random() < 0.2 else n for n in sub]
    target = gen.dtype_of(dst)
    dt = target
    if gen.rng.random() < 0.3:
        safe = [d for d in dtypes.ALL if np.can_cast(d, target, "safe")]
        dt = str(gen.rng.choice(safe))
    return gen.new_input(dt, tuple(sub))


def gen_boolean_index(gen):
    src = gen.pick()
    if src is None:
        return None
    shape = gen.shape_of(src)
    mask = _mask_for(gen, shape)
    return {"op": "boolean_index", "out": gen.name("b"), "src": src, "mask": mask}


def eval_boolean_index(values, op):
    t, m = values[op["src"]], values[op["mask"]]
    if m.data.dtype != np.bool_:
        raise IndexError("a mask must be bool")
    data, err = t.data[m.data], t.err[m.data]
    values[op["out"]] = Tracked(np.array(data, order="C"), np.array(err, order="C"))
    return [op["out"]]


def gen_boolean_index_assign(gen):
    dst = gen.pick()
    if dst is None:
        return None
    shape = gen.shape_of(dst)
    mask = _mask_for(gen, shape)
    m = gen.values[mask].data
    try:
        sel = gen.values[dst].data[m].shape
    except Exception:
        sel = shape
    if len(m.shape) == len(shape):
        # A mask over every axis takes 0-d or 1-d values of one element or of the count (numpy's
        # rule, selection.hpp): the general broadcasting rule would let kjarni refuse a 2-d value.
        sel = sel[-1:] if gen.rng.random() < 0.7 else ()
    return {"op": "boolean_index_assign", "dst": dst, "mask": mask, "value": _values_for(gen, dst, sel)}


def _assign_converted(dst, key, v):
    """dst[key] = v as numpy does it (an unsafe cast, as astype), with astype's bound."""
    converted = np.asarray(v.data).astype(dst.data.dtype)
    err = bounds.finish(converted, astype_bound(v.data, v.err, converted, dst.data.dtype), [v.err]) \
        if v.data.dtype != dst.data.dtype else v.err
    # The key's arrays copied first: a mask or index array may be dst itself (a1[a1] = a2), which the
    # data's assignment changes before the error's.
    key = tuple(np.array(k) if isinstance(k, np.ndarray) else k for k in key) if isinstance(key, tuple) \
        else np.array(key) if isinstance(key, np.ndarray) else key
    dst.data[key] = converted
    dst.err[key] = err


def eval_boolean_index_assign(values, op):
    dst, m, v = values[op["dst"]], values[op["mask"]], values[op["value"]]
    if m.data.dtype != np.bool_:
        raise IndexError("a mask must be bool")
    with np.errstate(all="ignore"):
        _assign_converted(dst, m.data, v)
    return [op["dst"]]


def gen_integer_index(gen):
    src = gen.pick(lambda s, d: len(s) >= 1)
    if src is None:
        return None
    shape = gen.shape_of(src)
    axis = int(gen.rng.integers(0, len(shape)))
    return {"op": "integer_index", "out": gen.name("x"), "src": src, "indices": _indices_for(gen, shape[axis]),
            "axis": axis}


def _key(op, ndim, idx):
    if not 0 <= op["axis"] < ndim:
        raise IndexError("axis out of range")
    return (slice(None),) * op["axis"] + (idx,)


def eval_integer_index(values, op):
    t, i = values[op["src"]], values[op["indices"]]
    key = _key(op, t.data.ndim, i.data)
    data, err = t.data[key], t.err[key]
    values[op["out"]] = Tracked(np.array(data, order="C"), np.array(err, order="C"))
    return [op["out"]]


def gen_integer_index_assign(gen):
    dst = gen.pick(lambda s, d: len(s) >= 1)
    if dst is None:
        return None
    shape = gen.shape_of(dst)
    axis = int(gen.rng.integers(0, len(shape)))
    indices = _indices_for(gen, shape[axis])
    sel = shape[:axis] + gen.shape_of(indices) + shape[axis + 1:]
    return {"op": "integer_index_assign", "dst": dst, "indices": indices, "axis": axis,
            "value": _values_for(gen, dst, sel)}


def eval_integer_index_assign(values, op):
    dst, i, v = values[op["dst"]], values[op["indices"]], values[op["value"]]
    key = _key(op, dst.data.ndim, i.data)
    # numpy writes repeated indices in order (the last occurrence's value stays), as kjarni promises.
    with np.errstate(all="ignore"):
        _assign_converted(dst, key, v)
    return [op["dst"]]


def gen_argwhere(gen):
    from .ordering import _exact_picks
    names = [n for n in _exact_picks(gen, False) if gen.values[n].data.ndim >= 1]
    if not names:
        return None
    return {"op": "argwhere", "out": gen.name("w"), "src": str(gen.rng.choice(names))}


def eval_argwhere(values, op):
    t = values[op["src"]]
    if t.data.ndim == 0:
        raise ValueError("argwhere of a 0-d array")  # kjarni's ArgumentError (selection.hpp)
    data = np.argwhere(t.data)
    values[op["out"]] = Tracked(data, np.zeros(data.shape))
    return [op["out"]]


def render(op):
    name = op["op"]
    if name == "boolean_index":
        return f"{op['out']} = {op['src']}[{op['mask']}]"
    if name == "boolean_index_assign":
        return f"{op['dst']}[{op['mask']}] = {op['value']}"
    colons = ":, " * op.get("axis", 0)
    if name == "integer_index":
        return f"{op['out']} = {op['src']}[{colons}{op['indices']}]"
    if name == "integer_index_assign":
        return f"{op['dst']}[{colons}{op['indices']}] = {op['value']}"
    return f"{op['out']} = np.argwhere({op['src']})"
