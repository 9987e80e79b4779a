"""kjarni's Python layer against numpy, by random programs (python/tests/numpy_differential/).

The C++ library is checked against numpy by tests/numpy_fuzz; this checks what the Python package
adds over it: operators with Python and numpy scalars on either side (NEP 50's weak scalars),
comparisons, ufuncs through ``__array_ufunc__``, in-place operators, ``__getitem__`` /
``__setitem__``, reductions and scans with their keywords (axis, keepdims, dtype as a string, a
numpy type or a numpy dtype, out=, ddof), astype, the shape methods, fill, and numpy's protocols
(len, bool, int, float, iteration, ``__array__``); the other ufuncs of kjarni's expressions (floor
... arctanh, arctan2, hypot, the logical and bitwise ones, fabs; out= too) and the numpy functions
kjarni composes in Python (numpy_differential/functions.py: *_like, views, splits, flips, take,
repeat, tile, sorting and searching, median, quantile, average, norm, partition, bincount, histogram,
interp, pad, einsum, tensordot, cov, convolve, gradient, cross, polyval, lexsort...). Each program runs
once with numpy arrays and once with kjarni arrays; both must raise, or agree in dtype, shape and
values (exact for integers, booleans and selections; floats within the bounds of
numpy_differential/bounds.py).

Bounded for CI: the first KJARNI_PY_FUZZ_PROGRAMS (default 4000; 0 for no bound) programs of
KJARNI_PY_FUZZ_SEED (default 20261202), within KJARNI_PY_FUZZ_SECONDS (default 45). The count,
not the time, bounds a CI run: a faster machine must not reach programs nobody has run (one did:
program 6238 of the default seed, past what the CI machine reached in 45 s); long runs set all
three (and KJARNI_PY_FUZZ_LOG=path appends every difference's reproduction there). Every program
that agrees is checked once more with one element of kjarni's result moved just past its bound:
the comparison must catch it (the self-check)."""

import os

import numpy as np
import pytest

import numpy_differential
from numpy_differential import bounds, compare, programs

SECONDS = float(os.environ.get("KJARNI_PY_FUZZ_SECONDS", "45"))
SEED = int(os.environ.get("KJARNI_PY_FUZZ_SEED", "20261202"))
PROGRAMS = int(os.environ.get("KJARNI_PY_FUZZ_PROGRAMS", "4000")) or None
LOG = os.environ.get("KJARNI_PY_FUZZ_LOG")


def _first_array(outcome):
    """The first array of an outcome (compare.py's ("device", array) pairs, in tuples for out=)."""
    while isinstance(outcome, tuple) and not (len(outcome) == 2 and outcome[0] in ("device", "host")):
        outcome = outcome[0]
    return np.asarray(outcome[1] if isinstance(outcome, tuple) else outcome)


def documented_difference(program, np_outcome, kj_outcome):
    """The differences this run counts instead of failing, by name: each documented in
    docs/numpy-differences.md ("Differences by design that the fuzzer does not exercise"); None for
    a difference that fails the test."""
    np_ok, np_value = np_outcome
    kj_ok, kj_value = kj_outcome
    name = program.name
    # numpy's ufunc reductions (sum, min, argmax...) of a 0-d array take axis 0 and -1; kjarni
    # refuses them as out of range (documented).
    if name.startswith("reduce ") and np_ok and not kj_ok and "0 dimensions" in str(kj_value):
        return "reduce-0d-axis (documented)"
    # numpy.count_nonzero with an axis is numpy's sum over it: the same quirk for a 0-d array.
    if name == "function count_nonzero" and np_ok and not kj_ok and "0 dimensions" in str(kj_value):
        return "reduce-0d-axis (documented)"
    # argmin / argmax over a tuple of axes: kjarni takes any set of axes (the flat index over them),
    # numpy one axis or all: docs/numpy-differences.md, "Differences by design that the fuzzer does
    # not exercise" (by design, not a finding).
    if name in ("reduce argmin", "reduce argmax") and not np_ok and kj_ok and "tuple" in str(np_value):
        return "argmin-argmax-axes (documented)"
    # numpy.argsort of kjarni arrays is numpy's kind="stable" whatever kind asks (documented): with
    # numpy's default kind, equal elements' indices may come in another order; both must still sort.
    if name == "function argsort" and np_ok and kj_ok and "stable" not in program.code:
        n, k = (_first_array(v) for v in (np_value, kj_value))
        a = np.asarray(program.inputs["a"].numpy())
        axis = -1 if "axis=" not in program.code else program.code.split("axis=")[1].split(")")[0].split(",")[0]
        if axis == "None" or a.ndim == 0:
            a, axis = a.ravel(), "0"
        if n.shape == k.shape and n.dtype == k.dtype:
            axis = int(axis)
            if np.array_equal(np.take_along_axis(a, n, axis), np.take_along_axis(a, k, axis), equal_nan=True):
                return "argsort-stable (documented)"
    # min / max of complex values where a slice holds several elements with a NaN part: numpy returns
    # the first of them, kjarni one of them (its lanes take strided runs); both are complex NaN, which
    # the comparison takes as equal, but an out= of a real or integer type shows their parts.
    if name in ("reduce min", "reduce max") and np_ok and kj_ok and "out=" in program.code:
        bases = [getattr(v, "base", None) for v in program.inputs.values()]
        complex_nans = [np.count_nonzero(np.isnan(b)) for b in bases if isinstance(b, np.ndarray) and b.dtype.kind == "c"]
        if complex_nans and max(complex_nans) >= 2:
            return "complex-min-max-several-nan (documented)"
    # prod of floats whose partial products leave the type's range in one order and not in the
    # other (numpy multiplies in sequence, kjarni's lanes take strided runs): every element that
    # differs is 0 or infinite on exactly one side.
    if name == "reduce prod" and np_ok and kj_ok:
        n, k = (_first_array(v) for v in (np_value, kj_value))
        if n.dtype.kind in "fc" and n.shape == k.shape:
            with np.errstate(all="ignore"):
                extreme = lambda v: (np.abs(v) == 0) | np.isinf(np.abs(v))  # noqa: E731
                differ = ~np.isclose(n, k, rtol=1e-3, atol=0, equal_nan=True)
                if differ.any() and np.all(extreme(n)[differ] != extreme(k)[differ]):
                    return "prod-partials-range (documented)"
    # numpy.einsum's optimize= on kjarni arrays is ignored: kjarni contracts as numpy's optimize=False
    # (documented); numpy 2.4's optimized path contracts pairwise by matmul, each pair in its own
    # result type, with the ufuncs' casting rule: its values round (or wrap) otherwise, and it takes
    # casts kjarni's 'safe' default refuses. The same dtype and shape, or kjarni's casting refusal.
    if name == "function einsum" and "optimize=" in program.code and "optimize=False" not in program.code \
            and np_ok:
        if not kj_ok and "according to the rule" in str(kj_value):
            return "einsum-optimize (documented)"
        n, k = (_first_array(v) for v in (np_value, kj_value)) if kj_ok else (None, None)
        if kj_ok and n.dtype == k.dtype and n.shape == k.shape:
            return "einsum-optimize (documented)"
    return None


def _log(index, program, message):
    if LOG:
        with open(LOG, "a") as f:
            f.write(f"--- program {index} of seed {SEED} ({program.name}): {message}\n{program.source()}\n\n")


def test_random_programs_agree_with_numpy(queue):
    report = numpy_differential.run(queue, SEED, seconds=SECONDS, max_programs=PROGRAMS, skip=documented_difference, on_difference=_log)
    print(report.summary())
    assert report.programs > 0
    assert not report.differences, report.summary() + "\n" + report.describe()
    # The self-check ran: the comparison can fail.
    assert report.self_checks > 0, report.summary()


# ---- fixed cases: differences the fuzzer found, kept (each fails without its fix) -------------------

def _agree(queue, program):
    np_outcome = compare.run_numpy(program)
    kj_outcome = compare.run_kjarni(program, queue)
    message = compare.compare_outcomes(program, np_outcome, kj_outcome)
    assert message is None, message + "\n" + program.source()


def test_the_comparison_catches_a_moved_element(queue):
    """The comparison is not vacuous: one element off by one ulp past the bound, or an integer off by
    one, is a difference."""
    base = np.array([1.0, 2.5, -3.0], np.float32)
    program = programs.Program("check", "r = a * s", {"a": programs.Device(base), "s": programs.Host(2.0)},
                               programs.elementwise_bound("basic", ("a", "s"), "*"))
    np_outcome = compare.run_numpy(program)
    kj_outcome = compare.run_kjarni(program, queue)
    assert compare.compare_outcomes(program, np_outcome, kj_outcome) is None
    kind, value = kj_outcome[1]
    moved = value.copy()
    moved[1] = moved[1] + 3 * np.spacing(moved[1])  # 3 ulps: past the 1-ulp bound of a product
    assert compare.compare_outcomes(program, np_outcome, (True, (kind, moved))) is not None
    ints = programs.Program("check", "r = a + 1", {"a": programs.Device(np.arange(4, dtype=np.int16))}, None)
    np_outcome = compare.run_numpy(ints)
    kind, value = compare.run_kjarni(ints, queue)[1]
    moved = value.copy()
    moved[3] += 1
    assert compare.compare_outcomes(ints, np_outcome, (True, (kind, moved))) is not None
    # dtype and shape differences, and one side raising, are differences too.
    assert compare.compare_outcomes(ints, np_outcome, (True, (kind, value.astype(np.int32)))) is not None
    assert compare.compare_outcomes(ints, np_outcome, (True, (kind, value[:2]))) is not None
    assert compare.compare_outcomes(ints, np_outcome, (False, ValueError("x"))) is not None


def _ints(values, dtype=np.int16):
    return programs.Device(np.array(values, dtype))


# Each case failed before its fix, in the Python layer (python/kjarni/*.py) unless it says otherwise; the
# fuzzer found them.
FIXED = [
    # _array.py: Array.from_host of a 0-d numpy array made a (1,) array (numpy.ascontiguousarray
    # gives at least one axis): every 0-d operand, and every result computed from one, was 1-d.
    ("0-d from_host", "r = (a + 1, a.shape, np.asarray(a).shape)", {"a": programs.Device(np.array(2.5, np.float32))}),
    # _numpy.py: in-place operators wrote nothing (Python rebound `a` to an Expr: `a0` and the views
    # of the array kept the old values), and took what numpy refuses (int16 += 1.5).
    ("in-place", "a0 = a\nv = a[1:]\na += s\na *= b\na -= 1\nr = (a0, v, a is a0)",
     {"a": _ints([1, -2, 3]), "b": _ints([2]), "s": programs.Host(7)}),
    ("in-place refused", "a += 1.5\nr = a", {"a": _ints([1, 2])}),
    ("in-place shape", "a += b\nr = a", {"a": _ints([1, 2]), "b": _ints([[1, 2], [3, 4]])}),
    # _methods.py: iteration ran past the end (kjarni's index raises ArgumentError, not IndexError).
    ("iteration", "r = list(a) + [x for x in a[::-1]]", {"a": _ints([4, 5, 6])}),
    # _numpy.py: //, &, |, ^, <<, >>, ~, unary + and divmod were missing on arrays and expressions.
    ("operators", "r = (a // s, s // a, a & s, s | a, a ^ s, a << 1, 9 >> a, ~a, +a, divmod(a, s), (a + 1) // 2)",
     {"a": _ints([1, -2, 3]), "s": programs.Host(3)}),
    ("positive of bool", "r = np.positive(a)", {"a": programs.Device(np.array([True, False]))}),
    # _numpy.py: no itemsize; numpy.transpose(a, axes) lost the array's queue.
    ("itemsize and transpose", "r = (a.itemsize, np.transpose(a, [1, 0]))", {"a": _ints([[1, 2, 3], [4, 5, 6]])}),
    # _methods.py: std and var of integers and booleans raised TypeError; with nothing reduced (a
    # 0-d array, axis=()) they returned the values themselves; float16 raised ValueError.
    ("moments", "r = (a.std(), np.var(a, ddof=1), a.var(axis=()), b.var(), b.std(ddof=1), c.std(axis=0))",
     {"a": _ints([1, 2, 4, 8]), "b": programs.Device(np.array(5.0)),
      "c": programs.Device(np.array([1.5, 2.0, 4.0], np.float16))}),
    # _numpy.py: item assignment was missing.
    ("setitem", "a[1:, ::-1] = s\na[0] = b\na[..., 1] = 2.75\nr = a",
     {"a": _ints([[1, 2, 3], [4, 5, 6], [7, 8, 9]]), "b": _ints([[-1, -2, -3]], np.int8), "s": programs.Host(-4)}),
    ("setitem out of range", "a[0] = 40000\nr = a", {"a": _ints([1, 2])}),
    ("setitem sequence into an element", "a[1] = b\nr = a", {"a": _ints([1, 2]), "b": _ints([5])}),
    # _array.py: reshape refused where numpy copies (no view has the shape); _methods.py: no
    # operator.index of a 0-d integer array.
    ("reshape copies", "r = (a.T.reshape(-1), a[:, ::2].reshape(4), operator.index(a[1, 2]))",
     {"a": _ints([[1, 2, 3, 4], [5, 6, 7, 8]])}),
    # reduction.cpp (not the Python layer): mean with an integer or bool dtype= divided in that
    # dtype; numpy divides the sum in float64 and converts back (mean of bools with dtype=bool is
    # True where any is; of int8 -1 with dtype=uint64 0, as 2**64 - 1 rounds to 2**64; -inf into
    # int64 through numpy's x86 conversion).
    ("mean with an integer dtype",
     "r = (np.mean(b, dtype=bool), np.mean(b, axis=1, dtype=bool), np.mean(a, dtype=np.uint64), "
     "np.mean(a, axis=0, dtype=np.int8), np.mean(f, dtype=np.int64), np.mean(f, dtype=np.uint16))",
     {"a": _ints([[-71, -84, 37], [-1, 5, 100]], np.int8),
      "b": programs.Device(np.array([[True, False, False], [False, False, False]])),
      "f": programs.Device(np.array([1.5, -np.inf, 2.0, 7.25], np.float32))}),
]


@pytest.mark.parametrize("case", FIXED, ids=[c[0] for c in FIXED])
def test_fixed_differences(queue, case):
    name, code, inputs = case
    _agree(queue, programs.Program(name, code, inputs, lambda ref, ns: None if ref.dtype.kind not in "fc"
                                   else bounds.rounding(ref, ref.dtype, "sqrt", factor=4.0)))
