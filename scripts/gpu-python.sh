#!/bin/bash
# The Python package on the lent GPU machine, which has no PyPI: the extension is built by CMake
# (python/CMakeLists.txt) against the machine's Python (numpy, CuPy, PyTorch, nanobind there), and
# pytest, Mako and grunnur come as wheels carried in .gpu-deps/wheels, fetched here by
#   pip download --only-binary=:all: --python-version 3.12 --platform manylinux2014_x86_64 \
#     --platform any -d .gpu-deps/wheels pytest Mako grunnur   (then remove the numpy wheel)
# Then: the pytest suite through CUDA and NVIDIA's OpenCL, the DLPack round trip with CuPy and
# PyTorch, and the Python-side launch benchmark against CuPy's RawKernel. Logs under $OUT.
# KJARNI_GPU_PYTHON_SELECTORS (default "cuda opencl:NVIDIA") names the backends of the pytest runs;
# KJARNI_GPU_PYTHON_QUICK=1 stops after them.
#   bash scripts/gpu-python.sh      (run from the repository root, .gpu-deps carried)
set -u
cd "$(dirname "$0")/.."
repo=$PWD
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
# shellcheck disable=SC1091
source .gpu-deps/unpack-on-gpu.sh
export CPATH=/tmp/deps/usr/include/x86_64-linux-gnu${CPATH:+:$CPATH}  # gmp.h (Debian multiarch)
# The carried libgmp-dev's libgmp.so points at a libgmp.so.10 that is not carried, so CMake would
# take the non-PIC libgmp.a, which a shared module cannot link: name the machine's own.
gmp_so=$(ls /usr/lib/x86_64-linux-gnu/libgmp.so.10* 2>/dev/null | head -1)
gmp_option=()
[ -n "$gmp_so" ] && gmp_option=(-DKJARNI_GMP_LIBRARY="$gmp_so")
echo "gpu-python: GMP ${gmp_so:-not found on the machine: the carried static library}"
python=$(command -v python3)
"$python" -m pip install --no-index --no-deps --quiet --upgrade --target /tmp/wheels .gpu-deps/wheels/*.whl || exit 1
{ cmake -S python -B build-gpu-python -DCMAKE_PREFIX_PATH="$KJARNI_DEPS" -DPython_EXECUTABLE="$python" \
    -DCMAKE_BUILD_TYPE=Release "${gmp_option[@]}" -Dnanobind_DIR="$("$python" -m nanobind --cmake_dir)" &&
  cmake --build build-gpu-python -j "$(nproc)"; } >"$out/python-build.log" 2>&1 ||
  { tail -30 "$out/python-build.log"; exit 1; }
mkdir -p /tmp/kjarni-package && cp -r python/kjarni /tmp/kjarni-package/ &&
  cp build-gpu-python/_kjarni*.so /tmp/kjarni-package/kjarni/ || exit 1
export PYTHONPATH=/tmp/kjarni-package:/tmp/wheels
cd /tmp
for selector in ${KJARNI_GPU_PYTHON_SELECTORS:-cuda opencl:NVIDIA}; do
  log="$out/pytest-${selector%%:*}.log"
  KJARNI_TEST=$selector timeout 240 "$python" -m pytest -q "$repo/python/tests" -p no:cacheprovider >"$log" 2>&1
  echo "pytest $selector rc=$? $(tail -1 "$log")"
  grep -E "^(FAILED|ERROR)" "$log" | head -10
done
[ "${KJARNI_GPU_PYTHON_QUICK:-0}" = 1 ] && exit 0  # the pytest runs only
echo "== DLPack round trip"
timeout 120 "$python" "$repo/bench/python/dlpack_round_trip.py" 2>&1 | tail -15
echo "== launch overhead"
timeout 120 "$python" "$repo/bench/python/launch_bench.py" --api cuda 2>&1 | tail -10
timeout 60 "$python" "$repo/bench/python/launch_bench.py" --api opencl 2>&1 | tail -6
