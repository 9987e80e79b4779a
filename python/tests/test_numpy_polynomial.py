"""numpy's small math, sequence, polynomial and bit-packing functions (kjarni/_numpy_polynomial.py),
numpy.linalg's array API functions, norms, multi_dot and matrix_power (kjarni/_numpy_linalg.py), and
the options lifted from round / around (decimals), diff (prepend, append), inner (N-d), nan_to_num
(complex) and outer (out=), on kjarni arrays against numpy 2.4 on the same random data: dtype and
shape exactly, values exactly where each side makes the same correctly rounded operations in the
same order (selections, bit operations, vander's products, linspace, round's steps, single
divisions), otherwise within a bound on the rounding errors of the arithmetic (said at each);
numpy's exception classes for bad input, and ArgumentTypeError for what kjarni refuses."""

import math
import warnings

import numpy
import pytest

import kjarni
from numpy_comparison import device, eps, random, same

ALL = [numpy.bool_, numpy.int8, numpy.uint8, numpy.int16, numpy.uint16, numpy.int32, numpy.uint32, numpy.int64,
       numpy.uint64, numpy.float16, numpy.float32, numpy.float64, numpy.complex64, numpy.complex128]
FLOATS = [numpy.float16, numpy.float32, numpy.float64]
INEXACT = FLOATS + [numpy.complex64, numpy.complex128]


def raises_as_numpy(call_numpy, call_kjarni):
    """call_kjarni raises what call_numpy raises, by class: a TypeError (kjarni's ArgumentTypeError),
    else an IndexError that is not numpy's AxisError, else a ValueError (kjarni's ArgumentError;
    numpy's AxisError and LinAlgError are ValueErrors too; a LinAlgError as one)."""
    with pytest.raises(Exception) as expected, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        call_numpy()
    kinds = (numpy.linalg.LinAlgError, TypeError, IndexError, ValueError)
    kind = next(k for k in kinds if isinstance(expected.value, k)
                and not (k is IndexError and isinstance(expected.value, numpy.exceptions.AxisError)))
    with pytest.raises(kind), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        call_kjarni()


# Views of a (6, 8) array: 0-d, empty, one element, transposed, reversed, strided.
VIEWS = [lambda v: v[2, 3], lambda v: v[:0], lambda v: v[1, 2:3], lambda v: v.T, lambda v: v[::-1],
         lambda v: v[1::2, ::-3]]


def with_specials(rng, shape, dtype):
    x = random(rng, shape, dtype)
    if numpy.dtype(dtype).kind in "fc" and x.size >= 6:
        flat = x.reshape(-1)
        flat[:6] = [numpy.inf, -numpy.inf, numpy.nan, -0.0, 0.0, -numpy.inf]
        if numpy.dtype(dtype).kind == "c":
            flat[1] = complex(1.0, numpy.inf)
            flat[5] = complex(numpy.nan, -numpy.inf)
    return x


# ---- elementwise ---------------------------------------------------------------------------------------

def test_classification_and_fix_as_numpy(queue, rng):
    # fix (numpy 2.4's trunc), isposinf / isneginf (complex refused, numpy's TypeError),
    # iscomplex / isreal (a new all-False / all-True array for real dtypes), the *obj tests (host
    # booleans) and real_if_close (its parts' view where every imaginary part is below tol):
    # selections of the input's values, exact.
    for dtype in ALL:
        x = with_specials(rng, (4, 5), dtype)
        d = device(queue, x)
        for f in (numpy.iscomplex, numpy.isreal, numpy.real_if_close):
            same(queue, f(d), f(x))
        assert numpy.iscomplexobj(d) is numpy.iscomplexobj(x) and numpy.isrealobj(d) is numpy.isrealobj(x)
        for f in (numpy.fix, numpy.isposinf, numpy.isneginf):
            if numpy.dtype(dtype).kind == "c":
                raises_as_numpy(lambda: f(x), lambda: f(d))
            else:
                same(queue, f(d), f(x))
    base = with_specials(rng, (6, 8), numpy.float32)
    d = device(queue, base)
    for view in VIEWS:
        for f in (numpy.fix, numpy.isneginf, numpy.iscomplex):
            same(queue, f(view(d)), f(view(base)))
    # out=: into a kjarni array (numpy's casting rule: a float result into an int8 out is refused)
    x = with_specials(rng, (3, 4), numpy.float64)
    out = device(queue, numpy.zeros((3, 4), numpy.float32))
    assert numpy.fix(device(queue, x), out=out) is out
    same(queue, out, numpy.fix(x).astype(numpy.float32))
    bools = device(queue, numpy.zeros((3, 4), bool))
    assert numpy.isposinf(device(queue, x), bools) is bools
    same(queue, bools, numpy.isposinf(x))
    raises_as_numpy(lambda: numpy.fix(x, out=numpy.zeros((3, 4), numpy.int8)),
                    lambda: numpy.fix(device(queue, x), out=device(queue, numpy.zeros((3, 4), numpy.int8))))
    # real_if_close: tolerance in epsilons (tol > 1) or absolute
    z = numpy.array([1 + 1e-14j, 2 - 3e-15j, 3])
    for tol in (100, 10, 0.5, 1e-20):
        same(queue, numpy.real_if_close(device(queue, z), tol=tol), numpy.real_if_close(z, tol=tol))


def test_sinc_as_numpy(queue, rng):
    # numpy's sin(y) / y of y = pi x (x = 0: eps of y's type in place of y): the same y on both
    # sides; sin within (kjarni's + numpy's) ulps of its result, the division one more rounding:
    # 12 eps |result| + slack below the smallest normal over |y|.
    for dtype in FLOATS + [numpy.int8, numpy.bool_, numpy.complex128]:
        x = random(rng, (5, 7), dtype)
        if numpy.dtype(dtype).kind in "fc":
            x.reshape(-1)[:3] = [0, -0.0, numpy.inf]
        want = numpy.sinc(x)
        got = numpy.sinc(device(queue, x))
        e = eps(want.dtype)
        with numpy.errstate(all="ignore"):
            y = numpy.abs(numpy.pi * x.astype(want.dtype))
            tiny = numpy.finfo(want.dtype).tiny
            bound = 12 * e * numpy.abs(want) * (1 + (numpy.abs(want.imag) > 0) * y if want.dtype.kind == "c" else 1) \
                + 4 * tiny / numpy.maximum(y, tiny)
        same(queue, got, want, numpy.where(numpy.isfinite(bound), bound, numpy.inf))
    same(queue, numpy.sinc(device(queue, numpy.float64(0.0))), numpy.sinc(numpy.float64(0.0)))


def chebyshev_bound(t, coefficients):
    """A bound on the rounding error of numpy's Clenshaw recurrence b0 = t b1 - b2 + c at each
    t (|t| <= 2), in units of the dtype's epsilon: an error made at step k reaches the result
    through the recurrence's homogeneous solution, at most (n - k) times its size for |t| <= 2
    (Chebyshev polynomials of the second kind, |U_m(t/2)| <= m + 1); each step makes three
    roundings of at most |t b1| + |b2| + |c| (b's from a float64 run), and the last (b0 - b2) / 2
    one of |b0| + |b2|."""
    t = numpy.asarray(t, numpy.float64)
    n = len(coefficients)
    b0, b1, b2 = numpy.full(t.shape, coefficients[0]), numpy.zeros(t.shape), numpy.zeros(t.shape)
    total = numpy.zeros(t.shape)
    for k, c in enumerate(coefficients[1:], 1):
        b2, b1 = b1, b0
        b0 = t * b1 - b2 + c
        total += (n - k) * 3 * (numpy.abs(t * b1) + numpy.abs(b2) + abs(c))
    return total + numpy.abs(b0) + numpy.abs(b2)


def test_i0_as_numpy(queue, rng):
    # numpy's piecewise Chebyshev series, each step in the argument's float type: kjarni makes the
    # same roundings, but a device may fuse t b1 - b2 into one (chebyshev_bound, twice: both sides);
    # exp and sqrt within their ulps (OpenCL's and numpy's) of the result.
    from numpy.lib._function_base_impl import _i0A, _i0B
    for dtype in FLOATS + [numpy.int16]:
        x = numpy.concatenate([random(rng, (20,), dtype), numpy.array([0, 7.9, 8, 8.1, -30], dtype)])
        if numpy.dtype(dtype).kind == "f":
            x = numpy.concatenate([x, numpy.array([numpy.nan, numpy.inf, 85, -85], dtype)])
        want = numpy.i0(x)
        got = numpy.i0(device(queue, x))
        a = numpy.abs(x.astype(numpy.float64))
        with numpy.errstate(all="ignore"):
            low = numpy.exp(a) * 0.5 * chebyshev_bound(a / 2 - 2, _i0A)
            high = numpy.exp(a) * 0.5 * chebyshev_bound(32 / a - 2, _i0B) / numpy.sqrt(a)
            series = numpy.where(a <= 8, low, high)
        e = eps(want.dtype)
        bound = 2 * e * series + 16 * e * numpy.abs(want.astype(numpy.float64)) + 2 * numpy.finfo(want.dtype).tiny
        same(queue, got, want, numpy.where(numpy.isfinite(bound), bound, numpy.inf))
    raises_as_numpy(lambda: numpy.i0(numpy.ones(2, complex)), lambda: numpy.i0(device(queue, numpy.ones(2, complex))))


# ---- unwrap, vander, vdot ------------------------------------------------------------------------------

def test_unwrap_as_numpy(queue, rng):
    # The differences, their remainders and corrections are the same roundings on both sides; their
    # running sum is kjarni's scan (another order of addition): n eps times the sum of magnitudes of
    # the corrections, and the final addition one rounding of the result. Integers exactly.
    cases = [((30,), {}), ((5, 9), {"axis": 0}), ((4, 7), {"discont": 1.0}), ((6, 5), {"axis": -1, "period": 3.0}),
             ((25,), {"period": numpy.float32(1.5)}), ((3, 0), {}), ((1,), {})]
    for dtype in [numpy.float32, numpy.float64, numpy.float16, numpy.int32, numpy.uint8, numpy.bool_]:
        for shape, kwargs in cases:
            x = numpy.cumsum(random(rng, shape, dtype), axis=kwargs.get("axis", -1)).astype(dtype)
            want = numpy.unwrap(x, **kwargs)
            got = numpy.unwrap(device(queue, x), **kwargs)
            if want.dtype.kind != "f":
                same(queue, got, want)
                continue
            n = max(shape[kwargs.get("axis", -1)], 1)
            corrections = numpy.abs(want.astype(numpy.float64) - x)
            bound = (n + 2) * eps(want.dtype) * (numpy.abs(want) + corrections.sum()) + eps(want.dtype) * 8
            same(queue, got, want, bound)
    for dtype, period in [(numpy.int64, 8), (numpy.int64, 7), (numpy.int8, 6), (numpy.float32, 4)]:
        x = rng.integers(-20, 20, (3, 12)).astype(dtype)
        same(queue, numpy.unwrap(device(queue, x), period=period), numpy.unwrap(x, period=period))
    x = random(rng, (3, 4), numpy.float64)
    for kwargs in [{"axis": 2}, {"axis": -3}]:
        raises_as_numpy(lambda: numpy.unwrap(x, **kwargs), lambda: numpy.unwrap(device(queue, x), **kwargs))
    raises_as_numpy(lambda: numpy.unwrap(numpy.float64(1)), lambda: numpy.unwrap(device(queue, numpy.float64(1))))
    raises_as_numpy(lambda: numpy.unwrap(x.astype(complex)), lambda: numpy.unwrap(device(queue, x.astype(complex))))


def vander_bound(x, N=None, increasing=False):
    """Real columns exact; numpy's complex multiply may fuse its parts' products (its SIMD loops):
    the power k within 4 k eps |x|^k."""
    if x.dtype.kind != "c":
        return None
    N = len(x) if N is None else N
    powers = numpy.arange(N) if increasing else numpy.arange(N)[::-1]
    return 4 * eps(x.dtype) * powers * numpy.abs(x.astype(numpy.complex128))[:, None] ** powers


def test_vander_and_vdot_as_numpy(queue, rng):
    # vander: numpy's multiply.accumulate is one product per column, as kjarni's: exact for real
    # types (integers wrap alike; uint64 in float64). vdot: a sum of n products (the first conjugated): (n + 4) eps
    # times the sum of magnitudes of the products on either side (float16: accumulated in float32).
    for dtype in ALL:
        x = random(rng, (6,), dtype)
        d = device(queue, x)
        for kwargs in [{}, {"N": 3}, {"N": 9, "increasing": True}, {"N": 0}, {"N": 1}]:
            same(queue, numpy.vander(d, **kwargs), numpy.vander(x, **kwargs), vander_bound(x, **kwargs))
        same(queue, numpy.vander(d[::-2]), numpy.vander(x[::-2]), vander_bound(x[::-2]))
        a, b = random(rng, (3, 5), dtype), random(rng, (5, 3), dtype)
        for p, q in [(a, b), (a.T, b[::-1]), (a[0, :1].reshape(()), b[0, :1]), (a[:0], b[:0])]:
            want = numpy.vdot(p, q)
            got = numpy.vdot(device(queue, numpy.ascontiguousarray(p)), device(queue, numpy.ascontiguousarray(q)))
            if want.dtype.kind in "fc":
                products = numpy.sum(numpy.abs(p.ravel().astype(numpy.complex128)) * numpy.abs(q.ravel()))
                bound = (p.size + 4) * eps(want.dtype) * products  # (numpy's float16 dot may round its partials)
                same(queue, got, want, bound + eps(want.dtype) * numpy.abs(want))
            else:
                same(queue, got, want)
    raises_as_numpy(lambda: numpy.vander(numpy.ones((2, 2))), lambda: numpy.vander(device(queue, numpy.ones((2, 2)))))
    raises_as_numpy(lambda: numpy.vander(numpy.ones(2), N=-1), lambda: numpy.vander(device(queue, numpy.ones(2)), N=-1))
    raises_as_numpy(lambda: numpy.vdot(numpy.ones(3), numpy.ones(4)),
                    lambda: numpy.vdot(device(queue, numpy.ones(3)), device(queue, numpy.ones(4))))


# ---- linspace, logspace, geomspace ---------------------------------------------------------------------

def test_linspace_as_numpy(queue, rng):
    # numpy's formula (arange times step, or divided then times the difference where a step is 0,
    # plus start, the last set to stop), each operation one rounding in the same type: exact.
    for dtype in [numpy.float64, numpy.float32, numpy.float16, numpy.int16, numpy.complex64]:
        start, stop = random(rng, (3,), dtype), random(rng, (2, 3), dtype)
        ds, dp = device(queue, start), device(queue, stop)
        for num, kwargs in [(7, {}), (5, {"endpoint": False}), (1, {}), (0, {}), (2, {"axis": -1}),
                            (4, {"axis": 1, "retstep": True}), (6, {"dtype": numpy.int32}),
                            (3, {"dtype": numpy.float32, "retstep": True, "endpoint": False})]:
            try:
                want = numpy.linspace(start, stop, num, **kwargs)
            except TypeError:  # (numpy's floor of complex values for an integer dtype)
                raises_as_numpy(lambda: numpy.linspace(start, stop, num, **kwargs),
                                lambda: numpy.linspace(ds, dp, num, **kwargs))
                continue
            got = numpy.linspace(ds, dp, num, **kwargs)
            if kwargs.get("retstep"):
                same(queue, got[0], want[0])
                same(queue, got[1], want[1])
            else:
                same(queue, got, want)
        # a Python number is weak beside the array's type; a 0-d start and stop: one axis
        same(queue, numpy.linspace(ds, 2.5, 4), numpy.linspace(start, 2.5, 4))
        same(queue, numpy.linspace(-1, dp[1], 4), numpy.linspace(-1, stop[1], 4))
        same(queue, numpy.linspace(ds[0], dp[1, 2], 5, retstep=True)[0], numpy.linspace(start[0], stop[1, 2], 5))
    # a denormal difference: numpy's divide-first branch for every element
    tiny = numpy.array([0.0, 1.0]), numpy.array([5e-324, 2.0])
    same(queue, numpy.linspace(device(queue, tiny[0]), device(queue, tiny[1]), 4), numpy.linspace(*tiny, 4))
    one = device(queue, numpy.float64(1.0))
    for num, axis in [(-1, 0), (3, 1), (3, -2)]:
        raises_as_numpy(lambda: numpy.linspace(numpy.float64(1.0), 2.0, num, axis=axis),
                        lambda: numpy.linspace(one, 2.0, num, axis=axis))


def spaced_bound(want, exponents, steps=1):
    """pow(base, y) within its ulps (both sides: 20) of the result, y itself off by `steps`
    roundings of its magnitude, which pow scales by ln(base) |y| (base 10 here: the callers'
    exponents are log10s or linspace values)."""
    e = eps(want.dtype)
    y = numpy.abs(numpy.asarray(exponents, numpy.float64))
    return e * numpy.abs(want) * (24 + steps * math.log(10) * y) + 4 * numpy.finfo(want.dtype).tiny


def test_logspace_and_geomspace_as_numpy(queue, rng):
    for dtype in [numpy.float64, numpy.float32]:
        start, stop = random(rng, (3,), dtype) / 3, random(rng, (3,), dtype) / 3
        ds, dp = device(queue, start), device(queue, stop)
        for num, kwargs in [(6, {}), (5, {"endpoint": False, "base": 2.0}), (4, {"axis": 1}),
                            (3, {"dtype": numpy.float32}),
                            (4, {"base": numpy.array([2.0, 3.0, 0.5]), "axis": 1})]:
            want = numpy.logspace(start, stop, num, **kwargs)
            base = kwargs.get("base")
            if isinstance(base, numpy.ndarray):
                kwargs = dict(kwargs, base=device(queue, base))
            got = numpy.logspace(ds, dp, num, **kwargs)
            y = numpy.linspace(start, stop, num, endpoint=kwargs.get("endpoint", True), axis=kwargs.get("axis", 0))
            same(queue, got, want, spaced_bound(want, y * (math.log10(3) if base is not None else 1), 2))
        # geomspace: log10 of start and stop (ulps), then linspace's roundings and pow; the ends
        # exact; signs and complex rotations (sign(start)) one product more.
        for s, t, kwargs in [(start * 4 + 5, stop * 4 + 5, {}), (-(start * 4 + 5), -(stop * 4 + 5), {"axis": 1}),
                             (start + 3, 100.0, {"num": 4, "dtype": numpy.float32}),
                             ((start + 1j).astype(numpy.complex64), stop * 2 + 3, {"num": 5, "endpoint": False})]:
            want = numpy.geomspace(s, t, **kwargs)
            got = numpy.geomspace(device(queue, s), device(queue, t) if isinstance(t, numpy.ndarray) else t, **kwargs)
            y = numpy.log10(numpy.abs(want).astype(numpy.float64))
            same(queue, got, want, spaced_bound(want, y, 8) + 4 * eps(want.dtype) * numpy.abs(want))
    zero = numpy.array([1.0, 0.0])
    raises_as_numpy(lambda: numpy.geomspace(zero, 2.0), lambda: numpy.geomspace(device(queue, zero), 2.0))


# ---- polynomials -----------------------------------------------------------------------------------------

def poly_bound(roots, want):
    """numpy's poly: coefficient k of step i is a[k - 1] (-z) + a[k], one product and one addition
    (complex: four roundings of the parts), whose errors the later steps carry as the exact
    recurrence carries them: E'[k] = E[k] + |z| E[k - 1] + 4 eps (|a[k - 1] z| + |a[k]|), for
    both sides."""
    e = eps(want.dtype)
    a, err = numpy.ones(1), numpy.zeros(1)
    for z in numpy.abs(roots.astype(numpy.complex128)):
        shifted, shifted_err = numpy.concatenate([[0.0], a]), numpy.concatenate([[0.0], err])
        a_ext, err_ext = numpy.concatenate([a, [0.0]]), numpy.concatenate([err, [0.0]])
        err = err_ext + z * shifted_err + 4 * e * (shifted * z + a_ext)
        a = a_ext + z * shifted
    return 2 * err


def test_polynomial_arithmetic_as_numpy(queue, rng):
    # polyadd / polysub / polyder / polyint: one operation per element (exact); polymul: numpy's
    # convolve of the operands without their leading zeros (poly1d's), sums of products
    # (min(n, m) + 4) eps times the sums of magnitudes (float16 accumulated in float32).
    for dtype in ALL:
        a, b = random(rng, (5,), dtype), random(rng, (3,), dtype)
        if numpy.dtype(dtype).kind != "b":
            a[:2] = 0  # leading zeros: polymul trims them
        da, db = device(queue, a), device(queue, b)
        for f in (numpy.polyadd, numpy.polysub):
            for p, q, dp, dq in [(a, b, da, db), (b, a, db, da), (a[::-1], a, da[::-1], da),
                                 (a[0], b, da[0], db)]:
                if dtype == numpy.bool_ and f is numpy.polysub:
                    raises_as_numpy(lambda: f(p, q), lambda: f(dp, dq))
                else:
                    same(queue, f(dp, dq), f(p, q))
        for p, q, dp, dq in [(a, b, da, db), (b[::-1], a[1:], db[::-1], da[1:]), (a[:2], b, da[:2], db)]:
            want = numpy.polymul(p, q)
            if want.dtype.kind in "fc":
                magnitude = numpy.convolve(numpy.abs(p.astype(numpy.complex128)), numpy.abs(q.astype(numpy.complex128)))
                magnitude = magnitude[len(magnitude) - want.shape[0]:]
                e = eps(want.dtype)
                same(queue, numpy.polymul(dp, dq), want,
                     (min(len(p), len(q)) + 4) * e * magnitude + eps(want.dtype) * numpy.abs(want))
            else:
                same(queue, numpy.polymul(dp, dq), want)
        for m in (0, 1, 2, 7):
            same(queue, numpy.polyder(da, m), numpy.polyder(a, m))
            same(queue, numpy.polyint(da, m), numpy.polyint(a, m))
        same(queue, numpy.polyint(da[::-2], 3, k=[1, -2, 0.5]), numpy.polyint(a[::-2], 3, k=[1, -2, 0.5]))
        same(queue, numpy.polyint(da, 2, k=3), numpy.polyint(a, 2, k=3))
        same(queue, numpy.polyint(da, 2, k=device(queue, numpy.array([4, 5], numpy.int8))),
             numpy.polyint(a, 2, k=numpy.array([4, 5], numpy.int8)))
    p = random(rng, (4,), numpy.float64)
    dp = device(queue, p)
    for f, args in [(numpy.polyder, (-1,)), (numpy.polyint, (-1,)), (numpy.polyint, (3, [1, 2]))]:
        raises_as_numpy(lambda: f(p, *args), lambda: f(dp, *args))
    for f in (numpy.polyder, numpy.polyint):
        raises_as_numpy(lambda: f(p[0]), lambda: f(dp[0]))
    raises_as_numpy(lambda: numpy.polymul(p, numpy.ones((2, 2))),
                    lambda: numpy.polymul(dp, device(queue, numpy.ones((2, 2)))))
    raises_as_numpy(lambda: numpy.polyadd(numpy.ones((2, 2)), p),
                    lambda: numpy.polyadd(device(queue, numpy.ones((2, 2))), dp))


def test_poly_as_numpy(queue, rng):
    for dtype in ALL:
        roots = random(rng, (5,), dtype)
        want = numpy.poly(roots)
        same(queue, numpy.poly(device(queue, roots)), want, poly_bound(roots, want))
    # complex roots: real coefficients where they come in conjugate pairs (numpy's sorted comparison)
    for roots in [numpy.array([1 + 2j, 3, 1 - 2j, -0.0 + 1j, 0.0 - 1j]), numpy.array([1 + 2j, 1 - 2.5j]),
                  numpy.array([2j, -2j, numpy.nan]), numpy.array([1 + 2j, 1 - 2j], numpy.complex64),
                  numpy.array([0.5, -1.5, numpy.inf])]:
        with numpy.errstate(invalid="ignore"):
            want = numpy.poly(roots)
        same(queue, numpy.poly(device(queue, roots)), want, poly_bound(roots, want))
    assert numpy.poly(device(queue, numpy.zeros(0))) == 1.0
    raises_as_numpy(lambda: numpy.poly(numpy.ones((2, 3))), lambda: numpy.poly(device(queue, numpy.ones((2, 3)))))
    with pytest.raises(kjarni.ArgumentTypeError):
        numpy.poly(device(queue, numpy.ones((3, 3))))  # eigenvalues: refused


# ---- packbits, unpackbits --------------------------------------------------------------------------------

def test_packbits_and_unpackbits_as_numpy(queue, rng):
    for dtype in [numpy.bool_, numpy.uint8, numpy.int8, numpy.int64, numpy.uint64]:
        x = random(rng, (5, 11), dtype)
        d = device(queue, x)
        for kwargs in [{}, {"axis": 1}, {"axis": -2, "bitorder": "little"}, {"bitorder": "little"}]:
            same(queue, numpy.packbits(d, **kwargs), numpy.packbits(x, **kwargs))
        same(queue, numpy.packbits(d.T[::-1], axis=0), numpy.packbits(x.T[::-1], axis=0))
    for x in [numpy.array(3), numpy.zeros((0, 4), numpy.uint8), numpy.array([True])]:
        for axis in (None, 0, -1):
            if axis is None or x.ndim <= 1:
                same(queue, numpy.packbits(device(queue, x), axis=axis), numpy.packbits(x, axis=axis))
    u = rng.integers(0, 256, (4, 3)).astype(numpy.uint8)
    du = device(queue, u)
    for kwargs in [{}, {"axis": 0}, {"axis": -1, "count": 5}, {"axis": 1, "count": -7}, {"count": 40},
                   {"axis": 0, "count": 0, "bitorder": "little"}, {"bitorder": "little", "count": -1}]:
        same(queue, numpy.unpackbits(du, **kwargs), numpy.unpackbits(u, **kwargs))
    same(queue, numpy.unpackbits(du[::-1, 1:], axis=0), numpy.unpackbits(u[::-1, 1:], axis=0))
    same(queue, numpy.unpackbits(du, bitorder="lsb"), numpy.unpackbits(u, bitorder="lsb"))  # (its first letter)
    same(queue, numpy.unpackbits(device(queue, numpy.uint8(200))), numpy.unpackbits(numpy.uint8(200)))
    same(queue, numpy.unpackbits(device(queue, numpy.uint8(200)), axis=0),
         numpy.unpackbits(numpy.array(200, numpy.uint8), axis=0))
    x = numpy.ones((2, 3), numpy.int8)
    for call in [lambda x: numpy.packbits(x.astype(float)), lambda x: numpy.packbits(x, bitorder="middle"),
                 lambda x: numpy.packbits(x, axis=2), lambda x: numpy.unpackbits(x),
                 lambda x: numpy.unpackbits(x.astype(numpy.uint8), count=-49),
                 lambda x: numpy.unpackbits(x.astype(numpy.uint8), axis=-3),
                 lambda x: numpy.unpackbits(x, bitorder="x"),
                 lambda x: numpy.packbits(x, bitorder=None), lambda x: numpy.packbits(x, bitorder="b"),
                 lambda x: numpy.unpackbits(x.astype(numpy.uint8), bitorder="Big")]:
        raises_as_numpy(lambda: call(x), lambda: call(device(queue, x)))


# ---- linalg ------------------------------------------------------------------------------------------------

def products_bound(want, magnitude, n):
    """Sums of n products: (n + 4) eps (of the result's type: numpy's float16 loops may round
    their partial sums, kjarni's accumulate in float32) times the same sums of the magnitudes, and
    one rounding into the result."""
    if want.dtype.kind not in "fc":
        return None
    return (n + 4) * eps(want.dtype) * magnitude + eps(want.dtype) * numpy.abs(want)


def mag(x):
    return numpy.abs(numpy.asarray(x).astype(numpy.complex128))


def test_linalg_array_api_functions_as_numpy(queue, rng):
    for dtype in ALL:
        a, b = random(rng, (2, 3, 4), dtype), random(rng, (4, 5), dtype)
        da, db = device(queue, a), device(queue, b)
        want = numpy.linalg.matmul(a, b)
        same(queue, numpy.linalg.matmul(da, db), want, products_bound(want, mag(a) @ mag(b), 4))
        want = numpy.linalg.matmul(a[0, 0], b)
        same(queue, numpy.linalg.matmul(da[0, 0], db), want, products_bound(want, mag(a[0, 0]) @ mag(b), 4))
        same(queue, numpy.linalg.matrix_transpose(da), numpy.linalg.matrix_transpose(a))
        same(queue, numpy.linalg.outer(da[0, 1], db[::-1, 2]), numpy.linalg.outer(a[0, 1], b[::-1, 2]))
        want = numpy.linalg.tensordot(a, b, axes=1)
        same(queue, numpy.linalg.tensordot(da, db, axes=1), want,
             products_bound(want, numpy.tensordot(mag(a), mag(b), 1), 4))
        for offset in (0, 1, -1):
            if dtype != numpy.bool_:
                want = numpy.linalg.trace(a, offset=offset)
                same(queue, numpy.linalg.trace(da, offset=offset), want,
                     products_bound(want, numpy.linalg.trace(mag(a), offset=offset), 3))
            same(queue, numpy.linalg.diagonal(da, offset=offset), numpy.linalg.diagonal(a, offset=offset))
        if dtype not in (numpy.bool_,):
            c, e = random(rng, (3, 2), dtype), random(rng, (3, 4, 1), dtype)
            want = numpy.linalg.cross(c, e, axis=0)
            same(queue, numpy.linalg.cross(device(queue, c), device(queue, e), axis=0), want,
                 None if want.dtype.kind not in "fc" else 8 * eps(want.dtype) * (mag(c).max() * mag(e).max()))
    a = random(rng, (3, 4), numpy.float64)
    d = device(queue, a)
    for call in [lambda m, x: m.linalg.matmul(x[0, 0], x), lambda m, x: m.linalg.matmul(x, x),
                 lambda m, x: m.linalg.outer(x, x[0]), lambda m, x: m.linalg.cross(x, x),
                 lambda m, x: m.linalg.cross(x[:, :3], x[:, :3], axis=2), lambda m, x: m.linalg.trace(x[0]),
                 lambda m, x: m.linalg.diagonal(x[0]), lambda m, x: m.linalg.matrix_transpose(x[0]),
                 lambda m, x: m.linalg.tensordot(x, x, axes=1)]:
        raises_as_numpy(lambda: call(numpy, a), lambda: call(numpy, d))


def test_multi_dot_and_matrix_power_as_numpy(queue, rng):
    # multi_dot in numpy's order (each product of n terms bounded as sums of products of the
    # magnitudes of the whole chain, (sum of the inner dimensions + 4) eps); matrix_power by the
    # same squarings.
    for dtype in [numpy.float64, numpy.float32, numpy.int32, numpy.complex64, numpy.bool_, numpy.float16]:
        shapes = [(3,), (3, 7), (7, 2), (2, 6), (6,)]
        arrays = [random(rng, s, dtype) for s in shapes]
        for chain in [arrays, arrays[1:4], arrays[:3], arrays[1:], arrays[:2], [arrays[1], arrays[2].T[::-1].T]]:
            want = numpy.linalg.multi_dot(chain)
            magnitude = numpy.linalg.multi_dot([mag(x) for x in chain])
            got = numpy.linalg.multi_dot([device(queue, numpy.ascontiguousarray(x)) for x in chain])
            same(queue, got, want, products_bound(want, magnitude, sum(x.shape[0] for x in chain[1:])))
        m = random(rng, (2, 3, 3), dtype) if dtype != numpy.float16 else random(rng, (3, 3), dtype) / 4
        dm = device(queue, m)
        for n in (0, 1, 2, 3, 4, 6, 13):
            want = numpy.linalg.matrix_power(m, n)
            magnitude = numpy.linalg.matrix_power(mag(m), n)
            same(queue, numpy.linalg.matrix_power(dm, n), want, products_bound(want, magnitude, 3 * max(n, 1)))
    out = device(queue, numpy.zeros((3, 2)))
    a, b, c = (random(rng, s, numpy.float64) for s in [(3, 4), (4, 5), (5, 2)])
    assert numpy.linalg.multi_dot([device(queue, a), device(queue, b), device(queue, c)], out=out) is out
    same(queue, out, numpy.linalg.multi_dot([a, b, c]), products_bound(out.get(queue), mag(a) @ mag(b) @ mag(c), 9))
    x = random(rng, (3, 4), numpy.float64)
    for call in [lambda m, x: m.linalg.multi_dot([x]), lambda m, x: m.linalg.multi_dot([x, x.T, x[None]]),
                 lambda m, x: m.linalg.matrix_power(x, 2), lambda m, x: m.linalg.matrix_power(x[0], 2),
                 lambda m, x: m.linalg.matrix_power(x[:3, :3], 1.5)]:
        raises_as_numpy(lambda: call(numpy, x), lambda: call(numpy, device(queue, x)))
    with pytest.raises(kjarni.ArgumentTypeError):
        numpy.linalg.matrix_power(device(queue, x[:3, :3]), -1)  # the inverse: refused


def norm_bound(want, x, ord):
    """Sums of n terms |x|^p (p = 2 for None and 'fro', 1 for the row and column sums and the max
    or min of them) both sides (n + 4) eps relative (the terms are not negative; float16 numpy may
    add in float16), pow's and hypot's ulps (both sides: 32 eps) for each term, the root scaling
    the sum's relative error by 1 / p, and the root's own ulps; counts (ord 0) exact."""
    want = numpy.asarray(want)
    if want.dtype.kind != "f" or ord == 0:
        return None
    e = eps(want.dtype)
    p = 2.0 if ord in (None, "fro") else 1.0 if ord in (numpy.inf, -numpy.inf) else abs(float(ord))
    relative = ((max(numpy.size(x), 1) + 4) * e + 32 * e) * max(1.0, 1 / p) + 32 * e
    return relative * numpy.abs(want) + 4 * numpy.finfo(want.dtype).tiny


def test_norms_as_numpy(queue, rng):
    # numpy.linalg.norm / vector_norm / matrix_norm: every vector ord, the matrix ords kjarni
    # computes; the refused ones (2, -2, 'nuc' of matrices) ArgumentTypeError.
    for dtype in [numpy.float64, numpy.float32, numpy.float16, numpy.int8, numpy.bool_, numpy.complex64]:
        x = random(rng, (4, 5), dtype)
        d = device(queue, x)
        cases = [{}, {"axis": 1}, {"axis": 0, "keepdims": True}, {"keepdims": True}]
        cases += [{"ord": o, "axis": -1} for o in (0, 1, -1, 2, 3, 0.5, -2.5, numpy.inf, -numpy.inf)]
        cases += [{"ord": o} for o in ("fro", 1, -1, numpy.inf, -numpy.inf)]
        cases += [{"ord": 1, "axis": (1, 0), "keepdims": True}, {"ord": numpy.inf, "axis": (-1, 0)}]
        for kwargs in cases:
            with numpy.errstate(divide="ignore"):
                want = numpy.linalg.norm(x, **kwargs)
                got = numpy.linalg.norm(d, **kwargs)
            same(queue, got, want, norm_bound(want, x, kwargs.get("ord")))
        for kwargs in [{}, {"ord": 1, "axis": (1,)}, {"ord": 3, "axis": (0, 1), "keepdims": True}, {"ord": 0}]:
            want = numpy.linalg.vector_norm(x, **kwargs)
            same(queue, numpy.linalg.vector_norm(d, **kwargs), want, norm_bound(want, x, kwargs.get("ord", 2)))
        for kwargs in [{}, {"ord": -numpy.inf, "keepdims": True}]:
            want = numpy.linalg.matrix_norm(x, **kwargs)
            same(queue, numpy.linalg.matrix_norm(d, **kwargs), want, norm_bound(want, x, kwargs.get("ord", "fro")))
    empty = numpy.zeros((0, 3))
    same(queue, numpy.linalg.norm(device(queue, empty), numpy.inf, axis=0), numpy.linalg.norm(empty, numpy.inf, axis=0))
    same(queue, numpy.linalg.norm(device(queue, empty), 1), numpy.linalg.norm(empty, 1))
    x = random(rng, (2, 3, 4), numpy.float64)
    for kwargs in [{"ord": "x"}, {"ord": "fro", "axis": 0}, {"ord": 1}, {"axis": (0, -3)}, {"axis": (0, 1, 2)},
                   {"axis": [0]}, {"axis": 3}, {"ord": "nuc", "axis": 1}, {"ord": 3, "axis": (0, 1)}]:
        raises_as_numpy(lambda: numpy.linalg.norm(x, **kwargs), lambda: numpy.linalg.norm(device(queue, x), **kwargs))
    raises_as_numpy(lambda: numpy.linalg.norm(empty, -numpy.inf, axis=0),
                    lambda: numpy.linalg.norm(device(queue, empty), -numpy.inf, axis=0))
    raises_as_numpy(lambda: numpy.linalg.matrix_norm(x[0, 0]), lambda: numpy.linalg.matrix_norm(device(queue, x[0, 0])))
    for ord in (2, -2, "nuc"):
        with pytest.raises(kjarni.ArgumentTypeError):
            numpy.linalg.norm(device(queue, x[0]), ord)


# ---- lifted options --------------------------------------------------------------------------------------

def test_round_with_decimals_as_numpy(queue, rng):
    # numpy's algorithm: x * 10**d (x / 10**-d), rint, divided back, each step one rounding in the
    # float type (the factor converted to it): exact; integers in float64 and back; complex by parts.
    for dtype in ALL:
        x = random(rng, (3, 7), dtype)
        if dtype != numpy.bool_:
            x = (x * 37).astype(dtype)
        if numpy.dtype(dtype).kind in "fc":
            x = x * numpy.asarray(rng.random((3, 7)) * 100, dtype)
        d = device(queue, x)
        for decimals in (0, 1, 3, -1, -2, 12, 40):
            if dtype == numpy.bool_ and decimals != 0:
                raises_as_numpy(lambda: numpy.round(x, decimals), lambda: numpy.round(d, decimals))
                continue
            with numpy.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = numpy.round(x, decimals)
                got = numpy.round(d, decimals)
            same(queue, got, want)
        if dtype != numpy.bool_:
            same(queue, numpy.around(d[::-1, ::2], 2), numpy.around(x[::-1, ::2], 2))
            same(queue, d.T.round(1), x.T.round(1))
    x = random(rng, (4,), numpy.float32) * 100
    out = device(queue, numpy.zeros(4, numpy.float32))
    assert numpy.round(device(queue, x), 1, out=out) is out
    same(queue, out, numpy.round(x, 1))
    i = random(rng, (4,), numpy.int16)
    wide = device(queue, numpy.zeros(4, numpy.int64))
    assert numpy.round(device(queue, i), 2, out=wide) is wide
    same(queue, wide, numpy.round(i, 2).astype(numpy.int64))
    raises_as_numpy(lambda: numpy.round(x, 1.5), lambda: numpy.round(device(queue, x), 1.5))


def test_diff_inner_nan_to_num_outer_options_as_numpy(queue, rng):
    # diff's prepend / append (numpy's concatenation and promotion), exact; inner over the last axes
    # (sums of products); nan_to_num of complex arrays (part by part); outer into out=.
    for dtype in [numpy.int8, numpy.float32, numpy.float64, numpy.bool_, numpy.uint16, numpy.complex64]:
        x = random(rng, (3, 5), dtype)
        d = device(queue, x)
        for kwargs in [{"prepend": 0}, {"append": 2.5}, {"prepend": x[:, :1], "append": x[:, ::-2]},
                       {"axis": 0, "n": 2, "prepend": numpy.float16(1.5)}, {"axis": 0, "append": x[:1]}]:
            device_kwargs = {k: device(queue, numpy.ascontiguousarray(v)) if isinstance(v, numpy.ndarray) else v
                             for k, v in kwargs.items()}
            want, got = (lambda: numpy.diff(x, **kwargs)), (lambda: numpy.diff(d, **device_kwargs))
            try:
                want = want()
            except TypeError:
                raises_as_numpy(want, got)
                continue
            same(queue, got(), want)
        raises_as_numpy(lambda: numpy.diff(x, prepend=numpy.zeros((2, 2))),
                        lambda: numpy.diff(d, prepend=device(queue, numpy.zeros((2, 2)))))
        y = random(rng, (2, 4, 5), dtype)
        dy = device(queue, y)
        for p, q, dp, dq in [(x, y, d, dy), (y[0, 0], x, dy[0, 0], d), (x[0, 0], y, d[0, 0], dy)]:
            want = numpy.inner(p, q)
            same(queue, numpy.inner(dp, dq), want, products_bound(want, numpy.inner(mag(p), mag(q)), 5))
        raises_as_numpy(lambda: numpy.inner(x, y[..., :3]), lambda: numpy.inner(d, dy[..., :3]))
        z = with_specials(rng, (3, 4), dtype)
        dz = device(queue, z)
        for kwargs in [{}, {"nan": 2.0, "posinf": 9.0, "neginf": -9.0}]:
            same(queue, numpy.nan_to_num(dz, **kwargs), numpy.nan_to_num(z, **kwargs))
        copy = numpy.nan_to_num(dz, copy=False)
        same(queue, dz, numpy.nan_to_num(z))
        assert copy is dz
        out = device(queue, numpy.zeros((5, 3), numpy.result_type(x, x)))
        assert numpy.outer(d[0], d[:, 1], out=out) is out
        same(queue, out, numpy.outer(x[0], x[:, 1]), None if x.dtype.kind not in "fc" else eps(x.dtype) * mag(
            numpy.outer(x[0], x[:, 1])) * 2)
    raises_as_numpy(lambda: numpy.outer(numpy.ones(2), numpy.ones(3), out=numpy.zeros((2, 3), numpy.int8)),
                    lambda: numpy.outer(device(queue, numpy.ones(2)), device(queue, numpy.ones(3)),
                                        out=device(queue, numpy.zeros((2, 3), numpy.int8))))
