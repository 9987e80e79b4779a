"""grunnur's introduction (reference 000, 3.1), second example, in kjarni: the same kernel made a
template over the element type, multiplying complex arrays with the function module `mul`.
In grunnur 0.6's words (API.any(), a sequence of devices for Program): the same script runs on
grunnur with only the imports changed (python/tests/test_grunnur_api.py runs both)."""

import numpy
from numpy.linalg import norm

import kjarni.dtypes as dtypes
import kjarni.functions as functions
from kjarni import API, Context, Queue, Program, Array

context = Context.from_devices([API.any().platforms[0].devices[0]])
queue = Queue(context.device)

N = 256
dtype = numpy.complex64

program = Program(
    [context.device],
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
    render_globals=dict(
        ctype=dtypes.ctype(dtype),
        mul=functions.mul(dtype, dtype)))

multiply_them = program.kernel.multiply_them

r1 = numpy.random.randn(N).astype(numpy.float32)
r2 = numpy.random.randn(N).astype(numpy.float32)
a = r1 + 1j * r2
b = r1 - 1j * r2
a = a.astype(dtype)
b = b.astype(dtype)
a_dev = Array.from_host(queue, a)
b_dev = Array.from_host(queue, b)
dest_dev = Array.empty(context.device, a.shape, a.dtype)

multiply_them(queue, [N], None, dest_dev, a_dev, b_dev)
print(norm(dest_dev.get(queue) - a * b) / norm(a * b) <= 1e-6)
