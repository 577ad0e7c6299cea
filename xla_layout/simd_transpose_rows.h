// The 8x8 register transpose of 32-bit elements from eight row addresses
// that the caller forms (simd_transpose.h forms them as src + b * ssb).
// A kernel that keeps many row addresses live (the [C,9] transpose: 8
// source rows and 9 destination rows) can form them from two bases and
// two strides through x86's base + index * scale addressing, where eight
// separate pointers would spill to the stack and be reloaded every block.
#ifndef XLA_LAYOUT_SIMD_TRANSPOSE_ROWS_H_
#define XLA_LAYOUT_SIMD_TRANSPOSE_ROWS_H_

#include <immintrin.h>

namespace xla_layout::internal {

// Transposes the 8x8 block whose row b (b = 0..7) starts at row(b):
// out[a] holds element a of every row, row b in lane b. Rows b and b + 4
// are loaded into the two halves of one register (a 128-bit load and an
// insert each), so two rounds of in-lane shuffles finish the transpose:
// 16 shuffles and 8 inserts, where three rounds over whole rows take 24
// shuffles, 8 of them lane-crossing.
template <typename RowFn>
__attribute__((target("avx2"), always_inline)) inline void Transpose8x8RowsToRegs(RowFn row,
                                                                                  __m256* out) {
  auto pair = [&](int b, int a0) __attribute__((target("avx2"), always_inline)) {
    const __m128 lo = _mm_loadu_ps(reinterpret_cast<const float*>(row(b) + a0 * 4));
    const __m128 hi = _mm_loadu_ps(reinterpret_cast<const float*>(row(b + 4) + a0 * 4));
    return _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
  };
  auto half = [&](int a0) __attribute__((target("avx2"), always_inline)) {
    const __m256 r0 = pair(0, a0), r1 = pair(1, a0), r2 = pair(2, a0), r3 = pair(3, a0);
    const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    const __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    out[a0 + 0] = _mm256_shuffle_ps(t0, t2, 0x44);
    out[a0 + 1] = _mm256_shuffle_ps(t0, t2, 0xEE);
    out[a0 + 2] = _mm256_shuffle_ps(t1, t3, 0x44);
    out[a0 + 3] = _mm256_shuffle_ps(t1, t3, 0xEE);
  };
  half(0);
  half(4);
}

}  // namespace xla_layout::internal

#endif  // XLA_LAYOUT_SIMD_TRANSPOSE_ROWS_H_
