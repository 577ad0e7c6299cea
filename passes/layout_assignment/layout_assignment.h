// `layout-assignment`: gives every array in a module a layout (dimension
// order and tiles) for a target, and inserts `copy` instructions wherever a
// value's layout differs from the one a use needs.
//
// Guarantees: after Run every array has a layout, the module verifies, the
// entry layout is written in the header, and a second Run changes nothing
// (a layout is never rewritten into a physically identical one).
//
// Fails (the module may be partly rewritten) on a module without an entry,
// entry parameters not numbered 0..n-1, a constraint that cannot hold
// (LayoutConstraints::Build), or a copy the packing core cannot run
// (InsertCopies).
//
// The steps, one file each: FlattenCallGraph gives every control-flow
// computation one caller; LayoutConstraints (constraints.h) states what
// each op needs; LayoutPropagation (propagation.h) spreads layouts, strongest
// first; InsertCopies (copy_insertion.h) puts copies where they still
// differ; CollectStats (stats.h) reports; last, transposes and reshapes
// that move no byte under their layouts become bitcasts. The cost model (cost_model.h)
// decides which tilings pay for their padding.
//
// Pinned, never changed: entry parameters and result as the header gives
// them (or, without a header, when written other than the default); infeed,
// recv and bitcast results; layouts with attributes the pass does not model
// (memory space, element size, ...); custom-call results that are chosen or
// whose operands are constrained.
//
// The rules it knows: elementwise agreement; slices, pads, concatenates and
// converts keep the order; transposes and reshapes become bitcasts where a
// layout allows (and are rewritten into `bitcast`s); broadcast operands
// follow their result and reduce results their operand; control flow shares
// layouts with its computations; a dot has the operands read often enough
// packed into the target's panels (batch dims outermost) and its result
// tiled by the target's dot tiling; a convolution operand is copied into
// the layout the target prefers where the table's read factor for its
// class says the copy pays; custom calls honour operand_layout_constraints;
// a buffer shared by aliasing (output_to_operand_aliasing,
// input_output_alias) has one layout; ops that
// share a channel_id (send/recv, all-reduces) agree; the outputs of variadic
// ops (sort, reduce, all-reduce over a tuple) share one layout, as do the
// inputs where the op needs it; collectives and sort written with
// constrain_layout=true keep the layouts written. On a target that requires
// tiles (tpu) every array outside fusion bodies is tiled: a layout written
// without tiles fixes the order only, and an untiled input the pass may not
// change is copied into tiles at its first use.
#ifndef PASSES_LAYOUT_ASSIGNMENT_LAYOUT_ASSIGNMENT_H_
#define PASSES_LAYOUT_ASSIGNMENT_LAYOUT_ASSIGNMENT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "passes/hlo_pass.h"
#include "passes/layout_assignment/provenance.h"
#include "passes/layout_assignment/stats.h"
#include "passes/layout_assignment/target_config.h"

namespace xla_layout {

class LayoutAssignment : public HloPass {
 public:
  LayoutAssignment();  // the `default` target
  explicit LayoutAssignment(TargetConfig target);

  absl::string_view name() const override { return "layout-assignment"; }
  absl::string_view description() const override {
    return "chooses dimension order and tiles per target; inserts copies";
  }
  absl::StatusOr<bool> Run(HloModule& module) override;
  // target: a built-in table (tpu, cpu-avx2, cpu-avx512, arm64, default);
  // target-file: a TargetLayoutConfig text proto.
  std::vector<PassOption> options() const override;
  absl::Status Configure(const PassOptionValues& values) override;
  std::string StatsReport(bool json) const override;

  const TargetConfig& target() const { return target_; }
  const LayoutAssignmentStats& stats() const { return stats_; }

  // With explain on, Run also records why each copy exists and, with
  // `values`, why each value off the target's default has its layout
  // (`hlo-layout explain`); off (the default), it records nothing more than
  // the statistics.
  void set_explain(bool explain, bool values = false) {
    explain_ = explain;
    explain_values_ = values;
  }
  // The last Run's explanation (empty unless explain was on).
  const LayoutExplanation& explanation() const { return explanation_; }

 private:
  TargetConfig target_;
  LayoutAssignmentStats stats_;
  bool explain_ = false;
  bool explain_values_ = false;
  LayoutExplanation explanation_;
};

}  // namespace xla_layout

#endif  // PASSES_LAYOUT_ASSIGNMENT_LAYOUT_ASSIGNMENT_H_
