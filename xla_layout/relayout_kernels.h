// Inner kernels of the packing core, one set per instruction-set path. All
// sets compute the same bytes; the SIMD ones are compiled with function
// target attributes and only called when the CPU has the instructions.
#ifndef XLA_LAYOUT_RELAYOUT_KERNELS_H_
#define XLA_LAYOUT_RELAYOUT_KERNELS_H_

#include <cstdint>

#include "xla_layout/isa.h"

namespace xla_layout::internal {

using TransposeFn = void (*)(const char* src, char* dst, int64_t na, int64_t nb,
                            int64_t src_stride_b, int64_t dst_stride_a, int es,
                            bool streaming);

struct Kernels {
  // Copies `rows` runs of `bytes` contiguous bytes, run r from
  // src + r * src_stride to dst + r * dst_stride. `streaming` asks for
  // non-temporal stores (for destinations larger than the last-level cache).
  void (*copy)(const char* src, char* dst, int64_t rows, int64_t bytes,
               int64_t src_stride, int64_t dst_stride, bool streaming);
  // 2-D block transpose of `es`-byte elements:
  //   dst[a * dst_stride_a + b * es] = src[a * es + b * src_stride_b]
  // for a < na, b < nb (strides in bytes). `streaming` as for copy.
  TransposeFn transpose;
  // The same, with the rows of a in `ng` groups of `ga` (the rows of one
  // narrow tile each), `dst_stride_g` bytes from group to group:
  //   dst[g * dst_stride_g + a * dst_stride_a + b * es]
  //       = src[(g * ga + a) * es + b * src_stride_b]
  // for g < ng, a < ga, b < nb. One call sweeps a source row's tiles.
  void (*transpose_grouped)(const char* src, char* dst, int64_t ng, int64_t ga,
                            int64_t nb, int64_t src_stride_b, int64_t dst_stride_a,
                            int64_t dst_stride_g, int es, bool streaming);
  // `copy` and `transpose` run `planes` times, plane p from
  // src + p * plane_src to dst + p * plane_dst: the loop just outside the
  // kernel's own, taken inside the kernel set so that the small tiles of a
  // copy in cache (8x8 blocks, rows of 32 bytes) pay one call per plane
  // loop, not one per tile, and the SIMD paths choose their kernel once.
  void (*copy_planes)(const char* src, char* dst, int64_t planes, int64_t plane_src,
                      int64_t plane_dst, int64_t rows, int64_t bytes, int64_t src_stride,
                      int64_t dst_stride, bool streaming);
  void (*transpose_planes)(const char* src, char* dst, int64_t planes, int64_t plane_src,
                           int64_t plane_dst, int64_t na, int64_t nb, int64_t src_stride_b,
                           int64_t dst_stride_a, int es, bool streaming);
  // Writes `bytes` bytes of `value` at dst + p * plane_dst for p < planes:
  // the padding of a tile row, plane after plane. With `streaming`, whole
  // 64-byte lines take non-temporal stores (no line is read to be
  // overwritten); the partial lines at the edges ordinary ones.
  void (*fill_planes)(char* dst, int64_t planes, int64_t plane_dst, int64_t bytes,
                      uint8_t value, bool streaming);
};

const Kernels& KernelsFor(Isa isa);  // isa must be resolved (not kAuto)

// Whether a transpose of `nb` x `es`-byte elements per destination row, rows
// `dst_stride_a` bytes apart, is the interleave of two source rows (a (2,1)
// tile of 16-bit elements) that the SIMD paths run as one kernel.
constexpr bool IsRowPairInterleave(int64_t nb, int64_t dst_stride_a, int es) {
  return es == 2 && nb == 2 && dst_stride_a == 2 * es;
}

// Whether KernelsFor(isa).transpose_grouped has a kernel of its own for
// `es`-byte elements in groups of `ga` rows (elsewhere it calls transpose
// group by group): f32 tiles of 1, 2, 4 or 8 rows, on the SIMD paths.
constexpr bool HasGroupedTransposeKernel(Isa isa, int64_t ga, int64_t es) {
  return (isa == Isa::kAvx2 || isa == Isa::kAvx512) && es == 4 && ga >= 1 && ga <= 8 &&
         16 % ga == 0;
}

}  // namespace xla_layout::internal

#endif  // XLA_LAYOUT_RELAYOUT_KERNELS_H_
