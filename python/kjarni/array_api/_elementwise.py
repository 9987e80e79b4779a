"""The standard's elementwise functions: each builds kjarni's device expression and evaluates it,
one kernel per call, on the operands' device. The semantics are numpy's (kjarni follows numpy),
which the standard's are for every case it defines."""

import builtins
import inspect

import numpy

from .. import _kjarni
from . import _complex_math
from ..dtypes import dtype as _kdtype
from ._array_object import Array, device_of_operands, empty_on, evaluate, operand, wrap

_work = _kjarni._array_api
_FLOATS = "fc"


def _broadcast_shape(*shapes):
    return numpy.broadcast_shapes(*shapes)


def _result_dtype_of(expr):
    return expr.dtype


def _run(expr, device, shape):
    if 0 in shape:
        return empty_on(shape, _result_dtype_of(expr), device)
    return evaluate(expr, device)


def _check_array(x, name):
    if not isinstance(x, Array):
        raise TypeError(f"{name} takes a kjarni.array_api array, not {type(x).__name__}")


def _complex_on_device(name, x):
    """One of _complex_math's functions of a complex array: the result's real and imaginary parts,
    each a real expression of x's parts, evaluated into the halves of a new complex array."""
    out = empty_on(x.shape, x.dtype, x.device)
    if x.size == 0:
        return out
    re, im = _parts(_contiguous(x))
    out_re, out_im = _parts(out)
    value_re, value_im = _complex_math.FORMULAS[name](_kjarni.Expr(re), _kjarni.Expr(im), _parts_dtype(x))
    queue = x.device.queue
    _kjarni.assign(queue, out_re, value_re)
    _kjarni.assign(queue, out_im, value_im)
    return out


def _shape_of(x):
    return x.shape if isinstance(x, Array) else ()


def _check_operands(name, kinds, operands):
    """The standard's rules for an elementwise function's operands: a unary function takes an
    array, a binary one at least one array beside a Python scalar; every array of a dtype kind
    (numpy's letters) in `kinds`."""
    if len(operands) == 1:
        _check_array(operands[0], name)
    elif not builtins.any(isinstance(x, Array) for x in operands):
        raise TypeError(f"{name} needs at least one array")
    for x in operands:
        if isinstance(x, Array) and x.dtype.kind not in kinds:
            raise TypeError(f"{name} is not defined for {x.dtype}")


def _elementwise(name, kinds="biufc", parameters=("x",)):
    """The standard's elementwise function `name` of one operand (parameters ("x",)) or two
    (("x1", "x2")): kjarni's expression of that name evaluated on the operands' device, the
    complex forms kjarni's expressions lack through _complex_math."""
    build = _work.unary if len(parameters) == 1 else _work.binary

    def f(*operands):
        if len(operands) != len(parameters):
            raise TypeError(f"{name}() takes {len(parameters)} positional argument{'s' * (len(parameters) > 1)}"
                            f" but {len(operands)} were given")
        _check_operands(name, kinds, operands)
        if len(operands) == 1 and operands[0].dtype.kind == "c" and name in _complex_math.FORMULAS:
            return _complex_on_device(name, operands[0])
        # A Python scalar beside an array is checked against it (operand) and stays weak.
        exprs = [operand(x, operands[1 - i] if len(operands) == 2 else None) for i, x in enumerate(operands)]
        shape = _broadcast_shape(*(_shape_of(x) for x in operands))
        return _run(build(name, *exprs), device_of_operands(*operands), shape)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"The standard's {name}, on the {'array' if len(parameters) == 1 else 'operands'} device."
    # Positional-only, as the standard's signatures (which its test suite inspects) have them.
    f.__signature__ = inspect.Signature([inspect.Parameter(p, inspect.Parameter.POSITIONAL_ONLY) for p in parameters])
    return f


def _unary(name, kinds="biufc"):
    return _elementwise(name, kinds, ("x",))


def _binary(name, kinds="biufc"):
    return _elementwise(name, kinds, ("x1", "x2"))


abs = _unary("abs", "iufc")  # noqa: A001 (the standard's names)
acos = _unary("acos", _FLOATS)
acosh = _unary("acosh", _FLOATS)
asin = _unary("asin", _FLOATS)
asinh = _unary("asinh", _FLOATS)
atan = _unary("atan", _FLOATS)
atanh = _unary("atanh", _FLOATS)
bitwise_invert = _unary("bitwise_invert", "biu")
ceil = _unary("ceil", "iuf")
cos = _unary("cos", _FLOATS)
cosh = _unary("cosh", _FLOATS)
exp = _unary("exp", _FLOATS)
expm1 = _unary("expm1", _FLOATS)
floor = _unary("floor", "iuf")
isfinite = _unary("isfinite", "iufc")
isinf = _unary("isinf", "iufc")
isnan = _unary("isnan", "iufc")
log = _unary("log", _FLOATS)
log1p = _unary("log1p", _FLOATS)
log2 = _unary("log2", _FLOATS)
log10 = _unary("log10", _FLOATS)
logical_not = _unary("logical_not", "b")
negative = _unary("negative", "iufc")
positive = _unary("positive", "iufc")
sign = _unary("sign", "iufc")
sin = _unary("sin", _FLOATS)
sinh = _unary("sinh", _FLOATS)
square = _unary("square", "iufc")
sqrt = _unary("sqrt", _FLOATS)
tan = _unary("tan", _FLOATS)
tanh = _unary("tanh", _FLOATS)
trunc = _unary("trunc", "iuf")

add = _binary("add", "iufc")
atan2 = _binary("atan2", "f")
bitwise_and = _binary("bitwise_and", "biu")
bitwise_left_shift = _binary("bitwise_left_shift", "iu")
bitwise_or = _binary("bitwise_or", "biu")
bitwise_right_shift = _binary("bitwise_right_shift", "iu")
bitwise_xor = _binary("bitwise_xor", "biu")
copysign = _binary("copysign", "f")
divide = _binary("divide", "iufc")
equal = _binary("equal")
floor_divide = _binary("floor_divide", "iuf")
greater = _binary("greater", "iuf")
greater_equal = _binary("greater_equal", "iuf")
hypot = _binary("hypot", "f")
less = _binary("less", "iuf")
less_equal = _binary("less_equal", "iuf")
logical_and = _binary("logical_and", "b")
logical_or = _binary("logical_or", "b")
logical_xor = _binary("logical_xor", "b")
maximum = _binary("maximum", "iuf")
minimum = _binary("minimum", "iuf")
multiply = _binary("multiply", "iufc")
not_equal = _binary("not_equal")
pow = _binary("pow", "iufc")  # noqa: A001
remainder = _binary("remainder", "iuf")
subtract = _binary("subtract", "iufc")


def round(x, /):  # noqa: A001
    """Halves to even, as the standard asks (numpy's rint)."""
    _check_array(x, "round")
    if x.dtype.kind in "iub":
        return positive(x) if x.dtype.kind != "b" else x
    return _run(_work.unary("rint", x._data), x.device, x.shape)


def signbit(x, /):
    """Whether the sign bit is set (-0.0 and NaNs with the bit included)."""
    _check_operands("signbit", "f", (x,))
    return _run(_work.unary("signbit", x._data), x.device, x.shape)


def logaddexp(x1, x2, /):
    """log(exp(x1) + exp(x2)) without overflow, numpy's formula: max + log1p(exp(-|x1 - x2|)); equal
    operands (the infinities included) give x + log(2), a NaN operand gives NaN."""
    _check_operands("logaddexp", "f", (x1, x2))
    shape = _broadcast_shape(_shape_of(x1), _shape_of(x2))
    expr = _work.binary("logaddexp", operand(x1, x2), operand(x2, x1))
    return _run(expr, device_of_operands(x1, x2), shape)


def _parts(x):
    """The real and imaginary parts of a complex array, as views of its bytes as float pairs."""
    real_dtype = _parts_dtype(x)
    data = x._data
    pairs = _kjarni.Array.from_buffer(data.base, _kdtype(real_dtype), list(x.shape) + [2],
                                      list(data.strides) + [real_dtype.itemsize], data.offset)
    return pairs[..., 0], pairs[..., 1]


def real(x, /):
    _check_array(x, "real")
    if x.dtype.kind != "c":
        return positive(x) if x.dtype.kind != "b" else x
    if x.size == 0:
        return empty_on(x.shape, _parts_dtype(x), x.device)
    source = _contiguous(x)
    re, _ = _parts(source)
    return wrap(re.copy(x.device.queue), x.device)


def imag(x, /):
    _check_array(x, "imag")
    if x.dtype.kind != "c":
        raise TypeError(f"imag of a {x.dtype} array: the standard defines it for complex arrays")
    if x.size == 0:
        return empty_on(x.shape, _parts_dtype(x), x.device)
    _, im = _parts(_contiguous(x))
    return wrap(im.copy(x.device.queue), x.device)


def conj(x, /):
    _check_array(x, "conj")
    if x.dtype.kind != "c":
        return positive(x) if x.dtype.kind != "b" else x
    return _run(_work.unary("conjugate", x._data), x.device, x.shape)


def _parts_dtype(x):
    return numpy.dtype("float32") if x.dtype == numpy.dtype("complex64") else numpy.dtype("float64")


def _contiguous(x):
    if x._data.is_c_contiguous:
        return x
    return wrap(x._data.copy(x.device.queue), x.device)


def clip(x, /, min=None, max=None):  # noqa: A002
    """x limited to [min, max] (either may be None, a Python scalar or an array), in x's dtype."""
    _check_array(x, "clip")
    if x.dtype.kind not in "iuf":
        raise TypeError(f"clip is not defined for {x.dtype}")
    expr = _kjarni.Expr(x._data)
    shapes = [x.shape]
    for bound, f in ((min, "maximum"), (max, "minimum")):
        if bound is None:
            continue
        if isinstance(bound, Array):
            shapes.append(bound.shape)
        b = operand(bound, x)
        if isinstance(bound, Array):
            b = _kjarni._expr_astype(b, _kdtype(x.dtype))
        expr = _work.binary(f, expr, b)
    # The result has the shape of x and the array bounds broadcast together, as numpy's clip and
    # the standard's test suite have it: a bound may be larger than x (x 0-d, min of shape (0,)).
    shape = _broadcast_shape(*shapes)
    if expr.dtype != x.dtype:
        expr = _kjarni._expr_astype(expr, _kdtype(x.dtype))
    if min is None and max is None:
        return _run(_work.unary("positive", x._data), x.device, x.shape)
    return _run(expr, x.device, shape)
