#!/bin/bash
# The Python package's check (CI runs it after the C++ suite): makes a venv with the build and test
# tools from PyPI (pinned), builds and installs the package with `pip install .` (scikit-build-core,
# nanobind, against kjarni::kjarni), builds a wheel, and runs the pytest suite (python/tests, with
# the tutorial scripts of examples/python) on the devices KJARNI_TEST selects (all by default).
# usage: scripts/python-test.sh [pytest arguments...]
# KJARNI_PYTHON_PREBUILT=build-ci/src/libkjarni.a links the library the C++ build has just made
# instead of compiling it once more (CI does: the library's sources are the same checkout).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=build-python/venv
# grunnur and Mako: the peer the module rendering is compared with (python/tests/test_peer_grunnur.py).
pins=(nanobind==3.1.0 scikit-build-core==1.1.2 numpy==2.4.6 pytest==9.2.0 grunnur==0.6.0 Mako==1.3.10)
python=${KJARNI_PYTHON:-python3}

start=$(date +%s)
if ! [ -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import nanobind, scikit_build_core, numpy, pytest, grunnur" 2>/dev/null; then
  "$python" -m venv "$venv"
  "$venv/bin/pip" install --quiet "${pins[@]}"
fi
launcher=()
command -v ccache >/dev/null && launcher=(--config-settings=cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache)
if [ -n "${KJARNI_PYTHON_PREBUILT:-}" ]; then
  launcher+=(--config-settings=cmake.define.KJARNI_PYTHON_PREBUILT="$(realpath "$KJARNI_PYTHON_PREBUILT")")
fi
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
# No build isolation: the pinned tools of the venv build it, nothing is fetched at build time.
"$venv/bin/pip" install --quiet --no-build-isolation "${launcher[@]}" .
"$venv/bin/pip" wheel --quiet --no-build-isolation --no-deps "${launcher[@]}" -w build-python/wheel .
ls build-python/wheel/kjarni-*.whl >/dev/null
echo "python-test: package built and installed in $(( $(date +%s) - start )) s"

export POCL_DEVICES=${POCL_DEVICES:-"pthread pthread"}
# Run from outside the checkout so that `import kjarni` finds the installed package, not python/.
cd build-python
"../$venv/bin/python" -m pytest -q ../python/tests -p no:cacheprovider "$@"
echo "python-test: done in $(( $(date +%s) - start )) s"
