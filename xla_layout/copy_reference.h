// References for copy throughput, measured beside the packing core in the
// same run: glibc's memcpy, a copy with streaming (non-temporal) stores, and
// a plain vector copy. Which is faster depends on the size and the machine
// (glibc switches to non-temporal stores only past a large threshold), so
// the ceiling a relayout is held against is the better of the first two.
// The vector copy is what any kernel of vector loads and stores reaches at
// best: where glibc's memcpy runs as `rep movsb` and beats it (16-256 KiB
// in L2 on AMD Zen 5), the gap between the two is no kernel's to close.
//
// For transposes of 32-bit elements there are two more: the same 16x16
// tiles moved with the fewest shuffles known for the ISA, and the same
// 64-byte lines moved in the same order with no shuffle at all. The first
// bounds a transpose in L1, where the shuffles cost more than the loads and
// stores; the second bounds it where the lines' scatter costs more than the
// shuffles (L2 and beyond).
#ifndef XLA_LAYOUT_COPY_REFERENCE_H_
#define XLA_LAYOUT_COPY_REFERENCE_H_

#include <cstdint>

namespace xla_layout {

// Copies `bytes` from `src` to `dst` (no overlap) with 256-bit streaming
// stores where the CPU has AVX2 and `dst` is 32-byte aligned; else memcpy.
void StreamingCopy(const void* src, void* dst, int64_t bytes);

// Copies `bytes` from `src` to `dst` (no overlap) with 256-bit loads and
// stores, 128 bytes a step, in address order, where the CPU has AVX2; the
// last bytes (and every byte elsewhere) by memcpy.
void VectorCopy(const void* src, void* dst, int64_t bytes);

// How TransposeTiles moves a 16x16 tile of 32-bit elements.
enum class TileMove {
  // Transposed: four 8x8 transposes in 256-bit registers, rows b and b + 4
  // of each loaded into one register's halves (16 shuffles, 8 inserts).
  kAvx2,
  // Transposed: four 8x8 transposes by two-source permutes, two source
  // rows to a register (simd_transpose_permute.h: 8 permutes and 4 inserts
  // each), each destination row's 64 bytes two 32-byte stores.
  kAvx512,
  // Not transposed: destination line r of the tile (64 bytes) gets source
  // line r whole, so the tile's memory traffic is a transpose's with none
  // of its shuffles. A line is one 64-byte load and store where the CPU
  // has AVX-512F, as memcpy's are, else two 32-byte ones.
  kLines,
};

// Whether this CPU runs `move` (AVX2, or AVX-512F for kAvx512).
bool CanMoveTiles(TileMove move);

// Moves the na x nb block of 32-bit elements in 16x16 tiles: with kAvx2 and
// kAvx512, dst[a * dsa + b * 4] = src[a * 4 + b * ssb] for a < na, b < nb;
// with kLines, tile (a0, b0) copies the 64 bytes at src + a0 * 4 +
// (b0 + r) * ssb to dst + (a0 + r) * dsa + b0 * 4 for r < 16. The tiles go
// in strips of `strip_rows` source rows (b), each strip swept along a,
// tiles down the strip innermost, as the packing core's strips go. Where na
// or nb is not a multiple of 16, the elements beyond the last whole tiles
// are transposed one at a time after the tiles, for every move, as a
// transpose of that size must move them. Streaming, the tiles' stores are
// non-temporal. Returns false and moves nothing unless na, nb >= 0,
// strip_rows is a positive multiple of 16, CanMoveTiles(move), and,
// streaming, dst and dsa are 64-byte aligned. The source and destination
// must not overlap.
bool TransposeTiles(TileMove move, const void* src, void* dst, int64_t na, int64_t nb,
                    int64_t ssb, int64_t dsa, int64_t strip_rows, bool streaming);

// The conversion between a rows x cols row-major array of `element_bytes`
// elements and its tiles of tile_rows x tile_cols elements, tiles in
// row-major order, each tile row-major (XLA's {1,0:T(tile_rows,tile_cols)}):
// with to_tiles, from src row-major to dst tiled, zeroing the tiles'
// padding; else back. The conversion has no shuffles, only runs (a tile's
// row, or its part within cols), so this moves each run with vector loads
// and stores (its whole 32-byte pieces; a last piece shorter than that by
// memcpy), tiles in order, rows within a tile in order: what bounds any
// kernel of the conversion is how fast this moves the runs. Streaming, the
// stores of whole 128-byte blocks are non-temporal. Returns false and moves
// nothing unless every size is positive, CanMoveTiles(TileMove::kAvx2),
// and, streaming, every run's destination is 32-byte aligned.
bool CopyTileRuns(const void* src, void* dst, int64_t rows, int64_t cols, int64_t tile_rows,
                  int64_t tile_cols, int64_t element_bytes, bool to_tiles, bool streaming);

// The traffic of a CopyTileRuns conversion whose runs are 32 or 64 bytes
// as the packing core's kernels move it: in 64-byte lines, with none of
// their shuffles. With 64-byte runs a line is a run. With 32-byte runs a
// line of the tiled side is rows 2k and 2k + 1 of a tile, and a line of the
// dense side one row across two tiles, so each step moves line k of tiles
// j and j + 1 to (or from) the dense lines of rows 2k and 2k + 1 across
// those tiles, whole, the bytes in their places only as to which lines
// they fill. In the order the core's planner gives its kernel, the
// destination's: bands of tile rows, then rows and tiles along each into
// dense rows, or tiles and rows down them into tiles. Returns false and
// moves nothing unless TakesTileRunLines.
bool TileRunLines(const void* src, void* dst, int64_t rows, int64_t cols, int64_t tile_rows,
                  int64_t tile_cols, int64_t element_bytes, bool to_tiles);

// Whether TileRunLines moves these sizes: all positive, runs (tile_cols *
// element_bytes) of 32 or 64 bytes, rows a multiple of tile_rows, with
// 32-byte runs tile_rows even and cols a multiple of 2 * tile_cols (else
// of tile_cols), and CanMoveTiles(TileMove::kAvx512).
bool TakesTileRunLines(int64_t rows, int64_t cols, int64_t tile_rows, int64_t tile_cols,
                       int64_t element_bytes);

// The traffic of bf16 {1,0} -> {1,0:T(8,128)(2,1)} over a rows x cols array
// with none of its shuffles: the conversion builds each 64-byte line of a
// tile from 16 columns of two adjacent rows, interleaved; this stores the
// even row's 32 bytes as the line's first half and the odd row's as its
// second, in the conversion's order of lines. Streaming, the stores are
// non-temporal. Returns false and moves nothing unless rows is a positive
// multiple of 8, cols of 128, CanMoveTiles(TileMove::kAvx2), and,
// streaming, dst is 32-byte aligned.
bool PairLinesT8x128(const void* src, void* dst, int64_t rows, int64_t cols, bool streaming);

// Writes zeros to the `bytes` at dst + r * stride for r < rows, 32 bytes a
// store, streaming or not: a padded destination's padding, in a pass of
// its own, for references whose lines leave it out. Returns false and
// writes nothing unless rows >= 0, bytes is a positive multiple of 32,
// CanMoveTiles(TileMove::kAvx2), and, streaming, dst and stride are
// 32-byte aligned.
bool ZeroRowTails(void* dst, int64_t rows, int64_t stride, int64_t bytes, bool streaming);

}  // namespace xla_layout

#endif  // XLA_LAYOUT_COPY_REFERENCE_H_
