"""The algorithms benchmark's operations through PyTorch and CuPy on the same GPU, for the figures
kjarni_bench_algorithms is compared with (run in the same device call). GB/s = useful bytes / time
(elements read and written), timed with CUDA events over batches of 10, medians of interleaved
repetitions. Sizes follow kjarni's bench: n float32 of KJARNI_BENCH_ALGO_MIB MiB (default 2048).

    python3 bench/peers/algorithms_peers.py [--repetitions 7]
"""
import argparse
import os

from peer_timing import cupy_timer, each_peer, interleaved_medians, torch_timer

parser = argparse.ArgumentParser()
parser.add_argument("--repetitions", type=int, default=7)
args = parser.parse_args()
n = (int(os.environ.get("KJARNI_BENCH_ALGO_MIB", "2048")) << 20) // 4
batch = 10


def torch_cases():
    import torch
    dev = "cuda"
    a, b, x, y = (torch.full((n,), 1.25, device=dev) for _ in range(4))
    wide = torch.full((2 * n,), 1.25, device=dev)
    stepped = wide[::2]
    m1 = torch.ones((n // 8, 8), device=dev)  # (2^26, 8) at the default size
    m0 = torch.ones((8, n // 8), device=dev)
    ints = torch.ones(n, dtype=torch.int32, device=dev)
    cases = {
        "copy": (lambda: y.copy_(x), 2 * 4 * n),
        "scale": (lambda: torch.mul(x, 2.0, out=y), 2 * 4 * n),
        "add": (lambda: torch.add(a, b, out=y), 3 * 4 * n),
        "add_stepped": (lambda: torch.add(stepped, b, out=y), 3 * 4 * n),
        "axpb_unfused": (lambda: torch.add(3.0 * x, b, out=y), 3 * 4 * n),
        "sum": (lambda: x.sum(), 4 * n),
        "sum_axis1_short": (lambda: m1.sum(dim=1), 4 * m1.numel()),
        "sum_axis0_short": (lambda: m0.sum(dim=0), 4 * m0.numel()),
        "cumsum_float32": (lambda: torch.cumsum(x, 0, out=y), 2 * 4 * n),
        "cumsum_int32": (lambda: torch.cumsum(ints, 0, dtype=torch.int32), 2 * 4 * n),
        "cumsum_int32_to_int64": (lambda: torch.cumsum(ints, 0), (4 + 8) * n),
    }
    return cases, torch_timer(batch)


def cupy_cases():
    import cupy as cp
    a, b, x, y = (cp.full((n,), 1.25, dtype=cp.float32) for _ in range(4))
    wide = cp.full((2 * n,), 1.25, dtype=cp.float32)
    stepped = wide[::2]
    m1 = cp.ones((n // 8, 8), dtype=cp.float32)
    m0 = cp.ones((8, n // 8), dtype=cp.float32)
    ints = cp.ones(n, dtype=cp.int32)
    cases = {
        "copy": (lambda: cp.copyto(y, x), 2 * 4 * n),
        "scale": (lambda: cp.multiply(x, cp.float32(2.0), out=y), 2 * 4 * n),
        "add": (lambda: cp.add(a, b, out=y), 3 * 4 * n),
        "add_stepped": (lambda: cp.add(stepped, b, out=y), 3 * 4 * n),
        "axpb_unfused": (lambda: cp.add(cp.float32(3.0) * x, b, out=y), 3 * 4 * n),
        "sum": (lambda: x.sum(), 4 * n),
        "sum_axis1_short": (lambda: m1.sum(axis=1), 4 * m1.size),
        "sum_axis0_short": (lambda: m0.sum(axis=0), 4 * m0.size),
        "cumsum_float32": (lambda: cp.cumsum(x, out=y), 2 * 4 * n),
        "cumsum_int32": (lambda: cp.cumsum(ints, dtype=cp.int32), 2 * 4 * n),
        "cumsum_int32_to_int64": (lambda: cp.cumsum(ints), (4 + 8) * n),
    }
    return cases, cupy_timer(batch)


for peer, cases, timer in each_peer((("torch", torch_cases), ("cupy", cupy_cases))):
    medians = interleaved_medians({name: fn for name, (fn, _) in cases.items()}, timer, args.repetitions)
    for name, (_, useful) in cases.items():
        print(f"{peer:6s} {name:18s} {useful / medians[name] / 1e9:8.1f} GB/s  ({medians[name] * 1e3:.3f} ms)")
    del cases
