"""Writes numpy_setitem.txt: what numpy does with one scalar written into an array, which the
fidelity tests (numpy_fidelity_test.cpp) compare kjarni's fill() and assign() with:

  fill   source target result   a[...] = x (kjarni::fill)
  assign source target result   np.copyto(a, x, casting="same_kind") (kjarni::assign)

source: weak:<Python literal> (a Python scalar: kjarni's weak C++ literal) or <dtype>:<Python
literal> (a numpy scalar: kjarni::scalar); result: the element written (numpy's str of it) or
"error" (numpy raises: OverflowError, ValueError, TypeError). The checks hold for an empty array
too. Run with numpy >= 2: python make_numpy_setitem.py
"""
import warnings

import numpy as np

warnings.simplefilter("ignore")

weak = ["True", "-1", "5", "300", str(2**63 - 1), str(2**64 - 1), str(-2**63), "1.5", "-1.5", "1e10", "float('nan')",
        "float('inf')", "1j"]
typed = ["int8:-128", "int16:300", "int16:-300", "int64:" + str(2**63 - 1), "int64:-1", "uint64:" + str(2**64 - 1),
         "float16:300.5", "float32:float('nan')", "float32:float('inf')", "float64:-1.5", "float64:1e10",
         "float64:" + str(float(2**40 + 5)), "float64:-3e9", "complex64:3+4j"]
targets = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16", "float32"]


def value(source):
    kind, text = source.split(":", 1)
    v = eval(text)  # a literal of the lists above
    return v if kind == "weak" else np.dtype(kind).type(v)


with open(__file__.replace("make_numpy_setitem.py", "numpy_setitem.txt"), "w") as out:
    out.write(f"# numpy {np.__version__}: 'op source target result' (see make_numpy_setitem.py)\n")
    for op in ("fill", "assign"):
        for source in ["weak:" + w for w in weak] + typed:
            for target in targets:
                a = np.zeros(1, dtype=target)
                try:
                    if op == "fill":
                        a[...] = value(source)
                    else:
                        np.copyto(a, value(source), casting="same_kind")
                    result = str(a[0])
                except (OverflowError, ValueError, TypeError):
                    result = "error"
                out.write(f"{op} {source.replace(' ', '')} {target} {result}\n")
