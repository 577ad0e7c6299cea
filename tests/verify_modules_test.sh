#!/usr/bin/env bash
# `hlo-layout verify` on every HLO module we have (the corpus, the golden
# cases, the examples) for every target: the module after layout assignment
# must compute the original's outputs bit for bit, on every device.
#
# A pair that does not verify must be listed, with its reason, in
# tests/verify_modules_skips.txt: an unlisted skip fails, and so does a
# listed one that no longer happens (the list stays true). A difference, a
# rewritten module that does not run, or a crash fails. Under a sanitizer
# the size limit is lower and a refusal for size is expected, not listed.
# The corpus is a declared input (tests/corpus.sh): the test fails when it
# is missing, unless the caller declined it.
#
# Sharded (Bazel's TEST_TOTAL_SHARDS): the module-target pairs are dealt out
# in turn, except that every pair of a module some line of the list names
# goes to that line's shard (the first line whose glob matches it), which
# checks the line; so keep the list's globs disjoint.
set -u
root=${TEST_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/${TEST_WORKSPACE:-xla_layout}
tool=$root/tools/hlo-layout
cd "$root" || exit 1
# shellcheck source=tests/corpus.sh
source tests/corpus.sh
files=$(find -L tests/golden examples -name '*.hlo' | sort)
files="$files $corpus_files"
limit=$((1 << 30))
[ -n "${XLA_LAYOUT_SANITIZER:-}" ] && limit=$((4 << 20))
skips=tests/verify_modules_skips.txt
passed=0 failed=0 skipped=0
declare -A used
shards=${TEST_TOTAL_SHARDS:-1} shard=${TEST_SHARD_INDEX:-0} pair=0
[ -n "${TEST_SHARD_STATUS_FILE:-}" ] && touch "$TEST_SHARD_STATUS_FILE"
case $corpus_state in
  missing) echo "FAIL: $corpus_missing_message"; failed=$((failed + 1)) ;;
  declined) echo "note: no corpus (XLA_LAYOUT_NO_CORPUS): its modules are not verified" ;;
esac

# The line of the skip list that explains `name` on target `t` refused with
# `why`, or nothing. Lines: FILE-GLOB TARGET|* REASON (a substring of why).
listed() {
  local name=$1 t=$2 why=$3 glob target reason n=0
  while read -r glob target reason; do
    n=$((n + 1))
    [[ -z "$glob" || "$glob" == \#* ]] && continue
    # shellcheck disable=SC2053
    [[ "$name" == $glob ]] || continue
    [[ "$target" == "*" || "$target" == "$t" ]] || continue
    [[ "$why" == *"$reason"* ]] || continue
    echo "$n"
    return
  done < "$skips"
}

# The number of the first line of the list whose glob matches `name`, or 0.
first_glob() {
  local name=$1 glob n=0
  while read -r glob _; do
    n=$((n + 1))
    [[ -z "$glob" || "$glob" == \#* ]] && continue
    # shellcheck disable=SC2053
    [[ "$name" == $glob ]] && { echo "$n"; return; }
  done < "$skips"
  echo 0
}

for f in $files; do
  # The corpus's modules are named from the corpus folder: corpus/real/x.hlo.
  name=$f
  [[ -n "$corpus_dir" && "$f" == "$corpus_dir"/* ]] && name=corpus/${f#"$corpus_dir"/}
  owner=$(first_glob "$name")
  for t in tpu cpu-avx2 cpu-avx512 arm64 default; do
    pair=$((pair + 1))
    if [ "$owner" != 0 ]; then
      [ $((owner % shards)) = "$shard" ] || continue
    else
      [ $((pair % shards)) = "$shard" ] || continue
    fi
    # The framework dumps of the corpus come from older XLA versions.
    old=()
    [[ "$f" == */real/* ]] && old=(--accept-old-dumps)
    out=$("$tool" verify "$f" "${old[@]}" --passes=layout-assignment --target="$t" \
          --max-memory=$limit 2>&1 | grep -v ': warning: ')
    code=${PIPESTATUS[0]}
    first=$(echo "$out" | head -1)
    if [ "$code" = 0 ] && [[ "$first" == OK:* ]]; then
      passed=$((passed + 1))
    elif [[ "$out" == MISMATCH* ]] || [[ "$out" == *"running the rewritten module"* &&
         "$out" != *"not supported by the executor"* && "$out" != *"executor's limit"* ]] ||
         [ "$code" -ge 128 ]; then
      echo "FAIL $name on $t:"
      echo "$out" | head -5
      failed=$((failed + 1))
    elif [ -n "${XLA_LAYOUT_SANITIZER:-}" ] &&
         [[ "$first" == *"executor's limit"* || "$first" == *"work budget"* ]]; then
      skipped=$((skipped + 1))
    else
      line=$(listed "$name" "$t" "$first")
      if [ -z "$line" ]; then
        echo "FAIL $name on $t: not verified, and not in $skips:"
        echo "  $first"
        failed=$((failed + 1))
      else
        used[$line]=1
        skipped=$((skipped + 1))
        [ -n "${VERBOSE:-}" ] && echo "skip $name $t (line $line): $first"
      fi
    fi
  done
done
# Every entry of the list must still explain a skip (not under a sanitizer,
# whose size refusals come first, nor without the corpus).
if [ -z "${XLA_LAYOUT_SANITIZER:-}" ] && [ "$corpus_state" = present ]; then
  n=0
  while read -r glob _; do
    n=$((n + 1))
    [[ -z "$glob" || "$glob" == \#* ]] && continue
    [ $((n % shards)) = "$shard" ] || continue
    if [ -z "${used[$n]:-}" ]; then
      echo "FAIL $skips line $n explains no skip any more: $(sed -n "${n}p" "$skips")"
      failed=$((failed + 1))
    fi
  done < "$skips"
fi
echo "verified: $passed module-target pairs; skipped $skipped, each for the reason $skips gives"
echo "verify_modules: $passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ] && [ $passed -gt 0 ]
