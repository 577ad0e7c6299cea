#!/usr/bin/env bash
# Every flag that `hlo-layout --help`, and each command's --help, lists is
# described in docs/cli.md and named in the README's list: the help of the
# tool and its manual cannot drift apart. Ends with "cli_docs: N passed, M failed" (one case per flag).
set -u
root=${TEST_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/${TEST_WORKSPACE:-xla_layout}
tool=$root/tools/hlo-layout
doc=$root/docs/cli.md
readme=$root/README.md
[ -x "$tool" ] || { echo "cli_docs_test: no tool at $tool" >&2; exit 2; }
[ -f "$doc" ] || { echo "cli_docs_test: no $doc" >&2; exit 2; }
help=$("$tool" --help) || { echo "FAIL: hlo-layout --help exited non-zero"; exit 1; }
for command in shape index relayout run verify calibrate; do
  if ! out=$("$tool" "$command" --help); then
    echo "FAIL: hlo-layout $command --help exited non-zero"
    exit 1
  fi
  help+=$'\n'"$out"
done
flags=$(grep -oE -- '(^|[^a-z0-9-])--[a-z][a-z0-9-]*' <<<"$help" | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)
passed=0 failed=0
for flag in $flags; do
  # A flag is documented where docs/cli.md names it.
  if grep -qE -- "$flag([^a-z0-9-]|\$)" "$doc"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $flag is in hlo-layout's help but not described in docs/cli.md"
  fi
  if ! grep -qF -- '`'"$flag"'`' "$readme"; then
    failed=$((failed + 1))
    echo "FAIL: $flag is in hlo-layout's help but not in the README's list of flags"
  fi
done
echo "cli_docs: $passed passed, $failed failed"
[ $failed -eq 0 ] && [ $passed -ge 20 ]
