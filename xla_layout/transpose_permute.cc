#include "xla_layout/transpose_permute.h"

#include <immintrin.h>

#include <type_traits>

namespace xla_layout::internal {
namespace {

// One 8x8 block. Rows 32 bytes apart take one 64-byte load or store per
// pair; others a 32-byte access per row.
template <bool kSrcRows32, bool kDstRows32>
__attribute__((target("avx512f"), always_inline)) inline void Block8x8Permute(const char* s,
                                                                            char* d,
                                                                            int64_t ssb,
                                                                            int64_t dsa) {
  auto load = [&](int k) __attribute__((target("avx512f"), always_inline)) {
    if (kSrcRows32) return _mm512_loadu_ps(s + 64 * k);
    const __m256d lo = _mm256_loadu_pd(reinterpret_cast<const double*>(s + 2 * k * ssb));
    const __m256d hi = _mm256_loadu_pd(reinterpret_cast<const double*>(s + (2 * k + 1) * ssb));
    return _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castpd256_pd512(lo), hi, 1));
  };
  auto store = [&](int k, __m512 v) __attribute__((target("avx512f"), always_inline)) {
    if (kDstRows32) return _mm512_storeu_ps(d + 64 * k, v);
    _mm256_storeu_ps(reinterpret_cast<float*>(d + 2 * k * dsa), _mm512_castps512_ps256(v));
    _mm256_storeu_pd(reinterpret_cast<double*>(d + (2 * k + 1) * dsa),
                     _mm512_extractf64x4_pd(_mm512_castps_pd(v), 1));
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
  store(0, _mm512_permutex2var_ps(p0, rows_lo, p2));
  store(1, _mm512_permutex2var_ps(p0, rows_hi, p2));
  store(2, _mm512_permutex2var_ps(p1, rows_lo, p3));
  store(3, _mm512_permutex2var_ps(p1, rows_hi, p3));
}

template <bool kSrcRows32, bool kDstRows32>
__attribute__((target("avx512f"))) void Planes8x8(const char* src, char* dst, int64_t planes,
                                                  int64_t pss, int64_t pds, int64_t na,
                                                  int64_t nb, int64_t ssb, int64_t dsa) {
  for (int64_t p = 0; p < planes; ++p, src += pss, dst += pds) {
    for (int64_t b = 0; b < nb; b += 8) {
      const char* s = src + b * ssb;
      char* d = dst + b * 4;
      for (int64_t a = 0; a < na; a += 8, s += 32, d += 8 * dsa) {
        Block8x8Permute<kSrcRows32, kDstRows32>(s, d, ssb, dsa);
      }
    }
  }
}

}  // namespace

bool TakesTransposePlanes8x8(int64_t es, int64_t na, int64_t nb, Isa isa) {
  return isa == Isa::kAvx512 && es == 4 && na > 0 && na % 8 == 0 && (nb == 8 || nb == 16);
}

__attribute__((target("avx512f"))) void TransposePlanes8x8(const char* src, char* dst,
                                                           int64_t planes, int64_t pss,
                                                           int64_t pds, int64_t na, int64_t nb,
                                                           int64_t ssb, int64_t dsa) {
  auto run = [&](auto src_rows32, auto dst_rows32) __attribute__((target("avx512f"))) {
    Planes8x8<decltype(src_rows32)::value, decltype(dst_rows32)::value>(src, dst, planes, pss,
                                                                        pds, na, nb, ssb, dsa);
  };
  using Yes = std::true_type;
  using No = std::false_type;
  if (ssb == 32) return dsa == 32 ? run(Yes(), Yes()) : run(Yes(), No());
  return dsa == 32 ? run(No(), Yes()) : run(No(), No());
}

__attribute__((target("avx512f"))) void TransposeStripsPermute(const char* src, char* dst,
                                                               int64_t na, int64_t nb,
                                                               int64_t ssb, int64_t dsa,
                                                               int64_t strip_rows) {
  // Each tile's two blocks along b in turn: their destination rows of 32
  // bytes make whole lines.
  auto tile = [&](const char* s, char* d) __attribute__((target("avx512f"), always_inline)) {
    for (int half = 0; half < 2; ++half, s += 32, d += 8 * dsa) {
      Block8x8Permute<false, false>(s, d, ssb, dsa);
      Block8x8Permute<false, false>(s + 8 * ssb, d + 32, ssb, dsa);
    }
  };
  for (int64_t b0 = 0; b0 < nb; b0 += strip_rows) {
    const int64_t b1 = b0 + strip_rows < nb ? b0 + strip_rows : nb;
    for (int64_t a = 0; a < na; a += 16) {
      for (int64_t b = b0; b < b1; b += 16) tile(src + a * 4 + b * ssb, dst + a * dsa + b * 4);
    }
  }
}

}  // namespace xla_layout::internal
