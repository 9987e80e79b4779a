"""kjarni_bench_fusion's operations through PyTorch (eager operations, its fused kernels
torch.softmax and F.layer_norm, and torch.compile of the same functions) and CuPy on the same GPU,
for the figures kjarni is compared with (run in the same device call). GB/s = useful bytes / time
(each input read once, the result written once, as kjarni's bench counts them), timed with CUDA
events over batches of 10, medians of interleaved repetitions. torch.compile's compile time (its
first call, tracing and code generation included) is printed once per function.

    python3 bench/peers/fusion_peers.py [--repetitions 7]

Sizes follow kjarni's bench: n = 2^KJARNI_BENCH_FUSION_LOG2 (default 28) float32 for sum(a*x + b),
(2^KJARNI_BENCH_FUSION_ROWS_LOG2 (default 16), 4096) float32 for softmax and layer normalisation.
"""
import argparse
import os
import time

from peer_timing import cupy_timer, each_peer, interleaved_medians, torch_timer

parser = argparse.ArgumentParser()
parser.add_argument("--repetitions", type=int, default=7)
parser.add_argument("--no-compile", action="store_true", help="leave torch.compile out")
args = parser.parse_args()
n = 1 << int(os.environ.get("KJARNI_BENCH_FUSION_LOG2", "28"))
rows = 1 << int(os.environ.get("KJARNI_BENCH_FUSION_ROWS_LOG2", "16"))
cols = 4096
batch = 10
vector_bytes = 2 * 4 * n
matrix_bytes = 2 * 4 * rows * cols


def torch_cases():
    import torch
    import torch.nn.functional as F
    dev = "cuda"
    torch.manual_seed(1)

    def uniform(*shape):  # in [-1, 1), as kjarni's benchmark fills its arrays
        return torch.rand(shape, device=dev) * 2 - 1

    x, b, m, gamma, beta = uniform(n), uniform(n), uniform(rows, cols), uniform(cols), uniform(cols)

    def sum_axpb(x, b):
        return torch.sum(3.0 * x + b)

    def softmax_ops(m):
        e = torch.exp(m - m.amax(dim=-1, keepdim=True))
        return e / e.sum(dim=-1, keepdim=True)

    def layernorm_ops(m, gamma, beta):
        mu = m.mean(dim=-1, keepdim=True)
        var = m.var(dim=-1, keepdim=True, unbiased=False)
        return (m - mu) / torch.sqrt(var + 1e-5) * gamma + beta

    cases = {
        "sum_axpb_ops": (lambda: sum_axpb(x, b), vector_bytes),
        "softmax_ops": (lambda: softmax_ops(m), matrix_bytes),
        "softmax_torch": (lambda: torch.softmax(m, dim=-1), matrix_bytes),
        "layernorm_ops": (lambda: layernorm_ops(m, gamma, beta), matrix_bytes),
        "layernorm_F": (lambda: F.layer_norm(m, (cols,), gamma, beta, 1e-5), matrix_bytes),
    }
    if not args.no_compile:
        for name, fn, inputs, useful in (("sum_axpb_compiled", sum_axpb, (x, b), vector_bytes),
                                         ("softmax_compiled", softmax_ops, (m,), matrix_bytes),
                                         ("layernorm_compiled", layernorm_ops, (m, gamma, beta), matrix_bytes)):
            compiled = torch.compile(fn)
            torch.cuda.synchronize()
            start = time.perf_counter()
            compiled(*inputs)
            torch.cuda.synchronize()
            print(f"torch  {name:20s} compile time {time.perf_counter() - start:.2f} s (first call)")
            cases[name] = ((lambda c=compiled, i=inputs: c(*i)), useful)

    return cases, torch_timer(batch)


def cupy_cases():
    import cupy as cp
    rng = cp.random.default_rng(1)

    def uniform(*shape):  # in [-1, 1), as kjarni's benchmark fills its arrays
        return rng.random(shape, dtype=cp.float32) * 2 - 1

    x, b, m, gamma, beta = uniform(n), uniform(n), uniform(rows, cols), uniform(cols), uniform(cols)

    def softmax_ops():
        e = cp.exp(m - m.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    def layernorm_ops():
        mu = m.mean(axis=-1, keepdims=True)
        var = m.var(axis=-1, keepdims=True)
        return (m - mu) / cp.sqrt(var + cp.float32(1e-5)) * gamma + beta

    cases = {
        "sum_axpb_ops": (lambda: cp.sum(cp.float32(3.0) * x + b), vector_bytes),
        "softmax_ops": (softmax_ops, matrix_bytes),
        "layernorm_ops": (layernorm_ops, matrix_bytes),
    }

    return cases, cupy_timer(batch)


for peer, cases, timer in each_peer((("torch", torch_cases), ("cupy", cupy_cases))):
    medians = interleaved_medians({name: fn for name, (fn, _) in cases.items()}, timer, args.repetitions)
    for name, (_, useful) in cases.items():
        print(f"{peer:6s} {name:20s} {useful / medians[name] / 1e9:8.1f} GB/s  ({medians[name] * 1e3:.3f} ms)")
    del cases
