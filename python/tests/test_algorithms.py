"""Operators on Arrays, reductions, BLAS and array operations, against numpy on fresh random data."""

import gc
import warnings

import itertools

import numpy
import pytest

import kjarni

EPS32 = numpy.finfo(numpy.float32).eps


def test_expression_operators(queue, rng):
    x = rng.standard_normal((64, 3)).astype(numpy.float32)
    b = rng.standard_normal((64, 3)).astype(numpy.float32)
    x_dev, b_dev = kjarni.Array.from_host(queue, x), kjarni.Array.from_host(queue, b)
    expr = 2 * x_dev + b_dev
    assert isinstance(expr, kjarni.Expr) and expr.dtype == numpy.float32 and expr.shape == x.shape
    y = kjarni.evaluate(queue, expr).get(queue)
    # 2x is exact, the sum rounds once (contracted or not): at most 1 ulp of the result apart.
    numpy.testing.assert_allclose(y, 2 * x + b, rtol=EPS32, atol=EPS32 * numpy.abs(b).max())
    out = kjarni.Array.empty(queue.device, x.shape, numpy.float32)
    kjarni.assign(queue, out, kjarni.where(x_dev > 0, kjarni.sqrt(kjarni.absolute(x_dev)), -x_dev))
    expected = numpy.where(x > 0, numpy.sqrt(numpy.abs(x)), -x)
    numpy.testing.assert_allclose(out.get(queue), expected, rtol=EPS32)  # sqrt is correctly rounded on both


def test_promotion_follows_numpy(queue, rng):
    a = kjarni.Array.from_host(queue, rng.integers(0, 100, 10).astype(numpy.int32))
    f = kjarni.Array.from_host(queue, rng.standard_normal(10).astype(numpy.float16))
    assert (a / a).dtype == numpy.result_type(numpy.int32, numpy.int32) or (a / a).dtype == numpy.float64
    assert (f * 2.0).dtype == numpy.float16  # a Python float is weak (NEP 50)


def test_reductions(queue, rng):
    host = rng.standard_normal((37, 19)).astype(numpy.float32)
    a = kjarni.Array.from_host(queue, host)
    exact = host.astype(numpy.float64)
    # A sum of n float32 values in any order is within n * eps * sum|x| of the exact sum.
    for axis in (None, 0, 1):
        got = kjarni.sum(queue, a, axis=axis).get(queue)
        bound = host.shape[0] * host.shape[1] * EPS32 * numpy.abs(exact).sum(axis=axis)
        assert numpy.all(numpy.abs(got - exact.sum(axis=axis)) <= bound)
    numpy.testing.assert_array_equal(kjarni.max(queue, a, axis=1).get(queue), host.max(axis=1))
    numpy.testing.assert_array_equal(kjarni.argmin(queue, a, axis=0).get(queue), host.argmin(axis=0))
    mean64 = kjarni.mean(queue, a, axis=0, dtype=numpy.float64).get(queue)
    numpy.testing.assert_allclose(mean64, exact.mean(axis=0), rtol=1e-12)  # float64 sums of float32 values
    # Results from a pool: the block is the pool's while the result lives.
    pool = kjarni.MemoryPool()
    pooled = kjarni.max(queue, a, axis=1, allocator=pool)
    assert pool.active_blocks == 1
    numpy.testing.assert_array_equal(pooled.get(queue), host.max(axis=1))
    pooled_sum = kjarni.sum(queue, a, axis=0, allocator=pool).get(queue)
    assert numpy.all(numpy.abs(pooled_sum - exact.sum(axis=0)) <= host.shape[0] * EPS32 * numpy.abs(exact).sum(axis=0))


def test_nan_reductions_through_numpy_functions(queue, rng):
    """numpy.nansum, nanprod, nanmean, nanmin, nanmax, nanargmin, nanargmax, nanvar and nanstd on
    kjarni arrays run on the device (__array_function__) and agree with numpy on the host: NaNs
    skipped, float32 sums within n eps sum|x|, float64 products and moments within their rounding,
    min, max and their positions exact; dtype=, ddof= and keepdims= as numpy takes them."""
    host = rng.standard_normal((23, 9)).astype(numpy.float32)
    host[rng.random(host.shape) < 0.2] = numpy.nan
    host[3, :] = numpy.nan  # a row of NaNs only: nansum 0, nanprod 1, nanmin and nanmean NaN
    a = kjarni.Array.from_host(queue, host)
    exact = host.astype(numpy.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy's all-NaN slices and ddof >= count
        for axis in (None, 0, 1):
            n = host.size if axis is None else host.shape[axis]
            for name in ("nansum", "nanmean"):
                got = getattr(numpy, name)(a, axis=axis)
                assert isinstance(got, kjarni.Array)
                got, want = got.get(queue), getattr(numpy, name)(exact, axis=axis)
                bound = n * EPS32 * numpy.nansum(numpy.abs(exact), axis=axis) / (n if name == "nanmean" else 1)
                assert numpy.all((numpy.abs(got - want) <= bound) | (numpy.isnan(want) & numpy.isnan(got))), name
            prod = numpy.nanprod(a, axis=axis, dtype=numpy.float64).get(queue)
            numpy.testing.assert_allclose(prod, numpy.nanprod(exact, axis=axis), rtol=n * 2.3e-16)
            for name in ("nanmin", "nanmax"):
                got = getattr(numpy, name)(a, axis=axis, keepdims=True).get(queue)
                numpy.testing.assert_array_equal(got, getattr(numpy, name)(host, axis=axis, keepdims=True))
            for name in ("nanargmin", "nanargmax"):
                if axis == 1:  # row 3 is all NaN: numpy's ValueError, kjarni's ArgumentError
                    with pytest.raises(ValueError):
                        getattr(numpy, name)(host, axis=axis)
                    with pytest.raises(kjarni.errors.ArgumentError):
                        getattr(numpy, name)(a, axis=axis).get(queue)
                    continue
                got = getattr(numpy, name)(a, axis=axis).get(queue)
                numpy.testing.assert_array_equal(got, getattr(numpy, name)(host, axis=axis))
            for name in ("nanvar", "nanstd"):
                for ddof in (0, 1):
                    got = getattr(numpy, name)(a, axis=axis, ddof=ddof, dtype=numpy.float64).get(queue)
                    numpy.testing.assert_allclose(got, getattr(numpy, name)(exact, axis=axis, ddof=ddof), rtol=1e-12)
    with pytest.raises(kjarni.errors.ArgumentError):
        numpy.nanvar(a, dtype=numpy.int32)


def test_var_and_std_take_numpys_dtype_out_and_keepdims(queue, rng):
    """x.var() / x.std() and numpy.var / numpy.std on kjarni arrays take numpy's dtype= (a float or
    complex type to compute in: float32 data in float64 is float64's answer), out= of any dtype
    (numpy's steps: the sum of squares cast into out, divided there) and keepdims=, for float,
    integer, bool and complex arrays (a real dtype of complex data: numpy's deviations from the real
    parts' mean; an integer or bool dtype: numpy's truncating steps, exactly), 0-d ones and axis=()
    among them. One-pass moments against numpy's two passes: within a few ulp of the result's dtype
    (float16: its own rounding)."""
    def values(dtype, shape):
        if dtype == numpy.bool_:
            return rng.random(shape) < 0.5
        if numpy.dtype(dtype).kind in "iu":
            return rng.integers(-100 if numpy.dtype(dtype).kind == "i" else 0, 100, shape).astype(dtype)
        x = rng.standard_normal(shape) * 3 + 1
        if numpy.dtype(dtype).kind == "c":
            x = x + 1j * (rng.standard_normal(shape) - 2)
        return x.astype(dtype)

    cases = [(numpy.float32, None), (numpy.float32, numpy.float64), (numpy.float64, numpy.float32),
             (numpy.float16, None), (numpy.float16, numpy.float32), (numpy.int16, None), (numpy.int32, numpy.float32),
             (numpy.bool_, None), (numpy.complex64, None), (numpy.complex64, numpy.complex128),
             (numpy.float32, numpy.complex64), (numpy.complex64, numpy.float64), (numpy.complex128, numpy.float32),
             # integer and bool dtypes: numpy truncates the mean, the squares and the result (exact here)
             (numpy.float32, numpy.int32), (numpy.int8, numpy.int8), (numpy.int16, numpy.uint64),
             (numpy.bool_, numpy.int8), (numpy.int32, numpy.bool_), (numpy.float64, numpy.bool_)]
    for (dtype, compute), shape, axis in itertools.product(cases, [(7, 12), ()], [None, 0, (), (0, 1)]):
        if shape == () and axis not in (None, ()):
            continue
        if compute is not None and () in (axis, shape) and numpy.dtype(compute).itemsize < numpy.dtype(dtype).itemsize:
            continue  # numpy's rounding noise (x - float32(x))^2: docs/numpy-differences.md
        host = values(dtype, shape)
        a = kjarni.Array.from_host(queue, numpy.asarray(host))
        for name, ddof in itertools.product(("var", "std"), (0, 1)):
            keepdims = ddof == 1
            context = f"{name} of {numpy.dtype(dtype).name}{list(shape)} axis={axis} dtype={compute} ddof={ddof}"
            calls = (lambda: getattr(a, name)(axis=axis, dtype=compute, ddof=ddof, keepdims=keepdims),
                     lambda: getattr(numpy, name)(a, axis=axis, dtype=compute, ddof=ddof, keepdims=keepdims))
            try:
                want = getattr(numpy, name)(host, axis=axis, dtype=compute, ddof=ddof, keepdims=keepdims)
            except TypeError:  # std of an array result in an integer dtype: numpy's sqrt cannot write it
                for call in calls:
                    with pytest.raises(kjarni.errors.ArgumentError, match="dtype"):
                        call()
                continue
            for call in calls:
                got = call()
                assert isinstance(got, kjarni.Array)
                got = got.get(queue)
                assert got.dtype == want.dtype and got.shape == numpy.shape(want), context
                if want.dtype.kind in "biu":
                    numpy.testing.assert_array_equal(got, want, err_msg=context)
                    continue
                # Relative to the data's scale: numpy's deviations from a mean rounded to `dtype` leave
                # that rounding in (var of float64 data with dtype=float32 over axis=() is
                # (x - float32(x))^2, kjarni's 0). std compared squared.
                eps = numpy.finfo(want.dtype).eps * (8 if want.dtype == numpy.float16 else 64)
                scale = float(numpy.max(numpy.abs(host)).astype(numpy.float64)) ** 2
                square = (lambda v: numpy.abs(v.astype(numpy.complex128)) ** 2) if name == "std" else (lambda v: v)
                numpy.testing.assert_allclose(square(got), square(want), rtol=eps, atol=eps * scale, err_msg=context)
    # out= of another dtype: numpy's steps, the division into out.
    host = values(numpy.float64, (5, 40))
    a = kjarni.Array.from_host(queue, host)
    out = kjarni.Array.empty(queue.device, (5,), numpy.float32)
    numpy.var(a, axis=1, out=out)
    numpy.testing.assert_allclose(out.get(queue), numpy.var(host, axis=1).astype(numpy.float32), rtol=1e-6)
    # Integer dtypes into out= of another dtype (numpy: the truncated sum of squares cast into out,
    # divided there), and what numpy refuses: booleans subtracted, an integer dtype of nanvar.
    for out_dtype in (numpy.float32, numpy.int16):
        out = kjarni.Array.empty(queue.device, (5,), out_dtype)
        numpy.var(a, axis=1, dtype=numpy.int32, out=out)
        numpy.testing.assert_array_equal(out.get(queue),
                                         numpy.var(host, axis=1, dtype=numpy.int32, out=numpy.empty(5, out_dtype)))
    with pytest.raises(kjarni.errors.ArgumentError, match="dtype"):
        kjarni.Array.from_host(queue, values(numpy.bool_, (3, 4))).var(dtype=numpy.bool_)
    with pytest.raises(kjarni.errors.ArgumentError, match="dtype"):
        numpy.nanvar(a, dtype=numpy.int32)


def test_default_memory_pool(queue, rng):
    """Results made on a queue without an allocator come from the context's default pool (CuPy's
    default memory pool): a dropped result's block serves the next result of its size; turned
    off, results come from the driver and the pool frees what it held."""
    host = rng.standard_normal((37, 5)).astype(numpy.float32)
    x = kjarni.Array.from_host(queue, host)
    gc.collect()
    gc.disable()  # nothing of other tests' may go back to the pool while it is counted
    try:
        pool = kjarni.default_memory_pool(queue)
        assert isinstance(pool, kjarni.MemoryPool)
        assert kjarni.default_memory_pool(queue.device).managed_bytes == pool.managed_bytes  # the context's
        active = pool.active_blocks
        y = kjarni.evaluate(queue, 2 * x + 1)
        s = x.sum(axis=0)
        assert pool.active_blocks == active + 2
        # 2x is exact: one rounding (fused or not) on both sides.
        numpy.testing.assert_array_equal(y.get(queue), 2 * host + 1)
        exact = host.astype(numpy.float64).sum(axis=0)
        assert numpy.all(numpy.abs(s.get(queue) - exact) <= host.shape[0] * EPS32 * numpy.abs(host).sum(axis=0))
        managed, held = pool.managed_bytes, pool.held_blocks
        del y
        assert pool.held_blocks == held + 1
        z = kjarni.evaluate(queue, x - 1)  # the same size: y's block, nothing allocated
        assert (pool.managed_bytes, pool.held_blocks, pool.active_blocks) == (managed, held, active + 2)
        numpy.testing.assert_array_equal(z.get(queue), host - 1)
        kjarni.sum(queue, x, axis=0, out=s)  # into out: nothing allocated
        own = kjarni.MemoryPool()
        kjarni.sum(queue, x, axis=1, allocator=own)  # from the allocator given
        assert pool.active_blocks == active + 2 and own.held_blocks == 1

        assert kjarni.set_default_memory_pool(False) is True
        try:
            assert kjarni.default_memory_pool(queue) is None
            assert pool.held_blocks == 0  # freed when turned off
            w = kjarni.evaluate(queue, x * 3)  # from the driver
            assert pool.active_blocks == active + 2
            numpy.testing.assert_array_equal(w.get(queue), host * 3)
            del z
            assert pool.held_blocks == 0 and pool.active_blocks == active + 1  # freed, not held
        finally:
            assert kjarni.set_default_memory_pool(True) is False
        fresh = kjarni.default_memory_pool(queue)  # a new pool of the context
        assert (fresh.active_blocks, fresh.managed_bytes) == (0, 0)
        v = kjarni.evaluate(queue, x + 2)
        assert fresh.active_blocks == 1
        numpy.testing.assert_array_equal(v.get(queue), host + 2)
    finally:
        gc.enable()


def test_gemm_and_dot(queue, rng):
    a = rng.standard_normal((33, 20)).astype(numpy.float32)
    b = rng.standard_normal((20, 17)).astype(numpy.float32)
    a_dev, b_dev = kjarni.Array.from_host(queue, a), kjarni.Array.from_host(queue, b)
    c = kjarni.blas.gemm(queue, 1.0, a_dev, b_dev).get(queue)
    # Each entry is a sum of k products: |error| <= k * eps * sum_k |a||b|.
    bound = a.shape[1] * EPS32 * (numpy.abs(a) @ numpy.abs(b))
    assert numpy.all(numpy.abs(c - a.astype(numpy.float64) @ b) <= bound)
    ct = kjarni.blas.gemm(queue, 2.0, b_dev, a_dev, op_a="T", op_b="T").get(queue)
    assert numpy.all(numpy.abs(ct - 2 * (a.astype(numpy.float64) @ b).T) <= 2 * bound.T)


def test_array_operations(queue, rng):
    a = rng.standard_normal((4, 3)).astype(numpy.float32)
    b = rng.standard_normal((2, 3)).astype(numpy.float32)
    a_dev, b_dev = kjarni.Array.from_host(queue, a), kjarni.Array.from_host(queue, b)
    numpy.testing.assert_array_equal(kjarni.concatenate(queue, [a_dev, b_dev]).get(queue), numpy.concatenate([a, b]))
    idx = rng.integers(0, 4, 6).astype(numpy.int64)
    taken = kjarni.take(queue, a_dev, kjarni.Array.from_host(queue, idx), axis=0)
    numpy.testing.assert_array_equal(taken.get(queue), a[idx])
    parts = kjarni.split(a_dev, 2)
    assert [p.shape for p in parts] == [(2, 3), (2, 3)]
    assert kjarni.may_share_memory(parts[0], a_dev)


def test_numpy_scalars_are_strong_python_scalars_weak(queue, rng):
    host = rng.standard_normal(16).astype(numpy.float32)
    a = kjarni.Array.from_host(queue, host)
    for operand in (numpy.float64(2.5), 2.5, numpy.int64(3), 3):
        expr = a * operand
        assert expr.dtype == (host * operand).dtype, operand  # numpy 2's promotion (NEP 50)
        got = kjarni.evaluate(queue, expr).get(queue)
        # One product, rounded to the result type: identical to numpy's.
        numpy.testing.assert_array_equal(got, host * operand)


def test_elementwise_kernel(queue, rng):
    x = rng.standard_normal(100).astype(numpy.float32)
    b = rng.standard_normal(100).astype(numpy.float32)
    x_dev, b_dev = kjarni.Array.from_host(queue, x), kjarni.Array.from_host(queue, b)
    y_dev = kjarni.Array.empty(queue.device, x.shape, numpy.float32)
    axpb = kjarni.ElementwiseKernel("float *y, const float *x, float a, const float *b", "y[i] = a * x[i] + b[i]")
    axpb(queue, y_dev, x_dev, numpy.float32(0.5), b_dev)
    # 0.5 x is exact: one rounding in the sum, contracted or not.
    numpy.testing.assert_array_equal(y_dev.get(queue), numpy.float32(0.5) * x + b)
    with pytest.raises(kjarni.ArgumentError):
        axpb(queue, y_dev, x_dev, 0.5, b_dev)
