#!/bin/bash
# Counts the host instructions of one CUDA kernel launch, kjarni's and the raw driver call's, on a
# machine without a GPU: kjarni_bench_launch runs against the stub libcuda.so.1 of bench/stub_cuda/
# (one pretend sm_90 device whose cuLaunchKernel does nothing but count), under callgrind.
#
# What it measures: for each case of bench/launch_bench.cpp (0, 5 and 8 arguments, 8 changing every
# launch, 5 and 8 bound, 5 with an event), the instructions executed inside the benchmark's loop
# function (kjarni_alone, or raw_launch for the raw cuLaunchKernel through dlopen'ed libcuda, plus
# cuEventRecord for the event case), divided by the launches the stub counted. Both include the
# benchmark's loop and the stub's own cuLaunchKernel (a handful of instructions): the difference
# kjarni - raw is what kjarni adds to a launch. Instructions, not time: a real driver's launch costs
# ~3.4 us on an H200's host, and kjarni's share there also depends on caches this does not model.
# The counts are stable to a few instructions from run to run (the sync every 256 launches and the
# set-up of each timing round are spread over tens of thousands of launches).
#
#   scripts/count-launch-instructions.sh [build-dir] [case-regex]
#     build-dir: where kjarni_bench_launch was built (default build-ci; it needs bench/ built with
#                KJARNI_BENCH_RAW_CUDA, i.e. cuda.h found at configure time)
#     case-regex: which cases (default: all), e.g. '^launch_5_args$'
#   KJARNI_COUNT_ANNOTATE=1: also writes callgrind_annotate's inclusive per-function counts of
#     each run next to the raw callgrind files (<build-dir>/launch-counts/).
#
# Needs valgrind. The runs go through bench/stub_cuda/run.sh, which hides OpenCL so that only the
# stub's device is set up.
set -euo pipefail
cd "$(dirname "$0")/.."

build=${1:-build-ci}
only=${2:-.}
bench=$build/bench/kjarni_bench_launch
[ -x "$bench" ] || { echo "no $bench: cmake --build $build --target kjarni_bench_launch" >&2; exit 2; }
out=$build/launch-counts
mkdir -p "$out"
stub_dir=$build/stub-cuda
bench/stub_cuda/build.sh "$stub_dir" >/dev/null

# One callgrind run of one benchmark: prints instructions per launch (Ir in the loop / launches).
count() {
  local name=$1 filter=$2 loop=$3
  local file="$out/$name.callgrind"
  local log
  log=$(bench/stub_cuda/run.sh "$stub_dir" \
    valgrind --tool=callgrind --callgrind-out-file="$file" --collect-atstart=no --toggle-collect="$loop" \
    "$bench" --benchmark_filter="$filter" --benchmark_min_time=0.2 2>&1) || { echo "$log" >&2; return 1; }
  if grep -q "not implemented" <<<"$log"; then grep "not implemented" <<<"$log" >&2; fi
  local launches instructions
  launches=$(sed -n 's/^stub libcuda: \([0-9]*\) launches$/\1/p' <<<"$log")
  instructions=$(sed -n 's/^totals: \([0-9]*\)$/\1/p' "$file")
  [ -n "$launches" ] && [ "$launches" -gt 0 ] || { echo "$log" >&2; echo "no launches counted for $name" >&2; return 1; }
  if [ "${KJARNI_COUNT_ANNOTATE:-0}" = 1 ]; then
    callgrind_annotate --inclusive=yes "$file" >"$file.txt"
  fi
  echo $(((instructions + launches / 2) / launches))
}

printf '%-24s %8s %8s %8s\n' case kjarni raw added
for case in launch_0_args launch_5_args launch_8_args launch_8_args_changing launch_5_args_bound \
  launch_8_args_bound launch_5_args_event; do
  [[ $case =~ $only ]] || continue
  if [ "$case" = launch_5_args_event ]; then kjarni_tag=kjarni_call raw_tag=raw_launch_and_event
  else kjarni_tag=kjarni_enqueue raw_tag=raw; fi
  kjarni=$(count "$case.kjarni" "^$case/$kjarni_tag/cuda/" '*kjarni_alone*')
  raw=$(count "$case.raw" "^$case/$raw_tag/cuda/" '*raw_launch<*RawCudaLaunch>*')
  printf '%-24s %8d %8d %8d\n' "$case" "$kjarni" "$raw" $((kjarni - raw))
done
