#!/bin/bash
# Builds the stub libcuda.so.1 (stub_libcuda.cpp: what it is for and what it answers) into the
# directory given (default: build-stub-cuda/ at the repository's root); put that directory on
# LD_LIBRARY_PATH to run kjarni's CUDA backend against it (run.sh does that, with OpenCL hidden). Not
# part of the default build.
#   bench/stub_cuda/build.sh [output-dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/build-stub-cuda}
cuda=${CUDA_HOME:-/usr/local/cuda}
mkdir -p "$out"
${CXX:-g++} -std=c++20 -O2 -g -fPIC -shared -Wall -Wextra -Werror -Wl,-soname,libcuda.so.1 \
  -isystem "$cuda/include" -I "$root/src" \
  -o "$out/libcuda.so.1" "$root/bench/stub_cuda/stub_libcuda.cpp"
echo "$out/libcuda.so.1"
