"""grunnur's tutorial on modules and snippets (reference 000, 3.2) in kjarni: a snippet rendered in
place, a module rendered once at the top with a prefix, the constructors from strings and defs, and
the source they produce. Prints True when every kernel computed what the tutorial says.
In grunnur 0.6's words (API.any(), a sequence of devices for Program): the same script runs on
grunnur with only the imports changed (python/tests/test_grunnur_api.py runs both)."""

import numpy

from kjarni import API, Context, Queue, Program, Array, Snippet, Module, DefTemplate
from kjarni import render_with_modules  # grunnur 0.6: grunnur._modules

context = Context.from_devices([API.any().platforms[0].devices[0]])
queue = Queue(context.device)
data = numpy.arange(16, dtype=numpy.int32)
ok = True

# 3.2.1 Snippets
add = Snippet.from_callable(
    lambda varname: """
    ${varname} + ${num}
    """,
    render_globals=dict(num=1))

kernel_source = """
    KERNEL void test(GLOBAL_MEM int *arr)
    {
        const SIZE_T idx = get_global_id(0);
        int x = arr[idx];
        arr[idx] = ${add('x')};
    }
    """
program = Program(context.devices, kernel_source, render_globals=dict(add=add))
arr = Array.from_host(queue, data)
program.kernel.test(queue, [16], None, arr)
ok &= bool((arr.get(queue) == data + 1).all())

# 3.2.2 Modules
add_module = Module.from_callable(
    lambda prefix, arg: """
    FUNCTION int ${prefix}(int x)
    {
        return x + ${num} + ${arg};
    }
    """,
    name="foobar",
    render_globals=dict(num=1))

module_source = """
    KERNEL void test(GLOBAL_MEM int *arr)
    {
        const SIZE_T idx = get_global_id(0);
        int x = arr[idx];
        arr[idx] = ${add(2)}(x);
    }
    """
print(render_with_modules(module_source, render_globals=dict(add=add_module)))
program = Program(context.devices, module_source, render_globals=dict(add=add_module))
arr = Array.from_host(queue, data)
program.kernel.test(queue, [16], None, arr)
ok &= bool((arr.get(queue) == data + 3).all())

# 3.2.3 Other constructors
argnames = ["varname"]
add = Snippet(DefTemplate.from_string("_func", argnames, "${varname} + ${num}"), render_globals=dict(num=1))
add_string = Module.from_string("""
    FUNCTION int ${prefix}(int x)
    {
        return x + ${num};
    }
    """, render_globals=dict(num=1))
program = Program(context.devices, """
    KERNEL void test(GLOBAL_MEM int *arr)
    {
        const SIZE_T idx = get_global_id(0);
        int x = arr[idx];
        arr[idx] = ${add_string}(${add('x')});
    }
    """, render_globals=dict(add=add, add_string=add_string))
arr = Array.from_host(queue, data)
program.kernel.test(queue, [16], None, arr)
ok &= bool((arr.get(queue) == data + 2).all())


# 3.2.4 Module and snippet discovery: an object holding modules, processed without being modified.
class MyClass:
    def __init__(self, coeff, mul_module):
        self.coeff = coeff
        self.mul = mul_module

    def __process_modules__(self, process):
        return MyClass(self.coeff, process(self.mul))


scale = Module.from_string("FUNCTION int ${prefix}(int x, int c) { return x * c; }", name="scale")
holder = MyClass(5, scale)
program = Program(context.devices, """
    KERNEL void test(GLOBAL_MEM int *arr)
    {
        const SIZE_T idx = get_global_id(0);
        arr[idx] = ${obj.mul}(arr[idx], ${obj.coeff});
    }
    """, render_globals=dict(obj=holder))
arr = Array.from_host(queue, data)
program.kernel.test(queue, [16], None, arr)
ok &= bool((arr.get(queue) == data * 5).all())

print(ok)
