"""kjarni.array_api against numpy 2's own array API namespace (numpy itself) on fresh random data.
The standard's test suite (scripts/array-api-tests.sh) is the thorough check; these are the
namespace's paths that suite reaches only by chance: stable descending argsort with ties, unique
with NaNs, integer matmul, boolean assignment, the inspection namespace."""

import numpy
import pytest

xp = pytest.importorskip("kjarni.array_api")


@pytest.fixture
def rng():
    return numpy.random.default_rng()


def test_elementwise_and_broadcasting(rng):
    a = rng.standard_normal((3, 4)).astype(numpy.float32)
    b = rng.standard_normal((4,)).astype(numpy.float32)
    x, y = xp.asarray(a), xp.asarray(b)
    got = numpy.asarray(xp.sin(x) * y + 2)
    assert got.dtype == numpy.float32
    # float32 sin differs from numpy's in the last ulps; the product and sum add a few more.
    numpy.testing.assert_allclose(got, numpy.sin(a) * b + 2, rtol=1e-5, atol=1e-6)
    assert numpy.array_equal(numpy.asarray(x > y), a > b)
    assert numpy.array_equal(numpy.asarray(xp.logaddexp(x, y)), numpy.logaddexp(a, b)) or numpy.allclose(
        numpy.asarray(xp.logaddexp(x, y)), numpy.logaddexp(a, b), rtol=1e-5)


def test_reductions(rng):
    a = rng.integers(-50, 50, size=(5, 6), dtype=numpy.int16)
    x = xp.asarray(a)
    assert numpy.array_equal(numpy.asarray(xp.sum(x, axis=1)), numpy.sum(a, axis=1))
    assert xp.sum(x).dtype == xp.int64
    assert numpy.array_equal(numpy.asarray(xp.max(x, axis=0, keepdims=True)), numpy.max(a, axis=0, keepdims=True))
    f = rng.standard_normal((7, 3))
    numpy.testing.assert_allclose(numpy.asarray(xp.var(xp.asarray(f), axis=0, correction=1)),
                                  numpy.var(f, axis=0, ddof=1), rtol=1e-12)


def test_stable_descending_argsort(rng):
    a = rng.integers(0, 4, size=50).astype(numpy.int32)  # many ties
    got = numpy.asarray(xp.argsort(xp.asarray(a), descending=True))
    want = numpy.argsort(-a.astype(numpy.int64), kind="stable")
    assert numpy.array_equal(got, want)
    assert numpy.array_equal(numpy.asarray(xp.sort(xp.asarray(a), descending=True)), numpy.sort(a)[::-1])


def test_unique_counts_every_nan(rng):
    a = rng.integers(0, 5, size=20).astype(numpy.float64)
    a[[3, 7]] = numpy.nan
    values, counts = xp.unique_counts(xp.asarray(a))
    want_values, want_counts = numpy.unique_counts(a)
    assert numpy.array_equal(numpy.asarray(values), want_values, equal_nan=True)
    assert numpy.array_equal(numpy.asarray(counts), want_counts)
    b = rng.integers(0, 5, size=(4, 5)).astype(numpy.int8)
    inverse = xp.unique_inverse(xp.asarray(b)).inverse_indices
    assert numpy.array_equal(numpy.asarray(inverse), numpy.unique_inverse(b).inverse_indices)


def test_integer_matmul_and_vecdot(rng):
    a = rng.integers(-9, 9, size=(2, 3, 4), dtype=numpy.int8)
    b = rng.integers(-9, 9, size=(4, 5), dtype=numpy.int8)
    got = numpy.asarray(xp.asarray(a) @ xp.asarray(b))
    assert got.dtype == numpy.int8
    assert numpy.array_equal(got, a @ b)
    c = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))).astype(numpy.complex128)
    numpy.testing.assert_allclose(numpy.asarray(xp.vecdot(xp.asarray(c), xp.asarray(c))), numpy.vecdot(c, c),
                                  rtol=1e-12)


def test_indexing(rng):
    a = rng.standard_normal((4, 5))
    x = xp.asarray(a)
    mask = a > 0
    assert numpy.array_equal(numpy.asarray(x[xp.asarray(mask)]), a[mask])
    x[xp.asarray(mask)] = xp.asarray(0.0)
    a[mask] = 0.0
    assert numpy.array_equal(numpy.asarray(x), a)
    x[1:3, ::2] = 7.0
    a[1:3, ::2] = 7.0
    assert numpy.array_equal(numpy.asarray(x), a)
    assert numpy.array_equal(numpy.asarray(xp.take(x, xp.asarray([3, 0, 3]), axis=0)), a[[3, 0, 3]])


def test_inspection():
    info = xp.__array_namespace_info__()
    assert info.default_device() in info.devices()
    assert info.default_dtypes()["real floating"] == xp.float64
    assert set(info.dtypes(kind="integral")) == {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                                 "uint64"}
    x = xp.asarray([1, 2])
    assert x.__array_namespace__() is xp
    assert x.device == info.default_device()


def test_result_type_and_concat_of_several_dtypes(rng):
    # numpy's algorithm for several dtypes at once is not a left fold of promote_types (int8, uint16,
    # float32 is float32, the fold float64): result_type and concat (np.concatenate's promotion) give
    # numpy's answer for every triple.
    import itertools
    names = [n for n in xp.__array_namespace_info__().dtypes()]
    for triple in itertools.product(names, repeat=3):
        assert xp.result_type(*(getattr(xp, n) for n in triple)) == numpy.result_type(*triple), triple
    parts = [rng.integers(-100, 100, 3).astype(numpy.int8), rng.integers(0, 60000, 2).astype(numpy.uint16),
             rng.standard_normal(4).astype(numpy.float32)]
    got = numpy.asarray(xp.concat([xp.asarray(p) for p in parts]))
    want = numpy.concatenate(parts)
    assert got.dtype == want.dtype == numpy.float32
    assert numpy.array_equal(got, want)


def test_assignment_to_empty_selections_checks_the_value_as_numpy(rng):
    # numpy checks the value against the selection even when nothing is selected: a value that does
    # not broadcast to it is a ValueError (a mask over every axis takes 0-d or 1-d values only: a
    # TypeError), and the array is left as it was.
    shapes = [(3,), (2, 3), (0,), (0, 3)]
    values = [(), (0,), (1,), (2,), (3,), (1, 1), (2, 1), (1, 3), (0, 3)]
    for shape in shapes:
        keys = [numpy.zeros(shape, dtype=bool), numpy.zeros(shape[:1], dtype=bool), numpy.False_, slice(0, 0)]
        for key in keys:
            for vshape in values:
                a = rng.standard_normal(shape).astype(numpy.float32)
                v = rng.standard_normal(vshape).astype(numpy.float32)
                want = a.copy()
                try:
                    want[key] = v
                    numpy_raised = None
                except (ValueError, TypeError) as e:
                    numpy_raised = e
                x = xp.asarray(a)
                k = xp.asarray(key) if not isinstance(key, slice) else key
                try:
                    x[k] = xp.asarray(v)
                    raised = None
                except (ValueError, TypeError) as e:
                    raised = e
                assert (raised is None) == (numpy_raised is None), (shape, key, vshape, raised, numpy_raised)
                assert numpy.array_equal(numpy.asarray(x), want if numpy_raised is None else a)
