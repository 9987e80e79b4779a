#!/bin/bash
# A sweep of the onesweep sort's settings (src/algorithms/sort_onesweep.cpp: KJARNI_SORT_RANK,
# _ITEMS, _GROUP, _VALUES, _MATCH) on the GPU machine: Gkeys/s of sort and argsort of 2^28 float32 and uint32 keys
# through CUDA, then through NVIDIA's OpenCL, each configuration first checked on the host at 2^22
# (random keys and keys with ties). About 100 s for the default list once built (estimated: not
# yet run on a GPU).
#
#   bash bench/sort_sweep.sh [--build]     # repository root, .gpu-deps carried (as for
#                                          # scripts/sorting-gpu.sh); --build, or no
#                                          # build-gpu/bench/kjarni_bench_sorting yet: build first
# KJARNI_SWEEP_CONFIGS replaces the list (KJARNI_BENCH_SORT_CONFIGS's syntax, see
# bench/sorting_bench.cpp); results under $OUT (or ./gpu-out): sweep-cuda.txt, sweep-opencl.txt,
# and a table of each configuration's Gkeys/s on stdout (one timing each: the sweep picks, the
# benchmark with repetitions confirms).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
# shellcheck disable=SC1091
source .gpu-deps/unpack-on-gpu.sh
export CPATH=/tmp/deps/usr/include/x86_64-linux-gnu${CPATH:+:$CPATH}
if [ "${1:-}" = "--build" ] || [ ! -x build-gpu/bench/kjarni_bench_sorting ]; then
  start=$SECONDS
  { cmake --preset gpu -DCMAKE_PREFIX_PATH="$KJARNI_DEPS" && cmake --build --preset gpu -j "$(nproc)" --target kjarni_bench_sorting; } \
    >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
  echo "build: $((SECONDS - start)) s"
fi
# nibble: the form measured so far (two 4-bit rounds); match: one round with warp instructions
# (CUDA intrinsics; inline PTX through NVIDIA's OpenCL), at several tile shapes, argsort's values
# staged with the keys (together, the default) or after them (apart), lanes matched by match.any
# (the default) or through mask words (MATCH=or). Items beyond what 48 KiB of
# local memory holds are lowered (argsort with values together: at most 23 at 256 work items).
configs=${KJARNI_SWEEP_CONFIGS:-"RANK=nibble;RANK=match,ITEMS=12;RANK=match,ITEMS=16;RANK=match,ITEMS=20;RANK=match,ITEMS=24;RANK=match,ITEMS=16,VALUES=apart;RANK=match,ITEMS=24,VALUES=apart;RANK=match,ITEMS=32,VALUES=apart;RANK=match,ITEMS=16,GROUP=512;RANK=match,ITEMS=16,MATCH=or;RANK=match,ITEMS=24,MATCH=or,VALUES=apart"}
status=0
for api in cuda/ opencl/; do
  name=${api%/}
  log="$out/sweep-$name.txt"
  KJARNI_SORT_VERBOSE=1 KJARNI_BENCH_SORT_API=$api KJARNI_BENCH_SORT_CONFIGS="$configs" timeout 150 build-gpu/bench/kjarni_bench_sorting \
    --benchmark_min_time=0.1 --benchmark_counters_tabular=true \
    --benchmark_out="$out/sweep-$name.json" --benchmark_out_format=json >"$log" 2>&1
  rc=$?
  echo "$name: rc=$rc"
  [ $rc = 0 ] || status=1
  grep -E 'FAILED' "$log" | head -20
  # The shapes the sorts ran (KJARNI_SORT_VERBOSE), where a configuration fell back to multi-pass.
  grep -E '^kjarni sort' "$log" | grep -E 'multi-pass' | head -10
done
# One line per configuration and device: Gkeys/s of the four cases.
python3 - "$out"/sweep-cuda.json "$out"/sweep-opencl.json <<'EOF'
import json, re, sys
rows = {}
for path in sys.argv[1:]:
    try:
        runs = json.load(open(path))["benchmarks"]
    except (OSError, ValueError, KeyError):
        continue
    for run in runs:
        m = re.match(r"^(\w+)\[([^\]]*)\]/([^/]+)/", run["name"])
        if m and "Gkeys/s" in run:
            rows.setdefault((m.group(3), m.group(2)), {})[m.group(1)] = run["Gkeys/s"]
cases = ["sort_float32", "sort_uint32", "argsort_float32", "argsort_uint32"]
print(f"{'api':7s} {'configuration':32s} " + " ".join(f"{c:>15s}" for c in cases))
for (api, config), v in rows.items():
    print(f"{api:7s} {config:32s} " + " ".join(f"{v.get(c, float('nan')):15.2f}" for c in cases))
EOF
exit $status
