#!/usr/bin/env bash
# Every test: installs what is missing, builds everything and runs all tests,
# in three stages:
#   1. the optimized build: unit tests, goldens, bad-input suite, fuzz seeds;
#   2. the same suite under AddressSanitizer + UndefinedBehaviorSanitizer,
#      but for the tests tagged no_sanitizer (they check what it cannot);
#   3. the libFuzzer targets, FUZZ_SECONDS (default 10 here; 60 when
#      scripts/fuzz.sh runs alone) each: a smoke run, to bring the whole
#      script near CI's 30 minutes on 2 cores (docs/testing.md).
# XLA_LAYOUT_STAGES=1 (or "1 2") runs fewer stages. The HLO corpus
# (../shared/hlo-corpus) is a test input: a missing corpus fails the tests
# that read it, unless XLA_LAYOUT_NO_CORPUS=1 says there is none (they skip).
#
# Ends with one line "N passed, M failed, K skipped": the cases of the tests
# each stage's bazel invocation ran, cached results included, counted from
# its build events (scripts/count_tests.py: gtest cases, and each shell
# suite's cases), plus one per fuzz target. A test that crashes, times out
# or does not build counts as a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh || exit 1
# shellcheck source=scripts/sanitizer_bazel.sh
source scripts/sanitizer_bazel.sh
trap 'bazel shutdown >/dev/null 2>&1; sanitizer_bazel shutdown >/dev/null 2>&1; rm -rf "$events"' EXIT
events=$(mktemp -d "${TMPDIR:-/tmp}/test_events.XXXXXX")
stages=${XLA_LAYOUT_STAGES:-1 2 3}
if [ ! -d ../shared/hlo-corpus ] && [ "${XLA_LAYOUT_NO_CORPUS:-0}" = 0 ]; then
  echo "note: ../shared/hlo-corpus is missing: the tests that read it fail" \
       "(XLA_LAYOUT_NO_CORPUS=1 runs them without a corpus, as skipped)" >&2
fi
passed=0 failed=0 skipped=0 status=0

add() {  # adds "PASSED FAILED SKIPPED" to the totals
  set -- $1
  passed=$((passed + ${1:-0})); failed=$((failed + ${2:-1})); skipped=$((skipped + ${3:-0}))
}

bazel_test() {  # stage name, bazel command (bazel or sanitizer_bazel), test arguments...
  local name=$1 bazel=$2; shift 2
  local file=$events/$name.json counts
  $bazel test --build_event_json_file="$file" "$@" || status=1
  if ! counts=$(python3 scripts/count_tests.py "$file"); then
    echo "cannot count the tests of stage $name" >&2
    counts="0 1 0"
  fi
  echo "stage $name: $(set -- $counts; echo "$1 passed, $2 failed, $3 skipped")"
  add "$counts"
}

if [[ " $stages " == *" 1 "* ]]; then
  echo "== stage 1: optimized build and tests"
  if bazel build -c opt //...; then
    bazel_test opt bazel -c opt //...
  else
    status=1 failed=$((failed + 1))
    echo "stage opt: the build failed"
  fi
fi
if [[ " $stages " == *" 2 "* ]]; then
  echo "== stage 2: the tests under ASan + UBSan"
  # The test targets are named, not found: from its own output base, //...
  # would walk into the gcc build's bazel-* links. Tests tagged
  # no_sanitizer check what a sanitizer cannot see, in stage 1.
  query='tests(//...) except attr(tags, "manual|no_sanitizer", //...)'
  if tests=$(bazel query "$query" 2>/dev/null); then
    # shellcheck disable=SC2086
    bazel_test asan sanitizer_bazel --config=asan --build_tests_only $tests
  else
    status=1 failed=$((failed + 1))
    echo "stage asan: cannot list the test targets"
  fi
fi
if [[ " $stages " == *" 3 "* ]]; then
  echo "== stage 3: fuzzing, ${FUZZ_SECONDS:-10} s per target"
  fuzz_log=$events/fuzz.log
  FUZZ_SECONDS=${FUZZ_SECONDS:-10} bash scripts/fuzz.sh 2>&1 | tee "$fuzz_log" || status=1
  line=$(grep -E '^fuzz: [0-9]+ passed, [0-9]+ failed$' "$fuzz_log" | tail -1)
  if [ -n "$line" ]; then
    set -- $line
    add "$2 $4 0"
  else
    failed=$((failed + 1))
    echo "stage fuzz: no count (scripts/fuzz.sh stopped early)"
  fi
fi
[ $status -ne 0 ] && [ $failed -eq 0 ] && failed=1
[ $failed -ne 0 ] && status=1
echo "$passed passed, $failed failed, $skipped skipped"
exit $status
