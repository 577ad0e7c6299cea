#!/usr/bin/env bash
# Every test: installs what is missing, builds everything and runs all tests.
# Ends with one line "N passed, M failed" (gtest cases plus golden files).
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh || exit 1
trap 'bazel shutdown >/dev/null 2>&1' EXIT
bazel build -c opt //... || exit 1
# The HLO corpus lives beside the repository in ../shared (see README).
corpus=()
if [ -d ../shared/hlo-corpus ]; then
  corpus=(--test_env=HLO_CORPUS_DIR="$(cd ../shared/hlo-corpus && pwd)")
else
  echo "note: ../shared/hlo-corpus not found; corpus tests are skipped" >&2
fi
bazel test -c opt "${corpus[@]}" //...
status=$?
passed=0 failed=0
for log in $(find -L bazel-testlogs/ -name test.log 2>/dev/null); do
  p=$(grep -hoE '^\[  PASSED  \] [0-9]+ test' "$log" | grep -oE '[0-9]+' | tail -1)
  f=$(grep -hoE '^\[  FAILED  \] [0-9]+ test' "$log" | grep -oE '[0-9]+' | tail -1)
  g=$(grep -hoE '^(golden|layering|bad_input): [0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
  if [ -n "$g" ]; then
    set -- $g
    passed=$((passed + $2)); failed=$((failed + $4))
  fi
done
[ $status -ne 0 ] && [ $failed -eq 0 ] && failed=1
echo "$passed passed, $failed failed"
exit $status
