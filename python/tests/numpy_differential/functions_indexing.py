"""Random programs of the numpy functions of kjarni/_numpy_indexing.py (see functions.py for the
conventions: a program's code, its inputs and its bound) and the options lifted from roll (several
shifts and axes), repeat (a count per element) and meshgrid (sparse=True, copy=False) in
_numpy_shapes.py.

Every one of them selects, moves or converts elements: all are exact. The functions that write
into an array (put, putmask, place, copyto, fill_diagonal, put_along_axis) end with `r = a`, the
array written, and the result where they give one. Values converted from a float or complex
dtype into uint32 (put, copyto with casting='unsafe', insert, choose...) count as the documented
`float-to-int` difference (numpy's two conversions of NaN and out-of-range values), as gen_astype's.

KJARNI_PY_FUZZ_ONLY=indexing draws only these generators."""

import os

import numpy as np

from .functions import _program, _random_axis, _random_shape_nd, device_input
from .programs import Device, Host, python_scalar
from .values import broadcast_partner, pick, random_dtype, random_shape


def _cast_known(sources, target):
    """functions.py's known() and `float-to-int` where float or complex values go into uint32."""
    def known(np_outcome, kj_outcome, program):
        if np.dtype(target) == np.uint32 and any(np.dtype(s).kind in "fc" for s in sources) and np_outcome[0] \
                and kj_outcome[0]:
            return "float-to-int"
        return program.base_known(np_outcome, kj_outcome, program)
    return known


def _exact(name, code, inputs, sources=(), target=None, refused=False):
    program = _program(name, code, inputs, None, refused=refused)
    if target is not None and sources:
        program.base_known = program.known
        program.known = _cast_known(sources, target)
    return program


def _indices(rng, n, count, spill=0.05):
    """`count` indices into an axis of `n` (negative ones too), rarely one past it."""
    idx = rng.integers(-n, n, count) if n else np.zeros(count, np.int64)
    if count and rng.random() < spill:
        idx[int(rng.integers(count))] = n + int(rng.integers(0, 3))
    return idx


def _index_input(rng, idx):
    """Index values as numpy or kjarni take them: a device array, a host array, a list."""
    form = pick(rng, ["device", "host", "list"], [0.5, 0.3, 0.2])
    dtype = pick(rng, [np.int64, np.int32, np.int16, np.uint8]) if (idx >= 0).all() else \
        pick(rng, [np.int64, np.int32, np.int16])
    if form == "device":
        return Device(np.asarray(idx).astype(dtype))
    if form == "host":
        return Host(np.asarray(idx).astype(dtype))
    return Host([int(x) for x in np.asarray(idx).reshape(-1)])


def _values_dtype(rng, da):
    return da if rng.random() < 0.6 else random_dtype(rng)


# ---- along an axis ----------------------------------------------------------------------------------

def gen_along_axis(rng):
    name = pick(rng, ["take_along_axis", "put_along_axis"])
    da = random_dtype(rng)
    shape = _random_shape_nd(rng, 1)
    nd = len(shape)
    inputs = {"a": device_input(rng, da, shape)}
    axis = _random_axis(rng, nd) if rng.random() < 0.9 else -1
    if axis is None:
        ishape = (int(rng.integers(0, 6)),) if rng.random() < 0.95 else shape
        n = int(np.prod(shape))
    else:
        ax = axis % nd if -nd <= axis < nd else 0
        ishape = tuple(int(rng.integers(0, 4)) if d == ax else (1 if rng.random() < 0.3 else s)
                       for d, s in enumerate(shape))
        if rng.random() < 0.05:
            ishape = ishape[1:]  # numpy's ValueError: other dimensions
        n = shape[ax] if nd else 1
    idx = _indices(rng, n, int(np.prod(ishape, dtype=np.int64))).reshape(ishape)
    kind = pick(rng, ["device", "host"], [0.7, 0.3])
    dtype = pick(rng, [np.int64, np.int32, np.int8]) if rng.random() < 0.97 else np.float64
    inputs["k"] = (Device if kind == "device" else Host)(idx.astype(dtype))
    if name == "take_along_axis":
        code = f"r = np.take_along_axis(a, k, {axis})" if rng.random() < 0.7 else \
            f"r = np.take_along_axis(a, k, axis={axis})"
        return _exact("function take_along_axis", code, inputs)
    dv = _values_dtype(rng, da)
    if rng.random() < 0.5:
        inputs["s"] = Host(python_scalar(rng, "int" if da.kind in "iub" else None))
        value = "s"
    else:
        inputs["v"] = device_input(rng, dv, ishape if rng.random() < 0.8 else ishape[-1:], "small")
        value = "v"
    code = f"np.put_along_axis(a, k, {value}, {axis})\nr = a"
    return _exact("function put_along_axis", code, inputs, (dv,) if value == "v" else (), da)


# ---- writing into the array given -------------------------------------------------------------------

def gen_write(rng):
    name = pick(rng, ["put", "putmask", "place", "copyto", "fill_diagonal"], [1.2, 1, 1, 1.5, 0.8])
    da = random_dtype(rng)
    shape = _random_shape_nd(rng, 2) if name == "fill_diagonal" else random_shape(rng)
    if name == "fill_diagonal" and len(shape) > 2 and rng.random() < 0.8:
        shape = (shape[0],) * len(shape)
    inputs = {"a": device_input(rng, da, shape)}
    size = int(np.prod(shape, dtype=np.int64))
    dv = _values_dtype(rng, da)
    sources = (dv,)
    if rng.random() < 0.3 and name != "copyto":
        inputs["s"] = Host(python_scalar(rng) if rng.random() < 0.5 else [python_scalar(rng, "int")
                                                                          for _ in range(int(rng.integers(0, 4)))])
        value, sources = "s", ()
    else:
        inputs["v"] = device_input(rng, dv, (int(pick(rng, [0, 1, 2, 3, 5])),) if rng.random() < 0.8
                                   else random_shape(rng))
        value = "v"
    if name == "put":
        mode = pick(rng, [None, "raise", "wrap", "clip"])
        inputs["k"] = _index_input(rng, _indices(rng, size, int(rng.integers(0, 6))) * (3 if mode in ("wrap", "clip")
                                                                                          else 1))
        code = f"np.put(a, k, {value}" + ("" if mode is None else f", mode={mode!r}") + ")\nr = a"
    elif name in ("putmask", "place"):
        mshape = shape if rng.random() < 0.8 else (size,) if rng.random() < 0.9 else (size + 1,)
        mdtype = np.bool_ if rng.random() < 0.85 else random_dtype(rng)
        inputs["m"] = device_input(rng, mdtype, mshape) if rng.random() < 0.7 else \
            Host(device_input(rng, mdtype, mshape).numpy())
        code = f"np.{name}(a, m, {value})\nr = a"
    elif name == "copyto":
        casting = pick(rng, [None, "same_kind", "safe", "unsafe", "no", "equiv"], [3, 1, 1, 1.5, 0.5, 0.3])
        if rng.random() < 0.3:
            inputs["s"] = Host(python_scalar(rng))
            value, sources = "s", ()
        else:
            inputs["v"] = device_input(rng, dv, broadcast_partner(rng, shape))
            if rng.random() < 0.2:
                inputs["v"] = Host(inputs["v"].numpy())
        options = [] if casting is None else [f"casting={casting!r}"]
        if rng.random() < 0.3:
            inputs["m"] = device_input(rng, np.bool_, broadcast_partner(rng, shape))
            options.append("where=m")
        code = f"np.copyto(a, {', '.join([value] + options)})\nr = a"
        if casting != "unsafe":
            sources = ()
    else:
        wrap = pick(rng, [None, True, False])
        code = f"np.fill_diagonal(a, {value}" + ("" if wrap is None else f", wrap={wrap}") + ")\nr = a"
    return _exact("function " + name, code, inputs, sources, da)


# ---- selections -------------------------------------------------------------------------------------

def gen_selection(rng):
    name = pick(rng, ["compress", "extract", "choose", "select"])
    da = random_dtype(rng)
    shape = random_shape(rng)
    nd = len(shape)
    inputs = {"a": device_input(rng, da, shape)}
    size = int(np.prod(shape, dtype=np.int64))
    if name in ("compress", "extract"):
        axis = _random_axis(rng, nd) if name == "compress" else None
        n = size if axis is None else (shape[axis] if -nd <= axis < nd else 2)
        length = n if rng.random() < 0.7 else max(0, n + int(rng.integers(-2, 3)))
        cdtype = np.bool_ if rng.random() < 0.8 else random_dtype(rng)
        cshape = (length,) if name == "compress" or rng.random() < 0.5 else (shape if length == n else (length,))
        if rng.random() < 0.03:
            cshape = (length, 1)
        inputs["c"] = device_input(rng, cdtype, cshape) if rng.random() < 0.7 else \
            Host(device_input(rng, cdtype, cshape).numpy())
        if name == "extract":
            return _exact("function extract", "r = np.extract(c, a)", inputs)
        args = ["c", "a"] + ([] if axis is None and rng.random() < 0.5 else [f"axis={axis}"])
        return _exact("function compress", f"r = np.compress({', '.join(args)})", inputs)
    if name == "choose":
        count = int(rng.integers(1, 5))
        names = []
        dtypes = []
        for j in range(count):
            if rng.random() < 0.15:
                inputs[f"s{j}"] = Host(python_scalar(rng, pick(rng, ["int", "float"])))
                names.append(f"s{j}")
            else:
                dj = da if rng.random() < 0.6 else random_dtype(rng)
                dtypes.append(dj)
                inputs[f"c{j}"] = device_input(rng, dj, broadcast_partner(rng, shape))
                names.append(f"c{j}")
        mode = pick(rng, [None, "raise", "wrap", "clip"])
        spread = count if mode is None or mode == "raise" else 3 * count
        k = rng.integers(-spread if mode in ("wrap", "clip") else 0, spread, shape)
        if mode in (None, "raise") and size and rng.random() < 0.05:
            k.reshape(-1)[0] = count
        kd = pick(rng, [np.int64, np.int32, np.int8]) if rng.random() < 0.95 else pick(rng, [np.float32, np.uint64])
        inputs["a"] = Device(k.astype(kd)) if rng.random() < 0.7 else Host(k.astype(kd))
        if not any(n.startswith("c") for n in names):
            inputs["c0"] = device_input(rng, da, shape)
            names[0] = "c0"
            dtypes.append(da)
        code = f"r = np.choose(a, [{', '.join(names)}]" + ("" if mode is None else f", mode={mode!r}") + ")"
        target = np.result_type(*dtypes) if dtypes else None
        return _exact("function choose", code, inputs, tuple(d for d in dtypes if d != target), target)
    count = int(rng.integers(1, 4)) if rng.random() < 0.97 else 0
    conds, choices, dtypes = [], [], []
    for j in range(count):
        inputs[f"m{j}"] = device_input(rng, np.bool_ if rng.random() < 0.95 else random_dtype(rng),
                                       broadcast_partner(rng, shape))
        conds.append(f"m{j}")
        if j and rng.random() < 0.15:
            inputs[f"s{j}"] = Host(python_scalar(rng, pick(rng, ["int", "float"])))
            choices.append(f"s{j}")
        else:
            dj = da if rng.random() < 0.6 else random_dtype(rng)
            dtypes.append(dj)
            inputs[f"c{j}"] = device_input(rng, dj, broadcast_partner(rng, shape))
            choices.append(f"c{j}")
    if count and rng.random() < 0.5:
        inputs["d"] = Host(python_scalar(rng, pick(rng, ["int", "float", "bool"])))
        code = f"r = np.select([{', '.join(conds)}], [{', '.join(choices)}], d)"
    else:
        code = f"r = np.select([{', '.join(conds)}], [{', '.join(choices)}])"
    target = np.result_type(*dtypes, 0) if dtypes else None
    return _exact("function select", code, inputs, tuple(d for d in dtypes if d != target), target)


# ---- edits that make a new array ----------------------------------------------------------------------

def gen_edit(rng):
    name = pick(rng, ["insert", "delete", "append", "column_stack", "block", "resize", "trim_zeros", "diagflat"],
                [1.5, 1.5, 1, 0.7, 0.8, 0.8, 1, 0.5])
    da = random_dtype(rng)
    shape = random_shape(rng)
    nd = len(shape)
    inputs = {"a": device_input(rng, da, shape)}
    size = int(np.prod(shape, dtype=np.int64))
    if name in ("insert", "delete"):
        axis = _random_axis(rng, nd)
        n = size if axis is None else (shape[axis] if -nd <= axis < nd else 2)
        form = pick(rng, ["int", "list", "device", "slice", "bool"], [2, 2, 1.5, 1, 0.5])
        top = n + 1 if name == "insert" else n
        if form == "int":
            obj = Host(int(rng.integers(-top, top)) if top and rng.random() < 0.95 else int(rng.integers(-3, 4)) + top)
        elif form == "slice":
            obj = Host(slice(*[None if rng.random() < 0.3 else int(rng.integers(-top - 1, top + 2)) for _ in range(2)],
                             pick(rng, [None, 1, 2, -1, -2])))
        elif form == "bool":
            obj = Host(rng.random(n if rng.random() < 0.9 else n + 1) < 0.5)
        else:
            idx = _indices(rng, top, int(rng.integers(0, 5))) if top else np.zeros(int(rng.integers(0, 2)), np.int64)
            obj = Device(idx) if form == "device" else Host([int(x) for x in idx])
        inputs["k"] = obj
        args = "a, k" + ("" if axis is None and rng.random() < 0.5 else f", axis={axis}")
        if name == "delete":
            return _exact("function delete", f"r = np.delete({args})", inputs)
        dv = _values_dtype(rng, da)
        if rng.random() < 0.3:
            inputs["s"] = Host(python_scalar(rng, "int" if da.kind in "iu" else None))
            return _exact("function insert", f"r = np.insert(a, k, s{args[4:]})", inputs)
        vshape = pick(rng, [(), (1,), (int(rng.integers(1, 4)),), shape[1:], shape])
        inputs["v"] = device_input(rng, dv, vshape)
        return _exact("function insert", f"r = np.insert(a, k, v{args[4:]})", inputs, (dv,), da)
    if name in ("append", "column_stack", "block"):
        db = _values_dtype(rng, da)
        if name == "append":
            axis = _random_axis(rng, nd)
            bshape = list(shape)
            if axis is not None and -nd <= axis < nd and rng.random() < 0.9:
                bshape[axis] = int(rng.integers(0, 3))
            inputs["b"] = device_input(rng, db, tuple(bshape) if rng.random() < 0.95 else random_shape(rng))
            code = "r = np.append(a, b" + ("" if axis is None else f", axis={axis}") + ")"
        elif name == "column_stack":
            rows = shape[0] if nd else 1
            inputs["a"] = device_input(rng, da, (rows,) + tuple(shape[1:2]) if nd < 3 else shape[:2])
            inputs["b"] = device_input(rng, db, (rows,) if rng.random() < 0.9 else (rows + 1,))
            code = pick(rng, ["r = np.column_stack([a, b])", "r = np.column_stack((b, a, b))"])
        else:
            inputs["b"] = device_input(rng, db, broadcast_partner(rng, shape) if rng.random() < 0.3 else shape)
            code = pick(rng, ["r = np.block([a, b])", "r = np.block([[a, b], [b, a]])", "r = np.block([[a], [b]])",
                              "r = np.block(a)", "r = np.block([[[a]], [[b]]])", "r = np.block([a, 1])",
                              "r = np.block([[a], b])", "r = np.block([])"], [3, 2, 2, 0.5, 1, 0.5, 0.3, 0.2])
        return _exact("function " + name, code, inputs)
    if name == "resize":
        new_shape = random_shape(rng) if rng.random() < 0.7 else int(rng.integers(0, 9))
        if rng.random() < 0.03:
            new_shape = (2, -1)
        return _exact("function resize", f"r = np.resize(a, {new_shape!r})", inputs)
    if name == "trim_zeros":
        base = device_input(rng, da, shape, "small")
        values = base.base.copy()
        if values.size and rng.random() < 0.8:
            # zeros around the data (some rows, columns, leading and trailing elements)
            flat = values.reshape(-1)
            flat[:int(rng.integers(0, flat.size + 1))] = 0
            if rng.random() < 0.5:
                flat[flat.size - int(rng.integers(0, flat.size + 1)):] = 0
            if values.ndim >= 2 and rng.random() < 0.5:
                values[:, :int(rng.integers(0, values.shape[1] + 1))] = 0
        inputs["a"] = Device(values, base.view)
        trim = pick(rng, ["fb", "f", "b", "bf", "FB", "x"], [3, 1, 1, 0.5, 0.3, 0.1])
        axis = None if rng.random() < 0.5 else (_random_axis(rng, nd) if rng.random() < 0.7
                                                 else tuple(range(nd))[:int(rng.integers(0, nd + 1))])
        code = "r = np.trim_zeros(a)" if trim == "fb" and axis is None and rng.random() < 0.5 else \
            f"r = np.trim_zeros(a, {trim!r}, axis={axis!r})"
        return _exact("function trim_zeros", code, inputs)
    k = int(rng.integers(-3, 4))
    return _exact("function diagflat", f"r = np.diagflat(a, {k})" if rng.random() < 0.7 else "r = np.diagflat(a)",
                  inputs)


# ---- views and the lifted options of _numpy_shapes.py -------------------------------------------------

def gen_views(rng):
    name = pick(rng, ["unstack", "broadcast_arrays", "rollaxis", "roll", "repeat", "meshgrid"],
                [0.8, 1, 0.8, 1.2, 1.2, 1])
    da = random_dtype(rng)
    shape = random_shape(rng)
    nd = len(shape)
    inputs = {"a": device_input(rng, da, shape)}
    if name == "unstack":
        axis = _random_axis(rng, nd, False)
        return _exact("function unstack", "r = np.unstack(a)" if rng.random() < 0.3 else
                      f"r = np.unstack(a, axis={axis})", inputs)
    if name == "broadcast_arrays":
        names = ["a"]
        for j in range(int(rng.integers(0, 3))):
            inputs[f"b{j}"] = device_input(rng, random_dtype(rng), broadcast_partner(rng, shape))
            names.append(f"b{j}")
        return _exact("function broadcast_arrays", f"r = np.broadcast_arrays({', '.join(names)})", inputs)
    if name == "rollaxis":
        axis = _random_axis(rng, nd, False)
        start = int(rng.integers(-nd - 1, nd + 2))
        return _exact("function rollaxis", f"r = np.rollaxis(a, {axis}, {start})" if rng.random() < 0.8 else
                      f"r = np.rollaxis(a, {axis})", inputs)
    if name == "roll":
        count = int(rng.integers(1, 4))
        shift = tuple(int(x) for x in rng.integers(-7, 8, count))
        axis = None if rng.random() < 0.15 else tuple(_random_axis(rng, nd, False) for _ in range(count))
        if axis is not None and rng.random() < 0.1:
            axis = axis[0]
        if rng.random() < 0.05:
            shift = shift + (1,)  # a length of its own: numpy's ValueError
        return _exact("function roll", f"r = np.roll(a, {shift!r}, {axis!r})", inputs)
    if name == "repeat":
        axis = _random_axis(rng, nd)
        n = int(np.prod(shape, dtype=np.int64)) if axis is None else (shape[axis] if -nd <= axis < nd else 1)
        counts = rng.integers(0, 4, n if rng.random() < 0.95 else max(n - 1, 0) + 2)
        if counts.size and rng.random() < 0.04:
            counts[0] = -1
        form = pick(rng, ["device", "host", "list", "one"], [2, 1, 1, 0.4])
        if form == "device":
            inputs["c"] = Device(counts.astype(pick(rng, [np.int64, np.int32, np.uint8])) if (counts >= 0).all()
                                 else counts)
        elif form == "host":
            inputs["c"] = Host(counts.astype(pick(rng, [np.int64, np.int16])))
        elif form == "list":
            inputs["c"] = Host([int(x) for x in counts])
        else:
            inputs["c"] = Host([int(counts[0]) if counts.size else 2])
        return _exact("function repeat", "r = np.repeat(a, c)" if axis is None else f"r = np.repeat(a, c, axis={axis})",
                      inputs)
    names = ["a"]
    inputs["a"] = device_input(rng, da, (int(rng.integers(0, 5)),) if rng.random() < 0.9 else shape)
    for j in range(int(rng.integers(0, 3))):
        inputs[f"b{j}"] = device_input(rng, random_dtype(rng), (int(rng.integers(0, 5)),))
        names.append(f"b{j}")
    options = [f"indexing={pick(rng, ['xy', 'ij'])!r}"] if rng.random() < 0.6 else []
    options += [f"sparse={pick(rng, [True, False])}"] if rng.random() < 0.7 else []
    options += [f"copy={pick(rng, [True, False])}"] if rng.random() < 0.7 else []
    return _exact("function meshgrid", f"r = np.meshgrid({', '.join(names + options)})", inputs)


# ---- index arithmetic and queries --------------------------------------------------------------------

def gen_index_math(rng):
    name = pick(rng, ["ix_", "unravel_index", "ravel_multi_index", "tril_indices_from", "triu_indices_from",
                      "diag_indices_from"], [1, 1.5, 1.5, 0.5, 0.5, 0.5])
    inputs = {}
    if name == "ix_":
        names = []
        for j in range(int(rng.integers(1, 4))):
            n = int(rng.integers(0, 5))
            dj = pick(rng, [np.int64, np.int32, np.uint8, np.bool_]) if rng.random() < 0.95 else random_dtype(rng)
            inputs[f"i{j}"] = device_input(rng, dj, (n,) if rng.random() < 0.95 else (n, 1), "small") \
                if j == 0 or rng.random() < 0.7 else Host([int(x) for x in rng.integers(0, 5, n)])
            names.append(f"i{j}")
        return _exact("function ix_", f"r = np.ix_({', '.join(names)})", inputs)
    dims = tuple(int(x) for x in rng.integers(1, 5, int(rng.integers(1, 4))))
    if rng.random() < 0.04:
        dims = dims[:-1] + (0,)
    size = int(np.prod(dims))
    order = pick(rng, [None, "C", "F"])
    tail = "" if order is None else f", order={order!r}"
    dtype = pick(rng, [np.int64, np.int32, np.int16, np.uint8, np.bool_]) if rng.random() < 0.96 else \
        pick(rng, [np.float64, np.uint64])
    shape = random_shape(rng, 2)
    if name == "unravel_index":
        idx = rng.integers(0, max(size, 1), shape)
        if idx.size and rng.random() < 0.05:
            idx.reshape(-1)[0] = pick(rng, [size, -1])
        with np.errstate(all="ignore"):
            inputs["i"] = Device(idx.astype(dtype))
        return _exact("function unravel_index", f"r = np.unravel_index(i, {dims!r}{tail})", inputs)
    if name == "ravel_multi_index":
        mode = pick(rng, [None, "raise", "wrap", "clip", "per-axis"])
        modes = [pick(rng, ["raise", "wrap", "clip"]) for _ in dims] if mode == "per-axis" else [mode] * len(dims)
        names = []
        for d, (n, m) in enumerate(zip(dims, modes)):
            checked = m in (None, "raise")
            idx = rng.integers(0 if checked else -3 * n, max(n if checked else 3 * n, 1), broadcast_partner(rng, shape))
            if idx.size and checked and rng.random() < 0.04:
                idx.reshape(-1)[0] = n
            with np.errstate(all="ignore"):
                inputs[f"i{d}"] = Device(idx.astype(dtype if checked or dtype != np.uint8 else np.int16))
            names.append(f"i{d}")
        modes = "" if mode is None else f", mode={mode!r}" if mode != "per-axis" else f", mode={tuple(modes)!r}"
        return _exact("function ravel_multi_index",
                      f"r = np.ravel_multi_index(({', '.join(names)},), {dims!r}{modes}{tail})", inputs)
    shape = _random_shape_nd(rng, 2)
    if name == "diag_indices_from" and shape and rng.random() < 0.8:
        shape = (shape[0],) * len(shape)
    inputs["a"] = device_input(rng, random_dtype(rng), shape)
    if name == "diag_indices_from":
        return _exact("function diag_indices_from", "r = np.diag_indices_from(a)", inputs)
    k = int(rng.integers(-3, 4))
    return _exact("function " + name, f"r = np.{name}(a, {k})" if rng.random() < 0.7 else f"r = np.{name}(a)",
                  inputs)


def gen_queries(rng):
    name = pick(rng, ["array_equiv", "shares_memory", "astype", "result_type", "can_cast", "common_type",
                      "min_scalar_type"])
    da = random_dtype(rng)
    shape = random_shape(rng)
    inputs = {"a": device_input(rng, da, shape)}
    if name == "array_equiv":
        if rng.random() < 0.4:
            code = pick(rng, ["r = np.array_equiv(a, a)", "r = np.array_equiv(a, a[:1])", "r = np.array_equiv(a, a.T)",
                              "r = np.array_equiv(a, a.copy())"])
        else:
            inputs["b"] = device_input(rng, _values_dtype(rng, da), broadcast_partner(rng, shape), "small")
            code = "r = np.array_equiv(a, b)"
        return _exact("function array_equiv", code, inputs)
    if name == "shares_memory":
        first = pick(rng, ["a", "a[1:]", "a[::2]", "a.T", "a[..., ::-1]", "a[:0]", "a.reshape(-1)[1::3]"])
        second = pick(rng, ["a", "a[1:]", "a[1::2]", "a[:1]", "a[..., 1:]", "a.copy()", "a[..., ::-1]"])
        max_work = pick(rng, [None, None, -1])  # (0: numpy's TooHardError, a RuntimeError: the unit test)
        code = f"r = np.shares_memory({first}, {second}" + ("" if max_work is None else f", max_work={max_work}") + ")"
        return _exact("function shares_memory", code, inputs)
    to = random_dtype(rng)
    spelled = pick(rng, [f"np.{to.name}", repr(to.name), f"np.dtype({to.name!r})"])
    if name == "astype":
        copy = pick(rng, [None, True, False])
        code = f"r = np.astype(a, {spelled}" + ("" if copy is None else f", copy={copy}") + ")"
        return _exact("function astype", code, inputs, (da,), to)
    if name == "result_type":
        others = [pick(rng, [spelled, repr(python_scalar(rng)), "b"]) for _ in range(int(rng.integers(0, 3)))]
        if "b" in others:
            inputs["b"] = device_input(rng, random_dtype(rng), random_shape(rng))
        others = [o if "nan" not in o and "inf" not in o else "1.5" for o in others]
        return _exact("function result_type", f"r = np.result_type(a, {', '.join(others)})", inputs)
    if name == "can_cast":
        casting = pick(rng, [None, "no", "equiv", "safe", "same_kind", "unsafe"])
        return _exact("function can_cast", f"r = np.can_cast(a, {spelled}" +
                      ("" if casting is None else f", {casting!r}") + ")", inputs)
    if name == "common_type":
        inputs["b"] = device_input(rng, random_dtype(rng, "iufc" if rng.random() < 0.95 else None), (2,))
        return _exact("function common_type", "r = np.common_type(a, b)", inputs)
    return _exact("function min_scalar_type", "r = np.min_scalar_type(a)", inputs)


GENERATORS = [
    (gen_along_axis, 1), (gen_write, 2), (gen_selection, 1.5), (gen_edit, 2), (gen_views, 1.5),
    (gen_index_math, 1), (gen_queries, 1),
]

if os.environ.get("KJARNI_PY_FUZZ_ONLY") == "indexing":
    # Only these generators drawn (to fuzz them alone): the others' weights, in the lists programs.py
    # has read or is reading (it imports this module before functions_sets and functions_polynomial:
    # those are imported here first), made 0.
    from . import functions, functions_composed, functions_polynomial, functions_sets, programs
    for _module in (programs, functions, functions_composed, functions_sets, functions_polynomial):
        _module.GENERATORS[:] = [(g, 0.0) for g, _ in _module.GENERATORS]

