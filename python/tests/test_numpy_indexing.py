"""numpy's indexing and array-editing functions on kjarni arrays (kjarni/_numpy_indexing.py) and the
options lifted from roll, repeat and meshgrid (kjarni/_numpy_shapes.py), against numpy 2.4 on the
same random data: every call runs once on numpy arrays and once on kjarni copies of them (through
the same views), and must give numpy's dtype, shape and values, leave the arrays it writes into as
numpy leaves them, or raise numpy's exception class. Everything here selects, moves or converts
elements (no arithmetic that rounds), so every comparison is exact."""

import warnings

import numpy

import kjarni
from numpy_comparison import device, host, random

ALL = [numpy.dtype(t) for t in ("bool int8 uint8 int16 uint16 int32 uint32 int64 uint64 float16 float32 float64 "
                                "complex64 complex128").split()]


class H:
    """An input given to both sides as it is (a host index array, a list, a number)."""
    def __init__(self, value):
        self.value = value


def _outcome(f, inputs):
    try:
        with warnings.catch_warnings(), numpy.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return True, f(*inputs)
    except Exception as e:  # noqa: BLE001 (an exception is an outcome to compare)
        return False, e


class _Result:
    def __init__(self, kind, value):
        self.kind, self.value = kind, value

    def __repr__(self):
        return f"{self.kind} {self.value!r}"


def _as_host(queue, value):
    if isinstance(value, (tuple, list)):
        return type(value)(_as_host(queue, v) for v in value)
    if isinstance(value, (kjarni.Array, kjarni.Expr)):
        return _Result("array", host(queue, value))
    if isinstance(value, (numpy.ndarray, numpy.generic)):
        return _Result("array", numpy.asarray(value))
    return _Result("value", value)


def _assert_same(got, want, what):
    if isinstance(want, (tuple, list)):
        assert type(got) is type(want) and len(got) == len(want), (what, got, want)
        for g, w in zip(got, want):
            _assert_same(g, w, what)
        return
    assert got.kind == want.kind, (what, got, want)
    g, w = got.value, want.value
    if want.kind == "array":
        assert g.dtype == w.dtype and g.shape == w.shape, (what, g.dtype, w.dtype, g.shape, w.shape)
        numpy.testing.assert_array_equal(g, w, err_msg=what)
    else:
        assert type(g) is type(w) and g == w, (what, g, w)


def check(queue, f, *inputs, view=None, label=""):
    """f on numpy arrays and on kjarni copies of them (host inputs, H(...), as they are), each array
    first seen through `view` when given: the same result, the same arrays afterwards (numpy's
    in-place writes), or an exception of numpy's class."""
    view = view or (lambda x: x)
    bases = [x.copy() if isinstance(x, numpy.ndarray) else x for x in inputs]
    devices = [device(queue, x) if isinstance(x, numpy.ndarray) else x for x in inputs]
    args_np = [view(b) if isinstance(b, numpy.ndarray) else b.value if isinstance(b, H) else b for b in bases]
    args_kj = [view(d) if isinstance(d, kjarni.Array) else d.value if isinstance(d, H) else d for d in devices]
    np_ok, want = _outcome(f, args_np)
    kj_ok, got = _outcome(f, args_kj)
    if not np_ok:
        assert not kj_ok, f"{label}: numpy raised {type(want).__name__}: {want}; kjarni gave {got!r}"
        assert isinstance(got, type(want)), f"{label}: numpy raised {type(want).__name__}: {want}; kjarni " \
                                            f"{type(got).__name__}: {got}"
        return None
    assert kj_ok, f"{label}: kjarni raised {type(got).__name__}: {got}; numpy gave {want!r}"
    _assert_same(_as_host(queue, got), _as_host(queue, want), label)
    for b, d in zip(bases, devices):
        if isinstance(b, numpy.ndarray):
            _assert_same(_as_host(queue, d), _as_host(queue, b), label + " (the array written into)")
    return want


def raises_as_numpy(queue, f, *inputs, label=""):
    """check() of a call numpy refuses: kjarni must refuse it with numpy's exception class."""
    bases = [x.copy() if isinstance(x, numpy.ndarray) else x.value if isinstance(x, H) else x for x in inputs]
    np_ok, want = _outcome(f, bases)
    assert not np_ok, f"{label}: numpy did not raise ({want!r}): the test would not test a refusal"
    check(queue, f, *inputs, label=label)


VIEWS = {
    "plain": lambda x: x,
    "transposed": lambda x: x.T,
    "reversed": lambda x: x[::-1],
    "strided": lambda x: x[::2],
}


# ---- along an axis --------------------------------------------------------------------------------

def test_take_and_put_along_axis_as_numpy(queue, rng):
    for dtype in ALL:
        a = random(rng, (4, 5), dtype)
        for axis in (0, 1, -1, -2):
            n = a.shape[axis]
            shape = (3, 5) if axis in (0, -2) else (4, 3)
            indices = rng.integers(-n, n, shape)
            for name, view in VIEWS.items():
                if name != "transposed":
                    check(queue, lambda x, i: numpy.take_along_axis(x, i, axis), a, indices, view=view,
                          label=f"take {dtype} {name}")
            check(queue, lambda x, i: numpy.put_along_axis(x, i, x[:1, :1] if dtype.kind == "b" else 7, axis), a,
                  indices, label=f"put {dtype} {axis}")
        values = random(rng, (4, 3), dtype)
        check(queue, lambda x, i, v: numpy.put_along_axis(x, i, v, 1), a, rng.integers(0, 5, (4, 3)), values,
              label=f"put values {dtype}")
    a = random(rng, (3, 4, 2), numpy.int32)
    # broadcasting the other axes, device and host indices of other integer dtypes, axis None
    check(queue, lambda x, i: numpy.take_along_axis(x, i, 1), a, rng.integers(0, 4, (1, 6, 2)).astype(numpy.int16))
    check(queue, lambda x, i: numpy.take_along_axis(x, i, 1), a, H(rng.integers(-4, 4, (3, 2, 1))))
    check(queue, lambda x, i: numpy.take_along_axis(x, i, None), a, rng.integers(-24, 24, 7))
    check(queue, lambda x, i: numpy.take_along_axis(x, i, 1), a, numpy.zeros((3, 0, 2), numpy.int64))
    check(queue, lambda x, i: numpy.put_along_axis(x, i, 5, None), a, numpy.array([0, 23, -1]))
    check(queue, lambda x, i: numpy.put_along_axis(x, i, [[[9]], [[8]], [[7]]], 2), a,
          rng.integers(0, 2, (3, 4, 1)), view=lambda x: x[:, ::-1] if x.ndim == 3 else x)
    for bad in (rng.integers(4, 9, (3, 1, 2)), rng.integers(0, 4, (3, 4)), rng.integers(0, 4, (2, 4, 2)),
                rng.random((3, 1, 2)), rng.random((3, 1, 2)) < 0.5):
        raises_as_numpy(queue, lambda x, i: numpy.take_along_axis(x, i, 1), a, bad)
        raises_as_numpy(queue, lambda x, i: numpy.put_along_axis(x, i, 1, 1), a, bad)
    raises_as_numpy(queue, lambda x, i: numpy.take_along_axis(x, i, 3), a, rng.integers(0, 2, (3, 4, 2)))
    raises_as_numpy(queue, lambda x, i: numpy.take_along_axis(x, i, None), a, rng.integers(0, 2, (3, 4, 2)))
    # axis None writes into a C-contiguous array's elements; numpy's copy of another is read-only
    raises_as_numpy(queue, lambda x, i: numpy.put_along_axis(x.T, i, 1, None), a, numpy.array([0, 1]))


# ---- writing into the array given -----------------------------------------------------------------

def test_put_as_numpy(queue, rng):
    for dtype in ALL:
        a = random(rng, (4, 6), dtype)
        v = random(rng, (3,), dtype)
        for name, view in VIEWS.items():
            for mode in ("raise", "wrap", "clip"):
                n = a.size // (2 if name == "strided" else 1)
                indices = rng.integers(-n if mode == "raise" else -3 * n, n if mode == "raise" else 3 * n, 7)
                check(queue, lambda x, i, v: numpy.put(x, i, v, mode=mode), a, indices, v, view=view,
                      label=f"put {dtype} {name} {mode}")
        check(queue, lambda x: numpy.put(x, [[0, 5], [-1, 5]], [1, 0]), a, label=f"put list {dtype}")
    a = random(rng, (4, 6), numpy.int8)
    check(queue, lambda x, i: numpy.put(x, i, [1.9, -2.5, 3]), a, H(numpy.array([0, 1, 2], numpy.uint8)))
    check(queue, lambda x, v: numpy.put(x, 3, v), a, random(rng, (2, 2), numpy.float64))
    check(queue, lambda x: numpy.put(x, [], 300), a)  # numpy converts the values first: OverflowError
    check(queue, lambda x: numpy.put(x, [1, 2], []), a)
    check(queue, lambda x: numpy.put(x, [1, 2], 5), numpy.zeros((0, 3), numpy.int8))
    check(queue, lambda x: numpy.put(x, [], 5), numpy.zeros((0, 3), numpy.int8))
    check(queue, lambda x: numpy.put(x, 0, 5), numpy.array(2.5))
    for indices in ([0, 24], [-25], numpy.array([3, 100], numpy.int16)):
        raises_as_numpy(queue, lambda x, i: numpy.put(x, i, 1), a, indices)
    raises_as_numpy(queue, lambda x: numpy.put(x, [0], 1, mode="other"), a)
    raises_as_numpy(queue, lambda x: numpy.put(x, [0], 1j), a)
    raises_as_numpy(queue, lambda x: numpy.put(x, [0], -1), numpy.zeros(3, numpy.uint8))


def test_putmask_and_place_as_numpy(queue, rng):
    for dtype in ALL:
        a = random(rng, (4, 5), dtype)
        mask = rng.random((4, 5)) < 0.5
        for name, view in VIEWS.items():
            for values in (random(rng, (3,), dtype), random(rng, (2, 2), dtype), random(rng, (20,), dtype)):
                check(queue, lambda x, m, v: numpy.putmask(x, m, v), a, mask, values, view=view,
                      label=f"putmask {dtype} {name}")
                check(queue, lambda x, m, v: numpy.place(x, m, v), a, mask, values, view=view,
                      label=f"place {dtype} {name}")
    a = random(rng, (4, 5), numpy.int16)
    for f in (numpy.putmask, numpy.place):
        check(queue, lambda x, m: f(x, m, 2), a, rng.integers(0, 2, (20,)))  # any shape of the size, truth values
        check(queue, lambda x, m: f(x, m, [1.5, 2.5]), a, H(rng.random((5, 4)) < 0.5))
        check(queue, lambda x, m, v: f(x, m, v), a, rng.random((4, 5)) < 0.5, numpy.array([1, 2], numpy.int8))
        check(queue, lambda x, m: f(x, m, []), a, numpy.zeros((4, 5), bool))
        check(queue, lambda x, m: f(x, m, 1), numpy.zeros((0, 2), numpy.int8), numpy.zeros(0, bool))
        raises_as_numpy(queue, lambda x, m, v: f(x, m, v), a, rng.random((4, 5)) < 0.5, numpy.array([1.5]))
        raises_as_numpy(queue, lambda x, m, v: f(x, m, v), a, rng.random((4, 5)) < 0.5, numpy.array([1], numpy.int32))
        raises_as_numpy(queue, lambda x, m: f(x, m, 1), a, rng.random(19) < 0.5)
        raises_as_numpy(queue, lambda x, m: f(x, m, 2 ** 15), a, rng.random(20) < 0.5)
        raises_as_numpy(queue, lambda m: f([1, 2], m, 1), numpy.array([True, False]))
    raises_as_numpy(queue, lambda x, m: numpy.place(x, m, []), a, numpy.ones((4, 5), bool))


def test_copyto_as_numpy(queue, rng):
    # every casting rule over pairs of dtypes (numpy's can_cast decides both sides' refusals)
    pairs = [(s, d) for s in ALL for d in ALL if (ALL.index(s) * 5 + ALL.index(d)) % 7 == 0]
    for src, dst in pairs:
        a = random(rng, (3, 4), dst)
        b = random(rng, (4,), src)
        for casting in ("no", "safe", "same_kind", "unsafe"):
            if dst.kind in "iu" and src.kind in "fc" and casting == "unsafe":
                b = numpy.round(b.real) if src.kind == "c" else numpy.round(b)  # (in range: an exact cast)
            check(queue, lambda x, y: numpy.copyto(x, y, casting=casting), a, b, label=f"{src}->{dst} {casting}")
    a = random(rng, (3, 4), numpy.float32)
    mask = rng.random((3, 4)) < 0.5
    for name, view in VIEWS.items():
        check(queue, lambda x, y, w: numpy.copyto(x, y, where=w), a, random(rng, (3, 4), numpy.float32), mask,
              view=view, label=name)
    check(queue, lambda x, w: numpy.copyto(x, 2.5, where=w), a, H([True, False, False, True]))
    check(queue, lambda x: numpy.copyto(x, x[::-1]), a)  # overlapping: numpy copies the source first
    check(queue, lambda x: numpy.copyto(x, [[1, 2, 3, 4]]), a)
    check(queue, lambda x, y: numpy.copyto(x, y), a, random(rng, (1, 1, 4), numpy.float32))
    check(queue, lambda x, y: numpy.copyto(x, y), a, H(random(rng, (3, 1), numpy.int8)))
    check(queue, lambda x: numpy.copyto(x, numpy.float16(3)), a)
    for scalar in (1, 1.5, True, 1e40, 2 ** 70):
        check(queue, lambda x: numpy.copyto(x, scalar), a, label=repr(scalar))
    i = random(rng, (3,), numpy.int8)
    for scalar, casting in ((300, "same_kind"), (1.5, "same_kind"), (1.5, "unsafe"), (1j, "unsafe"), (-1, "safe"),
                            (1, "equiv"), (True, "no"), (7, "no")):
        check(queue, lambda x: numpy.copyto(x, scalar, casting=casting), i, label=f"{scalar!r} {casting}")
    check(queue, lambda x: numpy.copyto(x, 5), numpy.zeros((2, 0), numpy.int8))
    check(queue, lambda x, y: numpy.copyto(x, y), numpy.array(1.5), numpy.array(2.5))
    raises_as_numpy(queue, lambda x, y: numpy.copyto(x, y), a, random(rng, (3,), numpy.float32))
    raises_as_numpy(queue, lambda x, y: numpy.copyto(x, y), a, random(rng, (2, 3, 4), numpy.float32))
    raises_as_numpy(queue, lambda x: numpy.copyto(x, 1, where=[True, False]), a)
    raises_as_numpy(queue, lambda x: numpy.copyto(x, 1, casting="other"), a)
    raises_as_numpy(queue, lambda y: numpy.copyto([1.0, 2.0], y), numpy.array([1.0, 2.0]))


def test_fill_diagonal_as_numpy(queue, rng):
    for dtype in ALL:
        for shape, wrap in (((5, 3), False), ((7, 3), True), ((3, 5), True), ((4, 4), False), ((3, 3, 3), False),
                            ((2, 0), True)):
            a = random(rng, shape, dtype)
            check(queue, lambda x, v: numpy.fill_diagonal(x, v, wrap=wrap), a, random(rng, (2,), dtype),
                  label=f"{dtype} {shape}")
        check(queue, lambda x, v: numpy.fill_diagonal(x, v), random(rng, (4, 6), dtype), random(rng, (2, 2), dtype),
              view=lambda x: x.T if x.ndim == 2 and x.shape == (4, 6) else x, label=f"{dtype} transposed")
    a = random(rng, (4, 4), numpy.uint8)
    for value in (7, 2.5, [1, 2, 3], [], numpy.float64(9.5)):
        check(queue, lambda x: numpy.fill_diagonal(x, value), a, label=repr(value))
    for value in (300, -1, 1j):
        raises_as_numpy(queue, lambda x: numpy.fill_diagonal(x, value), a)
    raises_as_numpy(queue, lambda x: numpy.fill_diagonal(x, 1), random(rng, (4,), numpy.float32))
    raises_as_numpy(queue, lambda x: numpy.fill_diagonal(x, 1), random(rng, (3, 3, 4), numpy.float32))


# ---- selections -----------------------------------------------------------------------------------

def test_compress_and_extract_as_numpy(queue, rng):
    for dtype in ALL:
        a = random(rng, (4, 5), dtype)
        for axis, n in ((0, 4), (1, 5), (-1, 5), (None, 20)):
            for condition in (rng.random(n) < 0.5, rng.random(n - 1) < 0.5, numpy.zeros(n, bool)):
                check(queue, lambda c, x: numpy.compress(c, x, axis=axis), condition, a, view=VIEWS["reversed"],
                      label=f"compress {dtype} {axis}")
        check(queue, lambda c, x: numpy.extract(c, x), random(rng, (4, 5), dtype), a, label=f"extract {dtype}")
    a = random(rng, (4, 5), numpy.int32)
    check(queue, lambda x: numpy.compress([1.5, 0, 2], x, axis=1), a)
    check(queue, lambda x, c: numpy.compress(c, x, axis=0), a, numpy.array([True, False, False, False, False, False]))
    check(queue, lambda x, o: numpy.compress([True, False, True], x, axis=1, out=o), a,
          numpy.zeros((4, 2), numpy.int32))
    check(queue, lambda x: numpy.compress([True], x), numpy.array(3.5))
    check(queue, lambda c, x: numpy.extract(c, x), rng.random(3) < 0.5, a)
    check(queue, lambda c, x: numpy.extract(c, x), numpy.zeros((0,), bool), a)
    raises_as_numpy(queue, lambda x, c: numpy.compress(c, x, axis=0), a, numpy.ones(5, bool))
    raises_as_numpy(queue, lambda x, c: numpy.compress(c, x, axis=0), a, numpy.ones((2, 2), bool))
    raises_as_numpy(queue, lambda x: numpy.compress([True], x, axis=2), a)
    if numpy.lib.NumpyVersion(numpy.__version__) < "2.5.0":  # (numpy 2.5 casts into that out)
        raises_as_numpy(queue, lambda x, o: numpy.compress([True], x, axis=1, out=o), a,
                        numpy.zeros((4, 1), numpy.int64))
    raises_as_numpy(queue, lambda x, o: numpy.compress([True], x, axis=1, out=o), a, numpy.zeros((4, 2), numpy.int32))
    raises_as_numpy(queue, lambda c, x: numpy.extract(c, x), numpy.ones(21, bool), a)


def test_choose_and_select_as_numpy(queue, rng):
    for dtype in ALL:
        choices = [random(rng, (3, 4), dtype), random(rng, (4,), dtype), random(rng, (3, 1), dtype)]
        check(queue, lambda i, x, y, z: numpy.choose(i, [x, y, z]), rng.integers(0, 3, (3, 4)), *choices,
              label=f"choose {dtype}")
        conditions = [rng.random((3, 4)) < 0.3, rng.random((4,)) < 0.5]
        check(queue, lambda c, d, x, y: numpy.select([c, d], [x, y], x[0, 0]), *conditions, *choices[:2],
              label=f"select {dtype}")
    a, b = random(rng, (3, 4), numpy.int8), random(rng, (3, 4), numpy.float32)
    for mode in ("raise", "wrap", "clip"):
        check(queue, lambda i, x, y: numpy.choose(i, [x, y, 300], mode=mode), rng.integers(-4, 5, (3, 4)), a, a,
              label=mode)
        check(queue, lambda i, x, y: numpy.choose(i, [x, y], mode=mode), rng.integers(0, 2, (3, 4)).astype(bool), a, b)
    check(queue, lambda i, x: numpy.choose(i, x), rng.integers(0, 3, (4,)), a)  # an array's rows as the choices
    check(queue, lambda i, x, o: numpy.choose(i, [x, x], out=o), rng.integers(0, 2, (3, 4)), a,
          numpy.zeros((3, 4), numpy.int8))
    check(queue, lambda i, x: numpy.choose(i, [x, 2.5]), H(1), a)
    check(queue, lambda i, x: numpy.choose(i, [x]), numpy.zeros((0,), numpy.int64), a[:, :0])
    raises_as_numpy(queue, lambda i, x: numpy.choose(i, [x, x]), rng.integers(0, 2, (3, 4)) + 1, a)
    raises_as_numpy(queue, lambda i, x: numpy.choose(i, [x, x]), rng.random((3, 4)), a)
    raises_as_numpy(queue, lambda i, x: numpy.choose(i, [x, x]), rng.integers(0, 2, (3, 4)).astype(numpy.uint64), a)
    raises_as_numpy(queue, lambda i, x: numpy.choose(i, [x, x[:2]]), rng.integers(0, 2, (3, 4)), a)
    raises_as_numpy(queue, lambda i: numpy.choose(i, []), rng.integers(0, 2, (3, 4)))
    raises_as_numpy(queue, lambda i, x: numpy.choose(i, [x], mode="other"), rng.integers(0, 1, (3, 4)), a)
    c = rng.random((3, 4)) < 0.5
    check(queue, lambda c, x: numpy.select([c], [x], 300), c, a)
    check(queue, lambda c, x: numpy.select([c], [x], 1.5), c, a)
    check(queue, lambda c, x: numpy.select([c, c], [x, 2]), c, b)
    check(queue, lambda c, x: numpy.select([c], [5]), c[:1], a)
    check(queue, lambda c, x: numpy.select([c], [x]), c[:, :1], b)
    raises_as_numpy(queue, lambda c, x: numpy.select([c], [x, x]), c, a)
    raises_as_numpy(queue, lambda c, x: numpy.select([], []), c, a)
    raises_as_numpy(queue, lambda c, x: numpy.select([c.astype(int)], [x]), c, a)
    raises_as_numpy(queue, lambda c, x: numpy.select([c], [x[:2]]), c, a)
    raises_as_numpy(queue, lambda c, x: numpy.select([c], [x], numpy.datetime64(1, "s")), c, a)


# ---- new arrays from edits ------------------------------------------------------------------------

def test_insert_and_delete_as_numpy(queue, rng):
    for dtype in ALL:
        a = random(rng, (3, 4), dtype)
        values = random(rng, (3,), dtype)
        for obj in (1, -1, 4, [1], [0, 2, 2, -1], slice(0, 3), numpy.array([3, 0, 1]), [], numpy.array(2)):
            check(queue, lambda x, v: numpy.insert(x, obj, v, axis=1), a, values, view=VIEWS["reversed"],
                  label=f"insert {dtype} {obj}")
        check(queue, lambda x, o: numpy.insert(x, o, 1, axis=0), a, rng.integers(-3, 4, 3), label=f"insert {dtype}")
        for obj in (1, -1, [1, 1, -4], slice(None, None, 2), slice(3, 0, -2), numpy.array([True, False, True, True]),
                    [], numpy.array([2])):
            check(queue, lambda x: numpy.delete(x, obj, axis=1), a, view=VIEWS["transposed"],
                  label=f"delete {dtype} {obj}")
        check(queue, lambda x, o: numpy.delete(x, o), a, rng.integers(-12, 12, 5), label=f"delete {dtype}")
    a = random(rng, (3, 4), numpy.int16)
    check(queue, lambda x: numpy.insert(x, 2, [[1], [2], [3]], axis=1), a)
    check(queue, lambda x: numpy.insert(x, [2], [[1], [2], [3]], axis=1), a)
    check(queue, lambda x: numpy.insert(x, 2, [1.5, 2.5]), a)
    check(queue, lambda x, v: numpy.insert(x, 1, v, axis=0), a, random(rng, (2, 4), numpy.float64))
    check(queue, lambda x: numpy.insert(x, numpy.array([True, False, True, False]), 7, axis=1), a)
    check(queue, lambda x, o: numpy.insert(x, o, 7), a, numpy.array([5]))
    check(queue, lambda x: numpy.insert(x, [], []), numpy.zeros((0,), numpy.int8))
    check(queue, lambda x, v: numpy.insert(x, 0, v, axis=None), a, numpy.ones((1, 1), numpy.uint16))
    check(queue, lambda x, v: numpy.insert(x, [1], v, axis=0), a, numpy.ones((1, 1, 4), numpy.uint16))
    check(queue, lambda x, v: numpy.insert(x, [], v, axis=1), numpy.zeros((2, 0), numpy.int8), numpy.zeros((3, 2, 0)))
    check(queue, lambda x, v: numpy.insert(x, [], v, axis=None), numpy.zeros((3, 0)), numpy.zeros((3, 0, 0)))
    check(queue, lambda x, o: numpy.delete(x, o, 0), a, numpy.array([True, False, False]))
    check(queue, lambda x, o: numpy.delete(x, o, 1), a, numpy.array([1]))
    check(queue, lambda x: numpy.delete(x, [0]), numpy.array(2.5))
    for obj in ([0, 14], 13, [-14], numpy.array([13])):
        raises_as_numpy(queue, lambda x, o: numpy.insert(x, o, 1), a, H(obj))
    for obj in ([0, 12], 12, [-13], numpy.array([12]), numpy.array([True, False])):
        raises_as_numpy(queue, lambda x, o: numpy.delete(x, o), a, H(obj))
    raises_as_numpy(queue, lambda x, o: numpy.insert(x, o, 1, axis=1), a, numpy.array([0, 9]))
    raises_as_numpy(queue, lambda x, o: numpy.delete(x, o, axis=1), a, numpy.array([0, 9]))
    raises_as_numpy(queue, lambda x: numpy.insert(x, [[0]], 1), a)
    raises_as_numpy(queue, lambda x: numpy.insert(x, [0, 1], [1, 2, 3]), a)
    raises_as_numpy(queue, lambda x: numpy.insert(x, 0, [1, 2], axis=1), a)
    raises_as_numpy(queue, lambda x: numpy.insert(x, 0, 1, axis=2), a)
    raises_as_numpy(queue, lambda x: numpy.insert(x, [0.5], 1), a)
    raises_as_numpy(queue, lambda x: numpy.insert(x, [0.5, 1.0], 1), a)
    raises_as_numpy(queue, lambda x: numpy.insert(x, 0, 2 ** 15), a)
    raises_as_numpy(queue, lambda x: numpy.delete(x, [0.5]), a)
    raises_as_numpy(queue, lambda x: numpy.delete(x, 0, axis=-3), a)


def test_joining_edits_as_numpy(queue, rng):
    for dtype in ALL:
        a, b = random(rng, (3, 4), dtype), random(rng, (3,), ALL[(ALL.index(dtype) + 5) % len(ALL)])
        check(queue, lambda x, y: numpy.append(x, y), a, b, label=f"append {dtype}")
        check(queue, lambda x, y: numpy.append(x, y[:, None], axis=1), a, b, label=f"append {dtype}")
        check(queue, lambda x, y: numpy.column_stack([x, y, x[:, 0]]), a, b, view=VIEWS["reversed"],
              label=f"column_stack {dtype}")
        check(queue, lambda x, y: numpy.block([[x, x[:, :1]], [y[None, :], y[:2][None, :]]]), a, b,
              label=f"block {dtype}")
    a, b = random(rng, (2, 3), numpy.int8), random(rng, (2,), numpy.float32)
    check(queue, lambda x: numpy.append(x, 300), a)
    check(queue, lambda x: numpy.append(x, [[1, 2, 3]], axis=0), a)
    check(queue, lambda x, y: numpy.column_stack((y, y)), a, b)
    check(queue, lambda x: numpy.column_stack([x[0, 0], x[0, 1]]), a)
    check(queue, lambda x: numpy.block(x), a)
    check(queue, lambda x: numpy.block([x, 1]), a[0])
    check(queue, lambda x, y: numpy.block([[[x]], [[x]]]), a, b)
    check(queue, lambda x, y: numpy.block([y, y, x[0]]), a, b)
    raises_as_numpy(queue, lambda x: numpy.append(x, [1, 2], axis=0), a)
    raises_as_numpy(queue, lambda x: numpy.append(x, x, axis=2), a)
    raises_as_numpy(queue, lambda x: numpy.column_stack([x, x[:1]]), a)
    raises_as_numpy(queue, lambda x: numpy.block([[x], x]), a)
    raises_as_numpy(queue, lambda x: numpy.block([[x], []]), a)
    raises_as_numpy(queue, lambda x: numpy.block([x, (x,)]), a)
    raises_as_numpy(queue, lambda x: numpy.block([[x, x[:1]]]), a)


def test_resize_trim_zeros_and_diagflat_as_numpy(queue, rng):
    for dtype in ALL:
        a = random(rng, (3, 4), dtype)
        for shape in ((5, 3), 7, (2, 2), (0, 3), (2, 0, 1), ()):
            check(queue, lambda x: numpy.resize(x, shape), a, view=VIEWS["transposed"], label=f"resize {dtype} {shape}")
        padded = numpy.zeros((6, 8), dtype)
        padded[1:4, 2:5] = random(rng, (3, 3), dtype)
        for trim in ("fb", "f", "b", "BF"):
            for axis in (None, 0, -1, (0, 1)):
                check(queue, lambda x: numpy.trim_zeros(x, trim, axis=axis), padded, label=f"trim {dtype} {trim}")
        check(queue, lambda x: numpy.trim_zeros(x), padded[2], label=f"trim {dtype} 1-d")
        check(queue, lambda x: numpy.trim_zeros(x), numpy.zeros((3, 2), dtype), label=f"trim {dtype} zeros")
        for k in (0, 2, -3):
            check(queue, lambda x: numpy.diagflat(x, k), a[:2], label=f"diagflat {dtype}")
    check(queue, lambda x: numpy.resize(x, (2, 3)), numpy.zeros((0,), numpy.int8))
    check(queue, lambda x: numpy.resize(x, 4), numpy.array(1.5))
    check(queue, lambda x: numpy.trim_zeros(x), numpy.array([0.0, -0.0, numpy.nan, 0.0]))
    check(queue, lambda x: numpy.trim_zeros(x), numpy.zeros((0, 3)))
    check(queue, lambda x: numpy.trim_zeros(x), numpy.array(0.0))
    check(queue, lambda x: numpy.diagflat(x), numpy.array(2.5))
    raises_as_numpy(queue, lambda x: numpy.resize(x, (2, -1)), numpy.ones(3))
    raises_as_numpy(queue, lambda x: numpy.trim_zeros(x, "fx"), numpy.ones(3))
    raises_as_numpy(queue, lambda x: numpy.trim_zeros(x, axis=2), numpy.ones((3, 2)))


# ---- views ----------------------------------------------------------------------------------------

def test_unstack_broadcast_arrays_and_rollaxis_as_numpy(queue, rng):
    a = random(rng, (2, 3, 4), numpy.complex64)
    for axis in (0, 1, -1):
        check(queue, lambda x: numpy.unstack(x, axis=axis), a, view=VIEWS["transposed"])
    check(queue, lambda x: numpy.unstack(x), numpy.zeros((0, 3)))
    check(queue, lambda x, y, z: numpy.broadcast_arrays(x, y, z), a, random(rng, (3, 1), numpy.int8),
          random(rng, (), numpy.bool_))
    check(queue, lambda x, y: numpy.broadcast_arrays(x, y), a, H(numpy.arange(4)))
    check(queue, lambda x: numpy.broadcast_arrays(x), a)
    for axis, start in ((0, 0), (2, 0), (0, 3), (1, -1), (-1, 1), (2, 2)):
        check(queue, lambda x: numpy.rollaxis(x, axis, start), a, label=f"rollaxis {axis} {start}")
    raises_as_numpy(queue, lambda x: numpy.unstack(x), numpy.array(2.0))
    raises_as_numpy(queue, lambda x: numpy.unstack(x, axis=3), a)
    raises_as_numpy(queue, lambda x, y: numpy.broadcast_arrays(x, y), a, numpy.ones(3))
    raises_as_numpy(queue, lambda x: numpy.rollaxis(x, 3), a)
    raises_as_numpy(queue, lambda x: numpy.rollaxis(x, 0, 4), a)
    raises_as_numpy(queue, lambda x: numpy.rollaxis(x, 0, -4), a)
    # broadcast_arrays gives views: writing into a result writes the array (numpy's are writeable too)
    d = device(queue, numpy.zeros((3, 1), numpy.float32))
    view, _ = numpy.broadcast_arrays(d, device(queue, numpy.zeros(2)))
    assert numpy.shares_memory(view, d)


# ---- index arithmetic -----------------------------------------------------------------------------

def test_index_arithmetic_as_numpy(queue, rng):
    for dtype in (numpy.int8, numpy.uint8, numpy.int32, numpy.uint64, numpy.int64, numpy.bool_):
        indices = rng.integers(0, 2 if dtype is numpy.bool_ else 24, (2, 3)).astype(dtype)
        for shape, order in (((4, 6), "C"), ((2, 3, 4), "F"), (24, "C")):
            check(queue, lambda i: numpy.unravel_index(i, shape, order=order), indices, label=f"unravel {dtype}")
        rows, columns = rng.integers(-4, 8, (3, 1)).astype(dtype), rng.integers(-4, 8, (4,)).astype(dtype)
        for mode in ("raise", "wrap", "clip", ("clip", "wrap")):
            for order in ("C", "F"):
                check(queue, lambda r, c: numpy.ravel_multi_index((r, c), (4, 6), mode=mode, order=order), rows,
                      columns, label=f"ravel {dtype} {mode}")
        check(queue, lambda x, y: numpy.ix_(x, y, [1, 2]), indices[0], rng.random(3) < 0.5, label=f"ix_ {dtype}")
    check(queue, lambda i: numpy.unravel_index(i, ()), numpy.array(0))
    check(queue, lambda i: numpy.unravel_index(i, (3, 0)), numpy.zeros(0, numpy.int64))
    check(queue, lambda r: numpy.ravel_multi_index((r, 2), (3, 4)), numpy.array([0, 2]))
    check(queue, lambda r: numpy.ravel_multi_index((r,), (0,)), numpy.zeros(0, numpy.int64))
    check(queue, lambda r, c: numpy.ravel_multi_index((r, c), (4, 0)), numpy.zeros((1, 0), numpy.int64), numpy.array(0))
    check(queue, lambda x: numpy.ix_(x, []), numpy.array([2, 0]))
    for bad in (numpy.array([24]), numpy.array([-1]), numpy.array([1.0])):
        raises_as_numpy(queue, lambda i: numpy.unravel_index(i, (4, 6)), bad)
    raises_as_numpy(queue, lambda i: numpy.unravel_index(i, (4, 6), order="K"), numpy.array([1]))
    raises_as_numpy(queue, lambda i: numpy.unravel_index(i, (4, -6)), numpy.array([1]))
    for multi_index, mode in (((numpy.array([4]), numpy.array([0])), "raise"),
                              ((numpy.array([0]), numpy.array([-1])), "raise"),
                              ((numpy.array([0.0]), numpy.array([0])), "raise"),
                              ((numpy.array([0, 1]), numpy.array([0, 1, 2])), "raise"),
                              ((numpy.array([0]),), "raise"), ((numpy.array([0]), numpy.array([0])), "other"),
                              ((numpy.array([0]), numpy.array([0])), ("clip",))):
        raises_as_numpy(queue, lambda *m: numpy.ravel_multi_index(m, (4, 6), mode=mode), *multi_index)
    raises_as_numpy(queue, lambda r: numpy.ravel_multi_index((r,), (0,), mode="wrap"), numpy.array([1]))
    raises_as_numpy(queue, lambda x: numpy.ix_(x), numpy.zeros((2, 2), numpy.int64))
    for shape in ((4, 6), (5, 5), (0, 3)):
        for k in (0, 2, -1):
            check(queue, lambda x: numpy.tril_indices_from(x, k), numpy.zeros(shape), label=f"tril {shape} {k}")
            check(queue, lambda x: numpy.triu_indices_from(x, k=k), numpy.zeros(shape), label=f"triu {shape} {k}")
    for shape in ((3, 3), (2, 2, 2), (0, 0)):
        check(queue, lambda x: numpy.diag_indices_from(x), numpy.zeros(shape), label=f"diag {shape}")
    for shape in ((3,), (2, 2, 2)):
        raises_as_numpy(queue, lambda x: numpy.tril_indices_from(x), numpy.zeros(shape))
        raises_as_numpy(queue, lambda x: numpy.triu_indices_from(x), numpy.zeros(shape))
    for shape in ((3,), (2, 3)):
        raises_as_numpy(queue, lambda x: numpy.diag_indices_from(x), numpy.zeros(shape))


# ---- comparisons, memory and dtypes ---------------------------------------------------------------

def test_array_equiv_and_shares_memory_as_numpy(queue, rng):
    a = random(rng, (3, 4), numpy.float32)
    for other in (a, a[:1], a[1:2] + 1, a[:2], numpy.broadcast_to(a[0], (2, 3, 4)), a.astype(numpy.float64),
                  numpy.zeros((0, 4)), numpy.array(numpy.nan)):
        check(queue, lambda x, y: numpy.array_equiv(x, y), a, other)
        check(queue, lambda x, y: numpy.array_equiv(x, y), a, H(other))
    b = numpy.arange(24.0).reshape(4, 6)
    d = device(queue, b)
    e = device(queue, b.copy())
    pairs = [(lambda x: x, lambda x: x[1:]), (lambda x: x[::2], lambda x: x[1::2]), (lambda x: x[:, ::2],
             lambda x: x[:, 1::2]), (lambda x: x[:2], lambda x: x[2:]), (lambda x: x.T, lambda x: x[1, 2:3]),
             (lambda x: x[:, :3], lambda x: x[:, 3:]), (lambda x: x[:0], lambda x: x)]
    for first, second in pairs:
        for max_work in (None, 0, -1):
            # (max_work=0 is numpy's bounds check: TooHardError where it cannot tell)
            np_ok, want = _outcome(lambda x: numpy.shares_memory(first(x), second(x), max_work=max_work), [b])
            kj_ok, got = _outcome(lambda x: numpy.shares_memory(first(x), second(x), max_work=max_work), [d])
            assert np_ok == kj_ok and (got == want if np_ok else type(got) is type(want)), (got, want)
        assert isinstance(numpy.shares_memory(first(d), second(d)), bool)
        assert not numpy.shares_memory(first(d), second(e))
    assert not numpy.shares_memory(d, b)


def test_astype_and_dtype_queries_as_numpy(queue, rng):
    for dtype in ALL:
        a = random(rng, (2, 3), dtype)
        for to in ALL[::3]:
            check(queue, lambda x: numpy.astype(x, to), a if to.kind in "fc" or dtype.kind not in "fc"
                  else numpy.round(a.real if dtype.kind == "c" else a), label=f"astype {dtype} {to}")
            check(queue, lambda x: numpy.astype(x, to, copy=False), a if to.kind in "fcb" or dtype.kind not in "fc"
                  else numpy.round(a.real if dtype.kind == "c" else a), label=f"astype {dtype} {to}")
            for casting in ("no", "safe", "same_kind", "unsafe"):
                check(queue, lambda x: numpy.can_cast(x, to, casting), a)
        for others in ((), (1,), (2.5,), (1j,), (numpy.int16,), (numpy.dtype(numpy.float16), 300)):
            check(queue, lambda x: numpy.result_type(x, *others), a, label=f"result_type {dtype} {others}")
            check(queue, lambda x, y: numpy.result_type(x, y, *others), a, random(rng, (), numpy.uint8))
        check(queue, lambda x: numpy.min_scalar_type(x), a)
        if dtype.kind != "b":
            check(queue, lambda x, y: numpy.common_type(x, y), a, random(rng, (1,), numpy.float16))
    for value in (300, -1, 2.5, 70000.5, 1 + 2j, True, 2 ** 40):
        check(queue, lambda x: numpy.min_scalar_type(x), numpy.array(value), label=repr(value))
    raises_as_numpy(queue, lambda x: numpy.common_type(x), numpy.zeros(2, bool))
    raises_as_numpy(queue, lambda x: numpy.astype(x, numpy.int8, device="other"), numpy.zeros(2))
    raises_as_numpy(queue, lambda x: numpy.astype(x.tolist(), numpy.int8), numpy.zeros(2))
    raises_as_numpy(queue, lambda x: numpy.can_cast(x, numpy.int8, "other"), numpy.zeros(2))


# ---- the options lifted in kjarni/_numpy_shapes.py ------------------------------------------------

def test_roll_repeat_and_meshgrid_options_as_numpy(queue, rng):
    for dtype in ALL[::2]:
        a = random(rng, (3, 4, 2), dtype)
        for shift, axis in (((1, -2), (0, 1)), ((5, 3), (1, 1)), ((1, 2, 3), -1), (2, (0, 2)), ((4, -1), None),
                            (numpy.array([1, 2]), numpy.array([2, 0]))):
            check(queue, lambda x: numpy.roll(x, shift, axis), a, view=VIEWS["reversed"],
                  label=f"roll {dtype} {shift} {axis}")
        for axis, counts in ((0, [1, 0, 3]), (1, numpy.array([2, 0, 1, 1])), (-1, [0, 0]), (None, list(range(24))),
                             (1, [3]), (0, numpy.array([2]))):
            check(queue, lambda x: numpy.repeat(x, counts, axis), a, view=VIEWS["transposed"],
                  label=f"repeat {dtype} {axis}")
            check(queue, lambda x, c: numpy.repeat(x, c, axis), a, numpy.asarray(counts), label=f"repeat {dtype}")
    a = random(rng, (3, 4), numpy.int16)
    raises_as_numpy(queue, lambda x: numpy.roll(x, (1, 2, 3), (0, 1)), a)
    raises_as_numpy(queue, lambda x: numpy.roll(x, ((1, 2),), (0, 1)), a)
    raises_as_numpy(queue, lambda x: numpy.roll(x, (1, 2), (0, 2)), a)
    check(queue, lambda x: numpy.repeat(x, [1.5, 2.0, 3.0], 0), a)  # (a list converted as numpy.array(intp))
    for counts in ([1, 2], [[1, 2, 3]], [1, -1, 2], [[[2]]]):
        raises_as_numpy(queue, lambda x: numpy.repeat(x, counts, 0), a)
        raises_as_numpy(queue, lambda x, c: numpy.repeat(x, c, 0), a, numpy.asarray(counts))
    for counts in (numpy.array([1.0, 2.0, 3.0]), numpy.array([1, 2, 3], numpy.uint64), numpy.uint64(2)):
        raises_as_numpy(queue, lambda x: numpy.repeat(x, counts, 0), a, H(counts))
    x, y, z = random(rng, (3,), numpy.float32), random(rng, (4,), numpy.int8), random(rng, (2, 1), numpy.uint8)
    for indexing in ("xy", "ij"):
        for sparse in (False, True):
            for copy in (True, False):
                check(queue, lambda *v: numpy.meshgrid(*v, sparse=sparse, copy=copy, indexing=indexing), x, y, z,
                      view=VIEWS["reversed"], label=f"meshgrid {indexing} {sparse} {copy}")
    check(queue, lambda v: numpy.meshgrid(v, sparse=True), x)
    raises_as_numpy(queue, lambda v: numpy.meshgrid(v, indexing="other"), x)
    # copy=False gives views of the vectors
    d = device(queue, x)
    grid, = numpy.meshgrid(d, copy=False)
    assert numpy.shares_memory(grid, d)


def test_expressions_and_overlapping_values_as_numpy(queue, rng):
    # An Expr stands for its evaluated array (numpy computes the operation first); values that share
    # memory with the array written into are read as they were (numpy copies them), except place's
    # (docs: numpy reads the elements it has written).
    a = random(rng, (3, 4), numpy.float32)
    for f in (lambda x: numpy.rollaxis(x + 1, 1), lambda x: numpy.tril_indices_from(x + 1),
              lambda x: numpy.diag_indices_from(x[:, :3] * 2), lambda x: numpy.repeat(x + 1, [1, 2, 0], axis=0),
              lambda x: numpy.roll(x - 1, (1, 1), (0, 1)), lambda x: numpy.meshgrid(x[0] + 1, x[1], sparse=True),
              lambda x: numpy.take_along_axis(x * 2, numpy.array([[0], [1], [2]]), 1),
              lambda x: numpy.compress(x[0] > 0, x + 1, axis=1), lambda x: numpy.select([x > 0], [x + 1]),
              lambda x: numpy.unstack(x * 3), lambda x: numpy.insert(x + 1, 1, x[0]),
              lambda x: numpy.block([[x + 1, x]]),
              lambda x: numpy.put(x, numpy.arange(12), x[::-1]), lambda x: numpy.putmask(x, x > 0, x[::-1]),
              lambda x: numpy.fill_diagonal(x, x[::-1]), lambda x: numpy.copyto(x[1:], x[:-1]),
              lambda x: numpy.copyto(x, x[::-1] + 1, where=x > 0),
              lambda x: numpy.put_along_axis(x, numpy.array([[1], [2], [3]]), x[::-1, :1], 1)):
        check(queue, f, a)
