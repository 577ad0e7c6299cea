#include "xla_layout/copy_reference.h"

#include <immintrin.h>

#include <cstring>

namespace xla_layout {
namespace {

__attribute__((target("avx2"))) void StreamingCopyAvx2(const char* src, char* dst,
                                                       int64_t bytes) {
  int64_t i = 0;
  for (; i + 128 <= bytes; i += 128) {
    const __m256i v0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
    const __m256i v1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i + 32));
    const __m256i v2 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i + 64));
    const __m256i v3 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i + 96));
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i), v0);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i + 32), v1);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i + 64), v2);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i + 96), v3);
  }
  std::memcpy(dst + i, src + i, bytes - i);
  _mm_sfence();
}

}  // namespace

void StreamingCopy(const void* src, void* dst, int64_t bytes) {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2 && reinterpret_cast<uintptr_t>(dst) % 32 == 0) {
    StreamingCopyAvx2(static_cast<const char*>(src), static_cast<char*>(dst), bytes);
  } else {
    std::memcpy(dst, src, bytes);
  }
}

}  // namespace xla_layout
