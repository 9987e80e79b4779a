"""Random programs of the numpy functions of kjarni/_numpy_polynomial.py (fix ... unpackbits), the
numpy.linalg functions of kjarni/_numpy_linalg.py (matmul ... matrix_power, the norms with every
ord) and the options lifted from round / around (decimals), diff (prepend, append), inner (N-d),
nan_to_num (complex) and outer (out=): see functions.py for the conventions (a program's code, its
inputs, its bound; `refused` where kjarni documents an option as left out: poly of a square
matrix, matrix_power with n < 0, the matrix norms 2, -2 and 'nuc').

Bounds: selections, bit operations, single roundings done alike (polyadd, polyder, polyint,
round's steps, vander's real products, linspace's formula) exact; sums of products by
functions_composed.py's _sum_of_products_bound; the transcendental ones (sinc, i0, logspace,
geomspace, the p-norms) a few of the C++ fuzzer's ulps of the result, scaled where an error in an
argument is magnified (pow's exponent, Clenshaw's recurrence); inf where the input holds an
infinity or NaN that one order of operations turns into another special value."""

import os
import re

import numpy as np

from . import bounds
from .bounds import INF
from .functions import _program, _random_axis, _random_shape_nd, _try, device_input
from .functions_composed import _sum_of_products_bound
from .programs import Device, Host
from .values import pick, random_dtype, random_shape


def _finite(*arrays):
    with np.errstate(all="ignore"):
        return all(np.all(np.isfinite(np.asarray(a))) for a in arrays if np.asarray(a).dtype.kind in "fc")


def _relative(ulps, names=(), finite_only=True):
    """`ulps` eps of the result (and 4 tiny); inf everywhere where an input holds a non-finite value."""
    def bound(ref, ns):
        if ref.dtype.kind not in "fc":
            return None
        if finite_only and not _finite(*(ns[n] for n in names)):
            return np.full(ref.shape, INF)
        e = ulps * bounds.eps(ref.dtype) * bounds.magnitude(ref) + 4 * bounds.tiny(ref.dtype)
        return bounds.near_top(ref, ref.dtype, np.where(np.isfinite(e), e, INF))
    return bound


# ---- elementwise -------------------------------------------------------------------------------------

def _sinc_bound(ref, ns):
    # sin(y) / y of the same y on both sides: sin's ulps (both sides 8) and the division; complex
    # parts relative to the larger, the argument's imaginary part scaling sin's rounding.
    if ref.dtype.kind not in "fc":
        return None
    with np.errstate(all="ignore"):
        x = bounds.magnitude(ns["a"])
        y = np.pi * x
        scale = bounds.magnitude(ref) * (1.0 + np.minimum(y, 1e3)) if ref.dtype.kind == "c" else bounds.magnitude(ref)
        e = 16 * bounds.eps(ref.dtype) * scale + 8 * bounds.tiny(ref.dtype) / np.maximum(y, bounds.tiny(ref.dtype))
        if ref.dtype.kind == "c":
            e = np.where(np.asarray(np.abs(np.asarray(ns["a"]).imag)) > 20, INF, e)
        return bounds.near_top(ref, ref.dtype, np.where(np.isfinite(e), e, INF))


def _i0_bound(ref, ns):
    # numpy's Clenshaw recurrence, the same roundings on both sides save a fused t b1 - b2 (test
    # file's chebyshev_bound: an error at step k reaches the result at most n - k times over), exp
    # and sqrt within their ulps of the result; inf past exp's range.
    from numpy.lib._function_base_impl import _i0A, _i0B
    if ref.dtype.kind != "f":
        return None
    with np.errstate(all="ignore"):
        a = np.abs(np.asarray(ns["a"]).astype(np.float64))

        def series(t, c):
            n = len(c)
            b0, b1, b2 = np.full(t.shape, c[0]), np.zeros(t.shape), np.zeros(t.shape)
            total = np.zeros(t.shape)
            for k, ck in enumerate(c[1:], 1):
                b2, b1 = b1, b0
                b0 = t * b1 - b2 + ck
                total += (n - k) * 3 * (np.abs(t * b1) + np.abs(b2) + abs(ck))
            return total + np.abs(b0) + np.abs(b2)
        chb = np.where(a <= 8, np.exp(a) * 0.5 * series(a / 2 - 2, _i0A),
                       np.exp(a) * 0.5 * series(32 / np.where(a > 0, a, 1) - 2, _i0B) / np.sqrt(np.where(a > 0, a, 1)))
        e = bounds.eps(ref.dtype) * (2 * chb + 16 * bounds.magnitude(ref)) + 4 * bounds.tiny(ref.dtype)
        e = np.where(np.isfinite(e) & (a < 700), e, INF)
        return bounds.near_top(ref, ref.dtype, e)


def gen_small_math(rng):
    name = pick(rng, ["fix", "isposinf", "isneginf", "iscomplex", "isreal", "iscomplexobj", "isrealobj",
                      "real_if_close", "sinc", "i0", "nan_to_num", "round", "fix_out"],
                [1, 1, 1, 1, 1, 0.5, 0.5, 1, 1.5, 1.5, 1, 3, 0.5])
    da = random_dtype(rng)
    shape = random_shape(rng)
    style = pick(rng, ["small", "small", "edge", "wide"])
    inputs = {"a": device_input(rng, da, shape, style)}
    bound = None
    if name in ("fix", "isposinf", "isneginf", "iscomplex", "isreal", "iscomplexobj", "isrealobj"):
        code = f"r = np.{name}(a)"
    elif name == "fix_out":
        inputs["o"] = Device(np.zeros(shape, random_dtype(rng, "biufc")))
        code = "r0 = np.fix(a, out=o)\nr = (r0, r0 is o)"
    elif name == "real_if_close":
        if da.kind == "c" and rng.random() < 0.6:
            base = inputs["a"].base
            base.imag = base.imag * pick(rng, [0.0, 1e-20, 1e-7])
        tol = pick(rng, [None, 100, 1, 1e-5, 1e6])
        code = "r = np.real_if_close(a)" if tol is None else f"r = np.real_if_close(a, tol={tol!r})"
    elif name == "sinc":
        code, bound = "r = np.sinc(a)", _sinc_bound
    elif name == "i0":
        code, bound = "r = np.i0(a)", _i0_bound
    elif name == "nan_to_num":
        da = random_dtype(rng, "fc")
        inputs = {"a": device_input(rng, da, shape, "edge")}
        options = [f"{k}={pick(rng, [0.5, -3.0, 1e300, 7])!r}" for k in ("nan", "posinf", "neginf")
                   if rng.random() < 0.3]
        if rng.random() < 0.2:
            code = f"r0 = np.nan_to_num({', '.join(['a', 'copy=False'] + options)})\nr = (r0, a)"
        else:
            code = f"r = np.nan_to_num({', '.join(['a'] + options)})"
    else:
        decimals = int(pick(rng, [0, 1, 2, 3, -1, -2, 5, 10, 40, -40]))
        form = pick(rng, ["np.round(a, {d})", "np.around(a, {d})", "a.round({d})", "np.round(a, decimals={d})"])
        code = "r = " + form.format(d=decimals)
        if rng.random() < 0.1 and da.kind != "b":
            result = _try(lambda: np.round(inputs["a"].numpy(), decimals))
            if result is not None:
                inputs["o"] = Device(np.zeros(np.shape(result), np.asarray(result).dtype))
                code = f"r0 = np.round(a, {decimals}, out=o)\nr = (r0, r0 is o)"
    return _program("function " + name, code, inputs, bound)


# ---- sequences: linspace, logspace, geomspace, vander, unwrap, vdot ------------------------------------

def _spaced_bound(steps, code):
    """pow (both sides 20 ulps) of an exponent off by `steps` roundings of its magnitude, which
    pow magnifies by ln(base) |y| (ln of the largest base drawn, 10), in the type numpy computes in
    (the program without its dtype=, which converts the result after), relative to the magnitude
    there (a complex one's, where dtype= keeps its real parts)."""
    plain = re.sub(r", dtype=np\.\w+", "", code.split("= ", 1)[1])

    def bound(ref, ns):
        if ref.dtype.kind not in "fc":
            return None
        if not _finite(*(ns[n] for n in ("a", "b") if n in ns)):
            return np.full(ref.shape, INF)
        with np.errstate(all="ignore"):
            work = np.asarray(eval(plain, {"np": np}, dict(ns)))
            m = bounds.magnitude(work)
            e = max(bounds.eps(ref.dtype), bounds.eps(work.dtype))
            y = np.abs(np.log(np.where(m > 0, m, 1.0)))
            out = e * m * (24 + steps * y) * (4 if work.dtype.kind == "c" else 1) + 4 * bounds.tiny(work.dtype)
            out = np.broadcast_to(np.where(np.isfinite(out), out, INF), ref.shape)
            return bounds.near_top(ref, ref.dtype, out)
    return bound


def gen_sequences(rng):
    name = pick(rng, ["linspace", "logspace", "geomspace", "vander", "unwrap", "vdot"], [3, 1.5, 1.5, 1.5, 2, 1.5])
    da = random_dtype(rng, "biufc" if name != "unwrap" else "biuf")
    style = pick(rng, ["small", "small", "edge", "wide"]) if name not in ("logspace", "geomspace") else "small"
    shape = random_shape(rng, 2)
    inputs = {"a": device_input(rng, da, shape, style)}
    bound = None
    if name in ("linspace", "logspace", "geomspace"):
        if rng.random() < 0.7:
            inputs["b"] = device_input(rng, da if rng.random() < 0.7 else random_dtype(rng, "biuf"),
                                       shape if rng.random() < 0.7 else shape[1:], style)
            stop = "b"
        else:
            stop = repr(pick(rng, [2.5, -1, 3, 100.0]))
        num = int(pick(rng, [0, 1, 2, 5, 7, 50], [0.3, 0.5, 1, 2, 1, 0.5]))
        options = []
        if rng.random() < 0.3:
            options.append("endpoint=False")
        if rng.random() < 0.3:
            options.append(f"axis={int(pick(rng, [0, -1, 1, 3]))}")
        if rng.random() < 0.15:
            # (an integer dtype for linspace only: its floor of the same values; pow's roundings
            # could move a logspace value past an integer)
            types = ['float32', 'float64', 'complex128'] + (['int32'] if name == "linspace" else [])
            options.append(f"dtype=np.{pick(rng, types)}")
        if name == "linspace" and rng.random() < 0.2:
            options.append("retstep=True")
        if name == "logspace" and rng.random() < 0.3:
            options.append(f"base={pick(rng, [2.0, 3, 0.5])!r}")
        args = ", ".join(["a", stop, str(num)] + options)
        code = f"r = np.{name}({args})"
        if name in ("logspace", "geomspace"):
            bound = _spaced_bound(4 if name == "logspace" else 12, code)
    elif name == "vander":
        inputs = {"a": device_input(rng, da, (int(pick(rng, [0, 1, 3, 5])),) if rng.random() < 0.95 else shape, style)}
        options = []
        if rng.random() < 0.4:
            options.append(f"N={int(pick(rng, [0, 1, 2, 4, 7]))}")
        if rng.random() < 0.4:
            options.append("increasing=True")
        code = f"r = np.vander({', '.join(['a'] + options)})"

        def bound(ref, ns):
            # real columns exact; numpy's complex multiply may fuse its parts' products
            if ref.dtype.kind != "c":
                return None
            if not _finite(ns["a"]):
                return np.full(ref.shape, INF)
            with np.errstate(all="ignore"):
                m = bounds.magnitude(ns["a"])[:, None]
                k = ref.shape[1]
                powers = np.arange(k) if "increasing" in code else np.arange(k)[::-1]
                e = 4 * bounds.eps(ref.dtype) * powers * m ** powers + 4 * bounds.tiny(ref.dtype) * powers
                return bounds.near_top(ref, ref.dtype, np.where(np.isfinite(e), e, INF))
    elif name == "unwrap":
        shape = _random_shape_nd(rng, 1)
        inputs = {"a": device_input(rng, da, shape, style)}
        options = []
        axis = None
        if rng.random() < 0.4:
            axis = _random_axis(rng, len(shape), False)
            options.append(f"axis={axis}")
        if rng.random() < 0.3:
            options.append(f"discont={pick(rng, [0.5, 1, 4.0])!r}")
        if rng.random() < 0.3:
            options.append(f"period={pick(rng, [1.5, 4, 7, 360.0, np.float32(2.5)])!r}")
        code = f"r = np.unwrap({', '.join(['a'] + options)})"

        def bound(ref, ns):
            # the same differences, remainders and corrections; their running sum in another order
            if ref.dtype.kind not in "fc":
                return None
            a = np.asarray(ns["a"])
            if not _finite(a):
                return np.full(ref.shape, INF)
            with np.errstate(all="ignore"):
                ax = -1 if axis is None else axis
                n = a.shape[ax] if a.ndim else 1
                total = np.sum(bounds.magnitude(ref)) + np.sum(bounds.magnitude(a))
                e = (n + 4) * bounds.eps(ref.dtype) * total + 4 * bounds.tiny(ref.dtype)
                return bounds.near_top(ref, ref.dtype, np.broadcast_to(e if np.isfinite(e) else INF, ref.shape))
    else:
        inputs["b"] = device_input(rng, da if rng.random() < 0.6 else random_dtype(rng),
                                   shape if rng.random() < 0.8 else tuple(reversed(shape)), style)
        if rng.random() < 0.05:
            inputs["b"] = device_input(rng, da, shape + (2,), style)  # another size: numpy's ValueError
        code = "r = np.vdot(a, b)"
        size = int(np.prod(shape)) if shape else 1
        bound = _sum_of_products_bound(lambda x, y: np.vdot(x, y) if x.size == y.size else 0.0, ("a", "b"), size)
    return _program("function " + name, code, inputs, bound, sign=False)


# ---- polynomials -------------------------------------------------------------------------------------------

def _poly_bound(ref, ns):
    """The coefficient recurrence (test_numpy_polynomial.py's poly_bound)."""
    if ref.dtype.kind not in "fc":
        return None
    roots = np.asarray(ns["a"]).reshape(-1)
    if not _finite(roots):
        return np.full(ref.shape, INF)
    with np.errstate(all="ignore"):
        e = bounds.eps(ref.dtype)
        a, err = np.ones(1), np.zeros(1)
        for z in bounds.magnitude(roots):
            shifted, shifted_err = np.concatenate([[0.0], a]), np.concatenate([[0.0], err])
            a_ext, err_ext = np.concatenate([a, [0.0]]), np.concatenate([err, [0.0]])
            err = err_ext + z * shifted_err + 4 * e * (shifted * z + a_ext)
            a = a_ext + z * shifted
        err = 2 * err + 4 * bounds.tiny(ref.dtype)
        if err.shape != ref.shape or (a.size and a.max() * max(1.0, bounds.magnitude(roots).max(initial=0))
                                      >= bounds.largest(ref.dtype) / 16):
            # (products that overflow: a complex one's parts inf or NaN by the order of its terms)
            return np.full(ref.shape, INF)
        return bounds.near_top(ref, ref.dtype, np.where(np.isfinite(err), err, INF))


def gen_polynomial(rng):
    name = pick(rng, ["polyadd", "polysub", "polymul", "polyder", "polyint", "poly"], [1, 1, 1.5, 1, 1.5, 1.5])
    da = random_dtype(rng)
    style = pick(rng, ["small", "small", "edge", "wide"])
    n = int(pick(rng, [0, 1, 2, 3, 5]))
    shape = (n,) if rng.random() < 0.92 else random_shape(rng)
    inputs = {"a": device_input(rng, da, shape, style)}
    bound, refused = None, False
    if name in ("polyadd", "polysub", "polymul"):
        db = da if rng.random() < 0.6 else random_dtype(rng)
        inputs["b"] = device_input(rng, db, (int(pick(rng, [0, 1, 2, 4])),), style)
        if name == "polymul" and rng.random() < 0.5 and inputs["a"].base.ndim == 1 and n > 1:
            inputs["a"].base[:1] = 0  # a leading zero: numpy's poly1d trims it
        code = f"r = np.{name}(a, b)" if rng.random() < 0.8 else f"r = np.{name}(b, a)"
        if name == "polymul":
            bound = _sum_of_products_bound(lambda x, y: np.polymul(x, y), ("a", "b"), max(n, 4))
    elif name == "polyder":
        m = int(pick(rng, [0, 1, 2, 4, -1], [1, 3, 2, 1, 0.2]))
        code = f"r = np.polyder(a, {m})" if rng.random() < 0.5 else f"r = np.polyder(a, m={m})"
    elif name == "polyint":
        m = int(pick(rng, [0, 1, 2, 3, -1], [1, 3, 2, 1, 0.2]))
        options = [f"m={m}"]
        if rng.random() < 0.4:
            options.append(f"k={pick(rng, [1, 2.5, [1, 2, 3], [0.5], -4])!r}")
        code = f"r = np.polyint({', '.join(['a'] + options)})"
    else:
        if rng.random() < 0.06:
            k = int(pick(rng, [2, 3]))
            inputs = {"a": device_input(rng, da, (k, k), style)}  # (eigenvalues: documented as left out)
        code = "r = np.poly(a)"
        shape = inputs["a"].numpy().shape
        refused = len(shape) == 2 and shape[0] == shape[1] != 0
        bound = _poly_bound
    return _program("function " + name, code, inputs, bound, refused=refused, sign=False)


def gen_bits(rng):
    name = pick(rng, ["packbits", "unpackbits"])
    da = random_dtype(rng, "biu") if name == "packbits" else (np.dtype(np.uint8) if rng.random() < 0.93
                                                                else random_dtype(rng))
    shape = random_shape(rng)
    inputs = {"a": device_input(rng, da, shape)}
    options = []
    if rng.random() < 0.6:
        options.append(f"axis={_random_axis(rng, len(shape))}")
    if rng.random() < 0.3:
        options.append(f"bitorder={pick(rng, ['little', 'big', 'little', 'x', 'b', 'lsb'])!r}")
    if name == "unpackbits" and rng.random() < 0.4 and 0 not in shape:
        # (numpy 2.4's unpackbits of an empty array with a count past its end leaves those elements
        # uninitialized; kjarni's are 0: not drawn)
        options.append(f"count={int(pick(rng, [0, 3, 8, 20, -1, -9, -100]))}")
    code = f"r = np.{name}({', '.join(['a'] + options)})"
    return _program("function " + name, code, inputs, None)


# ---- linalg and the lifted options --------------------------------------------------------------------------

def _norm_bound(ord_value):
    """test_numpy_polynomial.py's norm_bound: n-term sums of |x|^p, pow's and hypot's ulps, the
    root's 1 / p scaling; inf where the input holds a non-finite value."""
    def bound(ref, ns):
        if ref.dtype.kind != "f" or ord_value == 0:
            return None
        a = np.asarray(ns["a"])
        if not _finite(a):
            return np.full(ref.shape, INF)
        e = bounds.eps(ref.dtype)
        p = 2.0 if ord_value in (None, "fro") else 1.0 if ord_value in (np.inf, -np.inf) else abs(float(ord_value))
        relative = ((max(a.size, 1) + 4) * e + 32 * e) * max(1.0, 1 / p) + 32 * e
        with np.errstate(all="ignore"):
            out = relative * bounds.magnitude(ref) + 4 * bounds.tiny(ref.dtype)
            if p != 2.0 and p != 1.0:
                # |x|^p's partial sums may leave the range in one order only
                top = np.sum(bounds.magnitude(a).astype(np.float64) ** p) if a.size else 0.0
                if not (np.isfinite(top) and top < bounds.largest(ref.dtype) / 4):
                    out = np.full(ref.shape, INF)
            return bounds.near_top(ref, ref.dtype, np.broadcast_to(out, ref.shape))
    return bound


def gen_linalg_more(rng):
    name = pick(rng, ["norm", "vector_norm", "matrix_norm", "linalg.matmul", "linalg.outer", "linalg.tensordot",
                      "linalg.trace", "linalg.diagonal", "linalg.cross", "linalg.matrix_transpose", "multi_dot",
                      "matrix_power", "inner", "diff", "outer_out"],
                [3, 1.5, 1, 1, 0.5, 0.5, 0.7, 0.5, 0.7, 0.3, 1.5, 1.5, 1, 1.5, 0.7])
    da = random_dtype(rng)
    style = "small" if rng.random() < 0.7 else pick(rng, ["edge", "wide"])
    refused = False
    bound = None
    if name in ("norm", "vector_norm", "matrix_norm"):
        shape = _random_shape_nd(rng, 2 if name == "matrix_norm" else 0)
        inputs = {"a": device_input(rng, da, shape, style)}
        nd = len(shape)
        options = []
        ord_value = None if name != "matrix_norm" else "fro"
        if name == "vector_norm":
            ord_value = 2
        if rng.random() < 0.7:
            choices = [0, 1, -1, 2, 3, 0.5, -2.5, np.inf, -np.inf, "fro", "nuc", -2]
            ord_value = pick(rng, choices)
            text = {np.inf: "np.inf", -np.inf: "-np.inf"}.get(ord_value, repr(ord_value))
            options.append(f"ord={text}")
        if name == "norm" and nd and rng.random() < 0.6:
            axis = _random_axis(rng, nd, False) if rng.random() < 0.6 or nd < 2 else \
                tuple(int(a) for a in rng.choice(nd, 2, replace=False))
            options.append(f"axis={axis!r}")
        elif name == "vector_norm" and nd and rng.random() < 0.5:
            axis = tuple(sorted({int(rng.integers(-nd, nd)) for _ in range(2)})) if rng.random() < 0.5 else \
                _random_axis(rng, nd, False)
            options.append(f"axis={axis!r}")
        if rng.random() < 0.3:
            options.append("keepdims=True")
        code = f"r = np.linalg.{name}({', '.join(['a'] + options)})"
        two_axes = name == "matrix_norm" or (name == "norm" and ("axis=(" in code or (nd == 2 and "axis" not in code)))
        refused = two_axes and ord_value in (2, -2, "nuc")
        bound = _norm_bound(ord_value)
    elif name == "linalg.matmul":
        n = int(pick(rng, [0, 1, 2, 3, 5]))
        sa = random_shape(rng, 1) + (int(pick(rng, [1, 2, 4])), n) if rng.random() < 0.8 else (n,)
        sb = (n, int(pick(rng, [1, 3]))) if rng.random() < 0.8 else (n,)
        inputs = {"a": device_input(rng, da, sa, style), "b": device_input(rng, random_dtype(rng) if rng.random() < 0.3
                                                                           else da, sb, style)}
        code = "r = np.linalg.matmul(a, b)"
        bound = _sum_of_products_bound(lambda x, y: np.matmul(x, y), ("a", "b"), max(n, 1))
    elif name in ("linalg.outer", "linalg.cross", "linalg.tensordot"):
        if name == "linalg.outer":
            sa, sb = (int(pick(rng, [0, 1, 3])),), (int(pick(rng, [1, 4])),)
            if rng.random() < 0.05:
                sa = (2, 2)
        elif name == "linalg.cross":
            batch = random_shape(rng, 1)
            sa, sb = batch + (3,), (3,) if rng.random() < 0.5 else batch + (int(pick(rng, [3, 3, 3, 2])),)
        else:
            sa, sb = random_shape(rng, 1) + (3,), (3,) + random_shape(rng, 1)
        inputs = {"a": device_input(rng, da, sa, style), "b": device_input(rng, da, sb, style)}
        options = ", axes=1" if name == "linalg.tensordot" else ""
        code = f"r = np.{name}(a, b{options})"
        # (cross: each component two products, within 2 max|a| max|b|)
        fn = {"linalg.outer": np.outer, "linalg.cross": lambda x, y: np.asarray(2 * np.max(x, initial=0) * np.max(
            y, initial=0)), "linalg.tensordot": lambda x, y: np.tensordot(x, y, 1)}[name]
        bound = _sum_of_products_bound(fn, ("a", "b"), 3)
    elif name in ("linalg.trace", "linalg.diagonal", "linalg.matrix_transpose"):
        shape = _random_shape_nd(rng, 2)
        inputs = {"a": device_input(rng, da, shape, style)}
        offset = int(pick(rng, [0, 0, 1, -1, 5]))
        code = {"linalg.trace": f"r = np.linalg.trace(a, offset={offset})",
                "linalg.diagonal": f"r = np.linalg.diagonal(a, offset={offset})",
                "linalg.matrix_transpose": "r = np.linalg.matrix_transpose(a)"}[name]
        if name == "linalg.trace":
            bound = _sum_of_products_bound(lambda x: np.linalg.trace(x, offset=offset), ("a",),
                                           min(shape[-2:]) if len(shape) >= 2 else 1)
    elif name == "multi_dot":
        k = int(pick(rng, [2, 3, 4, 5]))
        dims = [int(pick(rng, [1, 2, 3, 5])) for _ in range(k + 1)]
        inputs = {}
        names = []
        for i in range(k):
            shape = (dims[i], dims[i + 1])
            if (i == 0 or i == k - 1) and rng.random() < 0.3:
                shape = (dims[1],) if i == 0 else (dims[k - 1],)
            inputs[f"m{i}"] = device_input(rng, da, shape, style)
            names.append(f"m{i}")
        code = f"r = np.linalg.multi_dot([{', '.join(names)}])"
        terms = int(np.prod(dims[1:-1])) if k > 1 else 1
        bound = _sum_of_products_bound(lambda *xs: np.linalg.multi_dot(list(xs)), tuple(names), terms)
    elif name == "matrix_power":
        m = int(pick(rng, [0, 1, 2, 3]))
        shape = random_shape(rng, 1) + (m, m) if rng.random() < 0.95 else (m, m + 1)
        inputs = {"a": device_input(rng, da, shape, "small")}
        n = int(pick(rng, [0, 1, 2, 3, 4, 5, 8, -1], [1, 1, 1, 1, 1, 1, 0.5, 0.3]))
        refused = n < 0
        code = f"r = np.linalg.matrix_power(a, {n})"
        bound = _sum_of_products_bound(lambda x: np.linalg.matrix_power(x, max(n, 0)), ("a",), m * max(n, 1))
    elif name == "inner":
        shape = random_shape(rng, 2)
        inputs = {"a": device_input(rng, da, shape, style),
                  "b": device_input(rng, random_dtype(rng) if rng.random() < 0.3 else da,
                                    random_shape(rng, 1) + shape[-1:] if rng.random() < 0.9 else random_shape(rng),
                                    style)}
        code = "r = np.inner(a, b)"
        bound = _sum_of_products_bound(np.inner, ("a", "b"), shape[-1] if shape else 1)
    elif name == "diff":
        shape = _random_shape_nd(rng, 1)
        inputs = {"a": device_input(rng, da, shape, style)}
        axis = _random_axis(rng, len(shape), False)
        options = [f"axis={axis}"]
        if rng.random() < 0.3:
            options.append(f"n={int(pick(rng, [0, 2, 3]))}")
        for key in ("prepend", "append"):
            r = rng.random()
            if r < 0.35:
                inputs["s" if key == "prepend" else "t"] = Host(pick(rng, [0, 1.5, -2, True, np.float32(2.5)]))
                options.append(f"{key}={'s' if key == 'prepend' else 't'}")
            elif r < 0.7:
                other = list(shape)
                if -len(shape) <= axis < len(shape):
                    other[axis] = int(pick(rng, [0, 1, 2]))
                inputs["b" if key == "prepend" else "c"] = device_input(
                    rng, da if rng.random() < 0.6 else random_dtype(rng), tuple(other), style)
                options.append(f"{key}={'b' if key == 'prepend' else 'c'}")
        code = f"r = np.diff({', '.join(['a'] + options)})"  # (the same subtractions: exact)
    else:
        sa, sb = random_shape(rng, 2), random_shape(rng, 1)
        inputs = {"a": device_input(rng, da, sa, style), "b": device_input(rng, da, sb, style)}
        result = _try(lambda: np.outer(inputs["a"].numpy(), inputs["b"].numpy()))
        if result is not None:
            odt = result.dtype if rng.random() < 0.8 else random_dtype(rng)
            inputs["o"] = Device(np.zeros(result.shape, odt))
            code = "r0 = np.outer(a, b, out=o)\nr = (r0, r0 is o)"
        else:
            code = "r = np.outer(a, b)"
        bound = _relative(4, ("a", "b"))
    return _program("function " + name, code, inputs, bound, refused=refused, sign=False)


GENERATORS = [
    (gen_small_math, 2), (gen_sequences, 1.5), (gen_polynomial, 1.5), (gen_bits, 0.7), (gen_linalg_more, 2),
]

if os.environ.get("KJARNI_PY_FUZZ_ONLY") == "polynomial":
    # Only these generators drawn (to fuzz them alone): the others' weights, in the lists programs.py
    # has read or is reading (it imports this module last), made 0.
    from . import functions, functions_composed, functions_indexing, functions_sets, programs
    for _module in (programs, functions, functions_composed, functions_indexing, functions_sets):
        _module.GENERATORS[:] = [(g, 0.0) for g, _ in _module.GENERATORS]
