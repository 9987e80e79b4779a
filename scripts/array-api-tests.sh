#!/bin/bash
# The array API standard's own test suite (data-apis/array-api-tests, vendored unmodified in
# third_party/array-api-tests) against kjarni.array_api, on the first device kjarni finds (PoCL
# in CI), and a table of passed / failed / skipped tests per group of the standard.
#
# usage: scripts/array-api-tests.sh [pytest arguments...]
# KJARNI_ARRAY_API_PYTHON: the Python whose environment has kjarni installed (default: the venv
#   scripts/python-test.sh makes, build-python/test-venv); hypothesis, ndindex and
#   pytest-json-report (PyPI) are installed into it.
# KJARNI_ARRAY_API_EXAMPLES: hypothesis examples per test (default 20), KJARNI_ARRAY_API_SEED: the
#   seed (default 0): the run is the same every time.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
python=${KJARNI_ARRAY_API_PYTHON:-$root/build-python/test-venv/bin/python}
suite=$root/third_party/array-api-tests
skips=$root/python/array-api-skips.txt
examples=${KJARNI_ARRAY_API_EXAMPLES:-20}
seed=${KJARNI_ARRAY_API_SEED:-0}
"$python" -m pip install --quiet hypothesis==6.170.15 ndindex==1.10.1 pytest-json-report==1.5.0

# The groups of the standard, each one file of the suite. The linalg file's extension tests
# (xp.linalg, which the namespace does not offer: an optional extension) are left out: its
# main-namespace functions (matmul, tensordot, vecdot, matrix_transpose) are the group; so are the
# names of the optional extensions (linalg, fft) in test_has_names.
groups=(
  elementwise:test_operators_and_elementwise_functions.py creation:test_creation_functions.py
  data-type:test_data_type_functions.py manipulation:test_manipulation_functions.py
  searching:test_searching_functions.py sorting:test_sorting_functions.py set:test_set_functions.py
  statistical:test_statistical_functions.py utility:test_utility_functions.py indexing:test_indexing_functions.py
  array-object:test_array_object.py linalg-main:test_linalg.py signatures:test_signatures.py names:test_has_names.py
  constants:test_constants.py inspection:test_inspection_functions.py
)
targets=()
for g in "${groups[@]}"; do
  file=$suite/array_api_tests/${g#*:}
  if [ "${g%%:*}" = linalg-main ]; then
    targets+=("$file::test_matmul" "$file::test_matrix_transpose" "$file::test_tensordot" "$file::test_vecdot")
  else
    targets+=("$file")
  fi
done

export ARRAY_API_TESTS_MODULE=kjarni.array_api ARRAY_API_TESTS_VERSION=2023.12
export POCL_DEVICES=${POCL_DEVICES:-"pthread pthread"}
# Generic work-group functions, as the test step compiled them (scripts/setup.sh says why).
export POCL_WORK_GROUP_SPECIALIZATION=${POCL_WORK_GROUP_SPECIALIZATION:-0}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
# One pytest run: the suite's start-up is paid once, and kjarni's compiled kernels are shared. From a
# temporary folder, where hypothesis keeps its example database (the checkout stays clean).
(cd "$work" && "$python" -m pytest "${targets[@]}" -q -rfE -p no:cacheprovider --rootdir "$suite" \
   --max-examples "$examples" --hypothesis-seed "$seed" --disable-deadline --skips-file "$skips" \
   --deselect "array_api_tests/test_has_names.py::test_has_names[fft-" \
   --deselect "array_api_tests/test_has_names.py::test_has_names[linalg-" \
   --json-report --json-report-file "$work/report.json" --json-report-omit collectors keywords log streams warnings \
   "$@" 2>&1 | grep -v -e '^nanobind: ' -e '^ - leaked' -e '^ - \.\.\. skipped' -e '^See https://nanobind' |
   tail -n 60) || true
echo "array-api-tests: kjarni.array_api against the standard 2023.12 (data-apis/array-api-tests 55fcc601)," \
     "$examples examples a test, hypothesis seed $seed, in $(( $(date +%s) - start )) s:"
"$python" - "$work/report.json" "${groups[@]}" <<'EOF'
import collections, json, sys
report = json.load(open(sys.argv[1]))
names = [g.split(":")[0] for g in sys.argv[2:]]
group_of = {g.split(":")[1]: g.split(":")[0] for g in sys.argv[2:]}
counts = collections.defaultdict(collections.Counter)
for test in report["tests"]:
    file = test["nodeid"].split("::")[0].rsplit("/", 1)[-1]
    outcome = {"error": "failed", "xfailed": "skipped", "xpassed": "passed"}.get(test["outcome"], test["outcome"])
    counts[group_of.get(file, file)][outcome] += 1
total = collections.Counter()
print(f"  {'group':<14}{'passed':>8}{'failed':>8}{'skipped':>9}")
for name in names + ["total"]:
    c = total if name == "total" else counts[name]
    if name != "total":
        total.update(c)
    print(f"  {name:<14}{c['passed']:>8}{c['failed']:>8}{c['skipped']:>9}")
sys.exit(1 if total["failed"] else 0)
EOF
