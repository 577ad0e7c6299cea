#include "xla_layout/transpose_permute.h"

#include <immintrin.h>

#include <type_traits>

#include "xla_layout/simd_transpose_permute.h"

namespace xla_layout::internal {
namespace {

// One 8x8 block. Rows 32 bytes apart take one 64-byte load or store per
// pair; others a 32-byte access per row.
template <bool kSrcRows32, bool kDstRows32>
__attribute__((target("avx512f"), always_inline)) inline void Block8x8Permute(const char* s,
                                                                            char* d,
                                                                            int64_t ssb,
                                                                            int64_t dsa) {
  __m512 out[4];
  Transpose8x8PermuteToRegs<kSrcRows32>(s, ssb, out);
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) {
    if (kDstRows32) {
      _mm512_storeu_ps(d + 64 * k, out[k]);
      continue;
    }
    StoreRowPair<false>(d + 2 * k * dsa, d + (2 * k + 1) * dsa, out[k]);
  }
}

template <bool kSrcRows32, bool kDstRows32>
__attribute__((target("avx512f"))) void Planes8x8(const char* src, char* dst, int64_t planes,
                                                  int64_t pss, int64_t pds, int64_t na,
                                                  int64_t nb, int64_t ssb, int64_t dsa) {
  for (int64_t p = 0; p < planes; ++p, src += pss, dst += pds) {
    for (int64_t b = 0; b < nb; b += 8) {
      const char* s = src + b * ssb;
      char* d = dst + b * 4;
      for (int64_t a = 0; a < na; a += 8, s += 32, d += 8 * dsa) {
        Block8x8Permute<kSrcRows32, kDstRows32>(s, d, ssb, dsa);
      }
    }
  }
}

}  // namespace

bool TakesTransposePlanes8x8(int64_t es, int64_t na, int64_t nb, Isa isa) {
  return isa == Isa::kAvx512 && es == 4 && na > 0 && na % 8 == 0 && (nb == 8 || nb == 16);
}

__attribute__((target("avx512f"))) void TransposePlanes8x8(const char* src, char* dst,
                                                           int64_t planes, int64_t pss,
                                                           int64_t pds, int64_t na, int64_t nb,
                                                           int64_t ssb, int64_t dsa) {
  auto run = [&](auto src_rows32, auto dst_rows32) __attribute__((target("avx512f"))) {
    Planes8x8<decltype(src_rows32)::value, decltype(dst_rows32)::value>(src, dst, planes, pss,
                                                                        pds, na, nb, ssb, dsa);
  };
  using Yes = std::true_type;
  using No = std::false_type;
  if (ssb == 32) return dsa == 32 ? run(Yes(), Yes()) : run(Yes(), No());
  return dsa == 32 ? run(No(), Yes()) : run(No(), No());
}

__attribute__((target("avx512f"))) void TransposeStripsPermute(const char* src, char* dst,
                                                               int64_t na, int64_t nb,
                                                               int64_t ssb, int64_t dsa,
                                                               int64_t strip_rows) {
  // Each tile's two blocks along b in turn: their destination rows of 32
  // bytes make whole lines.
  auto tile = [&](const char* s, char* d) __attribute__((target("avx512f"), always_inline)) {
    for (int half = 0; half < 2; ++half, s += 32, d += 8 * dsa) {
      Block8x8Permute<false, false>(s, d, ssb, dsa);
      Block8x8Permute<false, false>(s + 8 * ssb, d + 32, ssb, dsa);
    }
  };
  for (int64_t b0 = 0; b0 < nb; b0 += strip_rows) {
    const int64_t b1 = b0 + strip_rows < nb ? b0 + strip_rows : nb;
    for (int64_t a = 0; a < na; a += 16) {
      for (int64_t b = b0; b < b1; b += 16) tile(src + a * 4 + b * ssb, dst + a * dsa + b * 4);
    }
  }
}

}  // namespace xla_layout::internal
