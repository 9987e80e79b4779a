"""The size sweep's operations through PyTorch and CuPy (bench/size_sweep.py sets them beside
kjarni_bench_size_sweep): copy, 2x, a+b, a*x+b (two kernels in eager PyTorch and CuPy), sum, cumsum
of float32 arrays of each size, GB/s of useful bytes, CUDA events over batches of 10, medians of
interleaved repetitions. One line per figure: `peer op MiB GB/s`.

    python3 bench/peers/size_sweep_peers.py [--sizes 1,16,64,256,2048] [--repetitions 5]
"""
import argparse

from peer_timing import cupy_timer, each_peer, interleaved_medians, torch_timer

parser = argparse.ArgumentParser()
parser.add_argument("--sizes", default="1,16,64,256,2048")
parser.add_argument("--repetitions", type=int, default=5)
args = parser.parse_args()
sizes = [int(s) for s in args.sizes.split(",")]
batch = 10


def torch_cases():
    import torch
    cases = {}
    for mib in sizes:
        n = (mib << 20) // 4
        a, b, x, y = (torch.full((n,), 1.25, device="cuda") for _ in range(4))
        cases[("copy", mib)] = (lambda y=y, x=x: y.copy_(x), 2 * 4 * n)
        cases[("scale", mib)] = (lambda y=y, x=x: torch.mul(x, 2.0, out=y), 2 * 4 * n)
        cases[("add", mib)] = (lambda y=y, a=a, b=b: torch.add(a, b, out=y), 3 * 4 * n)
        cases[("axpb_fused", mib)] = (lambda y=y, x=x, b=b: torch.add(3.0 * x, b, out=y), 3 * 4 * n)
        cases[("sum", mib)] = (lambda x=x: x.sum(), 4 * n)
        cases[("cumsum", mib)] = (lambda y=y, x=x: torch.cumsum(x, 0, out=y), 2 * 4 * n)
    return cases, torch_timer(batch)


def cupy_cases():
    import cupy as cp
    cases = {}
    for mib in sizes:
        n = (mib << 20) // 4
        a, b, x, y = (cp.full((n,), 1.25, dtype=cp.float32) for _ in range(4))
        cases[("copy", mib)] = (lambda y=y, x=x: cp.copyto(y, x), 2 * 4 * n)
        cases[("scale", mib)] = (lambda y=y, x=x: cp.multiply(x, cp.float32(2.0), out=y), 2 * 4 * n)
        cases[("add", mib)] = (lambda y=y, a=a, b=b: cp.add(a, b, out=y), 3 * 4 * n)
        cases[("axpb_fused", mib)] = (lambda y=y, x=x, b=b: cp.add(cp.float32(3.0) * x, b, out=y), 3 * 4 * n)
        cases[("sum", mib)] = (lambda x=x: x.sum(), 4 * n)
        cases[("cumsum", mib)] = (lambda y=y, x=x: cp.cumsum(x, out=y), 2 * 4 * n)
    return cases, cupy_timer(batch)


for peer, cases, timer in each_peer((("torch", torch_cases), ("cupy", cupy_cases))):
    medians = interleaved_medians({key: fn for key, (fn, _) in cases.items()}, timer, args.repetitions)
    for (op, mib), (_, useful) in cases.items():
        print(f"{peer} {op} {mib} {useful / medians[(op, mib)] / 1e9:.2f}", flush=True)
    del cases
