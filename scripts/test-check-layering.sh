#!/bin/bash
# The layering check's own test: on a copy of the tree, a deliberate upward include (through a
# public header and through a folder), a backend cast, a vendor header out of place and a stale
# exception must each fail the check, naming the culprit; the untouched copy must pass.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fresh_copy() {
  rm -rf "$work/tree"
  mkdir -p "$work/tree/scripts"
  cp -r "$top/src" "$top/include" "$top/README.md" "$work/tree/"
  cp "$top/scripts/check_layering.py" "$top/scripts/layering-exceptions.txt" "$work/tree/scripts/"
}

expect_failure() {  # what, the message the check must print
  local what=$1 message=$2 output
  if output=$(python3 "$work/tree/scripts/check_layering.py" --root "$work/tree" 2>&1); then
    echo "FAIL: the check passed with $what"; exit 1
  fi
  grep -qF -- "$message" <<<"$output" || { echo "FAIL: $what: no '$message' in:"; echo "$output"; exit 1; }
  echo "ok: $what is caught"
}

fresh_copy
python3 "$work/tree/scripts/check_layering.py" --root "$work/tree" >/dev/null || {
  echo "FAIL: the untouched tree does not pass"; exit 1; }
echo "ok: the untouched tree passes"

fresh_copy
sed -i '1a #include "kjarni/array.hpp"' "$work/tree/src/base/error.cpp"
expect_failure "base including the array layer's public header" \
  'src/base (level 0) reaches src/array (level 6) through "kjarni/array.hpp"'

fresh_copy
sed -i '1a #include "core/handles.hpp"' "$work/tree/src/backend/registry.cpp"
expect_failure "backend including a core header" 'src/backend (level 1) reaches src/core (level 3) through "core/handles.hpp"'

fresh_copy
sed -i '1a #include "kjarni/algorithms_missing_row.hpp"' "$work/tree/src/array/array.cpp"
echo '#pragma once' >"$work/tree/include/kjarni/algorithms_missing_row.hpp"
expect_failure "a public header that no row claims" 'include/kjarni/algorithms_missing_row.hpp is claimed by 0 rows'

fresh_copy
sed -i '1a #include <cublas_v2.h>' "$work/tree/src/blas/blas.cpp"
expect_failure "a vendor header outside src/vendor" 'vendor header <cublas_v2.h> outside src/vendor'

fresh_copy
printf 'void f(kjarni::backend::Context* c) { (void)dynamic_cast<backend::cuda::CudaContext*>(c); }\n' \
  >>"$work/tree/src/array/array.cpp"
expect_failure "a cast to a backend type outside the backend" 'a dynamic_cast to a backend type outside src/backend'

fresh_copy
echo 'src/array/array.cpp: kjarni/collectives.hpp' >>"$work/tree/scripts/layering-exceptions.txt"
expect_failure "a stale exception" "'src/array/array.cpp: kjarni/collectives.hpp' no longer occurs"

fresh_copy
mkdir "$work/tree/src/newlayer"
expect_failure "a folder missing from the table" 'src/newlayer is not in README.md'
