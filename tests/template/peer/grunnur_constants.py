"""What grunnur's c_constant renders for numpy arrays (issue 43, item 2): random arrays of every
numeric dtype and of several shapes (one to four dimensions, a dimension of extent 0), written one
a line into FOLDER/arrays.txt as

    dtype <TAB> shape (comma-separated) <TAB> the elements' bytes in C order (hex) <TAB> grunnur's text

dtype_helpers_test.cpp (CConstantArrayMatchesGrunnur) renders the same bytes with kjarni and
compares: the braces and commas exactly, every element by value (grunnur spells numbers its own way:
`COMPLEX_CTR(float2)(...)` for `COMPLEX64_CTR(...)`, `L` for `l`, float32 digits of the double
repr). Booleans are left out: grunnur refuses them (numpy.bool_ is no numpy.integer)."""

import sys
from pathlib import Path

import numpy
from grunnur.dtypes import c_constant

out_dir = Path(sys.argv[1])
out_dir.mkdir(parents=True, exist_ok=True)
rng = numpy.random.default_rng(43)

dtypes = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]
shapes = [(1,), (7,), (3, 4), (2, 3, 2), (2, 1, 3, 2), (0,), (2, 0), (3, 0, 2)]


def random_array(dtype, shape):
    dt = numpy.dtype(dtype)
    if dt.kind in "iu":
        info = numpy.iinfo(dt)
        return rng.integers(info.min, info.max, size=shape, dtype=dt, endpoint=True)
    # Values spread over many magnitudes (decimal exponents -8..8; -3..3 for float16, whose
    # largest is 65504), none of them 0 and all finite (neither grunnur nor kjarni spells those).
    top = 3 if dt == numpy.float16 else 8
    def reals():
        return rng.standard_normal(shape) * 10.0 ** rng.integers(-top, top + 1, size=shape)
    if dt.kind == "c":
        return (reals() + 1j * reals()).astype(dt)
    return reals().astype(dt)


lines = []
for dtype in dtypes:
    for shape in shapes:
        a = random_array(dtype, shape)
        text = c_constant(a)
        hexbytes = a.tobytes(order="C").hex()
        lines.append("\t".join([dtype, ",".join(map(str, shape)), hexbytes or "-", text]))
(out_dir / "arrays.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
