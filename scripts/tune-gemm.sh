#!/bin/bash
# Tunes GEMM for the OpenCL device at hand and prints it beside cuBLAS (one command; see
# bench/gemm_tune.cpp's header for what the tuner does, docs/blas.md for the design):
#   - builds kjarni_gemm_tune (in BUILD, default build-gpu with the gpu preset, else build-ci);
#   - runs a bounded search (BUDGET seconds, default 360) of kjarni's GEMM tiles and CLBlast's Xgemm
#     parameters per precision, times SGEMM and DGEMM at 8192^3 and 4096^3 and batches of 512^3
#     against cuBLAS (through CUDA, on the GPU of the same name) and CLBlast untuned, as ratios of
#     medians of interleaved rounds;
#   - caches the result per device name and driver version in kjarni's cache directory (every later
#     kjarni process on this machine uses it), and writes it to $OUT (or gemm-out/) as
#     <device>.json, to be shipped in data/clblast/ (compiled in; then it applies to every machine
#     with a device of that name).
#
#   bash scripts/tune-gemm.sh [--build-only] [kjarni_gemm_tune options: --platform NVIDIA --budget 360 ...]
#
# On the lent GPU machine, from the repository root with .gpu-deps carried, as two calls (each
# stays under the machine's 10 minutes a command):
#   bash scripts/tune-gemm.sh --build-only             # a few minutes on 16 cores
#   bash scripts/tune-gemm.sh --platform NVIDIA        # BUDGET (360) s of search + ~2 min of tables
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/kjarni-gemm-out}
mkdir -p "$out"
if [ -f .gpu-deps/unpack-on-gpu.sh ] && { command -v nvidia-smi >/dev/null || [ -e /dev/nvidiactl ]; }; then
  # shellcheck disable=SC1091
  source .gpu-deps/unpack-on-gpu.sh
  export CPATH=/tmp/deps/usr/include/x86_64-linux-gnu${CPATH:+:$CPATH}
  build=${BUILD:-build-gpu}
  [ -f "$build/CMakeCache.txt" ] || cmake --preset gpu -DCMAKE_PREFIX_PATH="$KJARNI_DEPS" >"$out/configure.log" 2>&1 \
    || { tail -30 "$out/configure.log"; exit 1; }
else
  build=${BUILD:-build-ci}
  [ -f "$build/CMakeCache.txt" ] || cmake --preset ci >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
fi
cmake --build "$build" -j "$(nproc)" --target kjarni_gemm_tune >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
if [ "${1:-}" = --build-only ]; then echo "built $build/bench/kjarni_gemm_tune"; exit 0; fi
budget_given=0
for a in "$@"; do [ "$a" = --budget ] && budget_given=1; done
extra=()
[ $budget_given = 1 ] || extra=(--budget "${BUDGET:-360}")
# The file to ship: named after the device once the tuner has said which it is.
"$build/bench/kjarni_gemm_tune" "${extra[@]}" --out "$out/tuned.json" "$@" 2>&1 | tee "$out/tune.log"
if [ -f "$out/tuned.json" ]; then
  name=$(sed -n 's/^  "device": "\(.*\)",$/\1/p' "$out/tuned.json" | tr 'A-Z ' 'a-z-' | tr -cd 'a-z0-9.-')
  mv "$out/tuned.json" "$out/$name.json"
  echo "to ship: cp $out/$name.json data/clblast/ (then rebuild)"
fi
