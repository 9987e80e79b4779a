#!/bin/bash
# Counts the host instructions kjarni spends on one call of a kjarni_bench_expression_overhead case
# (expression_assign, sum, cumsum, elementwise_kernel, raw_program_launch) whose kernel is compiled
# already, on a machine without a GPU: the benchmark runs against the stub libcuda.so.1 of
# bench/stub_cuda/ (a pretend device whose launches do nothing), under callgrind, collecting only
# inside the case's kjarni function. It runs twice, for two lengths, and prints the difference's
# instructions per call, so that what happens once (the first call's kernel look-up and rendering)
# drops out. Calls are counted by the stub's launches (each of these cases launches one kernel a
# call on the stub's device). The stub's driver calls cost a handful of instructions: the figure is
# kjarni's work. 2026-12-01, g++ 12, the ci preset: expression_assign 9986, elementwise_kernel 10116
# (function 'kjarni::ElementwiseKernel::operator*'), sum 16071, cumsum 20415.
#
#   scripts/count-call-instructions.sh [build-dir] [case] [function]
#     build-dir: where kjarni_bench_expression_overhead was built (default build-ci)
#     case: the benchmark's name before its first slash (default expression_assign)
#     function: callgrind's --toggle-collect pattern of the call (default 'kjarni::assign*';
#               for sum 'kjarni::sum*', for cumsum 'kjarni::cumsum*')
#
# Needs valgrind and NVRTC (the stub loads the kernels NVRTC compiles; the first run compiles them
# into kjarni's cache).
set -euo pipefail
cd "$(dirname "$0")/.."

build=${1:-build-ci}
case_name=${2:-expression_assign}
function=${3:-'kjarni::assign*'}
bench=$build/bench/kjarni_bench_expression_overhead
[ -x "$bench" ] || { echo "no $bench: cmake --build $build --target kjarni_bench_expression_overhead" >&2; exit 2; }
out=$build/call-counts
mkdir -p "$out"
stub_dir=$build/stub-cuda
bench/stub_cuda/build.sh "$stub_dir" >/dev/null

# One callgrind run: prints "<calls> <instructions>", calls counted by the stub's launches.
run() {
  local min_time=$1 file="$out/$case_name-$1.callgrind" log
  log=$(bench/stub_cuda/run.sh "$stub_dir" \
    valgrind --tool=callgrind --callgrind-out-file="$file" --collect-atstart=no --toggle-collect="$function" \
    "$bench" --benchmark_filter="^$case_name/cuda/" --benchmark_min_time="$min_time" 2>&1) || { echo "$log" >&2; return 1; }
  local calls instructions
  calls=$(sed -n 's/^stub libcuda: \([0-9]*\) launches$/\1/p' <<<"$log")
  instructions=$(sed -n 's/^totals: \([0-9]*\)$/\1/p' "$file")
  [ -n "$calls" ] && [ "$calls" -gt 0 ] || { echo "$log" >&2; echo "no launches counted" >&2; return 1; }
  echo "$calls $instructions"
}

# First a plain run, so that both counted runs find the kernels in kjarni's disk cache (a first
# compilation in one of them would not drop out of the difference).
bench/stub_cuda/run.sh "$stub_dir" "$bench" --benchmark_filter="^$case_name/cuda/" --benchmark_min_time=0.01 >/dev/null 2>&1
read -r calls_short instructions_short < <(run 0.05)
read -r calls_long instructions_long < <(run 0.5)
[ "$calls_long" -gt "$calls_short" ] || { echo "the longer run made no more calls" >&2; exit 1; }
echo "$case_name: $(((instructions_long - instructions_short) / (calls_long - calls_short))) instructions a call" \
  "($calls_short and $calls_long calls)"
