#include "xla_layout/short_row_transposes.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "xla_layout/kernel_tuning.h"
#include "xla_layout/relayout_kernels.h"
#include "xla_layout/simd_copy.h"
#include "xla_layout/simd_transpose.h"

namespace xla_layout::internal {

// A loop of its own, the tile written out in it: on f32[96,3,224,224] to
// {0,3,2,1}, the same sweep through the general strips (relayout_kernels.cc)
// and their 8x16 blocks took 12-35% more time than copy_reference.h's
// lines in most runs, this loop -1 to +13% (docs/benchmarks.md, "Stop 50,
// same Zen 5").
__attribute__((target("avx2"))) void StreamStripsOf16(const char* src, char* dst, int64_t na,
                                                      int64_t nb, int64_t ssb, int64_t dsa,
                                                      int64_t pad, uint8_t value) {
  const __m256i fill = _mm256_set1_epi8(static_cast<char>(value));
  for (int64_t b = 0; b + 16 <= nb; b += 16) {
    const bool last = b + 32 > nb;
    for (int64_t a = 0; a + 16 <= na; a += 16) {
      const char* s = src + a * 4 + b * ssb;
      char* d = dst + a * dsa + b * 4;
      for (int half = 0; half < 2; ++half, s += 32, d += 8 * dsa) {
        __m256 top[8], bottom[8];
        Transpose8x8ToRegs(s, ssb, top);
        Transpose8x8ToRegs(s + 8 * ssb, ssb, bottom);
#pragma GCC unroll 8
        for (int r = 0; r < 8; ++r) {
          Store32Avx2<true>(d + r * dsa, _mm256_castps_si256(top[r]));
          Store32Avx2<true>(d + r * dsa + 32, _mm256_castps_si256(bottom[r]));
          if (last) {
            for (int64_t k = 0; k < pad; k += 32) Store32Avx2<true>(d + r * dsa + 64 + k, fill);
          }
        }
      }
    }
  }
}

bool TakesStripsOf16(int64_t na, int64_t nb, int64_t dsa) {
  return dsa <= 512 && nb / 16 * 16 > 16 && na / 16 * 16 >= 2048 && SweepsShortRowsInStrips();
}

bool FusesPaddedTransposeRows(int64_t na, int64_t nb, int64_t dst_stride_a, int es, Isa isa) {
  return es == 4 && (isa == Isa::kAvx2 || isa == Isa::kAvx512) &&
         TakesStripsOf16(na, nb, dst_stride_a) && dst_stride_a % 64 == 0 && nb % 16 == 0 &&
         nb * 4 < dst_stride_a;
}

void TransposePaddedRows(const char* src, char* dst, int64_t na, int64_t nb,
                         int64_t src_stride_b, int64_t dst_stride_a, int64_t pad, uint8_t value,
                         Isa isa) {
  const Kernels& kernels = KernelsFor(isa);
  if (FusesPaddedTransposeRows(na, nb, dst_stride_a, 4, isa) && pad % 32 == 0 &&
      reinterpret_cast<uintptr_t>(dst) % 64 == 0) {
    const int64_t tiles = na / 16 * 16;
    StreamStripsOf16(src, dst, tiles, nb, src_stride_b, dst_stride_a, pad, value);
    // The rows past the whole tiles: their elements, then their padding.
    kernels.transpose(src + tiles * 4, dst + tiles * dst_stride_a, na - tiles, nb, src_stride_b,
                      dst_stride_a, 4, /*streaming=*/false);
    for (int64_t a = tiles; a < na; ++a) std::memset(dst + a * dst_stride_a + nb * 4, value, pad);
    return;
  }
  // As the plan's interleaved tasks would: the padding of a chunk follows
  // its elements while the chunk's lines are still in flight.
  const int64_t chunk = std::max<int64_t>(1, (int64_t{16} << 10) / dst_stride_a);
  for (int64_t a = 0; a < na; a += chunk) {
    const int64_t rows = std::min(chunk, na - a);
    kernels.transpose(src + a * 4, dst + a * dst_stride_a, rows, nb, src_stride_b, dst_stride_a,
                      4, /*streaming=*/true);
    kernels.fill_planes(dst + a * dst_stride_a + nb * 4, rows, dst_stride_a, pad, value,
                        /*streaming=*/true);
  }
}

}  // namespace xla_layout::internal
