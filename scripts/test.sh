#!/usr/bin/env bash
# Every test: installs what is missing, builds everything and runs all tests,
# in three stages:
#   1. the optimized build: unit tests, goldens, bad-input suite, fuzz seeds;
#   2. the same suite under AddressSanitizer + UndefinedBehaviorSanitizer;
#   3. the libFuzzer targets, FUZZ_SECONDS (default 60) each (scripts/fuzz.sh).
# XLA_LAYOUT_STAGES=1 (or "1 2") runs fewer stages. Ends with one line
# "N passed, M failed" (gtest cases plus golden and suite cases, all stages).
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh || exit 1
trap 'bazel shutdown >/dev/null 2>&1' EXIT
stages=${XLA_LAYOUT_STAGES:-1 2 3}
# The HLO corpus lives beside the repository in ../shared (see README).
corpus=()
if [ -d ../shared/hlo-corpus ]; then
  corpus=(--test_env=HLO_CORPUS_DIR="$(cd ../shared/hlo-corpus && pwd)")
else
  echo "note: ../shared/hlo-corpus not found; corpus tests are skipped" >&2
fi
passed=0 failed=0 status=0
count_logs() {  # adds the cases in the current bazel-testlogs to the totals
  local p f g
  for log in $(find -L bazel-testlogs/ -name test.log 2>/dev/null); do
    p=$(grep -hoE '^\[  PASSED  \] [0-9]+ test' "$log" | grep -oE '[0-9]+' | tail -1)
    f=$(grep -hoE '^\[  FAILED  \] [0-9]+ test' "$log" | grep -oE '[0-9]+' | tail -1)
    g=$(grep -hoE '^(golden|layering|bad_input|fuzz_seeds|out_of_tree_plugin|verify_modules): [0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
    passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
    if [ -n "$g" ]; then
      set -- $g
      passed=$((passed + $2)); failed=$((failed + $4))
    fi
  done
}
if [[ " $stages " == *" 1 "* ]]; then
  echo "== stage 1: optimized build and tests"
  bazel build -c opt //... || exit 1
  bazel test -c opt "${corpus[@]}" //... || status=1
  count_logs
fi
if [[ " $stages " == *" 2 "* ]]; then
  echo "== stage 2: every test under ASan + UBSan"
  bazel test --config=asan --build_tests_only "${corpus[@]}" //... || status=1
  count_logs
fi
if [[ " $stages " == *" 3 "* ]]; then
  echo "== stage 3: fuzzing, ${FUZZ_SECONDS:-60} s per target"
  if bash scripts/fuzz.sh; then
    passed=$((passed + 5))  # one per fuzz target
  else
    failed=$((failed + 1)); status=1
  fi
fi
[ $status -ne 0 ] && [ $failed -eq 0 ] && failed=1
echo "$passed passed, $failed failed"
exit $status
