#!/bin/bash
# The differential fuzzer against numpy (tests/numpy_fuzz/README.md): random array programs run by
# kjarni (tests/numpy_fuzz/kjarni_numpy_runner) and by numpy, compared exactly for integers, booleans
# and indices and within bounds derived from the arithmetic for floats. Every difference must be of
# a class listed in tests/numpy_fuzz/known_differences.json (docs/numpy-differences.md); a new one is
# shrunk, printed as a reproduction, and fails the run. Prints the programs, operations and element
# checks it made.
#   scripts/numpy-fuzz.sh                 CI: seed 1's first 1200 programs, at most 240 s (fewer
#                                         where kernels compile cold), on the default device (PoCL without a GPU)
#   scripts/numpy-fuzz.sh --seconds 3600 --max-programs 0 --seed 7 --device cuda   a long run on a GPU
# Options: --build DIR (default build-ci; configured with the ci preset when missing), and any of
# numpy_fuzz.py's (--seconds, --seed, --device, --jobs, --report-known, ...). numpy comes from a venv
# made here (PyPI, pinned) unless KJARNI_NUMPY_FUZZ_PYTHON names a Python that has it (the GPU
# machine, which has no PyPI).
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-ci
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done

python=${KJARNI_NUMPY_FUZZ_PYTHON:-}
if [ -z "$python" ]; then
  venv=build-numpy-fuzz/venv
  pin=2.4.6  # the numpy of scripts/python-test.sh
  if ! [ -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import numpy, sys; sys.exit(numpy.__version__ != '$pin')" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet "numpy==$pin"
  fi
  python=$venv/bin/python
fi

[ -f "$build/CMakeCache.txt" ] || cmake --preset ci -DKJARNI_UNITY_BUILD="${KJARNI_UNITY_BUILD:-OFF}" >/dev/null
cmake --build "$build" --target kjarni_numpy_runner -j "$(nproc)"

export POCL_DEVICES=${POCL_DEVICES:-"pthread pthread"}
# Generic work-group functions, as the test step compiled them (scripts/setup.sh says why).
export POCL_WORK_GROUP_SPECIALIZATION=${POCL_WORK_GROUP_SPECIALIZATION:-0}
runner=(--runner "$build/tests/numpy_fuzz/kjarni_numpy_runner")
# First the saved cases (tests/numpy_fuzz/cases/: one reproduction per class, informative: a case
# whose class no longer shows says it is fixed), then the random programs. CI's run is a fixed
# prefix of seed 1's sequence (--max-programs), checked green, cut short by --seconds on a slow
# machine: so the same programs run everywhere, whatever the machine's speed.
"$python" tests/numpy_fuzz/numpy_fuzz.py "${runner[@]}" --replay "${args[@]}"
exec "$python" tests/numpy_fuzz/numpy_fuzz.py "${runner[@]}" --seed 1 --max-programs 1200 --seconds 240 "${args[@]}"
