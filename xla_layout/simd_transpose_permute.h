// The 8x8 register transpose of 32-bit elements by two-source permutes
// (vpermt2ps) that the packing core's AVX-512 transposes
// (transpose_permute.h) and the copy references (copy_reference.h) build
// their blocks from: two source rows to a register, a round that gathers
// four rows of four columns per register, and one that takes each pair of
// destination rows from two of those. Eight permutes per 256 bytes (and
// four inserts when the source rows are not back to back), where the AVX2
// block (simd_transpose_rows.h) takes 16 in-lane shuffles and 8 inserts.
#ifndef XLA_LAYOUT_SIMD_TRANSPOSE_PERMUTE_H_
#define XLA_LAYOUT_SIMD_TRANSPOSE_PERMUTE_H_

#include <immintrin.h>

#include <cstdint>

#include "xla_layout/simd_copy.h"

namespace xla_layout::internal {

// Transposes the 8x8 block whose row b (b = 0..7) starts at s + b * ssb:
// out[k] holds destination rows 2k and 2k + 1 (element a of every source
// row), row 2k in the low 256 bits. kSrcRows32: the rows are back to back
// (ssb == 32), two to a 64-byte load; otherwise one 32-byte load a row.
template <bool kSrcRows32>
__attribute__((target("avx512f"), always_inline)) inline void Transpose8x8PermuteToRegs(
    const char* s, int64_t ssb, __m512* out) {
  auto load = [&](int k) __attribute__((target("avx512f"), always_inline)) {
    if (kSrcRows32) return _mm512_loadu_ps(s + 64 * k);
    const __m256d lo = _mm256_loadu_pd(reinterpret_cast<const double*>(s + 2 * k * ssb));
    const __m256d hi = _mm256_loadu_pd(reinterpret_cast<const double*>(s + (2 * k + 1) * ssb));
    return _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castpd256_pd512(lo), hi, 1));
  };
  // Lane 4a + b of the first round: column a (of four) of row b (of four).
  const __m512i cols_lo =
      _mm512_setr_epi32(0, 8, 16, 24, 1, 9, 17, 25, 2, 10, 18, 26, 3, 11, 19, 27);
  const __m512i cols_hi =
      _mm512_setr_epi32(4, 12, 20, 28, 5, 13, 21, 29, 6, 14, 22, 30, 7, 15, 23, 31);
  // Lane 8a + b of the second: rows 0-3 from the first source, 4-7 from the second.
  const __m512i rows_lo =
      _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23);
  const __m512i rows_hi =
      _mm512_setr_epi32(8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31);
  const __m512 z0 = load(0), z1 = load(1), z2 = load(2), z3 = load(3);
  const __m512 p0 = _mm512_permutex2var_ps(z0, cols_lo, z1);
  const __m512 p1 = _mm512_permutex2var_ps(z0, cols_hi, z1);
  const __m512 p2 = _mm512_permutex2var_ps(z2, cols_lo, z3);
  const __m512 p3 = _mm512_permutex2var_ps(z2, cols_hi, z3);
  out[0] = _mm512_permutex2var_ps(p0, rows_lo, p2);
  out[1] = _mm512_permutex2var_ps(p0, rows_hi, p2);
  out[2] = _mm512_permutex2var_ps(p1, rows_lo, p3);
  out[3] = _mm512_permutex2var_ps(p1, rows_hi, p3);
}

// Stores `v`, destination rows 2k and 2k + 1 of a block (an out[k] of
// Transpose8x8PermuteToRegs), 32 bytes to `first` and 32 to `second`;
// kStream: non-temporal, to 32-byte aligned rows.
template <bool kStream>
__attribute__((target("avx512f"), always_inline)) inline void StoreRowPair(char* first,
                                                                         char* second,
                                                                         __m512 v) {
  Store32Avx2<kStream>(first, _mm256_castps_si256(_mm512_castps512_ps256(v)));
  Store32Avx2<kStream>(second, _mm256_castpd_si256(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
}

}  // namespace xla_layout::internal

#endif  // XLA_LAYOUT_SIMD_TRANSPOSE_PERMUTE_H_
