#!/bin/bash
# A sweep of the onesweep sort's settings (src/algorithms/sort_onesweep.cpp: KJARNI_SORT_*) on the
# GPU machine: Gkeys/s of sort and argsort of 2^28 float32 and uint32 keys through CUDA, then
# through NVIDIA's OpenCL, each configuration first checked on the host at 2^22 (random keys and
# keys with ties); then the per-kernel durations of one sort under Nsight Compute (see the end).
# About 1-2 minutes per API for the default list once built (estimated).
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
# The defaults (split loads, 16 keys per counting work item, early counts: the first entry spells
# them out) against what the 2026-11-29 sweep left open (docs/algorithms.md): 24 keys per work item
# for CUDA's sort (NVIDIA's OpenCL sort already takes 24; OpenCL's argsort with values together
# stays at the 15 that 48 KiB holds), argsort's values apart through NVIDIA's OpenCL (CUDA's
# default already), late counts (CUDA's argsort tied with them), and the old defaults (fused, 1,
# late), which that sweep timed first and lower than the sweep before it. Items beyond what 48 KiB
# of local memory holds are lowered (KJARNI_SORT_VERBOSE says to what).
configs=${KJARNI_SWEEP_CONFIGS:-"LOAD=split,HIST_ITEMS=16,COUNTS=early;COUNTS=early,ITEMS=24;COUNTS=early,VALUES=apart;COUNTS=late;LOAD=fused,HIST_ITEMS=1,COUNTS=late"}
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
# Per-kernel durations of one 2^28 float32 sort through CUDA under Nsight Compute, for each
# configuration of KJARNI_SWEEP_NCU (same syntax; set and empty: none): the counting kernel and the four
# passes (the warm-up sort, the first five onesweep launches), with registers per thread and the
# achieved occupancy. Where no ncu is found, says so.
ncu_bin=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
ncu_configs_text=${KJARNI_SWEEP_NCU-"LOAD=fused,HIST_ITEMS=1,COUNTS=late;LOAD=split,HIST_ITEMS=16,COUNTS=early"}
if [ -n "$ncu_configs_text" ]; then
  if [ -z "$ncu_bin" ]; then
    echo "ncu: not found"
  else
    IFS=';' read -ra ncu_configs <<<"$ncu_configs_text"
    for config in "${ncu_configs[@]}"; do
      settings=()
      IFS=',' read -ra pairs <<<"$config"
      for pair in "${pairs[@]}"; do
        name=${pair%%=*}
        [[ $name == KJARNI_* ]] || name=KJARNI_SORT_$name
        settings+=("$name=${pair#*=}")
      done
      csv="$out/ncu-${config//[^A-Za-z0-9_]/_}.csv"
      env "${settings[@]}" KJARNI_BENCH_SORT_API=cuda timeout 120 "$ncu_bin" --csv --print-units base --kernel-name regex:onesweep \
        --launch-count 5 --metrics gpu__time_duration.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active \
        build-gpu/bench/kjarni_bench_sorting --benchmark_filter='^sort_float32/cuda' --benchmark_min_time=0.01 >"$csv" 2>"$csv.err"
      echo "ncu [$config] rc=$?"
      python3 - "$csv" <<'PY'
import csv, sys
rows, order = {}, []
with open(sys.argv[1]) as f:
    lines = [line for line in f if line.startswith('"')]
for r in csv.DictReader(lines):
    key = (r["ID"], r["Kernel Name"].split("(")[0])
    if key not in rows:
        rows[key] = {}
        order.append(key)
    rows[key][r["Metric Name"]] = r["Metric Value"]
for key in order:
    m = rows[key]
    print(f"  {key[1]:28s} {m.get('gpu__time_duration.sum', '?'):>12s} ns  regs {m.get('launch__registers_per_thread', '?'):>4s}"
          f"  warps active {m.get('sm__warps_active.avg.pct_of_peak_sustained_active', '?')} %")
PY
    done
  fi
fi
exit $status
