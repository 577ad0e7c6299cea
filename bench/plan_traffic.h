// References for a replayed copy that replay_traffic.h cannot reduce: the
// copy moved as the packing core's planner lays it out (PlanDigits and
// MergeContinuingTasks, before any pass picks a kernel), its copies and
// fills as runs of vector moves, its transposes in 8x8 blocks of 32-bit
// elements, the blocks of a plane swept along a, plane after plane. A
// transpose's blocks move one of two ways:
// - kLines: each block's eight 32-byte source pieces (or four 64-byte
//   ones) to its destination pieces, no element moved within them: the
//   plan's traffic alone, in the plan's order. Source rows shorter than
//   that (the [C,9] weights), back to back, move 16 rows at a time (8
//   where b is no multiple of 16), as one 64-byte (32-byte) piece to each
//   destination row;
// - kPermute: each block transposed by two-source permutes
//   (simd_transpose_permute.h), the fewest shuffles the project knows:
//   what the plan's blocks cost with that kernel and no other work.
// Neither bounds the core, which may order or merge its blocks otherwise;
// each says what a copy costs when moved that way.
#ifndef BENCH_PLAN_TRAFFIC_H_
#define BENCH_PLAN_TRAFFIC_H_

#include <vector>

#include "bench/relayout_cases.h"
#include "xla_layout/shape.h"

namespace xla_layout::bench {

enum class BlockMove { kLines, kPermute };

// The mover of the copy from `src` to `dst` (same logical array, both with
// layouts), one or none: none unless the CPU has AVX-512F, the elements
// are 32-bit, and the plan is copies, fills and transposes that `move`
// can move, with at least one transpose (or, for kLines, a copy of runs of
// 256 bytes or fewer). `move` moves transposes whose b extent is a
// multiple of 8 and whose a extent is too, or, for kLines only, whose
// source rows are back to back and shorter than 64 elements. The mover
// returns false, and moves nothing, when asked for streaming stores.
std::vector<Mover> PlanMovers(const Shape& src, const Shape& dst, BlockMove move);

}  // namespace xla_layout::bench

#endif  // BENCH_PLAN_TRAFFIC_H_
