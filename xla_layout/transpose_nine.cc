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

// Index vectors of Every3rd for phase k (k < 3): lane l takes element
// x = 3l + k of the 48 in a, b, c; those below 32 come from a and b in
// one permute, the rest from c in a second, masked to their lanes.
struct alignas(64) Lanes {
  int32_t v[16];
};
constexpr Lanes FromFirstTwo(int k) {
  Lanes r{};
  for (int l = 0; l < 16; ++l) r.v[l] = 3 * l + k < 32 ? 3 * l + k : 0;
  return r;
}
constexpr Lanes FromThird(int k) {
  Lanes r{};
  for (int l = 0; l < 16; ++l) r.v[l] = 3 * l + k >= 32 ? 16 + 3 * l + k - 32 : 0;
  return r;
}
constexpr __mmask16 ThirdMask(int k) {
  int m = 0;
  for (int l = 0; l < 16; ++l) m |= (3 * l + k >= 32 ? 1 : 0) << l;
  return static_cast<__mmask16>(m);
}
constexpr Lanes kFromFirstTwo[3] = {FromFirstTwo(0), FromFirstTwo(1), FromFirstTwo(2)};
constexpr Lanes kFromThird[3] = {FromThird(0), FromThird(1), FromThird(2)};

// Elements k, k + 3, ..., k + 45 of the 48 in a, b, c: two permutes.
template <int kPhase>
__attribute__((target("avx512f"), always_inline)) inline __m512 Every3rd(__m512 a, __m512 b,
                                                                       __m512 c) {
  const __m512 ab =
      _mm512_permutex2var_ps(a, _mm512_load_si512(kFromFirstTwo[kPhase].v), b);
  return _mm512_mask_permutex2var_ps(ab, ThirdMask(kPhase),
                                     _mm512_load_si512(kFromThird[kPhase].v), c);
}

// 16 source rows of 9 elements back to back (576 bytes, nine 64-byte
// loads) into 9 destination rows of 16 (dsa bytes apart): element
// 9c + k goes to row k. Stride 9 is stride 3 twice: the first round
// splits the elements by their index mod 3 (g[m][i]: elements 48i + 3l +
// m), the second splits each of those by the index mod 3 again, giving
// row k = m + 3n. 36 permutes, where the AVX2 blocks take 62 shuffles,
// inserts and blends and 16 broadcast loads for the same 16 rows.
__attribute__((target("avx512f"), always_inline)) inline void Block16(const char* s, char* d,
                                                                    int64_t dsa) {
  __m512 z[9], g[3][3];
#pragma GCC unroll 9
  for (int j = 0; j < 9; ++j) z[j] = _mm512_loadu_ps(s + 64 * j);
#pragma GCC unroll 3
  for (int i = 0; i < 3; ++i) {
    g[0][i] = Every3rd<0>(z[3 * i], z[3 * i + 1], z[3 * i + 2]);
    g[1][i] = Every3rd<1>(z[3 * i], z[3 * i + 1], z[3 * i + 2]);
    g[2][i] = Every3rd<2>(z[3 * i], z[3 * i + 1], z[3 * i + 2]);
  }
#pragma GCC unroll 3
  for (int m = 0; m < 3; ++m) {
    _mm512_storeu_ps(d + m * dsa, Every3rd<0>(g[m][0], g[m][1], g[m][2]));
    _mm512_storeu_ps(d + (m + 3) * dsa, Every3rd<1>(g[m][0], g[m][1], g[m][2]));
    _mm512_storeu_ps(d + (m + 6) * dsa, Every3rd<2>(g[m][0], g[m][1], g[m][2]));
  }
}

__attribute__((target("avx512f"))) void Nine32Avx512(const char* src, char* dst, int64_t nb,
                                                    int64_t dsa) {
  int64_t b = 0;
  for (; b + 16 <= nb; b += 16) Block16(src + b * 36, dst + b * 4, dsa);
  // The last 16 rows, overlapping the block before them.
  if (b < nb) Block16(src + (nb - 16) * 36, dst + (nb - 16) * 4, dsa);
}

__attribute__((target("avx2"))) void Nine32Avx2(const char* src, char* dst, int64_t nb,
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

}  // namespace

bool TakesNine32Avx512(int64_t nb, int64_t ssb, Isa isa) {
  return isa == Isa::kAvx512 && ssb == 36 && nb >= 16;
}

void TransposeNine32(const char* src, char* dst, int64_t nb, int64_t ssb, int64_t dsa,
                     Isa isa) {
  if (TakesNine32Avx512(nb, ssb, isa)) return Nine32Avx512(src, dst, nb, dsa);
  return Nine32Avx2(src, dst, nb, ssb, dsa);
}

}  // namespace xla_layout::internal
