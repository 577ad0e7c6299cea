// Inner kernels of the packing core, one set per instruction-set path. All
// sets compute the same bytes; the SIMD ones are compiled with function
// target attributes and only called when the CPU has the instructions.
#ifndef XLA_LAYOUT_RELAYOUT_KERNELS_H_
#define XLA_LAYOUT_RELAYOUT_KERNELS_H_

#include <cstdint>

#include "xla_layout/isa.h"

namespace xla_layout::internal {

struct Kernels {
  // Copies `rows` runs of `bytes` contiguous bytes, run r from
  // src + r * src_stride to dst + r * dst_stride. `streaming` asks for
  // non-temporal stores (for destinations larger than the last-level cache).
  void (*copy)(const char* src, char* dst, int64_t rows, int64_t bytes,
               int64_t src_stride, int64_t dst_stride, bool streaming);
  // 2-D block transpose of `es`-byte elements:
  //   dst[a * dst_stride_a + b * es] = src[a * es + b * src_stride_b]
  // for a < na, b < nb (strides in bytes). `streaming` as for copy.
  void (*transpose)(const char* src, char* dst, int64_t na, int64_t nb,
                    int64_t src_stride_b, int64_t dst_stride_a, int es,
                    bool streaming);
};

const Kernels& KernelsFor(Isa isa);  // isa must be resolved (not kAuto)

// Whether a transpose of `nb` x `es`-byte elements per destination row, rows
// `dst_stride_a` bytes apart, is the interleave of two source rows (a (2,1)
// tile of 16-bit elements) that the SIMD paths run as one kernel.
constexpr bool IsRowPairInterleave(int64_t nb, int64_t dst_stride_a, int es) {
  return es == 2 && nb == 2 && dst_stride_a == 2 * es;
}

}  // namespace xla_layout::internal

#endif  // XLA_LAYOUT_RELAYOUT_KERNELS_H_
