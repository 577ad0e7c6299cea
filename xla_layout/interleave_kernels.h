// Row-pair interleaves of 16-bit elements for the packing core: the (2,1)
// sub-tile of TPU layouts (bf16[M,N] into T(8,128)(2,1)), where rows b and
// b + 1 of the source become one row of 32-bit pairs. The kernel sets'
// transposes (relayout_kernels.cc) hand such a transpose here whole, and
// their plane kernels hand over all their planes in one call, so that a
// 512-byte row pair of a T(8,128)(2,1) tile does not pay three layers of
// the set's transpose (figures: docs/benchmarks.md, "Stop 42, same
// machine").
#ifndef XLA_LAYOUT_INTERLEAVE_KERNELS_H_
#define XLA_LAYOUT_INTERLEAVE_KERNELS_H_

#include <cstdint>

namespace xla_layout::internal {

// For p < planes, a < na, k < 2, with 16-bit elements:
//   dst[p * plane_dst + a * 4 + k * 2] = src[p * plane_src + k * ssb + a * 2]
// (offsets in bytes). With `streaming`, non-temporal stores where every
// plane's destination is aligned for them (64 bytes with `avx512`, 32
// without), ordinary stores otherwise; the caller fences. `avx512` needs
// AVX-512BW on this CPU, and AVX2 is needed either way. The destination
// must not overlap the source; nothing else is read or written.
void InterleaveRowPairs(const char* src, char* dst, int64_t planes, int64_t plane_src,
                        int64_t plane_dst, int64_t na, int64_t ssb, bool streaming,
                        bool avx512);

}  // namespace xla_layout::internal

#endif  // XLA_LAYOUT_INTERLEAVE_KERNELS_H_
