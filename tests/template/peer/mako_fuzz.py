"""Random differential testing of kjarni's template engine against Mako itself.

Generates random templates from a grammar of what kjarni claims to support (include/kjarni/template/
template.hpp): ${...} of ints (big ones, negative floor division and modulo, bit operations), floats
(str/repr, inf/nan, exponents, round), strings (escapes, slices, methods, %-formatting, str.format,
f-strings, format specs), bools, None, lists, tuples, dicts and sets, comprehensions, lambdas and
builtins; the filters h, u, x, n, trim and a callable of the globals; control lines (for with
`loop`, for/else, if/elif/else, while, break/continue), <% %> blocks (assignments, augmented
assignments, if/for/while, def/return, del, mutation of lists and dicts), <%! %> with import math,
<%def> with defaults, *args, keyword-only and **kwargs parameters and filter=, <%block> (named,
anonymous, filtered, overriding lib/block_base.mako's), <%text filter=>, <%call> with
caller.body(args) (and reads before the body assigns), custom tags <%self:f>, the loader
tags (<%namespace>, <%include>, <%inherit> on corpus/lib), ## comments, backslash line joins, %% at a
line start, and text with the characters that mean something to Mako. Each template is rendered by
Mako (Template(source, strict_undefined=True, lookup=corpus/lib), as grunnur and
mako_corpus.py do, with the corpus's globals) and by kjarni (tests/template/fuzz/mako_fuzz_runner.cpp,
one process for the whole run), and the two are compared byte for byte: where Mako raises, kjarni
must refuse the template (RenderError); where Mako renders, kjarni must render the same text, or
refuse it with one of its documented refusals (a set in hash order, a too big integer...), which
is counted separately.

Run (from the repository root, after building the target kjarni_mako_fuzz_runner and making a
virtual environment with Mako):

    build-ci/mako-venv/bin/python tests/template/peer/mako_fuzz.py \
        --runner build-ci/tests/kjarni_mako_fuzz_runner --seed 1 --count 2000 --out /tmp/mako-fuzz

Each difference is written to OUT/diff-SEED-N.mako (with Mako's and kjarni's results beside it in
.mako.txt and .kjarni.txt); the exit status is 1 when there was one. `--show N` prints the first N
templates of a seed without running anything (to see what the grammar makes).
"""

import argparse
import random
import signal
import subprocess
import sys
from pathlib import Path

import mako_corpus  # beside this script: the corpus globals

corpus = Path(__file__).resolve().parent.parent / "corpus"
sys.path.insert(0, str(Path(__file__).resolve().parent))

# kjarni's documented refusals (template.hpp, "Refused with an error naming the construct"): where
# Mako renders and kjarni refuses with one of these, it is no difference.
DELIBERATE_REFUSALS = (
    "hash order",
    "bits",  # integers beyond 2^20 bits
    "complex",
    "case mapping",
    "not supported",  # what kjarni names and refuses: <%block args=...>, \N{...} escapes...
    "shared between renders",  # changing a global list or dict in place
    "render limit",  # TemplateLimits (template.hpp): a list of 16 Mi items, a 64 MiB string...
)


def mako_globals():
    # The corpus test's globals (mako_corpus.py's, corpus_globals.hpp's in C++).
    return mako_corpus.globals_()


GLOBAL_TYPES = {
    "n": "int",
    "big": "int",
    "scale": "float",
    "flag": "bool",
    "ctype": "str",
    "text": "str",
    "names": "list_str",
    "empty": "list_int",
    "pairs": "list_pair",
    "mapping": "dict",
}

# ----------------------------------------------------------------------------------------------
# The grammar.


class Gen:
    def __init__(self, rng):
        self.r = rng
        self.vars = {}  # name -> type of the names the template has bound where the text stands
        self.depth = 0
        self.counter = 0
        self.defs = []  # (name, argnames) of the template's defs
        self.star_defs = {}  # name -> (has *rest, has **kw)

    # -- helpers
    def chance(self, p):
        return self.r.random() < p

    def pick(self, seq):
        return self.r.choice(seq)

    def fresh(self, prefix="v"):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def names_of(self, type_):
        out = [k for k, t in GLOBAL_TYPES.items() if t == type_]
        out += [k for k, t in self.vars.items() if t == type_]
        return out

    def paren(self, s):
        return f"({s})" if self.chance(0.85) else s

    def deeper(self):
        return self.depth < 4 and self.chance(0.7 - 0.15 * self.depth)

    def expr(self, type_):
        self.depth += 1
        try:
            if type_ == "any":
                type_ = self.pick(["int", "int", "float", "str", "str", "bool", "list_int", "list_str", "tuple", "dict", "none"])
            f = getattr(self, "e_" + type_)
            return f()
        finally:
            self.depth -= 1

    # -- literals
    def int_literal(self):
        k = self.r.random()
        if k < 0.5:
            v = self.r.randint(-12, 12)
        elif k < 0.7:
            v = self.r.randint(-1000, 100000)
        elif k < 0.85:
            v = self.pick([2**31 - 1, 2**31, 2**32, 2**53 + 1, 2**63 - 1, 2**63, 2**64, -(2**63), 10**20, 3**50, 2**100 + 7])
        else:
            v = self.r.randint(0, 255)
            form = self.pick(["hex", "HEX", "oct", "bin", "under"])
            if form == "hex":
                return hex(v)
            if form == "HEX":
                return "0X" + format(v, "X")
            if form == "oct":
                return oct(v)
            if form == "bin":
                return bin(v)
            return f"{v}_{self.r.randint(0, 999):03d}"
        return str(v) if v >= 0 else f"({v})" if self.chance(0.5) else str(v)

    def float_literal(self):
        k = self.r.random()
        if k < 0.3:
            return self.pick(["0.5", "1.5", "2.0", "0.1", "0.2", "0.3", "3.14159", "1.0", "0.0", "-0.0", "100.0", "2.5", "-2.5", "0.125", "7.", ".25"])
        if k < 0.55:
            return self.pick(["1e10", "1e16", "1e15", "1e-5", "1e-4", "0.0001", "1.5e-7", "1e22", "1e300", "2.5e+3", "1E5", "123456789.125", "1234567890123456789.0", "9.999e15", "1e100", "5e-324", "1.7976931348623157e308", "1_000.5"])
        if k < 0.8:
            return repr(round(self.r.uniform(-1000, 1000), self.r.randint(0, 6)))
        return repr(self.r.uniform(-1, 1) * 10 ** self.r.randint(-20, 20))

    def str_literal(self):
        pieces = ["a", "b", "abc", "Hello", " x ", "x,y,z", "a b  c", "", "1", "42", " 7 ", "\u00e9t\u00e9", "\u00c5ngstr\u00f6m", "\u0394\u03b1", "\u4e2d\u6587", "x\ty", "-3", "3.5", "aBc", "hello world", "  pad  ", "a-b-c", "__init__", "A1b2", "ß", "ǅ", "İ", "\u00df"]
        s = self.pick(pieces)
        quote = self.pick(["'", '"'])
        body = ""
        for ch in s:
            if ch == "\t":
                body += "\\t"
            elif ch == quote:
                body += "\\" + ch
            elif ord(ch) > 127 and self.chance(0.3):
                body += f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else ch
            else:
                body += ch
        if self.chance(0.1):
            body += self.pick(["\\n", "\\\\", "\\x41", "\\'", '\\"', "\\u00e9", "\\N{BULLET}", "\\0", "\\101", "\\a", "<&>\"'"])
        prefix = ""
        if self.chance(0.05) and "\\" not in body:
            prefix = self.pick(["r", "R"])
        if self.chance(0.05):
            return f"{prefix}{quote * 3}{body}{quote * 3}"
        return f"{prefix}{quote}{body}{quote}"

    # -- ints
    def e_int(self):
        if not self.deeper():
            opts = [self.int_literal] * 4 + [lambda: self.pick(self.names_of("int"))]
            return self.pick(opts)()
        k = self.r.randint(0, 27)
        i = lambda: self.paren(self.expr("int"))
        if k < 8:
            op = self.pick(["+", "-", "*", "//", "%", "//", "%", "&", "|", "^", "-", "+"])
            return f"{i()} {op} {i()}"
        if k == 8:
            return f"{i()} ** {self.r.randint(0, 6) if self.chance(0.8) else self.r.randint(30, 80)}"
        if k == 9:
            return f"{i()} {self.pick(['<<', '>>'])} {self.r.randint(0, 70)}"
        if k == 10:
            return f"{self.pick(['-', '+', '~', '- -'])}{i()}"
        if k == 11:
            return f"abs({i()})"
        if k == 12:
            return f"int({self.expr('float')})"
        if k == 13:
            return self.pick([f"round({self.expr('float')})", f"len({self.expr('str')})", f"len({self.expr('list_int')})"])
        if k == 14:
            return self.pick([f"sum({self.expr('list_int')})", f"max({self.expr('list_int')})", f"min({i()}, {i()})", f"max({i()}, {i()}, {i()})"])
        if k == 15:
            return f"divmod({i()}, {i()})[{self.r.randint(0, 1)}]"
        if k == 16:
            return self.pick([f"pow({i()}, {self.r.randint(0, 5)}, {i()})", f"pow({i()}, {self.r.randint(0, 4)})"])
        if k == 17:
            return self.pick(['int(' + self.pick(['"42"', '" -7 "', '"0x1f"', '"1_000"', '"12a"', '"+5"', '"٣"']) + ')', f"int('{self.r.choice(['ff', '1F', '777', '101', 'z'])}', {self.pick(['16', '8', '2', '36', '0'])})", "int('0b101', 0)", "int(True)", f"int('{self.r.randint(-99, 99)}')"])
        if k == 18:
            return self.pick([f"{self.expr('str')}.find({self.expr('str')})", f"{self.expr('str')}.count({self.expr('str')})", 'ord(' + self.pick(['"a"', '"é"', '"€"', '"\\n"']) + ')'])
        if k == 19:
            return f"({i()} if {self.expr('bool')} else {i()})"
        if k == 20:
            return f"{self.expr('list_int')}[{self.r.randint(-3, 3)}]"
        if k == 21:
            return f"{self.pick(['True', 'False', self.expr('bool')])} + {i()}"
        if k == 22:
            return self.pick(['mapping[' + self.pick(['"a"', '"b"', '"c"']) + ']', f"mapping.get({self.expr('str')}, {i()})", "n", "big", f"{self.expr('list_int')}.index({i()})"])
        if k == 23:
            return f"int({self.expr('int')} / {self.expr('int')})"
        if k == 24:
            return f"sum(x * x for x in range({self.r.randint(-2, 12)}))"
        if k == 25:
            return f"{self.expr('bool')} * {i()}"
        if k == 26:
            return f"{self.pick(['math.floor', 'math.ceil', 'math.trunc'])}({self.expr('float')})" if self.has_math else f"int({self.expr('float')} // 1)"
        return self.pick(['len', 'bool']) + '(' + self.pick(['()', '[]', '(1, 2)', '"ab"']) + ')'

    # -- floats
    def e_float(self):
        if not self.deeper():
            opts = [self.float_literal] * 4 + [lambda: "scale"]
            return self.pick(opts)()
        k = self.r.randint(0, 17)
        f = lambda: self.paren(self.expr("float"))
        n = lambda: self.paren(self.expr(self.pick(["int", "float"])))
        if k < 6:
            return f"{n()} {self.pick(['+', '-', '*', '/', '//', '%', '/', '*'])} {f()}"
        if k == 6:
            return f"{self.expr('int')} / {self.expr('int')}"
        if k == 7:
            return f"{f()} ** {self.pick(['2', '0.5', '-1', '3', '-2', '0', '1.5', '10', '400'])}"
        if k == 8:
            return 'float(' + self.pick(['"inf"', '"-inf"', '"nan"', '"1e3"', '" 1.5 "', '"-0"', '"Infinity"', '"1_0.5"', '"abc"', '".5"', '"1e-400"', '"1e400"']) + ')'
        if k == 9:
            return f"float({self.expr('int')})"
        if k == 10:
            return f"round({f()}, {self.r.randint(-2, 6)})"
        if k == 11:
            return f"abs({f()})"
        if k == 12:
            return self.pick([f"min({f()}, {n()})", f"max({f()}, {n()})", f"sum([{f()}, {f()}, {n()}])"])
        if k == 13:
            return f"-{f()}"
        if k == 14 and self.has_math:
            return self.pick([f"math.sqrt({f()})", f"math.exp({self.r.randint(-5, 800)})", f"math.log({f()})", "math.pi", "math.e", "math.inf", f"math.fabs({f()})", f"math.pow({f()}, {n()})", f"math.sin({f()})", f"math.floor({f()}) + 0.5", f"math.log2({self.expr('int')})", f"math.log10({f()})", f"math.atan2({f()}, {f()})", f"math.fmod({f()}, {f()})", f"math.hypot({f()}, {f()})", f"math.copysign(1.0, {f()})"])
        if k == 15:
            return f"({f()} if {self.expr('bool')} else {f()})"
        if k == 16:
            return f"{self.pick(['1e308', 'scale', '1e-320'])} * {self.pick(['10', '10.0', '1e10', '0.1', '-1e10'])}"
        return f"{f()} + {self.expr('int')}"

    # -- strings
    def fmt_spec(self, kind):
        spec = ""
        if self.chance(0.3):
            spec += self.pick(["", "*", "0", "-", "x", "é"]) + self.pick(["<", ">", "^", "="] if kind != "str" else ["<", ">", "^"])
        if kind != "str" and self.chance(0.3):
            spec += self.pick(["+", "-", " "])
        if kind != "str" and self.chance(0.15):
            spec += "#"
        if kind != "str" and self.chance(0.2) and "=" not in spec and not spec[:1] in "<>^":
            spec += "0"
        if self.chance(0.5):
            spec += str(self.r.randint(0, 14))
        if kind != "str" and self.chance(0.15):
            spec += self.pick([",", "_"])
        if kind == "float" and self.chance(0.6):
            spec += "." + str(self.r.randint(0, 12))
        if kind == "str" and self.chance(0.2):
            spec += "." + str(self.r.randint(0, 5))
        types = {"int": ["", "d", "x", "X", "o", "b", "c", "n", "e", "f", "g", "%", "E", "G"], "float": ["", "e", "E", "f", "F", "g", "G", "%", "n"], "str": ["", "s"]}[kind]
        if self.chance(0.6):
            spec += self.pick(types)
        return spec

    def pct_conv(self, kind):
        flags = "".join(self.r.sample(["-", "+", " ", "0", "#"], self.r.randint(0, 2)))
        width = str(self.r.randint(1, 12)) if self.chance(0.4) else ""
        prec = "." + str(self.r.randint(0, 8)) if self.chance(0.4) else ""
        conv = self.pick({"int": ["d", "i", "x", "X", "o", "e", "f", "g", "s", "r", "c", "u"], "float": ["f", "e", "E", "g", "G", "s", "r", "d", "F"], "str": ["s", "r", "a"]}[kind])
        return f"%{flags}{width}{prec}{conv}"

    def e_str(self):
        if not self.deeper():
            opts = [self.str_literal] * 4 + [lambda: self.pick(self.names_of("str"))]
            return self.pick(opts)()
        k = self.r.randint(0, 30)
        s = lambda: self.paren(self.expr("str"))
        if k < 2:
            return f"{s()} + {s()}"
        if k == 2:
            return f"{s()} * {self.r.randint(-1, 4)}"
        if k == 3:
            return f"str({self.expr('any')})"
        if k == 4:
            return f"repr({self.expr('any')})"
        if k == 5:
            a = self.pick(["", str(self.r.randint(-6, 6))])
            b = self.pick(["", str(self.r.randint(-6, 8))])
            c = self.pick(["", "", str(self.pick([-2, -1, 1, 2, 3]))])
            return f"{s()}[{a}:{b}{':' + c if c else ''}]"
        if k == 6:
            return f"{s()}[{self.r.randint(-3, 3)}]"
        if k == 7:
            m = self.pick(["upper", "lower", "title", "capitalize", "swapcase", "strip", "lstrip", "rstrip", "casefold"])
            return f"{s()}.{m}()"
        if k == 8:
            return self.pick([f"{s()}.strip({s()})", f"{s()}.replace({s()}, {s()})", f"{s()}.replace({s()}, {s()}, {self.r.randint(-1, 2)})", f"{s()}.center({self.r.randint(0, 12)}, " + self.pick(['"*"', '"é"', '" "']) + ")", f"{s()}.ljust({self.r.randint(0, 10)})", f"{s()}.rjust({self.r.randint(0, 10)}, '.')", f"{s()}.zfill({self.r.randint(0, 8)})", f"{s()}.expandtabs({self.r.randint(0, 8)})"])
        if k == 9:
            lst = self.expr("list_str")
            return f"{s()}.join({lst})"
        if k == 10:
            vals = [self.pick(["int", "float", "str"]) for _ in range(self.r.randint(1, 3))]
            fmt = " ".join(self.pct_conv(v) for v in vals) + self.pick(["", " %%", "!"])
            args = [self.expr(v) for v in vals]
            if len(args) == 1 and self.chance(0.5):
                return f"{self.py_str(fmt)} % {self.paren(args[0])}"
            return f"{self.py_str(fmt)} % ({', '.join(args)}{',' if len(args) == 1 else ''})"
        if k == 11:
            vals = [self.pick(["int", "float", "str"]) for _ in range(self.r.randint(1, 3))]
            fields = []
            for idx, v in enumerate(vals):
                name = self.pick(["", str(idx)])
                conv = self.pick(["", "", "", "!r", "!s", "!a"])
                spec = self.fmt_spec(v) if not conv and self.chance(0.7) else ""
                fields.append("{" + name + conv + (":" + spec if spec else "") + "}")
            if any(f.startswith("{}") or f.startswith("{!") or f.startswith("{:") for f in fields) and any(f[1:2].isdigit() for f in fields):
                fields = ["{" + f[1:].lstrip("0123456789") for f in fields]
            fmt = self.pick(["", "[", "{{"]) + " ".join(fields) + self.pick(["", "]", "}}"])
            return f"{self.py_str(fmt)}.format({', '.join(self.expr(v) for v in vals)})"
        if k == 12:
            v = self.pick(["int", "float", "str"])
            return f"format({self.expr(v)}, {self.py_str(self.fmt_spec(v))})"
        if k == 13:
            parts = []
            for _ in range(self.r.randint(1, 3)):
                v = self.pick(["int", "float", "str"])
                e = self.expr(v).replace("'", '"')
                if "\\" in e or "{" in e or "'" in e:
                    e = self.pick(self.names_of(v) or ["1"])
                conv = self.pick(["", "", "", "!r"])
                spec = self.fmt_spec(v) if self.chance(0.5) else ""
                parts.append("{" + e + conv + (":" + spec if spec else "") + "}")
            return "f'" + self.pick(["", "x=", "{{"]) + "-".join(parts) + "'"
        if k == 14:
            return f"{self.pick(['hex', 'oct', 'bin'])}({self.expr('int')})"
        if k == 15:
            return f"chr({self.pick(['65', '97', '233', '8364', '0x41', '10', '0x1F600', str(self.r.randint(32, 126))])})"
        if k == 16:
            return f"{s()}.split({self.pick(['', self.str_literal(), 'None, 1', repr(',')])})[{self.r.randint(-2, 2)}]"
        if k == 17:
            return f"({s()} if {self.expr('bool')} else {s()})"
        if k == 18:
            return f"{self.py_str(self.pick(['-', ', ', '', ' | ']))}.join(str(x) for x in {self.expr('list_int')})"
        if k == 19:
            return f"{self.pick(['twice'])}({s()})"
        if k == 20:
            return f"{s()}.partition({self.str_literal()})[{self.r.randint(0, 2)}]"
        if k == 21:
            return f"{self.expr('list_str')}[{self.r.randint(-3, 2)}]"
        if k == 22:
            return f"str({self.expr('float')})"
        if k == 23:
            return f"repr({self.expr('float')})"
        if k == 24:
            return f"'%s' % {self.paren(self.expr('any'))}"
        if k == 25:
            return f"str({self.expr(self.pick(['list_int', 'list_str', 'tuple', 'dict', 'list_pair', 'set1']))})"
        if k == 26:
            return f"{self.py_str(self.pick(['%(a)s-%(b)03d', '%(c)r', '%(a)5s|%%']))} % {{'a': {s()}, 'b': {self.expr('int')}, 'c': {self.expr('any')}}}"
        if k == 27:
            return f"' '.join(sorted({self.expr('list_str')}, key={self.pick(['len', 'str.lower', 'lambda q: q[::-1]'])}))"
        if k == 28:
            return f"{s()}.{self.pick(['removeprefix', 'removesuffix', 'lstrip', 'rstrip'])}({self.str_literal()})"
        if k == 29:
            return self.pick([f"'{{}}'.format({self.expr('any')})", f"ascii({self.expr('any')})", f"'{{!a}}'.format({self.expr('str')})"])
        return f"str({self.expr('bool')}) + str(None)"

    def py_str(self, s):
        return repr(s)

    # -- bools
    def e_bool(self):
        if not self.deeper():
            return self.pick(["True", "False", "flag", "not flag"] + self.names_of("bool"))
        k = self.r.randint(0, 14)
        if k < 4:
            t = self.pick(["int", "float", "str", "int", "list_int", "tuple"])
            ops = ["==", "!=", "<", "<=", ">", ">="]
            if self.chance(0.2):
                return f"{self.paren(self.expr(t))} {self.pick(ops)} {self.paren(self.expr(t))} {self.pick(ops)} {self.paren(self.expr(t))}"
            return f"{self.paren(self.expr(t))} {self.pick(ops)} {self.paren(self.expr(t))}"
        if k == 4:
            return f"{self.paren(self.expr('int'))} {self.pick(['==', '<', '!='])} {self.paren(self.expr('float'))}"
        if k == 5:
            return f"not {self.paren(self.expr('bool'))}"
        if k == 6:
            return f"{self.paren(self.expr('bool'))} {self.pick(['and', 'or'])} {self.paren(self.expr('bool'))}"
        if k == 7:
            return self.pick([f"{self.expr('str')} {self.pick(['in', 'not in'])} {self.paren(self.expr('str'))}", f"{self.expr('int')} in {self.paren(self.expr('list_int'))}", f"{self.expr('str')} in mapping"])
        if k == 8:
            return f"{self.paren(self.expr('any'))} is {self.pick(['None', 'not None'])}"
        if k == 9:
            return f"isinstance({self.expr('any')}, {self.pick(['int', 'float', 'str', 'list', 'tuple', 'dict', 'bool', '(int, float)'])})"
        if k == 10:
            return f"{self.paren(self.expr('str'))}.{self.pick(['startswith', 'endswith'])}({self.expr('str')})"
        if k == 11:
            return f"{self.paren(self.expr('str'))}.{self.pick(['isdigit', 'isalpha', 'isalnum', 'isspace', 'isupper', 'islower', 'istitle', 'isidentifier', 'isdecimal', 'isnumeric'])}()"
        if k == 12:
            return f"{self.pick(['any', 'all'])}({self.expr('list_int')})"
        if k == 13:
            return f"bool({self.expr('any')})"
        return self.pick(['callable(twice)', 'callable(n)', 'math.isnan(float("nan"))' if self.has_math else 'flag', 'math.isinf(1e308 * 10)' if self.has_math else 'not flag'])

    # -- containers
    def e_list_int(self):
        if not self.deeper():
            return self.pick(["[1, 2, 3]", "[]", "[-3, 0, 7, 2]", f"[{self.int_literal()}]", "empty", "list(range(4))", f"list(range({self.r.randint(-3, 6)}, {self.r.randint(-3, 9)}, {self.pick([1, 2, -1, 3, -2])}))"] + self.names_of("list_int"))
        k = self.r.randint(0, 13)
        if k < 2:
            return "[" + ", ".join(self.expr("int") for _ in range(self.r.randint(0, 4))) + "]"
        if k == 2:
            return f"[{self.comp_body('int')} for x in {self.expr('list_int')}{' if x ' + self.pick(['%2', '>1', '!=0', '< 3']) if self.chance(0.4) else ''}]"
        if k == 3:
            return f"sorted({self.expr('list_int')}{self.pick(['', ', reverse=True', ', key=abs', ', key=lambda v: -v', ', key=lambda v: (v % 3, v)'])})"
        if k == 4:
            return f"{self.paren(self.expr('list_int'))} + {self.paren(self.expr('list_int'))}"
        if k == 5:
            return f"{self.paren(self.expr('list_int'))} * {self.r.randint(-1, 3)}"
        if k == 6:
            return f"{self.paren(self.expr('list_int'))}[{self.pick(['', '1', '-2'])}:{self.pick(['', '2', '-1'])}{self.pick(['', ':2', ':-1'])}]"
        if k == 7:
            return f"list(range({self.r.randint(-3, 6)}, {self.paren(self.expr('int'))} % 9))"
        if k == 8:
            return f"list(map({self.pick(['abs', 'lambda v: v * 2', 'lambda v: v // 2', 'int', 'lambda v: v ** 2 - 1'])}, {self.expr('list_int')}))"
        if k == 9:
            return f"list(filter({self.pick(['None', 'lambda v: v > 0', 'lambda v: v % 2'])}, {self.expr('list_int')}))"
        if k == 10:
            return f"list(reversed({self.expr('list_int')}))"
        if k == 11:
            return f"[len(w) for w in {self.expr('list_str')}]"
        if k == 12:
            return f"[i for i, w in enumerate({self.expr('list_str')}{', ' + str(self.r.randint(-2, 3)) if self.chance(0.3) else ''})]"
        if self.chance(0.5):
            return f"[*{self.expr('list_int')}, {self.expr('int')}]"
        return f"list(mapping.values())"

    def comp_body(self, t):
        return self.pick(["x", "x * 2", "x - 1", "x // 2", "-x", "x ** 2", "x % 3", "n + x"])

    def e_list_str(self):
        if not self.deeper():
            return self.pick(["names", "['a', 'bb', 'c']", "[]", "list('abc')", "['é', 'Z', 'a']", "sorted(mapping)", "list(mapping)"] + self.names_of("list_str"))
        k = self.r.randint(0, 8)
        if k < 2:
            return "[" + ", ".join(self.expr("str") for _ in range(self.r.randint(0, 3))) + "]"
        if k == 2:
            return f"{self.paren(self.expr('str'))}.split({self.pick(['', repr(' '), repr(','), repr('a'), 'None', repr(' ') + ', 1'])})"
        if k == 3:
            return f"{self.paren(self.expr('str'))}.{self.pick(['rsplit', 'splitlines'])}()"
        if k == 4:
            return f"[str(x) for x in {self.expr('list_int')}]"
        if k == 5:
            return f"sorted({self.expr('list_str')}{self.pick(['', ', reverse=True', ', key=len', ', key=str.lower'])})"
        if k == 6:
            return f"[{self.pick(['w.upper()', 'w * 2', 'w[:1]', 'w + str(i)', 'repr(w)'])} for i, w in enumerate({self.expr('list_str')})]"
        if k == 7:
            return f"list({self.expr('str')})"
        return f"[k for k, v in {self.pick(['mapping.items()', 'sorted(mapping.items())', 'pairs'])}]"

    def e_list_pair(self):
        return self.pick(["pairs", "list(zip(names, [1, 2, 3]))", "list(enumerate(names))", "sorted(mapping.items())", "list(mapping.items())", f"list(zip({self.expr('list_str')}, {self.expr('list_int')}))", "[(k, v) for k, v in pairs]", f"list(enumerate({self.expr('list_str')}, 1))", "sorted(pairs, key=lambda p: -p[1])"])

    def e_tuple(self):
        k = self.r.randint(0, 6)
        if k == 0:
            return "()"
        if k == 1:
            return f"({self.expr('any')},)"
        if k == 2:
            return "(" + ", ".join(self.expr("any") for _ in range(self.r.randint(2, 3))) + ")"
        if k == 3:
            return f"tuple({self.expr('list_int')})"
        if k == 4:
            return f"divmod({self.expr('int')}, {self.expr(self.pick(['int', 'float']))})"
        if k == 5:
            return f"{self.paren(self.expr('str'))}.partition({self.str_literal()})"
        return self.pick(["pairs[0]", "pairs[-1]", "tuple(names)", "(1, 'a', None, 2.5, True)"])

    def e_dict(self):
        k = self.r.randint(0, 6)
        if k == 0:
            return "{" + ", ".join(f"{self.pick([self.str_literal(), self.int_literal(), 'None', '(1, 2)', '1.0', 'True'])}: {self.expr('any')}" for _ in range(self.r.randint(0, 3))) + "}"
        if k == 1:
            return f"{{w: len(w) for w in {self.expr('list_str')}}}"
        if k == 2:
            return "dict(zip(names, range(3)))"
        if k == 3:
            return self.pick(["mapping", "dict(mapping, d=4)", "dict(a=1, b='x')", "dict(pairs)", "{**mapping, 'a': 0}", "dict(sorted(mapping.items()))"])
        if k == 4:
            return f"{{i: {self.comp_body('int').replace('x', 'i')} for i in range({self.r.randint(0, 4)})}}"
        if k == 5:
            return f"dict([(1, 2), ('1', 3), (1.0, 4)])"
        return "{True: 'a', 1: 'b', 1.0: 'c', 0: 'z', False: 'y'}"

    def e_set1(self):
        # Sets printed only with at most one member (kjarni refuses Python's hash order).
        return self.pick(["set()", "{1}", "{'a'}", "set([2, 2, 2])", "{1, 1.0, True}", "set('aaa')", "{1, 2} & {2, 3}", "{1, 2} - {1, 3} - {2}", "{3} | {3}", "set()"])

    def e_none(self):
        return self.pick(["None", "mapping.get('zz')", "[].sort()", "(lambda: None)()", "context.get('undefined_thing')"])

    has_math = False

    # -- template pieces
    def text_line(self):
        pieces = ["int x = 0;", "plain text", "  indented", "\tTabbed", "", "a $ b", "100% sure", "a < b > c", "#define X 1", "x // y", "$notexpr", "{braces}", "<%notatag", "a\\b", "trailing  ", "\u00e9\u00e8 \u4e2d", "back\\", "x % in the middle", "a ## not a comment", "x \\\\", "$$", "<% %%> no", "</%def", "'quote\" marks"]
        t = self.pick(pieces)
        if t == "<%notatag" or t.startswith("<% ") or t == "</%def":
            t = "lt" + t[1:]
        return t

    def subst(self):
        t = self.pick(["int", "float", "str", "str", "bool", "any", "list_int", "list_str", "tuple", "dict", "none", "list_pair", "set1"])
        e = self.expr(t)
        filt = ""
        if self.chance(0.25):
            filt = " | " + self.pick(["h", "u", "x", "trim", "n", "h, trim", "n, h", "twice", "str, twice", "trim,h", "h"])
            if "n" == filt.strip(" |") and t not in ("str",):
                filt = " | h"
        spaces = self.pick(["", " ", "  ", "\n"]) if self.chance(0.2) else ""
        return "${" + spaces + e + spaces + filt + "}"

    def inline_text(self):
        parts = []
        for _ in range(self.r.randint(1, 3)):
            if self.chance(0.55):
                parts.append(self.subst())
            else:
                parts.append(self.pick(["x", " ", "= ", ", ", "[", "]", ";", "->", " is ", "\u00e9", "$", "\\", "<", "#"] + (["%"] if parts else [])))
        return "".join(parts)

    def block(self, lines, ind, budget):
        """Appends template lines for a body: text, substitutions, control structures, code."""
        for _ in range(budget):
            k = self.r.random()
            if k < 0.2:
                lines.append(ind + self.text_line())
            elif k < 0.5:
                lines.append(ind * self.chance(0.5) + self.inline_text() + self.pick(["", "", "", "\\", " ", "  \\"] if self.chance(0.3) else [""]))
            elif k < 0.58 and self.depth_blocks < 3:
                self.for_block(lines, ind)
            elif k < 0.66 and self.depth_blocks < 3:
                self.if_block(lines, ind)
            elif k < 0.74:
                self.code_block(lines, ind)
            elif k < 0.77:
                lines.append(ind * self.chance(0.5) + "## " + self.pick(["comment ${x}", "", "% if", "<%def>"]))
            elif k < 0.79:
                lines.append(ind + "%% " + self.pick(["literal", "for x in y:", "endif"]))
            elif k < 0.82 and self.defs:
                name, args = self.pick(self.defs)
                lines.append(ind + self.call_def(name, args))
            elif k < 0.84 and self.depth_blocks < 3:
                self.while_block(lines, ind)
            elif k < 0.86:
                lines.append(self.pick(["<%namespace file=\"util.mako\" import=\"decl\"/>${decl(ctype, 'q')}", "<%namespace name=\"u\" file=\"util.mako\"/>${u.twice_str(" + self.expr("str") + ")}", "<%include file=\"common.mako\"/>", "<%include file=\"with_args.mako\" args=\"v=" + self.expr("int").replace('"', "'") + "\"/>", "<%namespace file=\"self_ns.mako\" import=\"*\"/>[${outer(" + self.expr("int") + ")}]"]))
            elif k < 0.88 and self.defs:
                self.call_block(lines, ind)
            elif k < 0.87:
                lines.append(ind * self.chance(0.5) + self.pick([
                    "<%doc>doc ${1/0}\n% if\n</%doc>", "<%text>${not evaluated}\n% for\n</%text>", "a<%doc>x</%doc>b",
                    "<%text>" + self.text_line().replace("<%", "(%") + " </%text>" + self.pick(["", "\\"]),
                    "<%doc></%doc>|"]))
            elif k < 0.88 and self.depth_blocks < 3:
                # A control line joined over a backslash.
                lines.append(f"{ind}% if {self.expr('bool')} or \\")
                lines.append(f"{ind}    {self.expr('bool')}:")
                self.block(lines, ind + "  ", 1)
                lines.append(f"{ind}% endif")
            elif k < 0.895:
                self.block_tag(lines, ind)
            elif k < 0.9:
                lines.append(ind + self.pick(["<%doc>doc ${1/0}</%doc>", "<%text>${not evaluated}</%text>", "<%block name=\"b\">blk ${n}</%block>", "${'}'}", "${ {'a': 1}['a'] }", "${\"%\"}", "${'${'}", "${ \"\\\\\" }", "${'<%'}", "${'a' 'b'}", "${n}${n}", "${n}\\${n}", "$${n}", "${[x for x in 'ab']}", "${(lambda a, k=3: (a, k))(1, 2)}"]))
            else:
                lines.append(ind + self.inline_text())

    depth_blocks = 0
    in_def = 0  # <%def>s around the text being made (a named <%block> there is Mako's error)

    def block_tag(self, lines, ind):
        """<%block> (anonymous, or named outside defs) with filters, or <%text filter=...>."""
        filt = f' filter="{self.pick(["trim", "h", "trim, h", "twice", "n, u", "x"])}"' if self.chance(0.4) else ""
        k = self.r.random()
        if k < 0.25:
            text = self.text_line().replace("<%", "(%").replace("</%", "(/%") or "t"
            text_filter = filt or ' filter="h"'
            lines.append(ind + "<%text" + text_filter + ">" + text + " ${n}</%text>" + self.pick(["", "\\"]))
            return
        name = f' name="{self.fresh("b")}"' if k < 0.6 and (self.in_def == 0 or self.chance(0.1)) else ""
        lines.append(ind + f"<%block{name}{filt}>" + self.pick(["", "\\"]))
        saved = dict(self.vars)
        if name:
            # A named block reads the render globals only (Mako renders it through self).
            self.vars = {v: t for v, t in saved.items() if v in GLOBAL_TYPES} if self.chance(0.9) else saved
        self.block(lines, ind, self.r.randint(1, 2))
        self.vars = saved
        if self.chance(0.1) and saved:
            # A name the block assigns, read after it: unbound there (Mako's NameError).
            v = self.pick(sorted(saved))
            lines.append(f"<% {v} = 2 %></%block>${{{v}}}")
        else:
            lines.append("</%block>" + self.pick(["", "\\"]))

    def for_block(self, lines, ind):
        self.depth_blocks += 1
        var = self.fresh("i")
        t, src = self.pick([
            ("int", lambda: self.expr("list_int")),
            ("str", lambda: self.expr("list_str")),
            ("str", lambda: self.expr("str")),
            ("pair", lambda: self.expr("list_pair")),
            ("str", lambda: "mapping"),
            ("int", lambda: f"range({self.r.randint(-1, 4)})"),
        ])
        src = src()
        saved = dict(self.vars)
        if t == "pair":
            v2 = self.fresh("j")
            lines.append(f"{ind}% for {self.pick([f'{var}, {v2}', f'({var}, {v2})'])} in {src}:")
            self.vars[var] = "str" if "enumerate" not in src else "int"
            self.vars[v2] = "int" if "enumerate" not in src else "str"
        else:
            lines.append(f"{ind}% for {var} in {src}:")
            self.vars[var] = t
        inner = ind + self.pick(["", "  ", "    ", "\t"])
        if self.chance(0.4):
            loop_attrs = ["${loop.index}", "${loop.first}", "${loop.last}", "${loop.even}/${loop.odd}", "${loop.reverse_index}", "${loop.cycle('a', 'b', 'c')}", "${loop.index + 1}", "${loop.revindex0 if False else loop.reverse_index}"]
            if self.depth_blocks > 1:
                loop_attrs.append("${loop.parent.index}")
            lines.append(inner + self.pick(loop_attrs) + ":${" + var + "}")
        self.block(lines, inner, self.r.randint(1, 3))
        if self.chance(0.15):
            # A break in a <% %> block ends the % for around it (`% break` is no control line to Mako).
            jump = self.pick(["<% break %>", "<% continue %>", "<% if loop.index > 0: break %>"])
            lines.append(f"{inner}{jump}" if self.chance(0.5) else f"{inner}% if {self.expr('bool')}:\n{inner}{jump}\n{inner}% endif")
        if self.chance(0.1):
            lines.append(f"{ind}% else:")
            self.block(lines, inner, 1)
        lines.append(f"{ind}% endfor" + self.pick(["", "", "", " ", "  ## done"]))
        self.depth_blocks -= 1
        if self.chance(0.7):
            self.vars = saved  # names bound by a for stay bound in Python after it; usually forget them

    def if_block(self, lines, ind):
        self.depth_blocks += 1
        lines.append(f"{ind}% if {self.expr('bool')}:")
        inner = ind + self.pick(["", "  "])
        self.block(lines, inner, self.r.randint(1, 2))
        for _ in range(self.r.randint(0, 2)):
            lines.append(f"{ind}% elif {self.expr('bool')}:")
            self.block(lines, inner, 1)
        if self.chance(0.5):
            lines.append(f"{ind}% else:")
            self.block(lines, inner, self.r.randint(1, 2))
        lines.append(f"{ind}% endif")
        self.depth_blocks -= 1

    def while_block(self, lines, ind):
        self.depth_blocks += 1
        c = self.fresh("w")
        lines.append(f"<% {c} = {self.r.randint(0, 3)} %>\\")
        lines.append(f"{ind}% while {c} > 0:")
        self.vars[c] = "int"
        lines.append(f"{ind}  ${{{c}}}<% {c} -= 1 %>")
        self.block(lines, ind + "  ", 1)
        lines.append(f"{ind}% endwhile")
        self.depth_blocks -= 1

    def py_stmts(self, ind, budget, in_func=False):
        out = []
        for _ in range(budget):
            k = self.r.random()
            if k < 0.45:
                t = self.pick(["int", "float", "str", "list_int", "list_str", "dict", "bool"])
                name = self.fresh("x") if self.chance(0.95) else self.pick(["n", "ctype", "scale"])
                out.append(f"{ind}{name} = {self.expr(t)}")
                self.vars[name] = t
            elif k < 0.55 and self.names_mutable("int"):
                name = self.pick(self.names_mutable("int"))
                out.append(f"{ind}{name} {self.pick(['+=', '-=', '*=', '//=', '%=', '<<=', '|=', '**='])} {self.paren(self.expr('int')) if self.chance(0.7) else self.r.randint(1, 3)}")
            elif k < 0.62 and self.names_mutable("list_int"):
                name = self.pick(self.names_mutable("list_int"))
                mutation = self.pick([".append(" + self.expr("int") + ")", ".insert(" + str(self.r.randint(-2, 2)) + ", " + self.expr("int") + ")", ".extend(" + self.expr("list_int") + ")", ".sort()", ".reverse()", ".pop()", "[0] = " + self.expr("int"), " += " + self.expr("list_int"), ".remove(" + self.expr("int") + ")", "[1:2] = [9, 9]", ".sort(reverse=True)", ".clear()", ".pop(0)", "[-1] += 1"])
                out.append(f"{ind}{name}{mutation}")
            elif k < 0.67 and self.names_mutable("dict"):
                name = self.pick(self.names_mutable("dict"))
                out.append(f"{ind}{name}[{self.str_literal()}] = {self.expr('any')}")
            elif k < 0.74:
                cond = self.expr("bool")
                name = self.fresh("x")
                out.append(f"{ind}if {cond}:")
                out.append(f"{ind}    {name} = {self.expr('int')}")
                out.append(f"{ind}else:")
                out.append(f"{ind}    {name} = {self.expr('int')}")
                self.vars[name] = "int"
            elif k < 0.8:
                name = self.fresh("acc")
                var = self.fresh("q")
                out.append(f"{ind}{name} = []")
                out.append(f"{ind}for {var} in {self.expr('list_int')}:")
                out.append(f"{ind}    {self.pick(['if ' + var + ' < 0: continue', 'if ' + var + ' > 5: break', 'pass'])}")
                out.append(f"{ind}    {name}.append({var} * {self.r.randint(-2, 3)})")
                self.vars[name] = "list_int"
            elif k < 0.86 and not in_func:
                fname = self.fresh("fn")
                out.append(f"{ind}def {fname}(a, b={self.int_literal()}):")
                out.append(f"{ind}    return {self.pick(['a + b', 'a * b', '[a, b]', 'str(a) + str(b)', 'a // b if b else a', 'a ** 2 - b'])}")
                name = self.fresh("x")
                out.append(f"{ind}{name} = {fname}({self.expr('int')}{', ' + self.expr('int') if self.chance(0.5) else ''})")
                self.vars[name] = "any"
            elif k < 0.9:
                name = self.fresh("t")
                out.append(f"{ind}{name}, {name}b = {self.pick(['divmod(' + self.expr('int') + ', ' + self.expr('int') + ')', '(' + self.expr('int') + ', ' + self.expr('int') + ')'])}")
                self.vars[name] = "int"
                self.vars[name + "b"] = "int"
            elif k < 0.93:
                out.append(f"{ind}assert {self.expr('bool')}{', ' + self.str_literal() if self.chance(0.5) else ''}")
            elif k < 0.96 and self.vars:
                name = self.pick(list(self.vars))
                out.append(f"{ind}del {name}")
                del self.vars[name]
            else:
                name = self.fresh("x")
                out.append(f"{ind}{name} = {self.pick(['n', 'big', 'scale'])}  # a comment %> no")
                self.vars[name] = "any"
                out[-1] = out[-1].replace("%> no", "no")
        return out

    def names_mutable(self, t):
        return [k for k, v in self.vars.items() if v == t]

    def code_block(self, lines, ind):
        saved_keys = set(self.vars)
        stmts = self.py_stmts("", self.r.randint(1, 3))
        if len(stmts) == 1 and ":" not in stmts[0] and self.chance(0.6):
            lines.append(f"{ind}<% {stmts[0].strip()} %>" + self.pick(["", "\\", "x"]))
        else:
            body_ind = self.pick(["", "    ", "  "])
            lines.append(f"{ind}<%")
            lines.extend(body_ind + s for s in stmts)
            lines.append(f"{ind}%>" + self.pick(["", "\\"]))
        del saved_keys

    def call_def(self, name, args):
        vals = []
        for a, default in args:
            if default is not None and self.chance(0.4):
                continue
            vals.append(self.expr("int") if a.startswith("a") else self.expr("str"))
        star_args, star_kw = self.star_defs.get(name, (False, False))
        extra = []
        if star_args and self.chance(0.6):
            extra += [self.expr("int") for _ in range(self.r.randint(1, 3))]
        if star_kw and self.chance(0.6):
            extra += [f"z{i}={self.expr('int')}" for i in range(self.r.randint(1, 2))]
        if self.chance(0.1):
            extra.append(self.pick(["*[1, 2]", "**{'zz': 3}", "kwo=5", "context=1"]))
        if self.chance(0.2) and args:
            return "${" + f"{name}({', '.join([f'{a}={v}' for (a, _), v in zip(args, vals)] + extra)})" + "}"
        return "${" + f"{name}({', '.join(vals + extra)})" + "}" + self.pick(["", "", " | trim"])

    def def_block(self, lines):
        name = self.fresh("d")
        args = []
        for idx in range(self.r.randint(0, 3)):
            kind = self.pick(["a", "s"])
            default = None
            if args and args[-1][1] is not None or self.chance(0.3):
                default = self.int_literal() if kind == "a" else self.str_literal().replace('"', "'")
            args.append((f"{kind}{idx}", default))
        sig = ", ".join(a if d is None else f"{a}={d}" for a, d in args)
        # *args, keyword-only and **kwargs parameters (call_def passes extra arguments to them).
        star = (self.chance(0.2), self.chance(0.2))
        if star[0]:
            sig += (", " if sig else "") + "*rest" + self.pick(["", ", kwo=" + str(self.int_literal())])
        if star[1]:
            sig += (", " if sig else "") + "**kw"
        filt = f' filter="{self.pick(["trim", "h", "trim, h", "twice"])}"' if self.chance(0.2) else ""
        lines.append(f'<%def name="{name}({sig})"{filt}>' + self.pick(["", "\\"]))
        saved = self.vars
        self.vars = {a: ("int" if a.startswith("a") else "str") for a, _ in args}
        if self.chance(0.15) and saved:
            # A def sees the template's globals, but not the names its top level assigns (Mako:
            # NameError under strict_undefined): kjarni must refuse too.
            self.vars.update(saved)
        body = []
        if star[0]:
            body.append("${rest}${len(rest)}")
        if star[1]:
            body.append("${sorted(kw.items())}")
        self.in_def += 1
        self.block(body, "", self.r.randint(1, 3))
        self.in_def -= 1
        if self.chance(0.3):
            body.append("${" + self.pick(["'end'", "n", "context.get('n')", "capture(lambda: 5)"]) + "}")
        if self.chance(0.1):
            body.append(self.pick(["<% return %>", "<% return 5 %>", "<% return STOP_RENDERING %>"]) + "after")
        if self.chance(0.15):
            # A def nested in this one: a closure reading its arguments and names.
            inner = self.fresh("in")
            reads = "".join("${" + a + "}" for a, _ in args) or "${n}"
            body.append(f'<%def name="{inner}(q=1)">' + reads + "${q}</%def>${" + inner + "(" + self.expr("int") + ")}")
        if self.chance(0.1):
            body.append(self.pick(["<% context.write(str(n)) %>", "${context['n']}", "${sorted(context.keys())}", "${context.get('x1', 'none')}"]))
        lines.extend(body)
        lines.append("</%def>" + self.pick(["", "\\", "\n"]))
        self.vars = saved
        self.defs.append((name, args))
        self.star_defs[name] = star

    def call_block(self, lines, ind):
        # A def that calls its caller's body, then a <%call> of it.
        name = self.fresh("c")
        arg = self.fresh("k")
        lines.append(f'<%def name="{name}(m)">[${{caller.body({arg}=m * 2)}}|${{caller.body({arg}=-m)}}]</%def>\\')
        lines.append(f'<%call expr="{name}({self.r.randint(-3, 5)})" args="{arg}">')
        saved = dict(self.vars)
        self.vars[arg] = "int"
        if self.chance(0.1) and saved:
            # Read before the body assigns it: unbound in the body (Mako's UnboundLocalError).
            v = self.pick(sorted(saved))
            lines.append(f"${{{v}}}<% {v} = 1 %>")
        self.block(lines, ind, 1)
        lines.append(f"{{${{{arg}}}}}</%call>" + self.pick(["", "\\"]))
        self.vars = saved

    def template(self):
        lines = []
        if self.chance(0.25):
            self.has_math = True
            lines.append(self.pick(["<%! import math %>", "<%!\n    import math\n%>\\", "<%! import math\nK = 3 %>"]))
            if "K = 3" in lines[-1]:
                self.vars["K"] = "int"
        for _ in range(self.r.randint(0, 2)):
            self.def_block(lines)
        self.block(lines, "", self.r.randint(1, 7))
        if self.chance(0.05):
            lines.append(self.pick(["${len(pageargs)}", "<% context.write('w') %>", "${context['ctype']}"]))
        if self.chance(0.05):
            lines.insert(0, '<%inherit file="block_base.mako"/>' + self.pick(["", "\\"]))
            for b in self.r.sample(["title", "header", "content", "footer", "extra"], self.r.randint(0, 3)):
                lines.append(f'<%block name="{b}">{b} ${{n}}' + self.pick(["", " ${parent." + b + "()}"]) + "</%block>")
        elif self.chance(0.1):
            lines.insert(0, '<%inherit file="base.mako"/>')
            lines.append('<%def name="body_text()">BT ${n}</%def>')
        sep = "\r\n" if self.chance(0.03) else "\n"
        end = self.pick(["", sep])
        return sep.join(lines) + end


# ----------------------------------------------------------------------------------------------
# Rendering and comparing.


class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout()


def render_mako(source, lookup):
    from mako.template import Template

    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(5)
    try:
        text = Template(source, strict_undefined=True, lookup=lookup).render(**mako_globals())
        return "OK", text.encode("utf-8")
    except Timeout:
        return "TIMEOUT", b""
    except Exception as e:  # noqa: BLE001 -- any refusal of Mako's is a result
        return "ERR", f"{type(e).__name__}: {e}".encode("utf-8", "replace")
    finally:
        signal.alarm(0)


class Kjarni:
    def __init__(self, runner):
        self.runner = runner
        self.start()

    def start(self):
        self.p = subprocess.Popen([self.runner, str(corpus / "lib")], stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def render(self, source):
        data = source.encode("utf-8")
        try:
            self.p.stdin.write(b"%d\n" % len(data) + data)
            self.p.stdin.flush()
            head = self.p.stdout.readline()
            tag, size = head.split()
            body = self.p.stdout.read(int(size))
            return tag.decode(), body
        except (BrokenPipeError, ValueError):
            code = self.p.wait()
            self.start()
            return "CRASH", f"runner ended with {code}".encode()


def classify(mako, kj):
    (mt, mb), (kt, kb) = mako, kj
    if mt == "TIMEOUT":
        return "skip"
    if kt == "CRASH" or b"NOT-A-RENDER-ERROR" in kb:
        return "diff"
    if mt == "OK" and kt == "OK":
        return "same" if mb == kb else "diff"
    if mt == "ERR" and kt == "ERR":
        return "both-refuse"
    if mt == "ERR":
        return "diff"  # kjarni renders what Mako refuses
    text = kb.decode("utf-8", "replace")
    if any(r in text for r in DELIBERATE_REFUSALS):
        return "refused"
    return "diff"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runner", default="build-ci/tests/kjarni_mako_fuzz_runner")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--out", default="/tmp/mako-fuzz")
    ap.add_argument("--show", type=int, default=0)
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()
    if args.show:
        for i in range(args.show):
            print(f"----- {args.seed}-{i}")
            print(Gen(random.Random(f"{args.seed}-{i}")).template())
        return 0
    from mako.lookup import TemplateLookup

    lookup = TemplateLookup(directories=[str(corpus / "lib")], strict_undefined=True)
    kj = Kjarni(args.runner)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    counts = {}
    for i in range(args.count):
        source = Gen(random.Random(f"{args.seed}-{i}")).template()
        m = render_mako(source, lookup)
        k = kj.render(source)
        c = classify(m, k)
        counts[c] = counts.get(c, 0) + 1
        if c in ("diff", "refused"):
            stem = out / f"{c}-{args.seed}-{i}"
            (stem.with_suffix(".mako")).write_bytes(source.encode("utf-8"))
            (stem.with_suffix(".mako.txt")).write_bytes(m[0].encode() + b"\n" + m[1])
            (stem.with_suffix(".kjarni.txt")).write_bytes(k[0].encode() + b"\n" + k[1])
            if c == "diff" and not args.quiet:
                print(f"DIFF {stem}.mako: mako {m[0]} {m[1][:120]!r} | kjarni {k[0]} {k[1][:120]!r}")
    print(f"seed {args.seed}: {args.count} templates:", ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return 1 if counts.get("diff") else 0


if __name__ == "__main__":
    sys.exit(main())
