"""numpy's functions that make views and copies of kjarni arrays (new arrays shaped like another,
expand_dims, flips, quarter turns, views of other strides over the array's buffer, real and imag,
repeat, tile, meshgrid, triu and tril): kjarni/_numpy_common.py says what they share."""

import operator

import numpy

from . import _kjarni
from .errors import ArgumentError, ArgumentTypeError
from ._numpy_common import Array, Expr, _queue, _evaluated, _axes, _new_like


def _zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return _new_like("zeros_like", a, dtype, shape, 0)


def _ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return _new_like("ones_like", a, dtype, shape, 1)


def _empty_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return _new_like("empty_like", a, dtype, shape, None)


def _full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return _new_like("full_like", a, dtype, shape, fill_value)


def _expand_dims(a, axis):
    ndim = a.ndim + (1 if isinstance(axis, (int, numpy.integer)) else len(tuple(axis)))
    axes = _axes(axis, ndim, "expand_dims")
    dims = iter(a.shape)
    return a.reshape(tuple(1 if k in axes else next(dims) for k in range(ndim)))


def _moveaxis(a, source, destination):
    source, destination = _axes(source, a.ndim, "moveaxis"), _axes(destination, a.ndim, "moveaxis")
    if len(source) != len(destination):
        raise ArgumentError("numpy.moveaxis: `source` and `destination` must have the same number of elements",
                            "destination")
    order = [n for n in range(a.ndim) if n not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return a.transpose(order)


def _matrix_transpose(x):
    if x.ndim < 2:
        raise ArgumentError(f"numpy.matrix_transpose: the array has {x.ndim} dimensions, at least 2 wanted", "x")
    return x.swapaxes(-1, -2)


def _atleast(name):
    def atleast(*arys):
        results = []
        for a in arys:
            view = getattr(_kjarni, name)(a)
            view.queue = getattr(a, "queue", None)
            results.append(view)
        return results[0] if len(results) == 1 else tuple(results)
    return atleast


def _splitter(name, with_axis):
    def split(ary, indices_or_sections, axis=0):
        args = (ary, indices_or_sections, axis) if with_axis else (ary, indices_or_sections)
        parts = getattr(_kjarni, name)(*args)
        for part in parts:
            part.queue = getattr(ary, "queue", None)
        return list(parts)
    return split


def _flip(m, axis=None):
    axes = range(m.ndim) if axis is None else _axes(axis, m.ndim, "flip")
    return m[tuple(slice(None, None, -1) if k in axes else slice(None) for k in range(m.ndim))]


def _fliplr(m):
    if m.ndim < 2:
        raise ArgumentError("numpy.fliplr: the array must have at least 2 dimensions", "m")
    return _flip(m, 1)


def _flipud(m):
    if m.ndim < 1:
        raise ArgumentError("numpy.flipud: the array must have at least 1 dimension", "m")
    return _flip(m, 0)


def _rot90(m, k=1, axes=(0, 1)):
    # numpy's: k quarter turns from axes[0] towards axes[1], as flips and a transpose (views).
    if len(axes) != 2 or m.ndim < 2:
        raise ArgumentError("numpy.rot90: two axes of an array of at least 2 dimensions", "axes")
    a0, a1 = _axes(axes, m.ndim, "rot90")
    k %= 4
    if k == 0:
        return m[...]
    if k == 2:
        return _flip(_flip(m, a0), a1)
    order = list(range(m.ndim))
    order[a0], order[a1] = order[a1], order[a0]
    if k == 1:
        return _flip(m, a1).transpose(order)
    return _flip(m.transpose(order), a1)


def _strided(a, shape, strides, offset, dtype=None):
    from .dtypes import dtype as kjarni_dtype
    view = Array.from_buffer(a.base, kjarni_dtype(a.dtype if dtype is None else dtype), list(shape), list(strides),
                             offset)
    view.queue = getattr(a, "queue", None)
    return view


def _broadcast_to(array, shape, subok=False):
    # numpy's view of stride 0 along the new and the broadcast axes (numpy's is read-only; writing
    # into kjarni's writes the shared elements).
    shape = (shape,) if isinstance(shape, (int, numpy.integer)) else tuple(shape)
    if numpy.broadcast_shapes(array.shape, shape) != shape:
        raise ArgumentError(f"numpy.broadcast_to: cannot broadcast {array.shape} to {shape}", "shape")
    lead = len(shape) - array.ndim
    strides = [0] * lead + [0 if n == 1 and m != 1 else st
                            for n, m, st in zip(array.shape, shape[lead:], array.strides)]
    return _strided(array, shape, strides, array.offset)


def _diagonal(a, offset=0, axis1=0, axis2=1):
    # numpy's view: the other axes, then the diagonal (one step along both axes).
    if a.ndim < 2:
        raise ArgumentError("numpy.diagonal: the array must have at least 2 dimensions", "a")
    ax1, ax2 = _axes((axis1, axis2), a.ndim, "diagonal")
    rest = [k for k in range(a.ndim) if k not in (ax1, ax2)]
    n1, n2 = a.shape[ax1], a.shape[ax2]
    length = max(0, min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2))
    # (a view of no elements starts where the array does: the diagonal's first element of an empty
    # reversed view would lie before the buffer)
    empty = length == 0 or any(a.shape[k] == 0 for k in rest)
    start = a.offset if empty else a.offset + (offset * a.strides[ax2] if offset >= 0 else -offset * a.strides[ax1])
    return _strided(a, [a.shape[k] for k in rest] + [length], [a.strides[k] for k in rest] +
                    [a.strides[ax1] + a.strides[ax2]], start)


def real(val):
    """numpy's real: of a complex array the view of its real parts, else the array itself."""
    if numpy.dtype(val.dtype).kind != "c":
        return val
    part = numpy.dtype(val.dtype).type(0).real.dtype
    return _strided(val, val.shape, val.strides, val.offset, part)


def imag(val):
    """numpy's imag: of a complex array the view of its imaginary parts, else zeros (numpy's are
    read-only; these a new array)."""
    if numpy.dtype(val.dtype).kind != "c":
        return _new_like("imag", val, None, None, 0)
    part = numpy.dtype(val.dtype).type(0).real.dtype
    return _strided(val, val.shape, val.strides, val.offset + part.itemsize, part)


def _diag(v, k=0):
    # numpy's: of a matrix its k-th diagonal; of a vector the square matrix holding it there.
    if v.ndim == 2:
        return _diagonal(v, k)
    if v.ndim != 1:
        raise ArgumentError("numpy.diag: the input must be 1- or 2-dimensional", "v")
    n = v.shape[0] + abs(k)
    out = _new_like("diag", v, None, (n, n), 0)
    _kjarni.assign(out.queue, _diagonal(out, k), v)
    return out


def _take(a, indices, axis=None, out=None, mode="raise"):
    # (indices from the host, a list or a number, go up first: numpy's take takes any array-like)
    queue = _queue("take", a)
    if not isinstance(indices, Array):
        indices = Array.from_host(queue, numpy.asarray(indices, dtype=numpy.int64))
    from . import _algorithms
    result = _algorithms.take(queue, a, indices, axis, mode)
    if out is not None:
        _kjarni.assign(queue, out, result)
        return out
    return result


def _roll(a, shift, axis=None):
    # numpy's: the elements shifted along `axis` (the flattened array when None), those past the end
    # coming round to the front: two slices joined. Several shifts and axes broadcast together (a
    # repeated axis adds its shifts up), one axis after another.
    queue = _queue("roll", a)
    a = _evaluated(queue, a)
    if axis is None:
        return _roll(a.reshape(-1) if a.is_c_contiguous else a.copy(queue).reshape(-1), shift, 0).reshape(a.shape)
    try:
        pairs = numpy.broadcast(numpy.asarray(shift), numpy.asarray(axis))
    except ValueError as e:
        raise ArgumentError(f"numpy.roll: {e}", "shift") from None
    if pairs.ndim > 1:
        raise ArgumentError("numpy.roll: 'shift' and 'axis' should be scalars or 1D sequences", "shift")
    shifts = {}
    for sh, ax in pairs:
        ax = _axes(operator.index(ax), a.ndim, "roll")[0]
        shifts[ax] = shifts.get(ax, 0) + int(sh)
    from . import _algorithms
    rolled = a
    for ax, total in shifts.items():
        n = rolled.shape[ax]
        k = total % n if n else 0
        if k:
            cut = lambda part: rolled[tuple(part if d == ax else slice(None) for d in range(rolled.ndim))]  # noqa: E731
            rolled = _algorithms.concatenate(queue, [cut(slice(n - k, None)), cut(slice(None, n - k))], axis=ax)
    return rolled.copy(queue) if rolled is a else rolled


def _repeat(a, repeats, axis=None):
    # numpy's: each element `repeats` times along `axis` (the flattened array when None): a new
    # axis of stride 0 after it, joined to it by a copying reshape. A count per element (repeats
    # of the axis' length) gathers each element's index as often as it says: the indices are a
    # search of 0 ... total - 1 in the counts' running sums (the total, the result's length, read
    # back where the counts are on the device).
    queue = _queue("repeat", a, repeats)
    a = _evaluated(queue, a)
    if isinstance(repeats, Expr):
        repeats = _evaluated(queue, repeats)
    # (numpy converts a list or number to intp as numpy.array does; an array must cast safely)
    counts = repeats if isinstance(repeats, (Array, numpy.ndarray, numpy.generic)) else \
        numpy.array(repeats, dtype=numpy.intp)
    if isinstance(counts, numpy.generic):
        counts = numpy.asarray(counts)
    if not numpy.can_cast(counts.dtype, numpy.intp, "safe"):
        raise ArgumentTypeError(f"numpy.repeat: Cannot cast array data from dtype('{counts.dtype}') to "
                                "dtype('int64') according to the rule 'safe'", "repeats")
    data, ax = (a.reshape(-1) if a.is_c_contiguous else a.copy(queue).reshape(-1), 0) if axis is None \
        else (a, _axes(axis, a.ndim, "repeat")[0])
    if counts.ndim == 0 or counts.size == 1:
        if counts.ndim > 1:
            raise ArgumentError("numpy.repeat: repeats must be 0- or 1-dimensional", "repeats")
        count = int(counts.get(queue).reshape(-1)[0]) if isinstance(counts, Array) else int(counts.reshape(-1)[0])
        if count < 0:
            raise ArgumentError("numpy.repeat: repeats may not contain negative values.", "repeats")
        spread = list(data.shape[:ax + 1]) + [count] + list(data.shape[ax + 1:])
        view = _broadcast_to(data.reshape(data.shape[:ax + 1] + (1,) + data.shape[ax + 1:]), tuple(spread))
        shape = list(data.shape)
        shape[ax] *= count
        return view.copy(queue).reshape(tuple(shape))
    if counts.ndim > 1:
        raise ArgumentError("numpy.repeat: repeats must be 0- or 1-dimensional", "repeats")
    n = data.shape[ax]
    if counts.size != n:
        raise ArgumentError(f"numpy.repeat: operands could not be broadcast together with shape ({n},) "
                            f"({counts.size},)", "repeats")
    from . import _algorithms
    if isinstance(counts, numpy.ndarray):
        counts = counts.astype(numpy.int64)
        if (counts < 0).any():
            raise ArgumentError("numpy.repeat: repeats may not contain negative values.", "repeats")
        index = Array.from_host(queue, numpy.repeat(numpy.arange(n, dtype=numpy.int64), counts))
    else:
        counts = _evaluated(queue, Expr(counts).astype(numpy.int64))
        ends = _algorithms.cumsum(queue, counts, 0)
        # (the smallest count and the total, read back: numpy's check and the result's length)
        low = int(_algorithms.min(queue, counts).get(queue)) if n else 0
        if low < 0:
            raise ArgumentError("numpy.repeat: repeats may not contain negative values.", "repeats")
        total = int(ends[n - 1].get(queue)) if n else 0
        from ._numpy_sorting import _searchsorted
        from ._advanced_index import _arange
        index = _searchsorted(ends, _arange(queue, total), side="right") if total else \
            Array.from_host(queue, numpy.zeros(0, numpy.int64))
    return _algorithms.take(queue, data, index, ax)


def _tile(A, reps):
    # numpy's: A repeated reps[k] times along axis k (A and reps padded with leading 1s to one
    # length): a view of stride 0 before each axis, copied into the joined shape.
    reps = (reps,) if isinstance(reps, (int, numpy.integer)) else tuple(reps)
    queue = _queue("tile", A)
    ndim = max(A.ndim, len(reps))
    reps = (1,) * (ndim - len(reps)) + tuple(int(r) for r in reps)
    data = A.reshape((1,) * (ndim - A.ndim) + tuple(A.shape))
    paired = tuple(x for r, n in zip(reps, data.shape) for x in (1, n))
    spread = tuple(x for r, n in zip(reps, data.shape) for x in (r, n))
    view = _broadcast_to(data.reshape(paired), spread)
    return view.copy(queue).reshape(tuple(r * n for r, n in zip(reps, data.shape)))


def _meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    # numpy's: each vector along its own axis ('xy' swaps the first two), broadcast to the full
    # grid (sparse=False) or left with extents of 1 elsewhere (sparse=True); views with copy=False
    # (numpy's broadcast views: writing into one writes the shared elements), copies otherwise.
    if indexing not in ("xy", "ij"):
        raise ArgumentError("numpy.meshgrid: Valid values for `indexing` are 'xy' and 'ij'.", "indexing")
    queue = _queue("meshgrid", *xi)
    xi = [_evaluated(queue, x) if isinstance(x, Expr) else x for x in xi]
    n = len(xi)
    shape = [x.size for x in xi]
    if indexing == "xy" and n > 1:
        shape[0], shape[1] = shape[1], shape[0]
    grids = []
    for k, x in enumerate(xi):
        axis = (1 if k == 0 else 0 if k == 1 else k) if indexing == "xy" and n > 1 else k
        if not x.is_c_contiguous:
            x = x.copy(queue)
        lined = x.reshape(tuple(-1 if d == axis else 1 for d in range(n)))
        grid = lined if sparse else _broadcast_to(lined, tuple(shape))
        grids.append(grid.copy(queue) if copy else grid)
    # numpy 2.4's meshgrid gives a tuple but its sparse grids without copies a list; 2.5 a tuple
    # always: the type the installed numpy gives.
    return type(numpy.meshgrid(numpy.zeros(1), sparse=sparse, copy=copy))(grids)


def _triangle(what, m, k, upper):
    # numpy's triu / tril: zeros below (above) the k-th diagonal of the last two axes, where() of
    # the column less the row against k (an Expr of m's dtype); a vector is the rows of a square
    # matrix, as numpy's mask of its shape broadcasts it.
    if m.ndim == 0:
        raise ArgumentError(f"numpy.{what}: the array must have at least 1 dimension (numpy's TypeError)", "m")
    queue = _queue(what, m)
    rows, columns = (m.shape[0], m.shape[0]) if m.ndim == 1 else m.shape[-2:]
    row = Array.from_host(queue, numpy.arange(rows, dtype=numpy.int64).reshape(rows, 1))
    column = Array.from_host(queue, numpy.arange(columns, dtype=numpy.int64).reshape(1, columns))
    offset = Expr(column) - row
    keep = offset >= int(k) if upper else offset <= int(k)
    return _kjarni.where(keep, m, numpy.zeros((), numpy.dtype(m.dtype))[()])


def _triu(m, k=0):
    return _triangle("triu", m, k, True)


def _tril(m, k=0):
    return _triangle("tril", m, k, False)


def functions():
    """numpy's function object -> its composition here (those numpy has)."""
    table = {
        "zeros_like": _zeros_like, "ones_like": _ones_like, "empty_like": _empty_like, "full_like": _full_like,
        "expand_dims": _expand_dims, "moveaxis": _moveaxis, "matrix_transpose": _matrix_transpose,
        "atleast_1d": _atleast("atleast_1d"), "atleast_2d": _atleast("atleast_2d"),
        "atleast_3d": _atleast("atleast_3d"),
        "array_split": _splitter("array_split", True), "hsplit": _splitter("hsplit", False),
        "vsplit": _splitter("vsplit", False), "dsplit": _splitter("dsplit", False),
        "flip": _flip, "fliplr": _fliplr, "flipud": _flipud, "rot90": _rot90, "take": _take, "roll": _roll,
        "broadcast_to": _broadcast_to, "diagonal": _diagonal, "diag": _diag, "repeat": _repeat, "tile": _tile,
        "meshgrid": _meshgrid, "real": real, "imag": imag, "triu": _triu, "tril": _tril,
    }
    return {getattr(numpy, name): f for name, f in table.items() if hasattr(numpy, name)}
