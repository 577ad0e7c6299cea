#include "xla_layout/copy_reference.h"

#include <immintrin.h>

#include <cstring>

#include "xla_layout/simd_copy.h"

namespace xla_layout {
namespace {

__attribute__((target("avx2"))) void StreamingCopyAvx2(const char* src, char* dst,
                                                       int64_t bytes) {
  const int64_t i = internal::CopyBlocks128Avx2<true>(src, dst, bytes);
  std::memcpy(dst + i, src + i, bytes - i);
  _mm_sfence();
}

__attribute__((target("avx2"))) void VectorCopyAvx2(const char* src, char* dst, int64_t bytes) {
  const int64_t i = internal::CopyBlocks128Avx2<false>(src, dst, bytes);
  std::memcpy(dst + i, src + i, bytes - i);
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

void VectorCopy(const void* src, void* dst, int64_t bytes) {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) {
    VectorCopyAvx2(static_cast<const char*>(src), static_cast<char*>(dst), bytes);
  } else {
    std::memcpy(dst, src, bytes);
  }
}

}  // namespace xla_layout
