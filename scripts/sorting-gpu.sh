#!/bin/bash
# The sorting benchmark on the lent GPU machine (H200), through CUDA and NVIDIA's OpenCL, beside
# PyTorch and CuPy in the same call; results under $OUT (or ./gpu-out). Run from the repository
# root with .gpu-deps carried:
#   bash scripts/sorting-gpu.sh [--tests]   # --tests: also the Sorts tests through both APIs
# Builds only what it runs (-j of every core). KJARNI_BENCH_SORT_CHECK verifies the 2^28 results
# on the host before the timings (KJARNI_SORT_CHECK=0 skips it). With the check and 5 repetitions
# the call takes about 5 minutes on an H200 (build 1, check 1, peers 0.5, benchmark 2.5).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
# shellcheck disable=SC1091
source .gpu-deps/unpack-on-gpu.sh
export CPATH=/tmp/deps/usr/include/x86_64-linux-gnu${CPATH:+:$CPATH}
targets=(kjarni_bench_sorting)
[ "${1:-}" = "--tests" ] && targets+=(kjarni_tests)
start=$SECONDS
{ cmake --preset gpu -DCMAKE_PREFIX_PATH="$KJARNI_DEPS" && cmake --build --preset gpu -j "$(nproc)" --target "${targets[@]}"; } \
  >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
echo "build: $((SECONDS - start)) s"
if [ "${1:-}" = "--tests" ]; then
  for selector in cuda opencl:NVIDIA; do
    log="$out/tests-${selector%%:*}.log"
    KJARNI_TEST="$selector" timeout "${KJARNI_SORT_TEST_SECONDS:-60}" build-gpu/tests/kjarni_tests \
      --gtest_filter="${KJARNI_SORT_TESTS:-*Sorts*:*Overlap*}" >"$log" 2>&1
    printf '%-14s rc=%d  %s\n' "$selector" "$?" "$(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$log" | tr '\n' ' ')"
    grep -E '^\[  FAILED  \]' "$log" | head -20
  done
fi
python=/opt/torch/.venv/bin/python3
[ -x "$python" ] || python=python3
timeout 120 "$python" bench/peers/sorting_peers.py --repetitions "${KJARNI_SORT_REPS:-5}" >"$out/peers.txt" 2>&1
echo "peers rc=$?"
# The host check first, in a run of its own (about a minute for both APIs at 2^28), then the timings.
if [ "${KJARNI_SORT_CHECK:-1}" = 1 ]; then
  KJARNI_BENCH_SORT_CHECK=1 timeout 150 build-gpu/bench/kjarni_bench_sorting --benchmark_filter='^$' >"$out/check.txt" 2>&1
  echo "check rc=$?"
  grep -E '^check' "$out/check.txt"
fi
timeout "${KJARNI_SORT_BENCH_SECONDS:-150}" build-gpu/bench/kjarni_bench_sorting \
  --benchmark_filter='cuda|NVIDIA' --benchmark_repetitions="${KJARNI_SORT_REPS:-5}" \
  --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true \
  --benchmark_counters_tabular=true >"$out/bench.txt" 2>&1
echo "bench rc=$?"
grep -E 'median|^Benchmark' "$out/bench.txt"
cat "$out/peers.txt"
