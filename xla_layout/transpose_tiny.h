// Register transposes of 32-bit elements for small plans (relayout_small.h)
// on AVX-512: planes of a few KiB ([8,16]{0,1} and [8,128]{0,1} to
// row-major, [16,16] and [64,256] into T(16,1), [64,256] into T(8,1),
// [16,32]{0,1} to row-major, [8,256] and [32,128] to column-major), where
// the kernel set's transposes (8x8 AVX2 blocks, several calls per block)
// cost up to three times memcpy of the bytes.
//
// A block is 8 columns by 16 rows: rows b and b + 8 share a register (a
// 32-byte load and an insert), an 8x8 transpose runs in both 256-bit
// halves at once (two rounds of in-lane shuffles), and one two-source
// permute per destination row puts the 128-bit pieces in place: 32
// shuffles per 512 bytes, each destination row one 64-byte store, where
// memcpy of the same bytes is 8 loads and 8 stores (the measured ratios:
// docs/packing-core.md).
// Contiguous source rows of 8 elements ([8,N]{0,1}, N >= 32) take a
// variant with 64-byte loads and 24 shuffles per block. Eight rows into
// destination rows of 8 elements back to back (T(8,1) tiles of rows of 64
// or more, [8,256] to column-major) take blocks of 16 columns: the 64-bit pairs of the source
// rows transposed (two rounds), one permute per 64-byte destination line
// splitting the pairs (a 16x8 block with 32-byte stores, tried first, was
// no faster than the kernel set's transposes).
#ifndef XLA_LAYOUT_TRANSPOSE_TINY_H_
#define XLA_LAYOUT_TRANSPOSE_TINY_H_

#include <cstdint>

#include "xla_layout/isa.h"

namespace xla_layout::internal {

// For a < na, b < nb (offsets in bytes, 32-bit elements):
//   dst[a * dsa + b * 4] = src[a * 4 + b * ssb]
// Needs TakesTransposeTiny(4, na, nb, isa) and AVX-512F on this CPU; the
// destination must not overlap the source. Reads and writes nothing else.
void TransposeTiny32(const char* src, char* dst, int64_t na, int64_t nb, int64_t ssb,
                     int64_t dsa);

// Planes larger than this (elements) keep the other kernels: the copies
// measured with this kernel reach 4096 elements ([32,128], [64,256] into
// T(16,1) by planes of [16,256]); beyond, the kernel set's 16x16 tiles read
// and write whole lines, and nothing here has measured which wins.
inline constexpr int64_t kMaxTinyElements = 4096;

// Whether TransposeTiny32 takes a transpose of `na` contiguous source
// columns by `nb` rows into destination rows `dsa` bytes apart, elements
// of `es` bytes, on `isa` (resolved): AVX-512, 32-bit elements, na a
// multiple of 8 and nb of 16, or na a multiple of 16 from 64, nb 8 and dsa
// 32 (destination rows back to back), at most kMaxTinyElements elements.
bool TakesTransposeTiny(int64_t es, int64_t na, int64_t nb, int64_t dsa, Isa isa);

}  // namespace xla_layout::internal

#endif  // XLA_LAYOUT_TRANSPOSE_TINY_H_
