#!/bin/bash
# compute-sanitizer over the suite through CUDA on the lent GPU machine (issue 16, item 7): memcheck
# with leak checking, then racecheck, initcheck and synccheck. Logs and a summary (each tool's
# "ERROR SUMMARY" line and test counts) under $OUT (or ./gpu-out). Run from the repository root with
# .gpu-deps carried, after scripts/gpu-suite.sh has built build-gpu (or it builds it):
#   bash scripts/gpu-sanitizer.sh [gtest filter for racecheck/initcheck/synccheck]
# memcheck runs the whole suite; the three slower tools run a sample (default: every suite but the
# longest sweeps), since one device call may run 10 minutes.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
# shellcheck disable=SC1091
source .gpu-deps/unpack-on-gpu.sh
# gmp.h lives in Debian's multiarch include folder, which unpack-on-gpu.sh does not add.
export CPATH=/tmp/deps/usr/include/x86_64-linux-gnu${CPATH:+:$CPATH}
build=build-gpu
if [ ! -x "$build/tests/kjarni_tests" ]; then
  { cmake --preset gpu -DCMAKE_PREFIX_PATH="$KJARNI_DEPS" && cmake --build --preset gpu -j "$(nproc)" --target kjarni_tests; } \
    >"$out/build.log" 2>&1 || { tail -50 "$out/build.log"; exit 1; }
fi
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
sample=${1:-'-*Functions*:*ReductionsEvery*:*CumsumEvery*:*Soak*'}
summary="$out/sanitizer-summary.txt"
: >"$summary"
run_tool() {  # tool, gtest filter, extra options...
  local tool=$1 filter=$2
  shift 2
  local log="$out/sanitizer-$tool.log"
  KJARNI_TEST=cuda KJARNI_TEST_NVRTC=0 timeout "${KJARNI_SANITIZER_SECONDS:-300}" "$sanitizer" --tool "$tool" "$@" --print-limit 200 \
    "$build/tests/kjarni_tests" --gtest_filter="$filter" >"$log" 2>&1
  printf '%-10s rc=%d  %s | %s | %s\n' "$tool" "$?" "$(grep -E 'ERROR SUMMARY' "$log" | tail -1)" \
    "$(grep -E '^\[==========\] [0-9]+ tests' "$log" | tail -1)" \
    "$(grep -cE 'Program hit|Leaked [0-9]+ bytes' "$log") API-error/leak reports" >>"$summary"
}
# KJARNI_SANITIZER_TOOLS picks tools (default all four); KJARNI_MEMCHECK_FILTER the memcheck run's
# filter (default the whole suite); KJARNI_SANITIZER_SECONDS bounds each tool's run (a killed run has
# no leak report: pick filters that finish).
for tool in ${KJARNI_SANITIZER_TOOLS:-memcheck racecheck initcheck synccheck}; do
  if [ "$tool" = memcheck ]; then
    run_tool memcheck "${KJARNI_MEMCHECK_FILTER:-*}" --leak-check full
  else
    run_tool "$tool" "$sample"
  fi
done
cat "$summary"
