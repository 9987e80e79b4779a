"""A program as numpy code that a person can read and run: the reproduction printed for a
difference (the JSON beside it is what the runner takes)."""

import numpy as np


def _number(v):
    if isinstance(v, str):
        return {"nan": "np.nan", "inf": "np.inf", "-inf": "-np.inf"}[v]
    if isinstance(v, list):
        return f"complex({_number(v[0])}, {_number(v[1])})"
    return repr(v)


def tree(node):
    from .expressions import FUNCTIONS
    if "array" in node:
        return node["array"]
    if "weak" in node:
        return _number(node["weak"])  # a Python scalar: weak, as kjarni's C++ literal
    if "scalar" in node:
        return f"np.{node['dtype']}({_number(node['scalar'])})"
    args = [tree(a) for a in node["args"]]
    if node["f"] == "astype":
        return f"np.asarray({args[0]}).astype(np.{node['dtype']})"
    if node["f"] == "reduce":  # a lazy reduction (kjarni/fusion.hpp)
        axes = node["axes"]
        if node["fn"] in ("argmin", "argmax") and axes is not None:
            axes = axes[0]
        elif axes is not None:
            axes = tuple(axes)
        extra = "".join(f", {k}={node[k]!r}" for k in ("ddof",) if k in node)
        if node.get("dtype"):
            extra += f", dtype=np.{node['dtype']}"
        return f"np.{node['fn']}({args[0]}, axis={axes}, keepdims={node['keepdims']}{extra})"
    fmt = FUNCTIONS[node["f"]].render or ("np." + node["f"] + "(" + ", ".join("{%d}" % k for k in range(len(args))) + ")")
    return fmt.format(*args)


def _index(index):
    parts = []
    for e in index:
        if isinstance(e, int):
            parts.append(str(e))
        elif e == "newaxis":
            parts.append("np.newaxis")
        elif e == "...":
            parts.append("...")
        else:
            start, stop, step = ("" if x is None else str(x) for x in e)
            parts.append(f"{start}:{stop}" + (f":{step}" if step != "1" else ""))
    if "..." not in index:
        parts.append("...")
    return ", ".join(parts)


def view(op):
    return f"{op['out']} = {op['src']}[{_index(op['index'])}]"


def transpose(op):
    return f"{op['out']} = np.transpose({op['src']}, {op['axes']})"


def reshape(op):
    copy = {"if_needed": None, "always": True, "never": False}[op["copy"]]
    return f"{op['out']} = np.reshape({op['src']}, {op['shape']}, order={op['order']!r}, copy={copy})"


def expr(op):
    return f"{op['out']} = np.array({tree(op['expr'])})"


def assign(op):
    return f"np.copyto({op['dst']}, {tree(op['expr'])}, casting='same_kind')   # kjarni::assign"


def fill(op):
    return f"{op['dst']}[...] = {tree(op['expr'])}   # kjarni::fill"


def set_(op):
    return f"{op['dst']}[...] = {op['src']}   # Array::set"


def astype(op):
    return f"{op['out']} = {op['src']}.astype(np.{op['dtype']}, order={op['order']!r})"


def copy(op):
    return f"{op['out']} = {op['src']}.copy(order={op['order']!r})"


def reduce(op):
    args = [op["src"], f"axis={None if op['axes'] is None else tuple(op['axes'])}"]
    if op["keepdims"]:
        args.append("keepdims=True")
    if op["dtype"]:
        args.append(f"dtype=np.{op['dtype']}")
    if op["out_arg"]:
        args.append(f"out={op['out_arg']}")
    return f"{op['out']} = np.{op['fn']}({', '.join(args)})"


def fused_reduce(op):
    src = tree(op["expr"])
    return moments(dict(op, src=src)) if op["fn"] in ("var", "std") else reduce(dict(op, src=src))


def fused_dot(op):
    return f"{op['out']} = np.dot({tree(op['expr'])}, {tree(op['expr_b'])})   # kjarni::dot of expressions"


def dot(op):
    return f"{op['out']} = np.dot({op['a']}, {op['b']})   # kjarni::dot"


def scan(op):
    args = [op["src"], f"axis={op['axis']}"]
    if op["dtype"]:
        args.append(f"dtype=np.{op['dtype']}")
    if op["out_arg"]:
        args.append(f"out={op['out_arg']}")
    return f"{op['out']} = np.{op['fn']}({', '.join(args)})"


def join(op):
    return f"{op['out']} = np.{op['op']}([{', '.join(op['srcs'])}], axis={op['axis']})"


def stack_along(op):
    return f"{op['out']} = np.{op['fn']}([{', '.join(op['srcs'])}])"


def atleast(op):
    return f"{op['out']} = np.atleast_{op['ndim']}d({op['src']})"


def ascontiguous(op):
    f = "ascontiguousarray" if op["order"] == "C" else "asfortranarray"
    dtype = f", dtype=np.{op['dtype']}" if op["dtype"] else ""
    return f"{op['out']} = np.{f}({op['src']}{dtype})"


def split(op):
    at = op.get("sections", op.get("indices"))
    return f"{', '.join(op['outs'])}, = np.{op['fn']}({op['src']}, {at}, axis={op['axis']})"


def take(op):
    return f"{op['out']} = np.take({op['src']}, {op['indices']}, axis={op['axis']}, mode={op['mode']!r})"


def nanreduce(op):
    one = op["fn"] in ("nanargmin", "nanargmax") and op["axes"] is not None and len(op["axes"]) == 1
    axis = op["axes"][0] if one else None if op["axes"] is None else tuple(op["axes"])
    args = [op["src"], f"axis={axis}"]
    if op["keepdims"]:
        args.append("keepdims=True")
    if op["dtype"]:
        args.append(f"dtype=np.{op['dtype']}")
    return f"{op['out']} = np.{op['fn']}({', '.join(args)})"


def moments(op):
    args = [op["src"], f"axis={None if op['axes'] is None else tuple(op['axes'])}", f"ddof={op['ddof']}"]
    if op["keepdims"]:
        args.append("keepdims=True")
    if op["dtype"]:
        args.append(f"dtype=np.{op['dtype']}")
    return f"{op['out']} = np.{op['fn']}({', '.join(args)})"


def sort(op):
    kind = ', kind="stable"' if op["op"] == "argsort" else ""
    return f"{op['out']} = np.{op['op']}({op['src']}, axis={op['axis']}{kind})"


def unique(op):
    flags = "".join(f", {k}=True" for k in ("return_index", "return_inverse", "return_counts") if op[k])
    return f"{', '.join(op['outs'])} = np.unique({op['src']}{flags}, equal_nan=True)"


def searchsorted(op):
    return f"{op['out']} = np.searchsorted({op['sorted']}, {op['values']}, side={op['side']!r})"


def nonzero(op):
    return f"{', '.join(op['outs']) + ',' if op['outs'] else '()'} = np.nonzero({op['src']})"


def count_nonzero(op):
    return f"{op['out']} = np.count_nonzero({op['src']}, axis={None if op['axes'] is None else tuple(op['axes'])})"


def blas(op):
    fields = ", ".join(f"{k}={v!r}" for k, v in op.items() if k not in ("op", "out"))
    return f"{op['out']} = blas.{op['op']}({fields})   # alpha op(a) op(b) + beta c"


def program(p, data):
    """The whole program: its inputs (values spelled out) and its operations."""
    from .operations import OPERATIONS
    lines = ["import numpy as np", "from numpy import nan, inf"]
    with np.printoptions(threshold=10**6, floatmode="unique"):
        for inp in p["inputs"]:
            a = data[inp["name"]]
            lines.append(f"{inp['name']} = np.array({np.array2string(a, separator=', ', max_line_width=10**6)}, "
                         f"dtype=np.{inp['dtype']}).reshape({tuple(inp['shape'])})")
    for op in p["ops"]:
        lines.append(OPERATIONS[op["op"]].render(op))
    return "\n".join(lines)
