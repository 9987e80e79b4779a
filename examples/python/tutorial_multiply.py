"""grunnur's introduction (reference 000, 3.1), first example, in kjarni: a kernel multiplying two
arrays, on the first device of any API. Prints True when the result equals numpy's.
In grunnur 0.6's words (API.any(), a sequence of devices for Program): the same script runs on
grunnur with only the imports changed (python/tests/test_grunnur_api.py runs both)."""

import numpy

from kjarni import API, Context, Queue, Program, Array

N = 256

context = Context.from_devices([API.any().platforms[0].devices[0]])
queue = Queue(context.device)

program = Program(
    [context.device],
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

multiply_them = program.kernel.multiply_them

a = numpy.random.randn(N).astype(numpy.float32)
b = numpy.random.randn(N).astype(numpy.float32)
a_dev = Array.from_host(queue, a)
b_dev = Array.from_host(queue, b)
dest_dev = Array.empty(context.device, a.shape, a.dtype)

multiply_them(queue, [N], None, dest_dev, a_dev, b_dev)
print((dest_dev.get(queue) - a * b == 0).all())
