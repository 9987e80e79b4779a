#!/bin/bash
# DGEMM through NVIDIA's OpenCL on the lent GPU machine (H200), issue 41: builds kjarni_tests and
# kjarni_gemm_tune, runs the GEMM tests through NVIDIA's OpenCL (the tensor-core form with the
# native DMMA among them; the NVRTC check of its sm_90 source too; the tensor-core test through CUDA
# as well), then the tuner for float64 only
# with its tables beside cuBLAS. Logs and the tuned file under $OUT (or ./gpu-out). The whole
# script keeps within TOTAL seconds (280 by default; build ~2 min, tests ~45 s): the tuner is
# stopped at TOTAL s from the start, its log written as it goes, and its search budget is what is
# left after the build and tests less 45 s for its tables (at most BUDGET, 90 by default).
# FOCUS=1 (default): the search covers only the tensor-core tiles near the first run's best
# (kjarni_gemm_tune --focus: the pipelined tiles (PIPELINE) first, then MMAK, SWIZZLE, ASYNC and
# slices of 8-32 on the promising shapes)
# with KJARNI_SHARE = 1 (no CLBlast search: its column shows CLBlast's built-in parameters, and
# the written file has no Xgemm entry: ship only its kjarni_gemm entry); the 6 fastest are timed
# again (FINALISTS, interleaved, at 4096^3 and 256 x 512^3) and the best mean kept.
# FOCUS=0: the whole space, KJARNI_SHARE (0.75) of the budget for kjarni's tiles, the rest CLBlast's.
# From the repository root with .gpu-deps carried:
#   bash scripts/gemm-gpu.sh [--no-tests] [--no-tune]
# KJARNI_GEMM_TESTS overrides the OpenCL tests' filter (default: the kernel's, the NVRTC, tuning
# and batched tests; '*Gemm*' adds BlasTest.GemmEveryDtypeOperationAndLayout, ~8 s).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
# shellcheck disable=SC1091
source .gpu-deps/unpack-on-gpu.sh
export CPATH=/tmp/deps/usr/include/x86_64-linux-gnu${CPATH:+:$CPATH}
tests=1 tune=1
total=${TOTAL:-280}
for a in "$@"; do
  case $a in
    --no-tests) tests=0 ;;
    --no-tune) tune=0 ;;
    *) echo "gemm-gpu.sh: unknown option $a" >&2; exit 2 ;;
  esac
done
start=$SECONDS
{ cmake --preset gpu -DCMAKE_PREFIX_PATH="$KJARNI_DEPS" &&
  cmake --build --preset gpu -j "$(nproc)" --target kjarni_tests kjarni_gemm_tune; } >"$out/build.log" 2>&1 ||
  { tail -40 "$out/build.log"; exit 1; }
echo "build: $((SECONDS - start)) s"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null
if [ $tests = 1 ]; then
  start=$SECONDS
  log="$out/tests-opencl.log"
  KJARNI_TEST=opencl:NVIDIA timeout "${KJARNI_GEMM_TEST_SECONDS:-100}" build-gpu/tests/kjarni_tests \
    --gtest_filter="${KJARNI_GEMM_TESTS:-*GemmKernel*:*GemmTensor*:*GemmTuning*:*GemmBatched*}" >"$log" 2>&1
  printf 'tests opencl:NVIDIA rc=%d in %d s  %s\n' "$?" "$((SECONDS - start))" \
    "$(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$log" | tr '\n' ' ')"
  grep -E 'tensor-core form|^\[  FAILED  \]' "$log" | sort | uniq -c | head -20
  grep -B2 -A12 -m3 'Failure' "$log" | head -60
  # The same kernel through CUDA (NVRTC, the same inline PTX): tells an OpenCL-only fault apart.
  log="$out/tests-cuda.log"
  KJARNI_TEST=cuda timeout 60 build-gpu/tests/kjarni_tests --gtest_filter='*TensorForm*' >"$log" 2>&1
  printf 'tests cuda (tensor form) rc=%d  %s\n' "$?" "$(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$log" | tr '\n' ' ')"
  grep -B2 -A12 -m2 'Failure' "$log" | head -30
fi
if [ $tune = 1 ]; then
  # The tuned file goes to kjarni's cache directory (read by the tuned table) and to $out.
  left=$((total - SECONDS))
  budget=$((left - 45))
  [ "$budget" -gt "${BUDGET:-90}" ] && budget=${BUDGET:-90}
  [ "$budget" -lt 20 ] && budget=20
  focus=()
  share=${KJARNI_SHARE:-0.75}
  if [ "${FOCUS:-1}" = 1 ]; then
    focus=(--focus)
    share=${KJARNI_SHARE:-1}
  fi
  echo "tune: $left s left, search budget $budget s"
  timeout "$((left > 20 ? left : 20))" build-gpu/bench/kjarni_gemm_tune --platform NVIDIA --precisions 64 \
    --budget "$budget" --kjarni-share "$share" --rounds "${ROUNDS:-5}" --finalists "${FINALISTS:-6}" \
    "${focus[@]}" --out "$out/tuned.json" >"$out/tune.log" 2>&1
  echo "tune rc=$? at $SECONDS s"
  # The search's successive bests are many lines: the tables, the finalists and the verdicts.
  grep -v '^  kjarni ' "$out/tune.log" | grep -v '^CLBlast: Run-time error'
  grep '^  kjarni ' "$out/tune.log" | tail -8
fi
