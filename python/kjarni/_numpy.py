"""numpy's protocols on kjarni arrays, as CuPy's and PyOpenCL's arrays have them.

- ``__array_ufunc__``: a numpy ufunc over kjarni arrays (``numpy.float32(2) * x``, ``numpy.sqrt(x)``)
  builds the same device expression (``Expr``) as kjarni's operators; ``out=`` evaluates it there.
- ``__array_function__``: numpy functions with a kjarni counterpart run it on the array's queue
  (``numpy.sum(x)``, ``numpy.concatenate([x, y])``); the others are refused with a TypeError that
  says so, instead of numpy quietly copying to the host.
- ``__array__`` makes a host copy, and refuses ``copy=False`` as numpy 2 requires (a device array
  cannot be seen as a numpy array without copying it).
- ``==`` and ``!=`` compare elementwise (an Expr), as the other comparisons do.
- The methods numpy users reach for: ``x.sum()``, ``x.max(axis=...)``, ``x.astype(dtype)``,
  ``x.copy()``, ``x.fill(v)``..., on the array's own queue (``x.queue``; views keep it).

Expressions are lazy: ``kjarni.evaluate(queue, e)`` (or ``e.get(queue)``) runs the one kernel."""

import builtins
import math

import numpy

from . import _kjarni
from .errors import ArgumentError, ArgumentTypeError, AxisError

Array = _kjarni.Array
Expr = _kjarni.Expr


def _queue_of(*operands):
    """The queue of the first operand (searched in nested lists too) that has one."""
    for x in operands:
        if isinstance(x, (list, tuple)):
            q = _queue_of(*x)
        else:
            q = getattr(x, "queue", None) if isinstance(x, (Array, Expr)) else None
        if q is not None:
            return q
    return None


def _required_queue(what, *operands):
    q = _queue_of(*operands)
    if q is None:
        raise ArgumentError(f"{what}: none of the arrays has a queue (array.queue): set one, or call the "
                            "kjarni function with a queue", "queue")
    return q


# ---- ufuncs ----------------------------------------------------------------------------------------

def _binary(op):
    # Expr's operators are C++ methods taking any operand as `self` (python/src/algorithms.cpp):
    # called from the class, they convert both operands themselves, without an Expr(a) first.
    return getattr(Expr, op)


_UFUNCS = {
    "add": _binary("__add__"),
    "subtract": _binary("__sub__"),
    "multiply": _binary("__mul__"),
    "divide": _binary("__truediv__"),
    "true_divide": _binary("__truediv__"),
    "remainder": _binary("__mod__"),
    "power": _binary("__pow__"),
    "less": _binary("__lt__"),
    "less_equal": _binary("__le__"),
    "greater": _binary("__gt__"),
    "greater_equal": _binary("__ge__"),
    "equal": _binary("__eq__"),
    "not_equal": _binary("__ne__"),
    "negative": lambda a: -Expr(a),
    "positive": lambda a: _positive(a),
    "absolute": _kjarni.absolute,
    "sqrt": _kjarni.sqrt,
    "exp": _kjarni.exp,
    "log": _kjarni.log,
    "sin": _kjarni.sin,
    "cos": _kjarni.cos,
    "tanh": _kjarni.tanh,
    "minimum": _kjarni.minimum,
    "maximum": _kjarni.maximum,
    "matmul": lambda a, b: a @ b,  # kjarni/_methods.py (both must be kjarni arrays)
}
# Every other elementwise function of kjarni/expression.hpp, under numpy's ufunc name (the C++
# fuzzer checks each against that ufunc: tests/numpy_fuzz/fuzz/expressions.py), through the tables
# kjarni.array_api takes them from (python/src/array_api.cpp: the standard's names where they differ).
_EXPRESSION_UNARY = {
    "floor": "floor", "ceil": "ceil", "trunc": "trunc", "rint": "rint", "isnan": "isnan", "isinf": "isinf",
    "isfinite": "isfinite", "sign": "sign", "square": "square", "reciprocal": "reciprocal", "log2": "log2",
    "log10": "log10", "log1p": "log1p", "expm1": "expm1", "exp2": "exp2", "tan": "tan", "arcsin": "asin",
    "arccos": "acos", "arctan": "atan", "sinh": "sinh", "cosh": "cosh", "arcsinh": "asinh", "arccosh": "acosh",
    "arctanh": "atanh", "logical_not": "logical_not", "invert": "bitwise_invert", "cbrt": "cbrt",
    "deg2rad": "deg2rad", "radians": "deg2rad", "rad2deg": "rad2deg", "degrees": "rad2deg", "signbit": "signbit",
    "spacing": "spacing", "conjugate": "conjugate", "bitwise_count": "bitwise_count",
}
_EXPRESSION_BINARY = {
    "floor_divide": "floor_divide", "fmod": "fmod", "arctan2": "atan2", "hypot": "hypot", "copysign": "copysign",
    "fmin": "fmin", "fmax": "fmax", "logical_and": "logical_and", "logical_or": "logical_or",
    "logical_xor": "logical_xor", "bitwise_and": "bitwise_and", "bitwise_or": "bitwise_or",
    "bitwise_xor": "bitwise_xor", "left_shift": "bitwise_left_shift", "right_shift": "bitwise_right_shift",
    "logaddexp": "logaddexp", "logaddexp2": "logaddexp2", "heaviside": "heaviside", "nextafter": "nextafter",
    "float_power": "float_power", "gcd": "gcd", "lcm": "lcm", "ldexp": "ldexp",
}
for _numpy_name, _name in _EXPRESSION_UNARY.items():
    _UFUNCS[_numpy_name] = (lambda name: lambda a: _kjarni._array_api.unary(name, a))(_name)
for _numpy_name, _name in _EXPRESSION_BINARY.items():
    _UFUNCS[_numpy_name] = (lambda name: lambda a, b: _kjarni._array_api.binary(name, a, b))(_name)


def _fabs(x):
    from . import _numpy_elementwise
    return _numpy_elementwise.fabs(x)


_UFUNCS["fabs"] = _fabs


def _modf(x):
    """numpy's modf (C's): the fraction with x's sign (-0.0 for -2.0, +-0.0 for infinities) and the
    integral part, in numpy's float type for x."""
    unary, binary = _kjarni._array_api.unary, _kjarni._array_api.binary
    dtype = numpy.dtype(Expr(x).dtype)
    if dtype.kind == "c":
        raise ArgumentTypeError("numpy.modf is not defined for complex values (numpy's UFuncTypeError)", "x")
    loop = numpy.result_type(dtype, numpy.float16) if dtype.kind in "biu" else dtype
    x = Expr(x).astype(loop) if dtype != loop else Expr(x)
    whole = unary("trunc", x)
    fraction = binary("copysign", _kjarni.where(unary("isinf", x), 0, x - whole), x)
    return fraction, whole


_UFUNCS["modf"] = _modf
_UFUNCS["frexp"] = lambda x: tuple(_kjarni._array_api.unary(part, x) for part in ("frexp_mantissa", "frexp_exponent"))


def _sum_of_products(name):
    """numpy 2.4's vecdot, matvec and vecmat ufuncs (kjarni/_numpy_linalg.py)."""
    def call(a, b):
        from . import _numpy_linalg
        return getattr(_numpy_linalg, name)(a, b)
    return call


for _name in ("vecdot", "matvec", "vecmat"):
    _UFUNCS[_name] = _sum_of_products(_name)
_UFUNCS["divmod"] = lambda a, b: _divmod(a, b)  # the operator's pair (below)
# The same by ufunc object, for the common call (`numpy.float32(2) * x`: no out=, no keywords).
_UFUNC_CALLS = {getattr(numpy, name): f for name, f in _UFUNCS.items() if hasattr(numpy, name)}

# ufunc.reduce over an axis: the reductions kjarni has.
_REDUCES = {"add": "sum", "multiply": "prod", "minimum": "min", "maximum": "max", "logical_or": "any",
            "logical_and": "all"}


def _remembering_queue(result, *operands):
    """`result`, an Expr made of `operands`, with the queue of the first that has one (as the
    operators give it: python/src/algorithms.cpp), so that its reductions and get() know where to run."""
    if isinstance(result, Expr) and getattr(result, "queue", None) is None:
        queue = _queue_of(*operands)
        if queue is not None:
            result.queue = queue
    return result


def _remembering_queues(result, inputs):
    """A ufunc's result (one Expr, or a tuple of them: divmod, modf, frexp) with the inputs' queue."""
    if isinstance(result, tuple):
        return tuple(_remembering_queue(e, *inputs) for e in result)
    return _remembering_queue(result, *inputs)


def _array_ufunc(self, ufunc, method, *inputs, out=None, **kwargs):
    if method == "__call__" and out is None and not kwargs:
        f = _UFUNC_CALLS.get(ufunc)
        if f is not None:
            return _remembering_queues(f(*inputs), inputs)
    name = ufunc.__name__
    if method == "reduce" and name in _REDUCES and not kwargs.keys() - {"axis", "keepdims", "dtype"}:
        (array,) = inputs
        out_array = None if out is None else out[0]
        return _reduction(_REDUCES[name])(array, out=out_array, **kwargs)
    if method != "__call__" or name not in _UFUNCS:
        raise ArgumentTypeError(f"numpy.{name}{'' if method == '__call__' else '.' + method} has no device "
                                "counterpart in kjarni: copy to the host first (x.get())", "ufunc")
    if kwargs:
        raise ArgumentTypeError(f"numpy.{name} on kjarni arrays takes no {sorted(kwargs)}: only out=", "ufunc")
    result = _remembering_queues(_UFUNCS[name](*inputs), inputs)
    if out is None:
        return result
    exprs = result if isinstance(result, tuple) else (result,)
    if len(out) != len(exprs) or not builtins.all(isinstance(o, Array) for o in out):
        raise ArgumentTypeError(f"numpy.{name}: out= must be {len(exprs)} kjarni Array(s)", "out")
    queue = _required_queue(f"numpy.{name}", *out, *inputs)
    if len(out) > 1:
        # numpy broadcasts the inputs and all outputs together: each output must have that shape.
        shape = numpy.broadcast_shapes(*(tuple(getattr(x, "shape", numpy.shape(x))) for x in inputs),
                                       *(tuple(o.shape) for o in out))
        for o in out:
            if tuple(o.shape) != shape:
                raise ArgumentError(f"numpy.{name}: non-broadcastable output operand with shape {tuple(o.shape)} "
                                    f"doesn't match the broadcast shape {shape}", "out")
    for o, e in zip(out, exprs):
        _kjarni.assign(queue, o, e)
    return tuple(out) if isinstance(result, tuple) else out[0]


# ---- numpy functions -------------------------------------------------------------------------------

def _reduction(name):
    typed = name in ("sum", "prod", "mean", "nansum", "nanprod", "nanmean")
    found = []  # kjarni._algorithms' function, looked up at the first call (it imports this module)

    def method(self, axis=None, dtype=None, out=None, keepdims=False):
        queue = getattr(self, "queue", None) if type(self) in (Array, Expr) else None
        if queue is None:
            queue = _required_queue(f"{name}()", self)
        if not found:
            from . import _algorithms
            found.append(getattr(_algorithms, name))
        if isinstance(self, Expr):
            # numpy reduces the operation's result: the expression evaluated, then reduced.
            from . import _algorithms
            self = _algorithms.evaluate(queue, self)
        if typed:
            return found[0](queue, self, axis, dtype, keepdims, out)
        if dtype is not None:
            raise ArgumentError(f"{name}() takes no dtype", "dtype")
        return found[0](queue, self, axis, keepdims, out)
    method.__name__ = name
    method.__doc__ = f"numpy's {name} on the array's queue (``x.queue``)."
    return method


def _with_queue(name):
    """numpy's function `name` as kjarni's `name(queue, ...)` with the queue of its arrays."""
    def call(*args, **kwargs):
        from . import _algorithms
        queue = _required_queue(f"numpy.{name}", *args)
        return getattr(_algorithms, name)(queue, *args, **kwargs)
    return call


def _np_where(condition, x=None, y=None):
    if x is None or y is None:
        raise ArgumentTypeError("numpy.where(condition) (the indices) has no device counterpart in kjarni: "
                                "give x and y", "x")
    return _kjarni.where(condition, x, y)


def _np_transpose(a, axes=None):
    return a.transpose(axes)  # the method: the view keeps the array's queue


def _np_copy(a, order="K", subok=False):
    return _copy(a, order="F" if order == "F" else "C")


def _np_shape(a):
    return a.shape


def _np_ndim(a):
    return a.ndim


def _np_size(a, axis=None):
    return a.size if axis is None else a.shape[axis]


def _np_clip(a, a_min=None, a_max=None, out=None, **kwargs):
    if kwargs or a_min is None or a_max is None:
        raise ArgumentTypeError("numpy.clip on kjarni arrays takes both bounds and no other options", "a_min")
    expr = _kjarni.clip(a, a_min, a_max)
    if out is None:
        return expr
    _kjarni.assign(_required_queue("numpy.clip", out, a), out, expr)
    return out


def _np_reshape(a, *args, **kwargs):
    shape = kwargs.pop("newshape", kwargs.pop("shape", None))
    if shape is None:
        shape, args = args[0], args[1:]
    order = kwargs.pop("order", args[0] if args else "C")
    from . import _algorithms
    return _algorithms.reshape(_required_queue("numpy.reshape", a), a, shape, order=order, **kwargs)


def _np_dot(a, b, out=None):
    """numpy.dot: the inner product of two vectors (kjarni's BLAS dot), else matrix products (a @ b)."""
    if out is not None:
        raise ArgumentError("numpy.dot on kjarni arrays takes no out", "out")
    if getattr(a, "ndim", 0) == 1 and getattr(b, "ndim", 0) == 1:
        return _with_queue("dot")(a, b)
    if not (isinstance(a, Array) and isinstance(b, Array) and 1 <= a.ndim <= 2 and 1 <= b.ndim <= 2):
        raise ArgumentTypeError("numpy.dot on kjarni arrays takes two arrays of 1 or 2 dimensions (numpy.matmul "
                                "or @ for stacks of matrices)", "a")
    return a @ b


def _np_round(a, decimals=0, out=None):
    return a.round(decimals, out)


def _functions():
    from . import _algorithms
    table = {
        numpy.sum: _reduction("sum"), numpy.prod: _reduction("prod"), numpy.mean: _reduction("mean"),
        numpy.min: _reduction("min"), numpy.max: _reduction("max"), numpy.argmin: _reduction("argmin"),
        numpy.argmax: _reduction("argmax"), numpy.any: _reduction("any"), numpy.all: _reduction("all"),
        numpy.where: _np_where, numpy.clip: _np_clip, numpy.transpose: _np_transpose, numpy.copy: _np_copy,
        numpy.shape: _np_shape, numpy.ndim: _np_ndim, numpy.size: _np_size, numpy.reshape: _np_reshape,
        numpy.may_share_memory: _kjarni.may_share_memory,
        numpy.split: lambda a, sections, axis=0: _algorithms.split(a, sections, axis),
    }
    for name in ("concatenate", "stack", "hstack", "vstack", "dstack", "cumsum", "cumprod", "take",
                 "ascontiguousarray", "asfortranarray"):
        table[getattr(numpy, name)] = _with_queue(name)
    table[numpy.dot] = _np_dot
    from . import _numpy_composed, _numpy_einsum, _numpy_elementwise, _numpy_linalg, _numpy_shapes, _numpy_sorting
    from . import _numpy_calculus, _numpy_statistics, _numpy_indexing, _numpy_sets, _numpy_polynomial
    for module in (_numpy_shapes, _numpy_elementwise, _numpy_sorting, _numpy_statistics, _numpy_linalg,
                   _numpy_composed, _numpy_einsum, _numpy_calculus, _numpy_indexing, _numpy_sets, _numpy_polynomial):
        table.update(module.functions())
    if hasattr(numpy, "around"):
        table[numpy.around] = _np_round
    # The array methods of kjarni/_methods.py, as numpy's functions of the same names.
    for name in ("std", "var", "ravel", "squeeze", "swapaxes"):
        table[getattr(numpy, name)] = (lambda name: lambda a, *args, **kwargs: getattr(a, name)(*args, **kwargs))(name)
    table[numpy.round] = _np_round
    for name in ("amin", "amax"):
        if hasattr(numpy, name):
            table[getattr(numpy, name)] = _reduction(name[1:])
    for name in ("nansum", "nanprod", "nanmean", "nanmin", "nanmax", "nanargmin", "nanargmax"):
        table[getattr(numpy, name)] = _reduction(name)
    for name in ("nanvar", "nanstd"):
        table[getattr(numpy, name)] = _nan_moment(name)
    return table


def _nan_moment(name):
    """numpy.nanvar / numpy.nanstd: (a, axis=None, dtype=None, out=None, ddof=0, keepdims=False)."""
    def call(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        from . import _algorithms
        queue = _required_queue(f"numpy.{name}", a)
        return getattr(_algorithms, name)(queue, a, axis, dtype, ddof, keepdims, out)
    return call


_FUNCTIONS = None


def _array_function(self, func, types, args, kwargs):
    global _FUNCTIONS
    if _FUNCTIONS is None:
        _FUNCTIONS = _functions()
    implementation = _FUNCTIONS.get(func)
    if implementation is None:
        module = getattr(func, "__module__", None) or "numpy"
        where = module if module.startswith("numpy.") else "numpy"  # numpy.linalg.inv, numpy.fft.fft
        raise ArgumentTypeError(f"{where}.{func.__name__} has no device counterpart in kjarni: copy to the host "
                                "first (x.get()), or use kjarni's functions", "func")
    if not builtins.all(issubclass(t, (Array, numpy.ndarray, Expr)) for t in types):
        return NotImplemented
    return _remembering_queue(implementation(*args, **kwargs), *args)


def _array_interface(self, dtype=None, copy=None):
    """A host copy (numpy.asarray(x), numpy.array(x)); ``copy=False`` raises ValueError, as numpy 2
    requires of an object that cannot give its data without a copy."""
    if copy is False:
        raise ValueError("a kjarni array lives in device memory: numpy cannot see it without a copy "
                         "(copy=False); use x.get() or numpy.asarray(x)")
    out = self.get()
    return out if dtype is None else out.astype(dtype, copy=False)


# ---- methods ---------------------------------------------------------------------------------------

def _keep_queue(view_of):
    """A view-making method whose result keeps the array's queue."""
    def method(self, *args, **kwargs):
        view = view_of(self, *args, **kwargs)
        queue = getattr(self, "queue", None)
        if queue is not None and isinstance(view, Array):
            view.queue = queue
        return view
    method.__name__ = getattr(view_of, "__name__", "view")
    method.__doc__ = getattr(view_of, "__doc__", None)
    return method


_cpp_copy = Array.copy
_cpp_astype = Array.astype
_cpp_transpose = Array.transpose


def _copy(self, queue=None, order="C"):
    """A copy on ``queue`` (the array's own when None), C- or Fortran-ordered."""
    queue = queue if queue is not None else _required_queue("copy()", self)
    out = _cpp_copy(self, queue, order)
    out.queue = queue
    return out


def _astype(self, *args, **kwargs):
    """``x.astype(dtype)`` (numpy's) or ``x.astype(queue, dtype)`` (kjarni's): a converted copy, or
    the array itself with ``copy=False`` when it has the dtype already."""
    if args and isinstance(args[0], (_kjarni.Queue,)):
        return _cpp_astype(self, *args, **kwargs)
    queue = kwargs.pop("queue", None) or _required_queue("astype()", self)
    return _cpp_astype(self, queue, *args, **kwargs)


def _transpose(self, *axes):
    if len(axes) == 1 and (axes[0] is None or not isinstance(axes[0], (int, numpy.integer))):
        axes = () if axes[0] is None else tuple(axes[0])
    # numpy's negative axes count from the end; one past either end is its AxisError.
    ndim = self.ndim
    for a in axes:
        if isinstance(a, (int, numpy.integer)) and not -ndim <= a < ndim:
            raise AxisError(f"transpose: axis {a} is out of range for an array of {ndim} dimensions", "axes")
    return _cpp_transpose(self, [a + ndim if isinstance(a, (int, numpy.integer)) and a < 0 else a for a in axes])


def _fill(self, value, queue=None):
    """Sets every element to ``value`` (a number, numpy scalar or 0-d expression). A number or
    numpy scalar is converted to the array's dtype by numpy itself, as numpy's fill converts it (a
    Python int past 64 bits into a float array; OverflowError for an int the dtype cannot hold)."""
    queue = queue if queue is not None else _required_queue("fill()", self)
    if not isinstance(value, (Array, Expr)) and numpy.ndim(value) == 0:
        converted = numpy.empty((), self.dtype)
        converted[()] = value
        value = converted[()]
    _kjarni.fill(queue, self, value)


def _expr_get(self, queue=None, dest=None):
    """Evaluates the expression on ``queue`` (by default the queue of its arrays, ``x.queue``) and
    returns the result as a numpy array."""
    from . import _algorithms
    queue = queue if queue is not None else _required_queue("get()", self)
    return _algorithms.evaluate(queue, self).get(queue, dest)


def _eq(self, other):
    return _remembering_queue(Expr(self) == other, self, other)


def _ne(self, other):
    return _remembering_queue(Expr(self) != other, self, other)


# numpy's operators that kjarni's expressions have but Array's and Expr's C++ operators do not bind
# (python/src/algorithms.cpp): through the array API layer's table of elementwise functions.
_ELEMENTWISE = _kjarni._array_api


def _binary_operator(name, reflected=False):
    def op(self, other):
        result = _ELEMENTWISE.binary(name, other, self) if reflected else _ELEMENTWISE.binary(name, self, other)
        return _remembering_queue(result, self, other)
    return op


_BINARY_OPERATORS = {"floordiv": "floor_divide", "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
                     "lshift": "bitwise_left_shift", "rshift": "bitwise_right_shift"}


def _invert(self):
    return _remembering_queue(_ELEMENTWISE.unary("bitwise_invert", self), self)


def _positive(self):
    if numpy.dtype(Expr(self).dtype) == numpy.bool_:
        # numpy 2 has no positive of booleans (its ufunc has no bool loop: a TypeError).
        raise ArgumentTypeError("numpy.positive (+x) is not defined for bool", "x")
    return _remembering_queue(_ELEMENTWISE.unary("positive", self), self)


def _divmod(self, other):
    return (_remembering_queue(_ELEMENTWISE.binary("floor_divide", self, other), self, other),
            _remembering_queue(_ELEMENTWISE.binary("remainder", self, other), self, other))


def _rdivmod(self, other):
    return (_remembering_queue(_ELEMENTWISE.binary("floor_divide", other, self), self, other),
            _remembering_queue(_ELEMENTWISE.binary("remainder", other, self), self, other))


def _operator_power(cpp_power):
    """numpy's ``x ** s`` operator: for a float or complex ``x``, numpy's array power takes a ufunc of
    its own for three exponents (its fast_scalar_power, numpy 2.4, measured): a Python int -1 is
    reciprocal, a Python int 2 square, a Python float 0.5 sqrt (not -1.0, 2.0, numpy's float64 or
    int64, which are np.power's). They differ from np.power for complex numbers (complex64 ``x **
    -1`` keeps the sign of a real part that underflows, np.power's division loses it; square is not
    power's product) and sqrt for floats too ((-0.0) ** 0.5 is -0.0, in float16 as well). kjarni's
    pow, and np.power through __array_ufunc__, follow np.power."""
    fast = {(int, -1): "reciprocal", (int, 2): "square", (float, 0.5): "sqrt"}

    def power(self, other):
        result = cpp_power(self, other)
        name = fast.get((type(other), other)) if type(other) in (int, float) else None
        if name is not None and numpy.dtype(Expr(self).dtype).kind in "fc":
            return _remembering_queue(_ELEMENTWISE.unary(name, self), self)
        return result
    power.__name__ = "__pow__"
    return power


def _in_place(operator_name):
    """``x += y`` (and the others) write into x, as numpy's do (without them Python would rebind x to
    an Expr and leave the array, and every view of it, unchanged): numpy's rules, the result cast
    into x's dtype by same_kind (numpy's UFuncTypeError, a TypeError, otherwise) and the operands
    broadcast to x's shape (ValueError otherwise)."""
    def method(self, other):
        expr = getattr(Expr, operator_name)(self, other) if hasattr(Expr, operator_name) \
            else getattr(Array, operator_name)(self, other)
        result = numpy.dtype(expr.dtype)
        if not numpy.can_cast(result, self.dtype, "same_kind"):
            raise ArgumentTypeError(f"cannot cast the result of {operator_name} from {result} to {self.dtype} with "
                                    "casting rule 'same_kind' (numpy's UFuncTypeError)", "other")
        if numpy.broadcast_shapes(tuple(expr.shape), self.shape) != self.shape:
            raise ArgumentError(f"non-broadcastable output operand with shape {self.shape} doesn't match the "
                                f"broadcast shape {tuple(expr.shape)}", "other")
        _kjarni.assign(_required_queue(f"x {operator_name}= y", self), self, expr)
        return self
    return method


def _setitem(self, key, value):
    """``x[key] = value`` for numpy's basic keys (integers, slices, None, Ellipsis): value (a number,
    a numpy scalar or array, a kjarni Array or Expr) converted to x's dtype as numpy converts it (a
    Python or numpy scalar through numpy's own setitem, with its errors: OverflowError for an
    integer out of range...; arrays by an unsafe cast, as numpy's assignment does) and broadcast
    into the view."""
    queue = _required_queue("x[key] = value", self)
    view = self[key]
    keys = key if isinstance(key, tuple) else (key,)
    if view.ndim == 0 and all(isinstance(k, (int, numpy.integer)) for k in keys) and numpy.ndim(value) > 0 \
            and not (self.dtype == numpy.bool_ and math.prod(numpy.shape(value)) == 1):
        # (numpy sets a bool element from any sequence of one element: its truth value.)
        raise ArgumentError("setting an array element with a sequence (numpy's ValueError)", "value")
    if isinstance(value, (Array, Expr)):
        if isinstance(value, Array):
            while value.ndim > view.ndim and value.shape[0] == 1:
                value = value[0]  # numpy drops leading axes of extent 1
        expr = Expr(value)
        if numpy.dtype(expr.dtype) != self.dtype:
            expr = expr.astype(self.dtype)
        shape = tuple(expr.shape)
    elif numpy.ndim(value) == 0:
        scalar = numpy.empty((), self.dtype)
        scalar[()] = value
        expr, shape = scalar, ()
    else:
        host = numpy.asarray(value).astype(self.dtype)
        while host.ndim > view.ndim and host.shape[0] == 1:
            host = host[0]  # numpy drops leading axes of extent 1
        expr = Array.from_host(queue, host)
        shape = host.shape
    if len(shape) > view.ndim or numpy.broadcast_shapes(shape, view.shape) != view.shape:
        raise ArgumentError(f"could not broadcast input array from shape {shape} into shape {view.shape}", "value")
    _kjarni.assign(queue, view, expr)


def attach():
    Array.__setitem__ = _setitem
    for name, function in _BINARY_OPERATORS.items():
        for cls in (Array, Expr):
            setattr(cls, f"__{name}__", _binary_operator(function))
            setattr(cls, f"__r{name}__", _binary_operator(function, reflected=True))
    for cls in (Array, Expr):
        cls.__invert__ = _invert
        cls.__pos__ = _positive
        cls.__divmod__ = _divmod
        cls.__rdivmod__ = _rdivmod
    power = _operator_power(Expr.__pow__)
    Array.__pow__ = Expr.__pow__ = power
    for name in ("add", "sub", "mul", "truediv", "mod", "pow", "floordiv", "and", "or", "xor", "lshift", "rshift"):
        setattr(Array, f"__i{name}__", _in_place(f"__{name}__"))
    Array.itemsize = property(lambda self: self.dtype.itemsize, doc="Bytes per element (numpy's itemsize).")
    for cls in (Array, Expr):
        cls.__array_ufunc__ = _array_ufunc
        cls.__array_function__ = _array_function
        cls.__array_priority__ = 100
    Array.__array__ = _array_interface
    Array.__eq__ = _eq
    Array.__ne__ = _ne
    Array.__hash__ = None  # compared elementwise, as numpy's arrays: not hashable
    for name in ("sum", "prod", "mean", "min", "max", "argmin", "argmax", "any", "all"):
        setattr(Array, name, _reduction(name))
        setattr(Expr, name, _reduction(name))
    Array.copy = _copy
    Array.astype = _astype
    Array.fill = _fill
    Array.__getitem__ = _keep_queue(Array.__getitem__)
    Array.reshape = _keep_queue(Array.reshape)
    Array.view = _keep_queue(Array.view)
    Array.transpose = _keep_queue(_transpose)
    Array.T = property(_keep_queue(lambda self: _cpp_transpose(self, [])), doc="The transpose (a view).")
    Expr.get = _expr_get
    # Advanced keys (integer and boolean arrays, lists, a scalar bool) around the basic ones above.
    from . import _advanced_index
    _advanced_index.install(_required_queue)
