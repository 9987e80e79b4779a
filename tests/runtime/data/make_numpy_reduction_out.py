"""Writes numpy_reduction_out.txt, the table ReductionOutTest.ReductionsAndScansCastIntoOutAsNumpy
(numpy_reduction_out_test.cpp) compares kjarni with: numpy's out= of its reductions and scans for
every pair of input and out dtypes, whether numpy takes that out and what it writes there.

  input DTYPE BITS...            the input (6 elements, each its bits in hex; complex: real:imag)
  products DTYPE BITS...         the input of prod and cumprod
  nans DTYPE BITS...             the input of the nan* functions but nanprod (float and complex
                                 types: `input` with a NaN inserted; the others: `input`)
  nanproducts DTYPE BITS...      the input of nanprod (`products`, with a NaN for floats and complex)
  FN DTYPE OUT_DTYPE 0           numpy refuses out (TypeError / UFuncTypeError)
  FN DTYPE OUT_DTYPE 1 VALUE...  numpy's result in out: integers and bool in decimal, floats by
                                 float.hex (complex: real,imag)

  firsts K DTYPE BITS...         an input of min and max whose first element out may not hold
  first K FN DTYPE OUT_DTYPE VALUE   numpy's min, max, nanmin or nanmax of `firsts K DTYPE` in out
                                 (numpy takes every out), where it differs from the extremum cast
  grid DTYPE BITS...             a (3, 4) input of min and max along axes, of views of it
  view VIEW FN AXES KEEPDIMS OUT_DTYPE VALUE...   numpy's min or max of grid's view VIEW ("plain",
                                 "reversed": [::-1, ::-1], "transposed": .T) over AXES ("all", or
                                 axes joined by ","), keepdims 0 or 1, into an out of OUT_DTYPE

The inputs are one set of values cast to each dtype, chosen so that sums and products leave the
narrow integer types (numpy wraps them), floats have fractions (cast into integers they truncate),
and the first element fits every type. The products' inputs keep every partial product exact in
float16, so that the order of the multiplications does not change a result converted to an integer.

min and max have no identity: numpy copies each output's first element (index 0 along the reduced
axes) into out, cast, then compares the others with it in its loop's dtype (np.promote_types(out,
array)) and casts the extremum into out. A first element that out cannot hold (-300 into int8 or
uint8, NaN or infinity into an integer) so changes the result: the `firsts` inputs have such a
first element, and their rows list the pairs where numpy's value is not the extremum cast (the
others agree with it by construction, and the main table holds them); the grid's views and axes
show which element is first (index 0 along the reduced axes of the view, whatever its strides).

Run with numpy >= 2: python make_numpy_reduction_out.py
"""
import warnings

import numpy as np

warnings.simplefilter("ignore")

names = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
         "float16", "float32", "float64", "complex64", "complex128"]
functions = {"sum": np.sum, "prod": np.prod, "mean": np.mean, "min": np.min, "max": np.max,
             "argmin": np.argmin, "argmax": np.argmax, "any": np.any, "all": np.all,
             "cumsum": np.cumsum, "cumprod": np.cumprod,
             "nansum": np.nansum, "nanprod": np.nanprod, "nanmin": np.nanmin, "nanmax": np.nanmax,
             "nanargmin": np.nanargmin, "nanargmax": np.nanargmax, "nanmean": np.nanmean,
             "var": np.var, "std": np.std, "nanvar": np.nanvar, "nanstd": np.nanstd}
base = np.array([3.0, -56.5, 120.25, 100.75, 1.5, 7.0])
products = np.array([3.0, -2.5, 1.25, 2.0, 1.5, 6.0])


def with_nan(values, dtype):
    """`values` in `dtype`, with a NaN inserted after the first element for float and complex types."""
    if np.dtype(dtype).kind in "fc":
        values = np.insert(values, 1, np.nan)
    return values.astype(dtype)


def input_of(name, dtype):
    if name == "nanprod":
        return with_nan(products, dtype)
    if name.startswith("nan"):
        return with_nan(base, dtype)
    return (products if "prod" in name else base).astype(dtype)


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


firsts = [np.array([-300.25, 120.25, -56.5, 100.75, 1.5, 7.0]),
          np.array([np.nan, 120.25, -56.5, 100.75, 1.5, 7.0]),
          np.array([7e4, 120.25, -56.5, 100.75, 1.5, 7.0])]
grid = np.array([[300, 100, 20, 7], [90, -5, 5, 60], [-70, 50, 110, -300]], np.int16)
views = {"plain": grid, "reversed": grid[::-1, ::-1], "transposed": grid.T}


def same(a, b):
    return a == b or (a != a and b != b)


def write_firsts(f):
    for k, values in enumerate(firsts):
        for a in names:
            x = values.astype(a)
            f.write(" ".join(["firsts", str(k), a] + bits(x)) + "\n")
            # nanmin and nanmax of integer and bool arrays are min and max.
            for name in ("min", "max") + (("nanmin", "nanmax") if np.dtype(a).kind in "fc" else ()):
                for o in names:
                    out = np.zeros((), o)
                    functions[name](x, out=out)
                    if not same(out[()], np.asarray(functions[name](x)).astype(o)[()]):
                        assert np.promote_types(a, o) != np.dtype(o), (name, a, o)  # out holds the array
                        f.write(" ".join(["first", str(k), name, a, o] + text(out)) + "\n")
    f.write(" ".join(["grid", "int16"] + bits(grid.reshape(-1))) + "\n")
    for view, x in views.items():
        for name in ("min", "max"):
            for axes in (None, 0, 1, (0, 1)):
                for keepdims in (0, 1):
                    out = np.zeros(np.asarray(functions[name](x, axis=axes, keepdims=bool(keepdims))).shape, "int8")
                    functions[name](x, axis=axes, keepdims=bool(keepdims), out=out)
                    where = "all" if axes is None else ",".join(str(a) for a in np.atleast_1d(axes))
                    f.write(" ".join(["view", view, name, where, str(keepdims), "int8"] + text(out)) + "\n")


with open("numpy_reduction_out.txt", "w") as f:
    f.write(f"# numpy {np.__version__}: out= of reductions and scans (make_numpy_reduction_out.py)\n")
    for a in names:
        f.write(" ".join(["input", a] + bits(base.astype(a))) + "\n")
        f.write(" ".join(["products", a] + bits(products.astype(a))) + "\n")
        f.write(" ".join(["nans", a] + bits(with_nan(base, a))) + "\n")
        f.write(" ".join(["nanproducts", a] + bits(with_nan(products, a))) + "\n")
        for name, fn in functions.items():
            x = input_of(name, a)
            for o in names:
                out = np.zeros(x.shape if name.startswith("cum") else (), o)
                try:
                    fn(x, out=out)
                    f.write(" ".join([name, a, o, "1"] + text(out)) + "\n")
                except TypeError:
                    f.write(f"{name} {a} {o} 0\n")
    write_firsts(f)
