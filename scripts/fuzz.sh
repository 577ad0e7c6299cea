#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan + coverage) and runs
# each for FUZZ_SECONDS (default 60) from its seed corpus: the shape seeds,
# the relayout seeds, the golden HLO files and ../shared/hlo-corpus. Ends with
# "fuzz: N passed, M failed", one per target (a missing corpus is one more
# failure). A crash prints the failed check and its whole reproducer
# (base64), keeps the file in FUZZ_CRASH_DIR (default
# ~/.cache/xla_layout_fuzz_crashes) and fails; `bazel-bin/tests/fuzz/TARGET
# FILE` in an ordinary build replays it.
# The clang build runs in the sanitizer build's output base
# (scripts/sanitizer_bazel.sh), so it never evicts the gcc build's cache and
# reuses the objects of scripts/test.sh's sanitizer stage.
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
targets=(shape_text_fuzz hlo_parser_fuzz layout_pass_fuzz relayout_fuzz verify_fuzz)
# Reproducers outlive the run's scratch folder.
kept=${FUZZ_CRASH_DIR:-$HOME/.cache/xla_layout_fuzz_crashes}
# shellcheck source=scripts/sanitizer_bazel.sh
source scripts/sanitizer_bazel.sh
trap 'sanitizer_bazel shutdown >/dev/null 2>&1' EXIT
if ! sanitizer_bazel build --config=fuzz "${targets[@]/#///tests/fuzz:}"; then
  echo "fuzz: 0 passed, ${#targets[@]} failed"  # no target could run
  exit 1
fi
bin=$(sanitizer_bazel info --config=fuzz bazel-bin 2>/dev/null)/tests/fuzz
work=$(mktemp -d "${TMPDIR:-/tmp}/fuzz.XXXXXX")
# Seeds are copied: libFuzzer adds what it finds to the first corpus folder.
mkdir -p "$work/hlo" "$work/shapes" "$work/relayout"
cp tests/fuzz/seeds/shapes/* "$work/shapes/"
cp tests/fuzz/seeds/relayout/* "$work/relayout/"
find tests/golden -name '*.hlo' -exec cp {} "$work/hlo/" \;
# The binary form too (the HLO target reads its input as a proto as well).
cp tests/fuzz/seeds/hlo_pb/* "$work/hlo/"
passed=0 failed=0
# The corpus follows the tests' policy (tests/corpus.sh): every .hlo at any
# depth; missing fails, unless XLA_LAYOUT_NO_CORPUS=1 says there is none.
# shellcheck source=tests/corpus.sh
source tests/corpus.sh
case $corpus_state in
  present)
    # Files of one name in two folders both stay: the copy is numbered.
    k=0
    for f in $corpus_files; do k=$((k + 1)); cp "$f" "$work/hlo/corpus_${k}_$(basename "$f")"; done ;;
  missing) echo "FAIL: $corpus_missing_message"; failed=$((failed + 1)) ;;
  declined) echo "note: no corpus (XLA_LAYOUT_NO_CORPUS): HLO targets start from the goldens" ;;
esac
for t in "${targets[@]}"; do
  case $t in
    shape_text_fuzz) corpus=$work/shapes; max_len=4096 ;;
    relayout_fuzz) corpus=$work/relayout; max_len=64 ;;
    *) corpus=$work/hlo; max_len=16384 ;;
  esac
  mkdir -p "$work/new_$t" "$work/crashes_$t"
  "$bin/$t" "$work/new_$t" "$corpus" -max_total_time="$seconds" -max_len="$max_len" \
    -rss_limit_mb=4096 -timeout=20 -print_final_stats=1 \
    -artifact_prefix="$work/crashes_$t/" > "$work/$t.log" 2>&1
  code=$?
  execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$work/$t.log" | grep -oE '[0-9]+$')
  cov=$(grep -oE 'cov: [0-9]+' "$work/$t.log" | tail -1)
  if [ $code -ne 0 ]; then
    failed=$((failed + 1))
    # The target's own words first: libprotobuf logs ERROR lines that are
    # not failures.
    why=$(grep -m1 -E 'fuzz check failed|runtime error|==[0-9]+==ERROR' "$work/$t.log")
    echo "FAIL $t (exit $code): ${why:-see the log below}"
    grep -m1 -A60 -E 'fuzz check failed|runtime error' "$work/$t.log"
    tail -40 "$work/$t.log"
    mkdir -p "$kept"
    for f in "$work/crashes_$t"/*; do
      [ -f "$f" ] || continue
      cp "$f" "$kept/${t}_$(basename "$f")"
      echo "reproducer $kept/${t}_$(basename "$f") ($(wc -c < "$f") bytes), whole, as base64;"
      echo "restore it with 'base64 -d > FILE' and replay it with bazel-bin/tests/fuzz/$t FILE:"
      base64 -w 76 "$f"
    done
  else
    passed=$((passed + 1))
    echo "$t: ${execs:-?} runs in ${seconds} s, ${cov:-cov: ?}, no crash"
  fi
done
rm -rf "$work"
echo "fuzz: $passed passed, $failed failed"
[ $failed -eq 0 ]
