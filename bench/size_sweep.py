"""The size sweep of issue 41 item 3 in one table: kjarni (every API kjarni_bench_size_sweep finds)
beside PyTorch and CuPy on the same GPU, GB/s of useful bytes (medians of interleaved repetitions)
and kjarni's ratio to the best peer at each size. Run on the GPU machine from the repository root:

    python3 bench/size_sweep.py BUILD/bench/kjarni_bench_size_sweep [--sizes 1,16,64,256,2048]
        [--repetitions 5] [--filter REGEX] [--min-time SECONDS] [--timing events|wall] [--markdown FILE]
        [--json FILE]

--filter is kjarni's --benchmark_filter (e.g. 'cuda|NVIDIA' where PoCL is registered too).
--timing events (the default) takes kjarni's figure from events recorded on its queue around each
batch, as the peers are timed (CUDA events around a batch of 10); wall takes the wall clock of
the batch and the host's wait after it, which the peers' figures do not include.
"""
import argparse
import collections
import json
import os
import subprocess
import sys

parser = argparse.ArgumentParser()
parser.add_argument("bench")
parser.add_argument("--sizes", default="1,16,64,256,2048")
parser.add_argument("--repetitions", type=int, default=5)
parser.add_argument("--filter", default=".")
parser.add_argument("--min-time", default="0.2", help="Google Benchmark's seconds per repetition")
parser.add_argument("--timing", choices=("events", "wall"), default="events")
parser.add_argument("--markdown")
parser.add_argument("--json", help="also write kjarni's own Google Benchmark JSON (both timings) here")
args = parser.parse_args()

figures = collections.defaultdict(dict)  # (op, MiB) -> {column: GB/s}
environment = dict(os.environ, KJARNI_BENCH_SWEEP_MIB=args.sizes)
kjarni = subprocess.run(
    [args.bench, f"--benchmark_repetitions={args.repetitions}", "--benchmark_enable_random_interleaving=true",
     "--benchmark_report_aggregates_only=true", "--benchmark_format=json", f"--benchmark_filter={args.filter}",
     f"--benchmark_min_time={args.min_time}"],
    env=environment, check=True, capture_output=True, text=True)
if args.json:
    with open(args.json, "w") as out:
        out.write(kjarni.stdout)
for run in json.loads(kjarni.stdout)["benchmarks"]:
    if run.get("aggregate_name") != "median":
        continue
    op, size, api, _device = run["run_name"].split("/", 3)
    counter = "GB/s events" if args.timing == "events" and "GB/s events" in run else "GB/s"
    figures[(op, int(size.removesuffix("MiB")))][f"kjarni {api}"] = run[counter]

peers_script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers", "size_sweep_peers.py")
peers = subprocess.run([sys.executable, peers_script, "--sizes", args.sizes, "--repetitions", str(args.repetitions)],
                       check=True, capture_output=True, text=True)
for line in peers.stdout.splitlines():
    parts = line.split()
    if len(parts) == 4:
        peer, op, mib, rate = parts
        figures[(op, int(mib))][peer] = float(rate)
    else:
        print(line)  # a peer that is unavailable says so

columns = sorted({c for row in figures.values() for c in row if c.startswith("kjarni")}) + ["torch", "cupy"]
lines = ["| op | MiB | " + " | ".join(columns) + " | kjarni / best peer |",
         "| --- | ---: | " + " | ".join("---:" for _ in columns) + " | --- |"]
for (op, mib), row in sorted(figures.items(), key=lambda item: (item[0][0], item[0][1])):
    best_peer = max((row[p] for p in ("torch", "cupy") if p in row), default=None)
    ratios = [f"{c.split()[1]} {row[c] / best_peer:.2f}" for c in columns
              if c.startswith("kjarni") and c in row and best_peer]
    cells = [f"{row[c]:.1f}" if c in row else "-" for c in columns]
    lines.append(f"| {op} | {mib} | " + " | ".join(cells) + " | " + ", ".join(ratios) + " |")
table = "\n".join(lines)
print(table)
if args.markdown:
    with open(args.markdown, "w") as out:
        out.write(table + "\n")
