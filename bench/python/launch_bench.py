"""Python-side launch overhead: a prepared kjarni kernel with 0 and 5 arguments (and with the 5
bound once: PreparedKernel.bind) against CuPy's RawKernel with the same arguments, on the same GPU
in one run (CuPy measured 5.65 and 9.40 us per launch on the H100). Each launch is enqueued without
an event; the time per launch is the wall time of a batch (queue synchronized at both ends) divided
by its size; the best of several batches.

    python bench/python/launch_bench.py [--launches 20000] [--repeats 7] [--api cuda|opencl]
(--api opencl measures kjarni alone, e.g. on NVIDIA's OpenCL or PoCL; CuPy needs CUDA.)
"""

import argparse
import time

import numpy

import kjarni

SOURCE = """
KERNEL void empty0() {}
KERNEL void empty5(GLOBAL_MEM float *a, GLOBAL_MEM float *b, GLOBAL_MEM float *c, float x, int n) {}
"""
CUPY_SOURCE = r"""
extern "C" __global__ void empty0() {}
extern "C" __global__ void empty5(float *a, float *b, float *c, float x, int n) {}
"""


def best_per_launch(launch, synchronize, launches, repeats):
    launch()
    synchronize()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(launches):
            launch()
        synchronize()
        best = min(best, (time.perf_counter() - start) / launches)
    return best * 1e6


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--launches", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--api", default="cuda", choices=["cuda", "opencl"])
    args = parser.parse_args()

    api = kjarni.API.all_by_shortcut(args.api)[0]
    context = kjarni.Context.from_devices([api.platforms[0].devices[0]])
    queue = kjarni.Queue(context.device)
    program = kjarni.Program(context.device, SOURCE)
    k0 = program.kernel.empty0.prepare([1], [1])
    k5 = program.kernel.empty5.prepare([1], [1])
    bufs = [kjarni.Array.empty(context.device, (16,), numpy.float32) for _ in range(3)]
    x, n = numpy.float32(1.5), numpy.int32(16)

    results = {}
    results["kjarni, 0 args"] = best_per_launch(lambda: k0(queue), queue.synchronize, args.launches, args.repeats)
    results["kjarni, 5 args"] = best_per_launch(lambda: k5(queue, bufs[0], bufs[1], bufs[2], x, n),
                                                queue.synchronize, args.launches, args.repeats)
    bound = k5.bind(queue, bufs[0], bufs[1], bufs[2], x, n)
    results["kjarni, 5 args bound"] = best_per_launch(bound, queue.synchronize, args.launches, args.repeats)
    cupy = None
    if args.api == "cuda":
        try:
            import cupy
        except ImportError:
            pass
    if cupy is not None:
        module = cupy.RawModule(code=CUPY_SOURCE)
        c0, c5 = module.get_function("empty0"), module.get_function("empty5")
        arrays = [cupy.empty(16, cupy.float32) for _ in range(3)]
        stream = cupy.cuda.Stream(non_blocking=True)
        with stream:
            results["CuPy RawKernel, 0 args"] = best_per_launch(lambda: c0((1,), (1,), ()), stream.synchronize,
                                                                args.launches, args.repeats)
            results["CuPy RawKernel, 5 args"] = best_per_launch(
                lambda: c5((1,), (1,), (arrays[0], arrays[1], arrays[2], x, n)), stream.synchronize,
                args.launches, args.repeats)
    print(f"device: {context.device.name}")
    for name, us in results.items():
        print(f"{name:28s} {us:7.2f} us per launch")
    if cupy is None:
        print("CuPy not installed: no peer numbers")


if __name__ == "__main__":
    main()
