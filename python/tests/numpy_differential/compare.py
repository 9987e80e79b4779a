"""Running a program on both sides and comparing the outcomes."""

import math
import operator
import warnings

import numpy as np

# Exceptions kjarni may answer numpy's errors with: its own (kjarni.errors; ArgumentError is a
# ValueError, ArgumentTypeError a TypeError too) and Python's for the same faults. Anything else
# (AttributeError: a method missing; RuntimeError, SystemError: a crash of the binding) is a
# difference even where numpy raised too.
ACCEPTED_ERRORS = (TypeError, ValueError, IndexError, OverflowError, ZeroDivisionError, LookupError)


class Difference(Exception):
    pass


def _namespace(program, side, queue):
    import kjarni
    ns = {"np": np, "kjarni": kjarni, "operator": operator}
    for name, v in program.inputs.items():
        ns[name] = v.numpy() if side == "numpy" else v.kjarni(queue)
    return ns


def _realize(value, queue):
    """kjarni's result as host values: an Array read back, an Expr evaluated on the queue."""
    import kjarni
    if isinstance(value, kjarni.Expr):
        return ("device", kjarni.evaluate(queue, value).get())
    if isinstance(value, kjarni.Array):
        return ("device", value.get())
    if isinstance(value, tuple):
        return tuple(_realize(v, queue) for v in value)
    if isinstance(value, list):
        return [_realize(v, queue) for v in value]
    return ("host", value)


def _host(value):
    if isinstance(value, tuple):
        return tuple(_host(v) for v in value)
    if isinstance(value, list):
        return [_host(v) for v in value]
    if isinstance(value, (np.ndarray, np.generic)):
        return ("device", value)  # an array result: compared with kjarni's device arrays
    return ("host", value)


def run_numpy(program):
    ns = _namespace(program, "numpy", None)
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(program.code, ns)
            return True, _host(ns["r"])
    except Exception as e:  # noqa: BLE001 (any exception is an outcome)
        return False, e


def run_kjarni(program, queue):
    ns = _namespace(program, "kjarni", queue)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(program.code, ns)
            return True, _realize(ns["r"], queue)
    except Exception as e:  # noqa: BLE001
        return False, e


def compare_outcomes(program, np_outcome, kj_outcome):
    """None when they agree, else a message. Raises nothing."""
    np_ok, np_value = np_outcome
    kj_ok, kj_value = kj_outcome
    if not np_ok and not kj_ok:
        if not isinstance(kj_value, ACCEPTED_ERRORS):
            return f"numpy raised {type(np_value).__name__}: {np_value}; kjarni raised {type(kj_value).__name__}: {kj_value}"
        return None
    if not np_ok:
        return f"numpy raised {type(np_value).__name__}: {np_value}; kjarni did not (got {_short(kj_value)})"
    if not kj_ok:
        return f"kjarni raised {type(kj_value).__name__}: {kj_value}; numpy gave {_short(np_value)}"
    ns = _namespace(program, "numpy", None)
    try:
        _compare(program, np_value, kj_value, ns, "r")
    except Difference as d:
        return str(d)
    except Exception as e:  # noqa: BLE001 (the fuzzer's own fault: reported, not hidden)
        return f"the comparison failed: {type(e).__name__}: {e}"
    return None


def _short(v):
    text = repr(v)
    return text if len(text) < 300 else text[:300] + "..."


def _compare(program, ref, got, ns, where):
    if isinstance(ref, (tuple, list)) and not (isinstance(ref, tuple) and len(ref) == 2 and ref[0] in ("device", "host")):
        if type(got) is not type(ref) or len(got) != len(ref):
            raise Difference(f"{where}: numpy gave {type(ref).__name__} of {len(ref)}, kjarni {_short(got)}")
        for i, (x, y) in enumerate(zip(ref, got)):
            _compare(program, x, y, ns, f"{where}[{i}]")
        return
    rkind, rv = ref
    if not (isinstance(got, tuple) and len(got) == 2 and got[0] in ("device", "host")):
        raise Difference(f"{where}: numpy gave {_short(rv)}, kjarni {_short(got)}")
    gkind, gv = got
    if rkind == "host":
        # A Python value (len, int(), float(), bool(), item(), tolist(), shapes, dtypes): the same type
        # and value.
        if gkind != "host" or type(gv) is not type(rv) or not _same_python(rv, gv):
            raise Difference(f"{where}: numpy gave {type(rv).__name__} {_short(rv)}, kjarni "
                             f"{type(gv).__name__} {_short(gv)}")
        return
    # An array (numpy's scalar results included: kjarni's reductions give 0-d arrays, by design).
    if gkind == "host" and not isinstance(gv, (np.ndarray, np.generic)):
        raise Difference(f"{where}: numpy gave an array {_short(rv)}, kjarni {type(gv).__name__} {_short(gv)}")
    r = np.asarray(rv)
    g = np.asarray(gv)
    if r.dtype != g.dtype:
        raise Difference(f"{where}: dtype: numpy {r.dtype}, kjarni {g.dtype}")
    if r.shape != g.shape:
        raise Difference(f"{where}: shape: numpy {r.shape}, kjarni {g.shape}")
    bad = mismatches(program, r, g, ns)
    if bad is not None:
        raise Difference(f"{where}: {bad}")


def _same_python(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if isinstance(a, complex) and isinstance(b, complex):
        return _same_python(a.real, b.real) and _same_python(a.imag, b.imag)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same_python(x, y) for x, y in zip(a, b))
    return a == b


def mismatches(program, r, g, ns):
    """None when every element of kjarni's `g` lies within the bound of numpy's `r`; else a message."""
    if r.size == 0:
        return None
    if r.dtype.kind not in "fc":
        if r.dtype.fields is None and r.dtype.kind in "iu" and program.integer_rounding is not None:
            # Within the float result's rounding, in the integer's wrapping arithmetic.
            modulus = 2 ** (8 * r.dtype.itemsize)
            gaps = [(int(x) - int(y)) % modulus for x, y in zip(r.ravel().tolist(), g.ravel().tolist())]
            gap = np.array([min(d, modulus - d) for d in gaps], dtype=np.float64).reshape(r.shape)
            wrong = gap > program.integer_rounding * np.abs(r.astype(np.float64)) + 1
        elif r.dtype.fields is None and r.dtype.kind in "biu":
            wrong = r != g
        else:
            wrong = np.array([not _same_python(x, y) for x, y in zip(r.ravel().tolist(), g.ravel().tolist())])
        return _report(wrong, r, g) if wrong.any() else None
    bound = program.bound(r, ns) if program.bound is not None else None
    parts = [(r.real, g.real), (r.imag, g.imag)] if r.dtype.kind == "c" else [(r, g)]
    wrong = np.zeros(r.shape, dtype=bool)
    for rp, gp in parts:
        rp = rp.astype(np.float64)
        gp = gp.astype(np.float64)
        with np.errstate(all="ignore"):
            both_nan = np.isnan(rp) & np.isnan(gp)
            if bound is None:
                ok = (rp == gp) | both_nan
            else:
                b = np.broadcast_to(np.asarray(bound, dtype=np.float64), r.shape)
                skip = np.isinf(b)
                finite = np.isfinite(rp) & np.isfinite(gp)
                ok = both_nan | skip | (rp == gp) | (finite & (np.abs(rp - gp) <= b))
            if program.sign:
                zeros = (rp == 0) & (gp == 0)
                ok &= ~zeros | (np.signbit(rp) == np.signbit(gp)) | (np.isinf(b) if bound is not None else False)
        wrong |= ~ok
    if r.dtype.kind == "c":
        # A complex NaN (either part NaN) meets any complex NaN, as in the C++ fuzzer
        # (docs/numpy-differences.md, "How results are compared"): which of a slice's NaNs min and max
        # return is their combining order (numpy nan+1j, kjarni inf+nanj of one reversed view).
        def cnan(x):
            return np.isnan(x.real) | np.isnan(x.imag)
        wrong &= ~(cnan(r) & cnan(g))
    return _report(wrong, r, g, bound) if wrong.any() else None


def _report(wrong, r, g, bound=None):
    idx = np.argwhere(wrong)[:4] if r.ndim else [()]
    items = []
    for i in idx:
        i = tuple(int(x) for x in i)
        b = "" if bound is None else f" (bound {np.broadcast_to(bound, r.shape)[i]:.3g})"
        items.append(f"at {i}: numpy {r[i]!r}, kjarni {g[i]!r}{b}")
    return f"{int(np.count_nonzero(wrong))} of {r.size} elements differ: " + "; ".join(items)


def perturbed(program, kj_value, ns):
    """kjarni's outcome with one element moved just past its bound (None when nothing can be
    moved: no array, or every element skipped). The self-check: the comparison must catch it."""
    def first_array(v, path):
        if isinstance(v, tuple) and len(v) == 2 and v[0] in ("device", "host"):
            kind, x = v
            if kind == "device" and np.asarray(x).size > 0 and np.asarray(x).dtype.kind in "biufc":
                return path
            return None
        if isinstance(v, (tuple, list)):
            for i, item in enumerate(v):
                p = first_array(item, path + (i,))
                if p is not None:
                    return p
        return None
    path = first_array(kj_value, ())
    if path is None:
        return None

    def replace(v, path, fn):
        if not path:
            return fn(v)
        items = list(v)
        items[path[0]] = replace(items[path[0]], path[1:], fn)
        return type(v)(items)

    def move(v):
        kind, x = v
        x = np.array(x, copy=True)
        flat = x.reshape(-1)
        if x.dtype.kind == "b":
            flat[0] = not flat[0]
            return (kind, x)
        if x.dtype.kind in "iu" and program.integer_rounding is not None:
            # Just past the allowed gap, wrapping as the integer does.
            modulus = 2 ** (8 * x.dtype.itemsize)
            step = int(program.integer_rounding * abs(float(flat[0]))) + 2
            if step >= modulus // 2:
                return None
            info = np.iinfo(x.dtype)
            flat[0] = (int(flat[0]) + step - info.min) % modulus + info.min
            return (kind, x)
        if x.dtype.kind in "iu":
            flat[0] = flat[0] + 1 if flat[0] < np.iinfo(x.dtype).max else flat[0] - 1
            return (kind, x)
        bound = program.bound(x, ns) if program.bound is not None else None
        b = 0.0 if bound is None else float(np.broadcast_to(bound, x.shape).reshape(-1)[0])
        if not math.isfinite(b):
            return None
        with np.errstate(all="ignore"):
            real = flat[0].real if x.dtype.kind == "c" else flat[0]
            if not np.isfinite(real):
                new = 0.0
            else:
                step = 2 * b + max(abs(float(real)) * bounds_eps(x.dtype) * 4, bounds_tiny(x.dtype) * 4, 1e-30)
                new = float(real) + step if float(real) < 0 or abs(float(real)) < 1e300 else float(real) - step
            if x.dtype.kind == "c":
                # (a complex NaN meets any complex NaN: a NaN part goes too)
                flat[0] = complex(new, 0.0 if np.isnan(flat[0].imag) else flat[0].imag)
            else:
                flat[0] = new
            if flat[0].real == real:  # the step vanished in the dtype's rounding
                return None
        return (kind, x)
    result = [None]

    def fn(v):
        moved = move(v)
        if moved is None:
            raise LookupError
        return moved
    try:
        return replace(kj_value, path, fn)
    except LookupError:
        return None


def bounds_eps(dtype):
    from .bounds import eps
    return eps(dtype)


def bounds_tiny(dtype):
    from .bounds import tiny
    return tiny(dtype)
