"""How far kjarni's float results may lie from numpy's: an absolute bound per element.

Every value the oracle computes carries, beside numpy's result, `err`: a bound on |kjarni - numpy|
for each element (0 where both must agree exactly; inf where the comparison cannot be decided, an
element then skipped). It grows in two ways at each operation:

- the inputs' own bounds, carried through the operation by its condition (first order, with the
  magnitudes of the operands: |b| e_a + |a| e_b for a product, e / |a| for a logarithm...);
- the rounding of the result on each side: ulps of the result's dtype, from the accuracy each side
  promises. kjarni's side takes OpenCL C's table of maximum errors (OpenCL 1.2, section 7.4: 0.5 ulp
  for + - *, 2.5 ulp for / and 3 for sqrt in single precision, 3 for exp and log, 4 for sin, cos
  and hypot,
  5 for tanh, 16 for pow; CUDA's documented errors lie within these), numpy's side 0.5 ulp for the
  basic operations and 4 for its SIMD transcendentals. Both sides also get the smallest normal
  number as absolute slack (a device may flush denormals).

A decision taken on uncertain inputs (a comparison of values closer than their bounds, a float
converted to an integer near a step, a value near a branch cut or the edge of a domain) makes the
result's bound inf: numpy's answer is not the only right one there.
"""

import math

import numpy as np

from . import dtypes

INF = math.inf

# Maximum error of one operation in ulps of its result: (kjarni's side, numpy's side).
ULPS = {
    "basic": (0.5, 0.5),
    "divide": (2.5, 0.5),
    "sqrt": (3.0, 0.5),
    "hypot": (4.0, 1.0),
    "exp": (3.0, 4.0),
    "log": (3.0, 4.0),
    "sin": (4.0, 4.0),
    "cos": (4.0, 4.0),
    "tanh": (5.0, 4.0),
    "power": (16.0, 4.0),
    # The other functions of OpenCL 1.2's table (single precision), numpy's SIMD ones at 4.
    "log2": (3.0, 4.0),
    "log10": (3.0, 4.0),
    "log1p": (2.0, 4.0),
    "expm1": (3.0, 4.0),
    "exp2": (3.0, 4.0),
    "tan": (5.0, 4.0),
    "arcsin": (4.0, 4.0),
    "arccos": (4.0, 4.0),
    "arctan": (5.0, 4.0),
    "sinh": (4.0, 4.0),
    "cosh": (4.0, 4.0),
    "arcsinh": (4.0, 4.0),
    "arccosh": (4.0, 4.0),
    "arctanh": (5.0, 4.0),
    "arctan2": (6.0, 4.0),
    "cbrt": (2.0, 1.0),
    # logaddexp and logaddexp2: the larger operand plus log1p of exp of the difference: exp's and
    # log1p's roundings on a term below ln 2 (1), then the sum's (scaled by |result| + 1).
    "logaddexp": (6.0, 9.0),
}


def magnitude(x):
    """|x| as float64 (complex: the modulus), for bounds only."""
    a = np.asarray(x)
    if a.dtype.kind == "c":
        return np.abs(a.astype(np.complex128))
    return np.abs(a.astype(np.float64))


def mul(x, y):
    """x * y for bounds: 0 * inf is 0 (an exact zero stays exact)."""
    with np.errstate(all="ignore"):
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        return np.where((x == 0) | (y == 0), 0.0, x * y)


def rounding(result, dtype, ulps_key, scale=None):
    """The rounding budget of one operation: (kjarni's + numpy's ulps) x eps x scale (default
    |result|), plus the smallest normal number on each side."""
    if not dtypes.is_inexact(dtype):
        return 0.0
    k, n = ULPS[ulps_key]
    s = magnitude(result) if scale is None else scale
    with np.errstate(all="ignore"):
        if scale is None and np.asarray(result).dtype.kind == "c":
            # A complex result with one infinite part: its finite part is bounded by its own size
            # (compare.py compares such values part by part), the infinite one exactly.
            parts = np.asarray(result).astype(np.complex128)
            finite_part = np.maximum(np.where(np.isfinite(parts.real), np.abs(parts.real), 0.0),
                                     np.where(np.isfinite(parts.imag), np.abs(parts.imag), 0.0))
            s = np.where(np.isfinite(s), s, finite_part)
        out = (k + n) * dtypes.eps(dtype) * s + 2 * dtypes.tiny(dtype)
        # A finite result whose scale overflowed cannot be bounded; a non-finite one is compared exactly.
        return np.where(np.isfinite(out), out, np.where(np.isfinite(magnitude(result)), INF, 0.0))


def uncertain_where(err, condition):
    """err, inf where `condition`."""
    return np.where(condition, INF, err)


def finish(result, err, input_errors):
    """The bound of a result: inf wherever an input was undecided; where the result is NaN, 0 if
    the NaN is certain (its inputs were exact) else inf; for a float result near the largest
    finite number (within its bound), inf, since one side may overflow and the other not."""
    result = np.asarray(result)
    with np.errstate(all="ignore"):
        err = np.broadcast_to(np.asarray(err, dtype=np.float64), result.shape).copy()
        undecided = np.zeros(result.shape, dtype=bool)
        carried = np.zeros(result.shape, dtype=np.float64)
        for e in input_errors:
            e = np.broadcast_to(np.asarray(e, dtype=np.float64), result.shape)
            undecided |= np.isinf(e)
            carried = np.maximum(carried, e)
        err[undecided] = INF
        nan_err = np.isnan(err)
        if dtypes.is_inexact(result.dtype):
            nan_value = np.isnan(result)
            settle = nan_value & ~undecided
            err[settle] = np.where((carried[settle] > 0) | np.isinf(err[settle]), INF, 0.0)
            nan_err &= ~nan_value
            top = dtypes.largest(result.dtype)
            m = magnitude(result)
            near_top = np.isfinite(m) & (m + err > top * (1 - 64 * dtypes.eps(result.dtype)))
            err[near_top] = INF
        err[nan_err] = INF
    return err


def near_overflow(exact, dtype, budget_ulps=64):
    """Where a result numpy rounded to inf is so close to the largest finite number that the other
    side may have stayed finite (`exact`: the result computed in a wider type)."""
    if not dtypes.is_inexact(dtype):
        return np.zeros(np.shape(exact), dtype=bool)
    top = dtypes.largest(dtype)
    m = magnitude(exact)
    return np.isfinite(m) & (m > top * (1 - budget_ulps * dtypes.eps(dtype))) & (m < top * (1 + budget_ulps * dtypes.eps(dtype)))


def summation_ulps(n):
    """Roundings in a sum of n terms, both sides together (in ulps of the accumulator): numpy's
    pairwise summation (blocks of 128 added by 8 accumulators, then halves: at most 16 + log2 n
    roundings on a path) and kjarni's reductions (a few sequential accumulators per work item, then
    trees: budgeted 16 + 2 log2 n). The sum's error is then at most ulps x eps x sum|x_i|."""
    if n <= 1:
        return 0.0
    lg = math.ceil(math.log2(n))
    return 0.5 * (min(n - 1, 16 + lg) + 16 + 2 * lg)
