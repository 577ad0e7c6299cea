// Kernels of the packing core for copies in the last-level cache whose
// destination runs are each followed by padding: a tile row of
// {..:T(8,128)} over a minor dim of 64 floats is 256 bytes of elements and
// 256 bytes of zeros. Planned as a copy of the runs and a fill of the
// padding, such a copy passes over its destination twice, and each of the
// two passes pays a kernel call per 256-byte run; one pass writing each
// tile row whole (elements, then padding) does neither.
#ifndef XLA_LAYOUT_STRIDED_COPY_KERNELS_H_
#define XLA_LAYOUT_STRIDED_COPY_KERNELS_H_

#include <cstdint>
#include <vector>

#include "xla_layout/isa.h"
#include "xla_layout/relayout_planner.h"

namespace xla_layout::internal {

// Copies `rows` runs of `bytes` bytes, run r from src + r * src_stride to
// dst + r * dst_stride, and writes `pad` bytes of `value` right after each
// run in the destination, row by row. `isa` resolved (not kAuto); every
// path writes the same bytes.
void CopyPaddedRows(const char* src, char* dst, int64_t rows, int64_t bytes, int64_t pad,
                    int64_t src_stride, int64_t dst_stride, uint8_t value, Isa isa);

// Folds each fill task into the copy task whose runs it pads: the same
// outer loops (extents and destination strides), at least one of them, and
// the fill's runs starting where the copy's end. The copy then carries the
// padding (Task::pad_bytes) and runs through CopyPaddedRows; other tasks
// stay as they are. For plans that do not stream (a streaming plan already
// writes a run and its padding in one chunk) with a padding value of one
// repeated byte.
void FusePaddedRows(std::vector<Task>* tasks, int64_t es);

}  // namespace xla_layout::internal

#endif  // XLA_LAYOUT_STRIDED_COPY_KERNELS_H_
