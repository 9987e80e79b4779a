#!/bin/bash
# The array API standard's own test suite (data-apis/array-api-tests, vendored unmodified in
# third_party/array-api-tests) against kjarni.array_api, on the devices KJARNI's OpenCL finds (PoCL
# in CI), and a table of passed / failed / skipped tests per group of the standard.
#
# usage: scripts/array-api-tests.sh [pytest arguments...]
# KJARNI_ARRAY_API_PYTHON: the Python whose environment has kjarni installed (default: the venv
#   scripts/python-test.sh makes, build-python/test-venv); hypothesis, ndindex and
#   pytest-json-report (PyPI) are installed into it.
# KJARNI_ARRAY_API_EXAMPLES: hypothesis examples per test (default 20), KJARNI_ARRAY_API_SEED: the
#   seed (default 0): the run is the same every time.
# KJARNI_ARRAY_API_GROUPS: the groups to run (default: all of those below).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
python=${KJARNI_ARRAY_API_PYTHON:-$root/build-python/test-venv/bin/python}
suite=$root/third_party/array-api-tests
skips=$root/python/array-api-skips.txt
examples=${KJARNI_ARRAY_API_EXAMPLES:-20}
seed=${KJARNI_ARRAY_API_SEED:-0}
"$python" -m pip install --quiet hypothesis==6.170.15 ndindex==1.10.1 pytest-json-report==1.5.0

# group -> the suite's file and, where the file holds more than the group, a -k selection. The
# linalg file's extension tests (xp.linalg, not offered) are left out: its main-namespace functions
# (matmul, tensordot, vecdot, matrix_transpose) are the group.
declare -A files=(
  [elementwise]=test_operators_and_elementwise_functions.py
  [creation]=test_creation_functions.py
  [data-type]=test_data_type_functions.py
  [manipulation]=test_manipulation_functions.py
  [searching]=test_searching_functions.py
  [sorting]=test_sorting_functions.py
  [set]=test_set_functions.py
  [statistical]=test_statistical_functions.py
  [utility]=test_utility_functions.py
  [indexing]=test_indexing_functions.py
  [array-object]=test_array_object.py
  [linalg-main]=test_linalg.py
  [signatures]=test_signatures.py
  [names]=test_has_names.py
  [constants]=test_constants.py
  [inspection]=test_inspection_functions.py
)
declare -A selection=([linalg-main]="test_matmul or test_tensordot or test_vecdot or test_matrix_transpose")
order=(elementwise creation data-type manipulation searching sorting set statistical utility indexing array-object
       linalg-main signatures names constants inspection)
groups=(${KJARNI_ARRAY_API_GROUPS:-${order[@]}})

export ARRAY_API_TESTS_MODULE=kjarni.array_api ARRAY_API_TESTS_VERSION=2023.12
export POCL_DEVICES=${POCL_DEVICES:-"pthread pthread"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
summary=()
status=0
for group in "${groups[@]}"; do
  file=${files[$group]:?unknown group $group}
  args=(-q -p no:cacheprovider --rootdir "$suite" --max-examples "$examples" --hypothesis-seed "$seed"
        --disable-deadline --skips-file "$skips" --json-report --json-report-file "$work/$group.json"
        --json-report-omit collectors keywords log traceback streams warnings)
  [ -n "${selection[$group]:-}" ] && args+=(-k "${selection[$group]}")
  began=$(date +%s)
  echo "array-api-tests: $group ($file)"
  (cd "$suite" && "$python" -m pytest "array_api_tests/$file" "${args[@]}" "$@" 2>&1 | tail -n 40) || true
  line=$("$python" - "$work/$group.json" "$group" "$(( $(date +%s) - began ))" <<'EOF'
import json, sys
report = json.load(open(sys.argv[1]))
s = report.get("summary", {})
print(f"{sys.argv[2]:<14} passed {s.get('passed', 0):>4}  failed {s.get('failed', 0) + s.get('error', 0):>4}  "
      f"skipped {s.get('skipped', 0):>4}  ({sys.argv[3]} s)")
EOF
)
  [[ $line == *"failed    0"* ]] || status=1
  summary+=("$line")
done
echo "array-api-tests: kjarni.array_api against the standard 2023.12, $examples examples a test, seed $seed:"
printf '  %s\n' "${summary[@]}"
echo "array-api-tests: done in $(( $(date +%s) - start )) s"
exit $status
