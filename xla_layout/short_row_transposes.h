// Streaming transposes of 32-bit elements onto short destination rows (at
// most 512 bytes: a batch moved minor, f32[96,3,224,224] to {0,3,2,1}),
// and the same with each row's padding after it ({0,3,2,1:T(8,128)}: 96
// of a tile row's 128 floats), in one pass. Internal to the packing core.
#ifndef XLA_LAYOUT_SHORT_ROW_TRANSPOSES_H_
#define XLA_LAYOUT_SHORT_ROW_TRANSPOSES_H_

#include <cstdint>

#include "xla_layout/isa.h"

namespace xla_layout::internal {

// dst[a * dsa + b * 4] = src[a * 4 + b * ssb] for the whole 16x16 tiles
// (a < na / 16 * 16, b < nb / 16 * 16), by strips of 16 source rows (b),
// each swept along the whole of a with streaming stores: 16 rows read along
// their whole length are 16 streams the hardware prefetcher follows, and
// each destination row gets one line per strip. With `pad`, the last strip
// writes `pad` bytes of `value` right after each row's last line, so that
// padded rows are written whole in one pass (no padding for the rows
// beyond the whole tiles, nor at all when nb < 16). Needs AVX2, dst and
// dsa 32-byte aligned, and, with `pad`, nb a multiple of 16, pad of 32 and
// nb * 4 + pad <= dsa. The caller fences.
void StreamStripsOf16(const char* src, char* dst, int64_t na, int64_t nb, int64_t ssb,
                      int64_t dsa, int64_t pad = 0, uint8_t value = 0);

// Whether a streaming transpose of nb source rows into na destination
// rows dsa bytes apart goes by StreamStripsOf16 on this CPU: rows of at
// most 512 bytes, more than one whole strip of 16 source rows, at least
// 2048 rows of a in whole tiles, where short rows are swept in strips
// (SweepsShortRowsInStrips in kernel_tuning.h). The streaming strips of
// relayout_kernels.cc then call it, and TransposePaddedRows' one pass
// needs it.
bool TakesStripsOf16(int64_t na, int64_t nb, int64_t dsa);

// Whether TransposePaddedRows can write a streaming transpose's destination
// rows and their padding in one pass on this CPU: 4-byte elements, a SIMD
// `isa`, TakesStripsOf16, nb a multiple of 16, rows a multiple of 64 bytes
// with room for padding. The call also needs dst 64-byte aligned.
bool FusesPaddedTransposeRows(int64_t na, int64_t nb, int64_t dst_stride_a, int es, Isa isa);

// Kernels::transpose of 4-byte elements with streaming stores where the
// destination allows, and `pad` bytes of `value` after each destination
// row's nb elements (nb * 4 + pad <= dst_stride_a):
//   dst[a * dst_stride_a + nb * 4 + k] = value   for a < na, k < pad.
// In one pass where FusesPaddedTransposeRows, dst is 64-byte aligned and
// pad a multiple of 32 (the rows past the whole 16-row tiles then take
// ordinary stores); otherwise 16 KiB of destination rows at a time, their
// elements and then their padding, as a plan interleaves a transpose and
// its fill. `isa` resolved; the caller fences.
void TransposePaddedRows(const char* src, char* dst, int64_t na, int64_t nb,
                         int64_t src_stride_b, int64_t dst_stride_a, int64_t pad, uint8_t value,
                         Isa isa);

}  // namespace xla_layout::internal

#endif  // XLA_LAYOUT_SHORT_ROW_TRANSPOSES_H_
