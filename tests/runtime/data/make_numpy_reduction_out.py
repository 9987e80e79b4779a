"""Writes numpy_reduction_out.txt, the table ReductionOutTest.ReductionsAndScansCastIntoOutAsNumpy
(numpy_reduction_out_test.cpp) compares kjarni with: numpy's out= of its reductions and scans for
every pair of input and out dtypes, whether numpy takes that out and what it writes there.

  input DTYPE BITS...            the input (6 elements, each its bits in hex; complex: real:imag)
  products DTYPE BITS...         the input of prod and cumprod
  FN DTYPE OUT_DTYPE 0           numpy refuses out (TypeError / UFuncTypeError)
  FN DTYPE OUT_DTYPE 1 VALUE...  numpy's result in out: integers and bool in decimal, floats by
                                 float.hex (complex: real,imag)

The inputs are one set of values cast to each dtype, chosen so that sums and products leave the
narrow integer types (numpy wraps them), floats have fractions (cast into integers they truncate),
and the first element fits every type (numpy's min and max copy the first element into out before
comparing: a first element that out cannot hold makes their result depend on that copy). The
products' inputs keep every partial product exact in float16, so that the order of the
multiplications does not change a result converted to an integer.

Run with numpy >= 2: python make_numpy_reduction_out.py
"""
import warnings

import numpy as np

warnings.simplefilter("ignore")

names = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
         "float16", "float32", "float64", "complex64", "complex128"]
functions = {"sum": np.sum, "prod": np.prod, "mean": np.mean, "min": np.min, "max": np.max,
             "argmin": np.argmin, "argmax": np.argmax, "any": np.any, "all": np.all,
             "cumsum": np.cumsum, "cumprod": np.cumprod}
base = np.array([3.0, -56.5, 120.25, 100.75, 1.5, 7.0])
products = np.array([3.0, -2.5, 1.25, 2.0, 1.5, 6.0])


def bits(values):
    v = np.ascontiguousarray(values)
    if v.dtype.kind == "c":
        parts = v.view(np.float32 if v.dtype.itemsize == 8 else np.float64).view(f"u{v.dtype.itemsize // 2}")
        return [f"{int(a):x}:{int(b):x}" for a, b in zip(parts[0::2], parts[1::2])]
    return [f"{int(x):x}" for x in v.view(f"u{v.dtype.itemsize}")]


def text(values):
    out = []
    for x in np.asarray(values).reshape(-1):
        if np.iscomplexobj(x):
            out.append(f"{float(x.real).hex()},{float(x.imag).hex()}")
        elif isinstance(x, (np.floating, float)):
            out.append(float(x).hex())
        else:
            out.append(str(int(x)))
    return out


with open("numpy_reduction_out.txt", "w") as f:
    f.write(f"# numpy {np.__version__}: out= of reductions and scans (make_numpy_reduction_out.py)\n")
    for a in names:
        f.write(" ".join(["input", a] + bits(base.astype(a))) + "\n")
        f.write(" ".join(["products", a] + bits(products.astype(a))) + "\n")
        for name, fn in functions.items():
            x = (products if "prod" in name else base).astype(a)
            for o in names:
                out = np.zeros(x.shape if name.startswith("cum") else (), o)
                try:
                    fn(x, out=out)
                    f.write(" ".join([name, a, o, "1"] + text(out)) + "\n")
                except TypeError:
                    f.write(f"{name} {a} {o} 0\n")
