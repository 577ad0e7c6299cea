// The transpose of nine 32-bit columns ([C,1,3,3] to {0,1,3,2}: C rows of
// 9 elements becoming 9 rows of C, with or without T(1,128)).
// - AVX2, 8 source rows per step: the 8x8 register transpose of the first
//   8 columns (simd_transpose_rows.h) and the 9th column of the same rows
//   from 8 one-element broadcast loads, so the source is read once and
//   nothing past a row's 9th element is read.
// - AVX-512, where the source rows are back to back: 16 rows per step,
//   their 576 bytes in nine 64-byte loads, split by element index mod 3
//   twice with two-source permutes, each destination row's 16 elements one
//   64-byte store.
// Every block, the last one too (overlapping the block before it), is the
// same straight-line code: no lone-column sweep and no element loop for
// the rows left over.
#ifndef XLA_LAYOUT_TRANSPOSE_NINE_H_
#define XLA_LAYOUT_TRANSPOSE_NINE_H_

#include <cstdint>

#include "xla_layout/isa.h"

namespace xla_layout::internal {

// For a < 9, b < nb (offsets in bytes, 32-bit elements):
//   dst[a * dsa + b * 4] = src[a * 4 + b * ssb]
// Needs AVX2 (the caller checks), nb >= 8 and ssb >= 36; takes the
// AVX-512 blocks where `isa` is kAvx512 (the CPU has it), ssb == 36 and
// nb >= 16. Reads only the 9 elements of each source row; the destination
// must not overlap the source.
void TransposeNine32(const char* src, char* dst, int64_t nb, int64_t ssb, int64_t dsa, Isa isa);

// Whether TransposeNine32 takes the AVX-512 blocks for these rows.
bool TakesNine32Avx512(int64_t nb, int64_t ssb, Isa isa);

}  // namespace xla_layout::internal

#endif  // XLA_LAYOUT_TRANSPOSE_NINE_H_
