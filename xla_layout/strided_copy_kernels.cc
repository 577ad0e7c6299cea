#include "xla_layout/strided_copy_kernels.h"

#include <immintrin.h>

#include <cstring>

#include "xla_layout/simd_copy.h"

namespace xla_layout::internal {

namespace {

void CopyPaddedRowsScalar(const char* src, char* dst, int64_t rows, int64_t bytes, int64_t pad,
                          int64_t src_stride, int64_t dst_stride, uint8_t value) {
  for (int64_t r = 0; r < rows; ++r) {
    std::memcpy(dst + r * dst_stride, src + r * src_stride, bytes);
    std::memset(dst + r * dst_stride + bytes, value, pad);
  }
}

__attribute__((target("avx2"))) void CopyPaddedRowsAvx2(const char* src, char* dst,
                                                        int64_t rows, int64_t bytes,
                                                        int64_t pad, int64_t src_stride,
                                                        int64_t dst_stride, uint8_t value) {
  const __m256i fill = _mm256_set1_epi8(static_cast<char>(value));
  for (int64_t r = 0; r < rows; ++r) {
    const char* s = src + r * src_stride;
    char* d = dst + r * dst_stride;
    int64_t i = CopyBlocks128Avx2<false>(s, d, bytes);
    for (; i + 32 <= bytes; i += 32) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i),
                          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i)));
    }
    std::memcpy(d + i, s + i, bytes - i);
    char* p = d + bytes;
    int64_t j = 0;
    for (; j + 32 <= pad; j += 32) _mm256_storeu_si256(reinterpret_cast<__m256i*>(p + j), fill);
    std::memset(p + j, value, pad - j);
  }
}

// 64-byte loads and stores: on this machine's AVX-512 path they took the
// rows at about the speed of a memcpy and memset of the same bytes, where
// 32-byte ones needed twice that (a store per 32 bytes).
__attribute__((target("avx512f"))) void CopyPaddedRowsAvx512(const char* src, char* dst,
                                                             int64_t rows, int64_t bytes,
                                                             int64_t pad, int64_t src_stride,
                                                             int64_t dst_stride,
                                                             uint8_t value) {
  const __m512i fill = _mm512_set1_epi8(static_cast<char>(value));
  for (int64_t r = 0; r < rows; ++r) {
    const char* s = src + r * src_stride;
    char* d = dst + r * dst_stride;
    int64_t i = 0;
    for (; i + 128 <= bytes; i += 128) {
      const __m512i v0 = _mm512_loadu_si512(s + i);
      const __m512i v1 = _mm512_loadu_si512(s + i + 64);
      _mm512_storeu_si512(d + i, v0);
      _mm512_storeu_si512(d + i + 64, v1);
    }
    for (; i + 64 <= bytes; i += 64) _mm512_storeu_si512(d + i, _mm512_loadu_si512(s + i));
    std::memcpy(d + i, s + i, bytes - i);
    char* p = d + bytes;
    int64_t j = 0;
    for (; j + 64 <= pad; j += 64) _mm512_storeu_si512(p + j, fill);
    std::memset(p + j, value, pad - j);
  }
}

}  // namespace

void CopyPaddedRows(const char* src, char* dst, int64_t rows, int64_t bytes, int64_t pad,
                    int64_t src_stride, int64_t dst_stride, uint8_t value, Isa isa) {
  switch (isa) {
    case Isa::kAvx512:
      return CopyPaddedRowsAvx512(src, dst, rows, bytes, pad, src_stride, dst_stride, value);
    case Isa::kAvx2:
      return CopyPaddedRowsAvx2(src, dst, rows, bytes, pad, src_stride, dst_stride, value);
    default:
      return CopyPaddedRowsScalar(src, dst, rows, bytes, pad, src_stride, dst_stride, value);
  }
}

void FusePaddedRows(std::vector<Task>* tasks, int64_t es) {
  std::vector<Task>& t = *tasks;
  for (size_t f = 0; f < t.size(); ++f) {
    for (size_t c = 0; c < t.size(); ++c) {
      if (c == f || t[c].kind != Kind::kCopy || !FillPadsRuns(t[f], t[c], es)) continue;
      t[c].pad_bytes = t[f].loops.back().extent * es;
      t.erase(t.begin() + static_cast<std::ptrdiff_t>(f));
      --f;
      break;
    }
  }
}

}  // namespace xla_layout::internal
