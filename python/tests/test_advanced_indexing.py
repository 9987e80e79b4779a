"""numpy's advanced indexing on kjarni arrays (python/kjarni/_advanced_index.py), against numpy:
random arrays and keys (integer lists and arrays of any integer dtype, on the host and the device,
boolean masks over any run of axes, 0-d booleans, integers, slices, None and Ellipsis between them)
read and assigned, and the edge cases and errors one by one."""

import time

import numpy as np
import pytest

import kjarni
from kjarni._advanced_index import is_advanced

DTYPES = [np.dtype(d) for d in ("bool", "int8", "uint8", "int32", "int64", "uint64", "float16", "float32",
                                "float64", "complex64")]
INDEX_DTYPES = [np.int8, np.uint8, np.int16, np.int32, np.uint32, np.int64, np.uint64]
SECONDS = 20.0  # per random test (each case compiles little: the kernels are shared)


def _device(queue, x):
    return kjarni.Array.from_host(queue, np.asarray(x))


def _values(rng, dtype, shape):
    """Values that every dtype holds exactly (conversions between them are exact)."""
    v = np.asarray(rng.integers(0, 100, shape))
    return np.asarray(v.astype(dtype) if np.dtype(dtype).kind != "b" else (v % 2 == 1))


def _random_index(rng, n, shape=None):
    """An integer index array into an axis of extent n (in range, negatives too; rarely out of range)."""
    shape = shape if shape is not None else (int(rng.integers(0, 4)),)
    if n == 0 or rng.random() < 0.03:
        return rng.integers(-n - 3, n + 3, shape)
    index = rng.integers(-n, n, shape)
    dtype = INDEX_DTYPES[int(rng.integers(len(INDEX_DTYPES)))]
    if np.dtype(dtype).kind == "u":
        index = index % n
    info = np.iinfo(dtype)
    if index.size and (index.max() > info.max or index.min() < info.min):
        dtype = np.int64
    return index.astype(dtype)


class Key:
    """A random key, built twice: for numpy (host indices) and for kjarni (some of them on the device)."""

    def __init__(self, rng, shape):
        self.items = []  # (kind, value)
        axis = 0
        ndim = len(shape)
        advanced_shapes = [(), (1,), (2,), (3,), (2, 1), (1, 3), (0,)]
        broadcast = advanced_shapes[int(rng.integers(len(advanced_shapes)))]
        used_ellipsis = False
        while axis < ndim or (rng.random() < 0.1 and len(self.items) < 5):
            n = shape[axis] if axis < ndim else 0
            r = rng.random()
            if r < 0.08:
                self.items.append(("none", None))
                continue
            if r < 0.13 and not used_ellipsis:
                used_ellipsis = True
                self.items.append(("ellipsis", Ellipsis))
                # The ellipsis takes 0 to 2 axes (when the items after it index the rest).
                axis = min(ndim, axis + int(rng.integers(0, 3)))
                continue
            if r < 0.06 + 0.13:
                self.items.append(("bool0", bool(rng.random() < 0.6)))
                continue
            if axis >= ndim:
                break
            if r < 0.35:
                k = int(rng.integers(-n, n)) if n else 0
                if rng.random() < 0.03:
                    k = n + 1
                self.items.append(("int", k))
                axis += 1
            elif r < 0.55:
                self.items.append(("slice", slice(*[None if rng.random() < 0.4 else int(rng.integers(-n - 1, n + 2))
                                                    for _ in range(2)], [None, 1, 2, -1][int(rng.integers(4))])))
                axis += 1
            elif r < 0.8:
                self.items.append((["list", "host", "device"][int(rng.integers(3))],
                                   _random_index(rng, n, broadcast if rng.random() < 0.85 else None)))
                axis += 1
            else:
                k = int(rng.integers(1, ndim - axis + 1))
                mshape = shape[axis:axis + k]
                mask = rng.random(mshape) < 0.5
                if rng.random() < 0.03 and mshape:
                    mask = np.zeros((mshape[0] + 1,) + tuple(mshape[1:]), bool)  # IndexError
                self.items.append((["host_mask", "device_mask", "list_mask"][int(rng.integers(3))], mask))
                axis += k
            if rng.random() < 0.1:
                break  # fewer indices than axes
        if self.items and "ellipsis" not in [k for k, _ in self.items] and rng.random() < 0.1:
            self.items.insert(int(rng.integers(len(self.items) + 1)), ("ellipsis", Ellipsis))
        self.single = len(self.items) == 1 and rng.random() < 0.5

    def _build(self, queue):
        out = []
        for kind, v in self.items:
            if queue is None or kind in ("none", "ellipsis", "bool0", "int", "slice", "host", "host_mask"):
                out.append(v.tolist() if queue is None and kind in ("list", "list_mask") else v)
            elif kind in ("list", "list_mask"):
                out.append(v.tolist())
            else:
                out.append(_device(queue, v))
        return out[0] if self.single else tuple(out)

    def numpy(self):
        return self._build(None)

    def kjarni(self, queue):
        return self._build(queue)

    def __repr__(self):
        return repr([(k, v.tolist() if isinstance(v, np.ndarray) else v) for k, v in self.items]) + \
            (" (single)" if self.single else "")


def _outcome(f):
    try:
        return True, f()
    except (IndexError, ValueError, TypeError, OverflowError) as e:
        return False, e


def _difference(expected, got):
    """None when numpy's and kjarni's outcomes agree (both raised, or the same dtype, shape and
    values), else what differs."""
    (np_ok, np_value), (kj_ok, kj_value) = expected, got
    if not np_ok or not kj_ok:
        if np_ok != kj_ok:
            return f"numpy {'gave' if np_ok else 'raised'} {np_value!r}, kjarni {'gave' if kj_ok else 'raised'} {kj_value!r}"
        if isinstance(np_value, IndexError) and not isinstance(kj_value, (IndexError, kjarni.ArgumentError)):
            return f"numpy raised {np_value!r}, kjarni {kj_value!r}"
        return None
    got = np.asarray(kj_value)
    ref = np.asarray(np_value)
    if got.dtype != ref.dtype or got.shape != ref.shape:
        return f"numpy {ref.dtype}{ref.shape}, kjarni {got.dtype}{got.shape}"
    if not np.array_equal(got, ref):
        return f"values: numpy {ref.tolist()}, kjarni {got.tolist()}"
    return None


def _perturbed(outcome):
    ok, value = outcome
    value = np.array(value)
    if value.size == 0:
        return True, np.zeros(value.shape + (1,), value.dtype)
    flat = value.reshape(-1)
    flat[0] = not flat[0] if value.dtype.kind == "b" else flat[0] + 1
    return True, value


def _run_random(rng, case, seconds=SECONDS):
    deadline = time.monotonic() + seconds
    cases = checked = 0
    failures = []
    while time.monotonic() < deadline and len(failures) < 5:
        cases += 1
        result = case(rng)
        if result is None:
            continue
        description, expected, got = result
        message = _difference(expected, got)
        if message is not None:
            failures.append(f"{description}: {message}")
        elif expected[0] and not checked:
            # The comparison can fail: one value moved is a difference.
            assert _difference(expected, _perturbed(got)) is not None, description
            checked += 1
    assert not failures, "\n".join(failures)
    assert cases > 20 and checked, (cases, checked)
    print(f"{cases} cases")


def test_random_getitem_agrees_with_numpy(queue, rng):
    def case(rng):
        shape = tuple(int(rng.integers(0, 5)) for _ in range(int(rng.integers(0, 4))))
        dtype = DTYPES[int(rng.integers(len(DTYPES)))]
        host = _values(rng, dtype, shape)
        key = Key(rng, shape)
        a = _device(queue, host)
        expected = _outcome(lambda: host[key.numpy()])
        device_key = key.kjarni(queue)
        got = _outcome(lambda: a[device_key])
        if got[0] and isinstance(got[1], kjarni.Array):
            result = got[1].get()
            if result.size and is_advanced(device_key):
                # Advanced results are copies: writing one leaves the array as it was.
                got[1].fill(result.reshape(-1)[0] if result.dtype.kind != "b" else True)
                assert np.array_equal(a.get(), host), key
            got = (True, result)
        return f"{dtype}{shape}[{key!r}]", expected, got
    _run_random(rng, case)


def test_random_setitem_agrees_with_numpy(queue, rng):
    def case(rng):
        shape = tuple(int(rng.integers(0, 5)) for _ in range(int(rng.integers(0, 4))))
        dtype = DTYPES[int(rng.integers(len(DTYPES)))]
        host = _values(rng, dtype, shape)
        key = Key(rng, shape)
        try:
            selection = host[key.numpy()].shape
        except Exception:
            selection = (2,)
        form = rng.random()
        if form < 0.3:
            value = _values(rng, dtype, ()).item()  # a Python scalar
            value_kj = value
        else:
            vshape = list(selection[int(rng.integers(0, len(selection) + 1)):])
            vshape = [1 if rng.random() < 0.3 else n for n in vshape]
            if rng.random() < 0.1:
                vshape = [1] + vshape
            if rng.random() < 0.05:
                vshape = vshape + [3]  # mismatch
            vdtype = dtype if rng.random() < 0.6 else DTYPES[int(rng.integers(len(DTYPES)))]
            if vdtype.kind == "c" and dtype.kind != "c":
                vdtype = np.dtype(np.float32)
            value = _values(rng, vdtype, tuple(vshape))
            value_kj = _device(queue, value) if form < 0.8 else value
        a = _device(queue, host)
        target = host.copy()

        def numpy_side():
            target[key.numpy()] = value
            return target

        device_key = key.kjarni(queue)
        if not is_advanced(device_key):
            return None  # basic keys: the differential fuzzer's (test_numpy_differential.py)

        def kjarni_side():
            a[device_key] = value_kj
            return a.get()
        return f"{dtype}{shape}[{key!r}] = {value!r}", _outcome(numpy_side), _outcome(kjarni_side)
    _run_random(rng, case)


def test_augmented_assignment_reads_modifies_writes(queue):
    host = np.arange(12, dtype=np.int32).reshape(3, 4)
    a = _device(queue, host)
    rows, cols = np.array([0, 2, 0]), np.array([1, 3, 1])
    a[rows, cols] += 10
    host[rows, cols] += 10  # the repeated (0, 1) is incremented once, as numpy's
    a[_device(queue, rows), 1:] *= 2
    host[rows, 1:] *= 2
    a[a > 20] -= 1
    host[host > 20] -= 1
    np.testing.assert_array_equal(a.get(), host)


@pytest.mark.parametrize("key, shape", [
    (lambda d: (d([0, 1]), slice(None), d([1, 2])), (2, 4)),  # separated: the broadcast shape first
    (lambda d: (slice(None), d([0, 1]), d([1, 2])), (3, 2)),  # adjacent: in place
    (lambda d: (slice(None), 0, d([1, 2])), (3, 2)),  # an integer is advanced among arrays
    (lambda d: (0, slice(None), d([1, 2])), (2, 4)),
    (lambda d: (slice(None), d([[0]]), Ellipsis, d([1, 2])), (1, 2, 3)),  # an empty Ellipsis separates
    (lambda d: (d([[0], [1]]), d([1, 2, 0])), (2, 3, 5)),  # broadcast (2, 1) with (3,)
    (lambda d: (slice(None), None, d([2])), (3, 1, 1, 5)),
    (lambda d: (True,), (1, 3, 4, 5)),
    (lambda d: (slice(None), False), (3, 0, 4, 5)),
    (lambda d: (0, d([0, 1]), True), (2, 5)),
])
def test_result_shapes_follow_numpy(queue, key, shape):
    host = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    a = _device(queue, host)
    expected = host[key(np.asarray)]
    assert expected.shape == shape
    got = a[key(lambda x: _device(queue, x))]
    assert got.shape == shape
    np.testing.assert_array_equal(got.get(), expected)
    got = a[key(list)]  # lists: as numpy.asarray converts them
    np.testing.assert_array_equal(got.get(), expected)


def test_masks(queue, rng):
    host = rng.integers(-5, 5, (4, 3, 2)).astype(np.int16)
    a = _device(queue, host)
    np.testing.assert_array_equal(a[a > 0].get(), host[host > 0])  # an expression as the mask
    mask = host[:, :, 0] > 0
    np.testing.assert_array_equal(a[_device(queue, mask)].get(), host[mask])
    np.testing.assert_array_equal(a[:, mask[0]].get(), host[:, mask[0]])
    np.testing.assert_array_equal(a[..., [True, False]].get(), host[..., [True, False]])
    np.testing.assert_array_equal(a[:, _device(queue, mask[:3, :2] > 0)].get(), host[:, mask[:3, :2] > 0])
    np.testing.assert_array_equal(a[np.zeros((4, 0), bool)].get(), host[np.zeros((4, 0), bool)])  # numpy allows 0
    with pytest.raises(IndexError, match="boolean index did not match"):
        a[np.ones(3, bool)]
    a[_device(queue, mask)] = 7
    host[mask] = 7
    a[:, mask[0]] = _device(queue, np.array([[[1]], [[2]], [[3]], [[4]]], np.int8))
    host[:, mask[0]] = np.array([[[1]], [[2]], [[3]], [[4]]], np.int8)
    np.testing.assert_array_equal(a.get(), host)


def test_index_dtypes_and_negatives(queue):
    host = np.arange(10, dtype=np.float64) * 1.5
    a = _device(queue, host)
    for dtype in INDEX_DTYPES:
        index = np.array([0, 9, 3, 3], dtype)
        np.testing.assert_array_equal(a[index].get(), host[index])
        np.testing.assert_array_equal(a[_device(queue, index)].get(), host[index])
    np.testing.assert_array_equal(a[[-1, -10, 2]].get(), host[[-1, -10, 2]])
    np.testing.assert_array_equal(a[_device(queue, np.array([[-1], [-10]]))].get(), host[[[-1], [-10]]])
    b = _device(queue, host.reshape(2, 5))
    np.testing.assert_array_equal(b[_device(queue, [-1, 0]), _device(queue, [-5, 4])].get(),
                                  host.reshape(2, 5)[[-1, 0], [-5, 4]])


def test_empty_indices(queue):
    host = np.arange(12, dtype=np.int32).reshape(3, 4)
    a = _device(queue, host)
    for key in ([], [[]], ([], []), (slice(None), []), np.zeros(0, np.int64), (np.zeros((0, 2), np.uint8), 0)):
        expected = host[key]
        got = a[key]
        assert got.shape == expected.shape and got.dtype == expected.dtype
    a[[]] = 5
    a[[], [0]] = _device(queue, np.zeros(0, np.int32))
    np.testing.assert_array_equal(a.get(), host)
    empty = _device(queue, np.zeros((0, 3), np.float32))
    assert empty[[], 1].shape == (0,)
    assert empty[:, [0, 2]].shape == (0, 2)
    with pytest.raises(IndexError):
        empty[[0]]
    with pytest.raises(IndexError):
        empty[:, _device(queue, [5])]


@pytest.mark.parametrize("key", [
    [3], [-4], ([0], [4]), (0, [4]), object(), 1.5, [1.5], np.array([1.0]), ([0, 1], [0, 1, 2]),
    (Ellipsis, Ellipsis, [0]), (0, 0, [0]), "a",
])
def test_errors_are_numpy_s(queue, key):
    host = np.arange(12, dtype=np.int32).reshape(3, 4)
    a = _device(queue, host)
    with pytest.raises(IndexError):
        host[key]
    with pytest.raises(IndexError):
        a[key]
    with pytest.raises(IndexError):
        a[key] = 1


def test_device_indices_out_of_range_raise(queue):
    a = _device(queue, np.arange(12, dtype=np.int32).reshape(3, 4))
    # Device indices are checked on the device: kjarni's IndexError (or its ArgumentError, a ValueError).
    for key, column in (([3], [4]), ([-4], [-5])):
        with pytest.raises((IndexError, kjarni.ArgumentError)):
            a[_device(queue, key)]
        with pytest.raises((IndexError, kjarni.ArgumentError)):
            a[_device(queue, [0]), _device(queue, column)]
        with pytest.raises((IndexError, kjarni.ArgumentError)):
            a[_device(queue, key), _device(queue, [0])]
        with pytest.raises((IndexError, kjarni.ArgumentError)):
            a[_device(queue, key), :] = 0


def test_assignment_converts_as_numpy(queue):
    host = np.zeros(4, np.int8)
    a = _device(queue, host)
    a[[0, 1]] = 1.7  # truncates
    host[[0, 1]] = 1.7
    a[[2]] = [2.9]
    host[[2]] = [2.9]
    a[[3]] = np.array([300])  # an array: cast unsafely
    host[[3]] = np.array([300])
    np.testing.assert_array_equal(a.get(), host)
    with pytest.raises(OverflowError):
        host[[0]] = 300
    with pytest.raises(OverflowError):
        a[[0]] = 300
    with pytest.raises(ValueError):
        a[[0, 1]] = [1, 2, 3]
    with pytest.raises(ValueError):
        a[[0, 1]] = _device(queue, np.array([1, 2, 3], np.int8))
    f = _device(queue, np.zeros((2, 3), np.float32))
    f[[1, 0]] = _device(queue, np.array([[[1, 2, 3]]], np.int64))  # leading axes of 1 are dropped
    np.testing.assert_array_equal(f.get(), np.array([[1, 2, 3], [1, 2, 3]], np.float32))


def test_repeated_indices_last_write_wins(queue):
    host = np.zeros(5, np.float32)
    a = _device(queue, host)
    index = np.array([3, 1, 3, 3, 0, 1])
    values = np.arange(6, dtype=np.float32) + 1
    a[_device(queue, index)] = _device(queue, values)
    host[index] = values
    np.testing.assert_array_equal(a.get(), host)
    np.testing.assert_array_equal(host, [5, 6, 0, 4, 0])


def test_assignment_into_views(queue):
    host = np.arange(30, dtype=np.float32).reshape(5, 6)
    a = _device(queue, host)
    view = a[::2, ::-1]
    view[[0, 2], [1, 5]] = -1
    host[::2, ::-1][[0, 2], [1, 5]] = -1
    view.T[[True, False, True, False, False, True]] = _device(queue, np.array([7, 8, 9], np.float32))
    host[::2, ::-1].T[[True, False, True, False, False, True]] = np.array([7, 8, 9], np.float32)
    np.testing.assert_array_equal(a.get(), host)


def test_results_keep_the_queue(queue):
    a = _device(queue, np.arange(6, dtype=np.int32))
    assert a[[1, 2]].queue is queue
    assert a[a > 2].queue is queue
