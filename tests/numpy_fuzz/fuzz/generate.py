"""Random programs: a few inputs of random dtypes and shapes (0-d, empty, size-1 axes), views of
them, then operations drawn from the table (operations.py). The generator runs numpy's side as it
goes (oracle.py), so that it knows every value's shape and dtype; a program ends at the first
operation numpy refuses (an error both sides must raise)."""

import numpy as np

from . import dtypes
from .expressions import FUNCTIONS
from .fusion import has_reduction
from .oracle import Tracked, err_like, evaluate_tree
from .values import random_values

EXTENTS = [0, 1, 1, 2, 2, 3, 3, 4, 5, 7]


class Gen:
    def __init__(self, rng, program_id):
        self.rng = rng
        self.program = {"id": program_id, "inputs": [], "ops": []}
        self.data = {}
        self.values = {}
        self.count = 0

    # ---- names, dtypes, shapes ---------------------------------------------------------------
    def name(self, prefix):
        self.count += 1
        return f"{prefix}{self.count}"

    def dtype(self, kinds="biufc"):
        pool = [d for d in dtypes.ALL if dtypes.kind(d) in kinds]
        return str(self.rng.choice(pool))

    def shape(self, min_ndim=0, max_ndim=3):
        nd = int(self.rng.integers(min_ndim, max_ndim + 1))
        return tuple(int(self.rng.choice(EXTENTS)) for _ in range(nd))

    def shape_of(self, name):
        return tuple(self.values[name].data.shape)

    def dtype_of(self, name):
        return str(self.values[name].data.dtype)

    # ---- values --------------------------------------------------------------------------------
    def input_from(self, data, prefix="a"):
        name = self.name(prefix)
        # (np.ascontiguousarray would make a 0-d input (1,): 0-d arrays must start programs too)
        data = np.array(data, order="C", copy=True)
        self.program["inputs"].append({"name": name, "dtype": str(data.dtype), "shape": list(data.shape)})
        self.data[name] = data.copy()
        self.values[name] = Tracked(data.copy(), err_like(data))
        return name

    def new_input(self, dtype=None, shape=None, finite=False):
        dtype = dtype or self.dtype()
        shape = self.shape() if shape is None else tuple(shape)
        return self.input_from(random_values(self.rng, dtype, shape, finite=finite))

    def vector(self, n, dtype, finite=False, moderate=False):
        return self.input_from(random_values(self.rng, dtype, (n,), finite=finite, moderate=moderate))

    def matrix(self, shape, dtype):
        """A BLAS operand: finite values, sometimes in a transposed, sliced or reversed layout."""
        name = self.input_from(random_values(self.rng, dtype, shape, moderate=True))
        r = self.rng.random()
        if r < 0.2 and len(shape) >= 2:  # a Fortran-ordered copy's transpose view
            t = self.name("v")
            self.program["ops"].append({"op": "copy", "out": t, "src": name, "order": "F"})
            self._run(self.program["ops"][-1])
            return t
        if r < 0.3:
            v = self.name("v")
            self.program["ops"].append({"op": "view", "out": v, "src": name, "index": [[None, None, -1]]})
            self._run(self.program["ops"][-1])
            return v
        return name

    def pick(self, pred=None):
        # (A value whose shape is undecided, oracle.Tracked, may have another shape in kjarni.)
        names = [n for n in self.values if self.values[n].shape_decided
                 and (pred is None or pred(self.shape_of(n), self.dtype_of(n)))]
        if not names:
            return None
        return str(self.rng.choice(names))

    def target_shape(self):
        name = self.pick() if self.rng.random() < 0.7 else None
        return self.shape_of(name) if name else self.shape()

    def overlapping_view(self, dst):
        """A view of the same shape and dtype as `dst` over memory `dst` overlaps: its reverse, its
        transpose (square), or itself shifted by one along axis 0 of its base."""
        shape = self.shape_of(dst)
        options = []
        if shape:
            options.append([[None, None, -1]])
        if len(shape) == 2 and shape[0] == shape[1]:
            options.append("T")
        if not options:
            return None
        choice = options[int(self.rng.integers(len(options)))]
        if choice == "T":
            op = {"op": "transpose", "out": self.name("v"), "src": dst, "axes": None}
        else:
            op = {"op": "view", "out": self.name("v"), "src": dst, "index": choice}
        self.program["ops"].append(op)
        self._run(op)
        return op["out"]

    def output_for(self, op):
        """An `out=` array for a reduction or scan: the result's shape and dtype (a dry run), as a new
        input, sometimes a strided view of a larger one."""
        from .operations import OPERATIONS
        probe = dict(op, out="_probe", out_arg=None)
        values = {k: Tracked(v.data.copy(), v.err.copy()) for k, v in self.values.items()}
        try:
            OPERATIONS[op["op"]].evaluate(values, probe)
        except Exception:
            return None
        r = values["_probe"].data
        if self.rng.random() < 0.1:
            dtype = self.dtype()
        else:
            dtype = str(r.dtype)
        return self.new_input(dtype, r.shape)

    # ---- expression trees --------------------------------------------------------------------
    def scalar(self):
        if self.rng.random() < 0.6:
            return self.weak()
        return self.typed()

    def weak(self):
        kind = str(self.rng.choice(["bool", "int", "int", "uint", "float", "float", "complex"]))
        if kind == "bool":
            return {"weak": bool(self.rng.random() < 0.5), "kind": "bool"}
        if kind == "int":
            # Drawn by index: rng.choice of the list itself would go through an array (a float one
            # where the values do not fit one integer type) and lose the large values' last digits.
            ints = [0, 1, 2, 3, -1, -2, 5, 7, 100, 127, -128, 255, 300, -300, 65535, 2**31, 2**53 + 1, -(2**63)]
            return {"weak": ints[int(self.rng.integers(len(ints)))], "kind": "int"}
        if kind == "uint":
            uints = [0, 1, 2, 3, 200, 2**32 - 1, 2**64 - 1]
            return {"weak": uints[int(self.rng.integers(len(uints)))], "kind": "uint"}
        vals = [0.5, -1.5, 2.0, 3.0, 0.0, -0.0, 1e-3, 1e10, 1e40, "nan", "inf", "-inf", 0.1]
        v = vals[int(self.rng.integers(len(vals)))]
        if kind == "float":
            return {"weak": v, "kind": "float"}
        w = vals[int(self.rng.integers(len(vals)))]
        return {"weak": [v, w], "kind": "complex"}

    def typed(self):
        dt = self.dtype()
        k = dtypes.kind(dt)
        if k == "b":
            return {"scalar": bool(self.rng.random() < 0.5), "dtype": dt}
        if k in "iu":
            info = np.iinfo(dt)
            v = int(self.rng.choice([0, 1, 2, -1, 3, 7, int(info.max), int(info.min), -100]))
            v = min(max(v, int(info.min)), min(int(info.max), 2**63 - 1))
            return {"scalar": v, "dtype": dt}
        vals = [0.5, -1.5, 2.0, 0.0, 1e-3, 100.0, "nan", "inf", 3.25]
        v = vals[int(self.rng.integers(len(vals)))]
        if k == "c":
            return {"scalar": [v, vals[int(self.rng.integers(len(vals)))]], "dtype": dt}
        return {"scalar": v, "dtype": dt}

    def leaf(self, shape, prefer=None):
        r = self.rng.random()
        if r < 0.2:
            return self.scalar()
        if prefer is not None and r < 0.35 and self.shape_of(prefer) == tuple(shape):
            return {"array": prefer}
        if r < 0.7:
            name = self.pick(lambda s, d: _broadcasts_to(s, shape))
            if name is not None:
                return {"array": name}
        sub = list(shape)[int(self.rng.integers(0, len(shape) + 1)) if self.rng.random() < 0.3 else 0:]
        sub = [1 if self.rng.random() < 0.15 else n for n in sub]
        if self.rng.random() < 0.02:
            sub = [n + 1 for n in sub]  # shapes that do not broadcast: both must refuse
        return {"array": self.new_input(self.dtype(), tuple(sub))}

    def tree(self, shape, depth=0, prefer=None):
        for _ in range(10):
            node = self._tree(shape, depth, prefer)
            try:
                value, _ = evaluate_tree(node, self.values)
                if (np.shape(value) == tuple(shape) or self.rng.random() < 0.1) and (
                        self._kinds_ok(node) or self.rng.random() < 0.1):
                    return node
            except Exception:
                if self.rng.random() < 0.05:
                    return node  # an expression numpy refuses: kjarni must refuse it too
        return node

    def _kinds_ok(self, node):
        """Whether every function gets operands of the kinds it is meant for (others now and then:
        the errors are tested too, but they end the program)."""
        if "f" not in node:
            return True
        if node["f"] in FUNCTIONS:
            allowed = FUNCTIONS[node["f"]].kinds
            for a in node["args"][1:] if node["f"] == "where" else node["args"]:
                v, _ = evaluate_tree(a, self.values)
                if np.asarray(v).dtype.kind not in allowed:
                    return False
        return all(self._kinds_ok(a) for a in node["args"])

    def _tree(self, shape, depth, prefer):
        if depth >= 3 or self.rng.random() < (0.3 if depth else 0.05):
            return self.leaf(shape, prefer)
        if self.rng.random() < 0.04:
            from .fusion import random_node
            return random_node(self, shape, depth, prefer)  # a lazy reduction (fusion.py)
        if self.rng.random() < 0.08:
            return {"f": "astype", "dtype": self.dtype(), "args": [self._tree(shape, depth + 1, prefer)]}
        fns = list(FUNCTIONS.values())
        weights = np.array([f.weight for f in fns])
        f = fns[int(self.rng.choice(len(fns), p=weights / weights.sum()))]
        args = [self._tree(shape, depth + 1, prefer) for _ in range(f.arity)]
        return {"f": f.name, "args": args}

    # ---- operations --------------------------------------------------------------------------
    def _run(self, op):
        from .operations import OPERATIONS
        OPERATIONS[op["op"]].evaluate(self.values, op)


def _broadcasts_to(s, shape):
    if len(s) > len(shape):
        return False
    return all(a == b or a == 1 for a, b in zip(reversed(s), reversed(shape)))


def generate(rng, program_id, max_ops=4):
    """A random program and its inputs' data."""
    from .operations import OPERATIONS
    gen = Gen(rng, program_id)
    for _ in range(int(rng.integers(1, 3))):
        gen.new_input()
    ops = list(OPERATIONS.values())
    weights = np.array([o.weight for o in ops])
    for _ in range(int(rng.integers(1, max_ops + 1))):
        o = ops[int(rng.choice(len(ops), p=weights / weights.sum()))]
        op = o.generate(gen)
        if op is None:
            continue
        if any(has_reduction(op.get(k)) for k in ("expr", "expr_b")):
            # The row kernel (one kernel for the reductions and the result) or not (fusion.py).
            op["fusion_rows"] = str(rng.choice(["always", "never"]))
        gen.program["ops"].append(op)
        try:
            gen._run(op)
        except Exception:
            break  # numpy refused: the program ends here
    return gen.program, gen.data
