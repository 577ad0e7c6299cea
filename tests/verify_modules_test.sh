#!/usr/bin/env bash
# `hlo-layout verify` on every HLO module we have (the corpus, the golden
# cases, the examples) for every target: the module after layout assignment
# must compute the original's outputs bit for bit. Modules the executor does
# not cover (ops, types, size) and modules the tools refuse (the error
# goldens) are counted as skipped; a difference, or a rewritten module that
# does not run, fails. The corpus is a declared input (tests/corpus.sh): the
# test fails when it is missing, unless the caller declined it.
set -u
root=${TEST_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/${TEST_WORKSPACE:-xla_layout}
tool=$root/tools/hlo-layout
cd "$root" || exit 1
# shellcheck source=tests/corpus.sh
source tests/corpus.sh
files=$(find -L tests/golden examples -name '*.hlo' | sort)
files="$files $corpus_files"
# Sanitizer builds run 5-20x slower: large modules are left to the
# optimized build.
limit=$((1 << 30))
[ -n "${XLA_LAYOUT_SANITIZER:-}" ] && limit=$((4 << 20))
passed=0 failed=0 skipped=0
case $corpus_state in
  missing) echo "FAIL: $corpus_missing_message"; failed=$((failed + 1)) ;;
  declined) echo "note: no corpus (XLA_LAYOUT_NO_CORPUS): its modules are not verified" ;;
esac
for f in $files; do
  for t in tpu cpu-avx2 cpu-avx512 arm64 default; do
    # The framework dumps of the corpus come from older XLA versions.
    old=()
    [[ "$f" == */real/* ]] && old=(--accept-old-dumps)
    out=$("$tool" verify "$f" "${old[@]}" --passes=layout-assignment --target="$t" \
          --max-memory=$limit 2>&1)
    code=$?
    if [ $code = 0 ] && [[ "$out" == OK:* ]]; then
      passed=$((passed + 1))
    elif [[ "$out" == MISMATCH* ]] || [[ "$out" == *"running the rewritten module"* &&
         "$out" != *"not supported by the executor"* && "$out" != *"executor's limit"* ]] ||
         [ $code -ge 128 ]; then
      echo "FAIL $f on $t:"
      echo "$out" | head -5
      failed=$((failed + 1))
    else
      skipped=$((skipped + 1))
      [ -n "${VERBOSE:-}" ] && echo "skip $f $t: $(echo "$out" | head -1)"
    fi
  done
done
echo "verified: $passed module-target pairs; skipped $skipped (ops, types or sizes the executor does not cover, or modules the tools refuse)"
echo "verify_modules: $passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ] && [ $passed -gt 0 ]
