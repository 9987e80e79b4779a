"""Each kernel's own GPU time (CUPTI, through torch.profiler, which records every kernel of the
process, kjarni's too) for kjarni, PyTorch and CuPy doing y = 2x, a + b and sum of float32 arrays on
one CUDA stream: which kernels each library launches per call and the median duration of each.
bench/python/sweep_one_stream.py gives the time per call (kernels and the gaps between them); this
says how much of it is the kernels themselves (the sum: kjarni's one kernel against CUB's two).

    python bench/python/kernel_times.py [sizes in MiB, default 1,4,16] [ops, default 2x,a+b,sum]
"""
import statistics
import sys

import cupy
import numpy
import torch
from torch.profiler import ProfilerActivity, profile

import kjarni


def main():
    sizes = [int(s) for s in (sys.argv[1] if len(sys.argv) > 1 else "1,4,16").split(",")]
    ops_wanted = (sys.argv[2] if len(sys.argv) > 2 else "2x,a+b,sum").split(",")
    api = kjarni.API.cuda()
    context = kjarni.Context.from_devices([api.platforms[0].devices[0]])
    queue = kjarni.Queue(context.device)
    ts = torch.cuda.ExternalStream(queue.native_handle)
    cs = cupy.cuda.ExternalStream(queue.native_handle)
    rng = numpy.random.default_rng(1)
    for mib in sizes:
        n = (mib << 20) // 4
        h = {k: rng.uniform(-1, 1, n).astype(numpy.float32) for k in "abx"}
        k = {name: kjarni.Array.from_host(queue, v) for name, v in h.items()}
        k["y"] = kjarni.Array.empty(context.device, (n,), numpy.float32)
        with torch.cuda.stream(ts):
            t = {name: torch.from_numpy(v).cuda() for name, v in h.items()}
            t["y"] = torch.empty(n, device="cuda")
        with cs:
            c = {name: cupy.asarray(v) for name, v in h.items()}
            c["y"] = cupy.empty(n, dtype=cupy.float32)
        torch.cuda.synchronize()
        two = numpy.float32(2)

        def cu(f):
            def g():
                with cs:
                    f()
            return g
        ops = {
            "2x": {"kjarni": lambda: kjarni.assign(queue, k["y"], two * k["x"]),
                   "torch": lambda: torch.mul(t["x"], 2.0, out=t["y"]),
                   "cupy": cu(lambda: cupy.multiply(c["x"], two, out=c["y"]))},
            "a+b": {"kjarni": lambda: kjarni.assign(queue, k["y"], k["a"] + k["b"]),
                    "torch": lambda: torch.add(t["a"], t["b"], out=t["y"]),
                    "cupy": cu(lambda: cupy.add(c["a"], c["b"], out=c["y"]))},
            "sum": {"kjarni": lambda: kjarni.sum(queue, k["x"]),
                    "torch": lambda: t["x"].sum(),
                    "cupy": cu(lambda: c["x"].sum())},
        }
        for op in ops_wanted:
            for lib, f in ops[op].items():
                for _ in range(3):
                    f()
                torch.cuda.synchronize()
                with torch.cuda.stream(ts):
                    with profile(activities=[ProfilerActivity.CUDA]) as prof:
                        torch.cuda._sleep(50_000_000)
                        for _ in range(200):
                            f()
                        torch.cuda.synchronize()
                evs = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA
                       and "spin_kernel" not in e.name]
                byname = {}
                for e in evs:
                    byname.setdefault(e.name[:70], []).append(e.device_time)
                desc = "; ".join(f"{nm} x{len(v)} med {statistics.median(v):.2f} us" for nm, v in byname.items())
                print(f"{op:4s} {mib:4d} MiB {lib:6s} | {desc}", flush=True)


if __name__ == "__main__":
    main()
