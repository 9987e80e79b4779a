#!/bin/bash
# Runs clang-tidy (.clang-tidy; clang-tidy 14, Debian 12's) on the lines of C++ sources changed
# since a base commit, by default the one scripts/tidy-base.txt records (the last commit CI passed
# check-tidy on).
# Findings on other lines of those files, and in files nobody touched, are not reported, so code
# written before .clang-tidy existed fails nothing until someone edits it.
#
#   scripts/check-tidy.sh                # changed lines since the recorded base, with build-ci's flags
#   scripts/check-tidy.sh BUILD [BASE]   # another configured build folder, another base
#
# Needs a configured build (its compile_commands.json: the ci preset writes one). A unity build's
# database names only the batches (Unity/unity_N_cxx.cxx), so the flags of each source are taken
# from the batch that includes it. Sources the build does not compile (the Python module, CUDA
# sources without a CUDA toolkit) are listed and skipped. A header's changed lines are checked
# where a changed source includes it (.clang-tidy's HeaderFilterRegex); a header changed alone is not.
# Exit status 1 with the findings when there are any; 0 when none (or nothing changed).
set -euo pipefail
cd "$(dirname "$0")/.."

build=${1:-build-ci}
base=${2:-$(grep -v '^#' scripts/tidy-base.txt | head -n 1)}

command -v clang-tidy >/dev/null || { echo "check-tidy: clang-tidy not found (apt-get install clang-tidy)" >&2; exit 2; }
[ -f "$build/compile_commands.json" ] || { echo "check-tidy: no $build/compile_commands.json (configure $build first)" >&2; exit 2; }
if ! git cat-file -e "${base}^{commit}" 2>/dev/null; then
    echo "check-tidy: base commit $base is not in this clone (shallow clone? git fetch --unshallow)" >&2
    exit 2
fi

changed=$(git diff --name-only --diff-filter=ACMR "$base" -- '*.cpp' '*.hpp' ':!third_party' || true)
[ -n "$changed" ] || { echo "check-tidy: no C++ changed since $base"; exit 0; }

# One compile command per source, and the changed lines of every changed file (clang-tidy's
# -line-filter, which also limits what it reports in headers).
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$build/compile_commands.json" "$work" "$base" <<'EOF'
import json, os, re, subprocess, sys
database, work, base = sys.argv[1:4]
entries = []
for e in json.load(open(database)):
    path = e["file"] if os.path.isabs(e["file"]) else os.path.join(e["directory"], e["file"])
    sources = [path]
    if re.search(r"/Unity/unity_\d+_cxx\.cxx$", path):
        sources = re.findall(r'^#include "(.+)"$', open(path).read(), re.M)
    # Without GCC's precompiled header (CMake's -include .../cmake_pch.hxx): clang would take the
    # .gch beside it for its own PCH format and fail. Each source is checked on its own includes.
    command = re.sub(r" -Winvalid-pch| -include \S*cmake_pch\.hxx", "", e["command"])
    for source in sources:
        entries.append({"directory": e["directory"], "file": source,
                        "command": command.replace(path, source)})
json.dump(entries, open(os.path.join(work, "compile_commands.json"), "w"))
root = os.getcwd()
known = {os.path.realpath(x["file"]) for x in entries}
diff = subprocess.run(["git", "diff", "-U0", base, "--", "*.cpp", "*.hpp", ":!third_party"],
                      capture_output=True, text=True, check=True).stdout
lines, name = {}, None
for line in diff.splitlines():
    if line.startswith("+++ "):
        name = None if line == "+++ /dev/null" else line[6:]
    elif line.startswith("@@") and name:
        m = re.match(r"@@ -\S+ \+(\d+)(?:,(\d+))? @@", line)
        first, count = int(m.group(1)), int(m.group(2) or 1)
        if count > 0:
            lines.setdefault(name, []).append([first, first + count - 1])
line_filter = [{"name": os.path.join(root, f), "lines": r} for f, r in lines.items()]
json.dump(line_filter, open(os.path.join(work, "line_filter.json"), "w"))
sources = [f for f in lines if f.endswith(".cpp")]
with open(os.path.join(work, "sources"), "w") as out:
    for f in sources:
        if os.path.realpath(f) in known:
            out.write(f + "\n")
        else:
            print(f"check-tidy: {f} is not compiled by this build: skipped")
EOF

[ -s "$work/sources" ] || { echo "check-tidy: no changed source that this build compiles"; exit 0; }
mapfile -t sources < "$work/sources"
# The flags are g++'s: clang does not know some warnings, and -Werror would turn clang's own
# warnings into errors that are no finding of the checks. One clang-tidy per source, on every core.
export KJARNI_TIDY_WORK="$work"
printf '%s\n' "${sources[@]}" | xargs -d '\n' -P "$(nproc)" -n 1 sh -c '
    out="$KJARNI_TIDY_WORK/out.$(printf %s "$1" | tr / _)"
    clang-tidy --quiet -p "$KJARNI_TIDY_WORK" --line-filter="$(cat "$KJARNI_TIDY_WORK/line_filter.json")" \
        --extra-arg=-Wno-unknown-warning-option --extra-arg=-Wno-error "$1" > "$out" 2>&1 || echo "$1" >> "$KJARNI_TIDY_WORK/failed"
' sh
# Without clang-tidy's tallies ("N warnings generated.": mostly from headers outside the filter).
cat "$work"/out.* | grep -vE '^[0-9]+ warnings? (and [0-9]+ errors? )?generated\.$' > "$work/out" || true
if grep -qE '(warning|error): .*\[[a-z0-9.,-]+\]$' "$work/out"; then
    cat "$work/out"
    echo "check-tidy: the findings above are on lines changed since $base (${#sources[@]} source(s) checked)" >&2
    exit 1
fi
if [ -s "$work/failed" ]; then
    cat "$work/out"
    echo "check-tidy: clang-tidy failed on $(tr '\n' ' ' < "$work/failed")" >&2
    exit 1
fi
echo "check-tidy: ${#sources[@]} changed source(s), no finding on the lines changed since $base"
