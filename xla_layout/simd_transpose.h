// The 8x8 register transpose of 32-bit elements that the packing core's
// AVX2 transpose kernels (relayout_kernels.cc, transpose_narrow.cc) build
// their blocks from.
#ifndef XLA_LAYOUT_SIMD_TRANSPOSE_H_
#define XLA_LAYOUT_SIMD_TRANSPOSE_H_

#include <immintrin.h>

#include <cstdint>

#include "xla_layout/simd_transpose_rows.h"

namespace xla_layout::internal {

// Transposes an 8x8 block of 32-bit elements into registers: out[a] holds
// src[b * ssb + a] for b = 0..7 (Transpose8x8RowsToRegs on those rows).
__attribute__((target("avx2"), always_inline)) inline void Transpose8x8ToRegs(
    const char* src, int64_t ssb, __m256* out) {
  auto row = [&](int b) __attribute__((always_inline)) { return src + b * ssb; };
  Transpose8x8RowsToRegs(row, out);
}

}  // namespace xla_layout::internal

#endif  // XLA_LAYOUT_SIMD_TRANSPOSE_H_
