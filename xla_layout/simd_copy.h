// AVX2 stores and the 256-bit block copy shared by the packing core's
// kernels and the streaming-store reference copy: whole 128-byte blocks,
// four loads then four stores, ordinary or non-temporal (kStream needs dst
// 32-byte aligned).
#ifndef XLA_LAYOUT_SIMD_COPY_H_
#define XLA_LAYOUT_SIMD_COPY_H_

#include <immintrin.h>

#include <cstdint>

namespace xla_layout::internal {

// One 32-byte store: non-temporal when kStream (then p is 32-byte aligned),
// else an ordinary unaligned one. Every AVX2 kernel that offers both stores
// goes through this.
template <bool kStream>
__attribute__((target("avx2"))) inline void Store32Avx2(void* p, __m256i v) {
  if (kStream) {
    _mm256_stream_si256(static_cast<__m256i*>(p), v);
  } else {
    _mm256_storeu_si256(static_cast<__m256i*>(p), v);
  }
}

// Copies the leading whole 128-byte blocks of `bytes`; returns how many
// bytes that was (the caller copies the rest).
template <bool kStream>
__attribute__((target("avx2"))) inline int64_t CopyBlocks128Avx2(
    const char* src, char* dst, int64_t bytes) {
  // Written out, not as loops over a register array: the compiler may keep
  // such an array on the stack, and the four values must stay in registers.
  int64_t i = 0;
  for (; i + 128 <= bytes; i += 128) {
    const __m256i v0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
    const __m256i v1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i + 32));
    const __m256i v2 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i + 64));
    const __m256i v3 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i + 96));
    Store32Avx2<kStream>(dst + i, v0);
    Store32Avx2<kStream>(dst + i + 32, v1);
    Store32Avx2<kStream>(dst + i + 64, v2);
    Store32Avx2<kStream>(dst + i + 96, v3);
  }
  return i;
}

}  // namespace xla_layout::internal

#endif  // XLA_LAYOUT_SIMD_COPY_H_
