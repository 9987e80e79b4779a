"""The host time of cupy_compare.py's array calls from Python, per call, on an OpenCL device with
the kernels' enqueue made a no-op (bench/python/noop_enqueue.c), so that only Python, the binding
and kjarni's own work are timed:

    gcc -O2 -shared -fPIC -o /tmp/noop_enqueue.so bench/python/noop_enqueue.c -ldl
    LD_PRELOAD=/tmp/noop_enqueue.so python bench/python/host_path.py [--repeats 31] [--calls 200] [name...]

The variants run in turn within each repetition (interleaved); a repetition times a batch of
`--calls` calls between two synchronizations by the thread's CPU time (on a machine shared with
other work, wall time varies several times over; the CPU time does not), and the figure is the
median over repetitions. Results are kept until the next call replaces them, as `r = f(x)` in a
user's loop keeps them. Nothing runs on the device: the values are not checked."""

import argparse
import statistics
import time

import numpy

import kjarni


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=31)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--log2n", type=int, default=16)
    parser.add_argument("names", nargs="*", help="variants to run (all when none)")
    args = parser.parse_args()

    api = kjarni.API.all_by_shortcut("opencl")[0]
    context = kjarni.Context.from_devices([api.platforms[0].devices[0]])
    queue = kjarni.Queue(context.device)
    n = 1 << args.log2n
    x = kjarni.Array.from_host(queue, numpy.random.default_rng(0).standard_normal(n, dtype=numpy.float32))
    y = kjarni.Array.empty(context.device, n, numpy.float32)
    a, b = numpy.float32(1.5), numpy.float32(-0.25)
    pool = kjarni.MemoryPool()
    driver = kjarni.DeferredAllocator()
    kept = {}

    def keep(name, f):
        def call():
            kept[name] = f()
        return call

    variants = {
        "a*x + b (the Expr)": keep("expr", lambda: a * x + b),
        "assign(y, a*x + b)": lambda: kjarni.assign(queue, y, a * x + b),
        "evaluate(a*x + b)": keep("e", lambda: kjarni.evaluate(queue, a * x + b)),
        "evaluate(a*x + b), pool": keep("ep", lambda: kjarni.evaluate(queue, a * x + b, allocator=pool)),
        "evaluate(a*x + b), driver": keep("ed", lambda: kjarni.evaluate(queue, a * x + b, allocator=driver)),
        "x.sum()": keep("s", x.sum),
        "sum(x), pool": keep("sp", lambda: kjarni.sum(queue, x, allocator=pool)),
        "sum(x), driver": keep("sd", lambda: kjarni.sum(queue, x, allocator=driver)),
    }
    if args.names:
        variants = {k: v for k, v in variants.items() if k in args.names}

    def batch(call):
        queue.synchronize()
        start = time.thread_time()
        for _ in range(args.calls):
            call()
        queue.synchronize()
        return (time.thread_time() - start) / args.calls

    for call in variants.values():  # compile, allocate, learn the scalar types
        batch(call)
    samples = {name: [] for name in variants}
    for _ in range(args.repeats):
        for name, call in variants.items():
            samples[name].append(batch(call))
    print(f"{context.device.name}, n = 2^{args.log2n} float32: host CPU time per call, median of {args.repeats}")
    for name, s in samples.items():
        print(f"  {name:28s} {statistics.median(s) * 1e6:7.2f} us")


if __name__ == "__main__":
    main()
