// Transposes with short source rows, as the weights of convolutions make
// them: [C,1,3,3] to {0,1,3,2} is C rows of 9 elements becoming 9 rows of C,
// [O,I,3,3] to {0,1,3,2} rows of I*9 elements whose destination rows are
// (kh,kw) major and I minor, [C,K,1,1] into T(8,128) rows of K split into
// tiles. The planner's transpose kernels take a source row in pieces of 8 or
// 16 elements and leave the rest (the 9th of 9) to an element loop; here the
// columns a transpose reads of each source row (the loops contiguous in the
// source, folded into one) get a table of their destination rows, built at
// plan time, so that one kernel call takes all of them: 8 columns at a time
// in 8x8 register transposes down all the rows, the last block of rows
// overlapping the one before it, and the columns left over (the 9th of 9)
// element by element.
#ifndef XLA_LAYOUT_TRANSPOSE_NARROW_H_
#define XLA_LAYOUT_TRANSPOSE_NARROW_H_

#include <cstdint>
#include <vector>

#include "xla_layout/isa.h"
#include "xla_layout/relayout_planner.h"

namespace xla_layout::internal {

// For p < planes, c < ncols, b < nb (offsets in bytes, 32-bit elements):
//   dst[p * plane_dst + rows[c] + b * 4] = src[p * plane_src + c * 4 + b * ssb]
// `isa` resolved; the SIMD paths need ncols >= 8 and nb >= 8 for their
// blocks (smaller ones go element by element, as does the scalar path).
// The destination rows must not overlap the source.
void TransposeRows32(const char* src, char* dst, int64_t planes, int64_t plane_src,
                     int64_t plane_dst, int64_t ncols, int64_t nb, int64_t ssb,
                     const int64_t* rows, Isa isa);

// Merges copies and transposes that continue each other along one loop:
// the partial tile of a dim split at a tile boundary whose tiles are
// contiguous in both layouts (T(1,128): the lanes of tile 7 continue tile
// 6's), so that [960,9] into T(1,128) is one transpose of 960 rows, not 896
// and 64 in two calls. Other tasks are left as they are.
void MergeContinuingTasks(std::vector<Task>* tasks);

// Rewrites the f32 transposes of `tasks` that read short source rows into
// row-table transposes (Task::rows) where `isa` has the SIMD kernel: the
// loop contiguous in the source and the loops that continue it there (up to
// kMaxRowTableColumns columns) become one column loop {ncols, 4, 0}, their
// destination strides the table, when loops fold into one of an extent not
// a multiple of 8 (the 9 of 3x3 with the input channels: 27, 288), or into
// up to kMaxFoldedTileColumns tile rows (T(8,128): 4 tiles of 8 rows), or
// when the destination rows are a multiple of kSharedSetBytes apart (the 9
// rows of [960,9] in T(1,128)); in tasks of at most kMaxRowTableBytes: the
// copies that stay in the L2 cache. Larger transposes keep the planner's
// strips and grouped tiles, which fetch ahead and stream. Other tasks are
// left as they are.
inline constexpr int64_t kMaxRowTableColumns = 1024;
inline constexpr int64_t kMaxRowTableBytes = 512 << 10;
inline constexpr int64_t kMaxFoldedTileColumns = 32;
// Addresses this far apart share an L1 set (32 KiB, 8 ways).
inline constexpr int64_t kSharedSetBytes = 4096;
void UseRowTables(std::vector<Task>* tasks, int64_t es, Isa isa);

}  // namespace xla_layout::internal

#endif  // XLA_LAYOUT_TRANSPOSE_NARROW_H_
