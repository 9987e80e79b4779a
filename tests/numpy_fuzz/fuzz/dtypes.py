"""The dtypes the fuzzer draws from, and the facts about them the error bounds need."""

import numpy as np

BOOL = ["bool"]
SIGNED = ["int8", "int16", "int32", "int64"]
UNSIGNED = ["uint8", "uint16", "uint32", "uint64"]
INTEGER = SIGNED + UNSIGNED
REAL = ["float16", "float32", "float64"]
COMPLEX = ["complex64", "complex128"]
FLOATING = REAL + COMPLEX
ALL = BOOL + INTEGER + FLOATING


def kind(dtype):
    """'b', 'i', 'u', 'f' or 'c' (numpy's dtype.kind)."""
    return np.dtype(dtype).kind


def is_inexact(dtype):
    return kind(dtype) in "fc"


def real_of(dtype):
    """The real dtype of a complex one; real and other dtypes map to themselves."""
    return {"complex64": "float32", "complex128": "float64"}.get(str(np.dtype(dtype)), str(np.dtype(dtype)))


def eps(dtype):
    """The distance from 1 to the next number of the dtype (one ulp at 1); 0 for exact dtypes."""
    if not is_inexact(dtype):
        return 0.0
    return float(np.finfo(real_of(dtype)).eps)


def tiny(dtype):
    """The smallest normal number: below it a device may flush to zero (CUDA's and OpenCL's
    denormal modes), so every rounding also gets this much absolute slack."""
    if not is_inexact(dtype):
        return 0.0
    return float(np.finfo(real_of(dtype)).tiny)


def largest(dtype):
    if not is_inexact(dtype):
        return float(np.iinfo(dtype).max) if kind(dtype) in "iu" else 1.0
    return float(np.finfo(real_of(dtype)).max)
