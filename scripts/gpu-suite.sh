#!/bin/bash
# The whole suite on the lent GPU machine, through CUDA, through NVIDIA's OpenCL on the same GPU,
# and through PoCL; logs and a summary under $OUT (or ./gpu-out). Run from the repository root
# with .gpu-deps carried (shared/gpu/README.md):
#   bash scripts/gpu-suite.sh            # build, info, every suite, demo, benchmarks
#   bash scripts/gpu-suite.sh --quick    # the same without benchmarks
#   bash scripts/gpu-suite.sh --bench    # build, info and benchmarks only
#   bash scripts/gpu-suite.sh --gpu      # --quick through CUDA and NVIDIA's OpenCL only (no PoCL)
#   bash scripts/gpu-suite.sh --algorithms  # the algorithm tests through CUDA and NVIDIA's OpenCL,
#                                           # the algorithm benchmarks and PyTorch/CuPy's same figures
#   bash scripts/gpu-suite.sh --focus       # build the test binary only, run KJARNI_FOCUS_TESTS (a gtest
#                                           # filter) through CUDA and NVIDIA's OpenCL: a short call
#   bash scripts/gpu-suite.sh --multi-gpu [bench|suite]
#                                           # on a machine with several GPUs: the multi-GPU and the
#                                           # collectives benchmarks first (alone), then the whole
#                                           # suite through CUDA and through NVIDIA's OpenCL side by
#                                           # side, each with every GPU; "bench" or "suite" runs one
#                                           # half, so that each fits one device call
# One device-tool call may run 10 minutes: the full run can exceed that (PoCL compiles the function
# module sweep cold in about 4 minutes there), so use --quick and --bench in two calls.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
# shellcheck disable=SC1091
source .gpu-deps/unpack-on-gpu.sh
# GMP (big template integers): libgmp-dev and libgmpxx4ldbl must be among the carried packages
# (`apt-get download libgmp-dev libgmpxx4ldbl` into .gpu-deps); Debian puts gmp.h in the
# multiarch include folder, which unpack-on-gpu.sh does not add.
export CPATH=/tmp/deps/usr/include/x86_64-linux-gnu${CPATH:+:$CPATH}

build=build-gpu
mode=${1:-}
if [ "$mode" = "--focus" ]; then
  # A short call: only the test binary and the collectives peer, then the tests KJARNI_FOCUS_TESTS
  # names (a GoogleTest filter) through CUDA and NVIDIA's OpenCL, and the peer's checks in one
  # process per rank (two ranks on the one GPU: the fallback engine).
  { cmake --preset gpu -DCMAKE_PREFIX_PATH="$KJARNI_DEPS" &&
    cmake --build --preset gpu -j "$(nproc)" --target kjarni_tests kjarni_collectives_peer kjarni_demo; } \
    >"$out/build.log" 2>&1 ||
    { tail -50 "$out/build.log"; exit 1; }
  for selector in cuda opencl:NVIDIA; do
    log="$out/focus-${selector%%:*}.log"
    KJARNI_TEST="$selector" timeout "${KJARNI_FOCUS_SECONDS:-120}" "$build/tests/kjarni_tests" \
      --gtest_filter="${KJARNI_FOCUS_TESTS:-*}" >"$log" 2>&1
    printf '%-14s rc=%d  %s | %s\n' "$selector" "$?" "$(grep -E '^\[==========\] [0-9]+ tests' "$log" | tail -1)" \
      "$(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$log" | tr '\n' ' ')"
    grep -E '^\[  FAILED  \]' "$log" | head -20
  done
  KJARNI_TEST=cuda timeout 60 bash tests/collectives/processes_test.sh "$build/tests/kjarni_collectives_peer" check 2 50 \
    >"$out/focus-peer.log" 2>&1
  echo "collectives peer, 2 processes on CUDA: rc=$?"
  for selector in cuda opencl:NVIDIA; do
    echo "== demo on $selector"
    timeout 60 "$build/examples/kjarni_demo" "$selector" 2>&1
  done
  exit 0
fi
{
  cmake --preset gpu -DCMAKE_PREFIX_PATH="$KJARNI_DEPS" && cmake --build --preset gpu -j "$(nproc)"
} >"$out/build.log" 2>&1 || { tail -50 "$out/build.log"; exit 1; }

"$build/tools/kjarni" info >"$out/info.txt" 2>&1
"$build/tools/kjarni" info --json >"$out/info.json" 2>&1

summary="$out/summary.txt"
: >"$summary"
run_suite() {  # name, KJARNI_TEST selector
  local log="$out/tests-$1.log"
  KJARNI_TEST="$2" "$build/tests/kjarni_tests" >"$log" 2>&1
  local rc=$?
  printf '%-16s rc=%d  %s | %s\n' "$1" "$rc" "$(grep -E '^\[==========\] [0-9]+ tests' "$log" | tail -1)" \
    "$(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$log" | tr '\n' ' ')" >>"$summary"
}
if [ "$mode" = "--algorithms" ]; then
  filter=${KJARNI_ALGORITHM_TESTS:-'*Expression*:*Elementwise*:*Reduction*:*Scan*:*Blas*:*ArrayOperation*'}
  for selector in cuda opencl:NVIDIA; do
    log="$out/algorithms-${selector%%:*}.log"
    KJARNI_TEST="$selector" "$build/tests/kjarni_tests" --gtest_filter="$filter" >"$log" 2>&1
    printf '%-14s rc=%d  %s\n' "$selector" "$?" "$(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$log" | tr '\n' ' ')" >>"$summary"
    grep -E '^\[  FAILED  \]' "$log" | head -20 >>"$summary"
  done
  # The peers first, then each benchmark bounded in time, so that the call fits the device
  # tool's 10 minutes with the build and both test runs (about 5 minutes together).
  timeout 90 python3 bench/peers/algorithms_peers.py --repetitions 5 >"$out/peers.txt" 2>&1
  for b in "$build"/bench/kjarni_bench_algorithms* "$build"/bench/kjarni_bench_operations "$build"/bench/kjarni_bench_blas; do
    [ -x "$b" ] || continue
    timeout 120 "$b" --benchmark_filter='cuda|NVIDIA' --benchmark_repetitions=3 --benchmark_enable_random_interleaving=true \
      --benchmark_report_aggregates_only=true --benchmark_counters_tabular=true 2>&1 | grep -E 'median|Benchmark|^-'
  done >"$out/bench-algorithms.txt"
  cat "$summary"
  exit 0
fi
if [ "$mode" = "--multi-gpu" ]; then
  part=${2:-all}
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  gpus=$(nvidia-smi -L | wc -l)
  mpi=(mpirun -np "$gpus" --oversubscribe --mca btl self,vader -x KJARNI_MASTER_PORT=29671)
fi
if [ "$mode" = "--multi-gpu" ] && [ "$part" != suite ]; then
  nvidia-smi topo -m >"$out/topology.txt" 2>&1
  timeout 150 "$build/bench/kjarni_bench_multi_gpu" --rounds 7 >"$out/multi-gpu.md" 2>&1
  echo "multi-gpu bench rc=$?" >>"$summary"
  # Collectives at 1 MiB, 64 MiB (NCCL and kjarni's fallback through NVIDIA's OpenCL) and 1 GiB
  # (NCCL), kjarni beside NCCL called directly.
  coll="$build/bench/kjarni_bench_collectives"
  KJARNI_BENCH_COLL_MIN=1M KJARNI_BENCH_COLL_MAX=64M KJARNI_BENCH_COLL_FACTOR=64 timeout 120 "$coll" \
    --benchmark_filter='cuda|NVIDIA' --benchmark_counters_tabular=true >"$out/collectives.txt" 2>&1
  echo "collectives bench (1M, 64M) rc=$?" >>"$summary"
  KJARNI_BENCH_COLL_MIN=1G KJARNI_BENCH_COLL_MAX=1G timeout 90 "$coll" \
    --benchmark_filter='cuda/' --benchmark_counters_tabular=true >>"$out/collectives.txt" 2>&1
  echo "collectives bench (1G) rc=$?" >>"$summary"
  # One process per GPU under mpirun (NCCL's usual deployment): the bench beside NCCL called
  # directly, then the collectives peer's checks and its dead-rank test through CUDA.
  KJARNI_BENCH_DEVICES=cuda KJARNI_BENCH_COLL_MIN=1M KJARNI_BENCH_COLL_MAX=1G KJARNI_BENCH_COLL_FACTOR=4 \
    KJARNI_BENCH_REPS=7 timeout 150 "${mpi[@]}" -x KJARNI_BENCH_DEVICES -x KJARNI_BENCH_COLL_MIN -x KJARNI_BENCH_COLL_MAX \
    -x KJARNI_BENCH_COLL_FACTOR -x KJARNI_BENCH_REPS "$build/bench/kjarni_bench_collectives_ranks" \
    --json="$out/collectives-ranks.json" >"$out/collectives-ranks.txt" 2>&1
  echo "collectives bench, one process per GPU rc=$?" >>"$summary"
  cat "$summary" "$out/multi-gpu.md"
  grep -E "^(all_reduce|all_gather|reduce_scatter|broadcast)/" "$out/collectives.txt"
  cat "$out/collectives-ranks.txt"
  [ "$part" = bench ] && exit 0
fi
if [ "$mode" = "--multi-gpu" ]; then
  for peer_mode in check exit_early; do
    KJARNI_TEST=cuda KJARNI_TEST_TIMEOUT_MS=20000 timeout 120 "${mpi[@]}" -x KJARNI_TEST -x KJARNI_TEST_TIMEOUT_MS \
      "$build/tests/kjarni_collectives_peer" "$peer_mode" >"$out/collectives-peer-$peer_mode.txt" 2>&1
    echo "collectives peer $peer_mode under mpirun (CUDA) rc=$?" >>"$summary"
  done
  # The two suites share the GPUs (each uses a fraction of their memory); the benchmarks are done.
  limit=${KJARNI_SUITE_SECONDS:-300}
  KJARNI_TEST=cuda timeout "$limit" "$build/tests/kjarni_tests" >"$out/tests-cuda.log" 2>&1 &
  KJARNI_TEST=opencl:NVIDIA timeout "$limit" "$build/tests/kjarni_tests" >"$out/tests-nvidia-opencl.log" 2>&1 &
  wait
  for name in cuda nvidia-opencl; do
    log="$out/tests-$name.log"
    printf '%-16s %s | %s\n' "$name" "$(grep -E '^\[==========\] [0-9]+ tests' "$log" | tail -1)" \
      "$(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$log" | tr '\n' ' ')" >>"$summary"
    grep -E '^\[  FAILED  \]' "$log" | head -20 >>"$summary"
  done
  cat "$summary" "$out"/collectives-peer-*.txt
  exit 0
fi
if [ "$mode" != "--bench" ]; then
  run_suite cuda "cuda"
  run_suite nvidia-opencl "opencl:NVIDIA"
  [ "$mode" = "--gpu" ] || POCL_DEVICES="pthread pthread" run_suite pocl "opencl:Portable"
  for suite in template cache; do
    "$build/tests/kjarni_${suite}_tests" >/tmp/tests-cpu.log 2>&1
    echo "$suite rc=$? $(grep -E '^\[  (PASSED|FAILED) ' /tmp/tests-cpu.log | tr '\n' ' ')" >>"$summary"
  done
  { echo "== demo"; "$build/examples/kjarni_demo" 2>&1; } >>"$summary"
fi

if [ "$mode" = "--bench" ] || [ -z "$mode" ]; then
  # The core benchmarks, each bounded in time, as JSON; then one table of every figure with its raw
  # baseline and the ratio (bench/table.py). Interleaved repetitions: kjarni and the raw baseline see
  # the same machine noise.
  for name in launch transfers programs pool; do
    b="$build/bench/kjarni_bench_$name"
    [ -x "$b" ] || continue
    timeout "${KJARNI_BENCH_SECONDS:-100}" "$b" --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true \
      --benchmark_min_time=0.05 --benchmark_out="$out/bench-$name.json" --benchmark_out_format=json \
      --benchmark_display_aggregates_only=true >"$out/bench-$name.txt" 2>&1
    echo "bench $name rc=$?" >>"$summary"
  done
  python3 bench/table.py --csv "$out/bench-table.csv" --markdown "$out/bench-table.md" "$out"/bench-*.json
  cat "$out/bench-table.md"
fi
cat "$summary"
