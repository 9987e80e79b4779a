#!/bin/bash
# DGEMM through NVIDIA's OpenCL on the lent GPU machine (H200), issue 41: builds kjarni_tests and
# kjarni_gemm_tune, runs the GEMM tests through NVIDIA's OpenCL (the tensor-core form with the
# native DMMA among them; the NVRTC check of its sm_90 source too; the tensor-core test through CUDA
# as well), then the tuner for float64 only
# (BUDGET seconds of search, 200 by default, KJARNI_SHARE = 0.75 of it for kjarni's tiles: the
# tensor-core ones first, then the SIMT ones; the rest for CLBlast's) with its tables beside
# cuBLAS. Logs and the tuned file under $OUT (or ./gpu-out). One call of the machine: the tuner
# is stopped at 570 s from the start (build ~1-2 min, tests ~1, tuner ~5), and its log is written
# as it goes. From the repository root with .gpu-deps carried:
#   bash scripts/gemm-gpu.sh [--no-tests] [--no-tune]
# KJARNI_GEMM_TESTS overrides the tests' filter (default '*Gemm*').
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
# shellcheck disable=SC1091
source .gpu-deps/unpack-on-gpu.sh
export CPATH=/tmp/deps/usr/include/x86_64-linux-gnu${CPATH:+:$CPATH}
tests=1 tune=1
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
  KJARNI_TEST=opencl:NVIDIA timeout "${KJARNI_GEMM_TEST_SECONDS:-200}" build-gpu/tests/kjarni_tests \
    --gtest_filter="${KJARNI_GEMM_TESTS:-*Gemm*}" >"$log" 2>&1
  printf 'tests opencl:NVIDIA rc=%d in %d s  %s\n' "$?" "$((SECONDS - start))" \
    "$(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$log" | tr '\n' ' ')"
  grep -E 'tensor-core form|^\[  FAILED  \]' "$log" | sort | uniq -c | head -20
  grep -B2 -A12 -m3 'Failure' "$log" | head -60
  # The same kernel through CUDA (NVRTC, the same inline PTX): tells an OpenCL-only fault apart.
  log="$out/tests-cuda.log"
  KJARNI_TEST=cuda timeout 120 build-gpu/tests/kjarni_tests --gtest_filter='*TensorForm*:*GemmTensor*' >"$log" 2>&1
  printf 'tests cuda (tensor form) rc=%d  %s\n' "$?" "$(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$log" | tr '\n' ' ')"
  grep -B2 -A12 -m2 'Failure' "$log" | head -30
fi
if [ $tune = 1 ]; then
  # The tuned file goes to kjarni's cache directory (read by the tuned table) and to $out.
  timeout "$((SECONDS < 450 ? 570 - SECONDS : 120))" build-gpu/bench/kjarni_gemm_tune --platform NVIDIA --precisions 64 \
    --budget "${BUDGET:-200}" --kjarni-share "${KJARNI_SHARE:-0.75}" --rounds "${ROUNDS:-5}" \
    --out "$out/tuned.json" >"$out/tune.log" 2>&1
  echo "tune rc=$?"
  cat "$out/tune.log"
fi
