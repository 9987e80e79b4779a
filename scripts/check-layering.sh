#!/bin/bash
# Fails when a folder of src/ includes one above it (or beside it) in the layering that the README
# states: the table under "Layers of src/" gives each folder a level, and a file may include from its
# own folder and from folders of lower levels only ("kjarni/..." is the public API, open to all).
# A folder of src/ missing from the table fails too, so that a new layer is placed on purpose.
set -euo pipefail
cd "$(dirname "$0")/.."

declare -A level
while IFS='|' read -r _ number folders _; do
  number=${number//[[:space:]]/}
  for folder in $(grep -o 'src/[a-z_0-9]*' <<<"$folders"); do
    level[${folder#src/}]=$number
  done
done < <(sed -n '/^### Layers of `src\/`/,/^#/p' README.md | grep -E '^\| *[0-9]+ *\|')
[ ${#level[@]} -gt 0 ] || { echo "check-layering: no layering table in README.md" >&2; exit 1; }

status=0
for dir in src/*/; do
  folder=$(basename "$dir")
  if [ -z "${level[$folder]:-}" ]; then
    echo "check-layering: src/$folder is not in README.md's layering table" >&2
    status=1
  fi
done

while IFS=: read -r file line text; do
  folder=${file#src/}; folder=${folder%%/*}
  included=$(sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([a-z_0-9]+)\/.*/\1/' <<<"$text")
  [ "$included" = "$folder" ] && continue
  [ -d "src/$included" ] || continue  # not a folder of src/ ("kjarni/..." and the like)
  from=${level[$folder]:-}; to=${level[$included]:-}
  [ -n "$from" ] && [ -n "$to" ] || continue  # reported above
  if [ "$to" -ge "$from" ]; then
    echo "check-layering: $file:$line: src/$folder (level $from) includes src/$included (level $to): $text" >&2
    status=1
  fi
done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[a-z_0-9]+/' src --include='*.cpp' --include='*.hpp' --include='*.h' --include='*.inc' || true)

[ $status -eq 0 ] && echo "check-layering: every folder of src/ reaches only down"
exit $status
