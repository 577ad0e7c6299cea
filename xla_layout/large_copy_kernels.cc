#include "xla_layout/large_copy_kernels.h"

#include <immintrin.h>

#include "xla_layout/simd_copy.h"

namespace xla_layout::internal {

namespace {

// The next call usually reads on where this run ends (the next tile of the
// same source rows): its lines are fetched while this run is copied.
inline void FetchAfter(const char* run, int64_t bytes) {
  for (int64_t k = 0; k < bytes; k += 64) _mm_prefetch(run + bytes + k, _MM_HINT_T0);
}

}  // namespace

__attribute__((target("avx2"))) void CopyLineRunsAvx2(const char* src, char* dst,
                                                      int64_t rows, int64_t bytes,
                                                      int64_t src_stride,
                                                      int64_t dst_stride) {
  for (int64_t r = 0; r < rows; ++r) {
    const char* s = src + r * src_stride;
    char* d = dst + r * dst_stride;
    if (rows > 1) FetchAfter(s, bytes);
    for (int64_t i = 0; i < bytes; i += 64) {
      const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i));
      const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i + 32));
      Store32Avx2<true>(d + i, lo);
      Store32Avx2<true>(d + i + 32, hi);
    }
  }
}

namespace {

// A staged block: kStagedCols elements (a) of each of its source rows (b),
// 128 bytes, two lines.
constexpr int64_t kStageRowBytes = kStagedCols * 4;

// Whole blocks of kRows source rows: the rows staged, the next block's lines
// fetched into L2 (in L1 they would all fall into the set they share), the
// block transposed by `transpose`; with kStageDst into a second block first,
// whose kStagedCols rows of kRows * 4 bytes are then copied out, 8 lines to a
// destination row, not one line to each of 16.
template <int64_t kRows, bool kStageDst>
__attribute__((target("avx2"))) void TransposeBlocks(const char* src, char* dst, int64_t na,
                                                     int64_t nb, int64_t ssb, int64_t dsa,
                                                     TransposeFn transpose) {
  alignas(64) char in[kRows * kStageRowBytes];
  alignas(64) char out[kStageDst ? kRows * kStageRowBytes : 64];
  constexpr int64_t kOutRowBytes = kRows * 4;
  for (int64_t b0 = 0; b0 + kRows <= nb; b0 += kRows) {
    for (int64_t a0 = 0; a0 + kStagedCols <= na; a0 += kStagedCols) {
      const bool fetch = a0 + 2 * kStagedCols <= na;
      for (int64_t r = 0; r < kRows; ++r) {
        const char* row = src + a0 * 4 + (b0 + r) * ssb;
        if (fetch) {
          _mm_prefetch(row + kStageRowBytes, _MM_HINT_T2);
          _mm_prefetch(row + kStageRowBytes + 64, _MM_HINT_T2);
        }
        CopyBlocks128Avx2<false>(row, in + r * kStageRowBytes, kStageRowBytes);
      }
      char* to = dst + a0 * dsa + b0 * 4;
      if (!kStageDst) {
        transpose(in, to, kStagedCols, kRows, kStageRowBytes, dsa, 4, false);
        continue;
      }
      transpose(in, out, kStagedCols, kRows, kStageRowBytes, kOutRowBytes, 4, false);
      for (int64_t a = 0; a < kStagedCols; ++a) {
        CopyBlocks128Avx2<false>(out + a * kOutRowBytes, to + a * dsa, kOutRowBytes);
      }
    }
  }
}

}  // namespace

void TransposeStaged(const char* src, char* dst, int64_t na, int64_t nb, int64_t ssb,
                     int64_t dsa, TransposeFn transpose) {
  // Source rows per block: 64 (8 KiB staged); 128 when the destination is
  // staged too (its rows share a set), so each gets 512 bytes at a time.
  const bool both = dsa % 4096 == 0;
  const int64_t rows = both ? kBothStagedRows : kSourceStagedRows;
  if (both) {
    TransposeBlocks<kBothStagedRows, true>(src, dst, na, nb, ssb, dsa, transpose);
  } else {
    TransposeBlocks<kSourceStagedRows, false>(src, dst, na, nb, ssb, dsa, transpose);
  }
  const int64_t na_whole = na / kStagedCols * kStagedCols, nb_whole = nb / rows * rows;
  if (na_whole < na) {
    transpose(src + na_whole * 4, dst + na_whole * dsa, na - na_whole, nb, ssb, dsa, 4, false);
  }
  if (nb_whole < nb) {
    transpose(src + nb_whole * ssb, dst + nb_whole * 4, na_whole, nb - nb_whole, ssb, dsa, 4,
              false);
  }
}

}  // namespace xla_layout::internal
