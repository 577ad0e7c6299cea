// Transposes of 32-bit elements on AVX-512 built from the 8x8 block of
// two-source permutes (simd_transpose_permute.h). Panels, whose blocks are
// 256 contiguous bytes, gain most: f32[32,688] T(8,8) to T(8,1) went from
// 0.38-0.51x to 0.74-0.77x of memcpy in relayout_bench's replay, where the
// AVX2 blocks' shuffles cost more than the lines they move; transposes
// with rows far apart gain less, their lines' scatter costing as much
// (docs/benchmarks.md, "Stop 52").
#ifndef XLA_LAYOUT_TRANSPOSE_PERMUTE_H_
#define XLA_LAYOUT_TRANSPOSE_PERMUTE_H_

#include <cstdint>

#include "xla_layout/isa.h"

namespace xla_layout::internal {

// Planes of 8x8 blocks for the AVX-512 kernel set's transpose_planes: for
// p < planes, a < na, b < nb (offsets in bytes)
//   dst[p * pds + a * dsa + b * 4] = src[p * pss + a * 4 + b * ssb]
// Needs TakesTransposePlanes8x8(4, na, nb, Isa::kAvx512) and AVX-512F on
// this CPU; the destination must not overlap the source.
void TransposePlanes8x8(const char* src, char* dst, int64_t planes, int64_t pss, int64_t pds,
                        int64_t na, int64_t nb, int64_t ssb, int64_t dsa);

// Whether TransposePlanes8x8 takes these planes: AVX-512, 32-bit elements,
// na a multiple of 8 and nb 8 or 16 (the T(8,1), T(8,8), T(16,1) and
// T(16,16) tiles of CPU panels, where the AVX2 set takes 8x8 and 8x16
// blocks).
bool TakesTransposePlanes8x8(int64_t es, int64_t na, int64_t nb, Isa isa);

// The whole 16x16 tiles of a transpose in cache, in the order of the
// kernel sets' strips: strips of `strip_rows` rows of b (a positive
// multiple of 16), each swept along a, a tile four blocks. For a < na, b < nb (both
// multiples of 16), dst[a * dsa + b * 4] = src[a * 4 + b * ssb]. Needs
// AVX-512F on this CPU; the destination must not overlap the source.
void TransposeStripsPermute(const char* src, char* dst, int64_t na, int64_t nb, int64_t ssb,
                            int64_t dsa, int64_t strip_rows);

}  // namespace xla_layout::internal

#endif  // XLA_LAYOUT_TRANSPOSE_PERMUTE_H_
