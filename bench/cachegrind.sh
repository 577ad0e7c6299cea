#!/usr/bin/env bash
# Deterministic figure for the packing core: instructions per element and D1
# misses of one relayout against memcpy of the same bytes, under cachegrind,
# on the AVX2 path (valgrind does not run AVX-512). Usage:
#   bench/cachegrind.sh ['SRC' 'DST']
set -euo pipefail
cd "$(dirname "$0")/.."
src=${1:-'f32[1000,1000]{1,0}'}
dst=${2:-'f32[1000,1000]{1,0:T(8,128)}'}
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 1; }
bazel build -c opt //bench:cachegrind_driver >/dev/null 2>&1
bin=bazel-bin/bench/cachegrind_driver
declare -A ir d1
for mode in none relayout memcpy; do
  out=$(XLA_LAYOUT_ISA=avx2 valgrind --tool=cachegrind --cache-sim=yes \
        --cachegrind-out-file=/dev/null "$bin" "$mode" "$src" "$dst" 2>&1)
  ir[$mode]=$(echo "$out" | grep -E "I +refs:" | awk '{gsub(",","",$4); print $4}')
  d1r=$(echo "$out" | grep -E "D1 +misses:" | awk '{gsub(",","",$4); print $4}')
  d1[$mode]=$d1r
done
elements=$(bazel-bin/tools/hlo-layout shape --json "$src" 2>/dev/null | grep -oE '"logical_elements":[0-9]+' | cut -d: -f2 || true)
[ -n "$elements" ] || { bazel build -c opt //tools:hlo-layout >/dev/null 2>&1; elements=$(bazel-bin/tools/hlo-layout shape --json "$src" | grep -oE '"logical_elements":[0-9]+' | cut -d: -f2); }
r_ir=$((ir[relayout] - ir[none])); m_ir=$((ir[memcpy] - ir[none]))
r_d1=$((d1[relayout] - d1[none])); m_d1=$((d1[memcpy] - d1[none]))
echo "$src -> $dst ($elements elements, AVX2 path, 1 thread)"
awk -v ri=$r_ir -v mi=$m_ir -v rd=$r_d1 -v md=$m_d1 -v n=$elements 'BEGIN {
  printf "relayout: %d instructions (%.3f per element), %d D1 misses\n", ri, ri/n, rd;
  printf "memcpy:   %d instructions (%.3f per element), %d D1 misses\n", mi, mi/n, md;
  printf "D1 misses relayout/memcpy: %.3fx\n", rd/md }'
