// Loop order for streaming copies of short runs (internal to xla_layout/).
// OrderLoopsForStreaming reads such copies' source in order; a streaming
// store of a lone line then lands wherever the next run goes (a 128-byte
// tile row of {0,1:T(32,32)(32,1)} into each of 128 tiles in turn). Lone
// 64- and 128-byte writes scattered that way run at about half the
// streaming copy's speed here, where 512 bytes at a time run at its speed,
// and reading a few source streams side by side costs next to nothing.
// So the runs that continue one another in the destination are taken a
// few at a time: eight per kernel call (512 bytes of 64-byte runs, 1 KiB of
// 128-byte tile rows), eight source rows read side by side.
#ifndef XLA_LAYOUT_STREAM_ORDER_H_
#define XLA_LAYOUT_STREAM_ORDER_H_

#include <cstdint>
#include <vector>

#include "xla_layout/isa.h"
#include "xla_layout/relayout_planner.h"

namespace xla_layout::internal {

// Runs shorter than this are grouped (512-byte runs and longer already
// stream at the copy's speed; taken two at a time they measured slower).
inline constexpr int64_t kStreamPieceBytes = 512;

// Runs a grouped streaming copy writes in one piece. Eight 128-byte tile
// rows (1 KiB) stream faster than four (512 bytes), and eight 256-byte
// ones than two; 32 tile rows at a time (a whole 4 KiB tile, 32 source
// rows side by side) ran at half the speed, and 16 64-byte runs measured
// no better than 8.
inline constexpr int64_t kStreamPieceRuns = 8;

// For each copy task whose runs are whole lines shorter than
// kStreamPieceBytes, with a loop outside them whose destination stride is
// the run (the runs continue one another there) and whose extent the group
// divides: that loop is split, and its inner part of kStreamPieceRuns
// steps becomes the kernel's row loop (just outside the run). Call after
// OrderLoopsForStreaming, for streaming plans. Other tasks are left as they
// are.
void GroupLineRunsForStreaming(std::vector<Task>* tasks, int64_t es);

// Source rows a streaming grouped transpose (Task::grouped, into narrow
// tiles such as {0,1:T(4,128)}) takes per kernel call, where the planner
// gives it one destination line of rows (16 f32) at a time: the kernel
// sweeps them 16 columns at a time, so each tile line of the destination is
// written 512 bytes at a time, not 64, and the source rows are read by a
// strip of them, as the plain transposes read theirs.
inline constexpr int64_t kGroupedStreamRows = 128;

// The same in cache, where the kernel goes down the call's rows 16 columns
// at a time, so a destination tile row gets their bytes in one run: 128
// rows, or 64 where the source rows are a multiple of 4 KiB apart (all of
// them then share an L1 set; f32[512,1024] into {0,1:T(8,128)} ran at
// 0.76x of memcpy in calls of 16, 0.71x in calls of 128, 0.80x of 64).
inline constexpr int64_t kGroupedCacheRows = 128;
inline constexpr int64_t kGroupedCollidingRows = 64;

// For each grouped transpose task that `isa` (the plan's, resolved) has a
// grouped kernel for, whose loop just outside the kernel's three steps
// through blocks of its rows (BlockNarrowTransposes' split), and is not the
// outermost (the loop a plan's threads share out) unless `outermost_too`
// (a plan of one thread): as many blocks
// as fit in kGroupedStreamRows rows (streaming) or kGroupedCacheRows (in
// cache; kGroupedCollidingRows for source rows a multiple of 4 KiB apart),
// and divide that loop's extent, become one kernel call. Without the
// kernel, the set's transpose goes tile by tile and keeps its one line of
// rows. Call after BlockNarrowTransposes. Other tasks are left as they are.
void TallerGroupedBlocks(std::vector<Task>* tasks, int64_t es, Isa isa, bool streaming,
                         bool outermost_too);

}  // namespace xla_layout::internal

#endif  // XLA_LAYOUT_STREAM_ORDER_H_
