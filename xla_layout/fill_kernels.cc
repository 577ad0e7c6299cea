#include "xla_layout/fill_kernels.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "xla_layout/simd_copy.h"

namespace xla_layout::internal {

namespace {

// Fills n < 64 bytes with ordinary stores of v's bytes, two overlapping
// stores per power of two, not through memset's dispatch.
__attribute__((target("avx2"), always_inline)) inline void FillShortAvx2(char* d, __m256i v,
                                                                        int64_t n) {
  if (n >= 32) {
    Store32Avx2<false>(d, v);
    Store32Avx2<false>(d + n - 32, v);
  } else if (n >= 16) {
    const __m128i h = _mm256_castsi256_si128(v);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d), h);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + n - 16), h);
  } else if (n > 0) {
    const uint64_t w = static_cast<uint64_t>(_mm256_extract_epi64(v, 0));
    if (n >= 8) {
      std::memcpy(d, &w, 8);
      std::memcpy(d + n - 8, &w, 8);
    } else {
      for (int64_t i = 0; i < n; ++i) d[i] = static_cast<char>(w);
    }
  }
}

}  // namespace

void FillPlanesScalar(char* dst, int64_t planes, int64_t plane_dst, int64_t bytes,
                      uint8_t value, bool /*streaming*/) {
  for (int64_t p = 0; p < planes; ++p) std::memset(dst + p * plane_dst, value, bytes);
}

// Short runs with 32-byte stores in a loop, not through memset's dispatch
// (a tile row's padding is a few hundred bytes); streaming runs with
// non-temporal stores on their whole lines.
__attribute__((target("avx2"))) void FillPlanesAvx2(char* dst, int64_t planes,
                                                    int64_t plane_dst, int64_t bytes,
                                                    uint8_t value, bool streaming) {
  const __m256i v = _mm256_set1_epi8(static_cast<char>(value));
  for (int64_t p = 0; p < planes; ++p) {
    char* d = dst + p * plane_dst;
    int64_t i = 0;
    if (streaming && bytes >= 128) {
      i = std::min<int64_t>(bytes, (64 - (reinterpret_cast<uintptr_t>(d) & 63)) & 63);
      FillShortAvx2(d, v, i);
      for (; i + 64 <= bytes; i += 64) {
        Store32Avx2<true>(d + i, v);
        Store32Avx2<true>(d + i + 32, v);
      }
    } else if (bytes > 2048) {
      std::memset(d, value, bytes);
      continue;
    } else {
      for (; i + 32 <= bytes; i += 32) Store32Avx2<false>(d + i, v);
    }
    FillShortAvx2(d + i, v, bytes - i);
  }
}

}  // namespace xla_layout::internal
