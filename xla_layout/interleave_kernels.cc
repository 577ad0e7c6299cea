#include "xla_layout/interleave_kernels.h"

#include <immintrin.h>

#include <cstring>

#include "xla_layout/simd_copy.h"

namespace xla_layout::internal {
namespace {

// One plane, 16 pairs per step: the unpacks interleave within 128-bit
// lanes, and a lane permute puts the halves in order. kStream needs dst
// 32-byte aligned.
template <bool kStream>
__attribute__((target("avx2"))) void InterleaveAvx2(const char* src, char* dst, int64_t na,
                                                    int64_t ssb) {
  int64_t a = 0;
  for (; a + 16 <= na; a += 16) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + a * 2));
    const __m256i y = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + ssb + a * 2));
    const __m256i lo = _mm256_unpacklo_epi16(x, y), hi = _mm256_unpackhi_epi16(x, y);
    Store32Avx2<kStream>(dst + a * 4, _mm256_permute2x128_si256(lo, hi, 0x20));
    Store32Avx2<kStream>(dst + a * 4 + 32, _mm256_permute2x128_si256(lo, hi, 0x31));
  }
  for (; a < na; ++a) {
    std::memcpy(dst + a * 4, src + a * 2, 2);
    std::memcpy(dst + a * 4 + 2, src + ssb + a * 2, 2);
  }
}

// One plane, 32 pairs per step, one two-source word permute per 64 output
// bytes. kStream needs dst 64-byte aligned.
template <bool kStream>
__attribute__((target("avx512f,avx512bw"))) void InterleaveAvx512(const char* src, char* dst,
                                                                 int64_t na, int64_t ssb,
                                                                 __m512i lo_index,
                                                                 __m512i hi_index) {
  int64_t a = 0;
  for (; a + 32 <= na; a += 32) {
    const __m512i x = _mm512_loadu_si512(src + a * 2);
    const __m512i y = _mm512_loadu_si512(src + ssb + a * 2);
    const __m512i lo = _mm512_permutex2var_epi16(x, lo_index, y);
    const __m512i hi = _mm512_permutex2var_epi16(x, hi_index, y);
    if (kStream) {
      _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + a * 4), lo);
      _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + a * 4 + 64), hi);
    } else {
      _mm512_storeu_si512(dst + a * 4, lo);
      _mm512_storeu_si512(dst + a * 4 + 64, hi);
    }
  }
  if (a < na) InterleaveAvx2<false>(src + a * 2, dst + a * 4, na - a, ssb);
}

template <bool kStream>
__attribute__((target("avx512f,avx512bw"))) void PlanesAvx512(const char* src, char* dst,
                                                             int64_t planes, int64_t plane_src,
                                                             int64_t plane_dst, int64_t na,
                                                             int64_t ssb) {
  // Word k of the first output takes x[k / 2] (k even) or y[k / 2] (odd);
  // indices of 32 and above name y.
  alignas(64) static constexpr uint16_t kLo[32] = {
      0, 32, 1, 33, 2,  34, 3,  35, 4,  36, 5,  37, 6,  38, 7,  39,
      8, 40, 9, 41, 10, 42, 11, 43, 12, 44, 13, 45, 14, 46, 15, 47};
  alignas(64) static constexpr uint16_t kHi[32] = {
      16, 48, 17, 49, 18, 50, 19, 51, 20, 52, 21, 53, 22, 54, 23, 55,
      24, 56, 25, 57, 26, 58, 27, 59, 28, 60, 29, 61, 30, 62, 31, 63};
  const __m512i lo_index = _mm512_load_si512(kLo), hi_index = _mm512_load_si512(kHi);
  for (int64_t p = 0; p < planes; ++p) {
    InterleaveAvx512<kStream>(src + p * plane_src, dst + p * plane_dst, na, ssb, lo_index,
                              hi_index);
  }
}

template <bool kStream>
__attribute__((target("avx2"))) void PlanesAvx2(const char* src, char* dst, int64_t planes,
                                                int64_t plane_src, int64_t plane_dst,
                                                int64_t na, int64_t ssb) {
  for (int64_t p = 0; p < planes; ++p) {
    InterleaveAvx2<kStream>(src + p * plane_src, dst + p * plane_dst, na, ssb);
  }
}

}  // namespace

void InterleaveRowPairs(const char* src, char* dst, int64_t planes, int64_t plane_src,
                        int64_t plane_dst, int64_t na, int64_t ssb, bool streaming,
                        bool avx512) {
  const int64_t align = avx512 ? 64 : 32;
  const bool stream = streaming && reinterpret_cast<uintptr_t>(dst) % align == 0 &&
                      (planes == 1 || plane_dst % align == 0);
  if (avx512) {
    return stream ? PlanesAvx512<true>(src, dst, planes, plane_src, plane_dst, na, ssb)
                  : PlanesAvx512<false>(src, dst, planes, plane_src, plane_dst, na, ssb);
  }
  return stream ? PlanesAvx2<true>(src, dst, planes, plane_src, plane_dst, na, ssb)
                : PlanesAvx2<false>(src, dst, planes, plane_src, plane_dst, na, ssb);
}

}  // namespace xla_layout::internal
