"""Writes numpy_float16_scalar.txt: numpy's results where a float16 scalar meets an array, which the
fidelity tests (numpy_fidelity_test.cpp) compare kjarni's expressions with. A typed np.float16(x)
holds x rounded to float16, and a Python float meeting a float16 array is rounded to float16 (NEP 50)
before the arithmetic. Found by the differential fuzzer (seed 12): np.int32(917132486) -
np.float16(0.001) is 917132485.9989996 in numpy (0.001 is 0.0010004044 in float16); kjarni passed
the scalar as the float 0.001 and gave 917132485.999.

One line per case: 'CASE X RESULT' (Python's repr of the float64 result, or of the float32 /
float16 one converted to float64), each CASE one expression of the scalar x:
  int32_minus     np.array([917132486], np.int32) - np.float16(x)        (float64)
  float64_times   np.array([1.0]) * np.float16(x)                        (float64)
  float32_plus    np.array([1.0], np.float32) + np.float16(x)            (float32)
  float16_weak    np.array([x], np.float16) - x                          (float16, x a Python float)
Run with numpy >= 2: python make_numpy_float16_scalar.py
"""
import warnings

import numpy as np

warnings.simplefilter("ignore")
xs = [0.001, 0.1, 1 / 3, -2.7182818, 65519.0, 1e-8, 3e-5, 70000.0]
cases = {
    "int32_minus": lambda x: np.array([917132486], np.int32) - np.float16(x),
    "float64_times": lambda x: np.array([1.0]) * np.float16(x),
    "float32_plus": lambda x: np.array([1.0], np.float32) + np.float16(x),
    "float16_weak": lambda x: np.array([x], np.float16) - x,
}
expected = {"int32_minus": "float64", "float64_times": "float64", "float32_plus": "float32", "float16_weak": "float16"}

with open(__file__.replace("make_numpy_float16_scalar.py", "numpy_float16_scalar.txt"), "w") as out:
    out.write(f"# numpy {np.__version__}: 'CASE X RESULT' (see make_numpy_float16_scalar.py)\n")
    for name, f in cases.items():
        for x in xs:
            r = f(x)
            assert r.dtype == expected[name], (name, r.dtype)
            out.write(f"{name} {x!r} {float(r[0])!r}\n")
