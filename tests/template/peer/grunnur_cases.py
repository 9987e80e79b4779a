"""What grunnur itself renders for its tutorial (reference 000, 3.1 and 3.2) and for the module
rules of issue 12. Writes one file per case into the folder given (tests/template/grunnur/), which
grunnur_test.cpp compares with what kjarni renders for the same templates and globals.

grunnur's Program renders its source with grunnur's render_with_modules() (adding the global
`device_params`, which these templates do not use) before compiling it, so calling that function
gives the source grunnur compiles, without a device."""

import sys
from pathlib import Path

import numpy
import grunnur.dtypes as dtypes
import grunnur.functions as functions
from grunnur import DefTemplate, Module, Snippet
from grunnur._modules import render_with_modules

out_dir = Path(sys.argv[1])
cases = {}

# 3.1: a plain string is rendered as a template too.
cases["intro_plain"] = render_with_modules(
    """
    KERNEL void multiply_them(
        GLOBAL_MEM float *dest,
        GLOBAL_MEM float *a,
        GLOBAL_MEM float *b)
    {
        const SIZE_T i = get_global_id(0);
        dest[i] = a[i] * b[i];
    }
    """)

# 3.1: complex multiplication through a function module (kjarni has its own functions module, so
# the test compares the main code and the use of the prefix; the module's own code is kjarni's).
dtype = numpy.complex64
cases["intro_complex"] = render_with_modules(
    """
    KERNEL void multiply_them(
        GLOBAL_MEM ${ctype} *dest,
        GLOBAL_MEM ${ctype} *a,
        GLOBAL_MEM ${ctype} *b)
    {
        const SIZE_T i = get_global_id(0);
        dest[i] = ${mul}(a[i], b[i]);
    }
    """,
    render_globals=dict(ctype=dtypes.ctype(dtype), mul=functions.mul(dtype, dtype)))

# 3.2.1
add = Snippet.from_callable(
    lambda varname: """
    ${varname} + ${num}
    """,
    render_globals=dict(num=1))
cases["snippet"] = render_with_modules(
    """
    KERNEL void test(GLOBAL_MEM int *arr)
    {
        const SIZE_T idx = get_global_id(0);
        int x = arr[idx];
        arr[idx] = ${add('x')};
    }
    """,
    render_globals=dict(add=add))

# 3.2.2
add = Module.from_callable(
    lambda prefix, arg: """
    FUNCTION int ${prefix}(int x)
    {
        return x + ${num} + ${arg};
    }
    """,
    name="foobar",
    render_globals=dict(num=1))
cases["module"] = render_with_modules(
    """
    KERNEL void test(GLOBAL_MEM int *arr)
    {
        const SIZE_T idx = get_global_id(0);
        int x = arr[idx];
        arr[idx] = ${add(2)}(x);
    }
    """,
    render_globals=dict(add=add))

# 3.2.3
argnames = ['varname']
add = Snippet(
    DefTemplate.from_string("_func", argnames, "${varname} + ${num}"),
    render_globals=dict(num=1))
cases["other_snippet"] = render_with_modules("y = ${add('x')};", render_globals=dict(add=add))
add = Module.from_string("""
    FUNCTION int ${prefix}(int x)
    {
        return x + ${num};
    }
    """,
    render_globals=dict(num=1))
cases["other_module"] = render_with_modules("y = ${add}(x);", render_globals=dict(add=add))

# 3.2.5: the tree of the nontrivial example (the C code is made up; the structure is the reference's).
base_rng = Module.from_string("uint ${prefix}(State* s);\n", name="base_rng")
uniform = Snippet.from_callable(lambda s: "(${rng}(${s}) * ${scale})", name="uniform",
                                render_globals=dict(rng=base_rng, scale=0.5))
normal = Module.from_callable(
    lambda prefix: "float ${prefix}(State* s) { return ${uniform('s')} + ${uniform('s')}; }\n",
    name="normal", render_globals=dict(uniform=uniform))
gamma = Module.from_callable(
    lambda prefix: "float ${prefix}(State* s) { return ${normal}(s) * ${uniform('s')}; }\n",
    name="gamma", render_globals=dict(uniform=uniform, normal=normal))
main = Snippet.from_callable(lambda: "KERNEL void k() { ${base_rng}(&st); ${gamma}(&st); }",
                             name="PureParallel", render_globals=dict(base_rng=base_rng, gamma=gamma))
cases["nontrivial"] = render_with_modules(main)

# Issue 12: a module used with the same arguments in several places is rendered once, with its
# prefix reused; other arguments give another rendering.
point = Module.from_string("typedef struct { float x, y; } ${prefix};\n", name="point")
norm2 = Module.from_callable(
    lambda prefix, t: "FUNCTION ${t} ${prefix}(${point} p) { return p.x * p.x + p.y * p.y; }\n",
    name="norm2", render_globals=dict(point=point))
cases["module_reuse"] = render_with_modules(
    """
    KERNEL void k(GLOBAL_MEM ${point} *p, GLOBAL_MEM float *out, GLOBAL_MEM double *out2)
    {
        const SIZE_T i = get_global_id(0);
        out[i] = ${norm2('float')}(p[i]) + ${norm2('float')}(p[i]);
        out2[i] = ${norm2('double')}(p[i]);
    }
    """,
    render_globals=dict(point=point, norm2=norm2))

# Issue 12: a render global clashing with a snippet's own globals is an error.
try:
    render_with_modules(Snippet.from_string([], "${a}", render_globals=dict(a=1)), render_globals=dict(a=2))
    cases["snippet_clash"] = "no error\n"
except ValueError as e:
    cases["snippet_clash"] = f"ValueError: {e}\n"

# The rules of module and snippet rendering, case by case (modules_test.cpp renders the same).
s = Snippet.from_string([], "<${n}>", name="s", render_globals=dict(n=5))
cases["rule_snippet_without_parens"] = render_with_modules("${s} ${s()}", render_globals=dict(s=s))
root = Snippet.from_callable(lambda a: "${a}${b}${c}", name="root", render_globals=dict(b=2, c=3))
cases["rule_snippet_as_root"] = render_with_modules(root, render_args=[1], render_globals=dict(d=4))
m = Module.from_string("struct ${prefix} { int x; };\n", name="point")
user1 = Module.from_string("void ${prefix}(${p} a);\n", name="user1", render_globals=dict(p=m))
user2 = Module.from_string("void ${prefix}(${p} b);\n", name="user2", render_globals=dict(p=m))
cases["rule_module_without_args_once"] = render_with_modules(
    "${m} ${user1} ${user2} ${m}", render_globals=dict(m=m, user1=user1, user2=user2))
c = Module.from_callable(lambda prefix, v: "#define ${prefix} ${v}\n", name="c")
cases["rule_module_once_per_arguments"] = render_with_modules(
    "${c(1)} ${c(1)} ${c(2)} ${c(1.0)} ${c(True)} ${c('1')}", render_globals=dict(c=c))
leaf = Module.from_string("leaf ${prefix}\n", name="leaf")
mid = Module.from_string("mid ${prefix} uses ${leaf}\n", name="mid", render_globals=dict(leaf=leaf))
top = Module.from_string("top ${prefix} uses ${mid}\n", name="top", render_globals=dict(mid=mid))
cases["rule_dependencies_depth_first"] = render_with_modules("main uses ${top}", render_globals=dict(top=top))
m = Module.from_string("", name="m")
cases["rule_prefix_str"] = render_with_modules("${str(m) + 'abc'} ${m}abc", render_globals=dict(m=m))
m = Module.from_string("M ${prefix}\n", name="m")
cases["rule_inside_lists_and_dicts"] = render_with_modules(
    "${l[1]} ${d['k']} ${l[0]}", render_globals=dict(l=[1, m], d=dict(k=m)))


class MyClass:
    def __init__(self, coeff, mul_module, div_module):
        self.coeff = coeff
        self.mul = mul_module
        self.div = div_module

    def __str__(self):
        return "<MyClass>"


mul = Module.from_string("mul ${prefix}\n", name="mul")
div = Module.from_string("div ${prefix}\n", name="div")
cases["rule_inside_user_objects"] = render_with_modules(
    "${obj.mul}(${obj.coeff}, ${obj.div}(x)) ${obj}", render_globals=dict(obj=MyClass(3, mul, div)))
d = DefTemplate.from_string("k", ["n"], "${n} ${m}")
m = Module.from_string("M\n", name="m")
cases["rule_def_template_source"] = render_with_modules(d, render_args=[7], render_globals=dict(m=m))

out_dir.mkdir(parents=True, exist_ok=True)
for name, text in cases.items():
    (out_dir / f"{name}.txt").write_text(text)
