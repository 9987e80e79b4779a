"""Programs of the numpy entry points kjarni composes in Python: the ufuncs of kjarni's expressions
through ``__array_ufunc__`` (floor ... arctanh, arctan2, hypot, the logical and bitwise ones, fabs,
cbrt, deg2rad ... bitwise_count, logaddexp ... lcm; modf and divmod with their two outputs and the
vecdot, matvec and vecmat ufuncs: functions_composed.py; with out= of kjarni arrays too), and the
numpy functions of kjarni/_numpy_shapes.py, _numpy_elementwise.py, _numpy_sorting.py and
_numpy_statistics.py (views and copies, sorting and searching, statistics; those of _numpy_linalg.py,
_numpy_composed.py, _numpy_einsum.py and _numpy_calculus.py: functions_composed.py), with their
options drawn as numpy takes them and sometimes as it refuses
them (both must raise). An option kjarni documents as left out (docs/python.md: "an option they
leave out is an ArgumentTypeError naming it") may be refused where numpy takes it: the program
says which (`refused`), and kjarni's ArgumentTypeError then counts as "refused-option".

Bounds, as programs.py's: one correctly rounded operation (or a function of the C++ fuzzer's
table of ulps) relative to its result; sums by bounds.summation_ulps; sums of n products by
summation_ulps(n) + 4 eps times the same function of the operands' magnitudes (einsum, tensordot,
vecdot, convolve...: functions_composed.py's _sum_of_products_bound)."""

import warnings

import numpy as np

from . import bounds
from .bounds import INF
from .programs import (Device, Host, Program, dtype_argument, elementwise_bound, known_binary, numpy_scalar,
                       python_scalar, scalar_operand)
from .values import broadcast_partner, layout_view, pick, random_dtype, random_shape, random_values, LAYOUTS


def device_input(rng, dtype, shape, style=None):
    layout = pick(rng, LAYOUTS, [0.6, 0.1, 0.1, 0.1, 0.1])
    base_shape, view = layout_view(layout, shape)
    return Device(random_values(rng, dtype, base_shape, style), view)


def _try(f):
    """numpy's result of f() (None where numpy raises)."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return f()
    except Exception:  # noqa: BLE001
        return None


def _known(program_refused):
    """kjarni's ArgumentTypeError for an option it documents as left out, where numpy took it."""
    def known(np_outcome, kj_outcome, program):
        if program_refused and np_outcome[0] and not kj_outcome[0]:
            from kjarni.errors import ArgumentTypeError
            if isinstance(kj_outcome[1], ArgumentTypeError):
                return "refused-option"
        # `weak-int-result-out-of-range`: a list holding a Python int beyond int64 (numpy's object
        # array, compared as Python ints); kjarni raises ArgumentError naming the values.
        big = [x for v in program.inputs.values() if isinstance(v, Host) and isinstance(v.value, list)
               for x in v.value if type(x) is int and not -2**63 <= x < 2**63]
        if big and np_outcome[0] and not kj_outcome[0]:
            return "weak-int-result-out-of-range"
        return known_binary(np_outcome, kj_outcome, program)
    return known


def _program(name, code, inputs, bound=None, refused=False, **kw):
    program = Program(name, code, inputs, bound, known=_known(refused), **kw)
    program.refused = refused
    return program


def _f64(x):
    x = np.asarray(x)
    with np.errstate(all="ignore"):
        return x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)


def _random_axis(rng, ndim, allow_none=True):
    """One axis (rarely out of range: numpy's AxisError) or None."""
    if allow_none and (ndim == 0 or rng.random() < 0.3):
        return None
    if rng.random() < 0.04 or ndim == 0:
        return int(pick(rng, [ndim, -ndim - 1, 3]))
    return int(rng.integers(-ndim, ndim))


def _random_shape_nd(rng, min_ndim):
    shape = random_shape(rng)
    while len(shape) < min_ndim and rng.random() < 0.9:
        shape = shape + (int(pick(rng, [0, 1, 2, 3, 4], [0.05, 0.2, 0.3, 0.3, 0.15])),)
    return shape


# ---- ufuncs through __array_ufunc__ ------------------------------------------------------------------

# (name, bound key: None exact, a bounds.ULPS key, or a special handled below)
UNARY_UFUNCS = [
    ("floor", None), ("ceil", None), ("trunc", None), ("rint", None), ("isnan", None), ("isinf", None),
    ("isfinite", None), ("sign", "sign"), ("square", "square"), ("reciprocal", "reciprocal"), ("log2", "log2"),
    ("log10", "log10"), ("log1p", "log1p"), ("expm1", "expm1"), ("exp2", "exp2"), ("tan", "tan"),
    ("arcsin", "arcsin"), ("arccos", "arccos"), ("arctan", "arctan"), ("sinh", "sinh"), ("cosh", "cosh"),
    ("arcsinh", "arcsinh"), ("arccosh", "arccosh"), ("arctanh", "arctanh"), ("logical_not", None),
    ("invert", None), ("fabs", None), ("cbrt", "cbrt"), ("deg2rad", None), ("radians", None), ("rad2deg", None),
    ("degrees", None), ("signbit", None), ("spacing", None), ("conjugate", None), ("conj", None),
    ("bitwise_count", None),
]
BINARY_UFUNCS = [
    ("floor_divide", "floor_divide"), ("fmod", "fmod"), ("arctan2", "arctan2"), ("hypot", "hypot"),
    ("copysign", None), ("fmin", None), ("fmax", None), ("logical_and", None), ("logical_or", None),
    ("logical_xor", None), ("bitwise_and", None), ("bitwise_or", None), ("bitwise_xor", None),
    ("left_shift", None), ("right_shift", None), ("logaddexp", "logaddexp"), ("logaddexp2", "logaddexp"),
    ("heaviside", None), ("nextafter", None), ("float_power", "float_power"), ("gcd", None), ("lcm", None),
]
INTEGER_UFUNCS = {"invert", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "bitwise_count",
                  "gcd", "lcm"}


def unary_ufunc_bound(key, loop):
    """One function of the table, relative to its result, in the dtype numpy computes it in (`loop`:
    an out= of another dtype takes the result converted)."""
    def bound(ref, ns):
        if ref.dtype.kind not in "fc" or key is None or loop is None or loop.kind not in "fc":
            return None
        z = bounds.magnitude(ns["a"])
        if loop.kind == "c":
            with np.errstate(all="ignore"):
                if key == "square":
                    scale, factor = np.broadcast_to(z * z, ref.shape), 4.0
                    k = "basic"
                elif key == "reciprocal":
                    scale, factor, k = np.broadcast_to(1 / z, ref.shape), 4.0, "divide"
                elif key == "sign":
                    scale, factor, k = None, 2.0, "hypot"
                else:
                    # A complex function's parts from real functions of both parts: roundings
                    # relative to the larger part, the argument's size scaling the reductions.
                    scale = np.broadcast_to(bounds.magnitude(ref) * (1.0 + np.minimum(z, 1e3)), ref.shape)
                    factor, k = 4.0, key
            return bounds.rounding(ref, loop, k, scale=scale, factor=factor)
        k = {"square": "basic", "reciprocal": "divide", "sign": None}.get(key, key)
        if k is None:
            return None
        return bounds.rounding(ref, loop, k)
    return bound


def binary_ufunc_bound(key, loop, names):
    def bound(ref, ns):
        if ref.dtype.kind not in "fc" or key is None or loop is None or loop.kind not in "fc":
            return None
        if key == "fmod":
            return None  # exact in IEEE arithmetic on both sides
        if key == "logaddexp":
            # The larger operand plus log1p of exp of the difference: exp's and log1p's roundings on
            # a term below 1 survive a sum that may cancel (relative to |result| + 1).
            with np.errstate(all="ignore"):
                return bounds.rounding(ref, loop, "logaddexp", scale=bounds.magnitude(ref) + 1.0)
        if key == "float_power":
            return elementwise_bound("power", names, "**")(ref, ns)  # power's, in float64 or complex128
        if key == "floor_divide":
            x, y = (_f64(v) for v in np.broadcast_arrays(*(np.asarray(ns[n]) for n in names)))
            with np.errstate(all="ignore"):
                q = x / y
                # floor of a quotient within a few ulps of an integer: either integer is right.
                near = np.abs(q - np.round(q)) <= 8 * bounds.eps(loop) * np.abs(q) + 8 * bounds.tiny(loop)
                e = bounds.rounding(ref, loop, "divide", factor=2.0)
                return np.broadcast_to(np.where(near & np.isfinite(q), INF, e), ref.shape)
        return bounds.rounding(ref, loop, key)
    return bound


def _loop_dtype(f):
    r = _try(f)
    return None if r is None else np.asarray(r).dtype


def _out_argument(rng, inputs, loop, shape):
    """An out= array: of numpy's result dtype most often, of another one sometimes (numpy's
    same_kind casting decides)."""
    odt = loop if (loop is not None and rng.random() < 0.7) else random_dtype(rng)
    inputs["o"] = Device(np.zeros(shape, odt))


def gen_ufunc_unary(rng):
    name, key = pick(rng, UNARY_UFUNCS)
    kinds = "biu" if name in INTEGER_UFUNCS and rng.random() < 0.85 else ("fc" if key and rng.random() < 0.8 else None)
    da = random_dtype(rng, kinds)
    shape = random_shape(rng)
    inputs = {"a": device_input(rng, da, shape)}
    a = inputs["a"].numpy()
    result = _try(lambda: getattr(np, name)(a))
    loop = None if result is None else np.asarray(result).dtype
    if rng.random() < 0.05 and loop == da:
        code = f"r0 = np.{name}(a, out=a)\nr = (r0, r0 is a)"  # in place: each element read, then written
    elif rng.random() < 0.2:
        _out_argument(rng, inputs, loop, shape if rng.random() < 0.95 else shape + (2,))
        code = f"r0 = np.{name}(a, out=o)\nr = (r0, r0 is o)"
    else:
        code = f"r = np.{name}(a)"
    return _program("ufunc " + name, code, inputs, unary_ufunc_bound(key, loop),
                    sign=name not in ("sign",) or da.kind != "c")


def gen_ufunc_binary(rng):
    name, key = pick(rng, BINARY_UFUNCS)
    integer = name in INTEGER_UFUNCS
    kinds = "biu" if integer and rng.random() < 0.85 else ("f" if key and rng.random() < 0.8 else None)
    da = random_dtype(rng, kinds)
    shape = random_shape(rng)
    inputs = {"a": device_input(rng, da, shape)}
    form = pick(rng, ["aa", "as", "sa"], [3, 2, 1])
    if form == "aa":
        db = da if rng.random() < 0.5 else random_dtype(rng, kinds)
        inputs["b"] = device_input(rng, db, broadcast_partner(rng, shape))
        names = ("a", "b")
    else:
        if integer and rng.random() < 0.5:
            inputs["b"] = Host(int(rng.integers(-2, 70)) if rng.random() < 0.8 else python_scalar(rng, "int"))
        else:
            inputs["b"] = Host(scalar_operand(rng) if rng.random() < 0.8 else numpy_scalar(rng, da))
        names = ("a", "b") if form == "as" else ("b", "a")
    ns = {n: v.numpy() for n, v in inputs.items()}
    result = _try(lambda: getattr(np, name)(ns[names[0]], ns[names[1]]))
    loop = None if result is None else np.asarray(result).dtype
    call = f"np.{name}({names[0]}, {names[1]}"
    if rng.random() < 0.15 and result is not None:
        _out_argument(rng, inputs, loop, np.shape(result))
        code = f"r0 = {call}, out=o)\nr = (r0, r0 is o)"
    else:
        code = f"r = {call})"

    def known(np_outcome, kj_outcome, program):
        # `logical-weak-int-beyond-int64` (docs/numpy-differences.md).
        big = [v.value for v in program.inputs.values()
               if isinstance(v, Host) and type(v.value) is int and not -2**63 <= v.value < 2**63]
        if name.startswith("logical_") and big and not np_outcome[0] and kj_outcome[0]:
            return "logical-weak-int-beyond-int64"
        return known_binary(np_outcome, kj_outcome, program)
    return Program("ufunc " + name, code, inputs, binary_ufunc_bound(key, loop, names),
                   sign=name not in ("fmin", "fmax"), known=known)


# ---- views and copies (kjarni/_numpy_shapes.py) ------------------------------------------------------

def gen_like(rng):
    name = pick(rng, ["zeros_like", "ones_like", "empty_like", "full_like"])
    shape = random_shape(rng)
    da = random_dtype(rng)
    inputs = {"a": device_input(rng, da, shape)}
    args = ["a"]
    if name == "full_like":
        inputs["s"] = Host(scalar_operand(rng))
        args.append("s")
    if rng.random() < 0.3:
        args.append(f"dtype={dtype_argument(rng, random_dtype(rng))}")
    if rng.random() < 0.2:
        args.append(f"shape={pick(rng, [random_shape(rng), int(rng.integers(0, 4))])!r}")
    if rng.random() < 0.1:
        args.append(f"order={pick(rng, ['C', 'F', 'K', 'A'])!r}")
    call = f"np.{name}({', '.join(args)})"
    code = f"e = {call}\nr = (e.shape, str(e.dtype))" if name == "empty_like" else f"r = {call}"
    return _program("function " + name, code, inputs, None)


def _axis_tuple(rng, ndim, count=None):
    count = int(rng.integers(1, max(ndim, 1) + 1)) if count is None else count
    axes = [int(x) for x in rng.permutation(max(ndim, 1))[:count]]
    axes = [a - ndim if ndim and rng.random() < 0.3 else a for a in axes]
    if rng.random() < 0.04 and axes:
        axes.append(axes[0])  # repeated: numpy's ValueError
    return tuple(axes)


def gen_shape_function(rng):
    name = pick(rng, ["expand_dims", "moveaxis", "matrix_transpose", "atleast", "array_split", "hvdsplit", "flip",
                      "fliplr", "flipud", "rot90", "roll", "broadcast_to", "diagonal", "diag", "repeat", "tile",
                      "meshgrid", "triu", "tril", "real", "imag", "take"])
    da = random_dtype(rng)
    shape = _random_shape_nd(rng, 2) if name in ("matrix_transpose", "fliplr", "rot90", "diagonal", "dsplit",
                                                 "triu", "tril") else random_shape(rng)
    nd = len(shape)
    inputs = {"a": device_input(rng, da, shape)}
    refused = False
    if name == "expand_dims":
        axis = (int(rng.integers(-nd - 2, nd + 2)) if rng.random() < 0.6
                else _axis_tuple(rng, nd + 2, int(rng.integers(1, 3))))
        code = f"r = np.expand_dims(a, {axis!r})"
    elif name == "moveaxis":
        if rng.random() < 0.5 or nd == 0:
            src, dst = _random_axis(rng, nd, False), _random_axis(rng, nd, False)
        else:
            k = int(rng.integers(1, nd + 1))
            src, dst = _axis_tuple(rng, nd, k), _axis_tuple(rng, nd, k if rng.random() < 0.95 else max(k - 1, 1))
        code = f"r = np.moveaxis(a, {src!r}, {dst!r})"
    elif name == "matrix_transpose":
        code = "r = np.matrix_transpose(a)"
    elif name == "atleast":
        which = pick(rng, ["1d", "2d", "3d"])
        if rng.random() < 0.3:
            inputs["b"] = device_input(rng, random_dtype(rng), random_shape(rng))
            code = f"r = np.atleast_{which}(a, b)"
        else:
            code = f"r = np.atleast_{which}(a)"
    elif name in ("array_split", "hvdsplit"):
        n = int(pick(rng, [1, 2, 3, 4, 0])) if rng.random() < 0.7 else sorted(int(x) for x in rng.integers(-2, 6, 2))
        if name == "array_split":
            axis = _random_axis(rng, nd, False)
            code = (f"r = np.array_split(a, {n!r}, axis={axis})" if rng.random() < 0.7
                    else f"r = np.array_split(a, {n!r})")
        else:
            code = f"r = np.{pick(rng, ['hsplit', 'vsplit', 'dsplit'])}(a, {n!r})"
    elif name == "flip":
        axis = None if rng.random() < 0.3 else (_random_axis(rng, nd, False) if rng.random() < 0.6
                                                else _axis_tuple(rng, nd))
        code = "r = np.flip(a)" if axis is None and rng.random() < 0.5 else f"r = np.flip(a, {axis!r})"
    elif name in ("fliplr", "flipud", "matrix_transpose"):
        code = f"r = np.{name}(a)"
    elif name == "rot90":
        k = int(rng.integers(-5, 6))
        axes = (0, 1) if rng.random() < 0.5 else _axis_tuple(rng, nd, 2 if rng.random() < 0.95 else 3)
        code = f"r = np.rot90(a, {k}, axes={axes!r})" if rng.random() < 0.7 else f"r = np.rot90(a, k={k})"
    elif name == "roll":
        if rng.random() < 0.15 and nd:
            axes = _axis_tuple(rng, nd)
            shift = tuple(int(x) for x in rng.integers(-7, 8, len(axes)))
            code = f"r = np.roll(a, {shift!r}, axis={axes!r})"
        else:
            shift = int(rng.integers(-9, 10))
            axis = _random_axis(rng, nd)
            code = f"r = np.roll(a, {shift})" if axis is None else f"r = np.roll(a, {shift}, axis={axis})"
    elif name == "broadcast_to":
        target = list(shape)
        target = [int(pick(rng, [1, 2, 3])) if n == 1 and rng.random() < 0.6 else n for n in target]
        target = [int(rng.integers(0, 4)) for _ in range(int(rng.integers(0, 3)))] + target
        if rng.random() < 0.06:
            target = list(random_shape(rng))  # often incompatible: numpy's ValueError
        code = f"r = np.broadcast_to(a, {tuple(target)!r})" if rng.random() < 0.8 else \
            f"r = np.broadcast_to(a, {target!r}).copy()"
    elif name == "diagonal":
        offset = int(rng.integers(-4, 5))
        if rng.random() < 0.5:
            code = f"r = np.diagonal(a, {offset})"
        else:
            a1, a2 = _axis_tuple(rng, nd, 2)[:2] if rng.random() < 0.95 and nd >= 2 else pick(rng, [(0, 0), (0, 1)])
            code = f"r = np.diagonal(a, offset={offset}, axis1={a1}, axis2={a2})"
    elif name == "diag":
        if rng.random() < 0.5:
            shape = shape[:1] if rng.random() < 0.95 else shape
            inputs["a"] = device_input(rng, da, shape)
        code = f"r = np.diag(a, {int(rng.integers(-4, 5))})" if rng.random() < 0.7 else "r = np.diag(a)"
    elif name == "repeat":
        axis = _random_axis(rng, nd)
        if rng.random() < 0.1 and nd:
            n = shape[axis] if axis is not None and -nd <= axis < nd else int(np.prod(shape))
            reps = [int(x) for x in rng.integers(0, 3, n)]
        else:
            reps = int(rng.integers(0, 4)) if rng.random() < 0.97 else -1
        code = f"r = np.repeat(a, {reps!r})" if axis is None else f"r = np.repeat(a, {reps!r}, axis={axis})"
    elif name == "tile":
        reps = (int(rng.integers(0, 4)) if rng.random() < 0.4
                else tuple(int(x) for x in rng.integers(0, 4, int(rng.integers(0, 4)))))
        code = f"r = np.tile(a, {reps!r})"
    elif name == "meshgrid":
        count = int(rng.integers(1, 4))
        names = ["a", "b", "c"][:count]
        for n in names:
            inputs[n] = device_input(rng, da if rng.random() < 0.7 else random_dtype(rng),
                                     (int(rng.integers(0, 5)),) if rng.random() < 0.9 else random_shape(rng))
        options = []
        if rng.random() < 0.5:
            options.append(f"indexing={pick(rng, ['xy', 'ij', 'ij', 'xy', 'other'])!r}")
        if rng.random() < 0.1:
            options.append(pick(rng, ["sparse=True", "copy=False"]))
        code = f"r = np.meshgrid({', '.join(names + options)})"
    elif name in ("triu", "tril"):
        k = int(rng.integers(-3, 4))
        code = f"r = np.{name}(a, {k})" if rng.random() < 0.7 else f"r = np.{name}(a)"
    elif name in ("real", "imag"):
        code = pick(rng, [f"r = np.{name}(a)", f"r = np.{name}(a).copy()"])
    else:  # take
        axis = _random_axis(rng, nd)
        n = (int(np.prod(shape)) if axis is None else shape[axis]) if -nd <= (axis or 0) < max(nd, 1) else 1
        form = pick(rng, ["list", "host", "device", "int"])
        idx = rng.integers(-n, n, int(rng.integers(0, 5))) if n else np.zeros(0, np.int64)
        if rng.random() < 0.05:
            idx = np.append(idx, n)  # out of range: numpy's IndexError (mode "raise")
        mode = pick(rng, [None, None, "raise", "wrap", "clip"])
        if form == "int":
            inputs["k"] = Host(int(idx[0]) if idx.size else 0)
        elif form == "list":
            inputs["k"] = Host([int(x) for x in idx])
        elif form == "host":
            inputs["k"] = Host(idx.astype(pick(rng, [np.int64, np.int32, np.int16])))
        else:
            inputs["k"] = Device(idx.astype(pick(rng, [np.int64, np.int32])))
        args = ["a", "k"] + ([] if axis is None and rng.random() < 0.5 else [f"axis={axis}"])
        if mode is not None:
            args.append(f"mode={mode!r}")
        code = f"r = np.take({', '.join(args)})"
    return _program("function " + name, code, inputs, None, refused=refused)


# ---- elementwise compositions (kjarni/_numpy_elementwise.py) ------------------------------------------

def gen_elementwise_function(rng):
    name = pick(rng, ["isclose", "allclose", "array_equal", "nan_to_num", "outer", "inner", "diff", "angle",
                      "around"])
    da = random_dtype(rng, None if rng.random() < 0.3 else "fc")
    shape = random_shape(rng)
    inputs = {"a": device_input(rng, da, shape)}
    refused, bound, sign = False, None, True
    if name in ("isclose", "allclose", "array_equal"):
        if rng.random() < 0.3:
            inputs["b"] = Host(scalar_operand(rng))
        else:
            db = da if rng.random() < 0.6 else random_dtype(rng)
            bshape = broadcast_partner(rng, shape) if name != "array_equal" or rng.random() < 0.3 else shape
            if rng.random() < 0.4 and db == da:
                # Near the other's values: the tolerances decide.
                base = inputs["a"].numpy().reshape(shape)
                with np.errstate(all="ignore"):
                    near = (base * (1 + 1e-6 * rng.standard_normal(shape))).astype(da) if da.kind in "fc" else base
                inputs["b"] = Device(np.ascontiguousarray(np.broadcast_to(near, shape)))
            else:
                inputs["b"] = device_input(rng, db, bshape)
        options = []
        if name != "array_equal":
            if rng.random() < 0.3:
                options.append(f"rtol={pick(rng, [0.0, 1e-3, 0.5, 1e-8])!r}")
            if rng.random() < 0.3:
                options.append(f"atol={pick(rng, [0.0, 1e-3, 1.0])!r}")
        if rng.random() < 0.4:
            options.append(f"equal_nan={bool(rng.random() < 0.5)}")
        code = f"r = np.{name}({', '.join(['a', 'b'] + options)})"
    elif name == "nan_to_num":
        options = []
        for key in ("nan", "posinf", "neginf"):
            if rng.random() < 0.3:
                options.append(f"{key}={pick(rng, [0.0, 1.5, -2.0, 1e300, 7, -1])!r}")
        if rng.random() < 0.3:
            code = f"r0 = np.nan_to_num({', '.join(['a', 'copy=False'] + options)})\nr = (r0, a)"
        else:
            code = f"r = np.nan_to_num({', '.join(['a'] + options)})"
    elif name in ("outer", "inner"):
        if name == "inner":
            shape = (int(pick(rng, [0, 1, 2, 3, 5, 7])),) if rng.random() < 0.9 else shape
            inputs["a"] = device_input(rng, da, shape)
            bshape = shape if rng.random() < 0.95 else (shape[0] + 1,) if shape else ()
        else:
            bshape = random_shape(rng)
        db = da if rng.random() < 0.6 else random_dtype(rng)
        inputs["b"] = device_input(rng, db, bshape, "small" if rng.random() < 0.6 else None)
        code = f"r = np.{name}(a, b)"
        bound = _product_bound(name)
        sign = False
    elif name == "diff":
        n = int(pick(rng, [1, 1, 2, 3, 0]))
        axis = _random_axis(rng, len(shape), False) if rng.random() < 0.5 else -1
        options = [f"n={n}"] if n != 1 or rng.random() < 0.3 else []
        if axis != -1:
            options.append(f"axis={axis}")
        prepend = rng.random() < 0.05
        if prepend:
            options.append("prepend=0")
        code = f"r = np.diff({', '.join(['a'] + options)})"
        bound = _diff_bound(n, axis, prepend)
        sign = False
    elif name == "angle":
        deg = rng.random() < 0.3
        code = "r = np.angle(a, deg=True)" if deg else "r = np.angle(a)"

        def bound(ref, ns):
            if ref.dtype.kind not in "fc":
                return None
            return bounds.rounding(ref, ref.dtype, "arctan2", factor=1.5 if deg else 1.0)
    else:
        code = pick(rng, ["r = np.around(a)", "r = np.round(a)", "r = a.round()", "r = np.around(a, 0)"])
    return _program("function " + name, code, inputs, bound, refused=refused, sign=sign)


def _product_bound(name):
    def bound(ref, ns):
        if ref.dtype.kind not in "fc":
            return None
        a, b = (_f64(ns[k]).ravel() for k in ("a", "b"))
        with np.errstate(all="ignore"):
            if name == "outer":
                scale = np.abs(a)[:, None] * np.abs(b)[None, :]
                return bounds.rounding(ref, ref.dtype, "basic", scale=scale.reshape(ref.shape),
                                       factor=4.0 if ref.dtype.kind == "c" else 1.0)
            if name == "inner":  # any dimensions: the sums over the last axes
                x, y = np.abs(_f64(ns["a"])), np.abs(_f64(ns["b"]))
                n = x.shape[-1] if x.ndim and y.ndim else 1
                absum = np.inner(x, y)
            else:
                n = a.size
                absum = np.sum(np.abs(a) * np.abs(b)) if n == b.size else 0.0
            e = (bounds.summation_ulps(n) + 2) * bounds.eps(ref.dtype) * absum * (2 if ref.dtype.kind == "c" else 1)
            e = e + 2 * bounds.tiny(ref.dtype) * max(n, 1)
            e = np.where(np.isfinite(absum) & (absum < bounds.largest(ref.dtype) / 4), e, INF)
            return bounds.near_top(ref, ref.dtype, np.broadcast_to(e, ref.shape))
    return bound


def _diff_bound(n, axis, prepend=False):
    def bound(ref, ns):
        if ref.dtype.kind not in "fc":
            return None
        s = np.abs(_f64(ns["a"]))
        if prepend and n > 0 and s.ndim > 0:  # prepend=0: a zero first along the axis (n=0 ignores it)
            first = list(s.shape)
            first[axis] = 1
            s = np.concatenate([np.zeros(first), s], axis=axis)
        with np.errstate(all="ignore"):
            for _ in range(n):
                s = np.diff(s, axis=axis) + 2 * np.take(s, range(1, s.shape[axis]), axis=axis)  # |x1| + |x0|
            e = max(n, 1) * bounds.eps(ref.dtype) * s * (2 if ref.dtype.kind == "c" else 1) + 2 * bounds.tiny(ref.dtype)
            e = np.where(np.isfinite(s) & (s < bounds.largest(ref.dtype) / 2), e, INF)
        return bounds.near_top(ref, ref.dtype, np.broadcast_to(e, ref.shape))
    return bound


# ---- sorting, searching, counting (kjarni/_numpy_sorting.py) ----------------------------------------

def gen_sorting(rng):
    name = pick(rng, ["sort", "argsort", "unique", "searchsorted", "isin", "nonzero", "flatnonzero", "argwhere",
                      "count_nonzero"], [2, 2, 2, 1.5, 1.5, 1, 0.5, 1, 1.5])
    da = random_dtype(rng, "biuf" if rng.random() < 0.9 else None)
    shape = random_shape(rng)
    nd = len(shape)
    inputs = {"a": device_input(rng, da, shape, pick(rng, ["small", "edge", "wide"], [0.5, 0.35, 0.15]))}
    refused = False
    if name in ("sort", "argsort"):
        axis = -1 if rng.random() < 0.4 else _random_axis(rng, nd)
        options = [] if axis == -1 and rng.random() < 0.5 else [f"axis={axis}"]
        if name == "argsort":
            options.append(pick(rng, ["kind='stable'", "stable=True", "kind='stable'", ""]))
        elif rng.random() < 0.3:
            options.append(pick(rng, ["kind='stable'", "kind='quicksort'", "kind='heapsort'", "stable=True"]))
        code = f"r = np.{name}({', '.join(['a'] + [o for o in options if o])})"
        if name == "sort" and rng.random() < 0.2:
            code = "r = np.sort(a, axis=None)"
    elif name == "unique":
        options = [o for o, p in (("return_index=True", 0.3), ("return_inverse=True", 0.3),
                                  ("return_counts=True", 0.3)) if rng.random() < p]
        if rng.random() < 0.1:
            options.append("equal_nan=False")
            refused = da.kind == "f"
        if rng.random() < 0.05 and nd:
            options.append("axis=0")
            refused = True
        if da.kind == "c":
            refused = True  # complex arrays: documented as left out
        code = f"r = np.unique({', '.join(['a'] + options)})"
    elif name == "searchsorted":
        shape = (int(pick(rng, [0, 1, 2, 5, 9])),) if rng.random() < 0.95 else shape
        inputs["a"] = device_input(rng, da, shape, pick(rng, ["small", "edge"]))
        form = pick(rng, ["device", "device_other", "scalar", "list"])
        if form == "device":
            inputs["v"] = device_input(rng, da, random_shape(rng))
        elif form == "device_other":
            inputs["v"] = device_input(rng, random_dtype(rng, "biuf"), random_shape(rng))
        elif form == "scalar":
            inputs["v"] = Host(python_scalar(rng, "int" if da.kind in "biu" else pick(rng, ["int", "float"])))
        else:
            inputs["v"] = Host([python_scalar(rng, "int") for _ in range(int(rng.integers(0, 4)))])
        side = pick(rng, [None, "left", "right"])
        options = [] if side is None else [f"side={side!r}"]
        if rng.random() < 0.25:
            sorter = "sorter=np.argsort(a, kind='stable')"
            code = f"r = np.searchsorted(a, v, {', '.join(options + [sorter])})"
        else:
            code = f"r = np.searchsorted(np.sort(a), v{''.join(', ' + o for o in options)})"
    elif name == "isin":
        db = da if rng.random() < 0.6 else random_dtype(rng, "biuf")
        if rng.random() < 0.5:
            inputs["b"] = Device(inputs["a"].numpy().ravel()[rng.permutation(int(np.prod(shape)))[:3]].copy())
            if db != da:
                inputs["b"] = Device(inputs["b"].base.astype(db))
        else:
            inputs["b"] = device_input(rng, db, random_shape(rng), pick(rng, ["small", "edge"]))
        options = []
        if rng.random() < 0.3:
            options.append("invert=True")
        if rng.random() < 0.2:
            options.append("assume_unique=True")
        code = f"r = np.isin({', '.join(['a', 'b'] + options)})"
    elif name in ("nonzero", "flatnonzero", "argwhere"):
        code = f"r = np.{name}(a)"
    else:
        axis = None if rng.random() < 0.4 else (_random_axis(rng, nd, False) if rng.random() < 0.6
                                                else _axis_tuple(rng, nd))
        options = [] if axis is None else [f"axis={axis!r}"]
        if rng.random() < 0.3:
            options.append("keepdims=True")
        code = f"r = np.count_nonzero({', '.join(['a'] + options)})"
    if name in ("sort", "argsort", "unique", "searchsorted", "isin"):
        # Complex values: documented as left out (kjarni's radix sort has no order of them).
        refused = refused or any(np.asarray(v.base if isinstance(v, Device) else v.value).dtype.kind == "c"
                                 for v in inputs.values())
    return _program("function " + name, code, inputs, None, refused=refused, sign=False)


# ---- statistics (kjarni/_numpy_statistics.py) ---------------------------------------------------------

def _slices(x, axis, keepdims):
    """x (float64 or complex128) with the axis reduced moved last: (the slices, the result's shape)."""
    if axis is None:
        return x.reshape(1, -1) if x.ndim else x.reshape(1, 1), (1,) * x.ndim if keepdims else ()
    ax = axis % x.ndim
    moved = np.moveaxis(x, ax, -1)
    shape = tuple(1 if k == ax else n for k, n in enumerate(x.shape)) if keepdims else moved.shape[:-1]
    return moved.reshape(-1, x.shape[ax]), shape


def _slice_bound(ref, ns, axis, keepdims, ulps, use_sum=True):
    """ulps x eps x (per slice: the sum of |x|, or its largest finite |x|), inf where that scale
    nears the top of the range (partial results leaving it in one order only)."""
    x = np.abs(_f64(ns["a"]))
    if x.size == 0:
        return None
    with np.errstate(all="ignore"):
        rows, shape = _slices(x, axis, keepdims)
        if rows.shape[1] == 0:
            return None
        finite = np.where(np.isfinite(rows), rows, 0.0)
        scale = finite.sum(axis=1) if use_sum else finite.max(axis=1)
        e = ulps * bounds.eps(ref.dtype) * scale + 4 * bounds.tiny(ref.dtype)
        e = np.where(scale * 2 >= bounds.largest(ref.dtype), INF, e).reshape(shape)
        return bounds.near_top(ref, ref.dtype, np.broadcast_to(e, ref.shape))


def gen_statistics(rng):
    name = pick(rng, ["ptp", "average", "norm", "cumulative_sum", "trace", "median", "nanmedian", "percentile",
                      "quantile"])
    da = random_dtype(rng, "biuf" if rng.random() < 0.9 else None)
    shape = _random_shape_nd(rng, 2) if name == "trace" else random_shape(rng)
    nd = len(shape)
    inputs = {"a": device_input(rng, da, shape, pick(rng, ["small", "edge", "wide"], [0.55, 0.3, 0.15]))}
    refused = False
    axis = _random_axis(rng, nd)
    keepdims = rng.random() < 0.2
    options = [] if axis is None else [f"axis={axis}"]
    if keepdims:
        options.append("keepdims=True")
    if name == "ptp":
        if rng.random() < 0.1:
            result = _try(lambda: np.ptp(inputs["a"].numpy(), axis=axis, keepdims=keepdims))
            if result is not None:
                _out_argument(rng, inputs, np.asarray(result).dtype, np.shape(result))
                options.append("out=o")
        code = f"r = np.ptp({', '.join(['a'] + options)})"

        def bound(ref, ns):
            if ref.dtype.kind not in "fc":
                return None
            if np.asarray(ns["a"]).dtype.kind in "biu":
                # Integers into a float out=: the maximum converted (a rounding), less the minimum
                # converted (another two), relative to the slice's larger |x|.
                return _slice_bound(ref, ns, axis, keepdims, 4.0, use_sum=False)
            return bounds.rounding(ref, ref.dtype, "basic")
    elif name == "average":
        if rng.random() < 0.4:
            wshape = shape if rng.random() < 0.95 else random_shape(rng)
            inputs["w"] = device_input(rng, random_dtype(rng, "biuf"), wshape, "small")
            options.append("weights=w")
        if rng.random() < 0.2:
            options.append("returned=True")
        code = f"r = np.average({', '.join(['a'] + options)})"
        bound = _average_bound(axis, keepdims)
    elif name == "norm":
        options = [o for o in options]
        if rng.random() < 0.15:
            ordv = pick(rng, ["'fro'", "2", "1", "np.inf", "'nuc'"])
            options.append(f"ord={ordv}")
            refused = ordv != "'fro'"
            if ordv == "'fro'" and rng.random() < 0.7 and nd >= 2:
                options = [o for o in options if not o.startswith("axis")] + ["axis=(0, 1)"]
                axis = (0, 1)
        code = f"r = np.linalg.norm({', '.join(['a'] + options)})"
        bound = _norm_bound(axis, keepdims)
    elif name == "cumulative_sum":
        options = [o for o in options if o != "keepdims=True"]
        if rng.random() < 0.2:
            options.append(f"dtype={dtype_argument(rng, random_dtype(rng))}")
        if rng.random() < 0.1:
            options.append("include_initial=True")
        code = f"r = np.cumulative_sum({', '.join(['a'] + options)})"
        bound = _cumulative_bound(axis)
    elif name == "trace":
        offset = int(rng.integers(-3, 4))
        opts = [f"offset={offset}"] if offset or rng.random() < 0.3 else []
        if rng.random() < 0.3 and nd >= 2:
            a1, a2 = _axis_tuple(rng, nd, 2)[:2]
            opts += [f"axis1={a1}", f"axis2={a2}"]
        else:
            a1, a2 = 0, 1
        if rng.random() < 0.2:
            opts.append(f"dtype={dtype_argument(rng, random_dtype(rng))}")
        code = f"r = np.trace({', '.join(['a'] + opts)})"

        def bound(ref, ns):
            if ref.dtype.kind not in "fc":
                return None
            d = np.abs(_f64(np.diagonal(np.asarray(ns["a"]), offset, a1, a2)))
            n = d.shape[-1]
            with np.errstate(all="ignore"):
                absum = d.sum(axis=-1)
                e = (bounds.summation_ulps(n) + 2) * bounds.eps(ref.dtype) * absum + 2 * bounds.tiny(ref.dtype)
                if bounds.real_dtype(ref.dtype) == np.float16:
                    e = e + n * bounds.eps(np.float16) * absum  # `float16-sum-partials`
                e = np.where(np.isfinite(absum) & (absum < bounds.largest(ref.dtype) / 2), e, INF)
            return bounds.near_top(ref, ref.dtype, np.broadcast_to(e, ref.shape))
    elif name in ("median", "nanmedian"):
        code = f"r = np.{name}({', '.join(['a'] + options)})"
        if da.kind == "c":
            refused = True

        def bound(ref, ns):
            # The mean of the middle two: one addition and a halving (integers converted to
            # float64 first: a rounding each), relative to the larger finite |x| of the slice.
            if ref.dtype.kind not in "fc":
                return None
            return _slice_bound(ref, ns, axis, keepdims, 4.0, use_sum=False)
    else:
        q = pick(rng, [0, 1, 0.5, 0.25, 0.3, 0.75, 0.9, 1.5, -0.1, 0.999])
        q = q * 100 if name == "percentile" and not (rng.random() < 0.1) else q
        if rng.random() < 0.05:
            q = [0.25, 0.5] if name == "quantile" else [25, 50]
            refused = True  # q other than one Python number: documented as left out
        method = pick(rng, [None, "linear", "nearest", "lower"], [6, 2, 0.5, 0.5])
        if method not in (None, "linear"):
            refused = True
        opts = options + ([] if method is None else [f"method={method!r}"])
        code = f"r = np.{name}({', '.join(['a', repr(q)] + opts)})"
        if da.kind == "c" or 0 in shape:
            refused = refused or 0 in shape

        def bound(ref, ns):
            # numpy's _lerp: a difference, a product and a sum, relative to the slice's larger |x|.
            if ref.dtype.kind not in "fc":
                return None
            return _slice_bound(ref, ns, axis, keepdims, 6.0, use_sum=False)
    return _program("function " + name, code, inputs, bound, refused=refused, sign=False)


def _average_bound(axis, keepdims):
    def bound(ref, ns):
        if ref.dtype.kind not in "fc":
            return None
        a = _f64(ns["a"])
        w = _f64(ns["w"]) if "w" in ns else np.ones_like(a)
        if w.shape != a.shape:
            return None
        with np.errstate(all="ignore"):
            ax = axis
            n = a.size if ax is None else (a.shape[ax] if a.ndim else 1)
            num = np.sum(np.abs(a * w), axis=ax, keepdims=keepdims)
            den = np.abs(np.sum(w, axis=ax, keepdims=keepdims))
            wabs = np.sum(np.abs(w), axis=ax, keepdims=keepdims)
            ulps = bounds.summation_ulps(n) + 3
            e = ulps * bounds.eps(ref.dtype) * (num / den + np.abs(np.asarray(ref, np.complex128)) * wabs / den)
            if bounds.real_dtype(ref.dtype) == np.float16:
                e = e + n * bounds.eps(np.float16) * num / den  # `float16-sum-partials`
            e = e + 4 * bounds.tiny(ref.dtype)
            e = np.where(np.isfinite(e) & (num < bounds.largest(ref.dtype) / 4), e, INF)
            return bounds.near_top(ref, ref.dtype, np.broadcast_to(e, ref.shape))
    return bound


def _norm_bound(axis, keepdims):
    def bound(ref, ns):
        if ref.dtype.kind not in "fc":
            return None
        x = np.abs(_f64(ns["a"]))
        with np.errstate(all="ignore"):
            ax = axis if axis is None or x.ndim == 0 else tuple(np.atleast_1d(axis) % x.ndim)
            n = x.size if ax is None else int(np.prod([x.shape[k] for k in ax]))
            squares = np.sum(x * x, axis=ax, keepdims=keepdims)
            # sqrt of a sum of squares: half the sum's relative rounding, the squares' and the root's.
            ulps = (bounds.summation_ulps(n) + 2) / 2 + 4 + (4 if np.asarray(ns["a"]).dtype.kind == "c" else 0)
            if bounds.real_dtype(ref.dtype) == np.float16:
                ulps += n  # `float16-sum-partials`
            e = ulps * bounds.eps(ref.dtype) * np.sqrt(squares) + np.sqrt(2 * max(n, 1) * bounds.tiny(ref.dtype))
            e = np.where(np.isfinite(squares) & (squares < bounds.largest(ref.dtype) / 4), e, INF)
            return bounds.near_top(ref, ref.dtype, np.broadcast_to(e, ref.shape))
    return bound


def _cumulative_bound(axis):
    def bound(ref, ns):
        if ref.dtype.kind not in "fc":
            return None
        x = np.abs(_f64(ns["a"]))
        with np.errstate(all="ignore"):
            if x.ndim == 0:
                x = x.reshape(1)
            ax = 0 if axis is None else axis
            n = x.shape[ax]
            run = np.cumulative_sum(x, axis=ax, include_initial=ref.shape[ax] == n + 1)
            e = (n + 2) * bounds.eps(ref.dtype) * run + 2 * bounds.tiny(ref.dtype)
            if bounds.real_dtype(ref.dtype) == np.float16:
                e = np.where(run > 65504.0, INF, e)  # `float16-running-sum-range`
            e = np.where(np.isfinite(run) & (run < bounds.largest(ref.dtype) / 2), e, INF)
            return bounds.near_top(ref, ref.dtype, np.broadcast_to(e, ref.shape))
    return bound


GENERATORS = [
    (gen_ufunc_unary, 3), (gen_ufunc_binary, 3), (gen_like, 0.5), (gen_shape_function, 3),
    (gen_elementwise_function, 1.5), (gen_sorting, 2), (gen_statistics, 2),
]
