"""Writes numpy_clip.txt: np.clip's result dtype (or "error": numpy raises, an OverflowError for a
Python integer its type cannot hold) for a first operand, a low bound and a high bound each an array
of a dtype or a Python scalar (numpy's weak scalars, kjarni's C++ literals), which the fidelity tests
(numpy_fidelity_test.cpp) compare kjarni::clip with. np.clip is one ufunc (one promotion over the
three operands), its first operand goes through np.asarray (a Python scalar there is strong), and
a Python integer bound at or past an integer first operand's range is left out (numpy's _clip).

One line per first operand and low bound: 'first low' then the result for each high bound of the
header's list. Operands: a dtype name, or weak:<python literal>. Run with numpy >= 2:
python make_numpy_clip.py
"""
import warnings

import numpy as np

warnings.simplefilter("ignore")

strong = ["bool", "int8", "uint8", "int16", "int64", "uint64", "float16", "float32", "complex64"]
weak_first = ["True", "3", "2.5", str(2**64 - 1)]
weak_bound = ["True", "-1", "300", str(-2**63), str(2**64 - 1), "2.5", "1j"]
firsts = strong + ["weak:" + w for w in weak_first]
bounds = strong + ["weak:" + w for w in weak_bound]


def operand(spec):
    if spec.startswith("weak:"):
        return eval(spec[5:])  # a Python literal of the list above
    return np.ones(2, dtype=spec)


with open(__file__.replace("make_numpy_clip.py", "numpy_clip.txt"), "w") as out:
    out.write(f"# numpy {np.__version__}: np.clip's result dtype; 'first low' then one result per high bound:\n")
    out.write("# high: " + " ".join(bounds) + "\n")
    for first in firsts:
        for low in bounds:
            results = []
            for high in bounds:
                try:
                    results.append(np.asarray(np.clip(operand(first), operand(low), operand(high))).dtype.name)
                except (OverflowError, TypeError, ValueError):
                    results.append("error")
            out.write(f"{first} {low} {' '.join(results)}\n")
