#include "xla_layout/copy_reference.h"

#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "xla_layout/simd_copy.h"

namespace xla_layout {
namespace {

// Whole 128-byte blocks with AVX2 (streaming stores when kStream), the tail
// by memcpy; memcpy alone without AVX2 or, streaming, for a destination
// that is not 32-byte aligned.
template <bool kStream>
__attribute__((target("avx2"))) void CopyAvx2(const char* src, char* dst, int64_t bytes) {
  const int64_t i = internal::CopyBlocks128Avx2<kStream>(src, dst, bytes);
  std::memcpy(dst + i, src + i, bytes - i);
  if (kStream) _mm_sfence();
}

template <bool kStream>
void Copy(const void* src, void* dst, int64_t bytes) {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2 && (!kStream || reinterpret_cast<uintptr_t>(dst) % 32 == 0)) {
    CopyAvx2<kStream>(static_cast<const char*>(src), static_cast<char*>(dst), bytes);
  } else {
    std::memcpy(dst, src, bytes);
  }
}

}  // namespace

void StreamingCopy(const void* src, void* dst, int64_t bytes) { Copy<true>(src, dst, bytes); }

void VectorCopy(const void* src, void* dst, int64_t bytes) { Copy<false>(src, dst, bytes); }

}  // namespace xla_layout
