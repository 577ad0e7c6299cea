// The per-opcode rules that build LayoutConstraints. Each rule adds edges,
// operand layouts or buffer layouts for one instruction; a reader finds
// every rule for an opcode in one place, the handler ConstraintBuilder::Visit
// dispatches it to.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hlo/hlo_attributes.h"
#include "passes/layout_assignment/constraint_builder.h"
#include "xla_layout/layout_util.h"
#include "xla_layout/primitive_type.h"
#include "xla_layout/shape_text.h"

namespace xla_layout::layout_assignment {
namespace {

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

// The dims of a rank-`rank` dot operand that are neither `batch` nor
// `contracting`, in increasing order (the order the result takes them in).
std::vector<int64_t> DotFreeDims(int64_t rank, const std::vector<int64_t>& batch,
                                 const std::vector<int64_t>& contracting) {
  std::vector<int64_t> free;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
        std::find(contracting.begin(), contracting.end(), d) == contracting.end()) {
      free.push_back(d);
    }
  }
  return free;
}

// The packed layout of a dot operand: its batch dims outermost (each batch
// one matmul's panels), then its free and contracting dims in order, except
// that the last free dim and the last contracting dim are the two minor
// dims, tiled (free_tile, k_tile): runs of free_tile coordinates of the
// free dim side by side for each contracting index, as the executor's
// packed kernel reads them. Both `free` and `contracting` are non-empty.
Layout PackedDotOperand(const std::vector<int64_t>& batch, const std::vector<int64_t>& free,
                        const std::vector<int64_t>& contracting, int64_t free_tile,
                        int64_t k_tile) {
  std::vector<int64_t> major_to_minor = batch;
  major_to_minor.insert(major_to_minor.end(), free.begin(), free.end() - 1);
  major_to_minor.insert(major_to_minor.end(), contracting.begin(), contracting.end() - 1);
  major_to_minor.push_back(free.back());
  major_to_minor.push_back(contracting.back());
  Layout layout(std::vector<int64_t>(major_to_minor.rbegin(), major_to_minor.rend()));
  layout.add_tile(Tile(std::vector<int64_t>{free_tile, k_tile}));
  return layout;
}

}  // namespace

absl::Status ConstraintBuilder::Visit(HloInstruction* i) {
  ++batch_;
  AddWrittenLayouts(i);
  const HloOpcode op = i->opcode();
  switch (op) {
    case HloOpcode::kGetTupleElement:
      HandleGetTupleElement(i);
      break;
    case HloOpcode::kTuple:
      HandleTuple(i);
      break;
    case HloOpcode::kWhile:
      HandleWhile(i);
      break;
    case HloOpcode::kConditional:
      HandleConditional(i);
      break;
    case HloOpcode::kCall:
    case HloOpcode::kFusion:
      HandleCallOrFusion(i);
      break;
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
      HandleAsync(i);
      break;
    case HloOpcode::kDynamicUpdateSlice:
    case HloOpcode::kTranspose:
    case HloOpcode::kReshape:
    case HloOpcode::kBroadcast:
      HandleShapeChange(i);
      break;
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow:
      HandleReduce(i);
      break;
    case HloOpcode::kBitcast:
      HandleBitcast(i);
      break;
    case HloOpcode::kBatchNormTraining:
    case HloOpcode::kBatchNormInference:
    case HloOpcode::kBatchNormGrad:
      HandleBatchNorm(i);
      break;
    case HloOpcode::kSend:
    case HloOpcode::kRecvDone:
      HandleSendRecv(i);
      break;
    case HloOpcode::kDot:
      HandleDot(i);
      break;
    case HloOpcode::kCustomCall:
      return HandleCustomCall(i);
    case HloOpcode::kConvolution:
      HandleConvolution(i);
      break;
    default:
      // The opcode table's classes: elementwise ops keep their operands'
      // layout; the rest move data without changing its layout: each
      // result leaf has its operand's, and a needed change is a copy outside.
      // A copy is in none: changing the layout is what it is for.
      if (PreservesLayout(op)) HandleElementwise(i);
      if (ForwardsLayout(op)) HandleCollective(i);
      if (IsDataMovement(op)) HandleDataMovement(i);
      break;
  }
  return absl::OkStatus();
}

void ConstraintBuilder::HandleElementwise(HloInstruction* i) {
  const int leaves = LaidOutLeafCount(i->shape());
  for (int k = 0; k < i->operand_count(); ++k) {
    const Shape& s = i->operand(k)->shape();
    if (!s.IsArray() || s.rank() != i->shape().rank() || leaves != 1) continue;
    // Lanes of different widths keep the order and take their own tiles.
    bool same_width = PrimitiveBitWidth(s.element_type()) ==
                      PrimitiveBitWidth(i->shape().element_type());
    AddEdges(i, k, 0, same_width ? Relation::kSame : Relation::kOrder,
             UnlessFused(i, "elementwise operand"));
  }
}

void ConstraintBuilder::HandleGetTupleElement(HloInstruction* i) {
  const std::optional<int64_t> index = i->attributes().index();
  if (!index || i->operand_count() != 1) return;
  Alias(i, 0, i->operand(0), LeafOffset(i->operand(0)->shape(), *index),
        LaidOutLeafCount(i->shape()));
}

void ConstraintBuilder::HandleTuple(HloInstruction* i) {
  int offset = 0;
  for (int k = 0; k < i->operand_count(); ++k) {
    AddEdges(i, k, offset, Relation::kSame, "tuple element");
    offset += LaidOutLeafCount(i->operand(k)->shape());
  }
}

void ConstraintBuilder::HandleWhile(HloInstruction* i) {
  const int leaves = LaidOutLeafCount(i->shape());
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
                           "while body result", nullptr, 0, k});
    }
  }
}

void ConstraintBuilder::HandleConditional(HloInstruction* i) {
  const int leaves = LaidOutLeafCount(i->shape());
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
                           nullptr, 0, k});
    }
  }
}

// The callee's root is the result. A call's parameters are views of its
// operands; a fusion's take its operands' layouts too, but when a fused op
// needs another one the copy goes on the fusion's operand, outside the
// body, as in XLA.
void ConstraintBuilder::HandleCallOrFusion(HloInstruction* i) {
  if (i->called_computations().empty()) return;
  HloComputation* callee = i->called_computations()[0].computation;
  std::vector<HloInstruction*> params = callee->parameters();
  for (size_t k = 0; k < params.size(); ++k) {
    if (params[k] == nullptr || static_cast<int>(k) >= i->operand_count()) continue;
    const int n = LaidOutLeafCount(params[k]->shape());
    if (i->opcode() == HloOpcode::kCall) {
      Alias(params[k], 0, i->operand(k), 0, n);
      continue;
    }
    for (int l = 0; l < n; ++l) {
      c_.edges_.push_back({SlotOf(params[k], l), SlotOf(i->operand(k), l),
                           Relation::kSame, "fusion operand", i,
                           static_cast<int>(k), l});
    }
  }
  if (callee->root() != nullptr) {
    Alias(i, 0, callee->root(), 0, LaidOutLeafCount(i->shape()));
  }
}

void ConstraintBuilder::HandleAsync(HloInstruction* i) {
  if (i->operand_count() < 1 && i->opcode() != HloOpcode::kAsyncStart) return;
  if (i->opcode() == HloOpcode::kAsyncUpdate) {
    if (!Shape::Equal().IgnoreLayout()(i->shape(), i->operand(0)->shape())) return;
    Alias(i, 0, i->operand(0), 0, LaidOutLeafCount(i->shape()));
    return;
  }
  if (i->opcode() == HloOpcode::kAsyncDone) {
    // The start's leaves: its operands', then the result's.
    const Shape& start = i->operand(0)->shape();
    if (!start.IsTuple() || start.tuple_shapes().size() < 2 ||
        !Shape::Equal().IgnoreLayout()(start.tuple_shapes()[1], i->shape())) {
      return;
    }
    Alias(i, 0, i->operand(0), LaidOutLeafCount(start.tuple_shapes()[0]),
          LaidOutLeafCount(i->shape()));
    return;
  }
  const HloComputation* callee = i->called_computation("calls");
  if (callee == nullptr || callee->root() == nullptr || !i->shape().IsTuple() ||
      i->shape().tuple_shapes().size() < 2) {
    return;
  }
  // Only a start whose shape is ((operands...), root, ...) ties them (the
  // verifier checks the wrapped computation, not the start's record).
  std::vector<Shape> operands;
  for (const HloInstruction* o : i->operands()) operands.push_back(o->shape());
  const Shape::Equal same = Shape::Equal().IgnoreLayout();
  if (!same(i->shape().tuple_shapes()[0], Shape::MakeTuple(operands)) ||
      !same(i->shape().tuple_shapes()[1], callee->root()->shape())) {
    return;
  }
  std::vector<HloInstruction*> params = callee->parameters();
  int leaf = 0;
  for (int k = 0; k < i->operand_count(); ++k) {
    const int n = LaidOutLeafCount(i->operand(k)->shape());
    if (k < static_cast<int>(params.size()) && params[k] != nullptr) {
      Alias(params[k], 0, i->operand(k), 0, n);
    }
    Alias(i, leaf, i->operand(k), 0, n);
    leaf += n;
  }
  Alias(i, leaf, callee->root(), 0, LaidOutLeafCount(callee->root()->shape()));
}

// Ops whose result relates to one array operand by a rule of its own:
// dynamic-update-slice (in place), transpose, reshape and broadcast.
void ConstraintBuilder::HandleShapeChange(HloInstruction* i) {
  if (LaidOutLeafCount(i->shape()) != 1) return;
  switch (i->opcode()) {
    case HloOpcode::kDynamicUpdateSlice:
      if (i->operand_count() >= 2) {
        AddEdges(i, 0, 0, Relation::kSame, "in-place update buffer");
        AddEdges(i, 1, 0, Relation::kOrder, "operand dimension order");
      }
      break;
    case HloOpcode::kTranspose:
      if (i->operand_count() == 1) AddEdges(i, 0, 0, Relation::kPermute, nullptr);
      break;
    default:  // reshape, broadcast
      if (i->operand_count() == 1 && LaidOutLeafCount(i->operand(0)->shape()) == 1) {
        AddEdges(i, 0, 0,
                 i->opcode() == HloOpcode::kReshape ? Relation::kReshape
                                                    : Relation::kBroadcast,
                 nullptr);
      }
      break;
  }
}

// Reduce and reduce-window: each input of a reduce relates to its result by
// Relation::kReduce; the inputs (the first half of the operands) share one
// layout, and so do the outputs.
void ConstraintBuilder::HandleReduce(HloInstruction* i) {
  const int inputs = i->operand_count() / 2;
  if (i->opcode() == HloOpcode::kReduce) {
    const int leaves = LaidOutLeafCount(i->shape());
    for (int k = 0; k < inputs && k < leaves; ++k) {
      if (LaidOutLeafCount(i->operand(k)->shape()) == 1) {
        AddEdges(i, k, k, Relation::kReduce, nullptr);
      }
    }
  }
  TieVariadic(i, inputs);
}

// Batch norm keeps the activation's layout: the normalized result (the
// first output of training and grad) has operand 0's, and so does grad's
// output gradient (operand 4).
void ConstraintBuilder::HandleBatchNorm(HloInstruction* i) {
  if (i->operand_count() < 1 || LaidOutLeafCount(i->operand(0)->shape()) != 1 ||
      LaidOutLeafCount(i->shape()) < 1) {
    return;
  }
  AddEdges(i, 0, 0, Relation::kSame, "batch-norm activation");
  if (i->opcode() == HloOpcode::kBatchNormGrad && i->operand_count() == 5 &&
      LaidOutLeafCount(i->operand(4)->shape()) == 1) {
    AddEdges(i, 4, 0, Relation::kSame, "batch-norm activation");
  }
}

// The data travels as it is: send's data leaf is its operand, and
// recv-done delivers recv's data buffer.
void ConstraintBuilder::HandleSendRecv(HloInstruction* i) {
  if (!i->shape().IsTuple() || LaidOutLeafCount(i->shape()) < 1 ||
      LaidOutLeafCount(i->shape().tuple_shapes()[0]) != 1) {
    return;
  }
  if (i->opcode() == HloOpcode::kSend) {
    if (i->operand_count() >= 1 && LaidOutLeafCount(i->operand(0)->shape()) == 1) {
      AddEdges(i, 0, 0, Relation::kSame, "send data");
    }
    return;
  }
  if (i->operand_count() == 1 && i->operand(0)->shape().IsTuple() &&
      LaidOutLeafCount(i->operand(0)->shape().tuple_shapes()[0]) == 1) {
    Alias(i, 0, i->operand(0), 0, 1);
  }
}

// Slice, dynamic-slice, pad, concatenate, reverse: each array operand of the
// result's rank keeps the result's dimension order.
void ConstraintBuilder::HandleDataMovement(HloInstruction* i) {
  if (LaidOutLeafCount(i->shape()) != 1) return;
  for (int k = 0; k < i->operand_count(); ++k) {
    const Shape& s = i->operand(k)->shape();
    if (s.IsArray() && s.rank() == i->shape().rank()) {
      AddEdges(i, k, 0, Relation::kOrder, UnlessFused(i, "operand dimension order"));
    }
  }
}

// A bitcast reinterprets its operand's bytes as written: the operand's
// layout is as fixed as the result's. Another use that wants the operand
// in another layout gets a copy, and so does the bitcast when the value
// must be produced otherwise (an entry parameter fixed by the header).
void ConstraintBuilder::HandleBitcast(HloInstruction* bitcast) {
  if (bitcast->operand_count() != 1) return;
  HloInstruction* operand = bitcast->operand(0);
  const int n = LaidOutLeafCount(operand->shape());
  for (int k = 0; k < n; ++k) {
    const int slot = SlotOf(operand, k);
    const Layout written = c_.slots_[slot].shape->layout();
    Produce(slot, written, "bitcast pin");
    c_.operand_layouts_.push_back(
        {slot, written, "bitcast operand", bitcast, bitcast->parent(), 0, k});
  }
}

// Result leaf k has operand k's layout (same order where sizes differ, as
// all-gather and reduce-scatter change one dim); the in-place
// collective-permute's has its output buffer's.
void ConstraintBuilder::HandleCollective(HloInstruction* i) {
  const int results = LaidOutLeafCount(i->shape());
  // The in-place collective-permute writes its slices into operand 1, the
  // buffer it returns; its input may keep any layout.
  const int first = IsInPlaceCollectivePermute(*i) ? 1 : 0;
  for (int k = 0; k + first < i->operand_count() && k < results; ++k) {
    // One order and the same tiles, also where sizes differ (all-gather,
    // reduce-scatter): each side's padding follows from the other's.
    if (LaidOutLeafCount(i->operand(k + first)->shape()) != 1) continue;
    AddEdges(i, k + first, k, Relation::kSame, "layout-preserving op");
  }
  // constrain_layout=true: the written layouts are the op's contract; one
  // written without tiles fixes the order where the target requires tiles
  // (a TPU keeps every array tiled, whatever the framework wrote).
  for (const HloAttribute& a : i->raw_attributes()) {
    if (a.name != "constrain_layout" || a.value != "true") continue;
    for (int k = 0; k < results; ++k) {
      const Shape& leaf = *c_.slots_[SlotOf(i, k)].shape;
      Produce(SlotOf(i, k), cost_.WithRequiredTiles(leaf, leaf.layout()), "constrain_layout");
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
                         i, k, 0});
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

// IREE-style data tiling of a dot, lhs[B...,M...,K...] x rhs[B...,K...,N...]
// (batch dims, several free or contracting dims, any dim numbers): each
// operand with its batch dims outermost and its (last) free and contracting
// dims tiled minor, lhs in M0xK0 tiles, rhs as N-major N0xK0 panels, the
// result row-major with its last two dims in M0xN0 tiles. M and N are the
// free dims' element counts. A tiling the padding rule refuses is left out,
// and so is the matrix of a matrix-vector product. Dots with no contracting
// or no free dim on a side are left free.
void ConstraintBuilder::HandleDot(HloInstruction* dot) {
  if (dot->operand_count() != 2) return;
  const auto& a = dot->attributes().dot();
  const std::vector<int64_t> no_dims;
  const std::vector<int64_t>& lb = a.lhs_batch_dims ? *a.lhs_batch_dims : no_dims;
  const std::vector<int64_t>& rb = a.rhs_batch_dims ? *a.rhs_batch_dims : no_dims;
  const std::vector<int64_t>& lc = a.lhs_contracting_dims ? *a.lhs_contracting_dims : no_dims;
  const std::vector<int64_t>& rc = a.rhs_contracting_dims ? *a.rhs_contracting_dims : no_dims;
  const Shape& lhs_shape = dot->operand(0)->shape();
  const Shape& rhs_shape = dot->operand(1)->shape();
  const std::vector<int64_t> lf = DotFreeDims(lhs_shape.rank(), lb, lc);
  const std::vector<int64_t> rf = DotFreeDims(rhs_shape.rank(), rb, rc);
  if (lc.empty() || lf.empty() || rf.empty() || lb.size() != rb.size() ||
      dot->shape().rank() != static_cast<int64_t>(lb.size() + lf.size() + rf.size())) {
    return;
  }
  std::optional<DotTiling> tiling =
      cost_.target().DotTilingFor(dot->shape().element_type());
  if (!tiling) return;
  const Layout lhs = PackedDotOperand(lb, lf, lc, tiling->m0(), tiling->k0());
  const Layout rhs = PackedDotOperand(rb, rf, rc, tiling->n0(), tiling->k0());
  std::vector<int64_t> out_order(dot->shape().rank());
  for (int64_t d = 0; d < dot->shape().rank(); ++d) out_order[d] = dot->shape().rank() - 1 - d;
  Layout out(out_order);
  out.add_tile(Tile(std::vector<int64_t>{tiling->m0(), tiling->n0()}));
  const Layout* operands[2] = {&lhs, &rhs};
  // The dot reads the lhs once per n0-wide column block of each batch's
  // result and the rhs once per m0-tall row block.
  int64_t m = 1, n = 1;
  for (int64_t d : lf) m *= lhs_shape.dimensions(d);
  for (int64_t d : rf) n *= rhs_shape.dimensions(d);
  const int64_t reads[2] = {(n + tiling->n0() - 1) / tiling->n0(),
                            (m + tiling->m0() - 1) / tiling->m0()};
  for (int k = 0; k < 2; ++k) {
    DecideDotOperand(dot, k, *operands[k], reads[k], (k == 1 && m == 1) || (k == 0 && n == 1));
  }
  if (cost_.Acceptable(dot->shape(), out)) Produce(SlotOf(dot, 0), out, "packed dot result");
}

// Whether operand k of `dot` gets its packed layout `packed`, read `reads`
// times: recorded in the stats' packing decisions.
void ConstraintBuilder::DecideDotOperand(HloInstruction* dot, int k, const Layout& packed,
                                         int64_t reads, bool matrix_vector) {
  HloInstruction* op = dot->operand(k);
  const double min_reads = cost_.target().proto().cost_model().min_dot_operand_reads();
  LayoutAssignmentStats::Packing decision;
  decision.dot = dot->name();
  decision.operand = k == 0 ? "lhs" : "rhs";
  decision.reads = reads;
  absl::StatusOr<int64_t> count = op->shape().ElementCount();
  decision.bytes = count.ok() ? *count * PrimitiveByteSize(op->shape().element_type()) : 0;
  // The matrix of a matrix-vector product (the rhs when M is 1, the lhs
  // when N is 1) is read element by element once, whatever the table's
  // min_dot_operand_reads says: packing it, even a constant, gains nothing.
  if (matrix_vector) {
    decision.why = "a matrix-vector product reads each element once";
  } else if (!cost_.Acceptable(op->shape(), packed)) {
    decision.why = "the tiles would pad too much";
  } else if (op->opcode() == HloOpcode::kConstant) {
    // Laid out at compile time: the constant itself takes the layout.
    Produce(SlotOf(op, 0), packed, "packed constant");
    decision.packed = true;
    decision.why = "a constant, laid out at compile time";
  } else if (min_reads > 0 && reads < min_reads) {
    decision.why = absl::StrCat("a copy of ", SaturatingAdd(decision.bytes, decision.bytes),
                                " bytes would be read fewer than ", min_reads, " times");
  } else {
    Need(SlotOf(op, 0), packed, "dot operand packing", dot, dot->parent(), k, 0);
    decision.packed = true;
    decision.why = absl::StrCat("read ", reads, " times; copy ",
                                SaturatingAdd(decision.bytes, decision.bytes), " bytes once");
  }
  c_.packing_.push_back(std::move(decision));
}

// Channels-last convolutions (TargetLayoutConfig.conv_channels_last): the
// result is written in that order, the operands prefer it, each with the
// target's tiles where the padding rule allows. dim_labels that do not
// describe the shapes leave the convolution free.
void ConstraintBuilder::HandleConvolution(HloInstruction* conv) {
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
    c_.hints_.push_back({slot, layouts[k], kHint, 0, "convolution preference"});
    c_.conv_preferences_.push_back({slot, layouts[k], conv, k});
  }
  Produce(SlotOf(conv, 0), cost_.TargetTiled(conv->shape(), out), "channels-last convolution");
}

// operand_layout_constraints: each operand is needed in exactly the written
// layouts, as XLA's custom calls with constrained layouts.
absl::Status ConstraintBuilder::HandleCustomCall(HloInstruction* call) {
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
                         static_cast<int>(a.operand), in});
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
      // Without tiles, on a target that requires them: the order only.
      Need(SlotOf(call->operand(k), leaf), cost_.WithRequiredTiles(*ls[leaf], ls[leaf]->layout()),
           "custom-call operand constraint", call, call->parent(), k, leaf);
    }
  }
  return absl::OkStatus();
}

}  // namespace xla_layout::layout_assignment
