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
    # max(a, b) + log1p(exp(-|a - b|)): exp's and log1p's few ulps on a term below 1 survive the sum,
    # so the bound is absolute, ulps of |max| + 1, not relative to a result that may cancel to ~0.
    bound = 8 * numpy.finfo(numpy.float32).eps * (numpy.abs(numpy.maximum(a, b)) + 1)
    assert (numpy.abs(numpy.asarray(xp.logaddexp(x, y)) - numpy.logaddexp(a, b)) <= bound).all()


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


def test_clip_bounds_broadcast_beyond_x(rng):
    # The result takes the shape of x and the array bounds broadcast together, as numpy's clip
    # (the standard's suite drew a 0-d x with a bound of shape (0,)).
    for x_shape, low_shape, high_shape in [((), (3,), None), ((3, 1), (4,), (3, 4)), ((), (0,), None),
                                           ((2, 1), None, (1, 5))]:
        a = rng.standard_normal(x_shape)
        low = None if low_shape is None else rng.standard_normal(low_shape) - 1
        high = None if high_shape is None else rng.standard_normal(high_shape) + 1
        got = xp.clip(xp.asarray(a), min=None if low is None else xp.asarray(low),
                      max=None if high is None else xp.asarray(high))
        want = numpy.clip(a, low, high)
        assert got.shape == want.shape and got.dtype == xp.float64
        assert numpy.array_equal(numpy.asarray(got), want)
    assert numpy.array_equal(numpy.asarray(xp.clip(xp.asarray(numpy.uint8(5)), min=xp.asarray(numpy.uint8([1, 7])))),
                             numpy.clip(numpy.uint8(5), numpy.uint8([1, 7]), None))


def test_boolean_masks_with_empty_axes(rng):
    # numpy takes a mask axis of length 0 against an axis of any length (nothing is selected);
    # any other length that differs is an IndexError.
    a = rng.standard_normal((2, 3))
    for key_shape in [(0,), (0, 0), (2, 0), (0, 3), (2,), (2, 3)]:
        key = rng.integers(0, 2, size=key_shape).astype(bool)
        x = xp.asarray(a)
        got = x[xp.asarray(key)]
        assert got.shape == a[key].shape
        assert numpy.array_equal(numpy.asarray(got), a[key])
        x[xp.asarray(key)] = 7.0
        want = a.copy()
        want[key] = 7.0
        assert numpy.array_equal(numpy.asarray(x), want)
    for key_shape in [(3,), (1, 3), (2, 4), (0, 4), (5, 0), (2, 3, 1)]:
        key = xp.asarray(numpy.zeros(key_shape, dtype=bool))
        with pytest.raises(IndexError):
            xp.asarray(a)[key]
        with pytest.raises(IndexError):
            xp.asarray(a)[key] = 1.0


_MATMUL_SHAPES = [((3, 4), (4, 5)), ((2, 3, 4), (4, 5)), ((4,), (2, 4, 5)), ((2, 3, 4), (4,)), ((4,), (4,)),
                  ((2, 1, 3, 4), (5, 4, 2)), ((1, 3, 4), (6, 4, 2)), ((7, 2, 3), (7, 3, 1)), ((3, 0), (0, 2)),
                  ((0, 3, 4), (4, 2))]


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_matmul_through_blas(rng, dtype, monkeypatch):
    from kjarni.array_api import _linalg

    def refused(*args):
        raise AssertionError("a BLAS dtype went through the broadcast-and-sum path")
    monkeypatch.setattr(_linalg, "_sum_products", refused)
    for s1, s2 in _MATMUL_SHAPES:
        a, b = rng.standard_normal(s1), rng.standard_normal(s2)
        if dtype.startswith("complex"):
            a, b = a + 1j * rng.standard_normal(s1), b + 1j * rng.standard_normal(s2)
        a, b = a.astype(dtype), b.astype(dtype)
        got = numpy.asarray(xp.matmul(xp.asarray(a), xp.asarray(b)))
        want = numpy.matmul(a.astype(numpy.complex128), b.astype(numpy.complex128))
        assert got.shape == want.shape and got.dtype == numpy.dtype(dtype)
        # A k-term dot product in any order is within k * eps * sum |a_i| |b_i| of the exact one
        # (twice that for complex products, whose parts take two terms each); numpy's in float64
        # and complex128 is rounded by the same bound, so twice it covers both.
        k = a.shape[-1]
        bound = 4 * (k + 1) * numpy.finfo(dtype).eps * numpy.matmul(numpy.abs(a).astype(float),
                                                                    numpy.abs(b).astype(float))
        assert numpy.all(numpy.abs(got - want) <= bound), (s1, s2)
    # Mixed dtypes promote first (float32 @ float64 is float64, as the standard's tables say).
    a, b = rng.standard_normal((3, 4)).astype(numpy.float32), rng.standard_normal((2, 4, 2))
    got = xp.asarray(a) @ xp.asarray(b)
    assert got.dtype == xp.float64
    numpy.testing.assert_allclose(numpy.asarray(got), a.astype(numpy.float64) @ b, rtol=1e-12, atol=1e-14)
    # A view BLAS cannot read in place (negative strides) and a transposed one.
    c = rng.standard_normal((4, 6))
    x = xp.flip(xp.asarray(c), axis=1)
    numpy.testing.assert_allclose(numpy.asarray(x @ xp.matrix_transpose(x)), c[:, ::-1] @ c[:, ::-1].T,
                                  rtol=1e-12, atol=1e-13)


_COMPLEX_ON_DEVICE = ["acos", "acosh", "asin", "asinh", "atan", "atanh", "cosh", "sinh", "tan", "expm1", "log1p",
                      "log2", "log10"]


def _complex_sample(rng, n, dtype):
    """Magnitudes from 1e-6 to 1e6 in all four quadrants, with a share near the unit circle, near
    the branch points +-1 (and +-i: the same circle), on both axes, and where cosh overflows."""
    def signed_magnitudes(size):
        return numpy.exp(rng.uniform(numpy.log(1e-6), numpy.log(1e6), size)) * rng.choice([-1, 1], size)
    z = signed_magnitudes(n) + 1j * signed_magnitudes(n)
    q = n // 8
    z[:q] = numpy.exp(1j * rng.uniform(-numpy.pi, numpy.pi, q)) * (1 + 1e-3 * rng.standard_normal(q))
    z[q:2 * q] = rng.choice([-1, 1], q) + 1e-4 * (rng.standard_normal(q) + 1j * rng.standard_normal(q))
    z[2 * q:3 * q] = z[2 * q:3 * q].real
    z[3 * q:4 * q] = 1j * z[3 * q:4 * q].imag
    # Where cosh and sinh of the real part overflow (float32 past 89.4, float64 past 710.5) while
    # their products with cos and sin of the imaginary part need not.
    band = rng.choice([-1, 1], q) * numpy.where(rng.integers(0, 2, q) == 1, rng.uniform(85, 95, q),
                                                  rng.uniform(705, 715, q))
    z[4 * q:5 * q] = band + 1j * rng.uniform(-1e3, 1e3, q)
    return z.astype(dtype)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("name", _COMPLEX_ON_DEVICE)
def test_complex_functions_on_the_device(rng, name, dtype, monkeypatch):
    def on_device(z):
        # numpy on the host would show as a read of the argument.
        with monkeypatch.context() as m:
            m.setattr(xp.Array, "_host", lambda self: pytest.fail(f"{name} read its argument to the host"))
            result = getattr(xp, name)(xp.asarray(z))
        return numpy.asarray(result)
    numpy_function = getattr(numpy, {"acos": "arccos", "acosh": "arccosh", "asin": "arcsin", "asinh": "arcsinh",
                                     "atan": "arctan", "atanh": "arctanh"}.get(name, name))
    z = _complex_sample(rng, 4000, dtype)
    with numpy.errstate(all="ignore"):
        want = numpy_function(z)
    got = on_device(z)
    assert got.dtype == want.dtype and got.shape == want.shape
    # Each part is a composition of a dozen operations that do not cancel (Hull et al. bound their
    # inverse sine at a few ulp; numpy's libm is within 1-2): 16 eps of |f(z)| covers both with the
    # 2-5 ulp OpenCL allows its builtins. expm1, log1p, log2 and log10 are numpy's formulas, whose
    # real part keeps an absolute eps where it is near 0: their scale is at least 1.
    scale = numpy.abs(want)
    if name in ("expm1", "log1p", "log2", "log10"):
        scale = numpy.maximum(scale, 1.0)
    finite = numpy.isfinite(want)
    assert numpy.array_equal(numpy.isfinite(got), finite)
    err = numpy.abs(got[finite] - want[finite])
    assert numpy.all(err <= 16 * numpy.finfo(dtype).eps * scale[finite]), z[finite][numpy.argmax(err / scale[finite])]
    # C99's special values (numpy's): zeros, +-1, +-2, infinities and NaN in either part.
    special = numpy.array([0.0, -0.0, 0.5, -1.0, 1.0, 2.0, -2.0, numpy.inf, -numpy.inf, numpy.nan])
    z = numpy.empty((special.size, special.size), dtype=dtype)
    z.real, z.imag = special[:, None], special[None, :]
    z = z.ravel()
    with numpy.errstate(all="ignore"):
        want = numpy_function(z)
    got = on_device(z)
    for part in (numpy.real, numpy.imag):
        g, w = part(got), part(want)
        assert numpy.array_equal(numpy.isnan(g), numpy.isnan(w)), z[numpy.isnan(g) != numpy.isnan(w)]
        assert numpy.array_equal(g[numpy.isinf(w)], w[numpy.isinf(w)])
        ok = numpy.isfinite(w)
        assert numpy.all(numpy.abs(g[ok] - w[ok]) <= 16 * numpy.finfo(dtype).eps * numpy.maximum(numpy.abs(w[ok]), 1.0))


def test_matmul_without_a_vendor_blas(rng, monkeypatch):
    # cuBLAS and CLBlast are loaded at run time: where one is missing (UnsupportedError), matmul
    # gives the same values through the broadcast-and-sum path.
    import kjarni

    def missing(*args):
        raise kjarni.errors.UnsupportedError("libclblast.so.1 is not installed")
    monkeypatch.setattr(kjarni._kjarni.blas, "gemm", missing)
    monkeypatch.setattr(kjarni._kjarni.blas, "gemm_batched", missing)
    a = (rng.standard_normal((2, 3, 4)) + 1j * rng.standard_normal((2, 3, 4))).astype(numpy.complex64)
    b = (rng.standard_normal((4, 5)) + 1j * rng.standard_normal((4, 5))).astype(numpy.complex64)
    for x, y in ((a, b), (a[0], b)):
        got = numpy.asarray(xp.asarray(x) @ xp.asarray(y))
        assert got.dtype == numpy.complex64
        # 4 products of parts of magnitude ~1 in float32: a few 1e-7 of rounding.
        numpy.testing.assert_allclose(got, x.astype(numpy.complex128) @ y, rtol=1e-5, atol=1e-5)


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


def test_kjarni_arrays_namespace(queue, rng):
    """kjarni.Array.__array_namespace__: the namespace takes kjarni's arrays as its own, on their
    queue, without a copy, and returns the standard's arrays."""
    import kjarni
    host = rng.standard_normal((5, 7)).astype(numpy.float32)
    x = kjarni.Array.from_host(queue, host)
    ns = x.__array_namespace__()
    assert ns is x.__array_namespace__(api_version="2023.12") and ns.__array_api_version__ == "2023.12"
    with pytest.raises(ValueError):
        x.__array_namespace__(api_version="2099.12")
    s = ns.sum(ns.sin(x) ** 2, axis=1)
    assert isinstance(s, xp.Array) and s.shape == (5,) and s.dtype == ns.float32
    # float32 sin and the square differ from float64's by a few ulp; 7 terms summed add a few more.
    numpy.testing.assert_allclose(numpy.asarray(s), (numpy.sin(host.astype(numpy.float64)) ** 2).sum(axis=1),
                                  rtol=1e-5)
    # The same memory: a write through the standard's array shows in the kjarni array.
    y = xp.asarray(x)
    y[0, 0] = 4.0
    assert x.get(queue)[0, 0] == 4.0
    back = y.to_kjarni()
    assert back.shape == (5, 7) and back.queue == queue
    # Creation on the kjarni array's device (a BoundDevice) and arrays of both kinds together.
    z = ns.ones((5, 7), dtype=ns.float32, device=queue.device)
    numpy.testing.assert_array_equal(numpy.asarray(ns.add(z.to_device(y.device), x)), host * 0 + 1 + x.get(queue))
    bare = kjarni.Array.empty(queue.device, (3,), numpy.float32)
    with pytest.raises(kjarni.ArgumentError):
        ns.sum(bare)  # no queue to order the work after
