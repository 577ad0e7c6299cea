// The fill kernels of the packing core's kernel sets (Kernels::fill_planes
// in relayout_kernels.h): the padding of tiles, plane after plane.
#ifndef XLA_LAYOUT_FILL_KERNELS_H_
#define XLA_LAYOUT_FILL_KERNELS_H_

#include <cstdint>

namespace xla_layout::internal {

// Writes `bytes` bytes of `value` at dst + p * plane_dst for p < planes, by
// memset (the scalar set's fill; `streaming` is ignored).
void FillPlanesScalar(char* dst, int64_t planes, int64_t plane_dst, int64_t bytes,
                      uint8_t value, bool streaming);

// The same with 32-byte stores for short runs, memset for runs over 2 KiB,
// and with `streaming` non-temporal stores on each run's whole lines (runs
// of 128 bytes or more). Needs AVX2.
void FillPlanesAvx2(char* dst, int64_t planes, int64_t plane_dst, int64_t bytes,
                    uint8_t value, bool streaming);

}  // namespace xla_layout::internal

#endif  // XLA_LAYOUT_FILL_KERNELS_H_
