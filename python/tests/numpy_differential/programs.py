"""The random programs: one operation of kjarni's Python API written as numpy code, run once with
numpy arrays and once with kjarni arrays in their place.

A program is Python source that assigns `r`; its names are inputs: device arrays (`a`, `b`,
`c`, `o`: a numpy array on numpy's side, `kjarni.Array.from_host` of the same values, through the
same view, on kjarni's), and host objects given to both sides as they are (`s`, `t`: Python
scalars, numpy scalars, 0-d numpy arrays; `k`: index keys, numpy index arrays). `bound(ref, ns)`
says how far a floating-point element may differ (None: exactly equal)."""

import math

import numpy as np

from . import bounds
from .bounds import INF
from .values import (DTYPES, INEXACT, INTEGERS, LAYOUTS, apply_view, broadcast_partner, edge_values, layout_view,
                     pick, random_dtype, random_shape, random_values, view_text)


class Device:
    """An array on the device for kjarni, its numpy twin for numpy: the same values and view."""

    def __init__(self, base, view=None):
        self.base = base
        self.view = view

    def numpy(self):
        return apply_view(self.base.copy(), self.view)

    def kjarni(self, queue):
        import kjarni
        return apply_view(kjarni.Array.from_host(queue, self.base), self.view)

    def source(self, name):
        b = self.base
        data = f"np.frombuffer(bytes.fromhex('{b.tobytes().hex()}'), np.{b.dtype.name}).reshape({b.shape})"
        return (f"{name}_host = {data}  # {np.array2string(b.ravel()[:16], separator=',', threshold=16)}\n"
                f"{name} = {name}_host{view_text(self.view)}.copy()  # kjarni: kjarni.Array.from_host(queue, "
                f"{name}_host){view_text(self.view)}")


class Host:
    """The same object on both sides."""

    def __init__(self, value):
        self.value = value

    def numpy(self):
        return _copy(self.value)

    def kjarni(self, queue):
        return _copy(self.value)

    def source(self, name):
        return f"{name} = {scalar_source(self.value)}"


def _copy(v):
    return v.copy() if isinstance(v, np.ndarray) else v


def scalar_source(v):
    if isinstance(v, np.ndarray):
        return (f"np.frombuffer(bytes.fromhex('{v.tobytes().hex()}'), np.{v.dtype.name}).reshape({v.shape})"
                f"  # {np.array2string(v.ravel()[:16], separator=',')}")
    if isinstance(v, np.generic):
        return f"np.{type(v).__name__}({_py_source(v.item())})"
    if isinstance(v, (list, tuple)):
        inner = ", ".join(scalar_source(x) for x in v)
        return f"[{inner}]" if isinstance(v, list) else f"({inner}{',' if len(v) == 1 else ''})"
    if isinstance(v, slice):
        return f"slice({v.start!r}, {v.stop!r}, {v.step!r})"
    if v is Ellipsis:
        return "Ellipsis"
    return _py_source(v)


def _py_source(v):
    if isinstance(v, float):
        if math.isnan(v):
            return "float('nan')"
        if math.isinf(v):
            return "float('inf')" if v > 0 else "float('-inf')"
        return repr(v)
    if isinstance(v, complex):
        return f"complex({_py_source(v.real)}, {_py_source(v.imag)})"
    return repr(v)


class Program:
    def __init__(self, name, code, inputs, bound=None, sign=True, known=None, result_dtype_only=False,
                 integer_rounding=None):
        self.name = name
        self.code = code
        self.inputs = inputs
        self.bound = bound          # (ref, numpy namespace) -> per-element bound, None: exact
        self.sign = sign            # whether zeros' signs must agree
        self.known = known          # (numpy outcome, kjarni outcome) -> a docs entry's name, or None
        self.result_dtype_only = result_dtype_only
        # Integer results that are a float result converted (a float reduction into an integer
        # out=): they may differ by this relative amount plus one, the float's rounding (in
        # wrapping arithmetic); None: exact.
        self.integer_rounding = integer_rounding

    def source(self):
        lines = ["import numpy as np, kjarni",
                 "context = kjarni.Context.from_devices([kjarni.any_api.platforms[0].devices[0]])",
                 "queue = kjarni.Queue(context.device)"]
        lines += [v.source(name) for name, v in self.inputs.items()]
        lines.append(self.code)
        return "\n".join(lines)


# ---- inputs ------------------------------------------------------------------------------------

def device_input(rng, dtype, shape, style=None):
    layout = pick(rng, LAYOUTS, [0.6, 0.1, 0.1, 0.1, 0.1])
    base_shape, view = layout_view(layout, shape)
    return Device(random_values(rng, dtype, base_shape, style), view)


def python_scalar(rng, kind=None):
    kind = kind or pick(rng, ["bool", "int", "float", "complex"], [0.1, 0.45, 0.35, 0.1])
    if kind == "bool":
        return bool(rng.random() < 0.5)
    if kind == "int":
        if rng.random() < 0.7:
            return int(rng.integers(-5, 6))
        return int(pick(rng, [127, 128, 255, 256, -129, 300, -1, 2**15, 65535, 2**31 - 1, 2**31, 2**32, -2**31 - 1,
                              2**53 + 1, 2**63 - 1, -2**63, 2**63, 2**64 - 1, 2**64, -2**63 - 1]))
    if kind == "float":
        if rng.random() < 0.6:
            return float(pick(rng, [0.5, 1.5, -2.0, 3.0, 0.1, -0.25, 2.0, 1.0]))
        return float(pick(rng, [0.0, -0.0, math.nan, math.inf, -math.inf, 1e300, -1e300, 1e-300, 5e-324, 65504.0,
                                65520.0, 3.4e38, 1e38, 1e-40, 2.0**53, 0.1]))
    re = python_scalar(rng, "float")
    im = python_scalar(rng, "float") if rng.random() < 0.5 else float(rng.integers(-3, 4))
    return complex(re, im)


def numpy_scalar(rng, dtype=None, zero_d=False):
    dtype = dtype or random_dtype(rng)
    v = random_values(rng, dtype, (), "edge" if rng.random() < 0.4 else "small")
    return v if zero_d else v[()]


def scalar_operand(rng, array_dtype=None):
    """A scalar operand: weak (a Python number) most often, strong (a numpy scalar or 0-d array) too."""
    r = rng.random()
    if r < 0.6:
        return python_scalar(rng)
    if r < 0.9:
        return numpy_scalar(rng)
    return numpy_scalar(rng, zero_d=True)


# ---- bounds ------------------------------------------------------------------------------------

def _broadcast(ns, *names):
    vals = [np.asarray(ns[n]) for n in names]
    try:
        return np.broadcast_arrays(*vals)
    except ValueError:
        return vals


def elementwise_bound(key, names=None, op=None):
    def bound(ref, ns):
        if ref.dtype.kind not in "fc":
            return None
        factor, scale, phase_lost = 1.0, None, None
        if names and ref.dtype.kind == "c" and op in ("*", "/", "**"):
            x, y = (bounds.magnitude(v) for v in _broadcast(ns, *names))
            with np.errstate(all="ignore"):
                if op == "*":
                    scale, factor = x * y, 4.0
                elif op == "/":
                    scale, factor = x / y, 4.0
                else:
                    # a ** b through exp(b log a): the result's relative error grows with |b| and |log a|.
                    la = np.abs(np.log(np.where(x > 0, x, 1.0))) + math.pi
                    scale, factor = bounds.magnitude(ref) * (y + la + 2), 2.0
                    # The phase, Im(b log a), is known to within about eps |b| (|log |a|| + pi): past
                    # half a radian the parts' signs (a zero's included, where the magnitude
                    # underflows) are anybody's (numpy's ** of a complex64 by -2**31 - 1 gave 0 - 0j,
                    # kjarni -0 - 0j).
                    phase_lost = np.broadcast_to(y * la * bounds.eps(ref.dtype) > 0.5, ref.shape)
            scale = np.broadcast_to(scale, ref.shape)
        elif names and op == "%":
            # The remainder's rounding is relative to the divisor.
            scale = np.broadcast_to(bounds.magnitude(_broadcast(ns, *names)[1]), ref.shape)
            scale = np.maximum(scale, bounds.magnitude(ref))
        elif ref.dtype.kind == "c" and key in ("exp", "log", "sin", "cos", "tanh", "sqrt"):
            # A complex function's parts are computed from real functions of both parts: a rounding
            # of each, relative to the larger part (and, for exp, sin, cos and tanh, the argument's
            # parts scale the rounding of the imaginary part's argument reduction).
            z = bounds.magnitude(ns[names[0]]) if names else 0.0
            scale = np.broadcast_to(bounds.magnitude(ref) * (1.0 + np.minimum(z, 1e3)), ref.shape)
            factor = 4.0
        result = bounds.rounding(ref, ref.dtype, key, scale=scale, factor=factor)
        return result if phase_lost is None else np.where(phase_lost, INF, result)
    return bound


def exact(ref, ns):
    return None


# ---- operations --------------------------------------------------------------------------------

ARITHMETIC = ["+", "-", "*", "/", "%", "**"]
COMPARISONS = ["<", "<=", ">", ">=", "==", "!="]
UFUNC_NAMES = {"+": "add", "-": "subtract", "*": "multiply", "/": "divide", "%": "remainder", "**": "power",
               "<": "less", "<=": "less_equal", ">": "greater", ">=": "greater_equal", "==": "equal",
               "!=": "not_equal"}
BOUND_KEYS = {"+": "basic", "-": "basic", "*": "basic", "/": "divide", "%": "basic", "**": "power"}


def known_binary(np_outcome, kj_outcome, program):
    """Documented differences of arithmetic (docs/numpy-differences.md)."""
    np_ok, np_value = np_outcome
    kj_ok, kj_value = kj_outcome
    # `int-negative-power`: numpy raises ValueError for an integer to a negative integer power, kjarni
    # computes 1 / x^-e truncated (a kernel cannot raise).
    if not np_ok and kj_ok and "negative integer powers" in str(np_value):
        return "int-negative-power"
    # `weak-int-result-out-of-range`: a Python int beyond int64 that numpy takes (into uint64, or
    # compared as a Python int); kjarni refuses it with ArgumentError naming the value (no wrong value).
    big = [v.value for v in program.inputs.values()
           if isinstance(v, Host) and type(v.value) is int and not -2**63 <= v.value < 2**63]
    if big and np_ok and not kj_ok:
        return "weak-int-result-out-of-range"
    return None


def gen_binary(rng):
    op = pick(rng, ARITHMETIC + COMPARISONS, [3, 3, 3, 2, 2, 2, 1, 1, 1, 1, 1.5, 1.5])
    da = random_dtype(rng)
    shape = random_shape(rng)
    inputs = {"a": device_input(rng, da, shape)}
    form = pick(rng, ["aa", "as", "sa", "ufunc", "ufunc_scalar_first", "chain"], [3, 4, 3, 1, 1.5, 1])
    if form in ("aa", "ufunc", "chain"):
        db = da if rng.random() < 0.4 else random_dtype(rng)
        inputs["b"] = device_input(rng, db, broadcast_partner(rng, shape))
        code = {"aa": f"r = a {op} b", "ufunc": f"r = np.{UFUNC_NAMES[op]}(a, b)",
                "chain": f"r = (a {op} b) {pick(rng, ['+', '*', '-'])} a"}[form]
        names = ("a", "b")
    else:
        inputs["s"] = Host(scalar_operand(rng))
        if form == "as":
            code, names = f"r = a {op} s", ("a", "s")
        elif form == "sa":
            code, names = f"r = s {op} a", ("s", "a")
        else:
            inputs["s"] = Host(numpy_scalar(rng))
            code, names = f"r = np.{UFUNC_NAMES[op]}(s, a)", ("s", "a")
    if op in COMPARISONS:
        bound = exact
    else:
        bound = elementwise_bound(BOUND_KEYS[op], names, op)
    if form == "chain":
        # Two roundings, the first carried through the second operation: bounded loosely by the
        # magnitudes of the operands (a few ulps of them).
        bound = _chain_bound(op) if op not in COMPARISONS else exact
    # % and ** of complex numbers: numpy has no complex remainder (TypeError); kjarni must refuse too.
    return Program("binary " + form + " " + op, code, inputs, bound, known=known_binary)


def _chain_bound(op):
    def bound(ref, ns):
        if ref.dtype.kind not in "fc":
            return None
        if op in ("/", "%", "**"):
            return np.full(ref.shape, INF)  # the first result's rounding, carried through a division or power, unbounded here
        a, b = _broadcast(ns, "a", "b")
        with np.errstate(all="ignore"):
            first = bounds.magnitude(a) * bounds.magnitude(b) if op == "*" else bounds.magnitude(a) + bounds.magnitude(b)
            scale = np.broadcast_to(first * np.maximum(bounds.magnitude(a), 1.0) + bounds.magnitude(ref), ref.shape)
        return bounds.rounding(ref, ref.dtype, "basic", scale=scale, factor=8.0)
    return bound


UNARY = [("-a", "basic"), ("abs(a)", "hypot"), ("+a", "basic"), ("np.negative(a)", "basic"),
         ("np.positive(a)", "basic"), ("np.absolute(a)", "hypot"), ("np.sqrt(a)", "sqrt"), ("np.exp(a)", "exp"),
         ("np.log(a)", "log"), ("np.sin(a)", "sin"), ("np.cos(a)", "cos"), ("np.tanh(a)", "tanh"),
         ("np.abs(a)", "hypot")]


def gen_unary(rng):
    code, key = pick(rng, UNARY)
    inputs = {"a": device_input(rng, random_dtype(rng), random_shape(rng))}
    base = elementwise_bound(key, ("a",))

    def bound(ref, ns):
        if ref.dtype.kind not in "fc":
            return None
        if key == "hypot" and np.asarray(ns["a"]).dtype.kind != "c":
            return None  # |x| of a real: exact
        if key == "basic":
            return None  # negation: exact
        return base(ref, ns)
    return Program("unary " + code, f"r = {code}", inputs, bound)


def gen_select(rng):
    """minimum, maximum, where, clip: selections (exact, zeros' signs as numpy picks them:
    docs/numpy-differences.md, "How results are compared")."""
    da = random_dtype(rng, "biuf" if rng.random() < 0.85 else None)
    shape = random_shape(rng)
    inputs = {"a": device_input(rng, da, shape)}
    form = pick(rng, ["minimum", "maximum", "minimum_s", "maximum_s", "where", "where_s", "clip", "clip_method",
                      "clip_min", "clip_max"])
    other = lambda: device_input(rng, da if rng.random() < 0.5 else random_dtype(rng, "biuf"),
                                 broadcast_partner(rng, shape))
    if form in ("minimum", "maximum"):
        inputs["b"] = other()
        code = f"r = np.{form}(a, b)"
    elif form in ("minimum_s", "maximum_s"):
        inputs["s"] = Host(scalar_operand(rng))
        code = f"r = np.{form[:-2]}(a, s)" if rng.random() < 0.7 else f"r = np.{form[:-2]}(s, a)"
    elif form == "where":
        inputs["c"] = device_input(rng, np.dtype(bool), broadcast_partner(rng, shape))
        inputs["b"] = other()
        code = "r = np.where(c, a, b)"
    elif form == "where_s":
        inputs["s"] = Host(scalar_operand(rng))
        inputs["t"] = Host(scalar_operand(rng))
        code = pick(rng, ["r = np.where(a > s, a, t)", "r = np.where(a != s, t, a)", "r = np.where(a == a, s, t)"])
    elif form == "clip":
        inputs["s"] = Host(scalar_operand(rng))
        inputs["t"] = Host(scalar_operand(rng))
        code = "r = np.clip(a, s, t)"
    elif form == "clip_method":
        inputs["s"] = Host(scalar_operand(rng))
        inputs["t"] = Host(scalar_operand(rng))
        code = "r = a.clip(s, t)"
    else:
        inputs["s"] = Host(scalar_operand(rng))
        code = f"r = a.clip({form[5:]}=s)"
    return Program("select " + form, code, inputs, exact, known=_known_where)


def _known_where(np_outcome, kj_outcome, program):
    # `where-weak-int-numpy-2.4`: numpy < 2.5 wraps a Python int the integer result cannot hold
    # into the dtype; kjarni raises ArgumentError, as numpy 2.5 does.
    np_ok, _ = np_outcome
    kj_ok, kj_value = kj_outcome
    weak_ints = [v.value for v in program.inputs.values() if isinstance(v, Host) and type(v.value) is int]
    if "where" in program.code and np_ok and not kj_ok and weak_ints and np.lib.NumpyVersion(np.__version__) < "2.5.0":
        return "where-weak-int-numpy-2.4"
    return known_binary(np_outcome, kj_outcome, program)


# ---- reductions ----------------------------------------------------------------------------------

REDUCTIONS = ["sum", "prod", "mean", "min", "max", "argmin", "argmax", "any", "all"]


def random_axis(rng, ndim):
    r = rng.random()
    if r < 0.3 or ndim == 0:
        return None if rng.random() < 0.8 or ndim > 0 else pick(rng, [0, -1, ()])
    if r < 0.65:
        ax = int(rng.integers(-ndim, ndim))
        return ax if rng.random() > 0.03 else ndim  # rarely out of range: numpy's AxisError
    axes = [i for i in range(ndim) if rng.random() < 0.5]
    axes = [a - ndim if rng.random() < 0.3 else a for a in axes]
    if axes and rng.random() < 0.03:
        axes.append(axes[0])  # a repeated axis: numpy's ValueError
    return tuple(axes)


def dtype_argument(rng, dtype):
    form = pick(rng, ["str", "type", "dtype"])
    if form == "str":
        return repr(dtype.name)
    if form == "type":
        return f"np.{dtype.name}"
    return f"np.dtype({dtype.name!r})"


def _reduced(ns, axis, keepdims):
    a = np.asarray(ns["a"])
    return a, axis


def reduction_bound(name, axis, keepdims, acc_dtype=None):
    """Bounds of sum, prod and mean (the others are exact)."""
    def bound(ref, ns):
        if ref.dtype.kind not in "fc" or name not in ("sum", "prod", "mean"):
            return None
        a = np.asarray(ns["a"])
        wide = np.complex128 if (a.dtype.kind == "c" or ref.dtype.kind == "c") else np.float64
        with np.errstate(all="ignore"):
            x = a.astype(wide) if a.dtype.kind != "c" or wide == np.complex128 else a
            n = a.size if axis is None else int(np.prod([a.shape[i] for i in _axes(axis, a.ndim)], dtype=np.int64))
            ax = None if axis is None else tuple(_axes(axis, a.ndim))
            acc = np.dtype(acc_dtype) if acc_dtype is not None else ref.dtype
            if acc.kind not in "fc":
                # Accumulated in integers (exact, wrapping on both sides), then converted once.
                return bounds.rounding(ref, ref.dtype, "basic")
            if name in ("sum", "mean"):
                absum = np.sum(np.abs(x), axis=ax, keepdims=keepdims)
                if name == "mean":
                    absum = absum / max(n, 1)
                ulps = bounds.summation_ulps(n) + 1.0
                e = ulps * bounds.eps(acc) * absum + 2 * bounds.tiny(acc)
                # Rounded once more into the result's dtype on either side.
                e = e + bounds.eps(ref.dtype) * np.abs(np.asarray(ref, dtype=wide))
                if bounds.real_dtype(acc) == np.float16 or bounds.real_dtype(ref.dtype) == np.float16:
                    # `float16-sum-partials` (docs/numpy-differences.md): numpy may add float16 in
                    # float16, row by row, each partial rounded (n roundings of the partial sums);
                    # where the sum of magnitudes passes float16's largest, numpy's partials may
                    # overflow where kjarni's float32 accumulator does not: not compared.
                    e = e + n * bounds.eps(np.float16) * absum
                    e = np.where(absum * (n if name == "mean" else 1) > 65504.0, INF, e)
                # Partial sums that overflow in one order of addition only.
                e = np.where(absum * (n if name == "mean" else 1) >= bounds.largest(acc) / 2, INF, e)
                if a.dtype.kind in "iub" and name == "mean":
                    # The integers' mean: numpy adds them in float64 (each addition rounded once).
                    e = e + n * bounds.eps(np.float64) * absum
                return bounds.near_top(ref, ref.dtype, np.broadcast_to(e, ref.shape))
            # prod: n - 1 roundings of the running product on each side; where the partial products
            # may leave the range (overflow or underflow in one order only), not compared.
            m = np.abs(x)
            top = np.prod(np.maximum(m, 1.0), axis=ax, keepdims=keepdims)
            bottom = np.prod(np.where(m == 0, 1.0, np.minimum(m, 1.0)), axis=ax, keepdims=keepdims)
            factor = 4.0 if ref.dtype.kind == "c" else 1.0
            e = factor * n * bounds.eps(acc) * np.abs(np.asarray(ref, dtype=wide)) + 2 * bounds.tiny(ref.dtype)
            unsafe = (top >= bounds.largest(acc) / 4) | (bottom <= bounds.tiny(acc) * 2**30)
            if ref.dtype.kind == "c":
                unsafe = unsafe | (top >= 1e10)  # complex products: cancellation in the parts
            return bounds.near_top(ref, ref.dtype, np.broadcast_to(np.where(unsafe, INF, e), ref.shape))
    return bound


def _axes(axis, ndim):
    if axis is None:
        return list(range(ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    return sorted({a % ndim for a in axes}) if ndim else []


def gen_reduction(rng):
    name = pick(rng, REDUCTIONS, [3, 1.5, 2, 1.5, 1.5, 1, 1, 1, 1])
    da = random_dtype(rng)
    shape = random_shape(rng)
    inputs = {"a": device_input(rng, da, shape, "small" if name == "prod" and rng.random() < 0.7 else None)}
    axis = random_axis(rng, len(shape))
    keepdims = bool(rng.random() < 0.3)
    args = []
    if axis is not None or rng.random() < 0.2:
        args.append(f"axis={axis!r}")
    acc = None
    if name in ("sum", "prod", "mean") and rng.random() < 0.3:
        acc = random_dtype(rng)
        args.append(f"dtype={dtype_argument(rng, acc)}")
    if keepdims and name not in ("argmin", "argmax"):
        args.append("keepdims=True")
    elif keepdims:
        args.append("keepdims=True")  # numpy 2 takes keepdims for argmin and argmax too
    out = False
    if rng.random() < 0.15:
        try:
            with np.errstate(all="ignore"):
                kw = {"axis": axis, "keepdims": keepdims}
                if acc is not None:
                    kw["dtype"] = acc
                expected = getattr(np, name)(inputs["a"].numpy(), **kw)
            odt = np.asarray(expected).dtype if rng.random() < 0.6 else random_dtype(rng)
            inputs["o"] = Device(np.zeros(np.shape(expected), odt))
            args.append("out=o")
            out = True
        except Exception:
            pass
    call = f"a.{name}({', '.join(args)})" if rng.random() < 0.5 else f"np.{name}(a{''.join(', ' + x for x in args)})"
    code = f"r = ({call}, o)" if out else f"r = {call}"
    # A float sum, mean or product into an integer out=: numpy computes in the promoted float type
    # and converts; both sides' float roundings (a product's order: 59727995228745128 against 120,
    # one float64 ulp) carry into the integer.
    integer_rounding = None
    if out and name in ("sum", "prod", "mean") and inputs["o"].base.dtype.kind in "iu":
        loop = np.result_type(acc if acc is not None else da, inputs["o"].base.dtype)
        if loop.kind in "fc":
            n = int(np.prod([shape[i] for i in _axes(axis, len(shape))], dtype=np.int64)) if shape else 1
            integer_rounding = (4 * n + 4) * bounds.eps(loop)
    def known(np_outcome, kj_outcome, program):
        # `float-to-int` (docs/numpy-differences.md): floats out of range into uint32 (dtype= of a
        # sum or product, or an out= that takes a float result) have two numpy answers (its SIMD and
        # its scalar loop); kjarni follows one.
        into_uint32 = (acc is not None and np.dtype(acc) == np.uint32) or (out and inputs["o"].base.dtype == np.uint32)
        if into_uint32 and da.kind in "fc" and np_outcome[0] and kj_outcome[0]:
            return "float-to-int"
        return None
    # min and max: numpy's own pick between +0.0 and -0.0 depends on the length and SIMD path
    # (docs/numpy-differences.md, "How results are compared"): zeros' signs not compared.
    return Program("reduce " + name, code, inputs, reduction_bound(name, axis, keepdims, acc),
                   sign=name not in ("min", "max", "sum", "mean", "prod"), known=known,
                   integer_rounding=integer_rounding)


def gen_statistic(rng):
    name = pick(rng, ["std", "var"])
    da = random_dtype(rng, "biuf" if rng.random() < 0.8 else None)
    shape = random_shape(rng)
    inputs = {"a": device_input(rng, da, shape, pick(rng, ["small", "edge"], [0.7, 0.3]))}
    axis = random_axis(rng, len(shape))
    ddof = int(pick(rng, [0, 0, 1, 2]))
    args = []
    if axis is not None:
        args.append(f"axis={axis!r}")
    if ddof:
        args.append(f"ddof={ddof}")
    keepdims = rng.random() < 0.2
    if keepdims:
        args.append("keepdims=True")
    call = f"a.{name}({', '.join(args)})" if rng.random() < 0.5 else f"np.{name}(a{''.join(', ' + x for x in args)})"

    def bound(ref, ns):
        if ref.dtype.kind not in "fc":
            return None
        a = np.asarray(ns["a"])
        with np.errstate(all="ignore"):
            x = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
            ax = None if axis is None else tuple(_axes(axis, a.ndim))
            n = a.size if axis is None else int(np.prod([a.shape[i] for i in _axes(axis, a.ndim)], dtype=np.int64))
            mean = np.mean(x, axis=ax, keepdims=True)
            total = np.sum(np.abs(x) ** 2 + np.abs(mean) ** 2, axis=ax, keepdims=keepdims)
            sq = total / max(n - ddof, 1)
            # The variance's condition: roundings of the sum of squares (relative to sum |x|^2),
            # and of the mean, carried through the deviations. Undecided where the sum of squares
            # nears the largest number (not the variance: numpy adds float16 squares in float16, inf
            # past 65504, np.var of float16 [0, 511] is inf; kjarni adds in float32), as the C++
            # fuzzer's bound (tests/numpy_fuzz/fuzz/statistics.py).
            e_var = (2 * bounds.summation_ulps(n) + 8) * bounds.eps(ref.dtype) * sq + 2 * bounds.tiny(ref.dtype)
            e_var = np.where(np.isfinite(total) & (total < bounds.largest(ref.dtype) / 4), e_var, INF)
            if name == "var":
                return bounds.near_top(ref, ref.dtype, np.broadcast_to(e_var, ref.shape))
            std = np.sqrt(np.abs(np.asarray(ref, np.float64)))
            e = np.where(std > 0, e_var / np.maximum(2 * std, 1e-300), np.sqrt(e_var)) + 4 * bounds.eps(ref.dtype) * std
            e = np.where(np.isinf(e_var), INF, np.minimum(e, np.sqrt(e_var) * 2))
            return bounds.near_top(ref, ref.dtype, np.broadcast_to(e, ref.shape))
    return Program("statistic " + name, f"r = {call}", inputs, bound, sign=False)


def gen_scan(rng):
    name = pick(rng, ["cumsum", "cumprod"], [3, 1])
    da = random_dtype(rng)
    shape = random_shape(rng)
    inputs = {"a": device_input(rng, da, shape, "small" if rng.random() < 0.6 else None)}
    axis = None if rng.random() < 0.4 or not shape else int(rng.integers(-len(shape), len(shape)))
    args = [] if axis is None else [f"axis={axis}"]
    acc = None
    if rng.random() < 0.25:
        acc = random_dtype(rng)
        args.append(f"dtype={dtype_argument(rng, acc)}")
    if name == "cumsum" and rng.random() < 0.5:
        call = f"a.cumsum({', '.join(args)})"
    else:
        call = f"np.{name}(a{''.join(', ' + x for x in args)})"

    def bound(ref, ns):
        if ref.dtype.kind not in "fc":
            return None
        a = np.asarray(ns["a"])
        with np.errstate(all="ignore"):
            x = a.astype(np.complex128 if a.dtype.kind == "c" or ref.dtype.kind == "c" else np.float64)
            if axis is None:
                x = x.ravel()
            ax = 0 if axis is None else axis
            n = x.shape[ax] if x.ndim else 1
            dt = ref.dtype
            if name == "cumsum":
                run = np.cumsum(np.abs(x), axis=ax)
                e = (n + 2) * bounds.eps(dt) * run + 2 * bounds.tiny(dt)
                if bounds.real_dtype(dt) == np.float16:
                    # `float16-running-sum-range` (docs/numpy-differences.md): numpy rounds every
                    # partial to float16, kjarni keeps the running value in float32: past
                    # float16's range the two part.
                    e = np.where(run > 65504.0, INF, e)
                e = np.where(run >= bounds.largest(dt) / 2, INF, e)
            else:
                m = np.abs(x)
                top = np.cumprod(np.maximum(m, 1.0), axis=ax)
                bottom = np.cumprod(np.where(m == 0, 1.0, np.minimum(m, 1.0)), axis=ax)
                e = (4 if dt.kind == "c" else 1) * (n + 2) * bounds.eps(dt) * np.abs(np.asarray(ref, np.complex128)) \
                    + 2 * bounds.tiny(dt)
                e = np.where((top >= bounds.largest(dt) / 4) | (bottom <= bounds.tiny(dt) * 2**30), INF, e)
                if bounds.real_dtype(dt) == np.float16:
                    e = np.where(top > 65504.0 / 4, INF, e)  # `float16-running-sum-range`: products too
            return bounds.near_top(ref, ref.dtype, np.broadcast_to(e, ref.shape))
    def known(np_outcome, kj_outcome, program):
        # `float-to-int` (docs/numpy-differences.md): NaN, infinities and out-of-range floats
        # converted to uint32 (`dtype=` of a cumsum) have two numpy answers; kjarni follows one.
        if acc == np.uint32 and da.kind in "fc" and np_outcome[0] and kj_outcome[0]:
            return "float-to-int"
        return None
    return Program("scan " + name, f"r = {call}", inputs, bound, sign=False, known=known)


# ---- indexing ------------------------------------------------------------------------------------

def random_basic_key(rng, shape):
    items = []
    dims = list(shape)
    used_ellipsis = False
    i = 0
    while i < len(dims) or (rng.random() < 0.15 and len(items) < 5):
        r = rng.random()
        if r < 0.1:
            items.append(None)
            continue
        if r < 0.17 and not used_ellipsis:
            items.append(Ellipsis)
            used_ellipsis = True
            i = len(dims) - sum(1 for x in items if x is not None and x is not Ellipsis) + 0
            i = max(i, 0)
            continue
        n = dims[i] if i < len(dims) else 1
        if r < 0.45:
            if n == 0 or rng.random() < 0.04:
                items.append(int(pick(rng, [n, -n - 1, 5])))  # out of range: IndexError
            else:
                items.append(int(rng.integers(-n, n)))
        else:
            def bound_value():
                return None if rng.random() < 0.3 else int(rng.integers(-n - 2, n + 3))
            step = None if rng.random() < 0.4 else int(pick(rng, [1, 2, 3, -1, -2, -3]))
            items.append(slice(bound_value(), bound_value(), step))
        i += 1
        if rng.random() < 0.15:
            break  # fewer indices than axes
    if len(items) == 1 and rng.random() < 0.5:
        return items[0]
    return tuple(items)


def gen_getitem(rng):
    shape = random_shape(rng)
    inputs = {"a": device_input(rng, random_dtype(rng), shape)}
    kind = pick(rng, ["basic", "basic", "basic", "advanced"])
    if kind == "basic":
        inputs["k"] = Host(random_basic_key(rng, shape))
        code = pick(rng, ["r = a[k]", "r = a[k].copy()", "r = a[k][()] if a[k].ndim == 0 else a[k][..., ::-1]"])
        return Program("getitem basic", code, inputs, exact)
    # Advanced keys: lists, numpy integer and boolean arrays, device arrays, scalar booleans.
    n = shape[0] if shape else 0
    form = pick(rng, ["list", "int_array", "bool_array", "device_int", "device_bool", "bool_scalar", "tuple_list"])
    if form in ("list", "tuple_list"):
        idx = [int(rng.integers(-n, n)) for _ in range(int(rng.integers(0, 4)))] if n else []
        inputs["k"] = Host(idx if form == "list" else (idx, Ellipsis))
        code = "r = a[k]"
    elif form in ("int_array", "device_int"):
        idx = rng.integers(-n, n, int(rng.integers(0, 5))) if n else np.zeros(0, np.int64)
        idx = idx.astype(pick(rng, [np.int64, np.int32, np.uint8 if (idx >= 0).all() else np.int16]))
        inputs["k"] = Host(idx) if form == "int_array" else Device(idx)
        code = "r = a[k]"
    elif form in ("bool_array", "device_bool"):
        mask = rng.random(shape) < 0.5
        inputs["k"] = Host(mask) if form == "bool_array" else Device(mask)
        code = "r = a[k]"
    else:
        inputs["k"] = Host(bool(rng.random() < 0.5))
        code = "r = a[k]"
    return Program("getitem " + form, code, inputs, exact)


def random_advanced_key(rng, shape):
    """A key with advanced indices (python/kjarni/_advanced_index.py): integer lists and arrays (on the
    host or the device), masks, scalar booleans, among integers, slices, None and Ellipsis; the
    numpy-side key and whether it holds a device array (then it is passed as Device)."""
    items = []
    axis = 0
    broadcast = pick(rng, [(), (1,), (2,), (3,), (2, 1), (0,)])
    on_device = rng.random() < 0.4
    while axis < len(shape):
        n = shape[axis]
        r = rng.random()
        if r < 0.07:
            items.append(None)
            continue
        if r < 0.12 and not any(k is Ellipsis for k in items):
            items.append(Ellipsis)
            axis += int(rng.integers(0, 2))
            continue
        if r < 0.16:
            items.append(bool(rng.random() < 0.6))
            continue
        if r < 0.35:
            items.append(int(rng.integers(-n, n)) if n else 0)
        elif r < 0.5:
            items.append(slice(None, None, int(pick(rng, [1, -1, 2]))))
        elif r < 0.8 or on_device:
            idx = rng.integers(-n, n, broadcast) if n else np.zeros(broadcast, np.int64)
            if rng.random() < 0.03:
                idx = np.full(broadcast, n)  # out of range: IndexError
            items.append(idx.tolist() if rng.random() < 0.3 and not on_device else idx.astype(
                pick(rng, [np.int64, np.int32, np.int16])))
        else:
            k = int(rng.integers(1, len(shape) - axis + 1))
            items.append(rng.random(shape[axis:axis + k]) < 0.5)
            axis += k - 1
        axis += 1
    if not any(isinstance(k, (list, np.ndarray, bool)) for k in items):
        items.append(True)
    key = items[0] if len(items) == 1 and rng.random() < 0.5 else tuple(items)
    return key, on_device and any(isinstance(k, np.ndarray) for k in items)


def gen_setitem(rng):
    shape = random_shape(rng)
    da = random_dtype(rng)
    inputs = {"a": device_input(rng, da, shape)}
    name = "setitem"
    if rng.random() < 0.3:
        key, on_device = random_advanced_key(rng, shape)
        name = "setitem advanced"
        if on_device:
            # Device index arrays: the key is built in the program from device inputs.
            items = key if isinstance(key, tuple) else (key,)
            parts = []
            for i, item in enumerate(items):
                if isinstance(item, np.ndarray):
                    inputs[f"i{i}"] = Device(item)
                    parts.append(f"i{i}")
                else:
                    inputs[f"h{i}"] = Host(item)
                    parts.append(f"h{i}")
            key_code = "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
        else:
            inputs["k"] = Host(key)
            key_code = "k"
    else:
        key = random_basic_key(rng, shape) if rng.random() < 0.8 else Ellipsis
        inputs["k"] = Host(key)
        key_code = "k"
    if rng.random() < 0.6:
        inputs["s"] = Host(scalar_operand(rng))
        code = f"a[{key_code}] = s\nr = a"
    else:
        try:
            target = np.zeros(shape, da)[key]
            vshape = broadcast_partner(rng, target.shape)
        except Exception:
            vshape = ()
        vd = da if rng.random() < 0.6 else random_dtype(rng)
        inputs["b"] = device_input(rng, vd, vshape)
        code = f"a[{key_code}] = b\nr = a"
    if name == "setitem advanced" and rng.random() < 0.3 and da.kind in "iu":
        code += f"\na[{key_code}] += 1\nr = a"  # read-modify-write, as numpy's (repeated indices: once)
    return Program(name, code, inputs, exact)


INPLACE = ["+=", "-=", "*=", "/=", "%=", "**="]


def gen_inplace(rng):
    op = pick(rng, INPLACE, [3, 3, 3, 2, 1, 1])
    da = random_dtype(rng)
    shape = random_shape(rng)
    inputs = {"a": device_input(rng, da, shape)}
    if rng.random() < 0.6:
        inputs["s"] = Host(scalar_operand(rng))
        other, names = "s", ("a", "s")
    else:
        inputs["b"] = device_input(rng, da if rng.random() < 0.5 else random_dtype(rng), broadcast_partner(rng, shape))
        other, names = "b", ("a", "b")
    # `a0` holds the array: numpy's in-place operators write into it (and into every view of it).
    code = f"a0 = a\na {op} {other}\nr = (a0, a is a0)"
    base = elementwise_bound(BOUND_KEYS[op[:-1]], names, op[:-1])

    def bound(ref, ns):
        if ref.dtype.kind not in "fc":
            return None
        if ref.dtype != np.asarray(ns["a"]).dtype:
            return None
        return base(ref, ns)
    return Program("inplace " + op, code, inputs, bound, known=known_binary)


# ---- methods and protocols -------------------------------------------------------------------------

def gen_astype(rng):
    da = random_dtype(rng)
    to = random_dtype(rng)
    inputs = {"a": device_input(rng, da, random_shape(rng))}
    form = pick(rng, ["plain", "copy_false", "np_asarray"])
    arg = dtype_argument(rng, to)
    code = {"plain": f"r = a.astype({arg})", "copy_false": f"r = a.astype({arg}, copy=False)",
            "np_asarray": f"r = np.asarray(a, dtype={arg})"}[form]

    def known(np_outcome, kj_outcome, program):
        # `float-to-int` (docs/numpy-differences.md): NaN, infinities and out-of-range floats converted
        # to uint32 have two numpy answers (its SIMD and its scalar loop); kjarni follows one.
        if to == np.uint32 and da.kind in "fc" and np_outcome[0] and kj_outcome[0]:
            return "float-to-int"
        return None
    return Program("astype", code, inputs, exact, known=known)


def gen_shape_method(rng):
    shape = random_shape(rng)
    inputs = {"a": device_input(rng, random_dtype(rng), shape)}
    nd = len(shape)
    perm = list(rng.permutation(nd)) if nd else []
    perm = [int(p) for p in perm]
    choices = ["r = a.reshape(-1)", "r = a.ravel()", "r = a.flatten()", "r = a.T", "r = a.transpose()",
               f"r = a.transpose({tuple(perm)!r})", f"r = a.transpose({', '.join(map(str, perm))})" if perm else "r = a.transpose()",
               f"r = np.transpose(a, {perm!r})", "r = a.copy()", "r = np.copy(a)", "r = a.squeeze()",
               "r = np.ravel(a)", f"r = a.reshape({tuple(reversed(shape))!r})",
               f"r = a.reshape({', '.join(map(str, shape)) or '()'})", f"r = np.reshape(a, {(-1,) + tuple(shape[1:])!r})",
               "r = a.reshape(-1, 1)", "r = np.squeeze(a)"]
    if nd >= 2:
        choices += [f"r = a.swapaxes(0, {-1})", "r = np.swapaxes(a, 1, 0)"]
    if 1 in shape:
        choices.append(f"r = a.squeeze(axis={shape.index(1)})")
    if shape and shape[0] != 1:
        choices.append("r = a.squeeze(axis=0)")  # numpy's ValueError
    code = pick(rng, choices)
    return Program("shape " + code.split("(")[0][4:], code, inputs, exact)


def gen_fill(rng):
    da = random_dtype(rng)
    inputs = {"a": device_input(rng, da, random_shape(rng)), "s": Host(scalar_operand(rng))}
    return Program("fill", "a.fill(s)\nr = a", inputs, exact)


def gen_protocol(rng):
    shape = random_shape(rng) if rng.random() < 0.6 else pick(rng, [(), (1,), (1, 1), (0,), (2,), (1, 0)])
    da = random_dtype(rng)
    inputs = {"a": device_input(rng, da, shape)}
    code = pick(rng, ["r = len(a)", "r = bool(a)", "r = int(a)", "r = float(a)", "r = complex(a)", "r = np.asarray(a)",
                      "r = list(a)", "r = [x for x in a]", "r = a.tolist()", "r = a.item()", "r = np.array(a)",
                      "r = (a.shape, a.ndim, a.size, a.dtype, a.nbytes, a.itemsize)", "r = a.size",
                      "r = np.shape(a), np.ndim(a), np.size(a)", "r = a.item(0)", "r = operator.index(a)",
                      "r = a.nbytes"])
    return Program("protocol " + code[4:].split("(")[0], code, inputs, exact)


def gen_missing_operators(rng):
    """numpy's other operators on arrays (floor division, bitwise, shifts, unary +/~ on any kind,
    matmul of integer vectors)."""
    da = random_dtype(rng, "biu" if rng.random() < 0.7 else None)
    shape = random_shape(rng)
    inputs = {"a": device_input(rng, da, shape)}
    op = pick(rng, ["//", "&", "|", "^", "<<", ">>", "~a", "divmod"])
    if op == "~a":
        code = "r = ~a"
    elif op == "divmod":
        inputs["s"] = Host(python_scalar(rng, "int") or 1)
        code = "r = divmod(a, s)"
    else:
        inputs["s"] = Host(python_scalar(rng, pick(rng, ["int", "bool"])))
        code = f"r = a {op} s" if rng.random() < 0.7 else f"r = s {op} a"
    return Program("operator " + op, code, inputs, elementwise_bound("divide", ("a", "s"), "/"))


GENERATORS = [
    (gen_binary, 8), (gen_unary, 3), (gen_select, 2.5), (gen_reduction, 5), (gen_statistic, 1), (gen_scan, 1.5),
    (gen_getitem, 3), (gen_setitem, 2), (gen_inplace, 2), (gen_astype, 2), (gen_shape_method, 2), (gen_fill, 1),
    (gen_protocol, 2.5), (gen_missing_operators, 1),
]


# numpy's entry points kjarni composes in Python (the ufuncs of its expressions, the numpy functions of
# kjarni/_numpy_shapes.py ... _numpy_statistics.py): functions.py; those of _numpy_linalg.py ...
# _numpy_calculus.py: functions_composed.py. (Imported here, at the end: they take this module's
# inputs and bounds.)
from . import functions, functions_composed, functions_indexing, functions_sets, functions_polynomial  # noqa: E402

GENERATORS += (functions.GENERATORS + functions_composed.GENERATORS + functions_indexing.GENERATORS
               + functions_sets.GENERATORS + functions_polynomial.GENERATORS)


def random_program(rng):
    gen = pick(rng, [g for g, _ in GENERATORS], [w for _, w in GENERATORS])
    return gen(rng)
