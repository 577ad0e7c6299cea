// LayoutConstraints::Build and the rules that span the module: the slots,
// the entry result, the layouts the module writes, channels and
// input_output_alias. The per-opcode rules are in constraint_rules.cc.
#include "passes/layout_assignment/constraints.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/hlo_attributes.h"
#include "passes/layout_assignment/constraint_builder.h"
#include "xla_layout/layout_util.h"

namespace xla_layout::layout_assignment {

bool IsLaidOut(const Shape& shape) { return shape.IsArray() && shape.rank() > 0; }

namespace {

void CollectLeaves(Shape& shape, LeafShapes& out) {
  if (shape.IsTuple()) {
    for (Shape& s : shape.mutable_tuple_shapes()) CollectLeaves(s, out);
  } else if (IsLaidOut(shape)) {
    out.push_back(&shape);
  }
}

}  // namespace

int LeafOffset(const Shape& tuple, int64_t element) {
  int n = 0;
  for (int64_t k = 0; k < element; ++k) n += LaidOutLeafCount(tuple.tuple_shapes()[k]);
  return n;
}

int LeafAt(const Shape& shape, absl::Span<const int64_t> index) {
  const Shape* s = &shape;
  int leaf = 0;
  for (int64_t k : index) {
    if (!s->IsTuple() || k < 0 || k >= static_cast<int64_t>(s->tuple_shapes().size())) {
      return -1;
    }
    leaf += LeafOffset(*s, k);
    s = &s->tuple_shapes()[k];
  }
  return IsLaidOut(*s) ? leaf : -1;
}

LeafShapes LaidOutLeaves(Shape& shape) {
  LeafShapes out;
  CollectLeaves(shape, out);
  return out;
}

int LaidOutLeafCount(const Shape& shape) {
  if (!shape.IsTuple()) return IsLaidOut(shape) ? 1 : 0;
  int n = 0;
  for (const Shape& s : shape.tuple_shapes()) n += LaidOutLeafCount(s);
  return n;
}

void ConstraintBuilder::CreateSlots() {
  // Sized once: a slot or more per instruction, an edge or more per operand
  // (the edges come later, so the one walk over every instruction counts
  // the operands too).
  c_.fused_ = FusedComputations(module_);
  c_.slots_.reserve(module_.instruction_count());
  size_t operands = 0;
  for (HloComputation* c : module_.computations()) {
    std::vector<int>& first = c_.first_slot_[c];
    first.assign(c->local_id_bound(), -1);
    for (HloInstruction* i : c->instruction_range()) {
      operands += i->operand_count();
      const HloOpcode op = i->opcode();
      if (op == HloOpcode::kSend || op == HloOpcode::kRecv || op == HloOpcode::kAllReduce) {
        channel_ops_.push_back(i);
      }
      first[i->local_id()] = static_cast<int>(c_.slots_.size());
      for (Shape* s : LaidOutLeaves(*i->mutable_shape())) c_.slots_.push_back({i, s});
    }
  }
  c_.edges_.reserve(operands);
}

// The result constraint comes first, as in XLA: operands follow the result,
// and a conflicting parameter gets the copy.
void ConstraintBuilder::AddEntryResult(HloComputation* entry) {
  Shape result;
  if (module_.entry_computation_layout()) {
    result = module_.entry_computation_layout()->result;
  } else {
    // As for parameters: only a chosen (non-default) layout binds.
    result = entry->root()->shape();
    for (Shape* leaf : LaidOutLeaves(result)) {
      if (!IsChosenLayout(*leaf)) leaf->clear_layout();
    }
  }
  ++batch_;
  LeafShapes ls = LaidOutLeaves(result);
  for (int k = 0; k < static_cast<int>(ls.size()) &&
                  k < LaidOutLeafCount(entry->root()->shape());
       ++k) {
    if (!ls[k]->has_layout() || untiled_outputs_.contains(SlotOf(entry->root(), k))) continue;
    // Written without tiles, on a target that requires them, the result's
    // layout fixes its order only.
    const Layout layout = cost_.WithRequiredTiles(*ls[k], ls[k]->layout());
    Need(SlotOf(entry->root(), k), layout, "entry result layout", nullptr, entry, 0, k);
    c_.exact_[SlotOf(entry->root(), k)] = layout;
  }
}

// Layouts the module states for `i`'s own result: pinned (producer) or a
// hint, per array leaf.
void ConstraintBuilder::AddWrittenLayouts(HloInstruction* i) {
  HloComputation* c = i->parent();
  const int leaves = LaidOutLeafCount(i->shape());
  if (i->opcode() == HloOpcode::kParameter && c == module_.entry()) {
    const auto& entry = module_.entry_computation_layout();
    int64_t n = i->parameter_number();
    if (entry && n >= 0 && n < static_cast<int64_t>(entry->parameters.size())) {
      Shape pinned = entry->parameters[n];
      LeafShapes ls = LaidOutLeaves(pinned);
      for (int k = 0; k < leaves && k < static_cast<int>(ls.size()); ++k) {
        if (ls[k]->has_layout()) {
          Produce(SlotOf(i, k), ls[k]->layout(), "header pin");
          c_.exact_[SlotOf(i, k)] = ls[k]->layout();
        }
      }
      return;
    }
    if (!entry) {
      // Without a header, a parameter keeps a layout someone chose: one
      // written other than the default XLA prints for every array.
      bool fixed = leaves > 0;
      for (int k = 0; k < leaves; ++k) {
        const Shape& leaf = *c_.slots_[SlotOf(i, k)].shape;
        if (!IsChosenLayout(leaf)) {
          fixed = false;
          continue;
        }
        // No header fixes its bytes: written without tiles, the order binds.
        const Layout layout = cost_.WithRequiredTiles(leaf, leaf.layout());
        Produce(SlotOf(i, k), layout, "written parameter layout");
        c_.exact_[SlotOf(i, k)] = layout;
      }
      if (fixed) return;
    }
  }
  // Per array leaf:
  // - infeed, recv and bitcast results are what the op delivers, written or
  //   default (as XLA's infeed shape);
  // - a layout with attributes the pass does not model (memory space,
  //   element size, ...) is kept;
  // - a custom call keeps a chosen result layout, and any result layout when
  //   its operands are constrained (XLA's layout-constrained call);
  // - otherwise a written layout is a preference, kept exactly. XLA prints
  //   the default layout for values nobody laid out, so in a module without
  //   an entry_computation_layout (not laid out yet) a written default
  //   (descending, untiled) says nothing: the value is left to the target as
  //   if nothing were written. A copy's layout is its purpose and always
  //   counts.
  // On a target that requires tiles, the values delivered from outside the
  // device program (infeed, custom-call results) and bitcasts keep their
  // layout as written and are copied into tiles where they are used;
  // anything else written without tiles fixes the order only (a recv's
  // data comes from a send of the same program).
  const HloOpcode op = i->opcode();
  const bool delivered = op == HloOpcode::kInfeed || op == HloOpcode::kBitcast;
  const bool received = DeliversLayout(op) && !delivered;  // recv, recv-done
  const bool constrained = i->attributes().rare().operand_layout_constraints.has_value();
  for (int k = 0; k < leaves; ++k) {
    const Shape& leaf = *c_.slots_[SlotOf(i, k)].shape;
    if (delivered || (op == HloOpcode::kCustomCall && (constrained || IsChosenLayout(leaf)))) {
      Produce(SlotOf(i, k), leaf.layout(),
              op == HloOpcode::kInfeed    ? "infeed"
              : op == HloOpcode::kBitcast ? "bitcast pin"
                                          : "custom-call result");
    } else if (received || leaf.layout().HasAttributesBeyondTiles()) {
      Produce(SlotOf(i, k), cost_.WithRequiredTiles(leaf, leaf.layout()),
              received ? "channel" : "unmodelled layout attributes");
    } else if (i->layout_written() &&
               (module_.entry_computation_layout() || op == HloOpcode::kCopy ||
                IsChosenLayout(leaf))) {
      const int slot = SlotOf(i, k);
      c_.hints_.push_back({slot,
                           untiled_outputs_.contains(slot)
                               ? leaf.layout()
                               : cost_.WithRequiredTiles(leaf, leaf.layout()),
                           kHint, 0, "written layout"});
    }
  }
}

absl::Status ConstraintBuilder::Build() {
  CreateSlots();
  FindUntiledOutputs();
  // Callees first: when mandatory constraints conflict, the one inside a
  // loop body wins and the copy lands outside, where it runs once.
  for (HloComputation* c : module_.MakeComputationPostOrder()) {
    if (c == module_.entry() && c->root() != nullptr) AddEntryResult(c);
    for (HloInstruction* i : c->instruction_range()) {
      absl::Status s = Visit(i);
      if (!s.ok()) return s;
    }
  }
  AddChannels();
  return AddInputOutputAliases();
}

// Ops that share a channel_id talk to each other: a send's data and the
// matching recv's, all-reduces of one channel, take one layout.
void ConstraintBuilder::AddChannels() {
  absl::flat_hash_map<int64_t, int> first;  // channel -> a data slot
  for (HloInstruction* i : channel_ops_) {
    const auto& channel = i->attributes().rare().channel_id;
    if (!channel) continue;
    const HloOpcode op = i->opcode();
    int slot = -1;
    if ((op == HloOpcode::kSend || op == HloOpcode::kRecv) && i->shape().IsTuple() &&
        !i->shape().tuple_shapes().empty() &&
        LaidOutLeafCount(i->shape().tuple_shapes()[0]) == 1) {
      slot = SlotOf(i, 0);
    } else if (op == HloOpcode::kAllReduce && LaidOutLeafCount(i->shape()) >= 1) {
      slot = SlotOf(i, 0);
    }
    if (slot < 0) continue;
    auto [it, inserted] = first.try_emplace(*channel, slot);
    if (!inserted &&
        c_.slots_[it->second].shape->dimensions() == c_.slots_[slot].shape->dimensions()) {
      c_.aliases_.push_back({it->second, slot});
    }
  }
}

void ConstraintBuilder::FindUntiledOutputs() {
  HloComputation* entry = module_.entry();
  const auto& header = module_.entry_computation_layout();
  if (entry == nullptr || entry->root() == nullptr || !header) return;
  std::vector<HloInstruction*> params = entry->parameters();
  for (const InputOutputAlias& a : module_.input_output_aliases()) {
    if (a.parameter < 0 || a.parameter >= static_cast<int64_t>(params.size()) ||
        a.parameter >= static_cast<int64_t>(header->parameters.size()) ||
        params[a.parameter] == nullptr) {
      continue;
    }
    const int out = LeafAt(entry->root()->shape(), a.output_index);
    const Shape* in = ShapeAtIndex(header->parameters[a.parameter], a.parameter_index);
    if (out >= 0 && in != nullptr && IsLaidOut(*in) && in->has_layout() &&
        cost_.LacksRequiredTiles(*in, in->layout())) {
      untiled_outputs_[SlotOf(entry->root(), out)] = in->layout();
    }
  }
}

// input_output_alias: an output and the parameter buffer it reuses have one
// layout, whichever side the header fixes; fixed to two layouts, refused.
absl::Status ConstraintBuilder::AddInputOutputAliases() {
  HloComputation* entry = module_.entry();
  if (entry == nullptr || entry->root() == nullptr) return absl::OkStatus();
  std::vector<HloInstruction*> params = entry->parameters();
  const auto& header = module_.entry_computation_layout();
  for (const InputOutputAlias& a : module_.input_output_aliases()) {
    if (a.parameter < 0 || a.parameter >= static_cast<int64_t>(params.size()) ||
        params[a.parameter] == nullptr) {
      continue;
    }
    const int out = LeafAt(entry->root()->shape(), a.output_index);
    const int in = LeafAt(params[a.parameter]->shape(), a.parameter_index);
    if (out < 0 || in < 0) continue;
    if (header) {
      const Shape* fixed_out = ShapeAtIndex(header->result, a.output_index);
      const Shape* fixed_in = a.parameter < static_cast<int64_t>(header->parameters.size())
                                  ? ShapeAtIndex(header->parameters[a.parameter],
                                                 a.parameter_index)
                                  : nullptr;
      if (fixed_out != nullptr && fixed_in != nullptr && fixed_out->has_layout() &&
          fixed_in->has_layout() &&
          !SamePhysicalLayout(*fixed_out, fixed_out->layout(), fixed_in->layout())) {
        return absl::InvalidArgumentError(absl::StrCat(
            "input_output_alias makes output {", absl::StrJoin(a.output_index, ","),
            "} and parameter ", a.parameter, " {", absl::StrJoin(a.parameter_index, ","),
            "} one buffer, but the entry layout fixes them to ",
            fixed_out->layout().ToString(), " and ", fixed_in->layout().ToString()));
      }
    }
    auto untiled = untiled_outputs_.find(SlotOf(entry->root(), out));
    if (untiled != untiled_outputs_.end()) {
      // The value is computed in tiles; a copy at the root writes the buffer.
      c_.operand_layouts_.push_back({untiled->first, untiled->second, "input_output_alias",
                                     nullptr, entry, 0, out});
      continue;
    }
    c_.edges_.push_back({SlotOf(params[a.parameter], in), SlotOf(entry->root(), out),
                         Relation::kSame, "input_output_alias", nullptr, 0, out});
  }
  return absl::OkStatus();
}

absl::StatusOr<LayoutConstraints> LayoutConstraints::Build(HloModule& module,
                                                           const LayoutCostModel& cost) {
  LayoutConstraints constraints;
  ConstraintBuilder builder(module, cost, constraints);
  absl::Status s = builder.Build();
  if (!s.ok()) return s;
  return constraints;
}

}  // namespace xla_layout::layout_assignment
