// In-cache transposes of 32-bit elements for small plans
// (relayout_small.h): convolution weights with short source rows ([C,9]
// to [9,C], [C,K] into T(8,128)) and other float transposes whose source
// rows hold 8 to 32 elements ([16,32]{0,1} and [8,128]{0,1} to row-major).
// The kernel set's transpose reaches
// these through several calls per block and moves the columns past the
// last multiple of 8 (the 9th of 9) element by element; here one call
// takes a whole plane: column blocks of 8, each down every source row in
// 8x8 register transposes (the last row block overlapping the one before
// it), and a column or two left over on AVX-512 by permutes of the source
// rows, 8 of them per 32-byte store (on AVX2 element by element). Nine
// columns ([C,9]) go in one sweep of their own (transpose_nine.h).
#ifndef XLA_LAYOUT_TRANSPOSE_WEIGHTS_H_
#define XLA_LAYOUT_TRANSPOSE_WEIGHTS_H_

#include <cstdint>

#include "xla_layout/isa.h"

namespace xla_layout::internal {

// For a < na, b < nb (offsets in bytes, 32-bit elements):
//   dst[a * dsa + b * 4] = src[a * 4 + b * ssb]
// Needs na >= 8, nb >= 8 and `isa` AVX2 or AVX-512 (TakesTransposeWeights);
// the destination must not overlap the source.
void TransposeWeights32(const char* src, char* dst, int64_t na, int64_t nb, int64_t ssb,
                        int64_t dsa, Isa isa);

// For b < nb: dst[b * 4] = src[b * ssb], one source column into one run
// of the destination: on AVX-512 by masked loads and permutes when nb >= 8
// and the rows are within 40 bytes, element by element otherwise.
void TransposeColumn32(const char* src, char* dst, int64_t nb, int64_t ssb, Isa isa);

// Source rows wider than this many elements keep the kernel set's
// transposes: its 16x16 tiles write whole destination lines, which
// measured faster there (f32[32,128]{1,0} -> {0,1}, [64,128]{0,1} ->
// {1,0}).
inline constexpr int64_t kMaxWeightColumns = 32;
// Source planes larger than this keep them too: the lone columns sweep the
// source again after the column blocks, which pays while it stays in L1
// (32 KiB) beside the destination rows: f32[960,1,3,3] and [576,1,3,3] to
// {0,1,3,2} (34560 and 20736 source bytes) measured faster on the kernel
// set's transpose (relayout_bench replay/147, /146; docs/benchmarks.md).
inline constexpr int64_t kMaxWeightSourceBytes = 16 << 10;

// Whether TransposeWeights32 takes a transpose of `na` source columns
// (contiguous, 4 bytes apart) by `nb` rows `ssb` bytes apart into rows of
// `nb` contiguous elements, elements of `es` bytes, on `isa` (resolved):
// 32-bit elements, 8 to kMaxWeightColumns columns, 8 rows or more, at most
// kMaxWeightSourceBytes of source rows, except 8 or 16 rows by a multiple
// of 8 columns.
bool TakesTransposeWeights(int64_t es, int64_t na, int64_t nb, int64_t ssb, Isa isa);

}  // namespace xla_layout::internal

#endif  // XLA_LAYOUT_TRANSPOSE_WEIGHTS_H_
