#!/bin/bash
# Checks that kjarni works as a package for other projects (CI runs it after the test build):
#   1. installs a built kjarni into a prefix; a consumer finds it through find_package(kjarni), given
#      that prefix in CMAKE_PREFIX_PATH alone;
#   2. the same program built from pkg-config's flags (kjarni.pc, static);
#   3. a consumer adds the checkout with add_subdirectory(kjarni), as a shared library
#      (BUILD_SHARED_LIBS=ON), with GoogleTest and Google Benchmark hidden from find_package; the
#      shared library must export nothing outside the kjarni namespace.
# Each consumer runs a templated kernel on the default device and checks it against the CPU.
# usage: scripts/check-package.sh [BUILD_DIR]   (default build-ci: the build that CI has just made)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-ci}
work=$PWD/build-package
rm -rf "$work"
mkdir -p "$work"
jobs=$(nproc)
export POCL_DEVICES=${POCL_DEVICES:-pthread}
# Generic work-group functions, as the test step compiled them (scripts/setup.sh says why).
export POCL_WORK_GROUP_SPECIALIZATION=${POCL_WORK_GROUP_SPECIALIZATION:-0}
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

echo "== check-package: install $build into $work/prefix"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
"$prefix/bin/kjarni" info >/dev/null

echo "== check-package: find_package(kjarni) from CMAKE_PREFIX_PATH"
cmake -S tests/package/find-package -B "$work/find-package" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_PREFIX_PATH="$prefix" "${launcher[@]}" >"$work/find-package.log"
cmake --build "$work/find-package" -j "$jobs" >>"$work/find-package.log"
"$work/find-package/consumer"

echo "== check-package: pkg-config --static kjarni"
pc_dir=$(dirname "$(find "$prefix" -name kjarni.pc | head -n 1)")
# shellcheck disable=SC2046  # the flags are words
g++ -O1 tests/package/consumer.cpp -o "$work/pkg-config-consumer" \
  $(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags --libs --static kjarni)
"$work/pkg-config-consumer"

echo "== check-package: add_subdirectory(kjarni), BUILD_SHARED_LIBS=ON"
# The subproject's objects are those of any earlier run of this check in the same place (ccache).
cmake -S tests/package/add-subdirectory -B "$work/add-subdirectory" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DKJARNI_SOURCE_DIR="$PWD" -DBUILD_SHARED_LIBS=ON -DKJARNI_WERROR=ON \
  -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON \
  -DKJARNI_UNITY_BUILD="${KJARNI_UNITY_BUILD:-OFF}" \
  --no-warn-unused-cli "${launcher[@]}" >"$work/add-subdirectory.log"
cmake --build "$work/add-subdirectory" -j "$jobs" >>"$work/add-subdirectory.log"
"$work/add-subdirectory/consumer"
library=$(find "$work/add-subdirectory/kjarni" -name 'libkjarni.so*' -type f | head -n 1)
foreign=$(nm -DC --defined-only "$library" | awk '{ $1 = ""; $2 = ""; print }' |
          grep -v -e '^ *kjarni::' -e ' kjarni::' -e 'for kjarni::' -e 'to kjarni::' || true)
if [ -n "$foreign" ]; then
  echo "check-package: $library exports symbols outside the kjarni namespace:" >&2
  echo "$foreign" | head -n 20 >&2
  exit 1
fi
echo "== check-package: all consumers ran"
