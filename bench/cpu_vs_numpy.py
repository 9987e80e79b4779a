"""kjarni on a CPU OpenCL device beside numpy on the same cores, in one run (issue 41 item 1).

Starts kjarni_bench_cpu_vs_numpy (bench/cpu_vs_numpy.cpp) and, for every repetition, times each case
once through kjarni and once through numpy, alternating which goes first, so that both see the same
machine load; prints the medians, their ratio (numpy's time / kjarni's: above 1 is kjarni faster)
and the load average before and after. Every time is one synchronous call, wall clock.

    python3 bench/cpu_vs_numpy.py [--build build-ci] [--device opencl] [--repetitions 9] [--mib 64 4]
                                  [--baseline-build DIR]

--baseline-build adds another build's kjarni_bench_cpu_vs_numpy (an earlier commit's: before and after
a change) as a third column, timed in the same rotation. --raw adds rows copy_raw, scale_raw, add_raw,
axpb_raw (the same operations as hand-written OpenCL kernels of kjarni's CPU form on kjarni's queue and
buffers, then clFinish: the floor a plain OpenCL program reaches) and the same with _rawpoll (waited
for by polling the kernel's event instead); their numpy column is the operation's.

numpy's operations are its best for the same result: out= arrays (no allocation), `a*x+b` as two
ufuncs (np.multiply then np.add in place, what numpy can do without a fused kernel), sum with a
float64 accumulator (dtype=float64) and with its own float32 pairwise one (x.sum()), cumsum with out=.
"""
import argparse
import os
import statistics
import subprocess
import time

import numpy as np

parser = argparse.ArgumentParser()
parser.add_argument("--build", default="build-ci")
parser.add_argument("--device", default="opencl")
parser.add_argument("--repetitions", type=int, default=9)
parser.add_argument("--mib", type=int, nargs="+", default=[64, 4], help="MiB of float32 per array")
parser.add_argument("--cases", nargs="+", default=None)
parser.add_argument("--baseline-build", default=None)
parser.add_argument("--raw", action="store_true", help="add the raw OpenCL rows (<case>_raw, <case>_rawpoll)")
args = parser.parse_args()

CASES = ["copy", "scale", "add", "axpb", "axpb_kernel", "sum64", "sum32", "cumsum", "copy_step2", "copy_T"]
RAW_CASES = ["copy", "scale", "add", "axpb"]
NUMPY_NAME = {"axpb_kernel": "axpb"}  # numpy's side of the ElementwiseKernel row is the same a*x+b
NUMPY_NAME.update({f"{case}_{form}": case for case in RAW_CASES for form in ("raw", "rawpoll")})


def numpy_cases(n):
    rng = np.random.default_rng(n)
    a, b, x = (rng.standard_normal(n, dtype=np.float32) for _ in range(3))
    y = np.empty(n, np.float32)

    def axpb():
        np.multiply(x, np.float32(2.5), out=y)
        np.add(y, b, out=y)

    side = int(round(n**0.5))
    half, stepped = y[: n // 2], x[::2]
    y_square, x_transposed = y.reshape(side, side), x.reshape(side, side).T

    return {
        "copy": lambda: np.copyto(y, x),
        "copy_step2": lambda: np.copyto(half, stepped),
        "copy_T": lambda: np.copyto(y_square, x_transposed),
        "scale": lambda: np.multiply(x, np.float32(2), out=y),
        "add": lambda: np.add(a, b, out=y),
        "axpb": axpb,
        "sum64": lambda: x.sum(dtype=np.float64),
        "sum32": lambda: x.sum(),
        "cumsum": lambda: np.cumsum(x, out=y),
    }


def numpy_ms(fn):
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1e3


class KjarniProcess:
    """One kjarni_bench_cpu_vs_numpy, answering one timed call per request."""

    def __init__(self, build):
        binary = os.path.join(build, "bench", "kjarni_bench_cpu_vs_numpy")
        self.proc = subprocess.Popen([binary, args.device], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.ready = self.proc.stdout.readline().strip().removeprefix("ready ")

    def ms(self, case, n):
        self.proc.stdin.write(f"{case} {n}\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline().strip()
        if not answer or answer.startswith("error"):
            raise SystemExit(f"kjarni: {case} {n}: {answer or 'no answer'}")
        return float(answer)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def main():
    kjarni = KjarniProcess(args.build)
    baseline = KjarniProcess(args.baseline_build) if args.baseline_build else None
    cases = list(args.cases or CASES)
    if args.raw:
        cases += [f"{case}_{form}" for case in RAW_CASES for form in ("raw", "rawpoll")]
    load_before = os.getloadavg()
    print(f"kjarni: {kjarni.ready}; numpy {np.__version__}; {os.cpu_count()} CPUs")
    rows = []
    for mib in args.mib:
        n = (mib << 20) // 4
        peers = numpy_cases(n)
        for case in cases:
            peer = peers[NUMPY_NAME.get(case, case)]
            # Each repetition times every side once, the order rotating (the first compiles and warms up).
            sides = [lambda: kjarni.ms(case, n), lambda: numpy_ms(peer)]
            raw = case.endswith(("_raw", "_rawpoll"))  # the same in both builds: not timed in the baseline
            if baseline and not raw:
                sides.append(lambda: baseline.ms(case, n))
            times = [[] for _ in sides]
            for rep in range(args.repetitions + 1):
                for k in range(len(sides)):
                    j = (k + rep) % len(sides)
                    t = sides[j]()
                    if rep > 0:
                        times[j].append(t)
            rows.append((mib, case, *(statistics.median(t) for t in times), *([None] if baseline and raw else [])))
    kjarni.close()
    if baseline:
        baseline.close()
    load_after = os.getloadavg()
    print(f"medians of {args.repetitions} interleaved repetitions, ms; ratio = numpy / kjarni (>= 1: kjarni at or above numpy)")
    if baseline:
        print(f"baseline: {args.baseline_build}")
        print("| MiB | case | kjarni ms | numpy ms | ratio | baseline ms | baseline ratio |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for mib, case, k, p, b in rows:
            tail = f"{b:.2f} | {p / b:.2f}" if b is not None else "- | -"
            print(f"| {mib} | {case} | {k:.2f} | {p:.2f} | {p / k:.2f} | {tail} |")
    else:
        print("| MiB | case | kjarni ms | numpy ms | ratio |")
        print("| --- | --- | --- | --- | --- |")
        for mib, case, k, p in rows:
            print(f"| {mib} | {case} | {k:.2f} | {p:.2f} | {p / k:.2f} |")
    print(f"load average before {load_before[0]:.2f} {load_before[1]:.2f}, after {load_after[0]:.2f} {load_after[1]:.2f}")


main()
