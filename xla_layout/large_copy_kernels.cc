#include "xla_layout/large_copy_kernels.h"

#include <immintrin.h>

#include <cstring>

#include "xla_layout/simd_copy.h"
#include "xla_layout/simd_transpose.h"

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
  // Runs that continue each other in the source (a T(8,128) tile's rows,
  // or the tiles along a source row) are one sequential read, which the
  // hardware fetches ahead by itself: fetching them again costs issue slots.
  const bool fetch = rows > 1 && src_stride != bytes;
  for (int64_t r = 0; r < rows; ++r) {
    const char* s = src + r * src_stride;
    char* d = dst + r * dst_stride;
    if (fetch) FetchAfter(s, bytes);
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

// Whole blocks of kBothStagedRows source rows (destination rows a
// multiple of 4 KiB apart): the rows staged, the next block's lines fetched
// into L2 (in L1 they would all fall into the set they share), the block
// transposed by `transpose` into a second block, whose kStagedCols rows of
// kRows * 4 bytes are then copied out, 8 lines to a destination row, not
// one line to each of 16.
__attribute__((target("avx2"))) void TransposeBothBlocks(const char* src, char* dst, int64_t na,
                                                         int64_t nb, int64_t ssb, int64_t dsa,
                                                         TransposeFn transpose) {
  constexpr int64_t kRows = kBothStagedRows;
  alignas(64) char in[kRows * kStageRowBytes];
  alignas(64) char out[kRows * kStageRowBytes];
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
      transpose(in, out, kStagedCols, kRows, kStageRowBytes, kOutRowBytes, 4, false);
      for (int64_t a = 0; a < kStagedCols; ++a) {
        CopyBlocks128Avx2<false>(out + a * kOutRowBytes, dst + (a0 + a) * dsa + b0 * 4,
                                 kOutRowBytes);
      }
    }
  }
}

// Stages rows [r0, r0 + n) of the block at `from` (kStagedCols of each)
// into `in`, fetching the same rows of the block at `ahead` (if any) into
// L2 (in L1 they would all fall into the set they share).
__attribute__((target("avx2"), always_inline)) inline void StageRows(
    const char* from, const char* ahead, char* in, int64_t r0, int64_t n, int64_t ssb) {
  for (int64_t r = r0; r < r0 + n; ++r) {
    if (ahead != nullptr) {
      _mm_prefetch(ahead + r * ssb, _MM_HINT_T2);
      _mm_prefetch(ahead + r * ssb + 64, _MM_HINT_T2);
    }
    CopyBlocks128Avx2<false>(from + r * ssb, in + r * kStageRowBytes, kStageRowBytes);
  }
}

// Whole blocks of kSourceStagedRows source rows by kStagedCols, destination
// written straight from the stage. The order of the stores is what counts:
// the 8 destination rows of an 8x16 register transpose get their lines of
// the whole block (256 bytes each) before the next 8 rows start, instead
// of 32 rows getting one line each in turn, which in rows a multiple of
// 2 KiB apart put 32 lines into two L1 sets. The next block is staged
// meanwhile, a quarter of its rows per 8 destination rows, into the other
// half of a double stage.
__attribute__((target("avx2"))) void TransposeSourceBlocks(const char* src, char* dst,
                                                           int64_t na, int64_t nb, int64_t ssb,
                                                           int64_t dsa) {
  constexpr int64_t kRows = kSourceStagedRows;
  constexpr int64_t kRowsPerOctet = kRows / (kStagedCols / 8);
  alignas(64) char in[2][kRows * kStageRowBytes];
  const int64_t blocks_a = na / kStagedCols, blocks = blocks_a * (nb / kRows);
  auto block = [&](int64_t k) -> const char* {
    return k < blocks ? src + (k % blocks_a) * kStageRowBytes + (k / blocks_a) * kRows * ssb
                      : nullptr;
  };
  StageRows(src, block(1), in[0], 0, kRows, ssb);
  for (int64_t k = 0; k < blocks; ++k) {
    const char* next = block(k + 1);
    const char* ahead = block(k + 2);
    const char* stage = in[k & 1];
    char* to = dst + (k % blocks_a) * kStagedCols * dsa + (k / blocks_a) * kRows * 4;
    for (int64_t a = 0; a < kStagedCols; a += 8) {
      if (next != nullptr) {
        StageRows(next, ahead, in[(k + 1) & 1], a / 8 * kRowsPerOctet, kRowsPerOctet, ssb);
      }
      for (int64_t b = 0; b < kRows; b += 16) {
        __m256 lo[8], hi[8];
        Transpose8x8ToRegs(stage + b * kStageRowBytes + a * 4, kStageRowBytes, lo);
        Transpose8x8ToRegs(stage + (b + 8) * kStageRowBytes + a * 4, kStageRowBytes, hi);
        for (int i = 0; i < 8; ++i) {
          float* row = reinterpret_cast<float*>(to + (a + i) * dsa + b * 4);
          _mm256_storeu_ps(row, lo[i]);
          _mm256_storeu_ps(row + 8, hi[i]);
        }
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
    TransposeBothBlocks(src, dst, na, nb, ssb, dsa, transpose);
  } else {
    TransposeSourceBlocks(src, dst, na, nb, ssb, dsa);
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


namespace {

template <bool kStream>
__attribute__((target("avx2"))) inline void Put8(char* p, __m256 v) {
  if (kStream) {
    _mm256_stream_ps(reinterpret_cast<float*>(p), v);
  } else {
    _mm256_storeu_ps(reinterpret_cast<float*>(p), v);
  }
}

template <bool kStream>
__attribute__((target("avx2"))) void Interleave3x32(const char* src, char* dst, int64_t na,
                                                    int64_t ssb) {
  // Output element p of vector k is column (8k + p) / 3 of row (8k + p) % 3:
  // each row is permuted by the columns, and blends (masks of rows 1 and 2)
  // put the three together, instead of 24 scalar moves per 8 columns.
  const __m256i col0 = _mm256_setr_epi32(0, 0, 0, 1, 1, 1, 2, 2);
  const __m256i col1 = _mm256_setr_epi32(2, 3, 3, 3, 4, 4, 4, 5);
  const __m256i col2 = _mm256_setr_epi32(5, 5, 6, 6, 6, 7, 7, 7);
  int64_t a = 0;
  for (; a + 8 <= na; a += 8) {
    const __m256 r0 = _mm256_loadu_ps(reinterpret_cast<const float*>(src + a * 4));
    const __m256 r1 = _mm256_loadu_ps(reinterpret_cast<const float*>(src + ssb + a * 4));
    const __m256 r2 = _mm256_loadu_ps(reinterpret_cast<const float*>(src + 2 * ssb + a * 4));
    __m256 o0 = _mm256_permutevar8x32_ps(r0, col0);
    o0 = _mm256_blend_ps(o0, _mm256_permutevar8x32_ps(r1, col0), 0x92);
    o0 = _mm256_blend_ps(o0, _mm256_permutevar8x32_ps(r2, col0), 0x24);
    __m256 o1 = _mm256_permutevar8x32_ps(r0, col1);
    o1 = _mm256_blend_ps(o1, _mm256_permutevar8x32_ps(r1, col1), 0x24);
    o1 = _mm256_blend_ps(o1, _mm256_permutevar8x32_ps(r2, col1), 0x49);
    __m256 o2 = _mm256_permutevar8x32_ps(r0, col2);
    o2 = _mm256_blend_ps(o2, _mm256_permutevar8x32_ps(r1, col2), 0x49);
    o2 = _mm256_blend_ps(o2, _mm256_permutevar8x32_ps(r2, col2), 0x92);
    Put8<kStream>(dst + a * 12, o0);
    Put8<kStream>(dst + a * 12 + 32, o1);
    Put8<kStream>(dst + a * 12 + 64, o2);
  }
  for (; a < na; ++a) {
    for (int r = 0; r < 3; ++r) std::memcpy(dst + a * 12 + r * 4, src + r * ssb + a * 4, 4);
  }
}

}  // namespace

void Interleave3x32Avx2(const char* src, char* dst, int64_t na, int64_t ssb, bool streaming) {
  if (streaming && reinterpret_cast<uintptr_t>(dst) % 32 == 0) {
    return Interleave3x32<true>(src, dst, na, ssb);
  }
  Interleave3x32<false>(src, dst, na, ssb);
}

}  // namespace xla_layout::internal
