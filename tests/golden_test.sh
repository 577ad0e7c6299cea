#!/usr/bin/env bash
# Runs every golden case under tests/golden/ and diffs it with its expected
# output. A case is a file whose lines starting with `// RUN:` or `# RUN:` give
# commands, each run by bash with pipefail, so a failure anywhere in a
# pipeline is the line's status. A line that is meant to fail says so with
# its status: `# RUN(exit=N):`; any other status than the one a line states
# (0 when it states none) fails the case, in check and update mode alike.
# `%s` is the case file and `hlo-layout` the tool under test. The expected
# file NAME.expected holds each command's stdout and stderr, then `[exit N]`
# when the exit code is not 0. `%corpus` is the HLO corpus directory (the
# declared input @hlo_corpus, see tests/corpus.sh): a case that uses it is
# skipped when the caller declined a corpus (XLA_LAYOUT_NO_CORPUS=1) and
# fails when it is missing. `%plugins` is the directory of the built pass
# plugins; `%bin` the root of the build's outputs (for
# %bin/passes/layout_assignment/layout_assignment_plugin.so).
#
#   golden_test.sh                 check (run by `bazel test //tests:golden_test`)
#   golden_test.sh --update        rewrite the .expected files in the source tree
#
# Ends with "golden: N passed, M failed, K skipped".
set -u
update=0
[ "${1:-}" = "--update" ] && update=1

if [ $update = 1 ]; then
  root=${BUILD_WORKSPACE_DIRECTORY:-$(cd "$(dirname "$0")/.." && pwd)}
  tool=${HLO_LAYOUT:-$root/bazel-bin/tools/hlo-layout}
  bin=$root/bazel-bin
else
  root=${TEST_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/${TEST_WORKSPACE:-xla_layout}
  tool=$root/tools/hlo-layout
  bin=$root
fi
plugins=$bin/passes/plugins
[ -x "$tool" ] || { echo "golden_test: no tool at $tool" >&2; exit 2; }
# shellcheck source=tests/corpus.sh
source "$root/tests/corpus.sh"
corpus=$corpus_dir

status_problems=""
run_case() {  # $1: case file path relative to $root
  local file=$1 line cmd code want out="" number=0
  while IFS= read -r line; do
    number=$((number + 1))
    want=0
    case "$line" in
      "// RUN:"*) cmd=${line#"// RUN:"} ;;
      "# RUN:"*) cmd=${line#"# RUN:"} ;;
      "// RUN(exit="*"):"*|"# RUN(exit="*"):"*)
        want=${line#*"RUN(exit="}; want=${want%%")"*}
        cmd=${line#*"RUN(exit=$want):"} ;;
      *) continue ;;
    esac
    cmd=${cmd//%s/$file}
    cmd=${cmd//%corpus/$corpus}
    cmd=${cmd//%plugins/$plugins}
    cmd=${cmd//%bin/$bin}
    cmd=${cmd//hlo-layout/$tool}
    local result
    result=$(cd "$root" && set -o pipefail && eval "$cmd" 2>&1 </dev/null)
    code=$?
    out+="$result"$'\n'
    [ $code != 0 ] && out+="[exit $code]"$'\n'
    # A signal is never an expected outcome: bad input must not crash.
    [ $code -ge 128 ] && out+="[crash: signal $((code - 128))]"$'\n'
    [ "$code" != "$want" ] &&
      status_problems+="  line $number exited $code; the case states $want"$'\n'
  done < "$root/$file"
  # The tool's path is not part of the expected output.
  out=${out//$tool/hlo-layout}
  out=${out//$plugins/%plugins}
  out=${out//$bin\//%bin/}
  [ -n "$corpus" ] && out=${out//$corpus/%corpus}
  printf '%s' "$out"
}

# -L: in Bazel's runfiles every case is a symlink.
cases=$(cd "$root" && find -L tests/golden -type f \( -name '*.test' -o -name '*.hlo' \) | sort)
if [ -z "$cases" ]; then
  echo "golden_test: no cases found under $root/tests/golden" >&2
  exit 1
fi
failed=0 passed=0 skipped=0 updated=0
# Sharded (Bazel's TEST_TOTAL_SHARDS): the cases are dealt out in turn.
shards=${TEST_TOTAL_SHARDS:-1} shard=${TEST_SHARD_INDEX:-0} number=0
[ -n "${TEST_SHARD_STATUS_FILE:-}" ] && touch "$TEST_SHARD_STATUS_FILE"
for file in $cases; do
  number=$((number + 1))
  [ $((number % shards)) = "$shard" ] || continue
  expected="${file%.*}.expected"
  if grep -qE '^(//|#) RUN(\(exit=[0-9]+\))?:.*%corpus' "$root/$file"; then
    if [ "$corpus_state" = declined ]; then
      skipped=$((skipped + 1))
      continue
    elif [ "$corpus_state" != present ]; then
      echo "FAIL $file: $corpus_missing_message"
      failed=$((failed + 1))
      continue
    fi
  fi
  status_problems=""
  # run_case runs in a subshell; its status problems come back after a marker.
  actual=$(run_case "$file"; printf '\x1e%s' "$status_problems")
  status_problems=${actual##*$'\x1e'}
  actual=${actual%$'\x1e'*}
  if [[ "$actual" == *"[crash: signal"* ]]; then
    echo "FAIL $file: a command crashed"
    printf '%s' "$actual"
    failed=$((failed + 1))
    continue
  fi
  if [ -n "$status_problems" ]; then
    echo "FAIL $file: a status differs from the one the case states"
    printf '%s\n' "$status_problems"
    failed=$((failed + 1))
    continue
  fi
  if [ $update = 1 ]; then
    printf '%s' "$actual" > "$root/$expected"
    updated=$((updated + 1))
    continue
  fi
  if [ ! -f "$root/$expected" ]; then
    echo "FAIL $file: missing $expected (run tests/update_goldens.sh)"
    failed=$((failed + 1))
  elif diff -u --label "$expected" --label "actual" "$root/$expected" <(printf '%s' "$actual"); then
    passed=$((passed + 1))
  else
    echo "FAIL $file"
    failed=$((failed + 1))
  fi
done
if [ $update = 1 ]; then
  echo "updated $updated golden files (skipped $skipped, failed $failed); review with git diff"
  [ $failed = 0 ]
  exit
fi
echo "golden: $passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ] && [ $passed -gt 0 ]
