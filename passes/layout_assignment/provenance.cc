#include "passes/layout_assignment/provenance.h"

#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "passes/layout_assignment/constraints.h"
#include "passes/layout_assignment/copy_insertion.h"
#include "passes/layout_assignment/cost_model.h"
#include "passes/layout_assignment/propagation.h"
#include "xla_layout/layout_util.h"
#include "xla_layout/shape_text.h"

namespace xla_layout::layout_assignment {
namespace {

using Link = LayoutExplanation::Link;

// The pass's reasons (constraint reasons and BufferLayout rules) as the
// rules explain names, each with what it says.
struct RuleText {
  absl::string_view reason, rule, detail;
};
constexpr RuleText kRules[] = {
    {"header pin", "header pin", "pinned by entry_computation_layout"},
    {"entry result layout", "header pin", "the entry result, pinned by entry_computation_layout"},
    {"written parameter layout", "written layout",
     "an entry parameter written so, in a module without entry_computation_layout"},
    {"infeed", "infeed", "delivered by the infeed as written"},
    {"bitcast pin", "bitcast pin", "a bitcast reads these bytes as written"},
    {"bitcast operand", "bitcast pin", "a bitcast reads its operand's bytes as written"},
    {"custom-call result", "custom-call constraint", "the custom call's result as written"},
    {"custom-call operand constraint", "custom-call constraint",
     "operand_layout_constraints of the call"},
    {"channel", "channel", "received as written"},
    {"unmodelled layout attributes", "written layout",
     "attributes the pass keeps (memory space, element size, ...)"},
    {"constrain_layout", "constrain_layout", "constrain_layout=true keeps the written layout"},
    {"packed dot result", "cost decision", "the dot writes its result in the target's tiles"},
    {"packed constant", "cost decision", "a constant the dot reads, packed at compile time"},
    {"channels-last convolution", "channels-last", "the convolution writes channels-last"},
    {"dot operand packing", "cost decision", "packed into the dot's panels"},
    {"written layout", "written layout", "written in the input"},
    {"convolution preference", "cost decision", "the layout a convolution prefers for it"},
    {"convolution operand layout", "cost decision",
     "copying costs less than reading it in its layout"},
    {"tiling required", "required tiling", "the target keeps this array in tiles"},
    {"input_output_alias", "alias", "input_output_alias: one buffer with an entry parameter"},
    {"custom-call output aliasing", "alias",
     "output_to_operand_aliasing: one buffer with the call's output"},
    {"elementwise operand", "elementwise agreement",
     "an elementwise op reads and writes one layout"},
    {"batch-norm activation", "elementwise agreement", "batch norm keeps the activation's layout"},
    {"tuple element", "tuple element", "a tuple holds its elements as they are"},
    {"while operand", "loop state", "a while loop's state keeps one layout"},
    {"while body result", "loop state", "the body returns the loop state in its layout"},
    {"conditional branch result", "branch result", "every branch returns one layout"},
    {"fusion operand", "fusion parameter", "a fused parameter is its operand's buffer"},
    {"in-place update buffer", "in-place buffer",
     "dynamic-update-slice writes into its operand's buffer"},
    {"operand dimension order", "same order",
     "the op addresses both sides in one dimension order"},
    {"send data", "channel", "a send's data keeps its layout"},
    {"layout-preserving op", "layout-preserving op",
     "the op forwards its operand's layout"},
    {"variadic operands", "variadic agreement",
     "the inputs of a variadic op share one layout"},
};

RuleText RuleFor(absl::string_view reason) {
  for (const RuleText& r : kRules) {
    if (r.reason == reason) return r;
  }
  return {reason, reason, ""};
}

// Edges without a reason carry preferences only (no copy): named by their
// relation.
RuleText RuleFor(const OperandEdge& e) {
  if (e.reason != nullptr) return RuleFor(e.reason);
  switch (e.relation) {
    case Relation::kPermute:
      return {"", "transpose as bitcast", "a transpose takes its operand's layout permuted"};
    case Relation::kReshape:
      return {"", "reshape as bitcast", "a reshape takes the bitcast-compatible layout"};
    case Relation::kBroadcast:
      return {"", "broadcast order", "a broadcast's operand follows its result's order"};
    case Relation::kReduce:
      return {"", "reduce order", "a reduce keeps its operand's order"};
    default:
      return {"", "fusion body preference", "inside a fusion, values follow their neighbours"};
  }
}

class Explainer {
 public:
  Explainer(const HloModule& module, const LayoutConstraints& constraints,
            LayoutPropagation& propagation, const LayoutCostModel& cost, bool had_header)
      : module_(module), c_(constraints), p_(propagation), cost_(cost),
        had_header_(had_header) {}

  std::vector<Link> Chain(const CopyNeed& need, const LayoutAssignmentStats::Copy& copy);
  std::vector<Link> Values();

 private:
  const HloInstruction& InstructionOf(int slot) const { return *c_.slots()[slot].instruction; }
  int LeafOf(int slot) const { return slot - c_.SlotOf(&InstructionOf(slot), 0); }
  // A link stating that `slot` has its propagated layout by `rule`.
  Link At(int slot, const RuleText& rule, std::string detail = "");
  Link Need(const CopyNeed& need, const LayoutAssignmentStats::Copy& copy);
  // Links from `slot` back to the root cause of its layout.
  void Walk(int slot, std::vector<Link>& out);
  // The link of a layout stated by a buffer layout or hint at `slot`.
  Link Root(int slot, absl::string_view reason);
  std::string PackingDetail(const HloInstruction* dot, int operand) const;

  const HloModule& module_;
  const LayoutConstraints& c_;
  LayoutPropagation& p_;
  const LayoutCostModel& cost_;
  const bool had_header_;
};

Link Explainer::At(int slot, const RuleText& rule, std::string detail) {
  Link link;
  link.instruction = InstructionOf(slot).name();
  link.leaf = LeafOf(slot);
  link.layout = PrintLayout(p_.LayoutOf(slot));
  link.rule = std::string(rule.rule);
  link.detail = detail.empty() ? std::string(rule.detail) : std::move(detail);
  return link;
}

std::string Explainer::PackingDetail(const HloInstruction* dot, int operand) const {
  const char* side = operand == 0 ? "lhs" : "rhs";
  for (const LayoutAssignmentStats::Packing& p : c_.packing()) {
    if (p.dot == dot->name() && p.operand == side) {
      return absl::StrCat("dot ", side, " packed into panels: ", p.why);
    }
  }
  return "packed into the dot's panels";
}

Link Explainer::Root(int slot, absl::string_view reason) {
  const RuleText rule = RuleFor(reason);
  const HloInstruction& i = InstructionOf(slot);
  const bool entry_param =
      i.opcode() == HloOpcode::kParameter && i.parent() == module_.entry();
  if (reason == "header pin" && entry_param) {
    Link link = At(slot, rule,
                   absl::StrCat("parameter ", i.parameter_number(),
                                ", pinned by entry_computation_layout"));
    link.parameter = static_cast<int>(i.parameter_number());
    return link;
  }
  if (reason == "entry result layout") {
    Link link = At(slot, had_header_ ? rule : RuleFor("written layout"),
                   had_header_ ? "" : "the entry result as written");
    if (had_header_) link.result_leaf = LeafOf(slot);
    return link;
  }
  return At(slot, rule);
}

void Explainer::Walk(int slot, std::vector<Link>& out) {
  constexpr int kMaxLinks = 64;
  absl::flat_hash_set<int> seen;
  auto alias = [&](int from, int to) {
    if (&InstructionOf(from) == &InstructionOf(to)) return;
    out.push_back(At(from, {"", "alias", ""},
                     absl::StrCat("one buffer with ", InstructionOf(to).name())));
  };
  for (int steps = 0; steps < kMaxLinks && seen.insert(p_.Find(slot)).second; ++steps) {
    const LayoutCause cause = p_.CauseOf(slot);
    switch (cause.kind) {
      case LayoutCause::kBuffer:
      case LayoutCause::kHint: {
        const BufferLayout& b = cause.kind == LayoutCause::kBuffer
                                    ? c_.buffer_layouts()[cause.index]
                                    : c_.hints()[cause.index];
        alias(slot, b.slot);
        out.push_back(Root(b.slot, b.rule));
        return;
      }
      case LayoutCause::kEdge: {
        const OperandEdge& e = c_.edges()[cause.index];
        const bool result_side = p_.Find(e.result) == p_.Find(slot);
        const int here = result_side ? e.result : e.operand;
        const int there = result_side ? e.operand : e.result;
        alias(slot, here);
        std::string detail = absl::StrCat(RuleFor(e).detail, "; as ", InstructionOf(there).name());
        if (e.user != nullptr) {
          absl::StrAppend(&detail, " (", e.user->name(), " operand ", e.operand_index, ")");
        }
        // An untiled input's neighbour reads it tiled where the target
        // requires tiles (propagation adds them).
        if (e.relation == Relation::kSame && !(p_.LayoutOf(here) == p_.LayoutOf(there))) {
          absl::StrAppend(&detail, ", with the target's required tiles");
        }
        out.push_back(At(here, RuleFor(e), std::move(detail)));
        slot = there;
        break;
      }
      case LayoutCause::kDefault: {
        const Shape& shape = *c_.slots()[slot].shape;
        const bool descending = SamePhysicalLayout(
            shape, Layout(p_.LayoutOf(slot).minor_to_major()), DefaultLayoutForRank(shape.rank()));
        out.push_back(At(slot,
                         descending ? RuleText{"", "target default", "no constraint reaches it"}
                                    : RuleText{"", "cost decision",
                                               "free value: the order search's best score"}));
        return;
      }
      case LayoutCause::kNone:
        out.push_back(At(slot, {"", "unconstrained", "no rule set its layout"}));
        return;
    }
  }
}

Link Explainer::Need(const CopyNeed& need, const LayoutAssignmentStats::Copy& copy) {
  Link link;
  if (need.user != nullptr) {
    link.instruction = need.user->name();
    link.operand = need.operand_index;
    link.leaf = need.leaf;
  } else {
    link.instruction = copy.name;  // the computation's root now
  }
  link.layout = PrintLayout(need.layout);
  absl::string_view reason = need.tiling ? "tiling required"
                             : need.edge >= 0
                                 ? absl::string_view(c_.edges()[need.edge].reason)
                                 : absl::string_view(c_.operand_layouts()[need.operand_layout].reason);
  const RuleText rule = RuleFor(reason);
  link.rule = std::string(rule.rule);
  link.detail = std::string(rule.detail);
  if (!need.tiling && reason == "dot operand packing") {
    link.detail = PackingDetail(need.user, need.operand_index);
  } else if (!need.tiling && reason == "entry result layout") {
    if (had_header_) {
      link.result_leaf = need.leaf;
    } else {
      link.rule = "written layout";
      link.detail = "the entry result as written";
    }
  }
  if (need.user == nullptr) {
    link.detail = absl::StrCat("the result of ", need.computation->name(), ": ", link.detail);
  }
  return link;
}

std::vector<Link> Explainer::Chain(const CopyNeed& need, const LayoutAssignmentStats::Copy& copy) {
  std::vector<Link> chain = {Need(need, copy)};
  // Where the wanted layout came from, when a neighbour's layout set it.
  if (!need.tiling && need.edge >= 0) Walk(c_.edges()[need.edge].result, chain);
  Walk(need.value_slot, chain);
  return chain;
}

std::vector<Link> Explainer::Values() {
  std::vector<Link> values;
  const std::vector<Slot>& slots = c_.slots();
  for (size_t s = 0; s < slots.size(); ++s) {
    const Shape& shape = *slots[s].shape;
    const Layout& layout = p_.LayoutOf(static_cast<int>(s));
    const Layout fallback =
        cost_.TargetTiled(shape, DefaultLayoutForRank(shape.rank()).minor_to_major());
    if (SamePhysicalLayout(shape, layout, fallback)) continue;
    std::vector<Link> chain;
    Walk(static_cast<int>(s), chain);
    if (chain.empty()) continue;
    // The value itself, and the rule that fixed its layout at the end.
    Link link = At(static_cast<int>(s), {"", chain.back().rule, ""});
    link.detail = chain.size() == 1 ? chain.back().detail
                                    : absl::StrCat("from ", chain.back().instruction, ": ",
                                                   chain.back().detail);
    // The pin is the value's own only when nothing carried it.
    if (chain.size() == 1) {
      link.parameter = chain.back().parameter;
      link.result_leaf = chain.back().result_leaf;
    }
    values.push_back(std::move(link));
  }
  return values;
}

}  // namespace

LayoutExplanation Explain(const HloModule& module, const LayoutConstraints& constraints,
                          LayoutPropagation& propagation, const LayoutCostModel& cost,
                          const std::vector<LayoutAssignmentStats::Copy>& copies,
                          const std::vector<CopyNeed>& needs, bool had_header, bool values) {
  Explainer explainer(module, constraints, propagation, cost, had_header);
  LayoutExplanation out;
  for (const CopyNeed& need : needs) {
    if (need.copy < copies.size()) {
      out.copies.push_back({need.copy, explainer.Chain(need, copies[need.copy])});
    }
  }
  if (values) out.values = explainer.Values();
  return out;
}

}  // namespace xla_layout::layout_assignment
