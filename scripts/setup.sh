#!/bin/bash
# The README's two set-up commands:
#   scripts/setup.sh demo   installs what is missing, builds, runs the demo on the default device
#   scripts/setup.sh test   installs what is missing, builds with warnings as errors, runs the tests
#   scripts/setup.sh sanitize  the test suites again, built with AddressSanitizer, UndefinedBehavior-
#                           Sanitizer and LeakSanitizer (any report fails them); CI runs it after test
# Without a GPU the default device is PoCL's CPU device; the tests then run on two PoCL devices so
# that the multi-device paths are exercised.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-}
case "$mode" in
  demo) preset=default; targets=(--target kjarni_demo kjarni_tool) ;;  # just what the demo needs
  test) preset=ci; targets=() ;;
  sanitize) preset=sanitize; targets=() ;;  # the build preset names the test suites
  *) echo "usage: $0 demo|test|sanitize" >&2; exit 2 ;;
esac

scripts/install-deps.sh
jobs=$(nproc)
# KJARNI_UNITY_BUILD=ON in the environment (CI sets it) compiles the library and the tests as unity
# batches: faster from scratch, slower to rebuild after an edit. Given every time, so that the build
# directory follows the environment rather than an earlier run.
configure=()
if [ "$mode" != demo ]; then
  configure=(-DKJARNI_UNITY_BUILD="${KJARNI_UNITY_BUILD:-OFF}")
fi
cmake --preset "$preset" "${configure[@]}" >/dev/null
cmake --build --preset "$preset" -j "$jobs" "${targets[@]}"

# Two PoCL devices: multi-device code runs on a CPU-only machine too. Harmless where PoCL is absent.
export POCL_DEVICES=${POCL_DEVICES:-"pthread pthread"}
if [ "$mode" = demo ]; then
  exec "build/examples/kjarni_demo"
fi
ctest --preset "$preset" -j "$jobs"
