"""Comparing kjarni's run of a program with numpy's: exactly for booleans, integers and indices,
within the oracle's bound for floats (bounds.py), errors against errors. The first operation where
the two part is the difference (what follows it depends on it); then the arrays at the end, where
writes through views show."""

from dataclasses import dataclass, field

import numpy as np

from . import dtypes

# The kjarni exceptions that answer numpy's refusal: a bad argument, or something the device or
# API cannot do.
TYPED_REFUSALS = {"ArgumentError", "ArgumentTypeError", "AxisError", "IndexOutOfBoundsError", "ScalarOverflowError",
                  "UnsupportedError"}

# numpy's exception classes that code catches by name, and the kjarni classes that are them in
# Python (kjarni/errors.py: AxisError is numpy's AxisError, so an IndexError too; ArgumentTypeError
# a TypeError; ...). numpy's other errors (ValueError) take any refusal above.
REFUSALS_OF = {
    "AxisError": {"AxisError"},
    "IndexError": {"IndexOutOfBoundsError", "AxisError"},
    "OverflowError": {"ScalarOverflowError"},
    "TypeError": {"ArgumentTypeError"},
}


@dataclass
class Difference:
    kind: str            # "crash", "kjarni_error", "numpy_error", "error_type", "dtype", "shape", "values"
    op: int              # the operation's index (len(ops) for the arrays at the end)
    name: str = ""       # the array that differs
    detail: str = ""
    kjarni_error: dict = None
    numpy_error: dict = None
    data: dict = field(default_factory=dict)

    def summary(self):
        return f"op {self.op} ({self.kind}{', ' + self.name if self.name else ''}): {self.detail}"


@dataclass
class Counts:
    programs: int = 0
    operations: int = 0
    arrays: int = 0
    elements: int = 0      # element comparisons made
    skipped: int = 0       # elements whose bound was undecidable


def _nan(x):
    if x.dtype.kind == "c":
        return np.isnan(x.real) | np.isnan(x.imag)
    if x.dtype.kind == "f":
        return np.isnan(x)
    return np.zeros(x.shape, dtype=bool)


def compare_values(name, op, kj, tracked, counts):
    """None when kjarni's array `kj` agrees with numpy's tracked value, else a Difference."""
    ref, err = np.asarray(tracked.data), np.asarray(tracked.err)
    counts.arrays += 1
    if kj.dtype != ref.dtype:
        return Difference("dtype", op, name, f"kjarni gives {kj.dtype}, numpy {ref.dtype}",
                          data={"kjarni_dtype": str(kj.dtype), "numpy_dtype": str(ref.dtype)})
    if not tracked.shape_decided:
        counts.skipped += ref.size  # its shape itself undecided (oracle.Tracked)
        return None
    if kj.shape != ref.shape:
        return Difference("shape", op, name, f"kjarni gives shape {kj.shape}, numpy {ref.shape}")
    err = np.broadcast_to(err, ref.shape)
    decided = ~np.isinf(err)
    counts.elements += int(decided.sum())
    counts.skipped += int((~decided).sum())
    with np.errstate(all="ignore"):
        if dtypes.is_inexact(ref.dtype):
            wide = np.complex128 if ref.dtype.kind == "c" else np.float64
            a, b = kj.astype(wide), ref.astype(wide)
            same = (a == b) | (_nan(kj) & _nan(ref))
            gap = np.abs(a - b)
            ok = same | (~_nan(kj) & ~_nan(ref) & (gap <= err)) | ~decided
            if ref.dtype.kind == "c":
                # Part by part where a part is infinite (the modulus of the gap is then NaN): each
                # part equal, or both NaN, or within the bound.
                parts_ok = np.ones(ref.shape, dtype=bool)
                for pa, pb in ((a.real, b.real), (a.imag, b.imag)):
                    parts_ok &= (pa == pb) | (np.isnan(pa) & np.isnan(pb)) | (np.abs(pa - pb) <= err)
                ok |= parts_ok & (np.isinf(a.real) | np.isinf(a.imag) | np.isinf(b.real) | np.isinf(b.imag))
        else:
            ok = (kj == ref) | ~decided
    if ok.all():
        return None
    bad = np.argwhere(~ok)
    examples = []
    for idx in bad[:4]:
        t = tuple(int(i) for i in idx)
        examples.append(f"[{','.join(map(str, t))}] kjarni {kj[t]!r} numpy {ref[t]!r} bound {float(err[t]):.3g}")
    return Difference("values", op, name, f"{len(bad)} of {ref.size} elements differ: " + "; ".join(examples),
                      data={"bad": int(len(bad)), "kjarni": kj, "numpy": ref,
                            "nan_mismatch": bool((_nan(kj) != _nan(ref))[~ok].any())})


def compare(program, kj, npy, counts):
    """The first Difference between kjarni's result `kj` (the runner's) and numpy's `npy`
    (oracle.run_program), or None."""
    counts.programs += 1
    if "crash" in kj:
        return Difference("crash", 0, detail=kj["crash"])
    kerr, nerr = kj.get("error"), npy.get("error")
    kops = kerr["op"] if kerr else len(program["ops"])
    nops = nerr["op"] if nerr else len(program["ops"])
    stop = min(kops, nops)
    ksnap = [s for s in kj["snapshots"] if s["op"] < stop]
    nsnap = [s for s in npy["snapshots"] if s["op"] < stop]
    counts.operations += stop
    for ks, ns in zip(ksnap, nsnap):
        if ks["op"] != ns["op"] or ks["name"] != ns["name"]:
            return Difference("values", ks["op"], ks["name"], "the runner and the oracle wrote different arrays")
        d = compare_values(ks["name"], ks["op"], ks["value"], ns["value"], counts)
        if d:
            return d
    if kops < nops:
        return Difference("kjarni_error", kops, detail=f"kjarni raised {kerr['type']}: {kerr['message']}; numpy did not",
                          kjarni_error=kerr)
    if nops < kops:
        return Difference("numpy_error", nops, detail=f"numpy raised {nerr['type']}: {nerr['message']}; kjarni did not",
                          numpy_error=nerr)
    if kerr and nerr and (kerr["type"] not in TYPED_REFUSALS or
                          kerr["type"] not in REFUSALS_OF.get(nerr["type"], TYPED_REFUSALS)):
        return Difference("error_type", kops, detail=f"numpy raised {nerr['type']}, kjarni {kerr['type']}: {kerr['message']}",
                          kjarni_error=kerr, numpy_error=nerr)
    if kerr and nerr:
        counts.operations += 1  # the refusal agreed
    end = len(program["ops"])
    for name, tracked in npy["final"].items():
        if name in kj["final"]:
            d = compare_values(name, end, kj["final"][name], tracked, counts)
            if d:
                return d
    return None
