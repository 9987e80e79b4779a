"""Writes numpy_promotion.txt: numpy's result dtype for every pair of scalar dtypes (np.promote_types)
and for every dtype combined with a weak Python scalar (NEP 50), which the expression tests compare
kjarni's promotion with. Run with numpy >= 2 (NEP 50 is its default): python make_numpy_promotion.py
"""
import numpy as np

names = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
         "float16", "float32", "float64", "complex64", "complex128"]
weak = {"int": 1, "float": 1.5, "complex": 1j}

with open(__file__.replace("make_numpy_promotion.py", "numpy_promotion.txt"), "w") as out:
    out.write(f"# numpy {np.__version__}: 'a b result' for dtypes, 'a weak:<kind> result' for Python scalars\n")
    for a in names:
        for b in names:
            out.write(f"{a} {b} {np.promote_types(a, b).name}\n")
    for a in names:
        for kind, value in weak.items():
            result = (np.zeros(1, dtype=a) + value).dtype.name
            out.write(f"{a} weak:{kind} {result}\n")
