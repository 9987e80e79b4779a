#!/bin/bash
# The Python package on the lent GPU machine (issue 39), in one call of about 3 minutes on an H200
# when build-gpu holds the library (about 1 for the package's build, 1 for the tests, 1 for the
# benchmarks; a rehearsal on PoCL, 2 shared cores: 434 s to build, 48 s of tests, 60 s of benchmarks).
#  1. pip installs the package, as a user does, into a venv over the machine's Python
#     (/opt/torch/.venv: numpy, pytest, pytest-xdist, CuPy, PyTorch, nanobind, scikit-build-core,
#     cmake, ninja, seen through a .pth file, so nothing is downloaded): no index, no build
#     isolation, the extension linked against build-gpu's libkjarni.a (KJARNI_PYTHON_PREBUILT; the
#     library target is brought up to date first). The wheels of .gpu-deps/wheels (scripts/fetch-
#     python-wheels.sh: grunnur, Mako, pyopencl and what they need) go into the venv first.
#     KJARNI_GPU_PYTHON_FROM_SOURCE=1 builds the library from source in the module's own build
#     folder instead (when another build of build-gpu runs at the same time: gpu-checks.sh).
#  2. the pytest suite, from a folder outside the checkout, through CUDA and through NVIDIA's
#     OpenCL at the same time (two processes), then per backend passed / failed /
#     skipped and every skip's reason (docs/python.md says why each remaining skip is right).
#  3. the benchmarks: kjarni_bench_python_counterpart (the C++ side of the array calls) and
#     kjarni_bench_launch (C++ launches against the raw driver call), then
#     bench/python/cupy_compare.py beside CuPy (launches with 0/5/8 arguments; y = a*x + b and
#     x.sum() on 2^28 float32; ratios against CuPy and against the C++ figures), and
#     bench/python/launch_bench.py through NVIDIA's OpenCL. Medians of interleaved repetitions.
# Logs under $OUT (or ./gpu-out); the summary on stdout. Run from the repository root, with
# .gpu-deps carried:
#   bash scripts/gpu-python.sh
# KJARNI_GPU_PYTHON_SELECTORS (default "cuda opencl:NVIDIA") names the backends of the pytest runs;
# KJARNI_GPU_PYTHON_QUICK=1 stops after them. KJARNI_GPU_PYTHON (default /opt/torch/.venv/bin/python3,
# else python3) is the Python; KJARNI_GPU_PYTHON_DEPS=0 skips unpacking .gpu-deps (a machine that
# has the build's packages installed); KJARNI_GPU_PYTHON_BUILD (default build-gpu) is the C++ build
# folder (configured with the gpu preset when it has no CMakeCache.txt). A rehearsal on PoCL:
#   KJARNI_GPU_PYTHON_DEPS=0 KJARNI_GPU_PYTHON_BUILD=build-ci KJARNI_GPU_PYTHON=venv/bin/python \
#     KJARNI_GPU_PYTHON_SELECTORS=opencl KJARNI_GPU_PYTHON_BENCH_API=opencl KJARNI_GPU_PYTHON_LOG2N=16 \
#     bash scripts/gpu-python.sh
set -u
cd "$(dirname "$0")/.." || exit 1
repo=$PWD
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
start=$SECONDS
stamp() { echo "[$((SECONDS - start)) s] $*"; }

if [ "${KJARNI_GPU_PYTHON_DEPS:-1}" = 1 ]; then
  # shellcheck disable=SC1091
  source .gpu-deps/unpack-on-gpu.sh
  export CPATH=/tmp/deps/usr/include/x86_64-linux-gnu${CPATH:+:$CPATH}  # gmp.h (Debian multiarch)
fi
python=${KJARNI_GPU_PYTHON:-/opt/torch/.venv/bin/python3}
[ -x "$python" ] || python=$(command -v python3)
jobs=$(nproc)
export CMAKE_BUILD_PARALLEL_LEVEL=$jobs
defines=()
[ -n "${KJARNI_DEPS:-}" ] && defines+=(-DCMAKE_PREFIX_PATH="$KJARNI_DEPS")
# The carried libgmp-dev's libgmp.so may point at a libgmp.so.10 that is not there, and CMake would
# then take the non-PIC libgmp.a, which a shared module cannot link: name the machine's own.
gmp_so=$(find /usr/lib/x86_64-linux-gnu -maxdepth 1 -name 'libgmp.so.10*' 2>/dev/null | sort | head -1)
[ -n "$gmp_so" ] && defines+=(-DKJARNI_GMP_LIBRARY="$gmp_so")

# ---- 1. the library, the C++ benchmarks, the package ----
build=${KJARNI_GPU_PYTHON_BUILD:-build-gpu}  # the C++ build whose library the module links
prebuilt=$repo/$build/src/libkjarni.a
bench_targets=(kjarni_bench_python_counterpart kjarni_bench_launch)
[ "${KJARNI_GPU_PYTHON_QUICK:-0}" = 1 ] && bench_targets=()
if [ "${KJARNI_GPU_PYTHON_FROM_SOURCE:-0}" = 1 ]; then
  prebuilt=""
else
  # The library first (the module links it; up to date, this is a few seconds' check), the
  # benchmarks beside the module.
  { { [ -f "$build/CMakeCache.txt" ] || cmake --preset gpu "${defines[@]}"; } &&
    cmake --build "$build" -j "$jobs" --target kjarni; } >"$out/library-build.log" 2>&1 ||
    { stamp "library build failed"; tail -30 "$out/library-build.log"; exit 1; }
  if [ ${#bench_targets[@]} -gt 0 ]; then
    cmake --build "$build" -j "$((jobs / 2))" --target "${bench_targets[@]}" >"$out/bench-build.log" 2>&1 &
    bench_builder=$!
  fi
fi
stamp "library ready: ${prebuilt:-built from source with the module}"

# A venv of its own, seeing the machine's packages through a .pth file: /opt/torch/.venv is itself a
# venv, whose packages `venv --system-site-packages` would not show (it shows the base
# interpreter's). pip is the machine's, pointed at the new venv (--python).
venv=/tmp/kjarni-venv
rm -rf "$venv"
"$python" -m venv --without-pip "$venv" || exit 1
"$python" -c "import site; print('\n'.join(site.getsitepackages()))" >"$("$venv/bin/python" -c "import site; print(site.getsitepackages()[0])")/machine-packages.pth"
pip=("$python" -m pip --python "$venv/bin/python")
if compgen -G ".gpu-deps/wheels/*.whl" >/dev/null; then
  "${pip[@]}" install --quiet --no-index --no-deps --no-compile .gpu-deps/wheels/*.whl >"$out/wheels.log" 2>&1 ||
    { stamp "carried wheels refused"; tail -20 "$out/wheels.log"; }
else
  stamp "no .gpu-deps/wheels (scripts/fetch-python-wheels.sh): grunnur's tests will skip"
fi
settings=(--config-settings=build-dir="$repo/build-gpu-python/{wheel_tag}")
for define in "${defines[@]}"; do settings+=(--config-settings=cmake.define."${define#-D}"); done
[ -n "$prebuilt" ] && settings+=(--config-settings=cmake.define.KJARNI_PYTHON_PREBUILT="$prebuilt")
build_start=$SECONDS
if ! "${pip[@]}" install --no-index --no-deps --no-build-isolation "${settings[@]}" "$repo" >"$out/python-build.log" 2>&1; then
  # (An old scikit-build-core, or a libkjarni.a the linker refuses in a shared module, say.) The
  # module by CMake itself, with the library from source as the previous version of this script
  # built it there (a few minutes more), copied into the venv: the tests of the installed metadata
  # (the version, the pytest entry point) will fail, the rest runs.
  stamp "pip install failed (its log's end below); the module and its library built by CMake instead"
  tail -15 "$out/python-build.log"
  site=$("$venv/bin/python" -c "import site; print(site.getsitepackages()[0])")
  { cmake -S python -B build-gpu-python/cmake -DPython_EXECUTABLE="$venv/bin/python" -DCMAKE_BUILD_TYPE=Release \
      "${defines[@]}" &&
    cmake --build build-gpu-python/cmake -j "$jobs" && cp -r python/kjarni "$site/" &&
    cp build-gpu-python/cmake/_kjarni*.so "$site/kjarni/"; } >>"$out/python-build.log" 2>&1 ||
    { stamp "the CMake build failed too"; tail -30 "$out/python-build.log"; exit 1; }
fi
extension=$("$venv/bin/python" -c "import glob, os, kjarni; print(os.path.getsize(glob.glob(os.path.dirname(kjarni.__file__) + '/_kjarni*.so')[0]) // 1024)")
stamp "pip install . in $((SECONDS - build_start)) s; extension $extension KiB; $("$venv/bin/python" -c 'import kjarni; print("kjarni", kjarni.__version__, "at", kjarni.__file__)')"

# ---- 2. the test suite per backend, from outside the checkout ----
work=$(mktemp -d)
cd "$work" || exit 1
# One process per backend by default (the two at once); KJARNI_GPU_PYTHON_XDIST=N spreads each over N
# pytest-xdist workers (faster where compiling dominates, but timing-sensitive tests share the GPU).
xdist=()
[ "${KJARNI_GPU_PYTHON_XDIST:-0}" -gt 0 ] && "$venv/bin/python" -c "import xdist" 2>/dev/null &&
  xdist=(-n "$KJARNI_GPU_PYTHON_XDIST")
pids=()
read -r -a selectors <<<"${KJARNI_GPU_PYTHON_SELECTORS:-cuda opencl:NVIDIA}"
for selector in "${selectors[@]}"; do
  log="$out/pytest-${selector//[^A-Za-z0-9]/_}.log"
  KJARNI_TEST=$selector timeout "${KJARNI_GPU_PYTHON_TEST_SECONDS:-150}" "$venv/bin/python" -m pytest -q -rfEs \
    "${xdist[@]}" -p no:cacheprovider --rootdir "$work" "$repo/python/tests" >"$log" 2>&1 &
  pids+=($!)
done
for i in "${!selectors[@]}"; do
  wait "${pids[$i]}"
  rc=$?
  selector=${selectors[$i]}
  log="$out/pytest-${selector//[^A-Za-z0-9]/_}.log"
  stamp "pytest $selector: rc=$rc, $(grep -E '[0-9]+ (passed|failed|skipped|error)' "$log" | tail -1)"
  grep -E '^(FAILED|ERROR) ' "$log" | head -20
  grep -E '^SKIPPED ' "$log" | sed 's/^/    /'
done
[ "${KJARNI_GPU_PYTHON_QUICK:-0}" = 1 ] && exit 0

# ---- 3. benchmarks ----
if [ -n "${bench_builder:-}" ]; then
  wait "$bench_builder" || { stamp "benchmark build failed"; tail -20 "$out/bench-build.log"; }
fi
run() {  # name, seconds, command...: runs it, its output into $out/name.txt and onto stdout
  local name=$1 seconds=$2
  shift 2
  { echo; stamp "== $name"; } >&2  # (stderr: past the callers' filters of stdout)
  timeout "$seconds" "$@" 2>&1 | grep -v -e '^nanobind: ' -e '^ - ' -e '^See https://nanobind' | tee "$out/$name.txt"
}
bench=$repo/$build/bench
api=${KJARNI_GPU_PYTHON_BENCH_API:-cuda} log2n=${KJARNI_GPU_PYTHON_LOG2N:-28}  # (a rehearsal: opencl, 16)
if [ -x "$bench/kjarni_bench_python_counterpart" ]; then
  KJARNI_BENCH_LOG2N=$log2n KJARNI_BENCH_BATCH=10 run cpp-counterpart 60 "$bench/kjarni_bench_python_counterpart" \
    --benchmark_repetitions=10 --benchmark_min_time=0.1 --benchmark_enable_random_interleaving=true \
    --benchmark_report_aggregates_only=true --benchmark_out="$out/cpp-counterpart.json" \
    --benchmark_out_format=json | grep -E 'median|^Benchmark'
fi
if [ -x "$bench/kjarni_bench_launch" ]; then
  run cpp-launch 60 "$bench/kjarni_bench_launch" --benchmark_filter='^launch_(0|5|8)_args(_bound)?_paired/' \
    --benchmark_repetitions=5 --benchmark_min_time=0.1 --benchmark_enable_random_interleaving=true \
    --benchmark_report_aggregates_only=true --benchmark_counters_tabular=true | grep -E 'median|^Benchmark'
fi
cpp_json=()
[ -s "$out/cpp-counterpart.json" ] && cpp_json=(--cpp-json "$out/cpp-counterpart.json")
PYTHONUNBUFFERED=1 run cupy-compare 120 "$venv/bin/python" "$repo/bench/python/cupy_compare.py" --api "$api" \
  --log2n "$log2n" --calls 10 --repeats 15 "${cpp_json[@]}"
PYTHONUNBUFFERED=1 run launch-opencl 60 "$venv/bin/python" "$repo/bench/python/launch_bench.py" --api opencl \
  --repeats 11 --launches 10000
stamp "done"
