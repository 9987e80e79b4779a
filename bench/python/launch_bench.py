"""Python-side launch overhead: a prepared kjarni kernel with 0, 5 and 8 arguments (and with them
bound once: PreparedKernel.bind) against CuPy's RawKernel with the same arguments, on the same GPU
in one run. Each call is written out as a user writes it; each launch is enqueued without an event.
A repetition times a batch of launches between two synchronizations; every variant runs once per
repetition, in turn (interleaved); the figure is the median over repetitions of the time per launch.

    python bench/python/launch_bench.py [--launches 20000] [--repeats 15] [--api cuda|opencl]
(--api opencl measures kjarni alone, e.g. on NVIDIA's OpenCL or PoCL; CuPy needs CUDA.)

To see the host path alone (Python, the binding and kjarni's checks, without the driver's launch),
on OpenCL: build bench/python/noop_enqueue.c (its header says how) and run this with it preloaded.
"""

import argparse
import statistics
import time

import numpy

import kjarni

SOURCE = """
KERNEL void empty0() {}
KERNEL void empty5(GLOBAL_MEM float *a, GLOBAL_MEM float *b, GLOBAL_MEM float *c, float x, int n) {}
KERNEL void empty8(GLOBAL_MEM float *a, GLOBAL_MEM float *b, GLOBAL_MEM float *c, GLOBAL_MEM float *d,
                   float x, float y, int n, int m) {}
"""
CUPY_SOURCE = r"""
extern "C" __global__ void empty0() {}
extern "C" __global__ void empty5(float *a, float *b, float *c, float x, int n) {}
extern "C" __global__ void empty8(float *a, float *b, float *c, float *d, float x, float y, int n, int m) {}
"""


def batch_seconds(loop, synchronize):
    synchronize()
    start = time.perf_counter()
    loop()
    synchronize()
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--launches", type=int, default=20000, help="launches per batch")
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--api", default="cuda", choices=["cuda", "opencl"])
    args = parser.parse_args()
    count = args.launches

    api = kjarni.API.all_by_shortcut(args.api)[0]
    context = kjarni.Context.from_devices([api.platforms[0].devices[0]])
    queue = kjarni.Queue(context.device)
    program = kjarni.Program(context.device, SOURCE)
    k0, k5, k8 = (getattr(program.kernel, f"empty{n}").prepare([1], [1]) for n in (0, 5, 8))
    b0, b1, b2, b3 = (kjarni.Array.empty(context.device, (16,), numpy.float32) for _ in range(4))
    x, y, n, m = numpy.float32(1.5), numpy.float32(2.5), numpy.int32(16), numpy.int32(3)
    bound5 = k5.bind(queue, b0, b1, b2, x, n)
    bound8 = k8.bind(queue, b0, b1, b2, b3, x, y, n, m)

    # One loop per variant, each a function of its own (locals, as a user's loop has them).
    def kjarni0():
        for _ in range(count):
            k0(queue)

    def kjarni5():
        for _ in range(count):
            k5(queue, b0, b1, b2, x, n)

    def kjarni8():
        for _ in range(count):
            k8(queue, b0, b1, b2, b3, x, y, n, m)

    def kjarni5_bound():
        for _ in range(count):
            bound5()

    def kjarni8_bound():
        for _ in range(count):
            bound8()

    sync = queue.synchronize
    variants = {"kjarni, 0 args": (kjarni0, sync), "kjarni, 5 args": (kjarni5, sync),
                "kjarni, 8 args": (kjarni8, sync), "kjarni, 5 args bound": (kjarni5_bound, sync),
                "kjarni, 8 args bound": (kjarni8_bound, sync)}
    cupy = None
    if args.api == "cuda":
        try:
            import cupy
        except ImportError:
            pass
    if cupy is not None:
        module = cupy.RawModule(code=CUPY_SOURCE)
        c0, c5, c8 = (module.get_function(f"empty{n}") for n in (0, 5, 8))
        a0, a1, a2, a3 = (cupy.empty(16, cupy.float32) for _ in range(4))
        stream = cupy.cuda.Stream(non_blocking=True)

        def cupy0():
            for _ in range(count):
                c0((1,), (1,), (), stream=stream)

        def cupy5():
            for _ in range(count):
                c5((1,), (1,), (a0, a1, a2, x, n), stream=stream)

        def cupy8():
            for _ in range(count):
                c8((1,), (1,), (a0, a1, a2, a3, x, y, n, m), stream=stream)

        for name, loop in (("CuPy RawKernel, 0 args", cupy0), ("CuPy RawKernel, 5 args", cupy5),
                           ("CuPy RawKernel, 8 args", cupy8)):
            variants[name] = (loop, stream.synchronize)

    for loop, synchronize in variants.values():  # warm-up: compile, fill caches
        batch_seconds(loop, synchronize)
    samples = {name: [] for name in variants}
    for _ in range(args.repeats):
        for name, (loop, synchronize) in variants.items():
            samples[name].append(batch_seconds(loop, synchronize) / count)
    medians = {name: statistics.median(s) * 1e6 for name, s in samples.items()}

    print(f"device: {context.device.name} ({args.api}); median of {args.repeats} interleaved batches of {count}")
    for name, us in medians.items():
        print(f"{name:28s} {us:7.3f} us per launch")
    for arity in (0, 5, 8):
        mine, peer = medians[f"kjarni, {arity} args"], medians.get(f"CuPy RawKernel, {arity} args")
        if peer is not None:
            print(f"ratio kjarni / CuPy, {arity} args: {mine / peer:.3f}" +
                  (f" (bound: {medians[f'kjarni, {arity} args bound'] / peer:.3f})" if arity else ""))
    if cupy is None:
        print("CuPy not used (OpenCL, or not installed): no peer numbers")


if __name__ == "__main__":
    main()
