"""The element types of a kernel's pointer parameters, read from the source it was compiled from, so
that a launch refuses an Array of another dtype (a float64 array for ``float *``: the kernel would
read its bytes as floats) as ElementwiseKernel does. The check itself is in C++ (pack_args).

Only the types kjarni knows by name are checked: the spellings of ``kjarni.dtypes.ctype`` (what
``${ctype}`` renders) and the plain C and OpenCL names of the same types. Anything else (a struct, a
typedef, ``void *``, ``char *``, a macro) is left unchecked, as is a source the parser cannot read."""

import re

import numpy

from .dtypes import ctype as _ctype, dtype as _kdtype

_KERNEL = re.compile(r"(?:\bKERNEL|\b__kernel|\bkernel|__global__)\s+void\s+(\w+)\s*\(([^)]*)\)")
_QUALIFIERS = {"GLOBAL_MEM", "LOCAL_MEM", "CONSTANT_MEM", "const", "restrict", "__restrict__", "__restrict",
               "__global", "global", "__constant", "constant", "__local", "local", "volatile", "struct"}
_ALIASES = {
    "float": "float32", "double": "float64", "half": "float16",
    "int": "int32", "signed int": "int32", "unsigned int": "uint32", "unsigned": "uint32", "uint": "uint32",
    "short": "int16", "unsigned short": "uint16", "ushort": "uint16", "uchar": "uint8", "unsigned char": "uint8",
    "long long": "int64", "unsigned long long": "uint64", "ulong": "uint64",
}
_NUMPY_NAMES = ("float16", "float32", "float64", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
                "uint64", "complex64", "complex128")


def _type_names():
    names = dict(_ALIASES)
    for name in _NUMPY_NAMES:
        names.setdefault(str(_ctype(numpy.dtype(name))), name)
    return {c: _kdtype(n) for c, n in names.items()}


_TYPES = None


def kernel_parameters(source):
    """kernel name -> tuple of, per parameter, None or (kjarni DType, its declaration)."""
    global _TYPES
    if _TYPES is None:
        _TYPES = _type_names()
    out = {}
    for match in _KERNEL.finditer(source):
        params = []
        text = match.group(2).strip()
        for declaration in (text.split(",") if text and text != "void" else []):
            declaration = " ".join(declaration.split())
            if declaration.count("*") != 1:
                params.append(None)
                continue
            words = [w for w in declaration.replace("*", " ").split() if w not in _QUALIFIERS]
            element = " ".join(words[:-1])  # the last word is the parameter's name
            dtype = _TYPES.get(element)
            params.append(None if dtype is None else (dtype, declaration))
        out[match.group(1)] = tuple(params) if any(p is not None for p in params) else None
    return out
