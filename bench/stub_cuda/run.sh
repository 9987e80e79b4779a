#!/bin/bash
# Runs a command against the stub libcuda.so.1 that build.sh made in <stub-dir>: that directory
# first on LD_LIBRARY_PATH, OpenCL hidden (an empty OCL_ICD_VENDORS directory, so that only the
# stub's device is set up), and the stub's count of launches printed at exit
# (KJARNI_STUB_CUDA_LAUNCHES=1: "stub libcuda: N launches").
#   bench/stub_cuda/run.sh <stub-dir> command [args...]
set -euo pipefail
stub=$(cd "$1" && pwd)
shift
mkdir -p "$stub/no-icd"
KJARNI_STUB_CUDA_LAUNCHES=1 LD_LIBRARY_PATH="$stub${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
  OCL_ICD_VENDORS="$stub/no-icd" exec "$@"
