"""Writes numpy_index_assign.txt: what numpy does with `a[mask] = value` and `a[(slice(None),) * axis +
(indices,)] = value`, above all where the selection is empty (an all-false or empty mask, an empty
index array), which the selection tests (numpy_index_assign_test.cpp) compare kjarni's
boolean_index_assign and integer_index_assign with. numpy checks the value against the selection
even when nothing is selected: it must broadcast to the selection's shape, and a mask over the
whole array takes 0-d or 1-d values only (TypeError otherwise).

One line per case: 'mask ARRAY MASK COUNT VALUE RESULT' (MASK's first COUNT elements in C order are
true) or 'index ARRAY INDICES AXIS VALUE RESULT' (the indices are 0, 1, 2, ... modulo the axis'
extent, in C order). Shapes are written [2,3] ([] is 0-d). The array (float32) holds 1, 2, 3, ...
in C order; VALUE is 'scalar' (np.float32(7.5)) or the shape of an int16 array holding 100, 101, ...
RESULT is numpy's array afterwards (its elements in C order, '-' when it has none) or 'error'
(numpy raises: ValueError, TypeError, IndexError). Run with numpy >= 2: python make_numpy_index_assign.py
"""
import math
import warnings

import numpy as np

warnings.simplefilter("ignore")

arrays = [(3,), (2, 3), (0,), (0, 3), (2, 0), ()]
values = ["scalar", (), (0,), (1,), (2,), (3,), (1, 1), (2, 1), (1, 3), (0, 3), (1, 0), (2, 0), (2, 0, 3), (1, 2, 3)]


def text(shape):
    return "[" + ",".join(str(s) for s in shape) + "]"


def value_of(spec):
    if spec == "scalar":
        return np.float32(7.5)
    return (100 + np.arange(math.prod(spec))).astype(np.int16).reshape(spec)


def masks(shape):
    """(mask shape, count of leading true elements)."""
    out = [((), 0), ((), 1)]
    for ndim in range(1, len(shape) + 1):
        lead = shape[:ndim]
        out.append((lead, 0))
        if math.prod(lead) > 0:
            out.append((lead, 1))
    return out


def indices(shape):
    """(index array shape, axis)."""
    return [(ishape, axis) for axis in range(len(shape)) for ishape in [(0,), (2, 0), (1,), (2,)]]


def outcome(a, key, value):
    try:
        a[key] = value
    except (ValueError, TypeError, IndexError):
        return "error"
    return ",".join(f"{x:g}" for x in a.reshape(-1)) if a.size else "-"


with open(__file__.replace("make_numpy_index_assign.py", "numpy_index_assign.txt"), "w") as out:
    out.write(f"# numpy {np.__version__}: 'mask ARRAY MASK COUNT VALUE RESULT' or 'index ARRAY INDICES AXIS VALUE RESULT'\n")
    for shape in arrays:
        for mshape, count in masks(shape):
            for v in values:
                a = (1 + np.arange(math.prod(shape))).astype(np.float32).reshape(shape)
                mask = np.zeros(math.prod(mshape), dtype=bool)
                mask[:count] = True
                result = outcome(a, mask.reshape(mshape), value_of(v))
                vtext = v if v == "scalar" else text(v)
                out.write(f"mask {text(shape)} {text(mshape)} {count} {vtext} {result}\n")
        for ishape, axis in indices(shape):
            for v in values:
                a = (1 + np.arange(math.prod(shape))).astype(np.float32).reshape(shape)
                extent = max(shape[axis], 1)
                idx = (np.arange(math.prod(ishape)) % extent).astype(np.int64).reshape(ishape)
                result = outcome(a, (slice(None),) * axis + (idx,), value_of(v))
                vtext = v if v == "scalar" else text(v)
                out.write(f"index {text(shape)} {text(ishape)} {axis} {vtext} {result}\n")
