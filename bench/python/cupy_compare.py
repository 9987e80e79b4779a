"""kjarni from Python against CuPy on the same GPU, in one run, for the lead's GPU check (issue 39):

- the Python-side launch of an empty kernel with 0, 5 and 8 arguments: kjarni's prepared kernel
  (and bound once, PreparedKernel.bind) against CuPy's RawKernel (goal: at or below CuPy). Each call
  is written out as a user writes it (``k(queue, a, b, c, x, n)``, CuPy's ``f(grid, block, args)``);
- ``y = a*x + b`` on 2^28 float32 (default), ``a`` and ``b`` float32 scalars: kjarni's fused
  expression assigned into a preallocated ``y`` and evaluated into a new array (from the default
  memory pool, as CuPy's caching allocator serves CuPy's new arrays; from the driver; from a
  MemoryPool of the script's), against CuPy's ElementwiseKernel into ``y`` and CuPy's plain
  ``a*x + b`` (goal: at or above CuPy);
- ``x.sum()`` on the same ``x``: kjarni's method (its 0-d result from the default memory pool),
  and kjarni.sum from the driver and from a MemoryPool, against CuPy's.

Every variant of a group runs once per repetition, in turn (interleaved, so that clocks and
neighbours weigh on all alike); a repetition times a batch of calls between two synchronizations
(``--calls`` array operations, default 10: bench/batched_run.hpp's batch, which the C++ side uses);
the figure is the median over repetitions, and the ratio is kjarni's time over CuPy's (below 1:
kjarni is faster). Results are checked against numpy (sum: within float32 summation error).

``--cpp-json FILE`` takes the Google Benchmark JSON of kjarni_bench_python_counterpart (the same
calls from C++, same sizes and batch: bench/python_counterpart_bench.cpp) and prints each Python
figure over its C++ median (goal: at most 1.02).

    python bench/python/cupy_compare.py [--log2n 28] [--repeats 15] [--launches 20000] [--calls 10]
                                        [--cpp-json counterpart.json]

Without CuPy (or CUDA) it measures kjarni alone (``--api opencl`` for NVIDIA's OpenCL or PoCL) and says so.
"""

import argparse
import json
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


# Python variant -> the C++ benchmark (bench/python_counterpart_bench.cpp) making the same call.
# A result kept in `results` lives until the next call's replaces it (as `r = f(x)` in a user's loop):
# axpb_evaluate_kept does the same; the sums' 0-d results are too small for that to matter.
CPP_COUNTERPARTS = {
    "kjarni assign(y, a*x + b)": "axpb_assign",
    "kjarni evaluate(a*x + b)": "axpb_evaluate_kept",
    "kjarni evaluate(a*x + b), pool": "axpb_evaluate_kept",
    "kjarni x.sum()": "sum_pooled",
    "kjarni sum(x), driver": "sum",
    "kjarni sum(x), pool": "sum_pooled",
}


def against_cpp(path, api, medians):
    """Prints each Python median over the C++ median of the same call (its benchmark's median
    aggregate, or the median of its repetitions), for the benchmarks of `api`."""
    with open(path) as f:
        runs = json.load(f)["benchmarks"]
    cpp = {}
    for run in runs:
        name, _, tag = run["run_name"].partition("/")
        if not tag.startswith(api + "/") or run.get("aggregate_name", "median") != "median":
            continue
        seconds = run["real_time"] * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[run["time_unit"]]
        cpp.setdefault(name, []).append(seconds / run.get("batch", 1))  # an iteration is a batch of calls
    print(f"\nPython against C++ (kjarni_bench_python_counterpart, {api}; goal: at most 1.02)")
    for python_name, cpp_name in CPP_COUNTERPARTS.items():
        if python_name in medians and cpp_name in cpp:
            c = statistics.median(cpp[cpp_name])
            print(f"  {python_name:40s} {medians[python_name] * 1e3:9.3f} ms  C++ {c * 1e3:9.3f} ms"
                  f"  ratio {medians[python_name] / c:.3f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--api", default="cuda", choices=["cuda", "opencl"])
    parser.add_argument("--log2n", type=int, default=28)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--launches", type=int, default=20000, help="launches per batch")
    parser.add_argument("--calls", type=int, default=10, help="array operations per batch")
    parser.add_argument("--without-driver", action="store_true",
                        help="leave out the variants that allocate from the driver (a 1 GiB cuMemAlloc and cuMemFree "
                             "per call), to see whether they slow the variants timed after them")
    parser.add_argument("--cpp-json", help="kjarni_bench_python_counterpart's JSON output, for Python / C++ ratios")
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
    k0, k5, k8 = k[0], k[5], k[8]
    b0, b1, b2, b3 = bufs
    variants = {
        "kjarni, 0 args": (lambda: k0(queue), sync),
        "kjarni, 5 args": (lambda: k5(queue, b0, b1, b2, x32, n32), sync),
        "kjarni, 8 args": (lambda: k8(queue, b0, b1, b2, b3, x32, y32, n32, m32), sync),
        "kjarni, 5 args bound": (k5.bind(queue, *args5), sync),
        "kjarni, 8 args bound": (k8.bind(queue, *args8), sync),
    }
    if cupy is not None:
        stream = cupy.cuda.Stream(non_blocking=True)
        module = cupy.RawModule(code=CUPY_SOURCE)
        c = {n: module.get_function(f"empty{n}") for n in (0, 5, 8)}
        arrays = [cupy.empty(16, cupy.float32) for _ in range(4)]
        csync = stream.synchronize
        c0, c5, c8 = c[0], c[5], c[8]
        a0, a1, a2, a3 = arrays
        variants["CuPy RawKernel, 0 args"] = (lambda: c0((1,), (1,), (), stream=stream), csync)
        variants["CuPy RawKernel, 5 args"] = (lambda: c5((1,), (1,), (a0, a1, a2, x32, n32), stream=stream), csync)
        variants["CuPy RawKernel, 8 args"] = (
            lambda: c8((1,), (1,), (a0, a1, a2, a3, x32, y32, n32, m32), stream=stream), csync)
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

    def kjarni_evaluate():  # from the default memory pool (kjarni.default_memory_pool)
        results["kjarni new"] = kjarni.evaluate(queue, a * x + b)

    driver = kjarni.DeferredAllocator()

    def kjarni_evaluate_driver():
        results["kjarni new driver"] = kjarni.evaluate(queue, a * x + b, allocator=driver)

    pool = kjarni.MemoryPool()

    def kjarni_evaluate_pooled():
        results["kjarni new pooled"] = kjarni.evaluate(queue, a * x + b, allocator=pool)

    def kjarni_sum():
        results["kjarni sum"] = x.sum()

    def kjarni_sum_pooled():
        results["kjarni sum pooled"] = kjarni.sum(queue, x, allocator=pool)

    def kjarni_sum_driver():
        results["kjarni sum driver"] = kjarni.sum(queue, x, allocator=driver)

    variants = {"kjarni assign(y, a*x + b)": (kjarni_assign, sync),
                "kjarni evaluate(a*x + b)": (kjarni_evaluate, sync),
                "kjarni evaluate(a*x + b), driver": (kjarni_evaluate_driver, sync),
                "kjarni evaluate(a*x + b), pool": (kjarni_evaluate_pooled, sync)}
    sum_variants = {"kjarni x.sum()": (kjarni_sum, sync),
                    "kjarni sum(x), driver": (kjarni_sum_driver, sync),
                    "kjarni sum(x), pool": (kjarni_sum_pooled, sync)}
    if args.without_driver:
        del variants["kjarni evaluate(a*x + b), driver"], sum_variants["kjarni sum(x), driver"]
        results["kjarni new driver"] = kjarni.evaluate(queue, a * x + b, allocator=driver)
        results["kjarni sum driver"] = kjarni.sum(queue, x, allocator=driver)
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
            ("kjarni evaluate(a*x + b)", "CuPy a*x + b (new array)"),
            ("kjarni evaluate(a*x + b), driver", "CuPy a*x + b (new array)"),
            ("kjarni evaluate(a*x + b), pool", "CuPy a*x + b (new array)")])
    for name, seconds in medians.items():
        print(f"  {name:40s} {bytes_moved / seconds / 1e9:10.1f} GB/s")
    sum_medians = interleaved_medians(sum_variants, args.repeats, args.calls)
    report(f"x.sum(), n = 2^{args.log2n} float32 (median per call; GB/s = 4n bytes / time)", sum_medians, "ms", 1e3,
           [("kjarni x.sum()", "CuPy x.sum()"), ("kjarni sum(x), driver", "CuPy x.sum()"),
            ("kjarni sum(x), pool", "CuPy x.sum()")])
    for name, seconds in sum_medians.items():
        print(f"  {name:40s} {bytes_moved / 2 / seconds / 1e9:10.1f} GB/s")
    if args.cpp_json:
        against_cpp(args.cpp_json, args.api, {**medians, **sum_medians})

    # ---- the results agree ----
    expected = (a.astype(numpy.float64) * host + b).astype(numpy.float32)
    numpy.testing.assert_allclose(y.get(queue), expected, rtol=0,
                                  atol=float(numpy.finfo(numpy.float32).eps) * (abs(a) * 6 + abs(b)))
    exact = float(host.astype(numpy.float64).sum())
    # Pairwise/tree float32 summation errs by about eps * log2(n) * sum|x|.
    bound = float(numpy.finfo(numpy.float32).eps) * args.log2n * float(numpy.abs(host).astype(numpy.float64).sum())
    for name in ("kjarni sum", "kjarni sum pooled", "kjarni sum driver"):
        total = results[name]
        total = float(total.get(queue) if hasattr(total, "get") else total)
        assert abs(total - exact) <= bound, (name, total, exact, bound)
    for name in ("kjarni new", "kjarni new driver", "kjarni new pooled"):
        numpy.testing.assert_allclose(results[name].get(queue), expected, rtol=0,
                                      atol=float(numpy.finfo(numpy.float32).eps) * (abs(a) * 6 + abs(b)))
    if cupy is not None:
        numpy.testing.assert_allclose(cupy.asnumpy(cy), expected, rtol=0,
                                      atol=float(numpy.finfo(numpy.float32).eps) * (abs(a) * 6 + abs(b)))
        assert abs(float(results["CuPy sum"]) - exact) <= bound
    print("\nresults checked: y against numpy (float64 reference), sums within eps*log2(n)*sum|x|")


if __name__ == "__main__":
    main()
