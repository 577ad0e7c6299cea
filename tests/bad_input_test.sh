#!/usr/bin/env bash
# Runs every hostile-input case under tests/bad_input/. A case NAME.case says
#   run:    a bash command, run in a fresh scratch folder ($W) with $HLO_LAYOUT
#           (the tool), $PLUGINS (the built plugins) and $CASES (this folder);
#   exit:   the expected exit code;
#   stderr: a text the standard error must contain (repeatable);
#   stdout: a text the standard output must contain (repeatable);
#   check:  a bash condition that must hold afterwards, run in $W (repeatable);
#   asan:   skip, for a case that needs an address-space limit (ASan reserves
#           terabytes of shadow memory and cannot start under one).
# Every case runs under prlimit (address space and CPU time) and a wall-clock
# timeout: bad input must give a clear error quickly, never a crash, a hang
# or an unbounded allocation. Ends with
# "bad_input: N passed, M failed, K skipped".
set -u
root=${TEST_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/${TEST_WORKSPACE:-xla_layout}
[ -d "$root/tests/bad_input" ] || root=$(cd "$(dirname "$0")/.." && pwd)
export HLO_LAYOUT=${HLO_LAYOUT:-$root/tools/hlo-layout}
export PLUGINS=${PLUGINS:-$root/passes/plugins}
export CASES=$root/tests/bad_input
[ -x "$HLO_LAYOUT" ] || { echo "bad_input_test: no tool at $HLO_LAYOUT" >&2; exit 2; }
command -v prlimit >/dev/null || { echo "bad_input_test: prlimit (util-linux) is missing" >&2; exit 2; }
scratch=$(mktemp -d "${TEST_TMPDIR:-/tmp}/bad_input.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# Limits for every case: 4 GiB of address space, 60 s of CPU, 120 s of wall.
# Under ASan (XLA_LAYOUT_SANITIZER, set by --config=asan) memory is bounded
# by ASan's own RSS limit instead, and CPU time is doubled.
sanitized=${XLA_LAYOUT_SANITIZER:-}
if [ -n "$sanitized" ]; then
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=4096"
  limits=(prlimit --cpu=120 timeout 240)
else
  limits=(prlimit --as=4294967296 --cpu=60 timeout 120)
fi
skipped=0

passed=0 failed=0
for case_file in $(find -L "$CASES" -name '*.case' | sort); do
  name=$(basename "$case_file" .case)
  run="" want_exit="" errs=() outs=() checks=() asan=""
  while IFS= read -r line; do
    case "$line" in
      run:*) run=${line#run:} ;;
      exit:*) want_exit=${line#exit:}; want_exit=${want_exit// /} ;;
      stderr:*) v=${line#stderr:}; errs+=("${v# }") ;;
      stdout:*) v=${line#stdout:}; outs+=("${v# }") ;;
      check:*) v=${line#check:}; checks+=("${v# }") ;;
      asan:*) asan=${line#asan:}; asan=${asan// /} ;;
    esac
  done < "$case_file"
  if [ -n "$sanitized" ] && [ "$asan" = skip ]; then
    skipped=$((skipped + 1))
    continue
  fi
  W=$scratch/$name
  mkdir -p "$W"
  (cd "$W" && export W && "${limits[@]}" bash -c "$run" >"$W/.stdout" 2>"$W/.stderr" </dev/null)
  code=$?
  problems=()
  [ -z "$run" ] && problems+=("no run: line")
  [ "$code" != "$want_exit" ] && problems+=("exit $code, expected $want_exit")
  for e in "${errs[@]+"${errs[@]}"}"; do
    grep -qF -- "$e" "$W/.stderr" || problems+=("stderr lacks: $e")
  done
  for o in "${outs[@]+"${outs[@]}"}"; do
    grep -qF -- "$o" "$W/.stdout" || problems+=("stdout lacks: $o")
  done
  for c in "${checks[@]+"${checks[@]}"}"; do
    (cd "$W" && bash -c "$c") || problems+=("check failed: $c")
  done
  # Messages stay short whatever the input's size.
  size=$(wc -c < "$W/.stderr")
  [ "$size" -gt 20000 ] && problems+=("stderr is $size bytes")
  if [ ${#problems[@]} -eq 0 ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL $name: ${problems[*]}"
    head -c 600 "$W/.stderr" | sed 's/^/  stderr: /'
  fi
  rm -rf "$W"
done
[ $skipped -gt 0 ] && echo "skipped under $sanitized: $skipped"
echo "bad_input: $passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ] && [ $passed -gt 0 ]
