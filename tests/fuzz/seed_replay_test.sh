#!/usr/bin/env bash
# Replays every fuzz target over its seed corpus in an ordinary build: the
# shape seeds, the relayout seeds, the golden HLO files and the HLO corpus
# (a declared input, tests/corpus.sh: missing fails, unless the caller
# declined it). Ends with "fuzz_seeds: N passed, M failed" (one per target).
set -u
root=${TEST_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/${TEST_WORKSPACE:-xla_layout}
bin=$root/tests/fuzz
seeds=$root/tests/fuzz/seeds
hlo_seeds=("$root/tests/golden")
# shellcheck source=tests/corpus.sh
source "$root/tests/corpus.sh"
passed=0 failed=0
case $corpus_state in
  present) hlo_seeds+=("$corpus_dir") ;;
  missing) echo "FAIL: $corpus_missing_message"; failed=$((failed + 1)) ;;
  declined) echo "note: no corpus (XLA_LAYOUT_NO_CORPUS): the HLO targets replay the goldens only" ;;
esac
run() {  # target, seed paths...
  local target=$1; shift
  if "$bin/$target" "$@" > "${TEST_TMPDIR:-/tmp}/$target.log" 2>&1; then
    passed=$((passed + 1)); echo "$target: $(tail -1 "${TEST_TMPDIR:-/tmp}/$target.log")"
  else
    failed=$((failed + 1)); echo "FAIL $target"; tail -20 "${TEST_TMPDIR:-/tmp}/$target.log"
  fi
}
run shape_text_fuzz "$seeds/shapes"
run relayout_fuzz "$seeds/relayout"
run hlo_parser_fuzz "${hlo_seeds[@]}" "$seeds/hlo_pb"
run layout_pass_fuzz "${hlo_seeds[@]}"
run verify_fuzz "${hlo_seeds[@]}"
echo "fuzz_seeds: $passed passed, $failed failed"
[ $failed -eq 0 ]
