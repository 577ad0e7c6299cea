// Copy insertion, the layout pass's last step: wherever a use needs its value
// in another layout than propagation gave the value, a `copy` goes between
// them. One copy per (value, needed layout) is shared by all its users;
// tuples are copied element by element (get-tuple-element, copy, tuple), with
// tokens and unchanged elements passed through. Copies sit just before their
// first user (for a root, at the end of its computation), inside a while body
// or branch when that is where the layouts must meet.
//
// Names are module-wide unique: `copy`, `copy.1`, ... and, for tuples,
// `VALUE.K` and `VALUE.copy`, counting on from the last suffix handed out.
#ifndef PASSES_LAYOUT_ASSIGNMENT_COPY_INSERTION_H_
#define PASSES_LAYOUT_ASSIGNMENT_COPY_INSERTION_H_

#include <vector>

#include "absl/status/status.h"

#include "hlo/hlo_module.h"
#include "passes/layout_assignment/constraints.h"
#include "passes/layout_assignment/cost_model.h"
#include "passes/layout_assignment/propagation.h"
#include "passes/layout_assignment/stats.h"

namespace xla_layout::layout_assignment {

// Decides, for every convolution operand that propagation gave another
// layout than the convolution prefers, whether to read it as it is or copy
// it: reading costs the target's conv_mismatch_read_factor times the
// operand's bytes, a copy its bytes in both layouts. An untiled input on a
// target that requires tiles is copied anyway, once: the convolutions that
// read it share the copy whose price plus their reads of it costs least
// (one of their preferred layouts, or the least padded tiled one). A copy
// becomes a need in `constraints`; every decision is recorded in `reads`.
void DecideConvolutionOperands(LayoutConstraints& constraints, LayoutPropagation& propagation,
                               const LayoutCostModel& cost,
                               std::vector<LayoutAssignmentStats::ConvolutionRead>& reads);

// Why a copy was inserted (for `hlo-layout explain`): the use that needs
// the value in another layout, and the constraint that states the need.
struct CopyNeed {
  size_t copy = 0;      // index into the copies InsertCopies recorded
  int value_slot = -1;  // the slot of the value copied
  HloInstruction* user = nullptr;  // null: the root of `computation`
  HloComputation* computation = nullptr;
  int operand_index = 0;
  int leaf = 0;             // the leaf of the value (LaidOutLeaves order)
  Layout layout;            // what the use needs
  int edge = -1;            // a same-layout or same-order edge (index), or
  int operand_layout = -1;  // a need of LayoutConstraints (index), or
  bool tiling = false;      // the target's required tiles
};

// Inserts the copies `module` needs after its layouts were set from
// `propagation` (on a target that requires tiles, also a copy into tiles of
// each untiled input at its first use: reason "tiling required", one copy
// per input for the uses that read any layout), and
// records each in `copies` with the packing core's class
// for it and its estimated time; with `needs`, also why each was made. An
// error names the first copy the packing core cannot run (the copies are
// inserted all the same).
absl::Status InsertCopies(HloModule& module, const LayoutConstraints& constraints,
                          LayoutPropagation& propagation, const LayoutCostModel& cost,
                          std::vector<LayoutAssignmentStats::Copy>& copies,
                          std::vector<CopyNeed>* needs = nullptr);

}  // namespace xla_layout::layout_assignment

#endif  // PASSES_LAYOUT_ASSIGNMENT_COPY_INSERTION_H_
