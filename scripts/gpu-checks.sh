#!/bin/bash
# A short call on the lent GPU machine for what only a GPU shows, most important first, each step
# with its own time limit and its log under $OUT, so that a call cut short still returns the first
# results: builds the test binary, the demo, the operations benchmark and (side by side) the Python
# extension; then the Python suite through CUDA (every GPU of the machine), the tests
# KJARNI_FOCUS_TESTS names through CUDA and NVIDIA's OpenCL, the demo on both, and the
# concatenation benchmark against the device copy.
#   KJARNI_FOCUS_TESTS='*Link*' bash scripts/gpu-checks.sh      (repository root, .gpu-deps carried)
set -u
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
# shellcheck disable=SC1091
source .gpu-deps/unpack-on-gpu.sh
export CPATH=/tmp/deps/usr/include/x86_64-linux-gnu${CPATH:+:$CPATH}
jobs=$(nproc)
{ cmake --preset gpu -DCMAKE_PREFIX_PATH="$KJARNI_DEPS" >/dev/null &&
  cmake --build build-gpu -j "$((jobs / 2))" --target kjarni_tests kjarni_demo kjarni_bench_operations; } \
  >"$out/build.log" 2>&1 &
builder=$!
step() {  # name, seconds, command...: runs it, logs it, prints its last lines
  local name=$1 seconds=$2
  shift 2
  timeout "$seconds" "$@" >"$out/$name.log" 2>&1
  echo "== $name rc=$?"
  tail -"${TAIL:-6}" "$out/$name.log"
}
# The package builds its own library (KJARNI_GPU_PYTHON_FROM_SOURCE): build-gpu is being built beside it.
KJARNI_GPU_PYTHON_SELECTORS=cuda KJARNI_GPU_PYTHON_QUICK=1 KJARNI_GPU_PYTHON_FROM_SOURCE=1 TAIL=4 step python 170 \
  bash scripts/gpu-python.sh
wait "$builder" || { echo "build failed"; tail -30 "$out/build.log"; exit 1; }
focus() {  # selector
  KJARNI_TEST=$1 TAIL=3 step "focus-${1%%:*}" 60 build-gpu/tests/kjarni_tests --gtest_filter="${KJARNI_FOCUS_TESTS:-*}"
  grep -E '^\[  FAILED  \]' "$out/focus-${1%%:*}.log" | head -10
}
focus cuda
TAIL=12 step demo-cuda 30 build-gpu/examples/kjarni_demo cuda
TAIL=8 step concatenate 60 build-gpu/bench/kjarni_bench_operations \
  --benchmark_filter='^(concatenate_axis0|device_copy)/.*cuda' --benchmark_repetitions=5 \
  --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true
focus opencl:NVIDIA
TAIL=12 step demo-opencl 30 build-gpu/examples/kjarni_demo opencl:NVIDIA
