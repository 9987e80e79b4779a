"""Writes numpy_result_type.txt: np.result_type of several dtypes at once, which kjarni::result_type
(then its GPU rule) and the expressions' common type (detail::promote_types_sequence) are compared
with (numpy_result_type_test.cpp). numpy's algorithm for several dtypes is not a left fold of
np.promote_types (int8, uint16, float32 gives float32, the fold float64): every triple of the
scalar dtypes kjarni has, and the quadruples where numpy's answer differs from the fold (the
algorithm's deeper recursion).

One line per tuple: the dtypes, then the result. Run with numpy >= 2: python make_numpy_result_type.py
"""
import functools
import itertools

import numpy as np

names = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
         "float16", "float32", "float64", "complex64", "complex128"]

with open(__file__.replace("make_numpy_result_type.py", "numpy_result_type.txt"), "w") as out:
    out.write(f"# numpy {np.__version__}: 'dtype... result' (np.result_type of the dtypes)\n")
    for triple in itertools.product(names, repeat=3):
        out.write(" ".join(triple) + f" {np.result_type(*triple).name}\n")
    for quad in itertools.product(names, repeat=4):
        result = np.result_type(*quad)
        if result != functools.reduce(np.promote_types, quad):
            out.write(" ".join(quad) + f" {result.name}\n")
