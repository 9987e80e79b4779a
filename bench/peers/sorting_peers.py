"""The sorting benchmark's cases through PyTorch and CuPy on the same GPU, for the figures
kjarni_bench_sorting is compared with (run in the same device call). Gkeys/s = keys / time, timed
with CUDA events over batches of 3, medians of interleaved repetitions. n = 2^KJARNI_BENCH_SORT_LOG2
keys (default 28), as kjarni's bench: random float32 in (-1, 1), random uint32, a 50% bool mask.

    python3 bench/peers/sorting_peers.py [--repetitions 5]

PyTorch has no uint32 sort on every version: its uint32 cases sort int64 copies of the keys when
uint32 is refused (printed as such). torch.sort returns values and positions together (a
keys-and-values sort); torch.argsort(stable=True) is the stable argsort.
"""
import argparse
import os

from peer_timing import cupy_timer, each_peer, interleaved_medians, torch_timer

parser = argparse.ArgumentParser()
parser.add_argument("--repetitions", type=int, default=5)
args = parser.parse_args()
n = 1 << int(os.environ.get("KJARNI_BENCH_SORT_LOG2", "28"))
batch = 3


def torch_cases():
    import torch
    dev = "cuda"
    g = torch.Generator(device=dev)
    g.manual_seed(12345)
    floats = torch.rand(n, device=dev, generator=g) * 2 - 1
    mask = torch.rand(n, device=dev, generator=g) < 0.5
    try:
        uints = torch.randint(0, 2**32, (n,), device=dev, generator=g, dtype=torch.int64).to(torch.uint32)
        torch.sort(uints[:16])
        uint_label = "uint32"
    except Exception:  # older PyTorch: no uint32 sort
        uints = torch.randint(0, 2**32, (n,), device=dev, generator=g, dtype=torch.int64)
        uint_label = "int64 (no uint32 sort)"
    print(f"torch: uint32 keys as {uint_label}")
    cases = {
        "sort_float32": lambda: torch.sort(floats),
        "sort_uint32": lambda: torch.sort(uints),
        "argsort_float32": lambda: torch.argsort(floats, stable=True),
        "argsort_uint32": lambda: torch.argsort(uints, stable=True),
        "boolean_index_float32": lambda: floats[mask],
    }

    return cases, torch_timer(batch)


def cupy_cases():
    import cupy as cp
    rs = cp.random.RandomState(12345)
    floats = rs.uniform(-1, 1, n, dtype=cp.float32)
    uints = (rs.random_sample(n) * 2.0**32).astype(cp.uint64).astype(cp.uint32)  # every bit random
    mask = rs.uniform(0, 1, n, dtype=cp.float32) < 0.5
    cases = {
        "sort_float32": lambda: cp.sort(floats),
        "sort_uint32": lambda: cp.sort(uints),
        "argsort_float32": lambda: cp.argsort(floats),
        "argsort_uint32": lambda: cp.argsort(uints),
        "boolean_index_float32": lambda: floats[mask],
    }

    return cases, cupy_timer(batch)


for peer, cases, timer in each_peer((("torch", torch_cases), ("cupy", cupy_cases))):
    for name, median in interleaved_medians(cases, timer, args.repetitions).items():
        print(f"{peer:6s} {name:22s} {n / median / 1e9:8.2f} Gkeys/s  ({median * 1e3:.3f} ms)")
    del cases
