// Propagation of layouts through LayoutConstraints: slots that are one
// buffer form a group (union-find), and each group's layout spreads along
// the operand edges to its neighbours, strongest constraint first.
//
// Order: hints are placed (not spread), then the buffer layouts apply batch
// by batch (callees first; in the entry the result before the parameters),
// then the hints spread, then every group still unset gets the cost model's
// default, one at a time. Strengths only rise and a derived layout is
// re-derived only when its source changes, so propagation ends; a step
// budget of 64 per slot (plus 4096) guards that guarantee, and a module cut
// short by it is still laid out and copied consistently.
#ifndef PASSES_LAYOUT_ASSIGNMENT_PROPAGATION_H_
#define PASSES_LAYOUT_ASSIGNMENT_PROPAGATION_H_

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"

#include "passes/layout_assignment/constraints.h"
#include "passes/layout_assignment/cost_model.h"
#include "passes/layout_assignment/stats.h"

namespace xla_layout::layout_assignment {

// The layout the other side of `edge` takes when one side has `from`:
// toward the operand when `toward_operand`, else toward the result. `current`
// is the other side's layout so far, if any: an order that already agrees
// where the source has information is kept. None when the relation says
// nothing about that side.
std::optional<Layout> RelatedLayout(const OperandEdge& edge,
                                    const LayoutConstraints& constraints,
                                    const LayoutCostModel& cost, bool toward_operand,
                                    const Layout& from,
                                    const Layout* current = nullptr);

// Which concatenate operands another operand outgrows along the
// concatenated dim: as in XLA, only the largest operand lays out a
// concatenate, so a layout change copies the smaller ones. Each
// concatenate's operands are measured once, so a query costs O(1) after the
// first for its concatenate (a concatenate of n operands has n edges).
class ConcatenateOperandSizes {
 public:
  // Whether `edge` reads a concatenate operand that a sibling outgrows.
  bool IsOutgrown(const OperandEdge& edge);
  // Operand extents read so far (the work done, for tests).
  int64_t extents_read() const { return extents_read_; }

 private:
  int64_t Extent(const HloInstruction& concatenate, const HloInstruction& operand);
  absl::flat_hash_map<const HloInstruction*, int64_t> largest_;
  int64_t extents_read_ = 0;
};

// Why a group has its layout (provenance, read by `hlo-layout explain`):
// a buffer layout or hint of LayoutConstraints (by index), the operand edge
// that carried it from a neighbour group, or the cost model's free choice.
struct LayoutCause {
  enum Kind : int8_t { kNone, kBuffer, kHint, kEdge, kDefault };
  Kind kind = kNone;
  int index = -1;  // into buffer_layouts(), hints() or edges()
};

class LayoutPropagation {
 public:
  LayoutPropagation(const LayoutConstraints& constraints, const LayoutCostModel& cost);

  // Gives every group a layout. A group no constraint reaches takes the
  // cost model's choice for a free value, weighing what its dot consumers
  // prefer; the refused tilings and the searched orders go to `stats`.
  void Run(LayoutAssignmentStats& stats);

  // The representative slot of `slot`'s group (the smallest slot in it).
  int Find(int slot);
  // The layout of `slot`'s group after Run.
  const Layout& LayoutOf(int slot) { return layouts_[layout_[Find(slot)]]; }
  // What set the layout of `slot`'s group last. Recorded on every run: two
  // stores per layout change, which the pass's benchmark does not see.
  LayoutCause CauseOf(int slot) {
    const int g = Find(slot);
    return {static_cast<LayoutCause::Kind>(cause_kind_[g]), cause_index_[g]};
  }

 private:
  void Union(int a, int b);
  // Raises the slot's group to `layout` if `level` is stronger; `propagate`
  // queues it for Drain(). `from` is the group whose propagation this is.
  // `cause` is recorded as the group's provenance when the layout changes.
  void Set(int slot, const Layout& layout, int level, LayoutCause cause,
           bool propagate = true, int from = -1);
  void Drain();

  const LayoutConstraints& constraints_;
  const LayoutCostModel& cost_;
  std::vector<int> parent_;
  std::vector<int8_t> level_;
  std::vector<int> source_;  // the group that set this one, or -1
  std::vector<int8_t> cause_kind_;  // LayoutCause, by group
  std::vector<int> cause_index_;
  // Each group's layout as an index into layouts_: a module has few
  // distinct layouts, and a group costs 4 bytes instead of a Layout.
  std::vector<int32_t> layout_;
  std::vector<Layout> layouts_;
  absl::flat_hash_map<Layout, int32_t> layout_ids_;
  int32_t Intern(const Layout& layout);
  // The edges of group g are adjacent_[adjacent_begin_[g] ..
  // adjacent_begin_[g + 1]) (one array for all groups).
  std::vector<int> adjacent_begin_;
  std::vector<int> adjacent_;
  std::deque<int> queue_;
  ConcatenateOperandSizes concatenates_;
  int64_t steps_ = 0;
};

}  // namespace xla_layout::layout_assignment

#endif  // PASSES_LAYOUT_ASSIGNMENT_PROPAGATION_H_
