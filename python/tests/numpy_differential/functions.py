"""Programs of the numpy entry points kjarni composes in Python: the ufuncs of kjarni's expressions
through ``__array_ufunc__`` (floor ... arctanh, arctan2, hypot, the logical and bitwise ones, fabs,
cbrt, deg2rad ... bitwise_count, logaddexp ... lcm; modf and divmod with their two outputs; the
vecdot, matvec and vecmat ufuncs; with out= of kjarni arrays too), and the numpy functions of
kjarni/_numpy_shapes.py, _numpy_elementwise.py, _numpy_sorting.py and _numpy_statistics.py (views
and copies, sorting and searching, statistics), _numpy_linalg.py (tensordot, linalg.vecdot, cov,
corrcoef, convolve, correlate), _numpy_composed.py (partition and argpartition, checked for what
numpy guarantees; bincount, histogram, interp, pad), _numpy_einsum.py (subscripts of a small
grammar, one to three operands) and _numpy_calculus.py (gradient ... lexsort), with their options drawn as numpy takes them and sometimes as it refuses
them (both must raise). An option kjarni documents as left out (docs/python.md: "an option they
leave out is an ArgumentTypeError naming it") may be refused where numpy takes it: the program
says which (`refused`), and kjarni's ArgumentTypeError then counts as "refused-option".

Bounds, as programs.py's: one correctly rounded operation (or a function of the C++ fuzzer's
table of ulps) relative to its result; sums by bounds.summation_ulps; sums of n products by
summation_ulps(n) + 4 eps times the same function of the operands' magnitudes (einsum, tensordot,
vecdot, convolve...: _sum_of_products_bound)."""

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
            refused = True  # several shifts and axes: documented as left out
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
            refused = True  # repeats per element: documented as left out
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
            refused = True  # sparse=True and copy=False: documented as left out
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
    da = random_dtype(rng, None if rng.random() < 0.3 else ("f" if name == "nan_to_num" else "fc"))
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
        if da.kind == "c":
            refused = True  # complex arrays: documented as left out
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
        refused = name == "inner" and len(shape) != 1  # documented as left out
        sign = False
    elif name == "diff":
        n = int(pick(rng, [1, 1, 2, 3, 0]))
        axis = _random_axis(rng, len(shape), False) if rng.random() < 0.5 else -1
        options = [f"n={n}"] if n != 1 or rng.random() < 0.3 else []
        if axis != -1:
            options.append(f"axis={axis}")
        if rng.random() < 0.05:
            refused = True  # prepend and append: documented as left out
            options.append("prepend=0")
        code = f"r = np.diff({', '.join(['a'] + options)})"
        bound = _diff_bound(n, axis)
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
            n = a.size
            absum = np.sum(np.abs(a) * np.abs(b)) if n == b.size else 0.0
            e = (bounds.summation_ulps(n) + 2) * bounds.eps(ref.dtype) * absum * (2 if ref.dtype.kind == "c" else 1)
            e = e + 2 * bounds.tiny(ref.dtype) * max(n, 1)
            if not np.isfinite(absum) or absum >= bounds.largest(ref.dtype) / 4:
                e = INF
            return bounds.near_top(ref, ref.dtype, np.broadcast_to(e, ref.shape))
    return bound


def _diff_bound(n, axis):
    def bound(ref, ns):
        if ref.dtype.kind not in "fc":
            return None
        s = np.abs(_f64(ns["a"]))
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
        if rng.random() < 0.05:
            options.append("include_initial=True")
            refused = True
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
            run = np.cumsum(x, axis=ax)
            e = (n + 2) * bounds.eps(ref.dtype) * run + 2 * bounds.tiny(ref.dtype)
            if bounds.real_dtype(ref.dtype) == np.float16:
                e = np.where(run > 65504.0, INF, e)  # `float16-running-sum-range`
            e = np.where(np.isfinite(run) & (run < bounds.largest(ref.dtype) / 2), e, INF)
            return bounds.near_top(ref, ref.dtype, np.broadcast_to(e, ref.shape))
    return bound


# ---- ufuncs of two outputs, and of sums of products -------------------------------------------------

def gen_ufunc_two_outputs(rng):
    """modf and divmod: two results (exact: a truncation and a difference of exact values, and
    floor_divide's and remainder's, bounded as those are); out= a tuple of two kjarni arrays."""
    name = pick(rng, ["modf", "divmod"])
    da = random_dtype(rng, "f" if rng.random() < 0.6 else None)
    shape = random_shape(rng)
    inputs = {"a": device_input(rng, da, shape)}
    names = ("a",)
    if name == "divmod":
        if rng.random() < 0.7:
            db = da if rng.random() < 0.5 else random_dtype(rng)
            inputs["b"] = device_input(rng, db, broadcast_partner(rng, shape))
        else:
            inputs["b"] = Host(scalar_operand(rng))
        names = ("a", "b")
    ns = {n: v.numpy() for n, v in inputs.items()}
    result = _try(lambda: getattr(np, name)(*(ns[n] for n in names)))
    call = f"np.{name}({', '.join(names)}"
    if result is not None and rng.random() < 0.25:
        # Both outputs of one shape: the result's, or one it broadcasts to, or rarely one it does
        # not (both raise). (Outputs of two shapes, where numpy requires each to be the broadcast
        # shape of the inputs and outputs together, kjarni takes: reported, not drawn.)
        oshape = np.shape(result[0]) if rng.random() < 0.9 else pick(rng, [(3,), (2, 1) + np.shape(result[0])])
        for k, o in enumerate(("o", "p")):
            loop = np.asarray(result[k]).dtype
            odt = loop if rng.random() < 0.8 else random_dtype(rng)
            inputs[o] = Device(np.zeros(oshape, odt))
        code = f"r0 = {call}, out=(o, p))\nr = (r0[0], r0[1], r0[0] is o, r0[1] is p)"
    else:
        code = f"r = {call})"
    loop = None if result is None else np.asarray(result[0]).dtype
    quotient = binary_ufunc_bound("floor_divide", loop, names) if name == "divmod" else None

    def bound(ref, ns):
        # divmod's quotient as floor_divide's; the remainder and modf's parts exact, except where the
        # quotient is near an integer (either floor is right, and the remainder follows it).
        if quotient is None or ref.dtype.kind not in "fc":
            return None
        q = quotient(ref, ns)
        return None if q is None else np.where(np.isinf(q), INF, 0.0)
    return _program("ufunc " + name, code, inputs, bound, sign=name != "divmod")


def _sum_of_products_bound(fn, names, terms):
    """A sum of `terms` products per element, both sides' roundings: (summation's + the product's and
    conversions') eps times the same function of the operands' magnitudes (twice for complex);
    inf where that scale nears the top of the range."""
    def bound(ref, ns):
        if ref.dtype.kind not in "fc":
            return None
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mags = [bounds.magnitude(ns[n]) for n in names]
            try:
                s = np.abs(np.asarray(fn(*mags), dtype=np.float64))
            except Exception:  # noqa: BLE001 (a shape the magnitudes' function refuses: no bound)
                return None
            if s.shape != ref.shape:
                s = np.broadcast_to(s.max() if s.size else 0.0, ref.shape)
            n = max(int(terms), 1)
            e = (bounds.summation_ulps(n) + 4) * bounds.eps(ref.dtype) * s * (2 if ref.dtype.kind == "c" else 1)
            if bounds.real_dtype(ref.dtype) == np.float16:
                e = e + n * bounds.eps(np.float16) * s  # `float16-sum-partials`
            e = e + 2 * bounds.tiny(ref.dtype) * n
            e = np.where(np.isfinite(s) & (s < bounds.largest(ref.dtype) / 4), e, INF)
            return bounds.near_top(ref, ref.dtype, np.broadcast_to(e, ref.shape))
    return bound


def gen_ufunc_products(rng):
    """numpy 2.4's vecdot, matvec and vecmat ufuncs: (n),(n)->(), (m,n),(n)->(m), (n),(n,m)->(m)."""
    name = pick(rng, ["vecdot", "matvec", "vecmat"])
    n, m = (int(pick(rng, [0, 1, 2, 3, 5, 8])) for _ in range(2))
    batch = random_shape(rng, 2) if rng.random() < 0.4 else ()
    core = {"vecdot": ((n,), (n,)), "matvec": ((m, n), (n,)), "vecmat": ((n,), (n, m))}[name]
    sa, sb = batch + core[0], (batch if rng.random() < 0.5 else ()) + core[1]
    if rng.random() < 0.05:
        sb = sb[:-1] + (sb[-1] + 1,) if sb else (1,)  # a core mismatch: numpy's ValueError
    da = random_dtype(rng)
    db = da if rng.random() < 0.6 else random_dtype(rng)
    inputs = {"a": device_input(rng, da, sa, "small" if rng.random() < 0.6 else None),
              "b": device_input(rng, db, sb, "small" if rng.random() < 0.6 else None)}
    code = f"r = np.{name}(a, b)"
    result = _try(lambda: getattr(np, name)(inputs["a"].numpy(), inputs["b"].numpy()))
    if result is not None and rng.random() < 0.15:
        _out_argument(rng, inputs, np.asarray(result).dtype, np.shape(result))
        code = f"r0 = np.{name}(a, b, out=o)\nr = (r0, r0 is o)"
    bound = _sum_of_products_bound(getattr(np, name), ("a", "b"), n)
    return _program("ufunc " + name, code, inputs, bound, sign=False)


# ---- sums of products (kjarni/_numpy_linalg.py) --------------------------------------------------------

def gen_linalg(rng):
    name = pick(rng, ["tensordot", "linalg.vecdot", "cov", "corrcoef", "convolve", "correlate"])
    da = random_dtype(rng)
    db = da if rng.random() < 0.6 else random_dtype(rng)
    style = "small" if rng.random() < 0.6 else None
    refused = False
    if name == "tensordot":
        k = int(pick(rng, [0, 1, 2], [1, 3, 2]))
        shared = tuple(int(pick(rng, [0, 1, 2, 3, 4], [0.1, 0.2, 0.3, 0.3, 0.1])) for _ in range(k))
        sa = random_shape(rng, 2) + shared
        sb = shared + random_shape(rng, 2)
        inputs = {"a": device_input(rng, da, sa, style), "b": device_input(rng, db, sb, style)}
        if rng.random() < 0.3 and k:
            axes_a = list(range(len(sa) - k, len(sa)))
            axes_b = list(range(k))
            if rng.random() < 0.1:
                axes_b = axes_b[::-1] + [0]  # numpy's ValueError (or a mismatch)
            code = f"r = np.tensordot(a, b, axes=({axes_a!r}, {axes_b!r}))"
        else:
            kk = k if rng.random() < 0.95 else k + 1
            code = f"r = np.tensordot(a, b, {kk})" if rng.random() < 0.5 else f"r = np.tensordot(a, b, axes={kk})"
        terms = int(np.prod(shared))
        fn = lambda x, y: eval(code.split("= ", 1)[1], {"np": np, "a": x, "b": y})  # noqa: E731
        bound = _sum_of_products_bound(fn, ("a", "b"), terms)
    elif name == "linalg.vecdot":
        shape = _random_shape_nd(rng, 1)
        inputs = {"a": device_input(rng, da, shape, style),
                  "b": device_input(rng, db, broadcast_partner(rng, shape), style)}
        axis = -1 if rng.random() < 0.6 else _random_axis(rng, len(shape), False)
        code = "r = np.linalg.vecdot(a, b)" if axis == -1 else f"r = np.linalg.vecdot(a, b, axis={axis})"
        terms = max(shape) if shape else 1
        bound = _sum_of_products_bound(lambda x, y: np.linalg.vecdot(x, y, axis=axis), ("a", "b"), terms)
    elif name in ("cov", "corrcoef"):
        shape = pick(rng, [(int(rng.integers(0, 6)),), (int(rng.integers(1, 4)), int(rng.integers(0, 7)))],
                     [1, 2]) if rng.random() < 0.95 else random_shape(rng)
        inputs = {"a": device_input(rng, da, shape, style)}
        args = ["a"]
        if rng.random() < 0.25:
            inputs["y"] = device_input(rng, db, shape if rng.random() < 0.9 else random_shape(rng), style)
            args.append("y")
        rowvar = rng.random() < 0.8
        if not rowvar:
            args.append("rowvar=False")
        ddof, bias = None, False
        if name == "cov":
            if rng.random() < 0.2:
                bias = True
                args.append("bias=True")
            if rng.random() < 0.2:
                ddof = int(pick(rng, [0, 1, 2]))
                args.append(f"ddof={ddof}")
            obs = (shape[-1] if rowvar else shape[0]) if shape else 1
            if rng.random() < 0.15:
                inputs["f"] = Host(np.array(rng.integers(0, 4, obs)))
                args.append("fweights=f")
            if rng.random() < 0.15:
                inputs["w"] = device_input(rng, np.dtype(np.float64), (obs,), "small")
                inputs["w"] = Device(np.abs(inputs["w"].base))
                args.append("aweights=w")
        if rng.random() < 0.15:
            args.append(f"dtype={dtype_argument(rng, random_dtype(rng, 'fc'))}")
        code = f"r = np.{name}({', '.join(args)})"
        bound = _cov_bound(name, rowvar, ddof, bias)
    else:
        n, k = (int(pick(rng, [0, 1, 2, 3, 5, 8], [0.3, 1, 1, 1, 1, 1])) for _ in range(2))
        inputs = {"a": device_input(rng, da, (n,), style), "b": device_input(rng, db, (k,), style)}
        if rng.random() < 0.03:
            inputs["b"] = device_input(rng, db, (2, 2), style)  # not 1-d: numpy's ValueError
        mode = pick(rng, [None, "full", "same", "valid", 0, 1, 2, "other"], [4, 2, 2, 2, 0.3, 0.3, 0.3, 0.2])
        code = f"r = np.{name}(a, b)" if mode is None else f"r = np.{name}(a, b, {mode!r})"
        fn = lambda x, y: getattr(np, name)(x, y, "full" if mode is None and name == "convolve" else  # noqa: E731
                                            ("valid" if mode is None else mode))
        bound = _sum_of_products_bound(fn, ("a", "b"), min(n, k))
    return _program("function " + name, code, inputs, bound, refused=refused, sign=False)


def _cov_bound(name, rowvar, ddof, bias):
    """cov: the averages' sums, then the centred products' sum, each relative to the sums of the
    magnitudes (a centred value within (summation) eps (|x| + max |x|) of its value); corrcoef: that
    over sqrt(c_ii c_jj), and the diagonal's own errors relative to |r|."""
    def bound(ref, ns):
        if ref.dtype.kind not in "fc":
            return None
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # numpy's rows: m transposed for rowvar=False unless 1-d, y unless a single row.
            x = np.atleast_2d(bounds.magnitude(ns["a"]))
            if not rowvar and np.ndim(ns["a"]) != 1:
                x = x.T
            if "y" in ns:
                y = np.atleast_2d(bounds.magnitude(ns["y"]))
                y = y if rowvar or y.shape[0] == 1 else y.T
                if y.shape[1] != x.shape[1]:
                    return None
                x = np.concatenate([x, y])
            n = x.shape[1]
            w = np.ones(n)
            if "f" in ns:
                w = w * np.asarray(ns["f"], np.float64)
            if "w" in ns:
                w = w * np.asarray(ns["w"], np.float64)
            if w.shape != (n,) or n == 0:
                return None
            d = x + np.max(np.where(np.isfinite(x), x, 0.0), axis=1, keepdims=True)
            s = (d * w) @ d.T
            wsum = w.sum()
            fact = wsum - (ddof if ddof is not None else (0 if bias else 1))
            if "w" in ns and ddof != 0 and not bias:
                fact = wsum - (ddof if ddof is not None else 1) * np.sum(w * np.asarray(ns["w"], np.float64)) / wsum
            ulps = 2 * bounds.summation_ulps(n) + 8
            e = ulps * bounds.eps(ref.dtype) * s / abs(fact) if fact != 0 else np.full(s.shape, INF)
            if name == "corrcoef":
                c = np.asarray(np.cov(np.asarray(ns["a"]), None if "y" not in ns else ns["y"], rowvar=rowvar),
                               np.complex128)
                c = np.atleast_2d(c)
                dg = np.abs(np.diagonal(c).real)
                rel = np.diagonal(e) / dg
                r = bounds.magnitude(ref).reshape(e.shape)
                e = e / np.sqrt(np.outer(dg, dg)) + r * (rel[:, None] + rel[None, :])
                e = e + 8 * bounds.eps(ref.dtype)
                e = np.where(np.outer(dg, dg) > 0, e, INF)
            e = np.where(np.isfinite(e) & np.isfinite(s) & (s < bounds.largest(ref.dtype) / 4), e, INF)
            if e.size != ref.size:
                return None
            e = e.reshape(ref.shape) * (2 if ref.dtype.kind == "c" else 1) + 4 * bounds.tiny(ref.dtype)
            return bounds.near_top(ref, ref.dtype, e)
    return bound


# ---- partitioning, counting, binning, interpolation, padding (kjarni/_numpy_composed.py) -------------

# What numpy guarantees of a partition, checked on the host on both sides (the values themselves
# may lie in any order on either side of each kth): the kth elements as the sorted ones, those
# before no greater, those after no less (a NaN sorts last).
PARTITION_CHECK = """
x = np.asarray(a)
h = np.asarray(p) if not arg else np.take_along_axis(x.ravel() if axis is None else x, np.asarray(p), axis)
perm = True
if arg:
    i2 = np.asarray(p).reshape(-1) if axis is None else np.moveaxis(np.asarray(p), axis, -1)
    perm = bool(np.all(np.sort(i2, axis=-1) == np.arange(i2.shape[-1])))
ax = -1 if axis is None else axis
ks = [int(k) % h.shape[ax] for k in np.atleast_1d(kth)]
checks = []
for k in ks:
    kv = np.take(h, [k], axis=ax)
    lo = np.take(h, list(range(0, k)), axis=ax)
    hi = np.take(h, list(range(k + 1, h.shape[ax])), axis=ax)
    checks.append((bool(np.all((lo <= kv) | (kv != kv))), bool(np.all((hi >= kv) | (hi != hi)))))
r = (h.shape, str(np.asarray(p).dtype), np.take(h, ks, axis=ax), checks, perm)
"""


def gen_composed(rng):
    name = pick(rng, ["partition", "argpartition", "bincount", "histogram", "interp", "pad"],
                [1.5, 1.5, 1, 1.2, 1.2, 1.5])
    refused, sign = False, True
    if name in ("partition", "argpartition"):
        da = random_dtype(rng, "biuf" if rng.random() < 0.95 else None)
        shape = _random_shape_nd(rng, 1)
        inputs = {"a": device_input(rng, da, shape, pick(rng, ["small", "edge", "wide"], [0.5, 0.35, 0.15]))}
        axis = -1 if rng.random() < 0.5 else (None if rng.random() < 0.2 else _random_axis(rng, len(shape), False))
        n = (int(np.prod(shape)) if axis is None else (shape[axis] if -len(shape) <= axis < len(shape) else 1))
        kth = int(rng.integers(-n, n)) if n and rng.random() < 0.95 else int(rng.integers(-2, 3)) + n
        if rng.random() < 0.25 and n:
            kth = sorted({int(k) for k in rng.integers(0, n, int(rng.integers(1, 4)))})
        options = ["a", repr(kth)] + ([] if axis == -1 and rng.random() < 0.5 else [f"axis={axis}"])
        if rng.random() < 0.05:
            options.append(pick(rng, ["kind='introselect'", "kind='other'", "order='x'"]))
            refused = "order" in options[-1]
        refused = refused or da.kind == "c"
        code = (f"arg, axis, kth = {name == 'argpartition'}, {axis}, {kth!r}\n"
                f"p = np.{name}({', '.join(options)})" + PARTITION_CHECK)
        return _program("function " + name, code, inputs, None, refused=refused, sign=False)
    if name == "bincount":
        n = int(pick(rng, [0, 1, 2, 5, 9, 20]))
        dx = random_dtype(rng, "iub" if rng.random() < 0.95 else None)
        values = rng.integers(0, 8, n)
        if rng.random() < 0.05 and n and dx.kind == "i":
            values[0] = -1  # numpy's ValueError (an unsigned -1 would be 2**32 - 1 bins: MemoryError)
        inputs = {"a": device_input(rng, dx, (n,) if rng.random() < 0.95 else (n, 1))}
        with np.errstate(all="ignore"):
            inputs["a"] = Device(values.astype(dx).reshape(inputs["a"].base.shape[:1] + inputs["a"].base.shape[1:])
                                 if inputs["a"].base.size == n else values.astype(dx), None)
        args = ["a"]
        if rng.random() < 0.4:
            inputs["w"] = device_input(rng, random_dtype(rng, "biuf" if rng.random() < 0.9 else None),
                                       (n,) if rng.random() < 0.95 else (n + 1,), "small")
            args.append("weights=w" if rng.random() < 0.7 else "w")
        if rng.random() < 0.3:
            args.append(f"minlength={int(pick(rng, [0, 3, 12, -1]))}")
        code = f"r = np.bincount({', '.join(args)})"

        def bound(ref, ns):
            if ref.dtype.kind not in "fc" or "w" not in ns:
                return None
            with np.errstate(all="ignore"):
                x = np.asarray(ns["a"]).astype(np.int64).ravel()
                # (kjarni's bins are differences of one cumulative sum: n eps of the sum of all
                # |weights|, docs/numpy-differences.md)
                s = float(np.sum(bounds.magnitude(ns["w"])))
                e = (x.size + 2) * bounds.eps(ref.dtype) * s + 2 * bounds.tiny(ref.dtype)
                return np.broadcast_to(e if np.isfinite(s) else INF, ref.shape)
        return _program("function bincount", code, inputs, bound, sign=False)
    if name == "histogram":
        da = random_dtype(rng, "biuf" if rng.random() < 0.95 else None)
        shape = random_shape(rng)
        inputs = {"a": device_input(rng, da, shape, pick(rng, ["small", "small", "edge", "wide"]))}
        args = ["a"]
        form = pick(rng, ["default", "int", "edges", "host_edges", "estimator"], [2, 3, 2, 1, 0.3])
        if form == "int":
            args.append(f"bins={int(pick(rng, [1, 2, 3, 5, 10, 0, -1]))}")
        elif form in ("edges", "host_edges"):
            edges = np.sort(np.round(rng.standard_normal(int(rng.integers(1, 6))) * 4, 1))
            if rng.random() < 0.05:
                edges = edges[::-1]  # decreasing: numpy's ValueError
            inputs["e"] = Device(edges.astype(pick(rng, [np.float64, np.float32, np.int64]))) if form == "edges" \
                else Host([float(v) for v in edges])
            args.append("bins=e")
        elif form == "estimator":
            args.append(f"bins={pick(rng, ['auto', 'fd', 'sturges'])!r}")
            refused = True
        if rng.random() < 0.3 and form != "edges":
            lo = float(pick(rng, [-3.0, 0.0, -1.5, 2.0]))
            args.append(f"range=({lo}, {lo + float(pick(rng, [1.0, 4.5, 0.0, -1.0]))})")
        if rng.random() < 0.25:
            inputs["w"] = device_input(rng, random_dtype(rng, "biuf"), shape if rng.random() < 0.95 else (7,), "small")
            args.append("weights=w")
        if rng.random() < 0.2:
            args.append("density=True")
        refused = refused or da.kind == "c"
        code = f"r = np.histogram({', '.join(args)})"

        def bound(ref, ns):
            # The edges: a linspace (a product and a sum) relative to the range's ends; densities:
            # a count over a product; weighted counts: sums of |w|.
            if ref.dtype.kind not in "fc":
                return None
            with np.errstate(all="ignore"):
                a = bounds.magnitude(ns["a"]).ravel()
                finite = a[np.isfinite(a)]
                top = max(float(finite.max()) if finite.size else 0.0, 8.0)
                e = 8 * bounds.eps(ref.dtype) * (top + bounds.magnitude(ref))
                if "w" in ns:
                    e = e + (a.size + 2) * bounds.eps(ref.dtype) * float(
                        np.sum(bounds.magnitude(ns["w"])))
                return np.broadcast_to(e + 2 * bounds.tiny(ref.dtype), ref.shape)
        return _program("function histogram", code, inputs, bound, refused=refused, sign=False)
    if name == "interp":
        n = int(pick(rng, [0, 1, 2, 3, 5, 8]))
        xp = np.sort(np.round(rng.standard_normal(n) * 3, int(pick(rng, [0, 1, 3]))))
        if rng.random() < 0.15 and n > 1:
            xp[1] = xp[0]  # a repeated point
        dfp = random_dtype(rng, "biufc" if rng.random() < 0.9 else None)
        inputs = {"x": device_input(rng, random_dtype(rng, "biuf"), random_shape(rng), pick(rng, ["small", "edge"])),
                  "xp": Device(xp.astype(pick(rng, [np.float64, np.float32, np.int64]))),
                  "fp": device_input(rng, dfp, (n,) if rng.random() < 0.95 else (n + 1,), pick(rng, ["small", "edge"]))}
        args = ["x", "xp", "fp"]
        for key in ("left", "right"):
            if rng.random() < 0.2:
                args.append(f"{key}={pick(rng, [0.0, -1.5, 7, float('nan')])!r}".replace("nan", "float('nan')"))
        if rng.random() < 0.1:
            period = pick(rng, [2.0, 360, 0])
            args.append(f"period={period!r}")
            if period:
                # Points distinct modulo the period (equal ones may swap: docs/numpy-differences.md).
                xp = rng.uniform(0, period, n) + period * rng.integers(-2, 3, n)
                inputs["xp"] = Device(xp)
        code = f"r = np.interp({', '.join(args)})"

        def bound(ref, ns):
            # Exact on PoCL (the same operations in float64); a few ulps of |fp| elsewhere.
            if ref.dtype.kind not in "fc":
                return None
            with np.errstate(all="ignore"):
                f = bounds.magnitude(ns["fp"])
                f = f[np.isfinite(f)]
                top = float(f.max()) if f.size else 0.0
                return np.broadcast_to(4 * bounds.eps(ref.dtype) * top * (2 if ref.dtype.kind == "c" else 1)
                                       + 2 * bounds.tiny(ref.dtype), ref.shape)
        return _program("function interp", code, inputs, bound, sign=False)
    # pad: copies of the values (exact).
    da = random_dtype(rng)
    shape = random_shape(rng)
    nd = len(shape)
    inputs = {"a": device_input(rng, da, shape)}
    widths = pick(rng, ["int", "pair", "per_axis", "dict"], [2, 2, 3, 0.5])
    if widths == "int":
        pw = int(pick(rng, [0, 1, 2, 5, -1], [1, 3, 2, 1, 0.2]))
    elif widths == "pair":
        pw = tuple(int(x) for x in rng.integers(0, 4, 2))
    elif widths == "per_axis":
        pw = tuple(tuple(int(x) for x in rng.integers(0, 5, 2)) for _ in range(nd if rng.random() < 0.95 else nd + 1))
    else:
        pw = {int(rng.integers(-nd, nd)) if nd else 0: int(rng.integers(0, 3))}
    mode = pick(rng, ["constant", "edge", "reflect", "symmetric", "wrap", "empty", "mean", "linear_ramp", "other"],
                [3, 2, 2, 2, 2, 0.5, 0.2, 0.2, 0.1])
    refused = mode in ("mean", "linear_ramp")
    args = ["a", repr(pw)] + ([] if mode == "constant" and rng.random() < 0.5 else [repr(mode)])
    if mode == "constant" and rng.random() < 0.4:
        args.append(f"constant_values={pick(rng, [1, -2.5, (1, 2), 7])!r}")
    if mode in ("reflect", "symmetric") and rng.random() < 0.4:
        args.append(f"reflect_type={pick(rng, ['even', 'odd'])!r}")
        sign = False
    if rng.random() < 0.03:
        args.append("stat_length=2")
    code = f"r = np.pad({', '.join(args)})"
    if mode == "empty":
        code = f"e = np.pad({', '.join(args)})\nr = (e.shape, str(e.dtype))"
    bound = None
    if "reflect_type='odd'" in args:
        def bound(ref, ns):  # 2 x edge - value: a product and a difference
            if ref.dtype.kind not in "fc":
                return None
            m = bounds.magnitude(ns["a"])
            m = m[np.isfinite(m)]
            return np.broadcast_to(4 * bounds.eps(ref.dtype) * (float(m.max()) if m.size else 0.0)
                                   + 2 * bounds.tiny(ref.dtype), ref.shape)
    return _program("function pad", code, inputs, bound, refused=refused, sign=sign)


# ---- einsum (kjarni/_numpy_einsum.py) ----------------------------------------------------------------

# Subscripts of a small grammar: transposes, traces, diagonals, sums, matmuls, batched, outer
# products, ellipses; one to three operands (letters renamed at random).
EINSUM_FORMS = [
    "ij->ji", "ii->i", "ii", "ij->", "ij->i", "ij", "iij->j", "ij,jk->ik", "ij,jk", "bij,bjk->bik", "i,j->ij",
    "i,i", "i,i->", "i,i->i", "...ij,...jk->...ik", "...i->...", "i...->...", "...,...", "ij...,jk...->ik...",
    "ij,jk,kl->il", "i,i,i->i", "i,j,k->ijk", "ijk->kji", "ij,ij->ij", "ba", "a,a->a", "ij,j->i", "...ii->...i",
    "i,", "i->ii", "ij->k", "ij,jk->ikk", "ij,ij,ij->",
]


def gen_einsum(rng):
    form = pick(rng, EINSUM_FORMS)
    letters = sorted({c for c in form if c.isalpha()})
    alphabet = list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    rename = dict(zip(letters, [alphabet[int(k)] for k in rng.permutation(len(alphabet))[:len(letters)]]))
    subscripts = "".join(rename.get(c, c) for c in form)
    sizes = {c: int(pick(rng, [0, 1, 2, 3, 4], [0.05, 0.2, 0.3, 0.3, 0.15])) for c in rename.values()}
    terms = subscripts.split("->")[0].split(",")
    ellipsis = random_shape(rng, 2)
    inputs, names = {}, []
    da = random_dtype(rng)
    style = "small" if rng.random() < 0.6 else None
    for k, term in enumerate(terms):
        shape = []
        for part in term.split("..."):
            shape.append(tuple(sizes[c] for c in part))
        if len(shape) == 2:
            e = ellipsis[int(rng.integers(0, len(ellipsis) + 1)):] if rng.random() < 0.3 else ellipsis
            e = tuple(1 if rng.random() < 0.2 else n for n in e)
            shape = shape[0] + e + shape[1]
        else:
            shape = shape[0]
        if rng.random() < 0.04:
            shape = shape + (2,)  # one axis too many: numpy's ValueError
        name = "abc"[k]
        names.append(name)
        inputs[name] = device_input(rng, da if rng.random() < 0.6 else random_dtype(rng), shape, style)
    options = []
    if rng.random() < 0.15:
        options.append(f"dtype={dtype_argument(rng, random_dtype(rng))}")
    if rng.random() < 0.1:
        options.append(f"optimize={pick(rng, [True, False, 'greedy', 'optimal'])!r}")
    if rng.random() < 0.05:
        options.append(f"casting={pick(rng, ['no', 'safe', 'unsafe', 'same_kind'])!r}")
    refused = False
    if rng.random() < 0.1 and "..." not in subscripts and all(c.isalpha() or c in ",->" for c in subscripts):
        # The sublist form: einsum(a, [0, 1], b, [1, 2], [0, 2]).
        index = {c: (alphabet.index(c) + 26) % 52 for c in sizes}
        parts = []
        for name, term in zip(names, terms):
            parts += [name, repr([index[c] for c in term])]
        if "->" in subscripts:
            parts.append(repr([index[c] for c in subscripts.split("->")[1]]))
        call = f"np.einsum({', '.join(parts + options)})"
        plain = f"np.einsum({', '.join(parts)})"
    else:
        call = f"np.einsum({', '.join([repr(subscripts)] + names + options)})"
        plain = f"np.einsum({', '.join([repr(subscripts)] + names)})"
    code = f"r = {call}"
    result = _try(lambda: eval(call, {"np": np, **{n: inputs[n].numpy() for n in names}}))
    if result is not None and rng.random() < 0.1 and "casting" not in call:
        _out_argument(rng, inputs, np.asarray(result).dtype, np.shape(result))
        code = f"r0 = {call[:-1]}, out=o)\nr = (r0, r0 is o)"
    terms_count = 1
    for c, n in sizes.items():
        terms_count *= max(n, 1)

    def fn(*mags):
        # The same sums of the magnitudes (float64: without dtype= and casting=, which float64 may
        # not meet).
        return eval(plain, {"np": np, **dict(zip(names, mags))})
    bound = _sum_of_products_bound(fn, tuple(names), terms_count)
    return _program("function einsum", code, inputs, bound, refused=refused, sign=False)


# ---- differences, products and integrals (kjarni/_numpy_calculus.py) ----------------------------------

def gen_calculus(rng):
    name = pick(rng, ["gradient", "cross", "kron", "ediff1d", "polyval", "trapezoid", "cumulative_prod", "lexsort"])
    da = random_dtype(rng, "biufc" if rng.random() < 0.9 else None)
    style = pick(rng, ["small", "small", "edge", "wide"])
    refused, sign = False, False
    if name == "gradient":
        shape = _random_shape_nd(rng, 1)
        nd = len(shape)
        inputs = {"a": device_input(rng, da, shape, style)}
        args = ["a"]
        axis = None if rng.random() < 0.6 else (_random_axis(rng, nd, False) if rng.random() < 0.7
                                                else _axis_tuple(rng, nd))
        spacing = pick(rng, ["none", "scalar", "coords"], [3, 2, 1])
        axes = list(range(nd)) if axis is None else ([axis] if isinstance(axis, int) else list(axis))
        if spacing == "scalar":
            args.append(repr(pick(rng, [0.5, 2, 1.5, -1.0])))
        elif spacing == "coords" and len(axes) == 1 and -nd <= axes[0] < nd:
            n = shape[axes[0]]
            inputs["x"] = Device(np.cumsum(np.abs(np.round(rng.standard_normal(n), 1)) + 0.5).astype(
                pick(rng, [np.float64, np.float32, np.int64])))
            args.append("x")
        if axis is not None:
            args.append(f"axis={axis!r}")
        edge = int(pick(rng, [1, 2, 3], [3, 2, 0.3]))
        if edge != 1 or rng.random() < 0.2:
            args.append(f"edge_order={edge}")
        code = f"r = np.gradient({', '.join(args)})"

        def bound(ref, ns):
            # One-sided or central differences over spacings: a few roundings of the values
            # involved, over the smallest spacing (and the spacings' ratios for uneven ones).
            if ref.dtype.kind not in "fc":
                return None
            with np.errstate(all="ignore"):
                f = bounds.magnitude(ns["a"])
                if not np.all(np.isfinite(f)):
                    return np.full(ref.shape, INF)
                top = float(f.max()) if f.size else 0.0
                h = 1.0
                ratio = 1.0
                if "x" in ns:
                    d = np.diff(np.asarray(ns["x"], np.float64))
                    if d.size and d.min() <= 0:
                        return np.full(ref.shape, INF)  # repeated coordinates: numpy divides by 0
                    h = float(d.min()) if d.size else 1.0
                    ratio = float(d.max() / d.min()) if d.size else 1.0
                elif len(args) > 1 and not args[1].startswith(("axis", "edge")):
                    h = abs(float(eval(args[1])))
                e = 64 * bounds.eps(ref.dtype) * top / h * ratio * ratio * (2 if ref.dtype.kind == "c" else 1)
                e = e + 8 * bounds.tiny(ref.dtype)
                e = e if top < bounds.largest(ref.dtype) / 64 else INF
                return bounds.near_top(ref, ref.dtype, np.broadcast_to(e, ref.shape))
    elif name == "cross":
        n = int(pick(rng, [3, 3, 3, 2, 4]))
        batch = random_shape(rng, 2) if rng.random() < 0.4 else ()
        inputs = {"a": device_input(rng, da, batch + (n,), style),
                  "b": device_input(rng, da if rng.random() < 0.6 else random_dtype(rng, "biufc"),
                                    (batch if rng.random() < 0.7 else ()) + (int(pick(rng, [n, n, n, 3, 2])),), style)}
        args = ["a", "b"]
        if rng.random() < 0.15:
            args.append(f"axis={int(pick(rng, [-1, 0]))}")
        code = f"r = np.cross({', '.join(args)})"

        def bound(ref, ns):
            if ref.dtype.kind not in "fc":
                return None
            with np.errstate(all="ignore"):
                a, b = bounds.magnitude(ns["a"]), bounds.magnitude(ns["b"])
                s = (float(a.max()) if a.size else 0.0) * (float(b.max()) if b.size else 0.0)
                e = 8 * bounds.eps(ref.dtype) * s * (2 if ref.dtype.kind == "c" else 1) + 4 * bounds.tiny(ref.dtype)
                e = e if np.isfinite(s) and s < bounds.largest(ref.dtype) / 4 else INF
                return bounds.near_top(ref, ref.dtype, np.broadcast_to(e, ref.shape))
    elif name == "kron":
        inputs = {"a": device_input(rng, da, random_shape(rng, 2), style),
                  "b": device_input(rng, da if rng.random() < 0.6 else random_dtype(rng), random_shape(rng, 2), style)}
        code = "r = np.kron(a, b)"
        bound = _sum_of_products_bound(np.kron, ("a", "b"), 1)
    elif name == "ediff1d":
        inputs = {"a": device_input(rng, da, random_shape(rng), style)}
        args = ["a"]
        for key in ("to_end", "to_begin"):
            if rng.random() < 0.25:
                args.append(f"{key}={pick(rng, [0, -1.5, [1, 2], 300, 7])!r}")
        code = f"r = np.ediff1d({', '.join(args)})"

        def bound(ref, ns):
            if ref.dtype.kind not in "fc":
                return None
            with np.errstate(all="ignore"):
                x = bounds.magnitude(ns["a"]).ravel()
                s = x[1:] + x[:-1]
                begin = np.atleast_1d(eval(args[-1].split("=")[1])) if "to_begin" in code else []
                end_text = [t for t in args if t.startswith("to_end")]
                end = np.atleast_1d(eval(end_text[0].split("=")[1])) if end_text else []
                s = np.concatenate([np.zeros(len(begin)), s, np.zeros(len(end))])
                if s.shape != ref.shape:
                    return None
                e = 2 * bounds.eps(ref.dtype) * s + 2 * bounds.tiny(ref.dtype)
                return bounds.near_top(ref, ref.dtype, np.where(np.isfinite(s), e, INF))
    elif name == "polyval":
        inputs = {"p": device_input(rng, da, (int(pick(rng, [0, 1, 2, 3, 5])),), style),
                  "a": device_input(rng, da if rng.random() < 0.6 else random_dtype(rng), random_shape(rng), style)}
        code = "r = np.polyval(p, a)"

        def bound(ref, ns):
            if ref.dtype.kind not in "fc":
                return None
            with np.errstate(all="ignore"):
                p, x = bounds.magnitude(ns["p"]), bounds.magnitude(ns["a"])
                s = np.asarray(np.polyval(p, x), np.float64)
                e = 4 * max(p.size, 1) * bounds.eps(ref.dtype) * s * (2 if ref.dtype.kind == "c" else 1)
                e = e + 4 * bounds.tiny(ref.dtype)
                e = np.where(np.isfinite(s) & (s < bounds.largest(ref.dtype) / 4), e, INF)
                return bounds.near_top(ref, ref.dtype, np.broadcast_to(e, ref.shape))
    elif name == "trapezoid":
        shape = _random_shape_nd(rng, 1)
        nd = len(shape)
        inputs = {"a": device_input(rng, da, shape, style)}
        axis = -1 if rng.random() < 0.6 else _random_axis(rng, nd, False)
        args = ["a"]
        form = pick(rng, ["none", "dx", "x"])
        if form == "dx":
            args.append(f"dx={pick(rng, [0.5, 2, -1.25])!r}")
        elif form == "x" and nd and -nd <= axis < nd:
            inputs["x"] = Device(np.round(rng.standard_normal(shape[axis]) * 3, 1).astype(
                pick(rng, [np.float64, np.float32, np.int64])))
            args.append("x=x")
        if axis != -1 or rng.random() < 0.2:
            args.append(f"axis={axis}")
        code = f"r = np.trapezoid({', '.join(args)})"

        def bound(ref, ns):
            if ref.dtype.kind not in "fc":
                return None
            with np.errstate(all="ignore"):
                y = bounds.magnitude(ns["a"])
                ym = np.moveaxis(y, axis, -1)
                n = ym.shape[-1]
                if "x" in ns:
                    d = np.abs(np.diff(np.asarray(ns["x"], np.float64)))
                else:
                    d = np.full(max(n - 1, 0), abs(float(eval(args[1].split("=")[1]))) if form == "dx" else 1.0)
                s = np.sum(d * (ym[..., 1:] + ym[..., :-1]) / 2, axis=-1)
                e = 2 * (n + 3) * bounds.eps(ref.dtype) * s * (2 if ref.dtype.kind == "c" else 1)
                e = e + 4 * bounds.tiny(ref.dtype)
                e = np.where(np.isfinite(s) & (s < bounds.largest(ref.dtype) / 4), e, INF)
                return bounds.near_top(ref, ref.dtype, np.broadcast_to(e, ref.shape))
    elif name == "cumulative_prod":
        shape = random_shape(rng)
        nd = len(shape)
        inputs = {"a": device_input(rng, da, shape, style)}
        axis = None if nd <= 1 and rng.random() < 0.7 else _random_axis(rng, nd, nd <= 1)
        args = ["a"] + ([] if axis is None else [f"axis={axis}"])
        if rng.random() < 0.2:
            args.append(f"dtype={dtype_argument(rng, random_dtype(rng))}")
        if rng.random() < 0.2:
            args.append("include_initial=True")
        code = f"r = np.cumulative_prod({', '.join(args)})"

        def bound(ref, ns):
            if ref.dtype.kind not in "fc":
                return None
            with np.errstate(all="ignore"):
                x = bounds.magnitude(ns["a"])
                x = x.reshape(1) if x.ndim == 0 else x
                ax = 0 if axis is None else axis
                run = np.cumprod(x, axis=ax)
                if "include_initial=True" in args:
                    run = np.concatenate([np.ones_like(np.take(run, [0], axis=ax)), run], axis=ax) \
                        if run.shape[ax] else np.ones(tuple(1 if k == ax % run.ndim else m
                                                            for k, m in enumerate(run.shape)))
                n = x.shape[ax]
                if run.shape != ref.shape:
                    return None
                if bounds.real_dtype(ref.dtype) == np.float16 and run.size:
                    # `float16-running-sum-range`: numpy rounds each partial to float16, so once
                    # the running product leaves float16's normal range its outputs are its own.
                    tiny16, top16 = float(np.finfo(np.float16).tiny), 65504.0
                    ax2 = ax % run.ndim
                    left = np.logical_or.accumulate((run < tiny16) | (run > top16), axis=ax2)
                    run = np.where(left & (run > 0), INF, run)
                e = (n + 2) * bounds.eps(ref.dtype) * run * (2 if ref.dtype.kind == "c" else 1)
                e = e + 2 * bounds.tiny(ref.dtype)
                e = np.where(np.isfinite(run) & (run < bounds.largest(ref.dtype) / 2), e, INF)
                return bounds.near_top(ref, ref.dtype, e)
    else:
        n = int(pick(rng, [0, 1, 2, 5, 9]))
        count = int(pick(rng, [1, 2, 3]))
        inputs = {}
        names = []
        for k in range(count):
            dk = random_dtype(rng, "biuf" if rng.random() < 0.95 else None)
            inputs["abc"[k]] = device_input(rng, dk, (n,), "small" if rng.random() < 0.7 else "edge")
            names.append("abc"[k])
        if rng.random() < 0.2:
            inputs = {"a": device_input(rng, random_dtype(rng, "biuf"), (count, n), "small")}
            code = "r = np.lexsort(a)" if rng.random() < 0.7 else "r = np.lexsort(a, axis=0)"
        else:
            code = f"r = np.lexsort(({', '.join(names)},))"
        refused = any(v.base.dtype.kind == "c" for v in inputs.values())
        bound = None
    return _program("function " + name, code, inputs, bound, refused=refused, sign=sign)


GENERATORS = [
    (gen_ufunc_unary, 3), (gen_ufunc_binary, 3), (gen_like, 0.5), (gen_shape_function, 3),
    (gen_elementwise_function, 1.5), (gen_sorting, 2), (gen_statistics, 2), (gen_ufunc_two_outputs, 0.5),
    (gen_ufunc_products, 0.5), (gen_linalg, 1), (gen_composed, 1.5), (gen_einsum, 1), (gen_calculus, 1.5),
]
