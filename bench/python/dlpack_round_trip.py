"""DLPack round trip on the GPU: kjarni -> CuPy -> PyTorch -> kjarni over one allocation (the same
device pointer at every step, no copy), with a kernel on each side ordered by the stream protocol:
each producer's pending work must finish before its consumer's kernel reads the data. Kernels are
made long (many passes over the data) so that a missing order shows as a wrong result.

    python bench/python/dlpack_round_trip.py
Prints one line per check and "round trip OK" at the end; exits 1 on a failure.
"""

import sys

import numpy

import kjarni


def main():
    import cupy
    import torch

    api = kjarni.API.from_api_id(kjarni.cuda_api_id())
    context = kjarni.Context.from_devices([api.platforms[0].devices[0]])
    queue = kjarni.Queue(context.device)
    n = 1 << 24
    program = kjarni.Program(context.device, """
    KERNEL void slow_add(GLOBAL_MEM float *y, float value, int passes)
    {
        const SIZE_T i = get_global_id(0);
        float v = y[i];
        for (int p = 0; p < passes; ++p) v += value / (float)passes;
        y[i] = v;
    }
    """)
    slow_add = program.kernel.slow_add.prepare([n])
    host = numpy.random.default_rng().integers(0, 100, n).astype(numpy.float32)
    a = kjarni.Array.from_host(queue, host)
    pointer = a.base.native_handle + a.base.offset + a.offset
    failures = []

    def check(name, ok):
        print(f"{name}: {'ok' if ok else 'FAILED'}")
        if not ok:
            failures.append(name)

    # kjarni writes (slowly) on its queue; CuPy's stream must wait for it.
    slow_add(queue, a, numpy.float32(1), numpy.int32(4096))
    cupy_stream = cupy.cuda.Stream(non_blocking=True)
    with cupy_stream:
        c = cupy.from_dlpack(a)
        check("CuPy sees kjarni's pointer", c.data.ptr == pointer)
        c *= 2  # on CuPy's stream, after kjarni's kernel
        # PyTorch consumes on its own stream; CuPy must order its work before it.
        torch_stream = torch.cuda.Stream()
        with torch.cuda.stream(torch_stream):
            t = torch.from_dlpack(c)
            check("PyTorch sees the same pointer", t.data_ptr() == pointer)
            t.add_(3)  # on PyTorch's stream
            # Back to kjarni on a fresh queue: PyTorch's work must come before it.
            other = kjarni.Queue(context.device)
            b = kjarni.from_dlpack(t, other)
            check("kjarni sees the same pointer again", b.base.native_handle + b.base.offset + b.offset == pointer)
            slow_add(other, b, numpy.float32(-1), numpy.int32(4096))
            result = b.get(other)
    expected = ((host + 1) * 2 + 3) - 1
    # slow_add adds value/passes `passes` times: exact for these powers of two in float32 below 2^24.
    check("every kernel saw its predecessor's result", numpy.array_equal(result, expected))
    if failures:
        sys.exit(1)
    print("round trip OK")


if __name__ == "__main__":
    main()
