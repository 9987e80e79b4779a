"""kjarni from Python against CuPy on the same GPU, in one run, for the lead's GPU check (issue 39):

- the Python-side launch of an empty kernel with 0, 5 and 8 arguments: kjarni's prepared kernel
  (and bound once, PreparedKernel.bind) against CuPy's RawKernel (goal: at or below CuPy);
- ``y = a*x + b`` on 2^28 float32 (default): kjarni's fused expression assigned into a preallocated
  ``y`` and evaluated into a new array, against CuPy's ElementwiseKernel into ``y`` and CuPy's plain
  ``a*x + b`` (goal: at or above CuPy);
- ``x.sum()`` on the same ``x``: kjarni's method against CuPy's.

Every variant of a group runs once per repetition, in turn (interleaved, so that clocks and
neighbours weigh on all alike); a repetition times a batch of calls between two synchronizations;
the figure is the median over repetitions, and the ratio is kjarni's time over CuPy's (below 1:
kjarni is faster). Results are checked against CuPy's (sum: within float32 summation error).

    python bench/python/cupy_compare.py [--log2n 28] [--repeats 15] [--launches 20000] [--calls 20]

Without CuPy (or CUDA) it measures kjarni alone (``--api opencl`` for NVIDIA's OpenCL or PoCL) and says so.
"""

import argparse
import statistics
import time

import numpy

import kjarni

KJARNI_SOURCE = """
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


def batch_seconds(call, synchronize, count):
    synchronize()
    start = time.perf_counter()
    for _ in range(count):
        call()
    synchronize()
    return (time.perf_counter() - start) / count


def interleaved_medians(variants, repeats, count):
    """name -> median seconds per call over `repeats` rounds, each round running every variant once."""
    for call, synchronize in variants.values():  # warm-up: compile, allocate, fill caches
        batch_seconds(call, synchronize, 2)
    samples = {name: [] for name in variants}
    for _ in range(repeats):
        for name, (call, synchronize) in variants.items():
            samples[name].append(batch_seconds(call, synchronize, count))
    return {name: statistics.median(s) for name, s in samples.items()}


def report(title, medians, unit, scale, pairs):
    print(f"\n{title}")
    for name, seconds in medians.items():
        print(f"  {name:40s} {seconds * scale:10.3f} {unit}")
    for mine, peer in pairs:
        if mine in medians and peer in medians:
            print(f"  ratio {mine} / {peer}: {medians[mine] / medians[peer]:.3f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--api", default="cuda", choices=["cuda", "opencl"])
    parser.add_argument("--log2n", type=int, default=28)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--launches", type=int, default=20000, help="launches per batch")
    parser.add_argument("--calls", type=int, default=20, help="array operations per batch")
    args = parser.parse_args()

    api = kjarni.API.all_by_shortcut(args.api)[0]
    context = kjarni.Context.from_devices([api.platforms[0].devices[0]])
    queue = kjarni.Queue(context.device)
    print(f"device: {context.device.name} ({args.api}); kjarni {kjarni.__version__}")
    cupy = None
    if args.api == "cuda":
        try:
            import cupy
            print(f"CuPy {cupy.__version__}")
        except ImportError:
            print("CuPy not installed: kjarni alone, no ratios")

    # ---- launches ----
    program = kjarni.Program(context.device, KJARNI_SOURCE)
    k = {n: getattr(program.kernel, f"empty{n}").prepare([1], [1]) for n in (0, 5, 8)}
    bufs = [kjarni.Array.empty(context.device, (16,), numpy.float32) for _ in range(4)]
    x32, y32, n32, m32 = numpy.float32(1.5), numpy.float32(2.5), numpy.int32(16), numpy.int32(3)
    args5 = (bufs[0], bufs[1], bufs[2], x32, n32)
    args8 = (bufs[0], bufs[1], bufs[2], bufs[3], x32, y32, n32, m32)
    sync = queue.synchronize
    variants = {
        "kjarni, 0 args": (lambda: k[0](queue), sync),
        "kjarni, 5 args": (lambda: k[5](queue, *args5), sync),
        "kjarni, 8 args": (lambda: k[8](queue, *args8), sync),
        "kjarni, 5 args bound": (k[5].bind(queue, *args5), sync),
        "kjarni, 8 args bound": (k[8].bind(queue, *args8), sync),
    }
    if cupy is not None:
        stream = cupy.cuda.Stream(non_blocking=True)
        module = cupy.RawModule(code=CUPY_SOURCE)
        c = {n: module.get_function(f"empty{n}") for n in (0, 5, 8)}
        arrays = [cupy.empty(16, cupy.float32) for _ in range(4)]
        cargs5 = (arrays[0], arrays[1], arrays[2], x32, n32)
        cargs8 = (arrays[0], arrays[1], arrays[2], arrays[3], x32, y32, n32, m32)
        csync = stream.synchronize
        variants["CuPy RawKernel, 0 args"] = (lambda: c[0]((1,), (1,), (), stream=stream), csync)
        variants["CuPy RawKernel, 5 args"] = (lambda: c[5]((1,), (1,), cargs5, stream=stream), csync)
        variants["CuPy RawKernel, 8 args"] = (lambda: c[8]((1,), (1,), cargs8, stream=stream), csync)
    medians = interleaved_medians(variants, args.repeats, args.launches)
    report("Python-side launch (median per launch)", medians, "us", 1e6,
           [(f"kjarni, {n} args", f"CuPy RawKernel, {n} args") for n in (0, 5, 8)] +
           [(f"kjarni, {n} args bound", f"CuPy RawKernel, {n} args") for n in (5, 8)])

    # ---- y = a*x + b and x.sum() on 2^log2n float32 ----
    n = 1 << args.log2n
    rng = numpy.random.default_rng()
    host = rng.standard_normal(n, dtype=numpy.float32)
    a, b = numpy.float32(rng.standard_normal()), numpy.float32(rng.standard_normal())
    x = kjarni.Array.from_host(queue, host)
    y = kjarni.Array.empty(context.device, n, numpy.float32)
    results = {}

    def kjarni_assign():
        kjarni.assign(queue, y, a * x + b)

    def kjarni_evaluate():
        results["kjarni new"] = kjarni.evaluate(queue, a * x + b)

    def kjarni_sum():
        results["kjarni sum"] = x.sum()

    variants = {"kjarni assign(y, a*x + b)": (kjarni_assign, sync),
                "kjarni evaluate(a*x + b)": (kjarni_evaluate, sync)}
    sum_variants = {"kjarni x.sum()": (kjarni_sum, sync)}
    if cupy is not None:
        with stream:
            cx = cupy.asarray(host)
            cy = cupy.empty_like(cx)
        axpb = cupy.ElementwiseKernel("float32 x, float32 a, float32 b", "float32 y", "y = a * x + b", "kjarni_axpb")

        def cupy_kernel():
            with stream:
                axpb(cx, a, b, cy)

        def cupy_plain():
            with stream:
                results["CuPy new"] = a * cx + b

        def cupy_sum():
            with stream:
                results["CuPy sum"] = cx.sum()

        variants["CuPy ElementwiseKernel into y"] = (cupy_kernel, csync)
        variants["CuPy a*x + b (new array)"] = (cupy_plain, csync)
        sum_variants["CuPy x.sum()"] = (cupy_sum, csync)
    medians = interleaved_medians(variants, args.repeats, args.calls)
    bytes_moved = 2 * 4 * n
    report(f"y = a*x + b, n = 2^{args.log2n} float32 (median per call; GB/s = 8n bytes / time)", medians, "ms", 1e3,
           [("kjarni assign(y, a*x + b)", "CuPy ElementwiseKernel into y"),
            ("kjarni evaluate(a*x + b)", "CuPy a*x + b (new array)")])
    for name, seconds in medians.items():
        print(f"  {name:40s} {bytes_moved / seconds / 1e9:10.1f} GB/s")
    medians = interleaved_medians(sum_variants, args.repeats, args.calls)
    report(f"x.sum(), n = 2^{args.log2n} float32 (median per call)", medians, "ms", 1e3,
           [("kjarni x.sum()", "CuPy x.sum()")])

    # ---- the results agree ----
    expected = (a.astype(numpy.float64) * host + b).astype(numpy.float32)
    numpy.testing.assert_allclose(y.get(queue), expected, rtol=0,
                                  atol=float(numpy.finfo(numpy.float32).eps) * (abs(a) * 6 + abs(b)))
    total = results["kjarni sum"]
    total = float(total.get(queue) if hasattr(total, "get") else total)
    exact = float(host.astype(numpy.float64).sum())
    # Pairwise/tree float32 summation errs by about eps * log2(n) * sum|x|.
    bound = float(numpy.finfo(numpy.float32).eps) * args.log2n * float(numpy.abs(host).astype(numpy.float64).sum())
    assert abs(total - exact) <= bound, (total, exact, bound)
    if cupy is not None:
        numpy.testing.assert_allclose(cupy.asnumpy(cy), expected, rtol=0,
                                      atol=float(numpy.finfo(numpy.float32).eps) * (abs(a) * 6 + abs(b)))
        assert abs(float(results["CuPy sum"]) - exact) <= bound
    print("\nresults checked: y against numpy (float64 reference), sums within eps*log2(n)*sum|x|")


if __name__ == "__main__":
    main()
