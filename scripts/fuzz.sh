#!/bin/bash
# Builds the libFuzzer targets (fuzz/README.md) with clang, then for each target:
#   1. replays the committed corpus (fuzz/regressions/<target>/, plus the template seeds): every
#      input that ever found new coverage runs once, so a regression of an old finding fails here;
#   2. fuzzes for a bounded time from that corpus (and build-fuzz/corpus/<target>/, which keeps what
#      earlier local runs found).
#   scripts/fuzz.sh [seconds per target]    (default 30: what CI runs; 600 for a real session)
# Environment:
#   KJARNI_FUZZ_SEED   libFuzzer's -seed (default 1: CI's fresh run mutates the same way each time;
#                      0: a new random seed each run, for long local sessions)
#   KJARNI_FUZZ_MERGE  1: afterwards, merge what the run found into fuzz/regressions/<target>/
#                      (libFuzzer -merge=1 keeps only inputs that add coverage; commit the result)
# Any finding (a crash, a sanitizer report, a timeout, an out-of-memory) fails the script; libFuzzer
# writes the input that found it into build-fuzz/findings/<target>-<kind>-<hash>, and the script
# prints the command that reproduces it.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
seed=${KJARNI_FUZZ_SEED:-1}
merge=${KJARNI_FUZZ_MERGE:-0}
targets=(template_fuzzer dtype_fuzzer selector_fuzzer cache_entry_fuzzer rendezvous_wire_fuzzer)

cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DKJARNI_BUILD_FUZZ=ON -DKJARNI_BUILD_TESTS=OFF \
      -DKJARNI_BUILD_TOOLS=OFF -DKJARNI_BUILD_EXAMPLES=OFF -DKJARNI_BUILD_BENCH=OFF -DKJARNI_INSTALL=OFF \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKJARNI_UNITY_BUILD="${KJARNI_UNITY_BUILD:-OFF}" >/dev/null
cmake --build build-fuzz -j "$(nproc)" --target "${targets[@]}"

# -timeout: one input taking longer is a hang; -rss_limit_mb: a runaway allocation.
common=(-timeout=10 -rss_limit_mb=2048 -max_len=4096)
mkdir -p build-fuzz/findings
failed() {  # target status log
  echo "fuzz: $1 found something (exit status $2): see $3 and build-fuzz/findings/" >&2
  for artifact in build-fuzz/findings/"$1"-*; do
    case "$artifact" in *.log) continue ;; esac
    [ -f "$artifact" ] && echo "fuzz: reproduce with: build-fuzz/fuzz/$1 $artifact" >&2
  done
  exit 1
}
for target in "${targets[@]}"; do
  binary=build-fuzz/fuzz/$target
  regressions=fuzz/regressions/$target
  corpus=build-fuzz/corpus/$target
  mkdir -p "$corpus" "$regressions"
  committed=("$regressions")
  [ "$target" = template_fuzzer ] && committed+=(fuzz/corpus)  # the readable template seeds

  # 1. Replay: each committed input once (-runs=0 runs the initial corpus and nothing else).
  log=build-fuzz/findings/$target-replay.log
  status=0
  "$binary" "${common[@]}" -runs=0 -artifact_prefix="build-fuzz/findings/$target-" "${committed[@]}" \
      >"$log" 2>&1 || status=$?
  echo "fuzz: $target replayed $(find "${committed[@]}" -type f | wc -l) committed inputs: $(grep -Eo "INITED.*" "$log" | head -1)"
  [ "$status" -eq 0 ] || failed "$target" "$status" "$log"

  # 2. A bounded fresh run. New inputs go to the first directory (build-fuzz/corpus: not committed).
  echo "fuzz: $target for ${seconds} s (seed $seed)"
  log=build-fuzz/findings/$target.log
  status=0
  "$binary" "${common[@]}" -seed="$seed" -max_total_time="$seconds" -print_final_stats=1 \
      -artifact_prefix="build-fuzz/findings/$target-" "$corpus" "${committed[@]}" >"$log" 2>&1 || status=$?
  # The log's summary lines (the whole log is kept next to the findings).
  grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb|Done [0-9]+ runs)|ERROR|SUMMARY" "$log" || true
  [ "$status" -eq 0 ] || failed "$target" "$status" "$log"

  if [ "$merge" = 1 ]; then
    "$binary" "${common[@]}" -merge=1 "$regressions" "$corpus" >"build-fuzz/findings/$target-merge.log" 2>&1
    echo "fuzz: $target: $(find "$regressions" -type f | wc -l) inputs in $regressions after the merge"
  fi
done
echo "fuzz: no findings"
