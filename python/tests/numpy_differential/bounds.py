"""How far kjarni's floating-point results may lie from numpy's, per element (absolute bounds).

The ulps are the C++ fuzzer's table, read from it (tests/numpy_fuzz/fuzz/bounds.py;
docs/numpy-differences.md, "How results are compared"): kjarni's side OpenCL C's table of maximum
errors in ulps (OpenCL 1.2 section 7.4, which CUDA's documented errors stay within), numpy's side
half an ulp for + - * / and four for its SIMD transcendentals; both sides the smallest normal
number as absolute slack (a device may flush denormals). Here each program is one operation on
exact inputs, so a bound is the rounding of that one operation (no carried input errors). A bound
of inf skips the element: an element whose correct answer is not unique (a result at the edge of
overflow, a sum whose partial sums overflow in one order of addition only)."""

import importlib
import importlib.util
import math
import sys
from pathlib import Path

import numpy as np

INF = math.inf


def _numpy_fuzz_bounds():
    """tests/numpy_fuzz/fuzz/bounds.py, the C++ fuzzer's, loaded as a package of its own name (its
    relative imports need one; "fuzz" alone could meet another module of that name)."""
    name = "kjarni_numpy_fuzz"
    if name not in sys.modules:
        folder = Path(__file__).resolve().parents[3] / "tests" / "numpy_fuzz" / "fuzz"
        spec = importlib.util.spec_from_file_location(name, folder / "__init__.py",
                                                      submodule_search_locations=[str(folder)])
        package = importlib.util.module_from_spec(spec)
        sys.modules[name] = package
        spec.loader.exec_module(package)
    return importlib.import_module(name + ".bounds")


# Maximum error of one operation in ulps of its result: (kjarni's side, numpy's side); one table for
# both fuzzers.
ULPS = _numpy_fuzz_bounds().ULPS


def real_dtype(dtype):
    dtype = np.dtype(dtype)
    return np.dtype(dtype.char.lower()) if dtype.kind == "c" else dtype


def eps(dtype):
    return float(np.finfo(real_dtype(dtype)).eps)


def tiny(dtype):
    return float(np.finfo(real_dtype(dtype)).tiny)


def largest(dtype):
    return float(np.finfo(real_dtype(dtype)).max)


def magnitude(x):
    a = np.asarray(x)
    with np.errstate(all="ignore"):
        if a.dtype.kind == "c":
            return np.abs(a.astype(np.complex128))
        return np.abs(a.astype(np.float64))


def rounding(result, dtype, key, scale=None, factor=1.0):
    """(kjarni's + numpy's ulps) x eps x scale (default |result|) + 2 tiny; inf where the scale
    (or the result) is past the largest finite number but the result finite: one side may have
    overflowed where the other did not."""
    k, n = ULPS[key]
    with np.errstate(all="ignore"):
        s = magnitude(result) if scale is None else np.asarray(scale, dtype=np.float64)
        if np.asarray(result).dtype.kind == "c" and scale is None:
            parts = np.asarray(result).astype(np.complex128)
            finite = np.maximum(np.where(np.isfinite(parts.real), np.abs(parts.real), 0.0),
                                np.where(np.isfinite(parts.imag), np.abs(parts.imag), 0.0))
            s = np.where(np.isfinite(s), s, finite)
        out = factor * (k + n) * eps(dtype) * s + 2 * tiny(dtype)
        out = np.where(np.isfinite(out), out, INF)
        return near_top(result, dtype, out)


def near_top(result, dtype, bound):
    """inf where |result| (or the value one bound away) reaches the largest finite number: numpy's
    inf may be the other side's largest finite value, and the other way round."""
    with np.errstate(all="ignore"):
        m = magnitude(result)
        top = largest(dtype)
        near = np.isfinite(m) & (m + np.asarray(bound) >= top * (1 - 64 * eps(dtype)))
        return np.where(near, INF, bound)


def summation_ulps(n):
    """Roundings in a sum of n terms, both sides together, in ulps of the accumulator (the C++
    fuzzer's bounds.summation_ulps: numpy's pairwise summation, kjarni's accumulators and trees)."""
    if n <= 1:
        return 0.0
    lg = math.ceil(math.log2(n))
    return 0.5 * (min(n - 1, 16 + lg) + 16 + 2 * lg)
