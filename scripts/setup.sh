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
# The demo and the tests build in one directory with one configuration (the ci preset: build-ci,
# warnings as errors), so that `setup.sh test` after `setup.sh demo` compiles only what the demo did
# not need: the library and the tool are compiled once, not once per preset.
case "$mode" in
  demo) preset=ci; targets=(--target kjarni_demo kjarni_tool) ;;  # just what the demo needs
  test) preset=ci; targets=(--target kjarni_test_suite) ;;  # all but the benchmarks (CMakeLists.txt)
  sanitize) preset=sanitize; targets=() ;;  # the build preset names the test suites
  *) echo "usage: $0 demo|test|sanitize" >&2; exit 2 ;;
esac

scripts/install-deps.sh
jobs=$(nproc)
# The library and the tests compile as unity batches (what CI builds): a fresh clone builds from
# scratch, and a batch parses the shared headers once instead of once per source file (a batch of
# eight runtime tests: 37 CPU seconds, against 73 one by one). KJARNI_UNITY_BUILD=OFF in the
# environment compiles file by file (slower from scratch, faster to rebuild after an edit). Given
# every time, so that the build directory follows the environment rather than an earlier run.
cmake --preset "$preset" -DKJARNI_UNITY_BUILD="${KJARNI_UNITY_BUILD:-ON}" >/dev/null
cmake --build --preset "$preset" -j "$jobs" "${targets[@]}"

# Two PoCL devices: multi-device code runs on a CPU-only machine too. Harmless where PoCL is absent.
export POCL_DEVICES=${POCL_DEVICES:-"pthread pthread"}
# PoCL's generic work-group functions only. By default PoCL compiles each kernel for the work-group
# size of its first launch, and a second time for any size when kjarni takes the program's binary
# for its disk cache (clGetProgramInfo(CL_PROGRAM_BINARIES)). Without specialization the one generic
# compilation serves both, and a binary from kjarni's cache runs without compiling anything, so the
# later steps of CI (sanitize, Python, fuzzing) start warm even where PoCL's own cache lacks a size.
# A slice of the runtime suite (5 suites, 72 tests, cold caches): 115 CPU seconds instead of 154;
# warm 2.8 against 2.6. The caches then hold generic kernels, so each script that shares them sets
# the same (python-test.sh, numpy-fuzz.sh, array-api-tests.sh, check-package.sh, the test presets).
export POCL_WORK_GROUP_SPECIALIZATION=${POCL_WORK_GROUP_SPECIALIZATION:-0}
if [ "$mode" = demo ]; then
  exec "build-ci/examples/kjarni_demo"
fi
if [ "$mode" != sanitize ]; then
  exec ctest --preset "$preset" -j "$jobs"
fi
# LeakSanitizer's own tracer can crash while it stops the threads at a process's exit ("Tracer
# caught signal 11 ... LeakSanitizer has encountered a fatal error", once on 2026-11-29 after all
# 800 tests of a run had passed; the rerun passed): a failure of the tool, not a finding. Such a
# run goes once more; any sanitizer report, or a second failure, fails.
log=build-sanitize/Testing/Temporary/LastTest.log  # every test's output
ctest --preset sanitize -j "$jobs" && exit 0
if grep -q "LeakSanitizer has encountered a fatal error" "$log" &&
  ! grep -q -E "ERROR: (Address|Leak)Sanitizer:|runtime error:|\[  FAILED  \]" "$log"; then
  echo "setup.sh: LeakSanitizer's tracer failed (no sanitizer report, no failed test): the failed tests once more"
  exec ctest --preset sanitize --rerun-failed --output-on-failure
fi
exit 1
