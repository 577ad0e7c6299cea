#!/usr/bin/env bash
# Writes an f32 .npy file of ROWS x COLS ones, with the elements listed as
# ROW,COL=BITS (BITS in hex) set to those bits: NaN payloads and signalling
# NaNs exactly, which no HLO constant run by the executor keeps.
#
#   write_f32_npy.sh OUT ROWS COLS [ROW,COL=BITS ...]
set -eu
out=$1 rows=$2 cols=$3
shift 3
words=()
for ((k = 0; k < rows * cols; ++k)); do words[k]=3f800000; done
for set in "$@"; do
  at=${set%%=*} bits=${set#*=}
  words[${at%%,*} * cols + ${at#*,}]=$bits
done
header="{'descr': '<f4', 'fortran_order': False, 'shape': ($rows, $cols), }"
# numpy pads the header with spaces and a newline to a multiple of 64 bytes.
len=$(( (10 + ${#header} + 1 + 63) / 64 * 64 - 10 ))
{
  printf '\x93NUMPY\x01\x00'
  printf "\\x$(printf %02x $((len & 255)))\\x$(printf %02x $((len >> 8)))"
  printf '%-*s\n' $((len - 1)) "$header"
  for w in "${words[@]}"; do  # little-endian
    printf "\\x${w:6:2}\\x${w:4:2}\\x${w:2:2}\\x${w:0:2}"
  done
} > "$out"
