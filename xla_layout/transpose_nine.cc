#include "xla_layout/transpose_nine.h"

#include <immintrin.h>

#include "xla_layout/simd_transpose.h"

namespace xla_layout::internal {
namespace {

// Element 0 of `lo` in lane 0 and of `hi` in lane 4 (the other lanes are
// copies of them, which the unpack and shuffle below drop): two broadcast
// loads and a blend, so nothing past the 9th element is read.
__attribute__((target("avx2"), always_inline)) inline __m256 Single(const char* lo,
                                                                     const char* hi) {
  const __m256 l = _mm256_broadcast_ss(reinterpret_cast<const float*>(lo));
  const __m256 h = _mm256_broadcast_ss(reinterpret_cast<const float*>(hi));
  return _mm256_blend_ps(l, h, 0xF0);
}

// Rows 0..7 from `s` (ssb apart), columns 0..8, to the 9 destination rows
// from `out` (dsa apart), 32 bytes each.
__attribute__((target("avx2"), always_inline)) inline void Block(const char* s, int64_t ssb,
                                                                  char* out, int64_t dsa) {
  __m256 v[9];
  Transpose8x8ToRegs(s, ssb, v);
  const char* p = s + 32;
  const __m256 t0 = _mm256_unpacklo_ps(Single(p, p + 4 * ssb), Single(p + ssb, p + 5 * ssb));
  const __m256 t2 =
      _mm256_unpacklo_ps(Single(p + 2 * ssb, p + 6 * ssb), Single(p + 3 * ssb, p + 7 * ssb));
  v[8] = _mm256_shuffle_ps(t0, t2, 0x44);
#pragma GCC unroll 9
  for (int i = 0; i < 9; ++i) _mm256_storeu_ps(reinterpret_cast<float*>(out + i * dsa), v[i]);
}

}  // namespace

__attribute__((target("avx2"))) void TransposeNine32(const char* src, char* dst, int64_t nb,
                                                     int64_t ssb, int64_t dsa) {
  int64_t b = 0;
  for (; b + 8 <= nb; b += 8) Block(src + b * ssb, ssb, dst + b * 4, dsa);
  // The last 8 rows, overlapping the block before them.
  if (b < nb) Block(src + (nb - 8) * ssb, ssb, dst + (nb - 8) * 4, dsa);
}

}  // namespace xla_layout::internal
