#!/bin/bash
# Checks that C++ changes follow .clang-format (clang-format 15: Debian 12's `clang-format-15`; another
# binary with CLANG_FORMAT=..., but other versions lay out some constructs differently).
#
# What "changed" means, on any clone: the lines that differ from a base commit, by default the one
# scripts/format-base.txt records (the last commit whose tree the project accepted as it stands;
# the lead moves it forward after formatting the tree), including uncommitted changes. Lines outside
# those changes are not checked, so code written before .clang-format existed fails nothing until
# someone edits it.
#
#   scripts/check-format.sh             # changed lines since the recorded base; exit 1 with the diff
#   scripts/check-format.sh BASE        # changed lines since BASE (a commit, branch or tag)
#   scripts/check-format.sh --files     # whole files changed since the recorded base
#   scripts/check-format.sh --all       # every C++ file of the tree
#   scripts/check-format.sh --fix [...] # rewrite instead of checking (with any of the above)
#
# A shallow clone lacking the base commit fails with a message saying so (fetch with --depth 0 or
# --unshallow); it does not silently check nothing. scripts/format-tree.sh formats the whole tree
# once and moves the base to that commit.
set -euo pipefail
cd "$(dirname "$0")/.."

fix=0 mode=lines base=""
for arg in "$@"; do
    case "$arg" in
        --fix) fix=1 ;;
        --files) mode=files ;;
        --all) mode=all ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        -*) echo "check-format: unknown option $arg" >&2; exit 2 ;;
        *) base="$arg" ;;
    esac
done
[ -n "$base" ] || base=$(grep -v '^#' scripts/format-base.txt | head -n 1)

clang_format=${CLANG_FORMAT:-clang-format-15}
command -v "$clang_format" >/dev/null || { echo "check-format: $clang_format not found (apt-get install clang-format-15)" >&2; exit 2; }
if ! git cat-file -e "${base}^{commit}" 2>/dev/null; then
    echo "check-format: base commit $base is not in this clone (shallow clone? git fetch --unshallow)" >&2
    exit 2
fi

# C++ sources of the project (vendored code under third_party/ keeps its own style).
cxx_filter() { grep -E '\.(cpp|hpp|h|cu|inc)$' | grep -v '^third_party/' || true; }

if [ "$mode" = lines ]; then
    # git clang-format formats only the lines that differ from $base.
    if [ "$fix" = 1 ]; then
        git clang-format --binary "$(command -v "$clang_format")" --force --quiet --extensions cpp,hpp,h,cu,inc "$base" -- . ':!third_party' || true
        exit 0
    fi
    out=$(git clang-format --binary "$(command -v "$clang_format")" --diff --extensions cpp,hpp,h,cu,inc "$base" -- . ':!third_party' || true)
    if [ -z "$out" ] || echo "$out" | grep -qE '^(no modified files to format|clang-format did not modify any files)$'; then
        echo "check-format: the lines changed since $base follow .clang-format"
        exit 0
    fi
    echo "$out"
    echo "check-format: the lines above differ from .clang-format (scripts/check-format.sh --fix rewrites them)" >&2
    exit 1
fi

if [ "$mode" = files ]; then
    mapfile -t files < <({ git diff --name-only --diff-filter=ACMR "$base"; git ls-files --others --exclude-standard; } | cxx_filter | sort -u)
else
    mapfile -t files < <(git ls-files | cxx_filter)
fi
[ "${#files[@]}" -gt 0 ] || { echo "check-format: no C++ files to check"; exit 0; }

if [ "$fix" = 1 ]; then
    "$clang_format" -i --style=file "${files[@]}"
    exit 0
fi
bad=0
for f in "${files[@]}"; do
    [ -f "$f" ] || continue
    if ! "$clang_format" --style=file "$f" | diff -u --label "$f" --label "$f (clang-format)" "$f" -; then bad=1; fi
done
if [ "$bad" = 1 ]; then
    echo "check-format: the files above differ from .clang-format (scripts/check-format.sh --fix rewrites them)" >&2
    exit 1
fi
echo "check-format: ${#files[@]} file(s) follow .clang-format"
