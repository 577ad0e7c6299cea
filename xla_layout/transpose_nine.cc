#include "xla_layout/transpose_nine.h"

#include <immintrin.h>

#include "xla_layout/simd_transpose_rows.h"

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

// Rows 0..7 from `s`, r bytes apart (r3 = 3 * r), columns 0..8, to the 9
// destination rows from `d`, dsa bytes apart (d3 = 3 * dsa), 32 bytes
// each. Every address is a base (s or s + r, d or d + dsa) plus a stride
// times 1, 2 or 4 (x86 addressing), so the loop keeps 8 registers of
// addresses, not 17 that spill and reload from the stack every block.
__attribute__((target("avx2"), always_inline)) inline void Block(const char* s, int64_t r,
                                                                  int64_t r3, char* d,
                                                                  int64_t dsa, int64_t d3) {
  const char* t = s + r;
  const char* row[8] = {s, t, s + 2 * r, s + r3, s + 4 * r, t + 4 * r, s + 2 * r3, t + 2 * r3};
  __m256 v[9];
  auto source_row = [&](int b) __attribute__((always_inline)) { return row[b]; };
  Transpose8x8RowsToRegs(source_row, v);
  const __m256 t0 = _mm256_unpacklo_ps(Single(row[0] + 32, row[4] + 32),
                                       Single(row[1] + 32, row[5] + 32));
  const __m256 t2 = _mm256_unpacklo_ps(Single(row[2] + 32, row[6] + 32),
                                       Single(row[3] + 32, row[7] + 32));
  v[8] = _mm256_shuffle_ps(t0, t2, 0x44);
  char* e = d + dsa;
  char* out[9] = {d, e, d + 2 * dsa, d + d3, d + 4 * dsa, e + 4 * dsa, d + 2 * d3, e + 2 * d3,
                  d + 8 * dsa};
#pragma GCC unroll 9
  for (int i = 0; i < 9; ++i) _mm256_storeu_ps(reinterpret_cast<float*>(out[i]), v[i]);
}

}  // namespace

__attribute__((target("avx2"))) void TransposeNine32(const char* src, char* dst, int64_t nb,
                                                     int64_t ssb, int64_t dsa) {
  int64_t r3 = 3 * ssb, d3 = 3 * dsa;
  int64_t b = 0;
  for (; b + 8 <= nb; b += 8) {
    // Opaque to the compiler, so that it does not fold the strides into
    // one pointer per row again (17 of them, more than the registers).
    asm("" : "+r"(r3), "+r"(d3));
    Block(src + b * ssb, ssb, r3, dst + b * 4, dsa, d3);
  }
  // The last 8 rows, overlapping the block before them.
  if (b < nb) Block(src + (nb - 8) * ssb, ssb, r3, dst + (nb - 8) * 4, dsa, d3);
}

}  // namespace xla_layout::internal
