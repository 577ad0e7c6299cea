#include "passes/layout_assignment/layout_assignment.h"

#include <memory>
#include <utility>

#include "absl/container/flat_hash_set.h"

#include "absl/strings/str_cat.h"

#include "hlo/hlo_attributes.h"
#include "hlo/hlo_verifier.h"
#include "passes/flatten_call_graph.h"
#include "passes/layout_assignment/constraints.h"
#include "passes/layout_assignment/copy_insertion.h"
#include "passes/layout_assignment/cost_model.h"
#include "passes/layout_assignment/propagation.h"
#include "xla_layout/layout_util.h"

namespace xla_layout {
namespace {

using layout_assignment::LayoutCostModel;
using layout_assignment::LayoutConstraints;
using layout_assignment::LayoutPropagation;
using layout_assignment::Slot;

// Writes the propagated layouts into the module's shapes; returns whether
// any changed. A pinned entry layout is kept as written when physically the
// same; otherwise a layout is never rewritten into a physically identical
// one (size-1 dims elsewhere in the order): that keeps the pass idempotent.
bool ApplyLayouts(const LayoutConstraints& constraints,
                  LayoutPropagation& propagation) {
  bool changed = false;
  const std::vector<Slot>& slots = constraints.slots();
  for (size_t slot = 0; slot < slots.size(); ++slot) {
    PrefetchSlotAhead(slots, slot);
    const Layout* layout = &propagation.LayoutOf(static_cast<int>(slot));
    Shape& shape = *slots[slot].shape;
    // Every layout is decided now, as if written in the text.
    slots[slot].instruction->set_layout_written(true);
    auto pinned = constraints.exact().find(static_cast<int>(slot));
    const bool exact = pinned != constraints.exact().end();
    if (exact && SamePhysicalLayout(shape, pinned->second, *layout)) {
      layout = &pinned->second;
    }
    if (!shape.has_layout() ||
        (exact ? !(shape.layout() == *layout)
               : !SamePhysicalLayout(shape, shape.layout(), *layout))) {
      shape.set_layout(*layout);
      changed = true;
    }
  }
  return changed;
}

// Leaf by leaf, writes `from`'s layouts on `to` where they are physically
// the same but written otherwise (size-1 dims placed elsewhere); returns
// whether any changed.
bool WriteAs(const Shape& from, Shape& to) {
  if (from.IsTuple() && to.IsTuple()) {
    bool changed = false;
    for (size_t k = 0; k < from.tuple_shapes().size() && k < to.tuple_shapes().size(); ++k) {
      changed |= WriteAs(from.tuple_shapes()[k], to.mutable_tuple_shapes()[k]);
    }
    return changed;
  }
  if (!layout_assignment::IsLaidOut(from) || !layout_assignment::IsLaidOut(to) ||
      !from.has_layout() || !to.has_layout() || from.layout() == to.layout() ||
      from.dimensions() != to.dimensions() ||
      !SamePhysicalLayout(to, from.layout(), to.layout())) {
    return false;
  }
  to.set_layout(from.layout());
  return true;
}

// A view is written in its value's layout, as XLA's layout-sensitive
// verifier compares them as written: a tuple's elements are its operands',
// a get-tuple-element is its tuple element, a fused parameter is the
// fusion's operand. Callers first, so that a fused parameter sees its
// operand's final layout.
bool WriteViewsAsTheirValues(HloModule& module) {
  bool changed = false;
  std::vector<HloComputation*> order = module.MakeComputationPostOrder();
  for (auto c = order.rbegin(); c != order.rend(); ++c) {
    for (HloInstruction* i : (*c)->instruction_range()) {
      switch (i->opcode()) {
        case HloOpcode::kTuple:
          for (int k = 0; k < i->operand_count() &&
                          k < static_cast<int>(i->shape().tuple_shapes().size());
               ++k) {
            changed |= WriteAs(i->operand(k)->shape(), i->mutable_shape()->mutable_tuple_shapes()[k]);
          }
          break;
        case HloOpcode::kGetTupleElement: {
          const std::optional<int64_t> index = i->attributes().index();
          const Shape& tuple = i->operand(0)->shape();
          if (index && tuple.IsTuple() && *index >= 0 &&
              *index < static_cast<int64_t>(tuple.tuple_shapes().size())) {
            changed |= WriteAs(tuple.tuple_shapes()[*index], *i->mutable_shape());
          }
          break;
        }
        case HloOpcode::kFusion: {
          if (i->called_computations().empty()) break;
          std::vector<HloInstruction*> params = i->called_computations()[0].computation->parameters();
          for (size_t k = 0; k < params.size() && static_cast<int>(k) < i->operand_count(); ++k) {
            if (params[k] != nullptr) {
              changed |= WriteAs(i->operand(k)->shape(), *params[k]->mutable_shape());
            }
          }
          break;
        }
        default:
          break;
      }
    }
  }
  return changed;
}

// Writes the entry's parameter and result layouts into the header; returns
// whether they changed.
absl::StatusOr<bool> WriteEntryLayout(HloModule& module) {
  HloComputation* entry = module.entry();
  ComputationLayout entry_layout;
  for (HloInstruction* p : entry->parameters()) {
    if (p == nullptr) {
      return absl::FailedPreconditionError(
          "the entry's parameters are not numbered 0..n-1");
    }
    entry_layout.parameters.push_back(p->shape());
  }
  entry_layout.result = entry->root()->shape();
  const auto& old = module.entry_computation_layout();
  bool same = old && old->parameters.size() == entry_layout.parameters.size() &&
              old->result == entry_layout.result;
  for (size_t k = 0; same && k < entry_layout.parameters.size(); ++k) {
    same = old->parameters[k] == entry_layout.parameters[k];
  }
  if (same) return false;
  module.set_entry_computation_layout(std::move(entry_layout));
  return true;
}

// XLA's algebraic simplifier after layout assignment: a transpose or a
// reshape whose layouts make it move no byte becomes a `bitcast` of the same
// name, shape and operand (its other attributes kept), which the executor
// runs without moving data. Fusion bodies (`fused`) are left alone: their values are
// no buffers, the fused ops read through the index math. Counts each kind
// rewritten into `stats`.
void RewriteBitcasts(HloModule& module,
                     const absl::flat_hash_set<const HloComputation*>& fused,
                     LayoutAssignmentStats& stats) {
  for (HloComputation* c : module.computations()) {
    if (fused.contains(c)) continue;
    // Each rewrite replaces its instruction at once: a batch of the chain's
    // 500k bitcasts beside the transposes they replace was the run's peak.
    const HloComputation::InstructionRange range = c->instruction_range();
    for (size_t k = 0; k < range.size(); ++k) {
      range.PrefetchAhead(k);
      HloInstruction* i = range[k];
      const HloOpcode op = i->opcode();
      if ((op != HloOpcode::kTranspose && op != HloOpcode::kReshape) ||
          i->operand_count() != 1 || !layout_assignment::IsLaidOut(i->shape()) ||
          !layout_assignment::IsLaidOut(i->operand(0)->shape())) {
        continue;
      }
      const Shape& in = i->operand(0)->shape();
      const bool bitcast =
          op == HloOpcode::kTranspose
              ? i->attributes().dimensions &&
                    TransposeIsBitcast(in, i->shape(), *i->attributes().dimensions)
              : ReshapeIsBitcast(in, i->shape());
      if (!bitcast) continue;
      ++(op == HloOpcode::kTranspose ? stats.transposes_as_bitcast : stats.reshapes_as_bitcast);
      auto b = std::make_unique<HloInstruction>(i->name(), HloOpcode::kBitcast, i->shape());
      b->set_layout_written(true);
      b->set_location(i->location());
      for (const HloAttribute& a : i->raw_attributes()) {
        if (TakesAttribute(HloOpcode::kBitcast, a.name)) {
          b->mutable_raw_attributes().push_back(a);  // metadata and its kind
        }
      }
      b->AppendOperand(i->operand(0));
      c->ReplaceInstructionAt(k, std::move(b));
    }
  }
}

}  // namespace

LayoutAssignment::LayoutAssignment()
    : target_(*TargetConfig::Builtin("default")) {}

LayoutAssignment::LayoutAssignment(TargetConfig target)
    : target_(std::move(target)) {}

std::vector<PassOption> LayoutAssignment::options() const {
  PassOption target{"target", PassOption::Type::kChoice, "NAME",
                    "a built-in target table", TargetConfig::BuiltinNames()};
  PassOption file{"target-file", PassOption::Type::kFile, "FILE",
                  "a target table of your own (TargetLayoutConfig text proto)",
                  {}};
  return {target, file};
}

absl::Status LayoutAssignment::Configure(const PassOptionValues& values) {
  absl::StatusOr<TargetConfig> target;
  if (std::optional<std::string> name = values.GetString("target")) {
    target = TargetConfig::Builtin(*name);
  } else if (std::optional<std::string> file = values.GetString("target-file")) {
    target = TargetConfig::FromFile(*file);
  } else {
    return absl::OkStatus();
  }
  if (!target.ok()) return target.status();
  target_ = *std::move(target);
  return absl::OkStatus();
}

absl::StatusOr<bool> LayoutAssignment::Run(HloModule& module) {
  stats_ = LayoutAssignmentStats();
  explanation_ = LayoutExplanation();
  if (module.entry() == nullptr) {
    return absl::FailedPreconditionError("the module has no entry computation");
  }
  // What the module came with: parameters it pins untiled stay so.
  const std::optional<ComputationLayout> header = module.entry_computation_layout();
  // One caller per control-flow computation, so each takes one set of
  // layouts (FlattenCallGraph returns only once none is shared).
  absl::StatusOr<int> cloned = FlattenCallGraph(module);
  if (!cloned.ok()) return cloned.status();
  stats_.computations_cloned = *cloned;
  const LayoutCostModel cost(target_);
  absl::StatusOr<LayoutConstraints> constraints = LayoutConstraints::Build(module, cost);
  if (!constraints.ok()) return constraints.status();
  LayoutPropagation propagation(*constraints, cost);
  propagation.Run(stats_);
  bool changed = *cloned > 0;
  changed |= ApplyLayouts(*constraints, propagation);
  layout_assignment::DecideConvolutionOperands(*constraints, propagation, cost,
                                               stats_.convolution_reads);
  std::vector<layout_assignment::CopyNeed> needs;
  absl::Status copied = layout_assignment::InsertCopies(
      module, *constraints, propagation, cost, stats_.copies, explain_ ? &needs : nullptr);
  if (!copied.ok()) return copied;
  if (explain_) {
    explanation_ = layout_assignment::Explain(module, *constraints, propagation, cost,
                                              stats_.copies, needs, header.has_value(),
                                              explain_values_);
  }
  changed |= !stats_.copies.empty();
  changed |= WriteViewsAsTheirValues(module);
  absl::StatusOr<bool> entry_changed = WriteEntryLayout(module);
  if (!entry_changed.ok()) return entry_changed.status();
  changed |= *entry_changed;
  stats_.target = target_.name();
  if (collect_stats()) {
    layout_assignment::CollectStats(module, *constraints, propagation, stats_);
  }
  const int before = stats_.transposes_as_bitcast + stats_.reshapes_as_bitcast;
  RewriteBitcasts(module, constraints->fused_computations(), stats_);
  changed |= stats_.transposes_as_bitcast + stats_.reshapes_as_bitcast > before;
  // The rules a laid-out module keeps: a break is a bug of this pass.
  absl::Status invariants = VerifyLayoutInvariants(
      module, [this](const Shape& array) { return target_.RequiresTiles(array); }, &header);
  if (!invariants.ok()) return absl::InternalError(invariants.message());
  return changed;
}

std::string LayoutAssignment::StatsReport(bool json) const {
  return json ? stats_.ToJson() : stats_.ToText();
}

// The plugin build (layout_assignment_plugin.so) registers through its C
// entry points instead, under its own name.
#ifndef XLA_LAYOUT_PASS_PLUGIN
XLA_LAYOUT_REGISTER_PASS(LayoutAssignment);
#endif

}  // namespace xla_layout
