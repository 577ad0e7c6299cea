#include "xla_layout/transpose_weights.h"

#include <immintrin.h>

#include <cstring>

#include "xla_layout/simd_transpose.h"
#include "xla_layout/transpose_nine.h"

namespace xla_layout::internal {
namespace {

// Columns left over past the last multiple of 8 up to this many go one by
// one; more take one 8x8 column block overlapping the one before it.
constexpr int64_t kMaxLoneColumns = 2;

// Columns a .. a + 7, down every source row in blocks of 8 (the last one
// overlapping the one before it, nb >= 8): each destination row written
// front to back, 32 bytes per store.
__attribute__((target("avx2"), always_inline)) inline void ColumnBlock(
    const char* src, char* dst, int64_t a, int64_t nb, int64_t ssb, int64_t dsa) {
  const char* s = src + a * 4;
  char* d = dst + a * dsa;
  for (int64_t b0 = 0; b0 < nb; b0 += 8) {
    const int64_t b = b0 + 8 <= nb ? b0 : nb - 8;
    __m256 v[8];
    Transpose8x8ToRegs(s + b * ssb, ssb, v);
    char* out = d + b * 4;
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) _mm256_storeu_ps(reinterpret_cast<float*>(out + i * dsa), v[i]);
  }
}

// Column a alone, element by element.
void ScalarColumn(const char* src, char* dst, int64_t a, int64_t nb, int64_t ssb, int64_t dsa) {
  const char* s = src + a * 4;
  char* d = dst + a * dsa;
  for (int64_t b = 0; b < nb; ++b) std::memcpy(d + b * 4, s + b * ssb, 4);
}

// Whether PermutedColumn takes rows `ssb` bytes apart: 4 rows within 32
// elements (two registers).
constexpr bool PermutesColumn(int64_t ssb) { return ssb % 4 == 0 && 3 * (ssb / 4) + 1 <= 32; }

// Column a alone on AVX-512, for rows PermutesColumn takes: per 8 rows two
// pairs of masked loads (nothing past the last row's element is read) and
// two two-register permutes, one 32-byte store.
__attribute__((target("avx512f"))) void PermutedColumn(const char* src, char* dst, int64_t a,
                                                      int64_t nb, int64_t ssb, int64_t dsa) {
  const int32_t step = static_cast<int32_t>(ssb / 4);
  const int span = 3 * step + 1;  // elements from row 0's to row 3's
  const __mmask16 lo = span >= 16 ? 0xFFFF : static_cast<__mmask16>((1u << span) - 1);
  const __mmask16 hi = span <= 16 ? 0 : static_cast<__mmask16>((1u << (span - 16)) - 1);
  // Rows 0..3 to lanes 0..3 from the first pair, rows 4..7 to lanes 4..7
  // from the second.
  const __m512i index =
      _mm512_setr_epi32(0, step, 2 * step, 3 * step, 0, step, 2 * step, 3 * step, 0, 0, 0, 0,
                        0, 0, 0, 0);
  const float* s = reinterpret_cast<const float*>(src + a * 4);
  char* d = dst + a * dsa;
  // Blocks of 8 rows, the last one overlapping the one before it.
  for (int64_t b0 = 0; b0 < nb; b0 += 8) {
    const int64_t b = b0 + 8 <= nb ? b0 : nb - 8;
    const float* p = s + b * step;
    const float* q = p + 4 * step;
    const __m512 r0 = _mm512_permutex2var_ps(_mm512_maskz_loadu_ps(lo, p), index,
                                             _mm512_maskz_loadu_ps(hi, p + 16));
    const __m512 r1 = _mm512_permutex2var_ps(_mm512_maskz_loadu_ps(lo, q), index,
                                             _mm512_maskz_loadu_ps(hi, q + 16));
    _mm256_storeu_ps(reinterpret_cast<float*>(d + b * 4),
                     _mm512_castps512_ps256(_mm512_mask_blend_ps(0xF0, r0, r1)));
  }
}

// TransposeWeights32.
__attribute__((target("avx2"), always_inline)) inline void Transpose(
    const char* src, char* dst, int64_t na, int64_t nb, int64_t ssb, int64_t dsa, Isa isa) {
  if (na == 9) return TransposeNine32(src, dst, nb, ssb, dsa, isa);
  const int64_t na8 = na & ~int64_t{7};
  for (int64_t a = 0; a < na8; a += 8) ColumnBlock(src, dst, a, nb, ssb, dsa);
  if (na - na8 > kMaxLoneColumns) return ColumnBlock(src, dst, na - 8, nb, ssb, dsa);
  for (int64_t a = na8; a < na; ++a) {
    if (isa == Isa::kAvx512 && PermutesColumn(ssb)) {
      PermutedColumn(src, dst, a, nb, ssb, dsa);
    } else {
      ScalarColumn(src, dst, a, nb, ssb, dsa);
    }
  }
}

}  // namespace

__attribute__((target("avx2"))) void TransposeWeights32(const char* src, char* dst, int64_t na,
                                                        int64_t nb, int64_t ssb, int64_t dsa,
                                                        Isa isa) {
  Transpose(src, dst, na, nb, ssb, dsa, isa);
}

void TransposeColumn32(const char* src, char* dst, int64_t nb, int64_t ssb, Isa isa) {
  if (isa == Isa::kAvx512 && nb >= 8 && PermutesColumn(ssb)) {
    PermutedColumn(src, dst, 0, nb, ssb, 0);
  } else {
    ScalarColumn(src, dst, 0, nb, ssb, 0);
  }
}

bool TakesTransposeWeights(int64_t es, int64_t na, int64_t nb, int64_t ssb, Isa isa) {
  // Blocks of exactly 8 or 16 rows by whole column blocks (T(8,1) and
  // T(16,1) panels) are the kernel set's own direct case, which measured
  // faster on them (f32[16,16] into T(8,1), f32[8,16]{0,1} to {1,0}).
  const bool panel = (nb == 8 || nb == 16) && na % 8 == 0;
  return es == 4 && (isa == Isa::kAvx2 || isa == Isa::kAvx512) && na >= 8 &&
         na <= kMaxWeightColumns && nb >= 8 && ssb > 0 && nb * ssb <= kMaxWeightSourceBytes &&
         !panel;
}

}  // namespace xla_layout::internal
