#!/bin/bash
# The Python package's check (CI runs it after the C++ suite), as a user meets the package:
#  1. builds a wheel with `pip wheel .` (scikit-build-core + nanobind, Release, stripped, Ninja where
#     installed, in a temporary build folder outside the checkout), printing how long it took and the
#     sizes of the extension and the wheel;
#  2. installs the wheel into a fresh virtual environment that has never seen the checkout;
#  3. runs `python -m kjarni.test` there, then the pytest suite (python/tests, with the tutorial
#     scripts of examples/python and grunnur from PyPI as the peer) from a folder outside the
#     checkout, on the devices KJARNI_TEST selects (all by default);
#  4. prints what auditwheel (PyPI) says of the wheel (docs/python.md explains the report).
# usage: scripts/python-test.sh [pytest arguments...]
# KJARNI_PYTHON_PREBUILT=build-ci/src/libkjarni.a links the library the C++ build has just made
# instead of compiling it once more (CI does: the library's sources are the same checkout).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=build-python
python=${KJARNI_PYTHON:-python3}
# The build's tools (no build isolation: pinned, nothing fetched at build time) and the test venv's
# packages: numpy, pytest, and the peers the tests compare with (grunnur and Mako; pyopencl lets
# grunnur run on the same PoCL devices); auditwheel for its report.
build_pins=(nanobind==3.1.0 scikit-build-core==1.1.2 auditwheel==6.8.2)
test_pins=(numpy==2.4.6 pytest==9.2.0 grunnur==0.6.0 Mako==1.3.10 pyopencl==2026.1.4)

build_venv=$out/build-venv
if ! [ -x "$build_venv/bin/python" ] || ! "$build_venv/bin/python" -c "import nanobind, scikit_build_core" 2>/dev/null; then
  "$python" -m venv "$build_venv"
  "$build_venv/bin/pip" install --quiet "${build_pins[@]}"
fi

args=()
command -v ccache >/dev/null && args+=(--config-settings=cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache)
if [ -n "${KJARNI_PYTHON_PREBUILT:-}" ]; then
  args+=(--config-settings=cmake.define.KJARNI_PYTHON_PREBUILT="$(realpath "$KJARNI_PYTHON_PREBUILT")")
fi
# Ninja runs as many compilers as there are cores; the Makefile fallback needs this to.
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}

rm -rf "$out/wheel"
start=$(date +%s)
"$build_venv/bin/pip" wheel --quiet --no-build-isolation --no-deps "${args[@]}" -w "$out/wheel" .
built=$(date +%s)
wheel=$(ls "$out"/wheel/kjarni-*.whl)

test_venv=$out/test-venv
rm -rf "$test_venv"
"$python" -m venv "$test_venv"
"$test_venv/bin/pip" install --quiet "${test_pins[@]}" "$wheel"
installed=$(date +%s)

extension=$("$build_venv/bin/python" -c "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); \
print(next(i.file_size for i in z.infolist() if i.filename.startswith('kjarni/_kjarni')))" "$wheel")
echo "python-test: wheel built in $((built - start)) s on $(nproc) cores ($(basename "$wheel"), \
$(( $(stat -c %s "$wheel") / 1024 )) KiB); extension $((extension / 1024)) KiB; \
installed into a fresh venv in $((installed - built)) s"
echo "python-test: auditwheel show:"
"$build_venv/bin/auditwheel" show "$wheel" 2>&1 | sed 's/^/  /' || true

export POCL_DEVICES=${POCL_DEVICES:-"pthread pthread"}
# Generic work-group functions, as the test step compiled them (scripts/setup.sh says why).
export POCL_WORK_GROUP_SPECIALIZATION=${POCL_WORK_GROUP_SPECIALIZATION:-0}
# From a folder outside the checkout: `import kjarni` can only find the installed package.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$root/$test_venv/bin/python" -c "import kjarni, sys; assert kjarni.__file__.startswith(sys.prefix), kjarni.__file__"
"$root/$test_venv/bin/python" -m kjarni.test
"$root/$test_venv/bin/python" -m pytest -q "$root/python/tests" -p no:cacheprovider --rootdir "$work" "$@"
echo "python-test: done in $(( $(date +%s) - start )) s"
