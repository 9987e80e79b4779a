#!/bin/bash
# Formats every C++ file of the tree with .clang-format (clang-format 15: Debian 12's clang-format-15,
# another binary with CLANG_FORMAT=...) and, with --commit, records the result as the new base of
# scripts/check-format.sh. Run it once, on a tree with nothing uncommitted, as the last commit of a
# session (after every branch is merged: a branch formatted apart from the others would conflict
# with them on every line both touch).
#
#   scripts/format-tree.sh            # format the working tree; print what changed; commit nothing
#   scripts/format-tree.sh --commit   # the same, then two commits:
#       1. "Format the tree ..."      every C++ file as clang-format writes it, nothing else
#       2. "format-base: ..."         scripts/format-base.txt names commit 1 (check-format.sh then
#                                     checks the lines changed after it), and .git-blame-ignore-revs
#                                     lists it (git blame skips it with
#                                     `git config blame.ignoreRevsFile .git-blame-ignore-revs`)
#
# Code clang-format would ruin (X-macro lists, tables grouped by meaning, concepts with requires
# expressions) is fenced with `// clang-format off` / `// clang-format on`.
# Before committing, build the formatted tree as CI does (a reordered include or a fence left open
# shows there):
#   cmake --preset ci -B build-ci -DKJARNI_UNITY_BUILD=ON && cmake --build build-ci -j2
set -euo pipefail
cd "$(dirname "$0")/.."

commit=0
for arg in "$@"; do
    case "$arg" in
        --commit) commit=1 ;;
        -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
        *) echo "format-tree: unknown argument $arg" >&2; exit 2 ;;
    esac
done

clang_format=${CLANG_FORMAT:-clang-format-15}
command -v "$clang_format" >/dev/null || { echo "format-tree: $clang_format not found (apt-get install clang-format-15)" >&2; exit 2; }
# Another major version lays out some constructs differently: the tree would not be what
# check-format.sh (clang-format-15 too) accepts.
version=$("$clang_format" --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p')
[ "$version" = 15 ] || echo "format-tree: warning: clang-format $version, not 15 (.clang-format is written for 15)" >&2
if [ "$commit" = 1 ] && [ -n "$(git status --porcelain --untracked-files=no)" ]; then
    echo "format-tree: commit or stash the changes first (--commit formats a clean tree)" >&2
    exit 2
fi

# The C++ files check-format.sh checks (vendored code under third_party/ keeps its own style).
mapfile -t files < <(git ls-files | grep -E '\.(cpp|hpp|h|cu|inc)$' | grep -v '^third_party/' || true)
long_lines() { awk 'length($0) > 120' "${files[@]}" | wc -l; }

before=$(long_lines)
"$clang_format" -i --style=file "${files[@]}"
changed=$(git diff --name-only -- "${files[@]}" | wc -l)
after=$(long_lines)
echo "format-tree: ${#files[@]} C++ files, $changed reformatted; lines over 120 bytes: $before before, $after after"
git diff --shortstat -- "${files[@]}"

[ "$commit" = 1 ] || exit 0
[ "$changed" -gt 0 ] || { echo "format-tree: nothing to commit"; exit 0; }
git commit -q -m "Format the tree with .clang-format (scripts/format-tree.sh, clang-format $version)

$changed of ${#files[@]} C++ files; lines over 120 bytes: $before before, $after after. What changes:
whitespace and line breaks, the order of includes within a block, comments closing namespaces, and
string literals over the limit split in two (the compiler joins them again)." -- "${files[@]}"
formatted=$(git rev-parse HEAD)
# The base line is the first line of format-base.txt that is not a comment.
sed -i "0,/^[0-9a-f]\{40\}$/s//$formatted/" scripts/format-base.txt
grep -q "$formatted" scripts/format-base.txt || { echo "format-tree: no base line in scripts/format-base.txt" >&2; exit 1; }
[ -f .git-blame-ignore-revs ] || printf '%s\n' "# Commits that only reformat (git config blame.ignoreRevsFile .git-blame-ignore-revs)." \
    > .git-blame-ignore-revs
printf '%s\n' "$formatted" >> .git-blame-ignore-revs
git add scripts/format-base.txt .git-blame-ignore-revs
git commit -q -m "format-base: $formatted (the formatted tree) is check-format.sh's base and blame skips it"
echo "format-tree: committed $formatted and the new base"
