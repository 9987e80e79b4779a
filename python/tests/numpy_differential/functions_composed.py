"""Programs of the numpy entry points kjarni composes in Python beyond functions.py's: the ufuncs of
two outputs (modf, divmod, with out= pairs) and of sums of products (vecdot, matvec, vecmat), and
the numpy functions of kjarni/_numpy_linalg.py (tensordot, linalg.vecdot, cov, corrcoef, convolve,
correlate), _numpy_composed.py (partition and argpartition, checked for what numpy guarantees;
bincount, histogram, interp, pad), _numpy_einsum.py (subscripts of a small grammar, one to three
operands) and _numpy_calculus.py (gradient ... lexsort). functions.py's docstring says how options,
refusals and bounds are drawn; its helpers serve here too."""

import warnings

import numpy as np

from . import bounds
from .bounds import INF
from .functions import (_axis_tuple, _out_argument, _program, _random_axis, _random_shape_nd, _try,
                        binary_ufunc_bound, device_input)
from .programs import Device, Host, dtype_argument, scalar_operand
from .values import broadcast_partner, pick, random_dtype, random_shape


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
    (gen_ufunc_two_outputs, 0.5), (gen_ufunc_products, 0.5), (gen_linalg, 1), (gen_composed, 1.5), (gen_einsum, 1),
    (gen_calculus, 1.5),
]
