"""Writes the numpy tables the fidelity tests (numpy_fidelity_test.cpp) compare kjarni with:

numpy_same_kind.txt: 'from to 0|1', np.can_cast(from, to, "same_kind") for every pair of scalar dtypes.
numpy_float_to_int.txt: 'float_dtype bits int_dtype result' for special and random values: numpy's
  astype on x86-64 (a strided view, so numpy's scalar loop: its contiguous SIMD loop gives other
  values for out-of-range input to uint32), the float given by its bits in hex, the result as an
  integer (bool: 0 or 1).

numpy_float16.txt: 'from_dtype from_bits to_dtype to_bits' (hex): numpy's astype to and from
  float16 for every scalar dtype: random values, halfway points between float16 neighbours and
  values just beside them (a float64 rounded through float32 first would round some of them
  differently), subnormals, overflow, infinities and NaN.

Run on x86-64 with numpy >= 2: python make_numpy_fidelity.py
"""
import platform
import warnings

import numpy as np

warnings.simplefilter("ignore")
assert platform.machine() in ("x86_64", "AMD64"), "numpy's float -> int results are x86-64's"

names = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
         "float16", "float32", "float64", "complex64", "complex128"]

with open("numpy_same_kind.txt", "w") as f:
    f.write(f"# numpy {np.__version__}: 'from to castable' for np.can_cast(from, to, 'same_kind')\n")
    for a in names:
        for b in names:
            f.write(f"{a} {b} {int(np.can_cast(np.dtype(a), np.dtype(b), 'same_kind'))}\n")

special = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, -0.5, -0.7, -1.0, -1.5, 1.5, 127.9, 128.0, -128.5, -129.0,
           255.9, 256.0, 300.5, -300.5, 32767.5, 32768.0, -32769.0, 65535.5, 65536.5, -40000.0, 2.0**31 - 1,
           2.0**31, -2.0**31, -2.0**31 - 1, 3e9, -3e9, 2.0**32, 2.0**32 + 5, 1e10, -1e10, 2.0**53 + 2, 2.0**63 - 1024,
           2.0**63, -2.0**63, -2.0**63 - 4096, 2.0**63 + 4096, 2.0**64 - 4096, 2.0**64, 1e20, -1e20, 1e30, 3e38, -3e38]
rng = np.random.default_rng(38)
randoms = list(rng.uniform(-1, 1, 60) * 10.0 ** rng.integers(0, 21, 60))

with open("numpy_float_to_int.txt", "w") as f:
    f.write(f"# numpy {np.__version__} on x86-64: 'float_dtype bits int_dtype result' (astype of a strided view)\n")
    for ft, bits_t in (("float16", np.uint16), ("float32", np.uint32), ("float64", np.uint64)):
        values = np.array(special + randoms, dtype=np.float64).astype(ft)
        doubled = np.repeat(values, 2)[::2]  # strided: numpy's scalar loop
        for it in ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]:
            results = doubled.astype(it)
            for v, r in zip(values, results):
                f.write(f"{ft} {int(np.array(v).view(bits_t)):x} {it} {int(r)}\n")

def bits_of(array):
    dtype = array.dtype
    if dtype.kind == "c":
        parts = array.view(np.float32 if dtype.itemsize == 8 else np.float64)
        return [f"{int(a):x}:{int(b):x}" for a, b in zip(*[parts[k::2].view(f"u{dtype.itemsize // 2}") for k in (0, 1)])]
    if dtype.kind == "b":
        return [f"{int(v):x}" for v in array.view(np.uint8)]
    return [f"{int(v):x}" for v in array.view(f"u{dtype.itemsize}")]


with open("numpy_float16.txt", "w") as f:
    f.write(f"# numpy {np.__version__}: 'from_dtype from_bits to_dtype to_bits' for astype to and from float16 "
            "(complex: real:imag bits)\n")
    halves = np.arange(0, 0x10000, dtype=np.uint32)[::293].astype(np.uint16).view(np.float16)
    lower = halves.astype(np.float64)
    upper = np.nextafter(halves, np.float16(np.inf)).astype(np.float64)
    finite = np.isfinite(lower) & np.isfinite(upper)
    mid = (lower[finite] + upper[finite]) / 2
    near = np.concatenate([mid, mid * (1 + 2.0**-40), mid * (1 - 2.0**-40), mid * (1 + 2.0**-20)])
    extra = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 65504.0, 65519.99, 65520.0, 1e6, -1e6, 2.0**-24, 2.0**-25,
                      2.0**-25 * 1.0001, 3e-8, 1e-10])
    floats = np.concatenate([near, extra, rng.normal(0, 1000, 100)])
    for source in ["float64", "float32"]:
        values = floats.astype(source)
        for v, r in zip(bits_of(values), bits_of(values.astype(np.float16))):
            f.write(f"{source} {v} float16 {r}\n")
    for source in ["complex64", "complex128"]:
        values = (floats[:200] + 1j * floats[200:400]).astype(source)
        for v, r in zip(bits_of(values), bits_of(values.astype(np.float16))):
            f.write(f"{source} {v} float16 {r}\n")
    for source in ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]:
        info = np.iinfo(source) if source != "bool" else None
        if info is None:
            values = np.array([False, True])
        else:
            values = rng.integers(max(info.min, -70000), min(info.max, 70000), 200, endpoint=True).astype(source)
            values = np.concatenate([values, np.array([info.min, info.max, 2049, 2051, 4097, 65519, 65520], dtype=object)
                                     .clip(info.min, info.max).astype(source)])
        for v, r in zip(bits_of(values), bits_of(values.astype(np.float16))):
            f.write(f"{source} {v} float16 {r}\n")
    sources = np.concatenate([halves, np.array([np.nan, np.inf, -np.inf, -0.0, 65504, -65504, 300.5, -1.5], np.float16)])
    for target in names:
        if target == "float16":
            continue
        converted = np.repeat(sources, 2)[::2].astype(target)  # strided: numpy's scalar loop, as above
        for v, r in zip(bits_of(sources), bits_of(converted)):
            f.write(f"float16 {v} {target} {r}\n")
