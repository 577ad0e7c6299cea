// Where the packing core's kernels take a different path on Intel than on
// AMD: each choice was measured on both vendors' machines (docs/benchmarks.md
// names the runs), and each reads the CPU's vendor once.
#ifndef XLA_LAYOUT_KERNEL_TUNING_H_
#define XLA_LAYOUT_KERNEL_TUNING_H_

#include <cstdint>

namespace xla_layout::internal {

// Whether a transpose in cache whose destination rows span `rows_bytes`
// claims with PREFETCHW, a strip ahead, the destination lines the next
// strip writes. On Intel (Emerald Rapids) that hides the misses of writes
// that go to each destination row in turn, once the rows span more than
// 512 KiB (below, f32[256,256] measured no faster); on Zen 5 write
// prefetches in cache measured slower (docs/benchmarks.md, "On Emerald
// Rapids").
inline bool ClaimsDestinationAhead(int64_t rows_bytes) {
  static const bool intel = __builtin_cpu_is("intel");
  return intel && rows_bytes > (int64_t{512} << 10);
}

// Whether streaming transposes sweep short strips of source rows with no
// fetch (16 rows, taken two tiles down at a time, so 32 and each
// destination row 128 bytes at a visit): the plain strips once there are
// more than 256 rows, and the grouped kernel of narrow tiles on each
// call's rows; otherwise they sweep 256 rows (or a call's) fetching each
// tile's lines ahead. On Intel the rows of a strip are then read whole,
// streams the hardware prefetcher follows; on Zen 5 strips of 256 measured
// best (docs/benchmarks.md, "On Zen 5", "On the Xeon of stop 46" and
// "Stop 47, same machine" have the runs).
inline bool StreamsInShortStrips() {
  static const bool intel = __builtin_cpu_is("intel");
  return intel;
}

// Whether streaming transposes onto destination rows of at most 512 bytes
// (a batch moved minor, f32[96,3,224,224] to {0,3,2,1}) sweep strips of 16
// source rows along the whole row, rather than chunks of 1024 columns down
// every row: on Zen 5, 1/mcpy 0.78-0.88x -> 0.85-1.04x there in five
// alternating runs, and no faster on 1 KiB rows (docs/benchmarks.md,
// "Stop 50, same Zen 5"). Measured on AMD only; Intel keeps the chunks,
// which were not measured against the strips there, and every other vendor
// takes AMD's path.
inline bool SweepsShortRowsInStrips() {
  static const bool intel = __builtin_cpu_is("intel");
  return !intel;
}

// Whether a transpose in cache whose rows collide (IsStagedTranspose in
// large_copy_kernels.h) goes through the staged blocks rather than the
// set's own strips. On AMD it always does: staging was measured on Zen 4,
// whose 8-way L1D held 8 of a tile's 16 colliding lines. On Intel (48 KiB,
// 12-way L1D) only when the destination rows collide and the source rows
// are 2 KiB or longer: colliding source rows alone, or short ones, went
// faster through the strips (docs/benchmarks.md, "Stop 47, same machine",
// has the runs).
inline bool StagesCollidingRows(int64_t src_stride_b, int64_t dst_stride_a) {
  static const bool intel = __builtin_cpu_is("intel");
  return !intel || (dst_stride_a % 4096 == 0 && src_stride_b >= 2048);
}

// Whether a grouped transpose into narrow tiles in cache (no streaming)
// takes 64 or 128 source rows per kernel call, gone down 16 columns at a
// time (TallerGroupedBlocks in stream_order.h), rather than one line of
// rows (16 f32) swept along the whole row. Measured on Intel only
// (docs/benchmarks.md, "Stop 47, same machine"); AMD keeps the calls of 16.
inline bool TakesTallGroupedBlocksInCache() {
  static const bool intel = __builtin_cpu_is("intel");
  return intel;
}

// Whether the tiled weights' nine columns take the AVX-512 nine-column
// blocks (transpose_nine.h) even where their nine destination rows are a
// multiple of 4096 bytes apart and so share an L1 set, rather than the
// row table's blocks of 16 rows: on Zen 5 (12-way L1D), [960,1,3,3] into
// T(1,128) went from 0.29-0.30x to 0.46-0.48x of memcpy (docs/benchmarks.md,
// "Stop 53, same Zen 5"). Measured on AMD only; Intel, some of whose cores
// have an 8-way L1D that nine colliding lines overfill, keeps the row
// table's blocks.
inline bool TakesNineColumnsOnSharedSets() {
  static const bool intel = __builtin_cpu_is("intel");
  return !intel;
}

}  // namespace xla_layout::internal

#endif  // XLA_LAYOUT_KERNEL_TUNING_H_
