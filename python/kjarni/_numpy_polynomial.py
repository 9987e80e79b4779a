"""numpy's small math, sequence, polynomial and bit-packing functions on kjarni arrays, each numpy
2.4's definition followed step by step on the arrays' queue: fix, isposinf, isneginf, iscomplex,
isreal, iscomplexobj, isrealobj, real_if_close, sinc, i0, unwrap, vander, vdot, linspace, logspace,
geomspace, polyadd, polysub, polymul, polyder, polyint, poly, packbits and unpackbits.
kjarni/_numpy_common.py says what they share. Where numpy gives a scalar (vdot), the result is a
0-d Array; where numpy's result type or an error depends on the values (real_if_close, poly of
complex roots, geomspace's zeros), the one answer deciding it is read back."""

import builtins
import operator

import numpy

from . import _kjarni
from .errors import ArgumentError, ArgumentTypeError
from ._numpy_common import Array, Expr, _queue, _evaluated, _refuse, _axes, _new_like, _all_true
from ._numpy_linalg import _on_device, _vecdot, _convolve
from ._numpy_shapes import real, imag

_unary = _kjarni._array_api.unary
_binary = _kjarni._array_api.binary


def _finished(queue, value):
    """An Array of `value` on `queue` (an Expr evaluated)."""
    value = _evaluated(queue, value)
    value.queue = queue
    return value


def _is_device(x):
    return isinstance(x, (Array, Expr))


def _power(a, b):
    """numpy's power ufunc (not the ``**`` operator's scalar shortcuts)."""
    from ._numpy import _UFUNCS
    return _UFUNCS["power"](a, b)


def _with_out(queue, what, value, out):
    """A ufunc's result `value` (an Expr), or written into the kjarni array `out` (numpy's same_kind
    casting and broadcasting rules) and `out` returned."""
    if out is None:
        return value
    if isinstance(out, tuple) and len(out) == 1:
        out = out[0]
    if not isinstance(out, Array):
        raise ArgumentTypeError(f"numpy.{what}: out= must be a kjarni Array", "out")
    value = Expr(value)
    if not numpy.can_cast(numpy.dtype(value.dtype), out.dtype, "same_kind"):
        raise ArgumentTypeError(f"numpy.{what}: cannot cast the result from {numpy.dtype(value.dtype)} to "
                                f"{out.dtype} with casting rule 'same_kind' (numpy's UFuncTypeError)", "out")
    if numpy.broadcast_shapes(tuple(value.shape), tuple(out.shape)) != tuple(out.shape):
        raise ArgumentError(f"numpy.{what}: non-broadcastable output operand with shape {tuple(out.shape)} doesn't "
                            f"match the broadcast shape {tuple(value.shape)}", "out")
    _kjarni.assign(queue, out, value if numpy.dtype(value.dtype) == out.dtype else value.astype(out.dtype))
    return out


# ---- elementwise: fix, isposinf, isneginf, iscomplex, isreal, sinc, i0 -------------------------------

def _fix(x, out=None):
    # numpy 2.4's: trunc(x, out=out).
    queue = _queue("fix", x, out)
    return _with_out(queue, "fix", _unary("trunc", _on_device(queue, x)), out)


def _infinity_of_sign(name, positive):
    def call(x, out=None):
        # numpy's: logical_and(isinf(x), ~signbit(x) or signbit(x)); complex has no signbit.
        queue = _queue(name, x, out)
        x = _on_device(queue, x)
        if numpy.dtype(x.dtype).kind == "c":
            raise ArgumentTypeError(f"numpy.{name}: This operation is not supported for {numpy.dtype(x.dtype)} "
                                    "values because it would be ambiguous.", "x")
        sign = _unary("signbit", x)
        result = _binary("logical_and", _unary("isinf", x), _unary("logical_not", sign) if positive else sign)
        return _with_out(queue, name, result, out)
    return call


def _iscomplex(x):
    # numpy's: imag(x) != 0 for complex arrays, else all False (a new array).
    queue = _queue("iscomplex", x)
    x = _on_device(queue, x)
    if numpy.dtype(x.dtype).kind == "c":
        return Expr(imag(x)) != 0
    return _new_like("iscomplex", x, numpy.bool_, None, False)


def _isreal(x):
    # numpy's: imag(x) == 0 (all True where x is not complex).
    queue = _queue("isreal", x)
    x = _on_device(queue, x)
    if numpy.dtype(x.dtype).kind == "c":
        return Expr(imag(x)) == 0
    return _new_like("isreal", x, numpy.bool_, None, True)


def _dtype_of(x):
    return numpy.dtype(x.dtype) if hasattr(x, "dtype") else numpy.asarray(x).dtype


def _iscomplexobj(x):
    return _dtype_of(x).kind == "c"


def _isrealobj(x):
    return _dtype_of(x).kind != "c"


def _real_if_close(a, tol=100):
    # numpy's: a complex array whose imaginary parts are all below tol (in machine epsilons when
    # tol > 1) becomes its real parts (a view). The result's dtype depends on the values: the one
    # answer is read back.
    queue = _queue("real_if_close", a)
    a = _on_device(queue, a)
    dtype = numpy.dtype(a.dtype)
    if dtype.kind != "c":
        return a
    if tol > 1:
        tol = numpy.finfo(dtype).eps * tol
    if _all_true(queue, _kjarni.absolute(imag(a)) < tol):
        return real(a)
    return a


def _sinc(x):
    # numpy's: y = pi x, where(y, y, eps) (eps of y's float type, 1e-20 for complex), sin(y) / y.
    queue = _queue("sinc", x)
    x = _on_device(queue, x)
    y = _finished(queue, numpy.pi * Expr(x))
    dtype = numpy.dtype(y.dtype)
    eps = numpy.finfo(dtype).eps if dtype.kind == "f" else 1e-20
    y = _finished(queue, _kjarni.where(Expr(y) != 0, y, eps))
    return _kjarni.sin(y) / y


# numpy's Chebyshev coefficients for i0 (Cephes'): on [0, 8] in x/2 - 2, and on (8, inf) in
# 32/x - 2 (there times exp(x) / sqrt(x)).
_I0A = [
    -4.41534164647933937950e-18, 3.33079451882223809783e-17, -2.43127984654795469359e-16,
    1.71539128555513303061e-15, -1.16853328779934516808e-14, 7.67618549860493561688e-14,
    -4.85644678311192946090e-13, 2.95505266312963983461e-12, -1.72682629144155570723e-11,
    9.67580903537323691224e-11, -5.18979560163526290666e-10, 2.65982372468238665035e-9,
    -1.30002500998624804212e-8, 6.04699502254191894932e-8, -2.67079385394061173391e-7,
    1.11738753912010371815e-6, -4.41673835845875056359e-6, 1.64484480707288970893e-5,
    -5.75419501008210370398e-5, 1.88502885095841655729e-4, -5.76375574538582365885e-4,
    1.63947561694133579842e-3, -4.32430999505057594430e-3, 1.05464603945949983183e-2,
    -2.37374148058994688156e-2, 4.93052842396707084878e-2, -9.49010970480476444210e-2,
    1.71620901522208775349e-1, -3.04682672343198398683e-1, 6.76795274409476084995e-1]
_I0B = [
    -7.23318048787475395456e-18, -4.83050448594418207126e-18, 4.46562142029675999901e-17,
    3.46122286769746109310e-17, -2.82762398051658348494e-16, -3.42548561967721913462e-16,
    1.77256013305652638360e-15, 3.81168066935262242075e-15, -9.55484669882830764870e-15,
    -4.15056934728722208663e-14, 1.54008621752140982691e-14, 3.85277838274214270114e-13,
    7.18012445138366623367e-13, -1.79417853150680611778e-12, -1.32158118404477131188e-11,
    -3.14991652796324136454e-11, 1.18891471078464383424e-11, 4.94060238822496958910e-10,
    3.39623202570838634515e-9, 2.26666899049817806459e-8, 2.04891858946906374183e-7,
    2.89137052083475648297e-6, 6.88975834691682398426e-5, 3.36911647825569408990e-3,
    8.04490411014108831608e-1]


def _chebyshev(queue, t, coefficients):
    """numpy's _chbevl: Clenshaw's recurrence b0 = t b1 - b2 + c_i, then (b0 - b2) / 2, each step
    evaluated (as numpy's), b1 and b2 starting as Python floats."""
    b0, b1 = coefficients[0], 0.0
    for c in coefficients[1:]:
        b2, b1 = b1, b0
        b0 = _finished(queue, Expr(t) * b1 - b2 + c)
    return 0.5 * (Expr(b0) - b2)


def _i0(x):
    # numpy's: |x| in x's float type (integers as float64), then piecewise on x <= 8: exp(x) times
    # the first series, else exp(x) times the second over sqrt(x); both series are evaluated
    # everywhere and one selected (numpy evaluates each on its part).
    queue = _queue("i0", x)
    x = _on_device(queue, x)
    kind = numpy.dtype(x.dtype).kind
    if kind == "c":
        raise ArgumentTypeError("numpy.i0 not supported for complex values", "x")
    if kind != "f":
        x = _on_device(queue, x, numpy.float64)
    x = _finished(queue, _kjarni.absolute(x))
    low = _finished(queue, _kjarni.exp(x) * _chebyshev(queue, _finished(queue, Expr(x) / 2.0 - 2), _I0A))
    high = _finished(queue, _kjarni.exp(x) * _chebyshev(queue, _finished(queue, 32.0 / Expr(x) - 2.0), _I0B)
                     / _kjarni.sqrt(x))
    return _finished(queue, _kjarni.where(Expr(x) <= 8.0, low, high))


# ---- unwrap, vander, vdot ------------------------------------------------------------------------------

def _host_scalar(what, name, value):
    if _is_device(value) or numpy.ndim(value) != 0:
        _refuse(what, f"{name} other than a number")
    return value


def _unwrap(p, discont=None, axis=-1, *, period=2 * numpy.pi):
    # numpy's: the differences along `axis` taken into [-period/2, period/2) (integer periods as
    # integers), those at least `discont` replaced by that, their running sum added to p[1:] in
    # result_type(differences, period).
    queue = _queue("unwrap", p)
    p = _on_device(queue, p)
    period = _host_scalar("unwrap", "period", period)
    if discont is not None:
        discont = _host_scalar("unwrap", "discont", discont)
    if p.ndim == 0:
        raise ArgumentError("numpy.unwrap: diff requires input that is at least one dimensional", "p")
    (ax,) = _axes(axis, p.ndim, "unwrap")
    from ._numpy_elementwise import _diff
    dd = _diff(p, axis=ax)
    if discont is None:
        discont = period / 2
    dtype = numpy.result_type(dd.dtype, period)
    if dtype.kind in "iub":
        interval_high, rem = divmod(period, 2)
        boundary_ambiguous = rem == 0
    else:
        interval_high = period / 2
        boundary_ambiguous = True
    interval_low = -interval_high
    ddmod = _finished(queue, (Expr(dd) - interval_low) % period + interval_low)
    if boundary_ambiguous:
        # numpy's copyto(ddmod, interval_high, where=...): the value cast to ddmod's dtype
        high = numpy.asarray(interval_high).astype(ddmod.dtype)[()]
        ddmod = _finished(queue, _kjarni.where((Expr(ddmod) == interval_low) & (Expr(dd) > 0), high, ddmod))
    ph_correct = Expr(ddmod) - dd
    zero = numpy.zeros((), numpy.dtype(ph_correct.dtype))[()]
    ph_correct = _finished(queue, _kjarni.where(_kjarni.absolute(dd) < discont, zero, ph_correct))
    from . import _algorithms
    up = _finished(queue, Expr(p).astype(dtype))
    later = tuple(slice(1, None) if k == ax else slice(None) for k in range(p.ndim))
    summed = Expr(p[later]) + _algorithms.cumsum(queue, ph_correct, ax)
    _kjarni.assign(queue, up[later], summed if numpy.dtype(summed.dtype) == dtype else summed.astype(dtype))
    return up


def _vander(x, N=None, increasing=False):
    # numpy's: the columns 1, x, x*x, ... (numpy's multiply.accumulate, one product per column, in
    # promote_types(x, int)), the highest power first unless `increasing`.
    queue = _queue("vander", x)
    x = _on_device(queue, x)
    if x.ndim != 1:
        raise ArgumentError("numpy.vander: x must be a one-dimensional array or sequence.", "x")
    n = x.shape[0]
    N = n if N is None else operator.index(N)
    if N < 0:
        raise ArgumentError("numpy.vander: negative dimensions are not allowed", "N")
    dtype = numpy.promote_types(x.dtype, int)
    v = _new_like("vander", x, dtype, (n, N), None)
    tmp = v if increasing else v[:, ::-1]
    if N > 0:
        tmp[:, 0].fill(1, queue)
    if N > 1:
        column = Expr(x) if numpy.dtype(x.dtype) == dtype else Expr(x).astype(dtype)
        _kjarni.assign(queue, tmp[:, 1], column)
        for k in range(2, N):
            _kjarni.assign(queue, tmp[:, k], Expr(tmp[:, k - 1]) * tmp[:, 1])
    return v


def _flat(queue, x):
    from . import _algorithms
    flat = _algorithms.reshape(queue, x, (-1,))
    flat.queue = queue
    return flat


def _vdot(a, b, /):
    # numpy's: the dot of the flattened arrays, the first conjugated, in result_type(a, b).
    queue = _queue("vdot", a, b)
    a, b = _flat(queue, _on_device(queue, a)), _flat(queue, _on_device(queue, b))
    if a.shape[0] != b.shape[0]:
        raise ArgumentError("numpy.vdot: vectors have different lengths", "b")
    return _vecdot(a, b)


# ---- linspace, logspace, geomspace ----------------------------------------------------------------------

def _operand(queue, x):
    """A start or stop: a kjarni array as it is, a Python number as it is (numpy's weak scalar),
    anything else as numpy.asarray makes it, on the device."""
    if _is_device(x):
        return _on_device(queue, x)
    if type(x) in (bool, int, float, complex):
        return x
    return _on_device(queue, numpy.asarray(x))


def _typed(x, dtype):
    """x (a kjarni array or a Python number) converted to `dtype`: an Expr, or a numpy scalar."""
    if _is_device(x):
        return Expr(x) if numpy.dtype(x.dtype) == dtype else Expr(x).astype(dtype)
    return numpy.asarray(x).astype(dtype)[()]


def _promotable(x):
    return x.dtype if _is_device(x) else x


def _linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, device=None):
    # numpy's: arange(num) times step = (stop - start) / div (or divided by div, then times the
    # difference, where any step is zero: a denormal difference), plus start, the last one stop,
    # in result_type(start, stop) made inexact; the steps along a new axis 0, moved to `axis`.
    if device is not None:
        _refuse("linspace", "device")
    num = operator.index(num)
    if num < 0:
        raise ArgumentError(f"numpy.linspace: Number of samples, {num}, must be non-negative.", "num")
    queue = _queue("linspace", start, stop)
    start, stop = _operand(queue, start), _operand(queue, stop)
    div = (num - 1) if endpoint else num
    dt = numpy.result_type(_promotable(start), _promotable(stop))
    if dt.kind not in "fc":
        dt = numpy.result_type(dt, 0.0)
    integer_dtype = dtype is not None and numpy.issubdtype(dtype, numpy.integer)
    if integer_dtype and dt.kind == "c":
        raise ArgumentTypeError("numpy.linspace: ufunc 'floor' not supported for complex values", "dtype")
    dtype = dt if dtype is None else numpy.dtype(dtype)
    delta = _finished(queue, Expr(_typed(stop, dt)) - _typed(start, dt))
    y = Array.from_host(queue, numpy.arange(0, num, dtype=dt).reshape((-1,) + (1,) * delta.ndim))
    y.queue = queue
    if div > 0:
        step = _finished(queue, Expr(delta) / div)
        from . import _algorithms
        any_step_zero = _algorithms.any(queue, _finished(queue, Expr(step) == 0))
        # (numpy's branch for all elements: both computed, one taken, on the device)
        y = _finished(queue, _kjarni.where(any_step_zero, (Expr(y) / div) * delta, Expr(y) * step))
    else:
        step = numpy.nan
        y = _finished(queue, Expr(y) * delta)
    # (y + start evaluated apart from the product: no fused multiply-add where numpy rounds twice)
    y = _finished(queue, Expr(y) + start)
    if endpoint and num > 1:
        if _is_device(stop):
            _kjarni.assign(queue, y[-1], _typed(stop, dt))
        else:
            y[-1].fill(_typed(stop, dt), queue)
    if axis != 0:
        from ._numpy_shapes import _moveaxis
        y = _moveaxis(y, 0, axis)
        y.queue = queue
    if integer_dtype:
        y = _finished(queue, _unary("floor", y))
    if numpy.dtype(y.dtype) != dtype:
        y = _finished(queue, Expr(y).astype(dtype))
    return (y, step) if retstep else y


def _logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    # numpy's: base ** linspace(start, stop); a base of more than one element is broadcast with
    # start and stop first (all three then arrays: Python numbers strong), and given an axis at `axis`.
    queue = _queue("logspace", start, stop, base)
    if not isinstance(base, (float, int)) and numpy.ndim(base):
        base = _on_device(queue, base)
        start, stop = (_on_device(queue, numpy.asarray(x)) if not _is_device(x) else _on_device(queue, x)
                       for x in (start, stop))
        ndmax = len(numpy.broadcast_shapes(start.shape, stop.shape, base.shape))
        start, stop, base = (x.reshape((1,) * (ndmax - x.ndim) + tuple(x.shape)) for x in (start, stop, base))
        from ._numpy_shapes import _expand_dims
        base = _expand_dims(base, axis)
        base.queue = queue
    elif _is_device(base):
        base = _on_device(queue, base)
    y = _linspace(start, stop, num=num, endpoint=endpoint, axis=axis)
    result = _finished(queue, _power(base, y))
    if dtype is not None and numpy.dtype(dtype) != numpy.dtype(result.dtype):
        result = _finished(queue, Expr(result).astype(dtype))
    return result


def _geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    # numpy's: start and stop (numpy arrays: Python numbers strong) in dt = result_type(start, stop,
    # float(num), zeros((), dtype)), rotated by start's sign onto the positive reals, logspace of
    # their log10s, the ends set to them exactly, rotated back. Whether any is zero (numpy's
    # ValueError) is read back.
    queue = _queue("geomspace", start, stop)
    start, stop = (_on_device(queue, x if _is_device(x) else numpy.asanyarray(x)) for x in (start, stop))
    if not (_all_true(queue, Expr(start) != 0) and _all_true(queue, Expr(stop) != 0)):
        raise ArgumentError("numpy.geomspace: Geometric sequence cannot include zero", "start")
    dt = numpy.result_type(start.dtype, stop.dtype, float(num), numpy.zeros((), dtype))
    dtype = dt if dtype is None else numpy.dtype(dtype)
    start, stop = _on_device(queue, start, dt), _on_device(queue, stop, dt)
    out_sign = _finished(queue, _unary("sign", start))
    start = _finished(queue, Expr(start) / out_sign)
    stop = _finished(queue, Expr(stop) / out_sign)
    log_start = _finished(queue, _unary("log10", start))
    log_stop = _finished(queue, _unary("log10", stop))
    result = _logspace(log_start, log_stop, num=num, endpoint=endpoint, base=10.0, dtype=dt)
    if num > 0:
        _kjarni.assign(queue, result[0], start)
        if num > 1 and endpoint:
            _kjarni.assign(queue, result[-1], stop)
    result = _finished(queue, Expr(result) * out_sign)
    if axis != 0:
        from ._numpy_shapes import _moveaxis
        result = _moveaxis(result, 0, axis)
        result.queue = queue
    if numpy.dtype(result.dtype) != dtype:
        result = _finished(queue, Expr(result).astype(dtype))
    return result


# ---- polynomials ------------------------------------------------------------------------------------------

def _polynomial(queue, what, p):
    """numpy's atleast_1d of a coefficient array, on the device (a poly1d refused)."""
    if isinstance(p, numpy.poly1d):
        _refuse(what, "poly1d")
    p = _on_device(queue, p)
    return p.reshape(1) if p.ndim == 0 else p


def _polyadd_or_sub(what, subtract):
    def call(a1, a2):
        # numpy's: the shorter one given leading zeros of its dtype, then added (subtracted).
        queue = _queue(what, a1, a2)
        a1, a2 = _polynomial(queue, what, a1), _polynomial(queue, what, a2)
        if subtract and numpy.result_type(a1.dtype, a2.dtype) == numpy.bool_:
            # (numpy's subtract refuses booleans whatever the shapes)
            raise ArgumentTypeError("numpy.polysub: numpy boolean subtract, the `-` operator, is not supported", "a1")
        diff = a2.shape[0] - a1.shape[0]
        from . import _algorithms
        if diff > 0:
            a1 = _algorithms.concatenate(queue, [_new_like(what, a1, None, (diff,), 0), a1])
        elif diff < 0:
            a2 = _algorithms.concatenate(queue, [_new_like(what, a2, None, (-diff,), 0), a2])
        return _finished(queue, Expr(a1) - a2 if subtract else Expr(a1) + a2)
    return call


def _trimmed(queue, p):
    """numpy's poly1d(p).coeffs: p without its leading zeros ([0] where all are). The count, which
    decides the shape, is read back."""
    if p.ndim > 1:
        raise ArgumentError("numpy.polymul: Polynomial must be 1d only.", "a1")
    if p.shape[0] == 0:
        return _new_like("polymul", p, None, (1,), 0)
    from . import _algorithms
    nonzero = _finished(queue, Expr(p) != 0)
    if not builtins.bool(_algorithms.any(queue, nonzero).get(queue)):
        return _new_like("polymul", p, None, (1,), 0)
    first = int(_algorithms.argmax(queue, nonzero).get(queue))
    trimmed = p[first:]
    trimmed.queue = queue
    return trimmed


def _polymul(a1, a2):
    # numpy's: convolve of the two coefficient arrays as poly1d makes them (leading zeros trimmed).
    queue = _queue("polymul", a1, a2)
    return _convolve(*(_trimmed(queue, _polynomial(queue, "polymul", a)) for a in (a1, a2)))


def _descending(queue, n):
    """numpy's arange(n, 0, -1) (int64) on the device."""
    return Array.from_host(queue, numpy.arange(n, 0, -1))


def _length(what, p):
    if p.ndim == 0:
        raise ArgumentTypeError(f"numpy.{what}: len() of unsized object", "p")
    return p.shape[0]


def _polyder(p, m=1):
    # numpy's: m times, p[:-1] * arange(n, 0, -1) (an int64 array: strong).
    m = int(m)
    if m < 0:
        raise ArgumentError("numpy.polyder: Order of derivative must be positive (see polyint)", "m")
    if isinstance(p, numpy.poly1d):
        _refuse("polyder", "poly1d")
    queue = _queue("polyder", p)
    p = _on_device(queue, p)
    for _ in range(m):
        n = _length("polyder", p) - 1
        p = _finished(queue, Expr(p[:-1]) * _descending(queue, n))
    # (numpy's recursion makes one product more than it returns, m = 0 too: its errors, for a 0-d
    # p or rows that do not broadcast with the factors)
    n = _length("polyder", p) - 1
    try:
        numpy.broadcast_shapes((builtins.max(n, 0),) + tuple(p.shape[1:]), (builtins.max(n, 0),))
    except ValueError:
        raise ArgumentError(f"numpy.polyder: operands could not be broadcast together with shapes "
                            f"{(builtins.max(n, 0),) + tuple(p.shape[1:])} ({builtins.max(n, 0)},)", "p") from None
    return p


def _polyint(p, m=1, k=None):
    # numpy's: m times, p / arange(len(p), 0, -1) followed by the next integration constant (k's
    # first element, k a float64 array of m zeros by default, one value repeated m times).
    m = int(m)
    if m < 0:
        raise ArgumentError("numpy.polyint: Order of integral must be positive (see polyder)", "m")
    if isinstance(p, numpy.poly1d):
        _refuse("polyint", "poly1d")
    queue = _queue("polyint", p, k)
    if k is None:
        k = numpy.zeros(m, float)
    k = _on_device(queue, k)
    k = k.reshape(1) if k.ndim == 0 else k
    if k.shape[0] == 1 and m > 1:
        wide = numpy.result_type(k.dtype, numpy.float64)
        k = _finished(queue, Expr(_new_like("polyint", k, wide, (m,), 1)) * k[0])
    if k.shape[0] < m:
        raise ArgumentError("numpy.polyint: k must be a scalar or a rank-1 array of length 1 or >m.", "k")
    p = _on_device(queue, p)
    from . import _algorithms
    for i in range(m):
        quotient = _finished(queue, Expr(p) / _descending(queue, _length("polyint", p)))
        dtype = numpy.result_type(quotient.dtype, k.dtype)
        p = _algorithms.concatenate(queue, [_on_device(queue, quotient, dtype), _on_device(queue, k[i:i + 1], dtype)])
        p.queue = queue
    return p


def _lexicographic(queue, re, im):
    """The permutation that sorts complex values by real part, then imaginary part (numpy's
    order of complex numbers without NaNs), -0.0 as 0.0."""
    from ._numpy_calculus import _lexsort
    return _lexsort([_finished(queue, Expr(im) + 0.0), _finished(queue, Expr(re) + 0.0)])


def _poly(seq_of_zeros):
    # numpy's: the coefficients of prod (x - z), by convolving [1] with [1, -z] root by root, in
    # mintypecode of the roots' type; complex coefficients become real where the roots come in
    # conjugate pairs (numpy compares the sorted roots with their sorted conjugates: the answer,
    # which decides the result's dtype, is read back).
    queue = _queue("poly", seq_of_zeros)
    roots = _on_device(queue, seq_of_zeros)
    roots = roots.reshape(1) if roots.ndim == 0 else roots
    shape = tuple(roots.shape)
    if len(shape) == 2 and shape[0] == shape[1] and shape[0] != 0:
        _refuse("poly", "square matrix (its eigenvalues)")
    if len(shape) != 1:
        raise ArgumentError("numpy.poly: input must be 1d or non-empty square 2d array.", "seq_of_zeros")
    dt = numpy.dtype(numpy.mintypecode(numpy.dtype(roots.dtype).char))
    roots = _on_device(queue, roots, dt)
    if roots.shape[0] == 0:
        return 1.0
    one = dt.type(1)
    a = _new_like("poly", roots, dt, (1,), 1)
    for i in range(roots.shape[0]):
        # numpy's convolve(a, [1, -z]): a[0] * 1, a[k - 1] * -z + a[k] * 1, a[-1] * -z
        negative = -Expr(roots[i:i + 1])
        n = a.shape[0]
        b = _new_like("poly", a, dt, (n + 1,), None)
        _kjarni.assign(queue, b[0:1], Expr(a[0:1]) * one)
        _kjarni.assign(queue, b[n:], Expr(a[n - 1:]) * negative)
        if n > 1:
            _kjarni.assign(queue, b[1:n], Expr(a[:-1]) * negative + Expr(a[1:]) * one)
        a = b
    if dt.kind == "c":
        if not _all_true(queue, _unary("logical_not", _unary("isnan", roots))):
            return a
        from . import _algorithms
        re, im = real(roots), imag(roots)
        conjugate_im = _finished(queue, -Expr(im))
        sorted_roots = _algorithms.take(queue, roots, _lexicographic(queue, re, im))
        conjugates = _finished(queue, _unary("conjugate", roots))
        sorted_conjugates = _algorithms.take(queue, conjugates, _lexicographic(queue, re, conjugate_im))
        if _all_true(queue, Expr(sorted_roots) == sorted_conjugates):
            a = _finished(queue, Expr(real(a)))
    return a


# ---- packbits, unpackbits ---------------------------------------------------------------------------------

def _bitorder(what, bitorder):
    """numpy's: a str (TypeError otherwise), 'little' or 'big' for packbits, any word beginning
    with 'l' or 'b' for unpackbits (ValueError otherwise); checked before the array's dtype."""
    if not isinstance(bitorder, str):
        raise ArgumentTypeError(f"numpy.{what}: bitorder must be str, not {type(bitorder).__name__}", "bitorder")
    if what == "packbits" and bitorder not in ("big", "little"):
        raise ArgumentError("numpy.packbits: 'order' must be either 'little' or 'big'", "bitorder")
    if what == "unpackbits" and bitorder[:1] not in ("b", "l"):
        raise ArgumentError("numpy.unpackbits: 'order' must begin with 'l' or 'b'", "bitorder")
    return "big" if bitorder[0] == "b" else "little"


def _bit_axis(queue, what, a, axis):
    """a flattened (axis None) or as it is, and the axis numpy packs along."""
    if axis is None:
        return _flat(queue, a), 0
    if a.ndim == 0:
        a = a.reshape(1)  # (numpy's PyArray_CheckAxis: a 0-d array as one element along axis 0)
        a.queue = queue
    (ax,) = _axes(axis, a.ndim, what)
    return a, ax


def _shifts(queue, bitorder, ndim_after):
    """The 8 bit positions, first bit first, shaped to broadcast along an axis with `ndim_after`
    axes after it."""
    order = numpy.arange(8, dtype=numpy.uint8)
    if bitorder == "big":
        order = order[::-1].copy()
    return Array.from_host(queue, order.reshape((8,) + (1,) * ndim_after))


def _packbits(a, /, axis=None, bitorder="big"):
    # numpy's: each element's truth value a bit, 8 along `axis` (zeros after the last) to a uint8,
    # the first the most significant bit (the least for bitorder 'little').
    queue = _queue("packbits", a)
    a = _on_device(queue, a)
    bitorder = _bitorder("packbits", bitorder)
    if numpy.dtype(a.dtype).kind not in "biu":
        raise ArgumentTypeError("numpy.packbits: Expected an input array of integer or boolean data type", "a")
    a, ax = _bit_axis(queue, "packbits", a, axis)
    n = a.shape[ax]
    m = (n + 7) // 8
    shape = tuple(a.shape)
    padded = _new_like("packbits", a, numpy.uint8, shape[:ax] + (8 * m,) + shape[ax + 1:], 0)
    if padded.size:
        _kjarni.assign(queue, padded[tuple(slice(0, n) if k == ax else slice(None) for k in range(a.ndim))],
                       (Expr(a) != 0).astype(numpy.uint8))
    grouped = padded.reshape(shape[:ax] + (m, 8) + shape[ax + 1:])
    if padded.size == 0:
        return _new_like("packbits", a, numpy.uint8, shape[:ax] + (m,) + shape[ax + 1:], 0)
    bits = _finished(queue, _binary("bitwise_left_shift", grouped, _shifts(queue, bitorder, a.ndim - ax - 1)))
    from . import _algorithms
    result = _algorithms.sum(queue, bits, ax + 1, numpy.uint8)
    result.queue = queue
    return result


def _unpackbits(a, /, axis=None, count=None, bitorder="big"):
    # numpy's: each uint8 along `axis` as 8 elements 0 or 1, the most significant bit first (the
    # least for bitorder 'little'), the first `count` of them kept (negative: that many fewer;
    # past the end: zeros).
    queue = _queue("unpackbits", a)
    a = _on_device(queue, a)
    bitorder = _bitorder("unpackbits", bitorder)
    if numpy.dtype(a.dtype) != numpy.uint8:
        raise ArgumentTypeError("numpy.unpackbits: Expected an input array of unsigned byte data type", "a")
    a, ax = _bit_axis(queue, "unpackbits", a, axis)
    n = a.shape[ax]
    shape = tuple(a.shape)
    total = 8 * n
    if count is None:
        count = total
    else:
        count = operator.index(count)
        if count < 0:
            count += total
            if count < 0:
                raise ArgumentError("numpy.unpackbits: -count larger than number of elements", "count")
    result = _new_like("unpackbits", a, numpy.uint8, shape[:ax] + (count,) + shape[ax + 1:], 0)
    kept = builtins.min(count, total)
    if result.size and kept:
        spread = a.reshape(shape[:ax] + (n, 1) + shape[ax + 1:])
        bits = _finished(queue, _binary("bitwise_right_shift", spread, _shifts(queue, bitorder, a.ndim - ax - 1)) & 1)
        bits = bits.reshape(shape[:ax] + (total,) + shape[ax + 1:])
        at = lambda key: tuple(key if k == ax else slice(None) for k in range(a.ndim))  # noqa: E731
        _kjarni.assign(queue, result[at(slice(0, kept))], bits[at(slice(0, kept))])
    return result


def functions():
    """numpy's function object -> its composition here (those numpy has)."""
    table = {
        "fix": _fix, "isposinf": _infinity_of_sign("isposinf", True), "isneginf": _infinity_of_sign("isneginf", False),
        "iscomplex": _iscomplex, "isreal": _isreal, "iscomplexobj": _iscomplexobj, "isrealobj": _isrealobj,
        "real_if_close": _real_if_close, "sinc": _sinc, "i0": _i0, "unwrap": _unwrap, "vander": _vander,
        "vdot": _vdot, "linspace": _linspace, "logspace": _logspace, "geomspace": _geomspace,
        "polyadd": _polyadd_or_sub("polyadd", False), "polysub": _polyadd_or_sub("polysub", True),
        "polymul": _polymul, "polyder": _polyder, "polyint": _polyint, "poly": _poly,
        "packbits": _packbits, "unpackbits": _unpackbits,
    }
    return {getattr(numpy, name): f for name, f in table.items() if hasattr(numpy, name)}
