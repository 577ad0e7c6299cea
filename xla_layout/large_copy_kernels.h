// Kernels of the packing core for copies past the L2 cache, where the order
// and the width of memory accesses, not instructions, set the speed. The
// first two come as wrappers around a kernel set's own kernel
// (relayout_kernels.cc puts the wrappers in its AVX2 and AVX-512 tables)
// that take the cases they are for and hand every other call on unchanged;
// the third is called by the sets' transpose:
//
// - streaming copies of runs of whole destination lines (tile rows of
//   {0,1:T(32,32)(32,1)}, nChw16c's 64-byte blocks) go without the calls a
//   general run copy spends on each run's unaligned head and tail, which
//   cost more than the 128 bytes of a 32x32 tile row;
// - transposes of 4-byte elements in cache (no streaming) whose source rows
//   or destination rows are a multiple of 4 KiB apart (f32[512,1024]{1,0}
//   <-> {0,1}): such rows share one L1 set, so a 16x16 tile's 16 lines
//   cannot stay in L1 while the register transpose reads each four times,
//   nor can lines fetched ahead, and 16 destination lines in one set are
//   16 misses in a row. Blocks of 64 (or 128) rows x 128 bytes are first
//   copied whole, line by line, into a block on the stack (the next
//   block's lines fetched into L2 meanwhile), then transposed from there:
//   with source rows colliding, straight to the destination, 8 rows at a
//   time getting 256 bytes each while the next block is staged; when
//   destination rows collide, into a second block whose rows are copied
//   out 512 bytes at a time (which of these cases are staged depends on
//   the vendor's L1: StagesCollidingRows in kernel_tuning.h);
// - three rows of 32-bit elements interleaved into triples (an image's RGB
//   planes into channels-last), by permutes and blends of 8 columns at a
//   time, not element by element.
#ifndef XLA_LAYOUT_LARGE_COPY_KERNELS_H_
#define XLA_LAYOUT_LARGE_COPY_KERNELS_H_

#include <cstdint>

#include "xla_layout/kernel_tuning.h"
#include "xla_layout/relayout_kernels.h"

namespace xla_layout::internal {

using CopyFn = void (*)(const char* src, char* dst, int64_t rows, int64_t bytes,
                        int64_t src_stride, int64_t dst_stride, bool streaming);

// Whether CopyLineRunsAvx2 takes these runs: `bytes` whole 64-byte lines,
// and every run's destination (dst, dst_stride) 64-byte aligned. Inline, as
// the wrappers' other test: they stand in front of every kernel call, and
// a bf16 (2,1) interleave calls its kernel once per 512 bytes.
inline bool IsLineRuns(const char* dst, int64_t bytes, int64_t dst_stride) {
  return bytes > 0 && bytes % 64 == 0 && (reinterpret_cast<uintptr_t>(dst) & 63) == 0 &&
         dst_stride % 64 == 0;
}

// Copies `rows` runs of `bytes` bytes, run r from src + r * src_stride to
// dst + r * dst_stride, with non-temporal stores of whole lines, fetching
// the bytes after each run (where the next call usually reads). Needs
// IsLineRuns and AVX2.
void CopyLineRunsAvx2(const char* src, char* dst, int64_t rows, int64_t bytes,
                      int64_t src_stride, int64_t dst_stride);

// A kernel set's copy (Kernels::copy) with streaming line runs in front
// (both SIMD sets: 32-byte stores fill a line as well as 64-byte ones).
template <CopyFn kCopy>
void LineRuns(const char* src, char* dst, int64_t rows, int64_t bytes, int64_t src_stride,
              int64_t dst_stride, bool streaming) {
  if (streaming && IsLineRuns(dst, bytes, dst_stride)) {
    return CopyLineRunsAvx2(src, dst, rows, bytes, src_stride, dst_stride);
  }
  kCopy(src, dst, rows, bytes, src_stride, dst_stride, streaming);
}

// Whether TransposeStaged can take a transpose (Kernels::transpose's
// arguments): 4-byte elements, no streaming, source or destination rows a
// multiple of 4 KiB apart (rows that share one set of an L1 with 64 sets),
// and at least one whole block (32 of a; 64 rows of b, or
// 128 when destination rows collide).
inline constexpr int64_t kStagedCols = 32;
inline constexpr int64_t kSourceStagedRows = 64;
inline constexpr int64_t kBothStagedRows = 128;
inline bool IsStagedTranspose(int64_t na, int64_t nb, int64_t src_stride_b,
                              int64_t dst_stride_a, int es, bool streaming) {
  if (streaming || es != 4 || na < kStagedCols) return false;
  if (dst_stride_a % 4096 == 0) return nb >= kBothStagedRows;
  return src_stride_b % 4096 == 0 && nb >= kSourceStagedRows;
}

// The transpose of Kernels::transpose for a case IsStagedTranspose takes:
// whole blocks staged as above (transposed by `transpose`, the set's own,
// when destination rows collide), the edges left to `transpose` directly.
// Needs AVX2.
void TransposeStaged(const char* src, char* dst, int64_t na, int64_t nb,
                     int64_t src_stride_b, int64_t dst_stride_a, TransposeFn transpose);

// A kernel set's transpose (Kernels::transpose) with staged blocks in front,
// for the cases this CPU's vendor stages (StagesCollidingRows).
template <TransposeFn kTranspose>
void Staged(const char* src, char* dst, int64_t na, int64_t nb,
            int64_t src_stride_b, int64_t dst_stride_a, int es, bool streaming) {
  if (IsStagedTranspose(na, nb, src_stride_b, dst_stride_a, es, streaming) &&
      StagesCollidingRows(src_stride_b, dst_stride_a)) {
    return TransposeStaged(src, dst, na, nb, src_stride_b, dst_stride_a, kTranspose);
  }
  kTranspose(src, dst, na, nb, src_stride_b, dst_stride_a, es, streaming);
}

// Three rows of 32-bit elements (ssb bytes apart, na each) interleaved
// into consecutive triples at dst: the SIMD sets' transpose when nb == 3
// and its destination rows continue each other (an image's RGB planes into
// channels-last, f32[N,3,H,W] to {1,3,2,0}). Streaming stores when asked
// and dst is 32-byte aligned. Needs AVX2.
void Interleave3x32Avx2(const char* src, char* dst, int64_t na, int64_t ssb, bool streaming);

}  // namespace xla_layout::internal

#endif  // XLA_LAYOUT_LARGE_COPY_KERNELS_H_
