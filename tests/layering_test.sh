#!/usr/bin/env bash
# The tree's floors, in pipeline order: proto/ < xla_layout/ < hlo/ <
# passes/ < runtime/ < tools/ (bench/ and tests/ stand on top). A file may
# include its own floor and the floors below, never one above. Also: no
# source file other than a test is over 800 lines, and no function in a .cc
# file other than a test is over 100 (from its signature to its closing
# brace, as tests/function_length.awk counts).
set -u
root=${TEST_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/${TEST_WORKSPACE:-xla_layout}
[ -d "$root/xla_layout" ] || root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2

floor_of() {
  case "$1" in
    proto/*) echo 0 ;; xla_layout/*) echo 1 ;; hlo/*) echo 2 ;;
    passes/*) echo 3 ;; runtime/*) echo 4 ;; tools/*) echo 5 ;;
    bench/*|tests/*) echo 6 ;; *) echo -1 ;;
  esac
}

failed=0 files=0
while IFS= read -r file; do
  files=$((files + 1))
  mine=$(floor_of "$file")
  while IFS= read -r inc; do
    theirs=$(floor_of "$inc")
    if [ "$theirs" -gt "$mine" ]; then
      echo "layering: $file includes $inc, a floor above its own"
      failed=$((failed + 1))
    fi
  done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$file")
  case "$file" in
    *_test.cc) ;;
    *)
      lines=$(wc -l < "$file")
      if [ "$lines" -gt 800 ]; then
        echo "layering: $file has $lines lines (more than 800: two ideas?)"
        failed=$((failed + 1))
      fi ;;
  esac
done < <(find -L xla_layout hlo passes runtime tools bench -name '*.h' -o -name '*.cc' 2>/dev/null | sort)

max_function_lines=100
if [ ! -f tests/function_length.awk ]; then
  echo "layering: tests/function_length.awk is missing under $root"
  failed=$((failed + 1))
fi
long_functions=$(find -L xla_layout hlo passes runtime tools bench -name '*.cc' \
                   ! -name '*_test.cc' 2>/dev/null | sort |
                 xargs awk -f tests/function_length.awk |
                 awk -v max="$max_function_lines" '$2 > max')
while read -r where lines name; do
  [ -n "$where" ] || continue
  file=${where%%:*}
  echo "layering: $where $name has $lines lines (more than $max_function_lines: split it)"
  failed=$((failed + 1))
done <<< "$long_functions"

if [ "$files" -lt 50 ]; then
  echo "layering: only $files source files found under $root"
  failed=$((failed + 1))
fi
echo "layering: $files files checked"
if [ "$failed" -eq 0 ]; then
  echo "layering: 1 passed, 0 failed"
  exit 0
fi
echo "layering: 0 passed, 1 failed"
exit 1
