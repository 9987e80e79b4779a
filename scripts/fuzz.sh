#!/bin/bash
# Builds the libFuzzer targets (fuzz/README.md) with clang and runs each for a bounded time:
#   scripts/fuzz.sh [seconds per target]      (default 30: what CI runs; 600 for a real session)
# Any finding (a crash, a sanitizer report, a timeout, an out-of-memory) fails the script; libFuzzer
# writes the input that found it into build-fuzz/findings/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
targets=(template_fuzzer dtype_fuzzer selector_fuzzer cache_entry_fuzzer)

cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DKJARNI_BUILD_FUZZ=ON -DKJARNI_BUILD_TESTS=OFF \
      -DKJARNI_BUILD_TOOLS=OFF -DKJARNI_BUILD_EXAMPLES=OFF -DKJARNI_BUILD_BENCH=OFF -DKJARNI_INSTALL=OFF \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j "$(nproc)" --target "${targets[@]}"

mkdir -p build-fuzz/findings
for target in "${targets[@]}"; do
  corpus=build-fuzz/corpus/$target
  mkdir -p "$corpus"
  seeds=()
  [ "$target" = template_fuzzer ] && seeds=(fuzz/corpus)  # the template seeds; the others start empty
  echo "fuzz: $target for ${seconds} s"
  # -timeout: one input taking longer is a hang; -rss_limit_mb: a runaway allocation.
  log=build-fuzz/findings/$target.log
  status=0
  "build-fuzz/fuzz/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
      -print_final_stats=1 -artifact_prefix="build-fuzz/findings/$target-" "$corpus" "${seeds[@]}" >"$log" 2>&1 ||
    status=$?
  # The log's summary lines (the whole log is kept next to the findings).
  grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb|Done [0-9]+ runs)|ERROR|SUMMARY" "$log" || true
  if [ "$status" -ne 0 ]; then
    echo "fuzz: $target found something (exit status $status): see build-fuzz/findings/" >&2
    exit 1
  fi
done
echo "fuzz: no findings"
