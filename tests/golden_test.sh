#!/usr/bin/env bash
# Runs every golden case under tests/golden/ and diffs it with its expected
# output. A case is a file whose lines starting with `// RUN:` or `# RUN:` give
# commands; `%s` is the case file and `hlo-layout` the tool under test. The
# expected file NAME.expected holds each command's stdout and stderr, then
# `[exit N]` when the exit code is not 0. `%corpus` is the HLO corpus
# directory ($HLO_CORPUS_DIR, or ../shared/hlo-corpus beside the repository);
# cases that use it fail when it is missing. `%plugins` is the directory of
# the built pass plugins; `%bin` the root of the build's outputs (for
# %bin/passes/layout_assignment/layout_assignment_plugin.so).
#
#   golden_test.sh                 check (run by `bazel test //tests:golden_test`)
#   golden_test.sh --update        rewrite the .expected files in the source tree
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
corpus=${HLO_CORPUS_DIR:-}
if [ -z "$corpus" ] && [ -n "${BUILD_WORKSPACE_DIRECTORY:-}" ]; then
  corpus=$BUILD_WORKSPACE_DIRECTORY/../shared/hlo-corpus
fi

run_case() {  # $1: case file path relative to $root
  local file=$1 line cmd code out=""
  while IFS= read -r line; do
    case "$line" in
      "// RUN:"*) cmd=${line#"// RUN:"} ;;
      "# RUN:"*) cmd=${line#"# RUN:"} ;;
      *) continue ;;
    esac
    cmd=${cmd//%s/$file}
    cmd=${cmd//%corpus/$corpus}
    cmd=${cmd//%plugins/$plugins}
    cmd=${cmd//%bin/$bin}
    cmd=${cmd//hlo-layout/$tool}
    local result
    result=$(cd "$root" && eval "$cmd" 2>&1 </dev/null)
    code=$?
    out+="$result"$'\n'
    [ $code != 0 ] && out+="[exit $code]"$'\n'
    # A signal is never an expected outcome: bad input must not crash.
    [ $code -ge 128 ] && out+="[crash: signal $((code - 128))]"$'\n'
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
failed=0 passed=0
for file in $cases; do
  expected="${file%.*}.expected"
  actual=$(run_case "$file"; echo x)
  actual=${actual%x}
  if [[ "$actual" == *"[crash: signal"* ]]; then
    echo "FAIL $file: a command crashed"
    printf '%s' "$actual"
    failed=$((failed + 1))
    continue
  fi
  if [ $update = 1 ]; then
    printf '%s' "$actual" > "$root/$expected"
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
[ $update = 1 ] && { echo "updated $(echo "$cases" | wc -w) golden files; review with git diff"; exit 0; }
echo "golden: $passed passed, $failed failed"
[ $failed = 0 ]
