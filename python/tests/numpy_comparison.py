"""What the tests of numpy functions on kjarni arrays share (test_numpy_composed.py,
test_numpy_einsum.py, test_numpy_calculus.py): random data of any dtype (never all zeros), device
copies of it on a queue, and the comparison of a kjarni result with numpy's: dtype and shape
exactly, values exactly or within a bound the caller derives from the arithmetic."""

import numpy

import kjarni


def device(queue, a):
    """A kjarni copy of the host array `a` on `queue` (a 0-d array stays 0-d), remembering the queue."""
    a = numpy.asarray(a)
    d = kjarni.Array.from_host(queue, a if a.flags.c_contiguous else a.copy())
    d.queue = queue
    return d


def host(queue, x):
    return x.get(queue) if isinstance(x, (kjarni.Array, kjarni.Expr)) else numpy.asarray(x)


def eps(dtype):
    """The dtype's machine epsilon (0 for exact integer and bool arithmetic)."""
    return numpy.finfo(numpy.dtype(dtype)).eps if numpy.dtype(dtype).kind in "fc" else 0


def random(rng, shape, dtype, unsigned_low=0):
    """Random values of `dtype`: bool half true, signed integers in [-9, 9], unsigned ones in
    [unsigned_low, 9], floats of scale 3 (complex: both parts); an array for shape () too."""
    dtype = numpy.dtype(dtype)
    if dtype == numpy.bool_:
        return numpy.asarray(rng.random(shape) < 0.5)
    if dtype.kind in "iu":
        return numpy.asarray(rng.integers(unsigned_low if dtype.kind == "u" else -9, 10, shape), dtype)
    values = rng.standard_normal(shape) * 3
    if dtype.kind == "c":
        values = values + 1j * rng.standard_normal(shape)
    return numpy.asarray(values, dtype)


def same(queue, got, want, atol=None, rtol=0):
    """got (a kjarni result) has numpy's dtype and shape and its values: exactly, or within atol
    (an array or number, broadcast) plus rtol |want|; NaN where numpy has NaN."""
    got, want = host(queue, got), numpy.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape, want.shape)
    if atol is None and rtol == 0:
        numpy.testing.assert_array_equal(got, want)
        return
    nan = numpy.isnan(want)
    numpy.testing.assert_array_equal(numpy.isnan(got), nan)
    with numpy.errstate(invalid="ignore"):  # (inf - inf where both are inf: compared as equal)
        close = (got == want) | (numpy.abs(got - want) <= (0 if atol is None else atol) + rtol * numpy.abs(want))
    assert numpy.all(close | nan), f"{got[~(close | nan)]} != {numpy.broadcast_to(want, got.shape)[~(close | nan)]}"
