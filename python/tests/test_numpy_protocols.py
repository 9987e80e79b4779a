"""numpy's protocols on kjarni arrays: ufuncs and numpy functions run on the device (or are refused
with a message), comparisons are elementwise, host conversions follow numpy 2's copy rules, the
methods numpy users expect exist, and a wrong call gets kjarni's message, not the binding's."""

import warnings

import numpy
import pytest

import kjarni


@pytest.fixture
def xy(queue, rng):
    x = rng.standard_normal((6, 5)).astype(numpy.float32)
    y = rng.standard_normal((6, 5)).astype(numpy.float32)
    return x, y, kjarni.Array.from_host(queue, x), kjarni.Array.from_host(queue, y)


def test_numpy_scalar_times_array_runs_on_the_device(queue, xy):
    x, _, dx, _ = xy
    e = numpy.float32(2) * dx
    assert isinstance(e, kjarni.Expr)  # not a host ndarray: numpy handed the operation to kjarni
    assert e.dtype == numpy.float32
    numpy.testing.assert_array_equal(e.get(queue), numpy.float32(2) * x)  # one rounding: exact
    numpy.testing.assert_array_equal((dx * numpy.float32(2)).get(queue), x * numpy.float32(2))


def test_ufuncs_build_expressions(queue, xy):
    x, y, dx, dy = xy
    ax, ay = numpy.abs(x) + 1, numpy.abs(y) + 1
    dax, day = kjarni.evaluate(queue, abs(dx) + 1), kjarni.evaluate(queue, abs(dy) + 1)
    # Transcendentals: the device's float32 functions differ from numpy's by a few ulp.
    for ufunc in (numpy.sqrt, numpy.exp, numpy.log, numpy.sin, numpy.cos, numpy.tanh):
        numpy.testing.assert_allclose(ufunc(dax).get(queue), ufunc(ax), rtol=4e-6, err_msg=ufunc.__name__)
    for ufunc in (numpy.add, numpy.subtract, numpy.multiply, numpy.minimum, numpy.maximum, numpy.less,
                  numpy.greater_equal, numpy.equal, numpy.not_equal):
        numpy.testing.assert_array_equal(ufunc(dx, dy).get(queue), ufunc(x, y), err_msg=ufunc.__name__)
    numpy.testing.assert_allclose(numpy.divide(dx, day).get(queue), x / ay, rtol=1e-6)
    numpy.testing.assert_array_equal(numpy.negative(dx).get(queue), -x)


def test_ufunc_out_and_reduce(queue, xy):
    x, y, dx, dy = xy
    out = kjarni.Array.empty(queue.device, x.shape, numpy.float32)
    assert numpy.add(dx, dy, out=out) is out
    numpy.testing.assert_array_equal(out.get(queue), x + y)
    # float32 sums: kjarni accumulates in float64 (numpy pairwise in float32): a few ulp of the sum.
    numpy.testing.assert_allclose(numpy.add.reduce(dx, axis=0).get(queue), x.sum(axis=0, dtype=numpy.float64),
                                  rtol=0, atol=2e-7 * 6 * numpy.abs(x).max())
    numpy.testing.assert_array_equal(numpy.maximum.reduce(dx, axis=1).get(queue), x.max(axis=1))


def test_every_expression_ufunc_as_numpys(queue, rng):
    """numpy's ufuncs that kjarni's expressions have (floor ... arctanh, arctan2, hypot, fmin, the
    logical and bitwise ones) run on kjarni arrays as Exprs and agree with numpy on random data:
    exactly for integer and bool results, within a few ulp for the device's transcendentals (the
    same NaN places; domains left on purpose: arcsin of 2 is NaN on both)."""
    import kjarni._numpy as dispatch
    floats = {numpy.float32: (rng.standard_normal((5, 7)) * 3).astype(numpy.float32),
              numpy.float64: rng.standard_normal((5, 7)) * 3}
    ints = {numpy.int32: rng.integers(-50, 50, (5, 7)).astype(numpy.int32),
            numpy.uint8: rng.integers(0, 250, (5, 7)).astype(numpy.uint8)}
    bools = rng.random((5, 7)) < 0.5
    integer_only = {"invert", "left_shift", "right_shift", "bitwise_and", "bitwise_or", "bitwise_xor",
                    "bitwise_count"}
    for name in list(dispatch._EXPRESSION_UNARY) + list(dispatch._EXPRESSION_BINARY):
        if name == "ldexp":
            continue  # (an integer exponent beside any operand: test_float_ufuncs_at_their_edges_as_numpys)
        ufunc = getattr(numpy, name)
        binary = name in dispatch._EXPRESSION_BINARY
        operands = [bools] + list(ints.values()) if name in integer_only else list(floats.values()) + list(ints.values())
        if name in ("gcd", "lcm"):
            operands = list(ints.values())
        for host in operands:
            other = numpy.abs(host[::-1]) % 7 + 1 if host.dtype.kind in "iu" else host[::-1]
            if name in ("left_shift", "right_shift"):
                other = (numpy.abs(host[::-1]) % 5).astype(host.dtype)
            if host.dtype == bool and name in ("left_shift", "right_shift", "invert"):
                continue
            args = (host, other) if binary else (host,)
            with numpy.errstate(all="ignore"):
                want = ufunc(*args)
            got = ufunc(*[kjarni.Array.from_host(queue, numpy.ascontiguousarray(a)) for a in args])
            assert isinstance(got, kjarni.Expr), name
            got = got.get(queue)
            context = f"numpy.{name} of {host.dtype}"
            assert got.dtype == want.dtype, context
            if want.dtype.kind in "biu":
                numpy.testing.assert_array_equal(got, want, err_msg=context)
            else:
                numpy.testing.assert_allclose(got, want, rtol=16 * numpy.finfo(want.dtype).eps,
                                              atol=16 * numpy.finfo(want.dtype).tiny, equal_nan=True, err_msg=context)


def test_float_ufuncs_at_their_edges_as_numpys(queue, rng):
    """spacing, nextafter, signbit, heaviside, deg2rad, rad2deg, modf, divmod, frexp and ldexp are exact
    in numpy (one correctly rounded product at most): kjarni's bits equal numpy's at zeros of both signs,
    infinities, NaN, powers of two, the largest and the subnormal numbers, in float16 (numpy's own
    rules there: nextafter(+0, -0) is +0, spacing never negative) as in float32 and float64; gcd,
    lcm and bitwise_count of integers at their extremes (|INT_MIN| wraps as numpy's)."""
    for dtype in (numpy.float16, numpy.float32, numpy.float64):
        info = numpy.finfo(dtype)
        edges = numpy.array([0.0, -0.0, numpy.inf, -numpy.inf, numpy.nan, 1.0, -1.0, 2.0, -0.5, float(info.max),
                             -float(info.max), float(info.smallest_subnormal), -float(info.smallest_subnormal),
                             float(info.tiny), -float(info.tiny), 3.0, -7.25], dtype=dtype)
        x = numpy.concatenate([edges, (rng.standard_normal(15) * 100).astype(dtype)])
        y = numpy.concatenate([edges[::-1], x[:15][::-1]])
        n = numpy.concatenate([numpy.array([0, 1, -1, 30, -30, 2000, -2000, 2**40, -2**40, 5, -24, 24, -149, 127, 1, 0,
                                            -1], numpy.int64), rng.integers(-60, 60, 15)])
        dx, dy, dn = (kjarni.Array.from_host(queue, v) for v in (x, y, n))
        with numpy.errstate(all="ignore"):
            for name, args, dargs in (("spacing", (x,), (dx,)), ("signbit", (x,), (dx,)), ("deg2rad", (x,), (dx,)),
                                      ("rad2deg", (x,), (dx,)), ("nextafter", (x, y), (dx, dy)),
                                      ("heaviside", (x, y), (dx, dy)), ("modf", (x,), (dx,)),
                                      ("divmod", (x, y), (dx, dy)), ("frexp", (x,), (dx,)),
                                      ("ldexp", (x, n), (dx, dn))):
                want = getattr(numpy, name)(*args)
                got = getattr(numpy, name)(*dargs)
                for w, g in zip(want, got) if isinstance(want, tuple) else ((want, got),):
                    g = g.get(queue)
                    assert g.dtype == w.dtype, (name, dtype)
                    # (the bits: -0.0 is not 0.0; any NaN is NaN, its sign and payload the platform's)
                    same = g.view(f"u{g.itemsize}") == w.view(f"u{w.itemsize}")
                    if w.dtype.kind == "f":
                        same |= numpy.isnan(g) & numpy.isnan(w)
                    assert same.all(), (f"numpy.{name} of {numpy.dtype(dtype).name}", x[~same], g[~same], w[~same])
    for dtype in (numpy.int8, numpy.int32, numpy.int64, numpy.uint16, numpy.uint64):
        info = numpy.iinfo(dtype)
        a = numpy.concatenate([numpy.array([info.min, info.max, 0, 0, 1, 12], dtype=dtype),
                               rng.integers(info.min, info.max, 30, dtype=dtype, endpoint=True)])
        b = numpy.concatenate([numpy.array([0, 3, 0, 5, info.min, 18], dtype=dtype),
                               rng.integers(0 if info.min == 0 else -100, 100, 30).astype(dtype)])
        da, db = (kjarni.Array.from_host(queue, v) for v in (a, b))
        for name in ("gcd", "lcm", "bitwise_count"):
            args = (a, b) if name != "bitwise_count" else (a,)
            dargs = (da, db) if name != "bitwise_count" else (da,)
            want, got = getattr(numpy, name)(*args), getattr(numpy, name)(*dargs).get(queue)
            assert got.dtype == want.dtype, (name, dtype)
            numpy.testing.assert_array_equal(got, want, err_msg=f"numpy.{name} of {numpy.dtype(dtype).name}")
    # out= takes one array per output; numpy refuses gcd of bool and modf of complex, kjarni too.
    x = (rng.standard_normal(9) * 10).astype(numpy.float32)
    dx = kjarni.Array.from_host(queue, x)
    fraction, whole = kjarni.Array.empty(dx.device, (9,), numpy.float32), kjarni.Array.empty(dx.device, (9,),
                                                                                               numpy.float32)
    assert numpy.modf(dx, out=(fraction, whole))[0] is fraction
    numpy.testing.assert_array_equal(fraction.get(queue), numpy.modf(x)[0])
    numpy.testing.assert_array_equal(whole.get(queue), numpy.modf(x)[1])
    # Two outputs broadcast with the inputs together: each must have that shape (numpy's ValueError).
    with pytest.raises(ValueError, match="non-broadcastable output"):
        numpy.modf(dx[:1], out=(kjarni.Array.empty(dx.device, (1,), numpy.float32),
                                kjarni.Array.empty(dx.device, (3,), numpy.float32)))
    with pytest.raises(TypeError):
        numpy.gcd(kjarni.Array.from_host(queue, x > 0), kjarni.Array.from_host(queue, x < 0))
    with pytest.raises(TypeError):
        numpy.modf(kjarni.Array.from_host(queue, x.astype(numpy.complex64)))


def test_vecdot_matvec_vecmat_ufuncs_as_numpys(queue, rng):
    """numpy 2.4's gufuncs vecdot (conj(x1) . x2), matvec (no conjugate) and vecmat (conj(x1) . x2's
    columns) on kjarni arrays, broadcast stacks of 2 x 3, against numpy: dtype and shape exact,
    values within the sums' rounding (4 terms: 8 eps of the magnitudes)."""
    def draw(shape, dtype):
        v = rng.standard_normal(shape) * 3
        if numpy.dtype(dtype).kind == "c":
            v = v + 1j * rng.standard_normal(shape)
        return v.astype(dtype)
    for dtype in (numpy.float32, numpy.float64, numpy.complex64, numpy.int32, numpy.bool_):
        a, v, w = draw((2, 3, 4), dtype), draw((4,), dtype), draw((2, 3), dtype)
        da, dv, dw = (kjarni.Array.from_host(queue, x) for x in (a, v, w))
        for name, args, dargs in (("vecdot", (a, v), (da, dv)), ("matvec", (a, v), (da, dv)),
                                  ("vecmat", (w, a), (dw, da))):
            want = getattr(numpy, name)(*args)
            got = getattr(numpy, name)(*dargs).get(queue)
            assert (got.dtype, got.shape) == (want.dtype, want.shape), (name, dtype)
            scale = 8 * numpy.finfo(numpy.float32 if dtype == numpy.complex64 else dtype).eps if dtype not in (
                numpy.int32, numpy.bool_) else 0
            magnitude = getattr(numpy, name)(*(numpy.abs(x).astype(numpy.float64) for x in args))
            assert (numpy.abs(got.astype(numpy.complex128) - want) <= scale * magnitude).all(), (name, dtype)


def test_unsupported_ufunc_is_refused_with_a_message(xy):
    _, _, dx, _ = xy
    with pytest.raises(TypeError, match="isnat has no device counterpart"):
        numpy.isnat(dx)
    # (numpy 2.4.6 keeps a reference to the inputs of a reduce or accumulate whose __array_ufunc__
    # raises, numpy issue 31677: nanobind then reports dx and its queue as leaked at exit.)
    with pytest.raises(kjarni.ArgumentTypeError, match="accumulate"):
        numpy.add.accumulate(dx)


def test_equality_is_elementwise(queue, xy):
    x, _, dx, _ = xy
    other = x.copy()
    other[::2] = 0
    dother = kjarni.Array.from_host(queue, other)
    numpy.testing.assert_array_equal((dx == dother).get(queue), x == other)
    numpy.testing.assert_array_equal((dx != dother).get(queue), x != other)
    picked = kjarni.evaluate(queue, kjarni.where(dx == dother, dx, numpy.float32(-7)))
    numpy.testing.assert_array_equal(picked.get(queue), numpy.where(x == other, x, numpy.float32(-7)))
    with pytest.raises(TypeError):
        hash(dx)


def test_numpy_functions_dispatch_or_refuse(queue, xy):
    x, y, dx, dy = xy
    # A float32 result: its rounding is relative to the terms (|x| summed), not to a sum that may cancel.
    bound = 2e-7 * numpy.abs(x).sum()
    numpy.testing.assert_allclose(numpy.sum(dx).get(queue), x.sum(dtype=numpy.float64), rtol=0, atol=bound)
    numpy.testing.assert_array_equal(numpy.max(dx, axis=0).get(queue), x.max(axis=0))
    numpy.testing.assert_array_equal(numpy.argmin(dx).get(queue), x.argmin())
    numpy.testing.assert_array_equal(numpy.concatenate([dx, dy], axis=1).get(queue), numpy.concatenate([x, y], 1))
    numpy.testing.assert_array_equal(numpy.transpose(dx).get(queue), x.T)
    numpy.testing.assert_array_equal(numpy.reshape(dx, (5, 6)).get(queue), x.reshape(5, 6))
    numpy.testing.assert_array_equal(numpy.where(dx > 0, dx, dy).get(queue), numpy.where(x > 0, x, y))
    assert numpy.shape(dx) == x.shape and numpy.ndim(dx) == 2 and numpy.size(dx) == x.size
    with pytest.raises(TypeError, match="numpy.fft.fft has no device counterpart"):
        numpy.fft.fft(dx)
    with pytest.raises(TypeError, match="numpy.linalg.inv has no device counterpart"):
        numpy.linalg.inv(dx)


def test_methods_users_expect(queue, xy):
    x, _, dx, _ = xy
    bound = 2e-7 * numpy.abs(x).sum()  # the float32 result's rounding, relative to its terms
    numpy.testing.assert_allclose(dx.sum().get(queue), x.sum(dtype=numpy.float64), rtol=0, atol=bound)
    numpy.testing.assert_array_equal(dx.max(axis=1).get(queue), x.max(axis=1))
    numpy.testing.assert_array_equal(dx.min(axis=0, keepdims=True).get(queue), x.min(axis=0, keepdims=True))
    numpy.testing.assert_allclose(dx.mean(axis=1).get(queue), x.mean(axis=1, dtype=numpy.float64), rtol=0,
                                  atol=2e-7 * numpy.abs(x).max())
    numpy.testing.assert_array_equal(dx.get(), x)
    numpy.testing.assert_array_equal(dx.astype(numpy.int32).get(), x.astype(numpy.int32))
    numpy.testing.assert_array_equal(dx.astype(queue, numpy.float64).get(), x.astype(numpy.float64))
    c = dx.copy()
    assert c.base is not dx.base
    numpy.testing.assert_array_equal(c.get(), x)
    numpy.testing.assert_array_equal(dx.T.get(), x.T)  # views keep the queue: no queue argument needed
    numpy.testing.assert_array_equal(dx.reshape(3, 10).get(), x.reshape(3, 10))
    # 5 terms: float32 roundings differ in order (kjarni accumulates sums of float32 in float64).
    numpy.testing.assert_allclose(dx[1:, ::2].sum(axis=0).get(), x[1:, ::2].sum(axis=0, dtype=numpy.float64),
                                  rtol=0, atol=2e-7 * 5 * numpy.abs(x).max())
    dx.fill(numpy.float32(1.5))
    numpy.testing.assert_array_equal(dx.get(), numpy.full(x.shape, 1.5, numpy.float32))


def test_zeros(queue):
    z = kjarni.Array.zeros(queue, (3, 4), numpy.int16)
    assert z.dtype == numpy.int16 and z.shape == (3, 4)
    numpy.testing.assert_array_equal(z.get(), numpy.zeros((3, 4), numpy.int16))
    assert kjarni.Array.zeros(queue, 5, numpy.float32, order="F").shape == (5,)


def test_host_conversions_follow_numpy_2(queue, xy):
    x, _, dx, _ = xy
    numpy.testing.assert_array_equal(numpy.asarray(dx), x)
    assert numpy.asarray(dx, dtype=numpy.float64).dtype == numpy.float64
    with pytest.raises(ValueError, match="copy"):
        numpy.asarray(dx, copy=False)
    numpy.testing.assert_array_equal(numpy.array(dx, copy=True), x)


def test_a_host_array_in_an_expression_is_refused_with_a_message(queue, xy):
    x, _, dx, _ = xy
    with pytest.raises(kjarni.ArgumentError, match="upload it first"):
        dx + x
    with pytest.raises(kjarni.ArgumentError, match="upload it first"):
        x + dx  # numpy's ndarray.__add__ hands the operation to kjarni, which refuses it the same way
    # A 0-d host array is a scalar of its dtype.
    numpy.testing.assert_array_equal((dx + numpy.array(2, numpy.float32)).get(queue), x + numpy.float32(2))


WRONG_CALLS = [
    (lambda q, a: kjarni.Array.from_buffer("not a buffer", numpy.float32, [3]), "Array.from_buffer"),
    (lambda q, a: kjarni.Queue("device"), "Queue"),
    (lambda q, a: kjarni.Context.from_devices(3.5), "Context.from_devices"),
    (lambda q, a: kjarni.concatenate(q, [a, 7]), "concatenate"),
    (lambda q, a: kjarni.may_share_memory(a, "x"), "may_share_memory"),
]


@pytest.mark.parametrize("index", range(len(WRONG_CALLS)))
def test_wrong_calls_get_kjarnis_message(queue, xy, index):
    call, name = WRONG_CALLS[index]
    with pytest.raises(kjarni.ArgumentTypeError) as info:
        call(queue, xy[2])
    message = str(info.value)
    assert isinstance(info.value, TypeError) and name in message
    assert "incompatible function arguments" not in message and "kjarni._kjarni" not in message


TYPED_KERNEL = """
KERNEL void twice(GLOBAL_MEM float *dest, GLOBAL_MEM const ${ctype} *src, int n, GLOBAL_MEM void *untyped)
{
    const SIZE_T i = get_global_id(0);
    if (i < n) dest[i] = 2 * src[i];
}
"""


def test_an_array_of_another_dtype_is_refused_for_a_typed_pointer(queue, rng):
    program = kjarni.Program(queue.device, TYPED_KERNEL, render_globals=dict(ctype=kjarni.dtypes.ctype(numpy.int32)))
    host = rng.integers(-1000, 1000, 8, dtype=numpy.int32)
    src = kjarni.Array.from_host(queue, host)
    dest = kjarni.Array.empty(queue.device, 8, numpy.float32)
    wrong = kjarni.Array.empty(queue.device, 8, numpy.float64)
    n = numpy.int32(8)
    program.kernel.twice(queue, 8, None, dest, src, n, wrong)  # `void *` is not checked
    numpy.testing.assert_array_equal(dest.get(queue), 2 * host.astype(numpy.float32))
    prepared = program.kernel.twice.prepare(8)
    for launch in (lambda *a: program.kernel.twice(queue, 8, None, *a), lambda *a: prepared(queue, *a),
                   lambda *a: prepared.launch(queue, *a), lambda *a: prepared.bind(queue, *a)):
        with pytest.raises(kjarni.ArgumentError, match=r"float64 for the parameter `GLOBAL_MEM float \*dest`") as info:
            launch(wrong, src, n, wrong)
        assert info.value.argument == "argument 0"
        with pytest.raises(kjarni.ArgumentError, match="float32 for the parameter .*int32") as info:
            launch(dest, dest, n, wrong)
        assert info.value.argument == "argument 1"
    static = kjarni.StaticKernel(queue.device, """
        KERNEL void negate(GLOBAL_MEM ${ctype} *a) { a[${static.global_id}(0)] = -a[${static.global_id}(0)]; }
        """, "negate", 8, render_globals=dict(ctype=kjarni.dtypes.ctype(numpy.int32)))
    static(queue, src)
    numpy.testing.assert_array_equal(src.get(queue), -host)
    with pytest.raises(kjarni.ArgumentError, match="float32 for the parameter"):
        static(queue, dest)


def test_more_methods_users_expect(queue, xy, rng):
    """Scalars and lists, shapes, matmul, statistics, rounding, cumsum and clip, against numpy."""
    x, y, dx, dy = xy
    total = dx.sum()
    # float32 summation in another order than numpy's: within 30 terms' rounding of the magnitudes.
    assert abs(float(total) - float(x.astype(numpy.float64).sum())) <= 30 * 2**-23 * float(abs(x).sum())
    assert isinstance(float(total), float) and int(dx[2, 3]) == int(x[2, 3]) and complex(dx[0, 0]) == complex(x[0, 0])
    assert bool(dx[1, 1]) == bool(x[1, 1]) and dx.item(7) == x.item(7) and dx.tolist() == x.tolist()
    with pytest.raises(ValueError):
        bool(dx)  # more than one element: ambiguous, as numpy says
    # Shapes: views where numpy makes them, copies where it must.
    numpy.testing.assert_array_equal(dx.ravel().get(), x.ravel())
    numpy.testing.assert_array_equal(dx.T.ravel().get(), x.T.ravel())  # not contiguous: a copy
    numpy.testing.assert_array_equal(dx.flatten().get(), x.flatten())
    numpy.testing.assert_array_equal(dx.reshape(6, 1, 5).squeeze().get(), x)
    numpy.testing.assert_array_equal(dx.reshape(1, 6, 5).squeeze(axis=0).get(), x)
    with pytest.raises(kjarni.ArgumentError):
        dx.squeeze(axis=1)
    numpy.testing.assert_array_equal(numpy.swapaxes(dx, 0, 1).get(), x.T)
    # matmul: float32 products of 5 terms (the BLAS may fuse or reorder them): a few ulp of the magnitudes.
    expected = x.astype(numpy.float64) @ y.T.astype(numpy.float64)
    bound = 8 * 2**-23 * (abs(x).astype(numpy.float64) @ abs(y).T.astype(numpy.float64))
    for got in (dx @ dy.T, numpy.matmul(dx, dy.T), numpy.dot(dx, dy.T)):
        assert isinstance(got, kjarni.Array) and got.shape == (6, 6)
        assert (abs(got.get() - expected) <= bound).all()
    # Statistics (numpy's ddof), rounding half to even, cumsum, clip.
    numpy.testing.assert_allclose(dx.std(axis=0).get(), x.astype(numpy.float64).std(axis=0), rtol=1e-5)
    numpy.testing.assert_allclose(numpy.var(dx, ddof=1).get(), x.astype(numpy.float64).var(ddof=1), rtol=1e-5)
    halves = numpy.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49999997], numpy.float32)
    numpy.testing.assert_array_equal(kjarni.Array.from_host(queue, halves).round().get(), numpy.round(halves))
    # With decimals: numpy's rint(x * 10**d) / 10**d in the array's type, each step rounded alike.
    numpy.testing.assert_array_equal(dx.round(2).get(), x.round(2))
    # cumsum in float32: each partial sum within its terms' rounding.
    partial = numpy.cumsum(x.astype(numpy.float64), axis=1)
    assert (abs(dx.cumsum(axis=1).get() - partial) <= 5 * 2**-23 * numpy.cumsum(abs(x), axis=1)).all()
    numpy.testing.assert_array_equal(kjarni.evaluate(queue, dx.clip(-0.5, 0.5)).get(), x.clip(-0.5, 0.5))
    # +0.0 against -0.0: the operand numpy picks (its clip loop keeps x for two scalar bounds,
    # maximum alone returns the bound).
    zeros = numpy.array([0.0, -0.0, 0.0, -0.0], numpy.float32)
    dz = kjarni.Array.from_host(queue, zeros)
    for low, high in ((-0.0, 0.0), (0.0, -0.0), (-0.0, None), (None, 0.0)):
        got = kjarni.evaluate(queue, dz.clip(low, high)).get()
        numpy.testing.assert_array_equal(numpy.signbit(got), numpy.signbit(zeros.clip(low, high)))
    # set without a queue: the array's own (CuPy's and PyOpenCL's form).
    dx.set(y)
    numpy.testing.assert_array_equal(dx.get(), y)


def test_numpy_scalars_keep_their_dtype_every_time(queue, xy):
    """numpy scalars are strong operands of their own dtype (numpy 2's rules), the first time a type
    is met and afterwards (kjarni remembers each numpy scalar type's dtype); 0-d arrays, whose dtype
    varies, are looked at each time."""
    x, _, dx, _ = xy
    # Powers of two: the products are exact, so each result rounds once (the sum), fused or not.
    cases = [numpy.float64(2), numpy.float16(0.5), numpy.int8(4), numpy.uint16(8), numpy.bool_(True),
             numpy.complex64(2 + 2j), numpy.array(2.0), numpy.array(4, numpy.int16)]
    for _ in range(2):
        for scalar in cases:
            e = scalar * dx + scalar
            expected = scalar * x + scalar
            assert e.dtype == expected.dtype, (type(scalar), e.dtype, expected.dtype)
            numpy.testing.assert_array_equal(e.get(queue), expected)


def test_numpy_scalar_values_are_read_exactly(queue):
    """A numpy scalar's value reaches the device exactly, for every numeric type and at the ends of
    its range: the first scalar of a type is read through item(), later ones from where the type
    keeps its value (python/src/algorithms.cpp), so each type is met three times."""
    i8, u8, i16, u16, i32, u32, i64, u64 = (numpy.iinfo(t) for t in (
        numpy.int8, numpy.uint8, numpy.int16, numpy.uint16, numpy.int32, numpy.uint32, numpy.int64, numpy.uint64))
    f32, f64 = numpy.finfo(numpy.float32), numpy.finfo(numpy.float64)
    cases = [  # (scalar type, values, dtype of the zeros added: the result's dtype)
        (numpy.int8, [i8.min, i8.max, -1], numpy.int8), (numpy.uint8, [u8.max, 0, 7], numpy.uint8),
        (numpy.int16, [i16.min, i16.max, -3], numpy.int16), (numpy.uint16, [u16.max, 1, 9], numpy.uint16),
        (numpy.int32, [i32.min, i32.max, -5], numpy.int32), (numpy.uint32, [u32.max, 2, 11], numpy.uint32),
        (numpy.int64, [i64.min, i64.max, -7], numpy.int64), (numpy.uint64, [2**63 - 1, 3, 13], numpy.uint64),
        (numpy.float32, [f32.max, -f32.smallest_subnormal, 1.1], numpy.float32),
        (numpy.float64, [-f64.max, f64.smallest_subnormal, 1 / 3], numpy.float64),
        (numpy.complex64, [1.5 - 2.25j, -f32.max + 1j, 0.1j], numpy.complex64),
        (numpy.complex128, [1 / 3 + 1e300j, -f64.tiny - 2j, 7.0], numpy.complex128),
        (numpy.float16, [0.1, -65504.0, 6e-8], numpy.float32),  # half: always through item()
        (numpy.bool_, [True, False, True], numpy.int8),
    ]
    for scalar_type, values, zeros_dtype in cases:
        zeros = kjarni.Array.zeros(queue, (3,), zeros_dtype)
        host = numpy.zeros(3, zeros_dtype)
        for value in values:
            s = scalar_type(value)
            got = kjarni.evaluate(queue, zeros + s).get(queue)
            expected = host + s
            assert got.dtype == expected.dtype, (scalar_type, got.dtype, expected.dtype)
            numpy.testing.assert_array_equal(got, expected, err_msg=f"{scalar_type.__name__}({value!r})")


def _same_signs(got, want):
    """Whether the sign bits of got and want agree wherever want is not NaN (a NaN's sign is the
    platform's: x86's sqrt of -1 is -nan, CUDA's +nan; numpy promises none)."""
    return bool(((numpy.signbit(got) == numpy.signbit(want)) | numpy.isnan(want)).all())


def test_power_operator_of_minus_one_and_two_as_numpy(queue):
    """numpy's ``x ** -1`` and ``x ** 2`` operators with a Python int exponent take reciprocal and
    square for float and complex arrays (np.power for -1.0, 2.0 and numpy's integers): complex64
    ``x ** -1`` of -1.49e-35+1.35e37j is -0-7.4e-38j there (the real part's sign kept as it
    underflows), np.power's +0-7.4e-38j (the Python fuzzer's seed 21, program 583)."""
    rng = numpy.random.default_rng(7)
    for dtype in (numpy.float32, numpy.float64, numpy.complex64, numpy.complex128):
        tiny_and_huge = numpy.array([-1.4906725e-35 + 1.3496602e37j, 1.3966314e-28 + 4.9017455e-25j,
                                     -2.5956337e15 + 3.5056964e-19j, 0.5 - 2.0j])
        if numpy.dtype(dtype).kind == "f":
            tiny_and_huge = tiny_and_huge.real
        host = numpy.concatenate([tiny_and_huge, rng.normal(0, 10, 12) + (1j * rng.normal(0, 10, 12)
                                                                           if numpy.dtype(dtype).kind == "c" else 0)])
        host = host.astype(dtype)
        array = kjarni.Array.from_host(queue, host)
        with numpy.errstate(all="ignore"):
            for exponent in (-1, 2, -1.0, 2.0, numpy.int64(-1), numpy.int64(2)):
                want = host ** exponent
                got = kjarni.evaluate(queue, array ** exponent).get(queue)
                assert got.dtype == want.dtype, (dtype, exponent)
                numpy.testing.assert_allclose(got, want, rtol=4 * numpy.finfo(want.dtype).eps, atol=0,
                                              err_msg=f"{dtype.__name__} ** {exponent!r}")
                for part in (numpy.real, numpy.imag):
                    assert _same_signs(part(got), part(want)), (dtype, exponent, got, want)
            in_place = kjarni.Array.from_host(queue, host.copy())
            in_place **= -1
            assert _same_signs(in_place.get(queue).real, (host ** -1).real), dtype


def test_power_operator_of_one_half_and_fill_of_big_ints_as_numpy(queue):
    """numpy's ``x ** 0.5`` operator takes sqrt for float and complex arrays (-0.0 stays -0.0 in
    float16, -inf gives NaN, complex -4 gives exactly 2j), where np.power does so in its float32 and
    float64 loops only; ``fill`` converts a Python int past 64 bits into a float array as numpy's."""
    rng = numpy.random.default_rng(5)
    for dtype in (numpy.float16, numpy.float32, numpy.float64, numpy.complex64, numpy.complex128):
        host = numpy.concatenate([numpy.array([-0.0, -numpy.inf, -4.0, 4.0, numpy.nan]),
                                  rng.normal(0, 10, 11)]).astype(dtype)
        array = kjarni.Array.from_host(queue, host)
        with numpy.errstate(all="ignore"):
            for exponent in (0.5, numpy.float32(0.5), numpy.float64(0.5)):
                want = host ** exponent
                got = kjarni.evaluate(queue, array ** exponent).get(queue)
                assert got.dtype == want.dtype, (dtype, exponent)
                numpy.testing.assert_allclose(got, want, rtol=4 * numpy.finfo(want.dtype).eps, atol=0,
                                              err_msg=f"{dtype.__name__} ** {exponent!r}")
                assert _same_signs(got.real, want.real), (dtype, exponent, got, want)
            in_place = kjarni.Array.from_host(queue, host.copy())
            in_place **= 0.5
            numpy.testing.assert_allclose(in_place.get(queue), host ** 0.5, rtol=4 * numpy.finfo(host.dtype).eps)
    for dtype in (numpy.float32, numpy.float64, numpy.complex128):
        for value in (-2**63 - 1, 2**64, 3 * 2**70):
            array = kjarni.Array.zeros(queue, (3,), dtype)
            array.fill(value)
            want = numpy.zeros(3, dtype)
            want.fill(value)
            numpy.testing.assert_array_equal(array.get(queue), want)
    ints = kjarni.Array.zeros(queue, (3,), numpy.int64)
    with pytest.raises(OverflowError):
        ints.fill(2**64)


def test_python_ints_past_64_bits_beside_float_arrays_as_numpy(queue):
    """A Python int past 64 bits is the float numpy makes of it beside a float or complex array
    (operators, divmod, ufuncs; float32 ones + 2**64 is 1.8446744e19), and numpy's OverflowError
    beside an integer array or past float64's range."""
    for dtype in (numpy.float16, numpy.float32, numpy.float64, numpy.complex64):
        host = numpy.array([1.5, -2.0, 3.25], dtype)
        array = kjarni.Array.from_host(queue, host)
        with numpy.errstate(all="ignore"):
            cases = [(lambda x: x + 2**64, "x + 2**64"), (lambda x: 2**70 * x, "2**70 * x"),
                     (lambda x: x - (-2**65), "x - (-2**65)"), (lambda x: numpy.add(x, 3 * 2**64), "np.add"),
                     (lambda x: x < 2**64, "x < 2**64")]
            if dtype != numpy.complex64:
                cases.append((lambda x: divmod(x, 2**64)[1], "divmod(x, 2**64)[1]"))
            for f, text in cases:
                want = f(host)
                got = f(array)
                got = kjarni.evaluate(queue, got).get(queue) if isinstance(got, kjarni.Expr) else got.get(queue)
                assert got.dtype == want.dtype, (dtype, text)
                numpy.testing.assert_array_equal(got, want, err_msg=f"{numpy.dtype(dtype).name}: {text}")
        with pytest.raises(OverflowError):
            array + 10**400
    ints = kjarni.Array.from_host(queue, numpy.arange(3, dtype=numpy.int64))
    with pytest.raises(OverflowError):
        ints + 2**64


def test_numpy_functions_kjarni_composes(queue, rng):
    """numpy functions users reach for, composed from kjarni's own views, expressions and
    reductions (kjarni/_numpy_shapes.py and its neighbours), against numpy on fresh random data: shapes, dtypes
    and values (exact where the arithmetic is; sums within their rounding)."""
    x = rng.standard_normal((4, 6)).astype(numpy.float32)
    x[0, 0], x[1, 2], x[2, 3] = numpy.nan, numpy.inf, -numpy.inf
    y = x + rng.standard_normal((4, 6)).astype(numpy.float32) * 1e-6
    i = rng.integers(-20, 20, (4, 6)).astype(numpy.int16)
    dx, dy, di = (kjarni.Array.from_host(queue, a) for a in (x, y, i))
    for d in (dx, dy, di):
        d.queue = queue

    def same(got, want, **kw):
        got = got.get(queue) if isinstance(got, (kjarni.Array, kjarni.Expr)) else got
        assert numpy.asarray(got).dtype == numpy.asarray(want).dtype and numpy.shape(got) == numpy.shape(want)
        if kw:
            numpy.testing.assert_allclose(got, want, **kw)
        else:
            numpy.testing.assert_array_equal(got, want)

    for like in (numpy.zeros_like, numpy.ones_like):
        same(like(dx), like(x))
        same(like(di, dtype=numpy.float64, shape=(3, 2)), like(i, dtype=numpy.float64, shape=(3, 2)))
    same(numpy.full_like(di, 7.9), numpy.full_like(i, 7.9))  # converted into int16: 7
    assert numpy.empty_like(dx, dtype=numpy.uint8).dtype == numpy.uint8
    same(numpy.expand_dims(dx, (0, -1)), numpy.expand_dims(x, (0, -1)))
    same(numpy.moveaxis(dx.reshape(2, 3, 4), 0, -1), numpy.moveaxis(x.reshape(2, 3, 4), 0, -1))
    same(numpy.matrix_transpose(di), numpy.matrix_transpose(i))
    same(numpy.atleast_3d(dx[0]), numpy.atleast_3d(x[0]))
    for got, want in zip(numpy.array_split(di, 4, axis=1), numpy.array_split(i, 4, axis=1)):
        same(got, want)
    for got, want in zip(numpy.hsplit(dx, [1, 4]), numpy.hsplit(x, [1, 4])):
        same(got, want)
    # isclose / allclose / array_equal: numpy's rule, infinities and NaN included.
    for equal_nan in (False, True):
        same(numpy.isclose(dx, dy, equal_nan=equal_nan), numpy.isclose(x, y, equal_nan=equal_nan))
        same(numpy.isclose(di, di + 1, atol=1), numpy.isclose(i, i + 1, atol=1))
        assert numpy.allclose(dx, dy, equal_nan=equal_nan) == numpy.allclose(x, y, equal_nan=equal_nan)
        assert numpy.array_equal(dx, dx, equal_nan=equal_nan) == numpy.array_equal(x, x, equal_nan=equal_nan)
    assert numpy.array_equal(di, di) and not numpy.array_equal(di, dx[:, :5]) and not numpy.array_equal(di, di + 1)
    same(numpy.nan_to_num(dx), numpy.nan_to_num(x))
    same(numpy.nan_to_num(dx, nan=-1.5, posinf=9.0), numpy.nan_to_num(x, nan=-1.5, posinf=9.0))
    same(numpy.outer(dx[1], di[2]), numpy.outer(x[1], i[2]))
    same(numpy.ptp(di, axis=0), numpy.ptp(i, axis=0))
    same(numpy.ptp(dx, axis=1, keepdims=True), numpy.ptp(x, axis=1, keepdims=True))
    finite = numpy.nan_to_num(x)
    dfinite = kjarni.Array.from_host(queue, finite)
    dfinite.queue = queue
    same(numpy.average(di, axis=1), numpy.average(i, axis=1), rtol=1e-12)
    w = rng.random((4, 6)).astype(numpy.float32)
    dw = kjarni.Array.from_host(queue, w)
    same(numpy.average(dfinite, axis=0, weights=dw), numpy.average(finite, axis=0, weights=w), rtol=1e-4, atol=1e-30)
    avg, scale = numpy.average(di, axis=0, returned=True)
    same(scale, numpy.average(i, axis=0, returned=True)[1])
    for axis in (None, 1, (0, 1)):
        want = numpy.linalg.norm(finite, axis=axis)
        same(numpy.linalg.norm(dfinite, axis=axis), want, rtol=1e-5)
    same(numpy.linalg.norm(di), numpy.linalg.norm(i), rtol=1e-12)
    same(numpy.cumulative_sum(di, axis=1), numpy.cumulative_sum(i, axis=1))
    same(numpy.cumulative_sum(di, axis=1, include_initial=True), numpy.cumulative_sum(i, axis=1, include_initial=True))
    out = _device(queue, numpy.zeros_like(numpy.cumulative_sum(i, axis=1, include_initial=True)))
    assert numpy.cumulative_sum(di, axis=1, include_initial=True, out=out) is out
    same(out, numpy.cumulative_sum(i, axis=1, include_initial=True))
    # ord=1 of a matrix: the largest column sum of magnitudes (float32 sums: n roundings).
    numpy.testing.assert_allclose(numpy.linalg.norm(dx, ord=1).get(), numpy.linalg.norm(x, ord=1), rtol=1e-5)


def test_numpy_sorting_and_searching_on_kjarni_arrays(queue, rng):
    """numpy.sort / argsort / unique / searchsorted / nonzero / flatnonzero / count_nonzero / flip /
    diff on kjarni arrays (kjarni's radix sort, unique and searches) against numpy: values exactly;
    argsort as numpy's kind="stable" (kjarni's is stable)."""
    f = rng.standard_normal((5, 9)).astype(numpy.float32)
    f[1, 1], f[3, 4], f[2, 6], f[4, 0] = numpy.nan, -0.0, numpy.inf, -numpy.inf
    i = rng.integers(-4, 5, (5, 9)).astype(numpy.int32)  # ties
    b = i > 0
    arrays = {}
    for name, host in (("f", f), ("i", i), ("b", b)):
        arrays[name] = kjarni.Array.from_host(queue, host)
        arrays[name].queue = queue
    df, di, db = arrays["f"], arrays["i"], arrays["b"]

    def same(got, want):
        got = got.get(queue) if isinstance(got, (kjarni.Array, kjarni.Expr)) else got
        assert numpy.asarray(got).dtype == numpy.asarray(want).dtype, (numpy.asarray(got).dtype, want.dtype)
        numpy.testing.assert_array_equal(got, want)

    for axis in (-1, 0, None):
        same(numpy.sort(df, axis=axis), numpy.sort(f, axis=axis))
        same(numpy.sort(di, axis=axis), numpy.sort(i, axis=axis))
        same(numpy.argsort(di, axis=axis), numpy.argsort(i, axis=axis, kind="stable"))
    same(numpy.unique(di), numpy.unique(i))
    for got, want in zip(numpy.unique(di, return_index=True, return_inverse=True, return_counts=True),
                         numpy.unique(i, return_index=True, return_inverse=True, return_counts=True)):
        same(got, want)
    same(numpy.unique(df), numpy.unique(f))  # one NaN, as numpy's equal_nan=True
    row = numpy.sort(i[0])
    drow = kjarni.Array.from_host(queue, row)
    drow.queue = queue
    for side in ("left", "right"):
        same(numpy.searchsorted(drow, di[1], side=side), numpy.searchsorted(row, i[1], side=side))
    same(numpy.searchsorted(drow, 2), numpy.searchsorted(row, 2))
    for got, want in zip(numpy.nonzero(di), numpy.nonzero(i)):
        same(got, want)
    same(numpy.flatnonzero(db), numpy.flatnonzero(b))
    assert numpy.count_nonzero(di) == numpy.count_nonzero(i)
    same(numpy.count_nonzero(di, axis=0), numpy.count_nonzero(i, axis=0))
    same(numpy.flip(di), numpy.flip(i))
    same(numpy.flip(df, axis=1), numpy.flip(f, axis=1))
    same(numpy.diff(di, n=2), numpy.diff(i, n=2))
    same(numpy.diff(db, axis=0), numpy.diff(b, axis=0))
    same(numpy.diff(di, prepend=0), numpy.diff(i, prepend=0))
    # take with host indices, roll, the flips and quarter turns (views), argwhere, inner, fabs, around.
    same(numpy.take(di, [3, 0, 3], axis=1), numpy.take(i, [3, 0, 3], axis=1))
    same(numpy.take(df, 5), numpy.take(f, 5))
    for shift, axis in ((2, None), (-3, 1), (7, 0), (0, 1)):
        same(numpy.roll(di, shift, axis=axis), numpy.roll(i, shift, axis=axis))
    same(numpy.fliplr(di), numpy.fliplr(i))
    same(numpy.flipud(di), numpy.flipud(i))
    for k in range(-1, 4):
        same(numpy.rot90(di, k), numpy.rot90(i, k))
    same(numpy.argwhere(di), numpy.argwhere(i))
    same(numpy.inner(di[0], di[1]), numpy.inner(i[0], i[1]))
    for d, host in ((df, f), (di, i), (db, b)):
        same(numpy.fabs(d), numpy.fabs(host))
    same(numpy.around(df), numpy.around(f))
    # Views of other strides and the copies made of them.
    same(numpy.broadcast_to(di[2], (3, 5, 9)), numpy.broadcast_to(i[2], (3, 5, 9)))
    same(numpy.broadcast_to(di[:, :1], (5, 4)), numpy.broadcast_to(i[:, :1], (5, 4)))
    for offset in (0, 2, -3, 9):
        same(numpy.diagonal(di, offset), numpy.diagonal(i, offset))
        same(numpy.trace(di, offset), numpy.trace(i, offset))
    same(numpy.diagonal(di.T[::-1]), numpy.diagonal(i.T[::-1]))
    same(numpy.diag(di, 1), numpy.diag(i, 1))
    same(numpy.diag(di[0], -2), numpy.diag(i[0], -2))
    for axis in (None, 0, 1):
        same(numpy.repeat(di, 3, axis=axis), numpy.repeat(i, 3, axis=axis))
    for reps in (2, (2, 1), (1, 3, 2)):
        same(numpy.tile(di, reps), numpy.tile(i, reps))
    for indexing in ("xy", "ij"):
        for got, want in zip(numpy.meshgrid(di[0], df[1, :4], indexing=indexing),
                             numpy.meshgrid(i[0], f[1, :4], indexing=indexing)):
            same(got, want)
    tests = kjarni.Array.from_host(queue, numpy.array([3, -1, 7, 3, 0], numpy.int32))
    tests.queue = queue
    same(numpy.isin(di, tests), numpy.isin(i, [3, -1, 7, 3, 0]))
    same(numpy.isin(df, df[1:3], invert=True), numpy.isin(f, f[1:3], invert=True))  # NaN is in nothing
    same(numpy.isin(di, df[0]), numpy.isin(i, f[0]))  # compared in float64
    same(numpy.isin(di, di[:0], invert=True), numpy.isin(i, i[:0], invert=True))
    for k in (0, 2, -1):
        same(numpy.triu(di, k), numpy.triu(i, k))
        same(numpy.tril(db, k), numpy.tril(b, k))
    # real / imag (views of the parts), angle.
    z = (f + 1j * f[::-1]).astype(numpy.complex64)
    dz = kjarni.Array.from_host(queue, z)
    dz.queue = queue
    for d, host in ((dz, z), (df, f), (di, i)):
        same(numpy.real(d), numpy.real(host))
        same(numpy.imag(d), numpy.imag(host))
        numpy.testing.assert_allclose(numpy.angle(d).get(queue), numpy.angle(host), rtol=4e-7 if host.dtype != numpy.int32
                                      else 1e-15, equal_nan=True)
    same(dz.T.real, z.T.real)
    same(dz[:, ::2].imag, z[:, ::2].imag)
    # percentile / quantile, numpy's linear method for a Python number: the ends, between elements,
    # gamma on both sides of 0.5; NaN and infinities in the float slices.
    for d, host in ((df, f), (di, i)):
        for q in (0, 1, 0.0, 0.3, 0.5, 0.77, 1.0):
            for axis in (None, 0, 1):
                same(numpy.quantile(d, q, axis=axis), numpy.quantile(host, q, axis=axis))
        for p in (10, 37.5, 50, 99.9):
            same(numpy.percentile(d, p, axis=1, keepdims=True), numpy.percentile(host, p, axis=1, keepdims=True))
    with pytest.raises(kjarni.ArgumentTypeError, match="method"):
        numpy.quantile(df, 0.5, method="nearest")
    # nanmedian: the median of what is not NaN; a slice of NaN only gives NaN.
    g = f.copy()
    g[0, :] = numpy.nan
    g[2, ::3] = numpy.nan
    dg = kjarni.Array.from_host(queue, g)
    dg.queue = queue
    for axis in (None, 0, 1):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            same(numpy.nanmedian(dg, axis=axis), numpy.nanmedian(g, axis=axis))
    same(numpy.nanmedian(di, axis=1), numpy.nanmedian(i, axis=1))
    # median: the middle of the sorted slice, NaN where it holds one; odd and even extents.
    for d, host in ((df, f), (di, i)):
        for axis in (None, 0, 1):
            same(numpy.median(d, axis=axis), numpy.median(host, axis=axis))
        same(numpy.median(d[:, :8], axis=1, keepdims=True), numpy.median(host[:, :8], axis=1, keepdims=True))


def test_expressions_remember_the_queue_of_their_arrays(queue, xy):
    """An Expr made by operators, ufuncs or numpy's functions from arrays that have a queue keeps it
    (``e.queue``): its reductions (``(x > 0).any()``, ``(x * y).sum(axis=0)``, ``numpy.sum(2 * x)``)
    and ``e.get()`` run there, as CuPy's do on its current stream; each equals numpy's on the host."""
    x, y, dx, dy = xy
    dx.queue = dy.queue = queue
    for e in (dx + 1, 2 * dx, -dx, abs(dx), dx > 0, dx == dy, dx // 2, ~(dx > 0), dx ** 2, numpy.sqrt(dx),
              numpy.hypot(dx, dy), numpy.where(dx > 0, dx, dy), (dx + 1) * dy):
        assert isinstance(e, kjarni.Expr) and e.queue is queue
    numpy.testing.assert_array_equal((dx > 0).any().get(queue), (x > 0).any())
    numpy.testing.assert_array_equal(numpy.all(dx > -10).get(queue), numpy.all(x > -10))
    numpy.testing.assert_array_equal((dx * dy).max(axis=1).get(queue), (x * y).max(axis=1))
    exact = (x.astype(numpy.float64) * y).sum(axis=0)
    bound = 6 * 2**-23 * (numpy.abs(x.astype(numpy.float64) * y)).sum(axis=0)  # float32 products, then sums
    assert numpy.all(numpy.abs((dx * dy).sum(axis=0).get(queue) - exact) <= bound)
    numpy.testing.assert_array_equal((dx + 1).get(), x + 1)
    with pytest.raises(kjarni.ArgumentError, match="queue"):
        (kjarni.Array.empty(queue.device, x.shape, x.dtype) + 1).get()  # an array without a queue


def test_numpy_functions_on_edge_shapes_agree_or_both_raise(queue, rng):
    """The composed numpy functions on 0-d, empty, 1-d and 2-d arrays of float32 and int16: kjarni
    gives numpy's dtype, shape and values wherever numpy gives a result, and raises where numpy
    raises (what either raises is not compared)."""
    calls = {
        "flip": lambda m, a: m.flip(a), "roll": lambda m, a: m.roll(a, 1), "sort": lambda m, a: m.sort(a, axis=None),
        "argsort": lambda m, a: m.argsort(a, axis=None, kind="stable"), "unique": lambda m, a: m.unique(a),
        "median": lambda m, a: m.median(a), "quantile": lambda m, a: m.quantile(a, 0.3), "diff": lambda m, a: m.diff(a),
        "nanmedian": lambda m, a: m.nanmedian(a, axis=-1 if m.ndim(a) else None),
        "repeat": lambda m, a: m.repeat(a, 2), "tile": lambda m, a: m.tile(a, 2), "isin": lambda m, a: m.isin(a, a),
        "triu": lambda m, a: m.triu(a), "diag": lambda m, a: m.diag(a), "trace": lambda m, a: m.trace(a),
        "nonzero": lambda m, a: m.nonzero(a), "count_nonzero": lambda m, a: m.count_nonzero(a),
        "argwhere": lambda m, a: m.argwhere(a), "ptp": lambda m, a: m.ptp(a), "average": lambda m, a: m.average(a),
        "norm": lambda m, a: m.linalg.norm(a), "expand_dims": lambda m, a: m.expand_dims(a, 0),
        "atleast_2d": lambda m, a: m.atleast_2d(a), "rot90": lambda m, a: m.rot90(a),
        "broadcast_to": lambda m, a: m.broadcast_to(a, (2,) + m.shape(a)), "imag": lambda m, a: m.imag(a),
        "nan_to_num": lambda m, a: m.nan_to_num(a), "isclose": lambda m, a: m.isclose(a, a),
        "zeros_like": lambda m, a: m.zeros_like(a), "percentile": lambda m, a: m.percentile(a, 50),
    }

    def value(x):
        if isinstance(x, (kjarni.Array, kjarni.Expr)):
            return x.get(queue)
        return tuple(value(v) for v in x) if isinstance(x, (tuple, list)) else x

    for shape in [(), (0,), (3,), (3, 4)]:
        for dtype in (numpy.float32, numpy.int16):
            host = (rng.standard_normal(shape) * 3).astype(dtype)
            device = kjarni.Array.from_host(queue, host)
            device.queue = queue
            for name, call in calls.items():
                context = f"numpy.{name} of {numpy.dtype(dtype).name}{shape}"
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        want = call(numpy, host)
                    except Exception:  # noqa: BLE001 (numpy's error, whatever it is, wants kjarni's)
                        with pytest.raises(Exception):  # noqa: B017
                            value(call(numpy, device))
                        continue
                got = value(call(numpy, device))
                want, got = (want if isinstance(want, tuple) else (want,)), (got if isinstance(got, tuple) else (got,))
                assert len(want) == len(got), context
                for w, g in zip(want, got):
                    w, g = numpy.asarray(w), numpy.asarray(g)
                    assert (w.dtype, w.shape) == (g.dtype, g.shape), context
                    numpy.testing.assert_allclose(g, w, rtol=1e-5, equal_nan=True, err_msg=context)


def _device(queue, host):
    array = kjarni.Array.from_host(queue, numpy.asarray(host))
    array.queue = queue
    return array


def _host_of(value, queue):
    if isinstance(value, (kjarni.Array, kjarni.Expr)):
        return value.get(queue)
    return value


def test_composed_numpy_functions_as_numpy_where_the_python_fuzzer_found_them_apart(queue):
    """The differences the Python differential fuzzer (numpy_differential/functions.py) found in the
    composed numpy functions, each as numpy gives it: meshgrid's tuple, count_nonzero's numpy.intp,
    cumulative_sum and argsort of a 0-d array, sort's AxisError, diff with n=0, full_like's unsafe
    cast, average's weighted product in the result dtype and its ZeroDivisionError for no outputs,
    isclose against a Python number (numpy's Python arithmetic for the tolerance), searchsorted of
    host values in the common dtype."""
    grids = numpy.meshgrid(_device(queue, numpy.arange(3, dtype=numpy.int8)))
    assert type(grids) is tuple and len(grids) == 1
    count = numpy.count_nonzero(_device(queue, numpy.array([1, 0, 2], numpy.uint8)))
    assert type(count) is numpy.intp and count == 2
    scanned = numpy.cumulative_sum(_device(queue, numpy.array(False)))
    numpy.testing.assert_array_equal(scanned.get(queue), numpy.cumulative_sum(numpy.array(False)))
    assert scanned.shape == (1,)
    numpy.testing.assert_array_equal(numpy.argsort(_device(queue, numpy.array(5, numpy.int16))).get(queue), [0])
    with pytest.raises(ValueError):
        numpy.sort(_device(queue, numpy.ones((2, 4), numpy.float32)), axis=3)
    z = _device(queue, numpy.array(2 - 1j))
    assert numpy.diff(z, n=0, axis=0) is z  # numpy returns the array before it looks at the axis
    with pytest.raises(ValueError):
        numpy.diff(_device(queue, numpy.arange(3.0)), n=-1)
    filled = numpy.full_like(_device(queue, numpy.zeros(3, numpy.uint8)), 3.4e38)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = numpy.full_like(numpy.zeros(3, numpy.uint8), 3.4e38)
    numpy.testing.assert_array_equal(filled.get(queue), want)
    with pytest.raises(OverflowError):
        numpy.full_like(_device(queue, numpy.zeros(3, numpy.int8)), 300)
    a, w = numpy.array([-3, 0], numpy.int8), numpy.array([1.14, -0.858], numpy.float16)
    got = numpy.average(_device(queue, a), weights=_device(queue, w)).get(queue)
    assert got.dtype == numpy.float64
    numpy.testing.assert_allclose(got, numpy.average(a, weights=w), rtol=1e-14)  # -12.1352, not float16's -12.1317
    with pytest.raises(ValueError):
        numpy.average(_device(queue, numpy.zeros((0, 4), numpy.uint16)), axis=-1)  # numpy's ZeroDivisionError
    x = numpy.array([-1.25, 0.5, 0.0], numpy.float32)
    for b in (-1e300, 3, 0.5, float("inf"), float("nan"), True):
        for kw in ({}, {"equal_nan": True}):
            numpy.testing.assert_array_equal(_host_of(numpy.isclose(_device(queue, x), b, **kw), queue),
                                             numpy.isclose(x, b, **kw), err_msg=repr(b))
            assert numpy.allclose(_device(queue, x), b, **kw) == numpy.allclose(x, b, **kw), b
    s = numpy.array([0, 0, 3, 7], numpy.uint64)
    for v in (-4, 3, [1, -2], 2.5):
        got = numpy.searchsorted(_device(queue, s), v, side="right")
        numpy.testing.assert_array_equal(_host_of(got, queue), numpy.searchsorted(s, v, side="right"), err_msg=repr(v))


def test_float16_sorts_and_rounds_as_numpy(queue, rng):
    """kjarni.array_api has no float16: numpy's sort, argsort, unique, searchsorted, isin, median,
    quantile and around of float16 kjarni arrays go through float32 (exactly) and come back float16."""
    host = (rng.standard_normal((3, 5)) * 4).astype(numpy.float16)
    host[0, 1] = numpy.nan
    device = _device(queue, host)
    cases = {
        "sort": lambda m, a: m.sort(a, axis=1), "argsort": lambda m, a: m.argsort(a, axis=0, kind="stable"),
        "unique": lambda m, a: m.unique(a), "median": lambda m, a: m.median(a, axis=1),
        "quantile": lambda m, a: m.quantile(a, 0.3, axis=1), "around": lambda m, a: m.around(a),
        "isin": lambda m, a: m.isin(a, a[1]), "searchsorted": lambda m, a: m.searchsorted(m.sort(a[2]), a[1]),
    }
    for name, call in cases.items():
        want, got = call(numpy, host), _host_of(call(numpy, device), queue)
        assert got.dtype == want.dtype and got.shape == want.shape, name
        numpy.testing.assert_array_equal(got, want, err_msg=name)


def test_refused_options_are_argument_type_errors(queue):
    """What the composed functions leave out is an ArgumentTypeError naming it (docs/python.md):
    sorting and searching complex values (kjarni's radix sort has no order of them)."""
    z = _device(queue, numpy.array([1 + 2j, -1j]))
    for call in (lambda: numpy.sort(z),
                 lambda: numpy.argsort(z), lambda: numpy.searchsorted(z, z), lambda: numpy.unique(z)):
        with pytest.raises(kjarni.ArgumentTypeError):
            call()


def test_ptp_into_a_float_out_and_diagonals_of_empty_reversed_views_as_numpy(queue):
    """numpy.ptp with out= writes the maximum into out and subtracts the minimum there (int64 data
    into a float64 out: no wrapping); numpy.trace / diagonal of an empty reversed view with an offset
    is empty (its first element would lie before the buffer: from_buffer refused the view)."""
    a = numpy.array([[8865649909231398276, 7262033250942019159], [-8803354892072680407, -2910551541286685965],
                     [3999960534422371889, -860184165815389723]], numpy.int64)
    out = _device(queue, numpy.zeros((1, 2)))
    want = numpy.zeros((1, 2))
    numpy.ptp(a, axis=0, keepdims=True, out=want)
    assert numpy.ptp(_device(queue, a), axis=0, keepdims=True, out=out) is out
    numpy.testing.assert_allclose(out.get(queue), want, rtol=4e-16)
    numpy.testing.assert_array_equal(numpy.ptp(_device(queue, a), axis=0).get(queue), numpy.ptp(a, axis=0))  # wraps
    host = numpy.zeros((4, 7, 0), numpy.complex128)
    view = _device(queue, host)[::-1, ::-1, ::-1]
    for offset in (-3, 2, 0):
        got = numpy.trace(view, offset=offset)
        assert got.shape == (0,) and got.dtype == numpy.complex128
        assert numpy.diagonal(view, offset).shape == numpy.diagonal(host[::-1, ::-1, ::-1], offset).shape


def test_logical_ufuncs_read_a_python_floats_truth_as_numpy(queue):
    """numpy's logical_and / or / xor loops are bool's: a Python float takes part by its truth, so
    1e-300 is true beside a float16 array, where that number would underflow to 0 (the Python
    fuzzer's seeds 32 and 35 found kjarni reading it after the cast)."""
    a = numpy.array([-7.25, 0.9355, 0.0, -0.06732, numpy.nan, 1e-3, 0.5], numpy.float16)
    da = kjarni.Array.from_host(queue, a)
    for ufunc in (numpy.logical_and, numpy.logical_or, numpy.logical_xor):
        for scalar in (1e-300, 5e-324, 0.0, -0.0, float("nan"), 1e-50 + 0j, 0j):
            for args, dargs in (((scalar, a), (scalar, da)), ((a, scalar), (da, scalar))):
                numpy.testing.assert_array_equal(ufunc(*dargs).get(queue), ufunc(*args),
                                                 err_msg=f"{ufunc.__name__}{args[:1] if args[0] is scalar else ''}")


def test_average_with_host_and_one_dimensional_weights_as_numpy(queue, rng):
    """numpy.average's weights on kjarni arrays: a host list or array (uploaded), or 1-d weights along
    the one axis given, broadcast over the others (numpy's rule); its errors otherwise."""
    x = rng.standard_normal((3, 4, 5))
    d = _device(queue, x)
    for options in (dict(axis=1, weights=rng.random(4)), dict(axis=-1, weights=list(rng.random(5))),
                    dict(axis=0, weights=rng.random(3), returned=True),
                    dict(axis=1, weights=rng.random(4), keepdims=True),
                    dict(axis=2, weights=rng.random((3, 4, 5)))):
        want, got = numpy.average(x, **options), numpy.average(d, **options)
        for w, g in zip(*((want, got) if options.get("returned") else ((want,), (got,)))):
            g = _host_of(g, queue)
            assert g.shape == numpy.shape(w) and g.dtype == numpy.asarray(w).dtype
            # a weighted sum over n terms and its division: n + 1 roundings of the magnitudes' sum
            numpy.testing.assert_allclose(g, w, rtol=0, atol=8 * 2**-52 * float(numpy.abs(x).sum()))
    for options, error in ((dict(weights=rng.random(4)), TypeError), (dict(axis=1, weights=rng.random(5)), ValueError),
                           (dict(axis=1, weights=[1.0, -1.0, 0.0, 0.0]), ZeroDivisionError)):
        with pytest.raises(error):
            numpy.average(x, **options)
        with pytest.raises(error):
            numpy.average(d, **options)
