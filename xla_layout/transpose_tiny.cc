#include "xla_layout/transpose_tiny.h"

#include <immintrin.h>

namespace xla_layout::internal {
namespace {

// Two rounds of in-lane shuffles on registers r[0..7]: in every 128-bit
// lane L of u[c] (c < 4) sit elements 4L + c of r[0..3], in u[4 + c] those
// of r[4..7]. Written out over constant indices: a loop over register arrays
// may leave them on the stack.
__attribute__((target("avx512f"), always_inline)) inline void InLaneRounds(const __m512* r,
                                                                         __m512* u) {
  const __m512 t0 = _mm512_unpacklo_ps(r[0], r[1]), t1 = _mm512_unpackhi_ps(r[0], r[1]);
  const __m512 t2 = _mm512_unpacklo_ps(r[2], r[3]), t3 = _mm512_unpackhi_ps(r[2], r[3]);
  const __m512 t4 = _mm512_unpacklo_ps(r[4], r[5]), t5 = _mm512_unpackhi_ps(r[4], r[5]);
  const __m512 t6 = _mm512_unpacklo_ps(r[6], r[7]), t7 = _mm512_unpackhi_ps(r[6], r[7]);
  u[0] = _mm512_shuffle_ps(t0, t2, 0x44);
  u[1] = _mm512_shuffle_ps(t0, t2, 0xEE);
  u[2] = _mm512_shuffle_ps(t1, t3, 0x44);
  u[3] = _mm512_shuffle_ps(t1, t3, 0xEE);
  u[4] = _mm512_shuffle_ps(t4, t6, 0x44);
  u[5] = _mm512_shuffle_ps(t4, t6, 0xEE);
  u[6] = _mm512_shuffle_ps(t5, t7, 0x44);
  u[7] = _mm512_shuffle_ps(t5, t7, 0xEE);
}

// Destination rows c and c + 4 (c < 4) of a block, each one 64-byte store
// of u[c] and u[4 + c] through the permute `first` or `second`.
__attribute__((target("avx512f"), always_inline)) inline void StoreRowPairs(
    const __m512* u, __m512i first, __m512i second, char* d, int64_t dsa) {
  const int64_t d4 = 4 * dsa;
#pragma GCC unroll 4
  for (int c = 0; c < 4; ++c, d += dsa) {
    _mm512_storeu_ps(d, _mm512_permutex2var_ps(u[c], first, u[4 + c]));
    _mm512_storeu_ps(d + d4, _mm512_permutex2var_ps(u[c], second, u[4 + c]));
  }
}

// 8 columns (a) by 16 rows (b): register k holds rows k and k + 8, so after
// the in-lane rounds destination row a is lanes a / 4 and a / 4 + 2 of
// u[a % 4] and of u[4 + a % 4], interleaved: one permute, one 64-byte
// store. Row addresses by pointer bumps, not k * ssb: sixteen products
// would not fit in registers, and a spilled one reloaded after a store to
// a destination that matches it modulo 4 KiB waits for that store.
__attribute__((target("avx512f"), always_inline)) inline void Block8x16(const char* s, char* d,
                                                                      int64_t ssb, int64_t dsa) {
  __m512 r[8], u[8];
  const int64_t s8 = 8 * ssb;
#pragma GCC unroll 8
  for (int k = 0; k < 8; ++k, s += ssb) {
    const __m256 lo = _mm256_loadu_ps(reinterpret_cast<const float*>(s));
    const __m256 hi = _mm256_loadu_ps(reinterpret_cast<const float*>(s + s8));
    r[k] = _mm512_castpd_ps(
        _mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(lo)), _mm256_castps_pd(hi), 1));
  }
  InLaneRounds(r, u);
  const __m512i lanes02 =
      _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27);
  const __m512i lanes13 =
      _mm512_setr_epi32(4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31);
  StoreRowPairs(u, lanes02, lanes13, d, dsa);
}

// The same block when its 16 source rows are contiguous (ssb == 32: the
// [8,N]{0,1} sources): register k is rows 2k and 2k + 1, one 64-byte load
// and no insert, and after a round of 32-bit and a round of 64-bit in-lane
// interleaves destination row a is lanes of u[a % 4] and u[4 + a % 4] that
// one permute orders: 24 shuffles where the block above takes 32.
__attribute__((target("avx512f"), always_inline)) inline void Block8x16Rows32(const char* s,
                                                                            char* d,
                                                                            int64_t dsa) {
  __m512 r[8], t[8], u[8];
#pragma GCC unroll 8
  for (int k = 0; k < 8; ++k) r[k] = _mm512_loadu_ps(s + 64 * k);
#pragma GCC unroll 4
  for (int j = 0; j < 8; j += 2) {
    t[j] = _mm512_unpacklo_ps(r[j], r[j + 1]);
    t[j + 1] = _mm512_unpackhi_ps(r[j], r[j + 1]);
  }
  auto pd = [](__m512 v) __attribute__((target("avx512f"), always_inline)) {
    return _mm512_castps_pd(v);
  };
#pragma GCC unroll 2
  for (int j = 0; j < 8; j += 4) {
#pragma GCC unroll 2
    for (int i = 0; i < 2; ++i) {
      u[j + 2 * i] = _mm512_castpd_ps(_mm512_unpacklo_pd(pd(t[j + i]), pd(t[j + i + 2])));
      u[j + 2 * i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(pd(t[j + i]), pd(t[j + i + 2])));
    }
  }
  const __m512i low =
      _mm512_setr_epi32(0, 8, 1, 9, 2, 10, 3, 11, 16, 24, 17, 25, 18, 26, 19, 27);
  const __m512i high =
      _mm512_setr_epi32(4, 12, 5, 13, 6, 14, 7, 15, 20, 28, 21, 29, 22, 30, 23, 31);
  StoreRowPairs(u, low, high, d, dsa);
}

// 16 columns (a) by 8 rows (b) into destination rows of 8 elements that
// follow each other (dsa == 32: T(8,1) tiles, [N,256] to column-major):
// destination rows 2m and 2m + 1 are one 64-byte line, made of the 64-bit
// pair m of every source row. A round of 64-bit interleaves and a round of
// 128-bit lane shuffles transpose the pairs; one permute per line then
// splits each pair into its two rows: 24 shuffles, 8 loads, 8 stores.
__attribute__((target("avx512f"), always_inline)) inline void Block16x8Lines(const char* s,
                                                                           char* d,
                                                                           int64_t ssb) {
  __m512d r[8], t[8], w[8];
#pragma GCC unroll 8
  for (int k = 0; k < 8; ++k, s += ssb) r[k] = _mm512_loadu_pd(s);
#pragma GCC unroll 4
  for (int k = 0; k < 8; k += 2) {
    t[k] = _mm512_unpacklo_pd(r[k], r[k + 1]);
    t[k + 1] = _mm512_unpackhi_pd(r[k], r[k + 1]);
  }
  // w[j + m] (m < 4) holds pair m (in lanes 0 and 1) and pair m + 4 (in
  // lanes 2 and 3) of rows j .. j + 3.
#pragma GCC unroll 2
  for (int j = 0; j < 8; j += 4) {
    w[j] = _mm512_shuffle_f64x2(t[j], t[j + 2], 0x88);
    w[j + 1] = _mm512_shuffle_f64x2(t[j + 1], t[j + 3], 0x88);
    w[j + 2] = _mm512_shuffle_f64x2(t[j], t[j + 2], 0xDD);
    w[j + 3] = _mm512_shuffle_f64x2(t[j + 1], t[j + 3], 0xDD);
  }
  const __m512i low =
      _mm512_setr_epi32(0, 2, 8, 10, 16, 18, 24, 26, 1, 3, 9, 11, 17, 19, 25, 27);
  const __m512i high =
      _mm512_setr_epi32(4, 6, 12, 14, 20, 22, 28, 30, 5, 7, 13, 15, 21, 23, 29, 31);
#pragma GCC unroll 4
  for (int m = 0; m < 4; ++m) {
    const __m512 x = _mm512_castpd_ps(w[m]), y = _mm512_castpd_ps(w[4 + m]);
    _mm512_storeu_ps(d + 64 * m, _mm512_permutex2var_ps(x, low, y));
    _mm512_storeu_ps(d + 64 * (m + 4), _mm512_permutex2var_ps(x, high, y));
  }
}

}  // namespace

bool TakesTransposeTiny(int64_t es, int64_t na, int64_t nb, int64_t dsa, Isa isa) {
  // Rows of 8 back to back only with 4 blocks or more a plane: one or two
  // ([16,16] into T(8,1), [2,4,32,32] into T(8,1) by planes of 32) measured
  // no faster than transpose planes, or slower.
  const bool lines = na % 16 == 0 && na >= 64 && nb == 8 && dsa == 32;
  const bool blocks = (na % 8 == 0 && nb % 16 == 0) || lines;
  return isa == Isa::kAvx512 && es == 4 && na > 0 && nb > 0 && blocks &&
         na * nb <= kMaxTinyElements;
}

__attribute__((target("avx512f"))) void TransposeTiny32(const char* src, char* dst,
                                                        int64_t na, int64_t nb, int64_t ssb,
                                                        int64_t dsa) {
  if (nb == 8) {
    for (int64_t a = 0; a < na; a += 16, src += 64, dst += 512) Block16x8Lines(src, dst, ssb);
    return;
  }
  // One block alone keeps the 32-byte loads: measured, Block8x16Rows32
  // made f32[8,16]{0,1} -> {1,0} slower (0.25-0.34x of memcpy against
  // 0.34-0.45x) and [8,128]{0,1} -> {1,0} faster (0.78x against 0.65-0.67x),
  // three alternating relayout_bench replay runs each.
  if (na == 8 && ssb == 32 && nb > 16) {
    for (int64_t b = 0; b < nb; b += 16, src += 512, dst += 64) Block8x16Rows32(src, dst, dsa);
    return;
  }
  // Blocks along a in the inner loop, by pointer bumps: few live values,
  // so nothing waits on the stack between blocks.
  for (int64_t b = 0; b < nb; b += 16, src += 16 * ssb, dst += 64) {
    char* d = dst;
    for (const char *s = src, *end = src + na * 4; s != end; s += 32, d += 8 * dsa) {
      Block8x16(s, d, ssb, dsa);
    }
  }
}

}  // namespace xla_layout::internal
