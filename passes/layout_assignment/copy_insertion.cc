#include "passes/layout_assignment/copy_insertion.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hlo/name_uniquer.h"
#include "passes/layout_assignment/conv_class.h"
#include "xla_layout/layout_util.h"
#include "xla_layout/relayout.h"
#include "xla_layout/shape_text.h"

namespace xla_layout::layout_assignment {
namespace {

using Batch = std::vector<std::pair<HloInstruction*, std::unique_ptr<HloInstruction>>>;

class CopyInserter {
 public:
  CopyInserter(HloModule& module, const LayoutCostModel& cost,
               std::vector<LayoutAssignmentStats::Copy>& copies)
      : cost_(cost),
        copies_(copies),
        names_([&module](NameUniquer& taken) {
          for (HloComputation* c : module.computations()) {
            for (HloInstruction* i : c->instruction_range()) taken.Take(i->name());
          }
        }),
        module_(module) {}

  HloInstruction* MakeCopy(HloComputation* c, HloInstruction* value,
                           const Shape& target, HloInstruction* anchor,
                           const char* reason, Batch& batch);
  // The first copy the packing core cannot run, if any.
  const absl::Status& status() const { return status_; }

 private:
  const LayoutCostModel& cost_;
  std::vector<LayoutAssignmentStats::Copy>& copies_;
  absl::Status status_;
  // Names in use, gathered at the first copy (most runs of the pass make
  // none).
  NameUniquer names_;
  // Whether `c` runs per iteration of a loop: a while calls it, or a
  // computation that does. Found at the first copy, as the names are: two
  // walks of every instruction that a run making no copy does not need.
  bool InLoop(const HloComputation* c);
  HloModule& module_;
  std::optional<absl::flat_hash_set<const HloComputation*>> in_loop_;
};

bool CopyInserter::InLoop(const HloComputation* c) {
  if (!in_loop_) {
    in_loop_.emplace();
    // Callers before callees.
    std::vector<HloComputation*> order = module_.MakeComputationPostOrder();
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      bool loop = in_loop_->contains(*it);
      for (HloInstruction* i : (*it)->instruction_range()) {
        if (i->opcode() != HloOpcode::kWhile && !loop) continue;
        for (const auto& called : i->called_computations()) {
          in_loop_->insert(called.computation);
        }
      }
    }
  }
  return in_loop_->contains(c);
}

HloInstruction* CopyInserter::MakeCopy(HloComputation* c, HloInstruction* value,
                                       const Shape& target, HloInstruction* anchor,
                                       const char* reason, Batch& batch) {
  if (!value->shape().IsTuple()) {
    auto copy = std::make_unique<HloInstruction>(names_.Unique("copy"), HloOpcode::kCopy,
                                                 target);
    copy->set_layout_written(true);
    copy->AppendOperand(value);
    LayoutAssignmentStats::Copy record;
    record.name = copy->name();
    record.computation = c->name();
    record.operand = value->name();
    record.reason = reason;
    record.from = PrintLayout(value->shape().layout());
    record.to = PrintLayout(target.layout());
    record.bytes = SaturatingAdd(ByteSize(value->shape()), ByteSize(target));
    record.in_loop = InLoop(c);
    // Every copy must run on the packing core (the executor runs it there);
    // the class of the plan it would run prices it.
    absl::StatusOr<CopyClass> runs = RelayoutPlan::Classify(value->shape(), target);
    if (runs.ok()) {
      record.kernel_class = std::string(CopyClassName(*runs));
      record.seconds = cost_.CopySeconds(record.bytes, *runs);
    } else if (status_.ok()) {
      status_ = absl::InvalidArgumentError(absl::StrCat(
          "layout assignment needs a copy of ", record.operand, " from ", record.from, " to ",
          record.to, " (", reason, "), which the packing core cannot run: ",
          runs.status().message()));
    }
    copies_.push_back(std::move(record));
    HloInstruction* raw = copy.get();
    batch.push_back({anchor, std::move(copy)});
    return raw;
  }
  std::vector<HloInstruction*> elements;
  for (size_t k = 0; k < target.tuple_shapes().size(); ++k) {
    const Shape& have = value->shape().tuple_shapes()[k];
    auto gte = std::make_unique<HloInstruction>(
        names_.Unique(absl::StrCat(value->name(), ".", k)), HloOpcode::kGetTupleElement,
        have);
    gte->AppendOperand(value);
    gte->mutable_attributes().set_index(static_cast<int64_t>(k));
    gte->set_layout_written(true);
    gte->mutable_raw_attributes().push_back({"index", absl::StrCat(k)});
    HloInstruction* element = gte.get();
    batch.push_back({anchor, std::move(gte)});
    if (!(have == target.tuple_shapes()[k])) {
      element = MakeCopy(c, element, target.tuple_shapes()[k], anchor, reason, batch);
    }
    elements.push_back(element);
  }
  auto tuple = std::make_unique<HloInstruction>(
      names_.Unique(absl::StrCat(value->name(), ".copy")), HloOpcode::kTuple, target);
  tuple->set_layout_written(true);
  for (HloInstruction* e : elements) tuple->AppendOperand(e);
  HloInstruction* raw = tuple.get();
  batch.push_back({anchor, std::move(tuple)});
  return raw;
}

constexpr char kTilingRequired[] = "tiling required";

// Uses that view their operand's buffer rather than read it: a
// get-tuple-element (its tuple's element), a call or conditional (the
// callee's parameter), a bitcast (the bytes as written), a recv-done (its
// recv's buffer), and a copy, which changes the layout itself.
bool ViewsOperand(HloOpcode op) {
  return op == HloOpcode::kGetTupleElement || op == HloOpcode::kCall ||
         op == HloOpcode::kConditional || op == HloOpcode::kBitcast ||
         op == HloOpcode::kRecvDone || op == HloOpcode::kCopy;
}

// Ops that read their operand in any layout (they move or address the data
// themselves): a tiled copy of an untiled input made for another use
// serves them too. Not a reshape: its result took the layout that makes it
// a bitcast of its operand's order, which the copy keeps.
bool ReadsAnyLayout(HloOpcode op) {
  return op == HloOpcode::kTranspose || op == HloOpcode::kBroadcast || op == HloOpcode::kReduce ||
         op == HloOpcode::kConvolution || op == HloOpcode::kDot;
}

// On a target that requires tiles, every use outside fusion bodies that
// reads a value left untiled (an input the pass may not change) reads a
// tiled copy of it: `need(user, operand, leaf, layout)` for each leaf. One
// tiled copy per input where its readers allow: a use that reads any layout
// takes the copy `tiled_copy` has for the input's slot (one another use
// made), or else the least padded one, which it records there; a use tied
// to the input's order (a slice, ...) takes that order.
template <typename Need>
void AddTilingCopies(HloModule& module, const LayoutConstraints& constraints,
                     LayoutPropagation& propagation, const LayoutCostModel& cost,
                     absl::flat_hash_map<int, Layout>& tiled_copy, Need need) {
  const absl::flat_hash_set<const HloComputation*>& fused = constraints.fused_computations();
  // The uses an edge with a reason binds, and the uses of the same user
  // whose layout such an edge copies (the first input of a variadic reduce,
  // which the others must match): built on the first question, as most
  // modules ask none, and a set over every edge of a million instructions
  // missed the cache on each insert.
  std::optional<absl::flat_hash_set<std::pair<const HloInstruction*, int>>> bound;
  auto is_bound = [&](const HloInstruction* user, int k) {
    if (!bound) {
      bound.emplace();
      for (const OperandEdge& e : constraints.edges()) {
        if (e.reason == nullptr || e.user == nullptr) continue;
        bound->insert({e.user, e.operand_index});
        for (int j = 0; j < e.user->operand_count(); ++j) {
          const HloInstruction* operand = e.user->operand(j);
          if (constraints.Covers(operand) && LaidOutLeafCount(operand->shape()) == 1 &&
              constraints.SlotOf(operand, 0) == e.result) {
            bound->insert({e.user, j});
          }
        }
      }
    }
    return bound->contains({user, k});
  };
  for (HloComputation* c : module.computations()) {
    if (fused.contains(c)) continue;
    for (HloInstruction* user : c->instruction_range()) {
      if (ViewsOperand(user->opcode()) || !constraints.Covers(user)) continue;
      for (int k = 0; k < user->operand_count(); ++k) {
        const HloInstruction* value = user->operand(k);
        if (!constraints.Covers(value)) continue;
        const int leaves = LaidOutLeafCount(value->shape());
        for (int leaf = 0; leaf < leaves; ++leaf) {
          const int slot = constraints.SlotOf(value, leaf);
          const Shape& shape = *constraints.slots()[slot].shape;
          const Layout& have = propagation.LayoutOf(slot);
          if (!cost.LacksRequiredTiles(shape, have)) continue;
          if (ReadsAnyLayout(user->opcode()) && !is_bound(user, k)) {
            need(user, k, leaf,
                 tiled_copy.try_emplace(slot, cost.TiledCopyLayout(shape, have)).first->second);
          } else {
            need(user, k, leaf, cost.WithRequiredTiles(shape, have));
          }
        }
      }
    }
  }
}

// The copies made for one use, from `first` on, matched to the leaves that
// needed them: a tuple's copies come leaf by leaf, each to its needed layout.
void RecordNeeds(const std::vector<std::pair<int, CopyNeed>>& leaves,
                 const std::vector<LayoutAssignmentStats::Copy>& copies, size_t first,
                 std::vector<CopyNeed>& needs) {
  std::vector<bool> used(leaves.size(), false);
  for (size_t c = first; c < copies.size(); ++c) {
    for (size_t k = 0; k < leaves.size(); ++k) {
      if (used[k] || PrintLayout(leaves[k].second.layout) != copies[c].to) continue;
      used[k] = true;
      needs.push_back(leaves[k].second);
      needs.back().copy = c;
      needs.back().leaf = leaves[k].first;
      break;
    }
  }
}

// One entry per use (an operand of an instruction, or a root) with the
// leaves whose layouts it needs changed, each with why.
struct Use {
  HloInstruction* user;
  HloComputation* computation;
  int operand_index;
  const char* reason;
  std::vector<std::pair<int, CopyNeed>> leaves;
};

struct Uses {
  std::vector<Use> uses;
  absl::flat_hash_map<std::pair<const void*, int>, size_t> index;
  // The first tiled copy of each untiled input, by slot.
  absl::flat_hash_map<int, Layout> tiled_copy;

  void Record(int leaf, const char* reason, CopyNeed need) {
    if (need.user != nullptr && reason == kTilingRequired) {
      tiled_copy.try_emplace(need.value_slot, need.layout);
    }
    std::pair<const void*, int> key =
        need.user != nullptr ? std::pair<const void*, int>(need.user, need.operand_index)
                             : std::pair<const void*, int>(need.computation, -1);
    auto [it, inserted] = index.try_emplace(key, uses.size());
    if (inserted) {
      uses.push_back({need.user, need.computation, need.operand_index, reason, {}});
    }
    uses[it->second].leaves.push_back({leaf, std::move(need)});
  }
};

// Every use whose value propagation left in another layout than it needs:
// the copy-checked edges, the needs of LayoutConstraints, and (where the
// target requires tiles) the reads of untiled inputs.
void CollectUses(HloModule& module, const LayoutConstraints& constraints,
                 LayoutPropagation& propagation, const LayoutCostModel& cost, Uses& table) {
  const std::vector<Slot>& slots = constraints.slots();
  const std::vector<OperandEdge>& edges = constraints.edges();
  for (size_t k = 0; k < edges.size(); ++k) {
    const OperandEdge& e = edges[k];
    if (e.reason == nullptr) continue;
    const Layout& have = propagation.LayoutOf(e.operand);
    const bool tiling = cost.LacksRequiredTiles(*slots[e.operand].shape, have);
    const Layout& want = propagation.LayoutOf(e.result);
    const Shape& shape = *slots[e.operand].shape;
    std::optional<Layout> need;
    if (e.relation == Relation::kOrder) {
      const Shape& result = *slots[e.result].shape;
      if (CommonOrder(shape, result, have) == CommonOrder(shape, result, want)) continue;
      need = cost.AdaptTiles(want, result, shape);
    } else {
      need = RelatedLayout(e, constraints, cost, /*toward_operand=*/true, want);
      // A use that takes an untiled input's layout reads it tiled.
      if (need) need = cost.WithRequiredTiles(shape, *need);
      if (!need || SamePhysicalLayout(shape, have, *need)) continue;
    }
    table.Record(e.leaf, tiling ? kTilingRequired : e.reason,
                 {0, e.operand, e.user, constraints.ComputationOf(e), e.operand_index, e.leaf, *need,
                  static_cast<int>(k), -1, tiling});
  }
  const std::vector<OperandLayout>& wanted = constraints.operand_layouts();
  for (size_t k = 0; k < wanted.size(); ++k) {
    const OperandLayout& n = wanted[k];
    const Shape& shape = *slots[n.operand].shape;
    const Layout& have = propagation.LayoutOf(n.operand);
    if (!SamePhysicalLayout(shape, have, n.layout)) {
      const bool tiling = cost.LacksRequiredTiles(shape, have);
      table.Record(n.leaf, tiling ? kTilingRequired : n.reason,
                   {0, n.operand, n.user, n.computation, n.operand_index, n.leaf, n.layout, -1,
                    static_cast<int>(k), tiling});
    }
  }
  AddTilingCopies(module, constraints, propagation, cost, table.tiled_copy,
                  [&](HloInstruction* user, int operand_index, int leaf, const Layout& layout) {
                    auto it = table.index.find(std::pair<const void*, int>(user, operand_index));
                    if (it != table.index.end()) {
                      for (const auto& [l, _] : table.uses[it->second].leaves) {
                        if (l == leaf) return;
                      }
                    }
                    table.Record(leaf, kTilingRequired,
                                 {0, constraints.SlotOf(user->operand(operand_index), leaf), user,
                                  user->parent(), operand_index, leaf, layout, -1, -1, true});
                  });
}

}  // namespace

namespace {

// The table's factor for convolution operand `p` read in `have`.
double ReadFactor(const ConvolutionPreference& p, const Layout& have,
                  const LayoutCostModel& cost) {
  const ConvClass c = ClassifyConvolution(*p.conv);
  return cost.target().ConvReadFactorFor(c.kind, c.pass,
                                         ClassifyRead(*p.conv, p.operand_index, have));
}

// The read of convolution operand `p` in `have`, against a copy to the
// layout the convolution prefers, priced by the cost model.
LayoutAssignmentStats::ConvolutionRead DescribeRead(const ConvolutionPreference& p,
                                                    const Shape& shape, const Layout& have,
                                                    const LayoutCostModel& cost) {
  Shape as_is = shape, preferred = shape;
  as_is.set_layout(have);
  preferred.set_layout(p.layout);
  const ConvClass conv_class = ClassifyConvolution(*p.conv);
  const ConvRead read = ClassifyRead(*p.conv, p.operand_index, have);
  const double factor = cost.target().ConvReadFactorFor(conv_class.kind, conv_class.pass, read);
  LayoutAssignmentStats::ConvolutionRead r;
  r.conv = p.conv->name();
  r.conv_class = ConvReadName(conv_class, read);
  r.factor = factor;
  r.operand = p.operand_index;
  r.have = PrintLayout(have);
  r.want = PrintLayout(p.layout);
  r.read_cost = static_cast<int64_t>(
      std::min(9.2e18, factor * static_cast<double>(ByteSize(as_is))));
  r.copy_bytes = SaturatingAdd(ByteSize(as_is), ByteSize(preferred));
  // The copy's price comes from the plan the packing core would run.
  absl::StatusOr<CopyClass> copy_class = RelayoutPlan::Classify(as_is, preferred);
  r.copy_class = copy_class.ok() ? std::string(CopyClassName(*copy_class)) : "none";
  r.read_seconds = cost.ReadCost(ByteSize(as_is), factor);
  r.copy_seconds = copy_class.ok() ? cost.CopyCost(r.copy_bytes, *copy_class) : 0;
  r.timed = copy_class.ok() && cost.CopyRate(*copy_class) &&
            cost.CopyRate(CopyClass::kContiguous);
  return r;
}

// What copying `shape` from `from` to `to` costs (the cost model's unit);
// none when the packing core cannot run it.
std::optional<double> CopyPrice(const LayoutCostModel& cost, const Shape& shape,
                                const Layout& from, const Layout& to) {
  Shape a = shape, b = shape;
  a.set_layout(from);
  b.set_layout(to);
  absl::StatusOr<CopyClass> copy_class = RelayoutPlan::Classify(a, b);
  if (!copy_class.ok()) return std::nullopt;
  return cost.CopyCost(SaturatingAdd(ByteSize(a), ByteSize(b)), *copy_class);
}

// An untiled input on a target that requires tiles is copied anyway, once:
// into the layout that costs least, the copy plus each convolution's read
// of it where it is not the one that convolution prefers. The candidates
// are the convolutions' preferred layouts and the least padded tiled one
// (an NCHW image with 3 channels would pad 42x channels-last under
// T(8,128)). Every convolution reading the value reads that copy.
void DecidePinnedOperand(absl::Span<const ConvolutionPreference* const> prefs,
                         LayoutConstraints& constraints, LayoutPropagation& propagation,
                         const LayoutCostModel& cost,
                         std::vector<LayoutAssignmentStats::ConvolutionRead>& reads) {
  const int slot = prefs[0]->operand;
  const Shape& shape = *constraints.slots()[slot].shape;
  const Layout have = propagation.LayoutOf(slot);
  std::vector<Layout> candidates;
  for (const ConvolutionPreference* p : prefs) candidates.push_back(p->layout);
  candidates.push_back(cost.TiledCopyLayout(shape, have));
  std::optional<Layout> best;
  double best_cost = 0;
  for (const Layout& l : candidates) {
    std::optional<double> total = CopyPrice(cost, shape, have, l);
    if (!total) continue;
    Shape copied = shape;
    copied.set_layout(l);
    for (const ConvolutionPreference* p : prefs) {
      if (SamePhysicalLayout(shape, l, p->layout)) continue;
      // Factor 0: the convolution reads its own layout, whatever it costs.
      const double factor = ReadFactor(*p, l, cost);
      *total += factor == 0 ? 1e300 : cost.ReadCost(ByteSize(copied), factor);
    }
    if (!best || *total < best_cost) {
      best = l;
      best_cost = *total;
    }
  }
  for (const ConvolutionPreference* p : prefs) {
    const Layout read = !best || ReadFactor(*p, *best, cost) == 0 ? p->layout : *best;
    const bool copied = SamePhysicalLayout(shape, read, p->layout);
    LayoutAssignmentStats::ConvolutionRead r =
        DescribeRead(*p, shape, copied ? have : read, cost);
    r.copied = copied && r.copy_class != "none";
    constraints.AddOperandLayout({slot, read, "convolution operand layout", p->conv,
                                  p->conv->parent(), p->operand_index, 0});
    reads.push_back(std::move(r));
  }
}

}  // namespace

void DecideConvolutionOperands(LayoutConstraints& constraints, LayoutPropagation& propagation,
                               const LayoutCostModel& cost,
                               std::vector<LayoutAssignmentStats::ConvolutionRead>& reads) {
  // Untiled inputs that must be copied into tiles anyway, by slot, in order.
  absl::flat_hash_map<int, std::vector<const ConvolutionPreference*>> pinned;
  std::vector<int> pinned_order;
  for (const ConvolutionPreference& p : constraints.convolution_preferences()) {
    const Shape& shape = *constraints.slots()[p.operand].shape;
    const Layout& have = propagation.LayoutOf(p.operand);
    if (SamePhysicalLayout(shape, have, p.layout)) continue;
    if (cost.LacksRequiredTiles(shape, have)) {
      std::vector<const ConvolutionPreference*>& group = pinned[p.operand];
      if (group.empty()) pinned_order.push_back(p.operand);
      group.push_back(&p);
      continue;
    }
    LayoutAssignmentStats::ConvolutionRead r = DescribeRead(p, shape, have, cost);
    r.copied = r.copy_class != "none" && (r.factor == 0 || r.read_seconds > r.copy_seconds);
    if (r.copied) {
      constraints.AddOperandLayout({p.operand, p.layout, "convolution operand layout", p.conv,
                                    p.conv->parent(), p.operand_index, 0});
    }
    reads.push_back(std::move(r));
  }
  for (int slot : pinned_order) {
    DecidePinnedOperand(pinned[slot], constraints, propagation, cost, reads);
  }
}

absl::Status InsertCopies(HloModule& module, const LayoutConstraints& constraints,
                          LayoutPropagation& propagation, const LayoutCostModel& cost,
                          std::vector<LayoutAssignmentStats::Copy>& copies,
                          std::vector<CopyNeed>* needs) {
  CopyInserter inserter(module, cost, copies);
  Uses table;
  CollectUses(module, constraints, propagation, cost, table);
  std::vector<Use>& uses = table.uses;
  absl::flat_hash_map<const HloComputation*, Batch> batches;
  // Users that need the same copy of a value share it.
  absl::flat_hash_map<std::pair<const HloInstruction*, std::string>, HloInstruction*>
      made;
  for (Use& use : uses) {
    HloInstruction* value =
        use.user != nullptr ? use.user->operand(use.operand_index) : use.computation->root();
    Shape target = value->shape();
    LeafShapes ls = LaidOutLeaves(target);
    for (const auto& [leaf, need] : use.leaves) {
      if (leaf < static_cast<int>(ls.size())) ls[leaf]->set_layout(need.layout);
    }
    std::pair<const HloInstruction*, std::string> key(value, PrintShape(target));
    HloInstruction*& copy = made[key];
    if (copy == nullptr) {
      const size_t first = copies.size();
      copy = inserter.MakeCopy(value->parent(), value, target, use.user, use.reason,
                               batches[value->parent()]);
      if (needs != nullptr) RecordNeeds(use.leaves, copies, first, *needs);
    }
    if (use.user != nullptr) {
      use.user->ReplaceOperandWith(use.operand_index, copy);
    } else {
      use.computation->set_root(copy);
    }
  }
  for (HloComputation* c : module.computations()) {
    auto it = batches.find(c);
    if (it != batches.end()) c->InsertInstructions(std::move(it->second));
  }
  return inserter.status();
}

}  // namespace xla_layout::layout_assignment
