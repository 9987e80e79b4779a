"""Writes numpy_complex_special.txt: numpy's complex exp and power where C99's Annex G decides the
value (an exponent of real part -inf, an imaginary part of zero), which the fidelity tests
(numpy_fidelity_test.cpp) compare kjarni's expressions with. Found by the differential fuzzer
(seed 11): np.power(inf+0j, -7.3-0.0098j) is 0 in numpy, and was NaN in kjarni.

Then tanh, sin, cos, sqrt, log, log2, log10, exp2, sign, sinh, cosh, tan, log1p, expm1 and the inverse
trigonometric and hyperbolic functions over a grid of special parts (zeros of both signs,
infinities, NaN, parts whose doubles or squares overflow, moderate values), where Annex G decides or a
formula's intermediate overflows (the fuzzer's tanh(-7 - 3.4e38j) in complex64: numpy
-0.99999917+1.48e-06j, kjarni NaN; its sign(-inf + 0.009j): numpy -1, kjarni NaN), and exp of an infinite real part with an infinite or NaN imaginary part.

Then exp and reciprocal over the same grid ('exp_grid' and 'reciprocal' rows), and multiply, divide
and power over pairs of special values ('multiply', 'divide' and 'power_grid' rows: 'FN DTYPE A B
RESULT'): numpy's multiply is its loops' fused form (on x86-64 with FMA, every machine measured),
its divide Smith's algorithm through a reciprocal, its power npy_cpow (repeated products for small
integer exponents, else exp(b log a) with C99's product), each with its own values at infinite,
NaN and huge parts.

One line per case: 'FN DTYPE A RESULT' or 'power DTYPE A B RESULT', each complex value written as
its real and imaginary parts (Python's repr: inf, -inf, nan, -0.0). Run with numpy >= 2:
python make_numpy_complex_special.py
"""
import warnings

import numpy as np

warnings.simplefilter("ignore")
inf = float("inf")

exp_args = [complex(-inf, y) for y in (0.0, -0.0, 1.5, -2.5, inf, -inf)]
exp_args += [complex(x, y) for x in (inf, 3.0, -3.0, 0.0) for y in (0.0, -0.0)]
exp_args += [complex(inf, y) for y in (inf, -inf, float("nan"))]
bases = [complex(inf, 0.0), complex(-inf, 0.0), complex(0.0, inf)]
exponents = [complex(-7.3, -0.0098), complex(-1.0, 2.0), complex(-2.5, 0.001)]


def parts(z):
    return f"{repr(float(z.real))} {repr(float(z.imag))}"


with open(__file__.replace("make_numpy_complex_special.py", "numpy_complex_special.txt"), "w") as out:
    out.write(f"# numpy {np.__version__}: 'FN DTYPE A RESULT' or 'power DTYPE A B RESULT' (real and imaginary parts)\n")
    for dtype in (np.complex64, np.complex128):
        name = np.dtype(dtype).name
        for a in exp_args:
            r = np.exp(np.array([a], dtype=dtype))[0]
            out.write(f"exp {name} {parts(a)} {parts(r)}\n")
        for a in bases:
            for b in exponents:
                r = np.power(np.array([a], dtype=dtype), np.array([b], dtype=dtype))[0]
                out.write(f"power {name} {parts(a)} {parts(b)} {parts(r)}\n")
        huge = 3e38 if dtype == np.complex64 else 1.7e308
        parts_grid = [0.0, -0.0, 1.5, -2.5, 7.0, inf, -inf, float("nan"), huge, -1e30, 100.0]
        grid = np.array([complex(x, y) for x in parts_grid for y in parts_grid], dtype=dtype)
        for fn in ("tanh", "sin", "cos", "sqrt", "log", "log2", "log10", "exp2", "sign", "sinh", "cosh", "tan", "log1p",
                   "expm1", "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh"):
            for a, r in zip(grid, getattr(np, fn)(grid)):
                out.write(f"{fn} {name} {parts(a)} {parts(r)}\n")
        for fn, f in (("exp_grid", np.exp), ("reciprocal", np.reciprocal)):
            for a, r in zip(grid, f(grid)):
                out.write(f"{fn} {name} {parts(a)} {parts(r)}\n")
        # Pairs: zeros of both signs, a moderate value, infinities, NaN and a part whose products
        # overflow (numpy's multiply fuses one product into the other's sum: (huge+1.5j) times
        # (-inf+huge j) is -inf-inf j in numpy, -inf+nan j by the plain formula).
        pair_parts = [0.0, -0.0, 1.5, -inf, float("nan"), huge]
        values = np.array([complex(x, y) for x in pair_parts for y in pair_parts], dtype=dtype)
        a = np.repeat(values, len(values))
        b = np.tile(values, len(values))
        for fn, f in (("multiply", np.multiply), ("divide", np.divide)):
            for x, y, r in zip(a, b, f(a, b)):
                out.write(f"{fn} {name} {parts(x)} {parts(y)} {parts(r)}\n")
        grid_exponents = np.array([0, 1, 2, 3, -1, -2, 5, -7, 2.5, -1.5, 0.5 + 1j, complex(1.5, inf), complex(inf, 0.0),
                              complex(-inf, 0.0), complex(float("nan"), 0.0), complex(0.0, -2.0)], dtype=dtype)
        a = np.repeat(values, len(grid_exponents))
        b = np.tile(grid_exponents, len(values))
        for x, y, r in zip(a, b, np.power(a, b)):
            out.write(f"power_grid {name} {parts(x)} {parts(y)} {parts(r)}\n")
