// The 256-bit block copy shared by the packing core's short runs and the
// streaming-store reference copy: whole 128-byte blocks, four loads then
// four stores, ordinary or non-temporal (kStream needs dst 32-byte aligned).
#ifndef XLA_LAYOUT_SIMD_COPY_H_
#define XLA_LAYOUT_SIMD_COPY_H_

#include <immintrin.h>

#include <cstdint>

namespace xla_layout::internal {

// Copies the leading whole 128-byte blocks of `bytes`; returns how many
// bytes that was (the caller copies the rest).
template <bool kStream>
__attribute__((target("avx2"))) inline int64_t CopyBlocks128Avx2(
    const char* src, char* dst, int64_t bytes) {
  int64_t i = 0;
  for (; i + 128 <= bytes; i += 128) {
    __m256i v[4];
    for (int k = 0; k < 4; ++k) {
      v[k] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i + 32 * k));
    }
    for (int k = 0; k < 4; ++k) {
      auto* to = reinterpret_cast<__m256i*>(dst + i + 32 * k);
      if (kStream) {
        _mm256_stream_si256(to, v[k]);
      } else {
        _mm256_storeu_si256(to, v[k]);
      }
    }
  }
  return i;
}

}  // namespace xla_layout::internal

#endif  // XLA_LAYOUT_SIMD_COPY_H_
