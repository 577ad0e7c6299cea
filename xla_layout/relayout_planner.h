// The packing core's planner (internal to xla_layout/): the loop nests a
// relayout runs, built from the two layouts' digits, and the kernel class
// they amount to. relayout.cc executes them.
#ifndef XLA_LAYOUT_RELAYOUT_PLANNER_H_
#define XLA_LAYOUT_RELAYOUT_PLANNER_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/strings/string_view.h"
#include "xla_layout/isa.h"
#include "xla_layout/relayout.h"
#include "xla_layout/tiled_layout.h"

namespace xla_layout::internal {

// One loop of a task; strides in bytes.
struct Loop {
  int64_t extent;
  int64_t src;
  int64_t dst;
};

enum class Kind {
  kCopy,       // last loop contiguous on both sides: runs of bytes
  kTranspose,  // last two loops (a, b): a contiguous in src, b in dst
  kStrided,    // element by element
  kFill,       // padding: last loop contiguous in dst
};

absl::string_view KindName(Kind kind);

struct Task {
  Kind kind;
  int64_t src_offset = 0;  // bytes
  int64_t dst_offset = 0;
  std::vector<Loop> loops;  // outer to inner
  // kTranspose: the kernel also takes the loop before (a, b), which steps
  // through groups of a's rows (narrow tiles along a source row) and
  // continues a in the source. Only with another loop outside it.
  bool grouped = false;
  // kTranspose: the destination offset of each step of loops[n - 2], the
  // columns of a source row, when they are a table (transpose_narrow.h).
  std::vector<int64_t> rows;
  // kCopy: bytes of padding written after each run (FusePaddedRows in
  // strided_copy_kernels.h), in the same pass. kTranspose: after each
  // destination row (FusePaddedTransposeRows below).
  int64_t pad_bytes = 0;
  int64_t Elements() const {
    int64_t n = 1;
    for (const Loop& l : loops) n *= l.extent;
    return n;
  }
  // Bytes moved by one step of loops[0], the loop work is shared along.
  int64_t StepBytes(int64_t es) const {
    return Elements() / std::max<int64_t>(loops[0].extent, 1) * es;
  }
};

// Builds the tasks of a layout pair whose tiled dims are all digits.
// Returns false when the two sides' digits of some logical dim do not nest
// (e.g. tiles of 3 and 4 on one dim); the caller then uses a gather table.
bool PlanDigits(const TiledLayout& src, const TiledLayout& dst, int64_t es,
                std::vector<Task>* tasks);

// With streaming (non-temporal) stores, a write of whole cache lines costs
// the same wherever it lands, so copies and transposes whose kernel writes
// short whole-line pieces are reordered to read the source in order: the
// loops outside the piece follow the source stride. Other tasks are left as
// planned.
void OrderLoopsForStreaming(std::vector<Task>* tasks, int64_t es);

// Transposes whose kernel reads less than a line of each source row (into
// narrow tiles such as {0,1:T(4,128)}), streaming or not: the loops outside
// the kernel follow the source, the kernel takes its rows one destination
// line at a time, and with them the loop over the tiles along the source
// rows (Task::grouped), so that each call sweeps whole source lines. Done
// where `isa` (the plan's, resolved) has a grouped kernel for the tiles,
// and elsewhere only for rows that would overfill an L1 set. Other tasks
// are left as they are.
void BlockNarrowTransposes(std::vector<Task>* tasks, int64_t es, Isa isa);

// Whether `fill` writes the padding right after each destination run of
// `task`, a copy or a transpose with no padding of its own: the same outer
// loops (extents and destination strides), at least one of them, and each
// of the fill's runs starting where the task's last loop ends in the
// destination, its elements adjacent there (and, for a copy, in the source
// too). FusePaddedRows (strided_copy_kernels.h) and FusePaddedTransposeRows
// fold such a fill into its task.
bool FillPadsRuns(const Task& fill, const Task& task, int64_t es);

// A streaming plan of exactly a transpose (two loops, a then b) and the
// fill of the padding after each destination row becomes the transpose
// alone, carrying the padding (Task::pad_bytes), where TransposePaddedRows
// can write rows and padding in one pass (FusesPaddedTransposeRows in
// short_row_transposes.h). Other plans stay as they are.
void FusePaddedTransposeRows(std::vector<Task>* tasks, int64_t es, Isa isa);

// The class of the tasks that move the most bytes (padding fills aside).
CopyClass ClassOfTasks(const std::vector<Task>& tasks, int64_t es);

}  // namespace xla_layout::internal

#endif  // XLA_LAYOUT_RELAYOUT_PLANNER_H_
