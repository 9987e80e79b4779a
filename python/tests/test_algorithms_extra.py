"""Custom reductions and scans, cumsum / cumprod, dot, whole-MultiArray reductions and the rest of
numpy's array operations, against numpy on fresh random data."""

import numpy
import pytest

import kjarni

EPS32 = numpy.finfo(numpy.float32).eps


def test_reduction_kernel(queue, rng):
    x = rng.standard_normal((30, 17)).astype(numpy.float32)
    y = rng.standard_normal((30, 17)).astype(numpy.float32)
    x_dev, y_dev = kjarni.Array.from_host(queue, x), kjarni.Array.from_host(queue, y)
    kernel = kjarni.ReductionKernel(numpy.float32, "0", "a+b", "x[i]*y[i]*s", "const float *x, const float *y, float s")
    exact = x.astype(numpy.float64) * y * 2
    # A sum of n rounded products in any order: within n eps sum|terms| (s = 2 scales exactly).
    for axis in (None, 1):
        got = kernel(queue, x_dev, y_dev, numpy.float32(2), axis=axis).get()
        bound = 2 * x.size * EPS32 * numpy.abs(exact).sum(axis=axis)
        assert numpy.all(numpy.abs(got - exact.sum(axis=axis)) <= bound)
    with pytest.raises(kjarni.ArgumentError) as info:
        kernel(queue, x_dev, y_dev, 2.0)
    assert info.value.argument == "argument 2"


def test_scan_kernel_and_cumulative(queue, rng):
    x = rng.integers(-1000, 1000, (5, 300)).astype(numpy.int32)
    x_dev = kjarni.Array.from_host(queue, x)
    y_dev = kjarni.Array.empty(queue.device, x.shape, numpy.int32)
    exclusive = kjarni.ScanKernel(numpy.int32, "0", "a+b", "x[i]", "y[i] = prev_item;", "const int *x, int *y")
    exclusive(queue, x_dev, y_dev, axis=1)
    expected = numpy.cumsum(x, axis=1) - x
    numpy.testing.assert_array_equal(y_dev.get(queue), expected)  # integer sums: exact
    numpy.testing.assert_array_equal(kjarni.cumsum(queue, x_dev, axis=0).get(), numpy.cumsum(x, axis=0))
    numpy.testing.assert_array_equal(kjarni.cumsum(queue, x_dev).get(), numpy.cumsum(x))
    small = rng.integers(-3, 4, 20).astype(numpy.int64)
    numpy.testing.assert_array_equal(kjarni.cumprod(queue, kjarni.Array.from_host(queue, small)).get(),
                                     numpy.cumprod(small))
    f = rng.standard_normal(100).astype(numpy.float32)
    got = kjarni.cumsum(queue, kjarni.Array.from_host(queue, f), dtype=numpy.float64).get()
    assert got.dtype == numpy.float64
    numpy.testing.assert_allclose(got, numpy.cumsum(f.astype(numpy.float64)), rtol=0, atol=1e-12)


def test_dot(queue, rng):
    a = rng.integers(-100, 100, 50).astype(numpy.int32)
    b = rng.integers(-100, 100, 50).astype(numpy.int32)
    got = kjarni.dot(queue, kjarni.Array.from_host(queue, a), kjarni.Array.from_host(queue, b)).get()
    assert got.shape == () and got == numpy.dot(a.astype(numpy.int64), b)


def test_reduce_whole_and_cumsum_parts(multi_context, rng):
    mqueue = kjarni.MultiQueue.on_devices(multi_context.devices)
    host = rng.standard_normal((41, 3)).astype(numpy.float32)
    array = kjarni.MultiArray.from_host(mqueue, host, splay=kjarni.EqualSplay())
    exact = host.astype(numpy.float64)
    total = kjarni.reduce_whole(mqueue, array, "sum", axis=0).get()
    assert numpy.all(numpy.abs(total - exact.sum(axis=0)) <= host.shape[0] * EPS32 * numpy.abs(exact).sum(axis=0))
    numpy.testing.assert_array_equal(kjarni.reduce_whole(mqueue, array, "argmax").get(), host.argmax())
    numpy.testing.assert_array_equal(kjarni.reduce_whole(mqueue, array, "min", axis=(0, 1)).get(), host.min())
    with pytest.raises(kjarni.ArgumentError) as info:
        kjarni.reduce_whole(mqueue, array, "median")
    assert info.value.argument == "reduction"
    rows = kjarni.reduce_parts(mqueue, array, "sum", axis=1, dtype=numpy.float64)
    assert isinstance(rows, kjarni.MultiArray)
    # Sums of 3 values in float64: within 3 eps64 sum|x| in any order.
    assert numpy.all(numpy.abs(rows.get() - exact.sum(axis=1))
                     <= 3 * numpy.finfo(numpy.float64).eps * numpy.abs(exact).sum(axis=1))
    numpy.testing.assert_array_equal(kjarni.reduce_parts(mqueue, array, "argmin", axis=1).get(), host.argmin(axis=1))
    with pytest.raises(kjarni.UnsupportedError):
        kjarni.reduce_parts(mqueue, array, "sum", axis=0)  # across the parts
    with pytest.raises(kjarni.ArgumentError) as info:
        kjarni.reduce_parts(mqueue, array, "max", axis=1, dtype=numpy.float64)
    assert info.value.argument == "dtype"
    ints = rng.integers(-50, 50, (23, 2)).astype(numpy.int32)
    scanned = kjarni.cumsum_parts(mqueue, kjarni.MultiArray.from_host(mqueue, ints, splay=kjarni.EqualSplay()), 0)
    numpy.testing.assert_array_equal(scanned.get(), numpy.cumsum(ints, axis=0, dtype=numpy.int64))
    # Products of 13 integers in [-9, 9] fit int64: exact, against numpy.
    small = rng.integers(-9, 10, (13, 2)).astype(numpy.int32)
    products = kjarni.cumprod_parts(mqueue, kjarni.MultiArray.from_host(mqueue, small, splay=kjarni.EqualSplay()), 0)
    numpy.testing.assert_array_equal(products.get(), numpy.cumprod(small, axis=0, dtype=numpy.int64))


def test_array_operations(queue, rng):
    a = rng.standard_normal((4, 6)).astype(numpy.float32)
    b = rng.standard_normal((4, 6)).astype(numpy.float32)
    a_dev, b_dev = kjarni.Array.from_host(queue, a), kjarni.Array.from_host(queue, b)
    for ours, theirs in ((kjarni.hstack, numpy.hstack), (kjarni.vstack, numpy.vstack), (kjarni.dstack, numpy.dstack)):
        numpy.testing.assert_array_equal(ours(queue, [a_dev, b_dev]).get(), theirs([a, b]))
    out = kjarni.Array.empty(queue.device, (8, 6), numpy.float32)
    assert kjarni.concatenate(queue, [a_dev, b_dev], out=out) is out
    numpy.testing.assert_array_equal(out.get(queue), numpy.concatenate([a, b]))
    for ours, theirs, arg in ((kjarni.split, numpy.split, [1, 3]), (kjarni.array_split, numpy.array_split, 4),
                              (kjarni.hsplit, numpy.hsplit, 3), (kjarni.vsplit, numpy.vsplit, [-1])):
        parts = ours(a_dev, arg)
        expected = theirs(a, arg)
        assert len(parts) == len(expected)
        for p, e in zip(parts, expected):
            numpy.testing.assert_array_equal(p.get(queue), e)
    cube = kjarni.Array.from_host(queue, rng.standard_normal((2, 3, 4)).astype(numpy.float32))
    assert [p.shape for p in kjarni.dsplit(cube, 2)] == [(2, 3, 2), (2, 3, 2)]
    scalar = kjarni.Array.from_host(queue, numpy.float32(3))
    assert kjarni.atleast_1d(scalar).shape == (1,)
    assert kjarni.atleast_2d(a_dev[0]).shape == (1, 6)
    assert kjarni.atleast_3d(a_dev).shape == (4, 6, 1)

    view = kjarni.reshape(queue, a_dev, (6, 4))
    assert kjarni.may_share_memory(view, a_dev)
    numpy.testing.assert_array_equal(view.get(), a.reshape(6, 4))
    transposed = a_dev.T  # no view flattens it in C order: a copy, or an error when refused
    with pytest.raises(kjarni.ArgumentError):
        kjarni.reshape(queue, transposed, -1, copy=False)
    flat = kjarni.reshape(queue, transposed, -1)
    assert not kjarni.may_share_memory(flat, a_dev)
    numpy.testing.assert_array_equal(flat.get(), a.T.reshape(-1))
    fortran = kjarni.asfortranarray(queue, a_dev)
    assert fortran.is_f_contiguous
    numpy.testing.assert_array_equal(fortran.get(), a)
    c = kjarni.ascontiguousarray(queue, a_dev.T, dtype=numpy.float64)
    assert c.is_c_contiguous and c.dtype == numpy.float64
    numpy.testing.assert_array_equal(c.get(), a.T.astype(numpy.float64))
    assert kjarni.asarray(queue, a_dev) is a_dev and kjarni.ascontiguousarray(queue, a_dev) is a_dev
    numpy.testing.assert_array_equal(kjarni.asarray(queue, a, dtype=numpy.float64).get(), a.astype(numpy.float64))

    idx = rng.integers(-10, 10, 7).astype(numpy.int64)
    idx_dev = kjarni.Array.from_host(queue, idx)
    for mode in ("wrap", "clip"):
        numpy.testing.assert_array_equal(kjarni.take(queue, a_dev, idx_dev, axis=1, mode=mode).get(),
                                         numpy.take(a, idx, axis=1, mode=mode))
    with pytest.raises(kjarni.ArgumentError) as info:
        kjarni.take(queue, a_dev, idx_dev, axis=1, mode="bogus")
    assert info.value.argument == "mode"

    moved = kjarni.transfer(a_dev, kjarni.Queue(queue.device))
    numpy.testing.assert_array_equal(moved.get(), a)
