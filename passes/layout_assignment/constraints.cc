// The per-opcode rules that build LayoutConstraints. Each rule adds edges,
// operand layouts or buffer layouts for one instruction; a reader finds
// every rule for an opcode in one place (ConstraintBuilder::Visit).
#include "passes/layout_assignment/constraints.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/hlo_attributes.h"
#include "xla_layout/layout_util.h"
#include "xla_layout/primitive_type.h"
#include "xla_layout/shape_text.h"

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

int LeafOffset(const Shape& tuple, int64_t element) {
  int n = 0;
  for (int64_t k = 0; k < element; ++k) n += LaidOutLeafCount(tuple.tuple_shapes()[k]);
  return n;
}

// The minor-to-major order that `labels` (one of dim_labels' three parts,
// e.g. "b01f" or "01io") asks for channels-last: `minor` first, then
// `second` (if any), then the spatial dims from the last, then `major` (if
// any). Empty when the labels do not describe a shape of `rank` dims.
std::vector<int64_t> ChannelsLastOrder(absl::string_view labels, int rank,
                                       char minor, char second, char major) {
  if (static_cast<int>(labels.size()) != rank) return {};
  std::vector<int64_t> spatial;  // dims by spatial index
  int64_t minor_dim = -1, second_dim = -1, major_dim = -1;
  for (int d = 0; d < rank; ++d) {
    char c = labels[d];
    if (c >= '0' && c <= '9') {
      size_t index = c - '0';
      if (spatial.size() <= index) spatial.resize(index + 1, -1);
      if (spatial[index] >= 0) return {};
      spatial[index] = d;
    } else if (c == minor && minor_dim < 0) {
      minor_dim = d;
    } else if (c == second && second_dim < 0) {
      second_dim = d;
    } else if (c == major && major_dim < 0) {
      major_dim = d;
    } else {
      return {};
    }
  }
  std::vector<int64_t> m2m;
  if (minor_dim >= 0) m2m.push_back(minor_dim);
  if (second_dim >= 0) m2m.push_back(second_dim);
  for (auto it = spatial.rbegin(); it != spatial.rend(); ++it) {
    if (*it < 0) return {};
    m2m.push_back(*it);
  }
  if (major_dim >= 0) m2m.push_back(major_dim);
  if (static_cast<int>(m2m.size()) != rank) return {};
  return m2m;
}

// The leaf number of the single laid-out array at `index` of `shape`, or -1
// when there is none there.
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

}  // namespace

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

class ConstraintBuilder {
 public:
  ConstraintBuilder(HloModule& module, const LayoutCostModel& cost,
                    LayoutConstraints& out)
      : module_(module), cost_(cost), c_(out) {}

  absl::Status Build();

 private:
  int SlotOf(const HloInstruction* i, int leaf) const { return c_.SlotOf(i, leaf); }
  void Alias(const HloInstruction* x, int x_offset, const HloInstruction* y,
             int y_offset, int count) {
    for (int k = 0; k < count; ++k) {
      c_.aliases_.push_back({SlotOf(x, x_offset + k), SlotOf(y, y_offset + k)});
    }
  }
  void AddEdges(HloInstruction* user, int operand_index, int result_offset,
                Relation relation, const char* reason) {
    const HloInstruction* operand = user->operand(operand_index);
    int n = LaidOutLeafCount(operand->shape());
    for (int k = 0; k < n; ++k) {
      c_.edges_.push_back({SlotOf(user, result_offset + k), SlotOf(operand, k),
                           relation, reason, user, user->parent(), operand_index, k});
    }
  }
  void Need(int slot, const Layout& layout, const char* reason,
            HloInstruction* user, HloComputation* computation, int operand_index,
            int leaf) {
    c_.operand_layouts_.push_back(
        {slot, layout, reason, user, computation, operand_index, leaf});
    c_.buffers_.push_back({slot, layout, kMandatory, batch_});
  }
  void Produce(int slot, const Layout& layout) {
    c_.buffers_.push_back({slot, layout, kProducer, batch_});
  }

  void CreateSlots();
  void AddChannels();
  absl::Status AddInputOutputAliases();
  void AddEntryResult(HloComputation* entry);
  void AddWrittenLayouts(HloInstruction* i);
  absl::Status Visit(HloInstruction* i);
  void AddDot(HloInstruction* dot);
  void AddBitcast(HloInstruction* bitcast);
  void AddLayoutPreserving(HloInstruction* i);
  void TieVariadic(HloInstruction* i, int inputs, bool inputs_too = true);
  void AddConvolution(HloInstruction* conv);
  absl::Status AddCustomCall(HloInstruction* call);

  HloModule& module_;
  const LayoutCostModel& cost_;
  LayoutConstraints& c_;
  int batch_ = 0;
};

void ConstraintBuilder::CreateSlots() {
  // Sized once: a slot or more per instruction, an edge or more per operand.
  size_t instructions = 0, operands = 0;
  for (HloComputation* c : module_.computations()) {
    instructions += c->instruction_count();
    for (HloInstruction* i : c->instruction_range()) operands += i->operand_count();
  }
  c_.slots_.reserve(instructions);
  c_.edges_.reserve(operands);
  for (HloComputation* c : module_.computations()) {
    std::vector<int>& first = c_.first_slot_[c];
    first.assign(c->local_id_bound(), -1);
    for (HloInstruction* i : c->instruction_range()) {
      first[i->local_id()] = static_cast<int>(c_.slots_.size());
      for (Shape* s : LaidOutLeaves(*i->mutable_shape())) c_.slots_.push_back({i, s});
    }
  }
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
    if (!ls[k]->has_layout()) continue;
    Need(SlotOf(entry->root(), k), ls[k]->layout(), "entry result layout",
         nullptr, entry, 0, k);
    c_.exact_[SlotOf(entry->root(), k)] = ls[k]->layout();
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
          Produce(SlotOf(i, k), ls[k]->layout());
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
        Produce(SlotOf(i, k), leaf.layout());
        c_.exact_[SlotOf(i, k)] = leaf.layout();
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
  const HloOpcode op = i->opcode();
  const bool delivered = DeliversLayout(op) || op == HloOpcode::kBitcast;
  const bool constrained = i->attributes().rare().operand_layout_constraints.has_value();
  for (int k = 0; k < leaves; ++k) {
    const Shape& leaf = *c_.slots_[SlotOf(i, k)].shape;
    if (delivered || HasAttributesBeyondTiles(leaf.layout()) ||
        (op == HloOpcode::kCustomCall && (constrained || IsChosenLayout(leaf)))) {
      Produce(SlotOf(i, k), leaf.layout());
    } else if (i->layout_written() &&
               (module_.entry_computation_layout() || op == HloOpcode::kCopy ||
                IsChosenLayout(leaf))) {
      c_.hints_.push_back({SlotOf(i, k), leaf.layout(), kHint});
    }
  }
}

absl::Status ConstraintBuilder::Visit(HloInstruction* i) {
  ++batch_;
  AddWrittenLayouts(i);
  const int leaves = LaidOutLeafCount(i->shape());
  const HloOpcode op = i->opcode();
  if (op == HloOpcode::kCopy) return absl::OkStatus();  // it changes layout
  if (PreservesLayout(op)) {
    for (int k = 0; k < i->operand_count(); ++k) {
      const Shape& s = i->operand(k)->shape();
      if (!s.IsArray() || s.rank() != i->shape().rank() || leaves != 1) continue;
      // Lanes of different widths keep the order and take their own tiles.
      bool same_width = PrimitiveBitWidth(s.element_type()) ==
                        PrimitiveBitWidth(i->shape().element_type());
      AddEdges(i, k, 0, same_width ? Relation::kSame : Relation::kOrder,
               "elementwise operand");
    }
    return absl::OkStatus();
  }
  switch (op) {
    case HloOpcode::kGetTupleElement: {
      const auto& index = i->attributes().index;
      if (!index || i->operand_count() != 1) break;
      Alias(i, 0, i->operand(0), LeafOffset(i->operand(0)->shape(), *index), leaves);
      break;
    }
    case HloOpcode::kTuple: {
      int offset = 0;
      for (int k = 0; k < i->operand_count(); ++k) {
        AddEdges(i, k, offset, Relation::kSame, "tuple element");
        offset += LaidOutLeafCount(i->operand(k)->shape());
      }
      break;
    }
    case HloOpcode::kWhile: {
      HloComputation* body = i->called_computation("body");
      HloComputation* cond = i->called_computation("condition");
      for (HloComputation* callee : {body, cond}) {
        if (callee == nullptr) continue;
        std::vector<HloInstruction*> params = callee->parameters();
        if (!params.empty() && params[0] != nullptr) Alias(i, 0, params[0], 0, leaves);
      }
      if (i->operand_count() == 1) {
        AddEdges(i, 0, 0, Relation::kSame, "while operand");
      }
      if (body != nullptr && body->root() != nullptr) {
        for (int k = 0; k < leaves; ++k) {
          c_.edges_.push_back({SlotOf(i, k), SlotOf(body->root(), k), Relation::kSame,
                               "while body result", nullptr, body, 0, k});
        }
      }
      break;
    }
    case HloOpcode::kConditional: {
      const auto& called = i->called_computations();
      for (size_t b = 0; b < called.size(); ++b) {
        HloComputation* branch = called[b].computation;
        std::vector<HloInstruction*> params = branch->parameters();
        if (!params.empty() && params[0] != nullptr &&
            static_cast<int>(b) + 1 < i->operand_count()) {
          Alias(params[0], 0, i->operand(b + 1), 0, LaidOutLeafCount(params[0]->shape()));
        }
        if (branch->root() == nullptr) continue;
        for (int k = 0; k < leaves; ++k) {
          c_.edges_.push_back({SlotOf(i, k), SlotOf(branch->root(), k),
                               Relation::kSame, "conditional branch result",
                               nullptr, branch, 0, k});
        }
      }
      break;
    }
    case HloOpcode::kCall:
    case HloOpcode::kFusion: {
      // The callee's root is the result. A call's parameters are views of
      // its operands; a fusion's take its operands' layouts too, but when
      // a fused op needs another one the copy goes on the fusion's operand,
      // outside the body, as in XLA.
      if (i->called_computations().empty()) break;
      HloComputation* callee = i->called_computations()[0].computation;
      std::vector<HloInstruction*> params = callee->parameters();
      for (size_t k = 0; k < params.size(); ++k) {
        if (params[k] == nullptr || static_cast<int>(k) >= i->operand_count()) continue;
        const int n = LaidOutLeafCount(params[k]->shape());
        if (op == HloOpcode::kCall) {
          Alias(params[k], 0, i->operand(k), 0, n);
          continue;
        }
        for (int l = 0; l < n; ++l) {
          c_.edges_.push_back({SlotOf(params[k], l), SlotOf(i->operand(k), l),
                               Relation::kSame, "fusion operand", i, i->parent(),
                               static_cast<int>(k), l});
        }
      }
      if (callee->root() != nullptr) Alias(i, 0, callee->root(), 0, leaves);
      break;
    }
    case HloOpcode::kDynamicUpdateSlice:
      if (i->operand_count() >= 2 && leaves == 1) {
        AddEdges(i, 0, 0, Relation::kSame, "in-place update buffer");
        AddEdges(i, 1, 0, Relation::kOrder, "operand dimension order");
      }
      break;
    case HloOpcode::kTranspose:
      if (i->operand_count() == 1 && leaves == 1) {
        AddEdges(i, 0, 0, Relation::kPermute, nullptr);
      }
      break;
    case HloOpcode::kReshape:
    case HloOpcode::kBroadcast:
      if (i->operand_count() == 1 && leaves == 1 &&
          LaidOutLeafCount(i->operand(0)->shape()) == 1) {
        AddEdges(i, 0, 0,
                 op == HloOpcode::kReshape ? Relation::kReshape : Relation::kBroadcast,
                 nullptr);
      }
      break;
    case HloOpcode::kReduce: {
      int inputs = i->operand_count() / 2;
      for (int k = 0; k < inputs && k < leaves; ++k) {
        if (LaidOutLeafCount(i->operand(k)->shape()) == 1) {
          AddEdges(i, k, k, Relation::kReduce, nullptr);
        }
      }
      TieVariadic(i, inputs);
      break;
    }
    case HloOpcode::kReduceWindow:
      TieVariadic(i, i->operand_count() / 2);
      break;
    case HloOpcode::kBitcast:
      AddBitcast(i);
      break;
    // Batch norm keeps the activation's layout: the normalized result (the
    // first output of training and grad) has operand 0's, and so does
    // grad's output gradient (operand 4).
    case HloOpcode::kBatchNormTraining:
    case HloOpcode::kBatchNormInference:
    case HloOpcode::kBatchNormGrad:
      if (i->operand_count() >= 1 && LaidOutLeafCount(i->operand(0)->shape()) == 1 &&
          leaves >= 1) {
        AddEdges(i, 0, 0, Relation::kSame, "batch-norm activation");
        if (op == HloOpcode::kBatchNormGrad && i->operand_count() == 5 &&
            LaidOutLeafCount(i->operand(4)->shape()) == 1) {
          AddEdges(i, 4, 0, Relation::kSame, "batch-norm activation");
        }
      }
      break;
    case HloOpcode::kSend:
      // The data travels as it is: send's data leaf is its operand.
      if (i->operand_count() >= 1 && i->shape().IsTuple() && leaves >= 1 &&
          LaidOutLeafCount(i->operand(0)->shape()) == 1 &&
          LaidOutLeafCount(i->shape().tuple_shapes()[0]) == 1) {
        AddEdges(i, 0, 0, Relation::kSame, "send data");
      }
      break;
    case HloOpcode::kRecvDone:
      // recv-done delivers recv's data buffer.
      if (i->operand_count() == 1 && i->shape().IsTuple() &&
          LaidOutLeafCount(i->shape().tuple_shapes()[0]) == 1 &&
          i->operand(0)->shape().IsTuple() &&
          LaidOutLeafCount(i->operand(0)->shape().tuple_shapes()[0]) == 1) {
        Alias(i, 0, i->operand(0), 0, 1);
      }
      break;
    case HloOpcode::kDot:
      AddDot(i);
      break;
    case HloOpcode::kCustomCall:
      return AddCustomCall(i);
    case HloOpcode::kConvolution:
      AddConvolution(i);
      break;
    default:
      // Ops that move data without changing its layout: each result leaf
      // has its operand's layout, and a needed change is a copy outside.
      if (ForwardsLayout(op)) AddLayoutPreserving(i);
      if (IsDataMovement(op) && leaves == 1) {
        for (int k = 0; k < i->operand_count(); ++k) {
          const Shape& s = i->operand(k)->shape();
          if (s.IsArray() && s.rank() == i->shape().rank()) {
            AddEdges(i, k, 0, Relation::kOrder, "operand dimension order");
          }
        }
      }
      break;
  }
  return absl::OkStatus();
}

// A bitcast reinterprets its operand's bytes as written: the operand's
// layout is as fixed as the result's. Another use that wants the operand
// in another layout gets a copy, and so does the bitcast when the value
// must be produced otherwise (an entry parameter fixed by the header).
void ConstraintBuilder::AddBitcast(HloInstruction* bitcast) {
  if (bitcast->operand_count() != 1) return;
  HloInstruction* operand = bitcast->operand(0);
  const int n = LaidOutLeafCount(operand->shape());
  for (int k = 0; k < n; ++k) {
    const int slot = SlotOf(operand, k);
    const Layout written = c_.slots_[slot].shape->layout();
    Produce(slot, written);
    c_.operand_layouts_.push_back(
        {slot, written, "bitcast operand", bitcast, bitcast->parent(), 0, k});
  }
}

// Result leaf k has operand k's layout (same order where sizes differ, as
// all-gather and reduce-scatter change one dim); the in-place
// collective-permute's has its output buffer's.
void ConstraintBuilder::AddLayoutPreserving(HloInstruction* i) {
  const int results = LaidOutLeafCount(i->shape());
  // The in-place collective-permute writes its slices into operand 1, the
  // buffer it returns; its input may keep any layout.
  const int first = IsInPlaceCollectivePermute(*i) ? 1 : 0;
  for (int k = 0; k + first < i->operand_count() && k < results; ++k) {
    const Shape& in = i->operand(k + first)->shape();
    if (LaidOutLeafCount(in) != 1) continue;
    const Shape& out = *c_.slots_[SlotOf(i, k)].shape;
    AddEdges(i, k + first, k,
             in.dimensions() == out.dimensions() ? Relation::kSame : Relation::kOrder,
             "layout-preserving op");
  }
  // constrain_layout=true: the written layouts are the op's contract.
  for (const HloAttribute& a : i->raw_attributes()) {
    if (a.name != "constrain_layout" || a.value != "true") continue;
    for (int k = 0; k < results; ++k) {
      Produce(SlotOf(i, k), c_.slots_[SlotOf(i, k)].shape->layout());
    }
  }
  // Tying the outputs ties the inputs too: each input has its output's.
  if (i->opcode() == HloOpcode::kSort || i->opcode() == HloOpcode::kAllReduce) {
    TieVariadic(i, i->operand_count(), /*inputs_too=*/false);
  }
}

// The inputs of a variadic op (the first `inputs` operands) share one
// layout, each later input copied to the first's when they differ; the
// outputs, made by the op, share one too.
void ConstraintBuilder::TieVariadic(HloInstruction* i, int inputs, bool inputs_too) {
  if (inputs < 2 || LaidOutLeafCount(i->operand(0)->shape()) != 1) return;
  const int first = SlotOf(i->operand(0), 0);
  for (int k = 1; inputs_too && k < inputs && k < i->operand_count(); ++k) {
    const HloInstruction* in = i->operand(k);
    if (LaidOutLeafCount(in->shape()) != 1 ||
        in->shape().dimensions() != i->operand(0)->shape().dimensions()) {
      continue;
    }
    c_.edges_.push_back({first, SlotOf(in, 0), Relation::kSame, "variadic operands",
                         i, i->parent(), k, 0});
  }
  const int outputs = LaidOutLeafCount(i->shape());
  if (outputs < 2 || !i->shape().IsTuple()) return;
  for (int k = 1; k < outputs; ++k) {
    if (c_.slots_[SlotOf(i, k)].shape->dimensions() ==
        c_.slots_[SlotOf(i, 0)].shape->dimensions()) {
      c_.aliases_.push_back({SlotOf(i, 0), SlotOf(i, k)});
    }
  }
}

// IREE-style data tiling of a rank-2 dot, lhs[M,K] x rhs[K,N] with no batch
// dims: lhs in M0xK0 tiles, rhs as N-major N0xK0 panels, the result in M0xN0
// tiles. A tiling the padding rule refuses (M < M0 for a matrix-vector
// product) is left out. Other dots are left free.
void ConstraintBuilder::AddDot(HloInstruction* dot) {
  const auto& a = dot->attributes();
  if (dot->operand_count() != 2 || dot->shape().rank() != 2 ||
      dot->operand(0)->shape().rank() != 2 ||
      dot->operand(1)->shape().rank() != 2 ||
      a.dot().lhs_contracting_dims != std::vector<int64_t>{1} ||
      a.dot().rhs_contracting_dims != std::vector<int64_t>{0} ||
      (a.dot().lhs_batch_dims && !a.dot().lhs_batch_dims->empty()) ||
      (a.dot().rhs_batch_dims && !a.dot().rhs_batch_dims->empty())) {
    return;
  }
  std::optional<DotTiling> tiling =
      cost_.target().DotTilingFor(dot->shape().element_type());
  if (!tiling) return;
  Layout lhs(std::vector<int64_t>{1, 0});
  lhs.add_tile(Tile(std::vector<int64_t>{tiling->m0(), tiling->k0()}));
  Layout rhs(std::vector<int64_t>{0, 1});
  rhs.add_tile(Tile(std::vector<int64_t>{tiling->n0(), tiling->k0()}));
  Layout out(std::vector<int64_t>{1, 0});
  out.add_tile(Tile(std::vector<int64_t>{tiling->m0(), tiling->n0()}));
  const Layout* operands[2] = {&lhs, &rhs};
  // The dot reads the lhs once per n0-wide column block of the result and
  // the rhs once per m0-tall row block.
  const int64_t m = dot->operand(0)->shape().dimensions(0);
  const int64_t n = dot->operand(1)->shape().dimensions(1);
  const int64_t reads[2] = {(n + tiling->n0() - 1) / tiling->n0(),
                            (m + tiling->m0() - 1) / tiling->m0()};
  const double min_reads = cost_.target().proto().cost_model().min_dot_operand_reads();
  for (int k = 0; k < 2; ++k) {
    HloInstruction* op = dot->operand(k);
    LayoutAssignmentStats::Packing decision;
    decision.dot = dot->name();
    decision.operand = k == 0 ? "lhs" : "rhs";
    decision.reads = reads[k];
    absl::StatusOr<int64_t> count = op->shape().ElementCount();
    decision.bytes = count.ok() ? *count * PrimitiveByteSize(op->shape().element_type()) : 0;
    if (!cost_.Acceptable(op->shape(), *operands[k])) {
      decision.why = "the tiles would pad too much";
    } else if (op->opcode() == HloOpcode::kConstant) {
      // Laid out at compile time: the constant itself takes the layout.
      Produce(SlotOf(op, 0), *operands[k]);
      decision.packed = true;
      decision.why = "a constant, laid out at compile time";
    } else if (min_reads > 0 && reads[k] < min_reads) {
      decision.why = absl::StrCat("a copy of ", SaturatingAdd(decision.bytes, decision.bytes),
                                  " bytes would be read fewer than ", min_reads, " times");
    } else {
      Need(SlotOf(op, 0), *operands[k], "dot operand packing", dot, dot->parent(), k, 0);
      decision.packed = true;
      decision.why = absl::StrCat("read ", reads[k], " times; copy ", SaturatingAdd(decision.bytes, decision.bytes),
                                  " bytes once");
    }
    c_.packing_.push_back(std::move(decision));
  }
  if (cost_.Acceptable(dot->shape(), out)) Produce(SlotOf(dot, 0), out);
}

// Channels-last convolutions (TargetLayoutConfig.conv_channels_last): the
// result is written in that order, the operands prefer it, each with the
// target's tiles where the padding rule allows. dim_labels that do not
// describe the shapes leave the convolution free.
void ConstraintBuilder::AddConvolution(HloInstruction* conv) {
  const auto& labels = conv->attributes().rare().dim_labels;
  if (!cost_.target().proto().conv_channels_last() || conv->operand_count() != 2 ||
      !labels) {
    return;
  }
  const Shape& input = conv->operand(0)->shape();
  const Shape& kernel = conv->operand(1)->shape();
  if (!IsLaidOut(input) || !IsLaidOut(kernel) || !IsLaidOut(conv->shape())) return;
  std::vector<int64_t> in = ChannelsLastOrder(labels->input, input.rank(), 'f', 0, 'b');
  std::vector<int64_t> ker = ChannelsLastOrder(labels->kernel, kernel.rank(), 'o', 'i', 0);
  std::vector<int64_t> out =
      ChannelsLastOrder(labels->output, conv->shape().rank(), 'f', 0, 'b');
  if (in.empty() || ker.empty() || out.empty()) return;
  // The operands' layouts are preferences: a value nobody else lays out
  // takes them; one that comes otherwise is read as it is or copied,
  // whichever the cost model finds cheaper once layouts are known.
  const Layout layouts[2] = {cost_.TargetTiled(input, in), cost_.TargetTiled(kernel, ker)};
  for (int k = 0; k < 2; ++k) {
    const int slot = SlotOf(conv->operand(k), 0);
    c_.hints_.push_back({slot, layouts[k], kHint});
    c_.conv_preferences_.push_back({slot, layouts[k], conv, k});
  }
  Produce(SlotOf(conv, 0), cost_.TargetTiled(conv->shape(), out));
}

// operand_layout_constraints: each operand is needed in exactly the written
// layouts, as XLA's custom calls with constrained layouts.
absl::Status ConstraintBuilder::AddCustomCall(HloInstruction* call) {
  // An output that aliases an operand is one buffer with it: the same
  // layout, the operand copied when it comes in another.
  for (const OutputOperandAlias& a :
       call->attributes().rare().output_to_operand_aliasing.value_or(
           std::vector<OutputOperandAlias>{})) {
    if (a.operand < 0 || a.operand >= call->operand_count()) continue;
    const int out = LeafAt(call->shape(), a.output_index);
    const int in = LeafAt(call->operand(a.operand)->shape(), a.operand_index);
    if (out < 0 || in < 0) continue;
    c_.edges_.push_back({SlotOf(call, out), SlotOf(call->operand(a.operand), in),
                         Relation::kSame, "custom-call output aliasing", call,
                         call->parent(), static_cast<int>(a.operand), in});
  }
  const auto& written = call->attributes().rare().operand_layout_constraints;
  if (!written) return absl::OkStatus();
  std::vector<Shape> shapes = *written;
  auto refuse = [&](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat(
        "custom-call '", call->name(), "': operand_layout_constraints ", what));
  };
  if (static_cast<int>(shapes.size()) != call->operand_count()) {
    return refuse(absl::StrCat("has ", shapes.size(), " shapes for ",
                               call->operand_count(), " operands"));
  }
  for (int k = 0; k < call->operand_count(); ++k) {
    if (!Shape::Equal().IgnoreLayout()(shapes[k], call->operand(k)->shape())) {
      return refuse(absl::StrCat("gives ", PrintShape(shapes[k]), " for operand ", k,
                                 " of shape ", PrintShape(call->operand(k)->shape())));
    }
  }
  for (int k = 0; k < call->operand_count(); ++k) {
    LeafShapes ls = LaidOutLeaves(shapes[k]);
    for (int leaf = 0; leaf < static_cast<int>(ls.size()); ++leaf) {
      Need(SlotOf(call->operand(k), leaf), ls[leaf]->layout(),
           "custom-call operand constraint", call, call->parent(), k, leaf);
    }
  }
  return absl::OkStatus();
}

absl::Status ConstraintBuilder::Build() {
  CreateSlots();
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
  for (HloComputation* c : module_.computations()) {
    for (HloInstruction* i : c->instruction_range()) {
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
    c_.edges_.push_back({SlotOf(params[a.parameter], in), SlotOf(entry->root(), out),
                         Relation::kSame, "input_output_alias", nullptr, entry, 0, out});
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
