"""The size sweep of issue 41 item 3 (copy, 2x, a + b, fused a*x + b, sum, sum8 (along a last axis of 8),
cumsum of float32 arrays)
with kjarni, PyTorch and CuPy in one process, on one CUDA stream: kjarni's queue's, which PyTorch
and CuPy take as an external stream. Every figure is GPU time between two CUDA events around a
batch of calls, after a kernel that keeps the GPU busy while the host enqueues the batch
(torch.cuda._sleep), so that the batch runs back to back whatever each library's host cost: what
is compared is the work each library gives the GPU. The variants of a size run in turn, once per
repetition (interleaved: clocks and neighbours weigh on all alike); medians over repetitions, GB/s
of useful bytes, and kjarni's ratio to the best peer. Results are checked against numpy.

bench/size_sweep.py times kjarni (C++, both APIs) and the peers in separate processes, minutes
apart; this script removes that doubt for the CUDA rows.

    python bench/python/sweep_one_stream.py [--sizes 1,4,16,64,256] [--ops copy,2x,a+b,a*x+b,sum,sum8,cumsum]
        [--repetitions 15] [--calls 20]
"""

import argparse
import statistics

import numpy

import kjarni


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1,4,16,64,256")
    parser.add_argument("--ops", default="copy,2x,a+b,a*x+b,sum,sum8,cumsum", help="which rows, comma-separated")
    parser.add_argument("--repetitions", type=int, default=15)
    parser.add_argument("--calls", type=int, default=20, help="calls in a timed batch")
    parser.add_argument("--sleep-cycles", type=int, default=50_000_000,
                        help="GPU cycles of the kernel that runs while the host enqueues a batch")
    args = parser.parse_args()

    import cupy
    import torch

    api = kjarni.API.cuda()
    context = kjarni.Context.from_devices([api.platforms[0].devices[0]])
    queue = kjarni.Queue(context.device)
    handle = queue.native_handle
    torch_stream = torch.cuda.ExternalStream(handle)
    cupy_stream = cupy.cuda.ExternalStream(handle)
    print(f"device: {context.device.name}; kjarni {kjarni.__version__}, torch {torch.__version__}, "
          f"cupy {cupy.__version__}; one stream, events, batches of {args.calls}, "
          f"medians of {args.repetitions} interleaved repetitions")

    def gpu_seconds(call):
        with torch.cuda.stream(torch_stream):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda._sleep(args.sleep_cycles)
            start.record(torch_stream)
            for _ in range(args.calls):
                call()
            end.record(torch_stream)
        end.synchronize()
        return start.elapsed_time(end) / 1e3 / args.calls

    rows = []
    rng = numpy.random.default_rng(41)
    for mib in (int(s) for s in args.sizes.split(",")):
        n = (mib << 20) // 4
        hosts = {k: rng.uniform(-1, 1, n).astype(numpy.float32) for k in ("a", "b", "x")}
        k = {name: kjarni.Array.from_host(queue, h) for name, h in hosts.items()}
        k["y"] = kjarni.Array.empty(context.device, (n,), numpy.float32)
        with torch.cuda.stream(torch_stream):
            t = {name: torch.from_numpy(h).cuda() for name, h in hosts.items()}
            t["y"] = torch.empty(n, device="cuda")
        with cupy_stream:
            c = {name: cupy.asarray(h) for name, h in hosts.items()}
            c["y"] = cupy.empty(n, dtype=cupy.float32)
        torch.cuda.synchronize()
        queue.synchronize()
        three, two, three_f = numpy.float32(3.0), numpy.float32(2.0), 3.0

        def in_cupy(f):
            def call():
                with cupy_stream:
                    f()
            return call

        ops = {
            "copy": (2, {
                "kjarni": lambda: k["y"].base.set(queue, k["x"].base, False),
                "torch": lambda: t["y"].copy_(t["x"]),
                "cupy": in_cupy(lambda: cupy.copyto(c["y"], c["x"])),
            }, lambda: hosts["x"]),
            "2x": (2, {
                "kjarni": lambda: kjarni.assign(queue, k["y"], two * k["x"]),
                "torch": lambda: torch.mul(t["x"], 2.0, out=t["y"]),
                "cupy": in_cupy(lambda: cupy.multiply(c["x"], two, out=c["y"])),
            }, lambda: 2 * hosts["x"]),
            "a+b": (3, {
                "kjarni": lambda: kjarni.assign(queue, k["y"], k["a"] + k["b"]),
                "torch": lambda: torch.add(t["a"], t["b"], out=t["y"]),
                "cupy": in_cupy(lambda: cupy.add(c["a"], c["b"], out=c["y"])),
            }, lambda: hosts["a"] + hosts["b"]),
            "a*x+b": (3, {
                "kjarni": lambda: kjarni.assign(queue, k["y"], three * k["x"] + k["b"]),
                "torch": lambda: torch.add(three_f * t["x"], t["b"], out=t["y"]),
                "cupy": in_cupy(lambda: cupy.add(three * c["x"], c["b"], out=c["y"])),
            }, lambda: 3 * hosts["x"] + hosts["b"]),
            "sum": (1, {
                "kjarni": lambda: kjarni.sum(queue, k["x"]),
                "torch": lambda: t["x"].sum(),
                "cupy": in_cupy(lambda: c["x"].sum()),
            }, None),
            # sum along a short last axis: (n / 8, 8) summed over axis 1 (issue 41's (2^26, 8) at 2048 MiB).
            "sum8": (1.125, {
                "kjarni": lambda: kjarni.sum(queue, k["x"].reshape(n // 8, 8), 1),
                "torch": lambda: t["x"].view(-1, 8).sum(1),
                "cupy": in_cupy(lambda: c["x"].reshape(-1, 8).sum(axis=1)),
            }, None),
            "cumsum": (2, {
                "kjarni": lambda: kjarni.cumsum(queue, k["x"], 0, numpy.float32, k["y"]),
                "torch": lambda: torch.cumsum(t["x"], 0, out=t["y"]),
                "cupy": in_cupy(lambda: cupy.cumsum(c["x"], out=c["y"])),
            }, None),
        }
        wanted = args.ops.split(",")
        for op, (passes, variants, expected) in ((op, ops[op]) for op in wanted):
            for f in variants.values():  # warm-up: compile, allocate
                f()
            torch.cuda.synchronize()
            queue.synchronize()
            if expected is not None:  # kjarni's y after its own call
                variants["kjarni"]()
                queue.synchronize()
                numpy.testing.assert_allclose(k["y"].get(queue), expected(), rtol=2e-6, atol=2e-6)
            samples = {name: [] for name in variants}
            for _ in range(args.repetitions):
                for name, f in variants.items():
                    samples[name].append(gpu_seconds(f))
            useful = passes * 4 * n
            rates = {name: useful / statistics.median(s) / 1e9 for name, s in samples.items()}
            best = max(rates["torch"], rates["cupy"])
            rows.append((op, mib, rates, rates["kjarni"] / best))
            print(f"{op:7s} {mib:5d} MiB  kjarni {rates['kjarni']:8.1f}  torch {rates['torch']:8.1f}  "
                  f"cupy {rates['cupy']:8.1f} GB/s  kjarni / best peer {rates['kjarni'] / best:.3f}", flush=True)
        del k, t, c
    print("\n| op | " + " | ".join(f"{m} MiB" for m in sorted({r[1] for r in rows})) + " |")
    for op in dict.fromkeys(r[0] for r in rows):
        print(f"| {op} | " + " | ".join(f"{r[3]:.3f}" for r in rows if r[0] == op) + " |")


if __name__ == "__main__":
    main()
