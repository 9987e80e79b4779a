"""numpy's partition, argpartition, linalg.vecdot, tensordot, cov, corrcoef, convolve, correlate,
bincount, histogram, interp and pad on kjarni arrays (kjarni/_numpy_linalg.py and _numpy_composed.py),
against numpy 2.4 on the same random data: dtype, shape and values (exact where the arithmetic is
the same or there is none; floats within the rounding bound of the sums each one makes), numpy's
exception classes for bad input, and ArgumentTypeError for the options kjarni leaves out."""

import warnings

import numpy
import pytest

import kjarni
from numpy_comparison import device, eps, host, random, same


def dot_bound(at, bt, dtype):
    """The rounding bound of numpy's (and kjarni's) matrix product at @ bt in `dtype`: 2 (K + 1) eps
    sum_k |at_ik bt_kj| for each result, K the number of terms (0 for integers and bool)."""
    terms = numpy.abs(at).astype(numpy.float64) @ numpy.abs(bt).astype(numpy.float64)
    return 2 * (at.shape[1] + 1) * eps(dtype) * terms


# ---- partition ----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64, numpy.int32, numpy.bool_])
def test_partition_and_argpartition(queue, rng, dtype):
    # kjarni partitions by a full sort: numpy's partition leaves the order on either side of kth
    # unspecified, so the kth elements must be numpy's and every element the sorted one.
    for shape, kth, axis in [((11,), 3, -1), ((4, 9), [0, 5, -1], 1), ((4, 9), 2, 0), ((4, 9), 30, None),
                             ((1,), 0, 0), ((0,), 5, -1), ((3, 0), 1, 0)]:
        a = random(rng, shape, dtype)
        if numpy.dtype(dtype).kind == "f" and a.size > 2:
            a.reshape(-1)[[0, -1]] = numpy.nan  # sorted last by both
        d = device(queue, a)
        want, got = numpy.partition(a, kth, axis=axis), numpy.partition(d, kth, axis=axis)
        flat = a.reshape(-1) if axis is None else a
        ax = 0 if axis is None else axis
        same(queue, got, numpy.sort(flat, axis=ax))
        if flat.size:
            at = numpy.asarray(kth)
            numpy.testing.assert_array_equal(numpy.take(host(queue, got), at, axis=ax), numpy.take(want, at, axis=ax))
        indices = numpy.argpartition(d, kth, axis=axis)
        assert indices.dtype == numpy.intp and indices.shape == numpy.argpartition(a, kth, axis=axis).shape
        numpy.testing.assert_array_equal(numpy.take_along_axis(flat, host(queue, indices), ax),
                                         numpy.sort(flat, axis=ax))


def test_partition_errors_as_numpys(queue, rng):
    d = device(queue, rng.standard_normal(5))
    with pytest.raises(ValueError, match="out of bounds"):
        numpy.partition(d, 5)
    with pytest.raises(ValueError, match="out of bounds"):
        numpy.argpartition(d, -6)
    with pytest.raises(ValueError, match="Booleans"):
        numpy.partition(d, True)
    with pytest.raises(TypeError, match="must be integer"):
        numpy.partition(d, 1.0)
    with pytest.raises(ValueError, match="introselect"):
        numpy.partition(d, 1, kind="quicksort")
    with pytest.raises(ValueError, match="out of bounds"):
        numpy.partition(d, 1, axis=1)
    with pytest.raises(ValueError, match="out of bounds"):
        numpy.partition(device(queue, numpy.array(2.0)), 0)  # numpy's AxisError for a 0-d array


# ---- vecdot, tensordot ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64, numpy.int32, numpy.bool_, numpy.complex128,
                                   numpy.int8])
def test_linalg_vecdot(queue, rng, dtype):
    # numpy sums conj(x1) x2 (an OR of ANDs for bool; int8 wraps alike): within the bound of a sum
    # of n products in the dtype (kjarni's float32 sum accumulates in float64, only closer).
    for s1, s2, axis in [((4, 7), (7,), -1), ((3, 1, 5), (2, 5), -1), ((6, 3), (6, 3), 0), ((4, 0), (4, 0), -1),
                         ((1,), (1,), 0), ((2, 3, 4), (2, 3, 4), 1)]:
        x1, x2 = random(rng, s1, dtype), random(rng, s2, dtype)
        want = numpy.linalg.vecdot(x1, x2, axis=axis)
        got = numpy.linalg.vecdot(device(queue, x1), device(queue, x2), axis=axis)
        n = x1.shape[axis]
        bound = 2 * (n + 1) * eps(dtype) * numpy.linalg.vecdot(numpy.abs(x1).astype(float),
                                                               numpy.abs(x2).astype(float), axis=axis)
        same(queue, got, want, atol=bound if eps(dtype) else None)
    with pytest.raises(ValueError, match="core dimension"):
        numpy.linalg.vecdot(device(queue, random(rng, (3, 4), dtype)), device(queue, random(rng, (3,), dtype)))
    with pytest.raises(ValueError, match="enough dimensions"):
        numpy.linalg.vecdot(device(queue, random(rng, (), dtype)), device(queue, random(rng, (3,), dtype)))


@pytest.mark.parametrize("dtypes", [(numpy.float64, numpy.float32), (numpy.int32, numpy.int16),
                                    (numpy.bool_, numpy.bool_), (numpy.complex64, numpy.complex64),
                                    (numpy.float16, numpy.float16)])
def test_tensordot(queue, rng, dtypes):
    # numpy's dot of the reshaped operands: within K eps sum |a_i b_i| of the K products summed
    # (float16: numpy and kjarni both accumulate in float32, then round once to float16).
    for sa, sb, axes in [((2, 3, 4), (3, 4, 5), 2), ((2, 3, 4), (4, 5), 1), ((3,), (4,), 0),
                         ((2, 3, 4), (4, 2, 3), ([0, 1], [1, 2])), ((3, 0), (0, 2), 1), ((0, 3), (3, 2), 1),
                         ((5,), (5,), 1)]:
        a, b = random(rng, sa, dtypes[0]), random(rng, sb, dtypes[1])
        want = numpy.tensordot(a, b, axes)
        got = numpy.tensordot(device(queue, a), device(queue, b), axes)
        wide = numpy.float32 if want.dtype == numpy.float16 else want.dtype
        bound = numpy.abs(want) * eps(want.dtype) + dot_bound(*_moved(a, b, axes), wide).reshape(want.shape)
        atol = bound if eps(want.dtype) else None
        same(queue, got, want, atol=atol)
    with pytest.raises(ValueError, match="shape-mismatch"):
        numpy.tensordot(device(queue, random(rng, (2, 3), dtypes[0])), device(queue, random(rng, (2, 3), dtypes[1])),
                        axes=1)


def _moved(a, b, axes):
    """a and b as numpy's tensordot multiplies them: matrices (free axes, summed axes), (summed, free)."""
    if isinstance(axes, int):
        axes = (list(range(a.ndim - axes, a.ndim)), list(range(axes)))
    free_a = [k for k in range(a.ndim) if k not in axes[0]]
    free_b = [k for k in range(b.ndim) if k not in axes[1]]
    size = lambda x, ks: int(numpy.prod([x.shape[k] for k in ks]))  # noqa: E731
    at = a.transpose(free_a + list(axes[0])).reshape(size(a, free_a), size(a, axes[0]))
    bt = b.transpose(list(axes[1]) + free_b).reshape(size(b, axes[1]), size(b, free_b))
    return at, bt


# ---- cov, corrcoef --------------------------------------------------------------------------------

COV_CASES = [
    ((4, 9), {}), ((4, 9), {"rowvar": False}), ((9,), {}), ((4, 9), {"bias": True}), ((4, 9), {"ddof": 3}),
    ((3, 8), {"y": (2, 8)}), ((8, 3), {"y": (8,), "rowvar": False}), ((4, 9), {"fweights": "f"}),
    ((4, 9), {"aweights": "a"}), ((4, 9), {"fweights": "f", "aweights": "a", "ddof": 2}),
    ((4, 9), {"aweights": "a", "ddof": 0}), ((1, 5), {}), ((0, 5), {}),
]


def _cov_arguments(queue, rng, shape, options, dtype, on_device):
    m = random(rng, shape, dtype)
    kwargs = dict(options)
    if "y" in options:
        kwargs["y"] = random(rng, options["y"], dtype)
    count = shape[-1] if options.get("rowvar", True) else shape[0]
    if "fweights" in options:
        kwargs["fweights"] = rng.integers(0, 4, count) + (numpy.arange(count) == 0)
    if "aweights" in options:
        kwargs["aweights"] = rng.random(count) + 0.1
    if on_device:
        m = device(queue, m)
        kwargs = {k: device(queue, v) if isinstance(v, numpy.ndarray) else v for k, v in kwargs.items()}
    return m, kwargs


@pytest.mark.parametrize("dtype", [numpy.float64, numpy.float32, numpy.int32, numpy.bool_, numpy.complex128])
def test_cov_and_corrcoef(queue, rng, dtype):
    # numpy computes in float64 (complex128) at least: the means, the centered products (a sum of
    # n terms each) and the factor differ from kjarni's by the roundings of those sums, so a bound
    # of 4 (n + 2) eps64 times the largest sum of |centered products|.
    for shape, options in COV_CASES:
        seed = rng.integers(2**32)
        m, kwargs = _cov_arguments(queue, numpy.random.default_rng(seed), shape, options, dtype, False)
        dm, dkwargs = _cov_arguments(queue, numpy.random.default_rng(seed), shape, options, dtype, True)
        want = numpy.cov(m, **kwargs)
        scale = 1 + numpy.abs(numpy.asarray(m, numpy.complex128)).max(initial=0) ** 2 * 16 * max(shape)
        same(queue, numpy.cov(dm, **dkwargs), want, atol=4 * (max(shape) + 2) * eps(numpy.float64) * scale)
        if "fweights" not in options and "aweights" not in options and "ddof" not in options \
                and "bias" not in options:
            # corrcoef: numbers in [-1, 1], from cov's, each divided twice (a few eps more)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # a constant bool row's 0 / 0, on both
                want = numpy.corrcoef(m, **kwargs)
                got = numpy.corrcoef(dm, **dkwargs)
            same(queue, got, want, atol=64 * (max(shape) + 2) * eps(numpy.float64) * scale)


def test_cov_in_float32_and_edge_cases(queue, rng):
    m = random(rng, (5, 12), numpy.float32)
    # dtype=float32: numpy's sums in float32 (its pairwise mean, BLAS's dot), kjarni's mean in
    # float64 rounded once: within 4 (n + 2) eps32 of the largest sum of |products|.
    want = numpy.cov(m, dtype=numpy.float32)
    bound = 4 * 14 * eps(numpy.float32) * (numpy.abs(m) @ numpy.abs(m).T + 1)
    same(queue, numpy.cov(device(queue, m), dtype=numpy.float32), want, atol=bound)
    same(queue, numpy.corrcoef(device(queue, m), dtype=numpy.float32), numpy.corrcoef(m, dtype=numpy.float32),
         atol=64 * 14 * eps(numpy.float32))
    # fewer observations than ddof: numpy's warning and 1 / 0 (inf, NaN for 0 * inf)
    for shape in [(3, 2), (3, 0)]:
        m = random(rng, shape, numpy.float64)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            want = numpy.cov(m, ddof=4)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = numpy.cov(device(queue, m), ddof=4)
        assert {"Degrees of freedom <= 0 for slice", "divide by zero encountered in divide"} <= \
            {str(w.message) for w in caught}  # numpy's two warnings
        same(queue, got, want)
    d = device(queue, random(rng, (3, 4), numpy.float64))
    with pytest.raises(ValueError, match="ddof must be integer"):
        numpy.cov(d, ddof=1.5)
    with pytest.raises(ValueError, match="more than 2 dimensions"):
        numpy.cov(device(queue, random(rng, (2, 2, 2), numpy.float64)))
    with pytest.raises(ValueError, match="negative"):
        numpy.cov(d, aweights=device(queue, numpy.array([1.0, -1.0, 1.0, 1.0])))
    with pytest.raises(TypeError, match="fweights must be integer"):
        numpy.cov(d, fweights=device(queue, numpy.array([1.0, 1.5, 1.0, 1.0])))


# ---- convolve, correlate --------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64, numpy.int32, numpy.bool_, numpy.complex128])
def test_convolve_and_correlate(queue, rng, dtype):
    # numpy's direct sums of at most min(len) products: within that many eps of sum |a_i v_j|.
    for na, nv in [(9, 4), (4, 9), (6, 6), (1, 5), (5, 1), (1, 1), (8, 3)]:
        a, v = random(rng, na, dtype), random(rng, nv, dtype)
        for mode in ("full", "same", "valid", 0, 2):
            for function in (numpy.convolve, numpy.correlate):
                want = function(a, v, mode)
                got = function(device(queue, a), device(queue, v), mode)
                bound = 2 * (min(na, nv) + 1) * eps(dtype) * numpy.abs(a).max() * numpy.abs(v).max() * min(na, nv)
                same(queue, got, want, atol=bound if eps(dtype) else None)
    d = device(queue, random(rng, 4, dtype))
    empty = device(queue, random(rng, 0, dtype))
    with pytest.raises(ValueError, match="cannot be empty"):
        numpy.correlate(d, empty)
    with pytest.raises(ValueError, match="cannot be empty"):
        numpy.convolve(empty, d)
    with pytest.raises(ValueError, match="mode must be"):
        numpy.correlate(d, d, "middle")
    with pytest.raises(ValueError, match="too deep"):
        numpy.correlate(device(queue, random(rng, (2, 2), dtype)), d)
    # numpy's convolve takes 0-d operands as one element (its correlate does not)
    same(queue, numpy.convolve(device(queue, numpy.array(3, numpy.int32)), device(queue, numpy.arange(4))),
         numpy.convolve(numpy.array(3, numpy.int32), numpy.arange(4)))


# ---- bincount, histogram ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [numpy.int64, numpy.int32, numpy.uint8, numpy.bool_])
def test_bincount(queue, rng, dtype):
    # Counts are exact. Weighted sums: numpy adds each bin's weights in order in float64, kjarni
    # takes differences of the cumulative sum in the order of the sorted values: within n eps64
    # of the sum of all |weights| (exact for integer weights).
    for n, minlength in [(50, 0), (50, 40), (1, 0), (7, 3), (0, 0), (0, 6)]:
        x = random(rng, n, dtype)
        if dtype != numpy.bool_:
            x = numpy.abs(x)
        d = device(queue, x)
        same(queue, numpy.bincount(d, minlength=minlength), numpy.bincount(x, minlength=minlength))
        for weights in (rng.standard_normal(n), rng.standard_normal(n).astype(numpy.float32),
                        rng.integers(-5, 5, n).astype(numpy.int16), rng.random(n) < 0.5):
            want = numpy.bincount(x, weights=weights, minlength=minlength)
            got = numpy.bincount(d, weights=device(queue, weights), minlength=minlength)
            exact = weights.dtype.kind in "biu"
            same(queue, got, want, atol=None if exact else 2 * (n + 1) * eps(numpy.float64) * numpy.abs(weights).sum())


def test_bincount_errors_as_numpys(queue, rng):
    d = device(queue, numpy.array([1, 3, 0]))
    with pytest.raises(ValueError, match="no negative elements"):
        numpy.bincount(device(queue, numpy.array([1, -3, 0])))
    with pytest.raises(TypeError, match="safe"):
        numpy.bincount(device(queue, numpy.array([1.0, 3.0])))
    with pytest.raises(TypeError, match="safe"):
        numpy.bincount(d, weights=device(queue, numpy.array([1j, 2, 3])))
    with pytest.raises(ValueError, match="too deep"):
        numpy.bincount(device(queue, numpy.ones((2, 2), numpy.int64)))
    with pytest.raises(ValueError, match="minlength"):
        numpy.bincount(d, minlength=-1)
    with pytest.raises(TypeError, match="instead of None"):
        numpy.bincount(d, minlength=None)
    with pytest.raises(ValueError, match="same length"):
        numpy.bincount(d, weights=device(queue, numpy.ones(2)))


@pytest.mark.parametrize("dtype", [numpy.float64, numpy.float32, numpy.int32, numpy.int8])
def test_histogram(queue, rng, dtype):
    # Counts are exact: numpy's uniform bins and its edge search both give searchsorted of the
    # edges (numpy's own linspace, so the same edges) with the last edge inclusive. Weighted sums
    # as bincount's (n eps of the sum of |weights|, in the weights' dtype); density divides those.
    a = random(rng, (6, 50), dtype)
    if numpy.dtype(dtype).kind == "f":
        a[0, :3] = [numpy.nan, numpy.inf, -numpy.inf]  # outside every range given
        a[1, :4] = [-1, 1, 0.5, 0.25]  # on edges
    d = device(queue, a)
    finite = numpy.isfinite(a)
    cases = [{"bins": 7, "range": (-1, 1)}, {"bins": [-3, -1, 0, 0.25, 0.5, 1, 4]}, {"bins": 1, "range": (0, 0)},
             {"bins": 4, "range": (-2, 2), "density": True}, {"bins": [-1.5, 2.5]}]
    for kwargs in cases:
        for weights in (None, rng.standard_normal(a.shape), rng.integers(-5, 5, a.shape).astype(numpy.int32),
                        (rng.standard_normal(a.shape) + 1j).astype(numpy.complex64)):
            want = numpy.histogram(a, weights=weights, **kwargs)
            dkwargs = dict(kwargs)
            if isinstance(kwargs["bins"], list) and weights is None:
                dkwargs["bins"] = device(queue, numpy.asarray(kwargs["bins"]))  # edges on the device too
            got = numpy.histogram(d, weights=None if weights is None else device(queue, weights), **dkwargs)
            total = 1.0 if weights is None else numpy.abs(weights).sum()
            inexact = weights is not None and weights.dtype.kind in "fc"
            atol = 2 * (a.size + 1) * eps(weights.dtype if inexact else numpy.float64) * total
            if kwargs.get("density"):
                atol = atol * numpy.abs(want[0]).max() + 16 * eps(numpy.float64) * numpy.abs(want[0]).max()
            same(queue, got[0], want[0], atol=atol if inexact or kwargs.get("density") else None)
            same(queue, got[1], want[1])
    if numpy.dtype(dtype).kind != "f" or finite.all():
        # the range of the values themselves (numpy reads their least and greatest)
        same(queue, numpy.histogram(d, bins=5)[0], numpy.histogram(a, bins=5)[0])
        same(queue, numpy.histogram(d, bins=5)[1], numpy.histogram(a, bins=5)[1])
    else:
        with pytest.raises(ValueError, match="not finite"):
            numpy.histogram(d)
        same(queue, numpy.histogram(device(queue, a[2:]))[0], numpy.histogram(a[2:])[0])


def test_histogram_edge_cases(queue, rng):
    for a in (numpy.array([], numpy.float64), numpy.full(5, 2.5), numpy.array([7], numpy.int16)):
        for kwargs in ({}, {"bins": 3}, {"density": True}):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # an empty density: 0 / 0 on both
                want = numpy.histogram(a, **kwargs)
                got = numpy.histogram(device(queue, a), **kwargs)
            same(queue, got[0], want[0], atol=4 * eps(numpy.float64) if kwargs.get("density") else None)
            same(queue, got[1], want[1])
    flags = rng.random(20) < 0.5
    with pytest.warns(RuntimeWarning, match="uint8"):
        got = numpy.histogram(device(queue, flags), bins=3)
    same(queue, got[0], numpy.histogram(flags.astype(numpy.uint8), bins=3)[0])
    d = device(queue, rng.standard_normal(10))
    with pytest.raises(ValueError, match="positive"):
        numpy.histogram(d, bins=0)
    with pytest.raises(TypeError, match="integer, a string, or an array"):
        numpy.histogram(d, bins=2.5)
    with pytest.raises(ValueError, match="monotonically"):
        numpy.histogram(d, bins=[0, 2, 1])
    with pytest.raises(ValueError, match="monotonically"):
        numpy.histogram(d, bins=device(queue, numpy.array([0.0, 2.0, 1.0])))
    with pytest.raises(ValueError, match="max must be larger"):
        numpy.histogram(d, range=(1, 0))
    with pytest.raises(ValueError, match="same shape"):
        numpy.histogram(d, weights=device(queue, numpy.ones(3)))
    with pytest.raises(TypeError, match="same_kind"):
        numpy.histogram(d, bins=[0, 1, 2], weights=device(queue, numpy.ones(10, bool)))  # numpy's UFuncTypeError


# ---- interp -------------------------------------------------------------------------------------

def _interp_case(rng, n, fp_dtype):
    xp = numpy.sort(rng.standard_normal(n) * 2)
    if n > 3:
        xp[2] = xp[1]  # a repeated sample point
    fp = random(rng, n, fp_dtype)
    x = numpy.concatenate([rng.standard_normal(30) * 3, xp, [numpy.nan, numpy.inf, -numpy.inf]])
    return x, xp, fp


@pytest.mark.parametrize("fp_dtype", [numpy.float64, numpy.float32, numpy.int32, numpy.bool_, numpy.complex128])
def test_interp(queue, rng, fp_dtype):
    # numpy's float64 formula slope (x - xp[j]) + fp[j] (complex: its parts, the slope times the
    # step's reciprocal): the same operations, each rounded alone (kjarni's kernels do not contract
    # a multiply and an add; float64 division is correctly rounded), so the same values exactly.
    for n in (8, 2, 1):
        x, xp, fp = _interp_case(rng, n, fp_dtype)
        for kwargs in ({}, {"left": -7.5, "right": 3}, {"left": 1 + 2j} if fp_dtype == numpy.complex128 else {}):
            want = numpy.interp(x, xp, fp, **kwargs)
            got = numpy.interp(device(queue, x), device(queue, xp), device(queue, fp), **kwargs)
            same(queue, got, want)
        # x 0-d, x of ints, host xp and fp beside a device x
        same(queue, numpy.interp(device(queue, numpy.array(x[0])), xp, fp), numpy.interp(x[0], xp, fp))
        xi = numpy.round(x[:30]).astype(numpy.int32)
        same(queue, numpy.interp(device(queue, xi), device(queue, xp), fp), numpy.interp(xi, xp, fp))
        # period: x and xp modulo it, one point more at each end (distinct xp: numpy's argsort is
        # not stable, kjarni's is)
        xp = numpy.unique(xp)
        fp = fp[:xp.size]
        want = numpy.interp(x[:30], xp, fp, period=2.5)
        got = numpy.interp(device(queue, x[:30]), device(queue, xp), device(queue, fp), period=-2.5)
        same(queue, got, want)


def test_interp_edge_cases(queue, rng):
    xp, fp = numpy.array([0.0, 1.0, 1.0, 2.0]), numpy.array([0.0, numpy.inf, 5.0, numpy.nan])
    x = numpy.array([0.5, 1.0, 1.5, 2.0, 2.5, -1.0, numpy.nan])
    same(queue, numpy.interp(device(queue, x), device(queue, xp), device(queue, fp)), numpy.interp(x, xp, fp))
    same(queue, numpy.interp(device(queue, x[:0]), device(queue, xp), device(queue, fp)), numpy.interp(x[:0], xp, fp))
    d = device(queue, x)
    with pytest.raises(ValueError, match="sample points is empty"):
        numpy.interp(d, device(queue, xp[:0]), device(queue, fp[:0]))
    with pytest.raises(ValueError, match="same length"):
        numpy.interp(d, device(queue, xp), device(queue, fp[:3]))
    with pytest.raises(ValueError, match="period must be a non-zero"):
        numpy.interp(d, device(queue, xp), device(queue, fp), period=0)
    with pytest.raises(TypeError, match="safe"):
        numpy.interp(device(queue, x + 1j), device(queue, xp), device(queue, fp))
    with pytest.raises(TypeError):
        numpy.interp(d, device(queue, xp), device(queue, fp), left=1j)  # numpy's: a real fp takes a real left


# ---- pad ----------------------------------------------------------------------------------------

PAD_WIDTHS = [1, (2, 3), ((1, 7), (9, 0)), ((0, 0), (4, 11)), {1: (3, 2)}, 0]


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.int32, numpy.bool_, numpy.complex64])
def test_pad(queue, rng, dtype):
    # Copies of elements (odd reflections: 2 edge - value, numpy's one operation): exact.
    a = random(rng, (3, 4), dtype)
    d = device(queue, a)
    for mode in ("constant", "edge", "reflect", "symmetric", "wrap"):
        for width in PAD_WIDTHS:
            same(queue, numpy.pad(d, width, mode), numpy.pad(a, width, mode))
    for mode in ("reflect", "symmetric"):
        if dtype != numpy.bool_:
            same(queue, numpy.pad(d, ((5, 11), (4, 1)), mode, reflect_type="odd"),
                 numpy.pad(a, ((5, 11), (4, 1)), mode, reflect_type="odd"))
        same(queue, numpy.pad(d[:1], ((3, 2), (5, 9)), mode), numpy.pad(a[:1], ((3, 2), (5, 9)), mode))
    for values in (7, (1, 2), ((1, 2), (3, 4))):
        same(queue, numpy.pad(d, ((2, 3), (1, 4)), constant_values=values),
             numpy.pad(a, ((2, 3), (1, 4)), constant_values=values))
    got = numpy.pad(d, ((1, 2), (3, 0)), mode="empty")
    assert got.dtype == a.dtype and got.shape == (6, 7)
    same(queue, got[1:4, 3:], a)
    same(queue, numpy.pad(device(queue, a[:, :0]), ((1, 2), (0, 0)), "edge"), numpy.pad(a[:, :0], ((1, 2), (0, 0)),
                                                                                       "edge"))
    same(queue, numpy.pad(device(queue, a[:0]), 2), numpy.pad(a[:0], 2))
    same(queue, numpy.pad(device(queue, a[0, 0]), 2), numpy.pad(a[0, 0], 2))


def test_pad_errors_as_numpys(queue, rng):
    d = device(queue, rng.standard_normal((3, 4)))
    with pytest.raises(ValueError, match="not supported"):
        numpy.pad(d, 1, mode="sideways")
    with pytest.raises(ValueError, match="unsupported keyword"):
        numpy.pad(d, 1, mode="edge", constant_values=3)
    with pytest.raises(ValueError, match="negative"):
        numpy.pad(d, ((1, -1), (0, 0)))
    with pytest.raises(TypeError, match="integral"):
        numpy.pad(d, 1.5)
    with pytest.raises(ValueError, match="empty axis"):
        numpy.pad(device(queue, numpy.ones((0, 3))), 1, mode="wrap")
    with pytest.raises(ValueError, match="NaN"):
        numpy.pad(device(queue, numpy.arange(3)), 1, constant_values=numpy.nan)  # numpy's setitem's error


# ---- operands that are expressions or views --------------------------------------------------------

def test_expressions_and_views_as_operands(queue, rng):
    # numpy's functions on `2 * x` (an Expr: evaluated first) and on strided views, as on arrays
    # (float64 sums in another order: within 1e-12 of the largest value).
    x = random(rng, (4, 6), numpy.float64)
    i = numpy.abs(random(rng, (9,), numpy.int32))
    dx, di = device(queue, x), device(queue, i)
    functions = [
        lambda a: numpy.partition(a, 3, axis=None), lambda a: numpy.linalg.vecdot(a, a),
        lambda a: numpy.tensordot(a, a, ([0], [0])), numpy.cov, numpy.corrcoef,
        lambda a: numpy.histogram(a, bins=4)[0], lambda a: numpy.interp(a, [-1.0, 0.0, 2.0], [3.0, -1.0, 0.5]),
        lambda a: numpy.pad(a, 3, "wrap"),
    ]
    for got_of, want_of in ((2 * dx, 2 * x), (dx[::-1, ::2], x[::-1, ::2])):
        for function in functions:
            want = function(want_of)
            same(queue, function(got_of), want, atol=1e-12 * (1 + numpy.abs(want).max(initial=0)))
        indices = host(queue, numpy.argpartition(got_of, 1))
        numpy.testing.assert_array_equal(numpy.take_along_axis(want_of, indices, -1), numpy.sort(want_of))
    same(queue, numpy.bincount(di + 1), numpy.bincount(i + 1))
    same(queue, numpy.convolve(dx[0] * 2, dx[1, ::2]), numpy.convolve(x[0] * 2, x[1, ::2]), atol=1e-12)
    same(queue, numpy.correlate(dx[::-1, 0], dx[1, ::-3]), numpy.correlate(x[::-1, 0], x[1, ::-3]), atol=1e-12)


# ---- what kjarni leaves out ---------------------------------------------------------------------

def test_options_left_out_are_refused_by_name(queue, rng):
    """The options these functions refuse raise ArgumentTypeError naming them (vecdot, tensordot,
    cov, corrcoef, convolve, correlate, bincount and interp take every option numpy 2.4 has)."""
    d = device(queue, rng.standard_normal(6))
    z = device(queue, rng.standard_normal(6) + 1j)
    refused = [
        (lambda: numpy.partition(d, 1, order="x"), "order"),
        (lambda: numpy.argpartition(d, 1, order="x"), "order"),
        (lambda: numpy.partition(z, 1), "complex"),
        (lambda: numpy.argpartition(z, 1), "complex"),
        (lambda: numpy.histogram(d, bins="auto"), "estimator"),
        (lambda: numpy.histogram(z), "complex"),
        (lambda: numpy.pad(d, 1, mode="mean"), "mean"),
        (lambda: numpy.pad(d, 1, mode="linear_ramp"), "linear_ramp"),
        (lambda: numpy.pad(d, 1, mode=lambda *args: None), "mode"),
    ]
    for call, option in refused:
        with pytest.raises(kjarni.ArgumentTypeError, match=option):
            call()


def test_correlate_and_convolve_of_non_finite_values_sum_only_the_overlap(queue):
    """numpy's correlate and convolve sum only the products that fall in both operands: an infinity
    or NaN of the shorter operand makes NaN only the outputs whose overlap holds it; kjarni's
    windows of the longer operand padded with zeros made 0 * inf = NaN at the ends too (found by the
    Python fuzzer, seed 2: correlate(complex64 with nan and inf parts, 8 finite values, 'same'))."""
    a = numpy.array([1e-3 + numpy.nan * 1j, -2.5 + numpy.inf * 1j, -0.85 + 1.2j, 1.09 - 7.8j, -2.4 - 5.1j],
                    numpy.complex64)
    b = (numpy.arange(8) - 3.5 + 1j * numpy.arange(8)[::-1]).astype(numpy.complex64)
    x = numpy.array([1.0, numpy.inf, 2.0], numpy.float32)
    y = numpy.array([0.5, -1.0, 2.0, 3.0, 0.25, 4.0], numpy.float32)
    for f in (numpy.correlate, numpy.convolve):
        for p, q in ((a, b), (b, a), (x, y), (y, x), (x.astype(numpy.float64), y)):
            for mode in ("full", "same", "valid"):
                with numpy.errstate(all="ignore"):
                    want = f(p, q, mode)
                got = f(device(queue, p), device(queue, q), mode).get()
                assert got.dtype == want.dtype and got.shape == want.shape
                assert numpy.array_equal(numpy.isnan(got), numpy.isnan(want)), (f.__name__, mode, got, want)
                finite = numpy.isfinite(want)
                assert numpy.allclose(got[finite], want[finite], rtol=1e-5)


def test_pad_refuses_a_negative_width_of_a_0d_array(queue):
    """numpy.pad checks the widths given before repeating them for each axis: a 0-d array's -1 is
    numpy's ValueError; kjarni had no axis to repeat it for and returned the array (found by the
    Python fuzzer, seed 2)."""
    for width in (-1, (-1, 2), ((0, -1),)):
        with pytest.raises(ValueError):
            numpy.pad(numpy.array(0, numpy.uint16), width, "edge")
        with pytest.raises(ValueError, match="negative"):
            numpy.pad(device(queue, numpy.array(0, numpy.uint16)), width, "edge")
    assert numpy.pad(device(queue, numpy.array(3, numpy.uint16)), 2).get() == 3
