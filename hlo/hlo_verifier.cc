#include "hlo/hlo_verifier.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/hlo_attributes.h"
#include "hlo/hlo_verifier_internal.h"
#include "hlo/shape_inference.h"
#include "xla_layout/layout_util.h"
#include "xla_layout/tiled_layout.h"

namespace xla_layout {
namespace hlo_verifier_internal {

absl::Status Positioned(const Context& ctx, SourceLocation where,
                        const std::string& body) {
  if (!where.known() || ctx.module.source_name().empty()) {
    return absl::InvalidArgumentError(body);
  }
  if (ctx.options.source != nullptr) {
    return absl::InvalidArgumentError(ctx.options.source->Diagnostic(where, "error", body));
  }
  return absl::InvalidArgumentError(
      absl::StrCat(LocationPrefix(ctx.module.source_name(), where), "error: ", body));
}

absl::Status Fail(const Context& ctx, const HloComputation& c,
                  const HloInstruction* i, absl::string_view message) {
  return Positioned(
      ctx, i != nullptr ? i->location() : c.location(),
      absl::StrCat("verifier: computation '", c.name(), "'",
                   i ? absl::StrCat(", instruction '", i->name(), "'") : std::string(),
                   ": ", message));
}

}  // namespace hlo_verifier_internal

using hlo_verifier_internal::Context;
using hlo_verifier_internal::Fail;
using hlo_verifier_internal::Positioned;
using hlo_verifier_internal::VerifyCallees;

namespace {

absl::Status CheckLayouts(const Shape& shape) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) {
      absl::Status st = CheckLayouts(s);
      if (!st.ok()) return st;
    }
    return absl::OkStatus();
  }
  if (shape.IsArray() && !shape.has_layout()) {
    return absl::InvalidArgumentError(
        absl::StrCat("array shape ", shape.ToString(), " has no layout"));
  }
  return absl::OkStatus();
}

absl::Status VerifyInstruction(const Context& ctx, const HloComputation& c,
                               const HloInstruction& i) {
  const Shape::Equal same_dims = Shape::Equal().IgnoreLayout();
  HloOpcode op = i.opcode();
  if (IsElementwise(op)) {
    int arity = ElementwiseArity(op);
    if (i.operand_count() != arity) {
      return Fail(ctx, c, &i, absl::StrCat(HloOpcodeString(op), " takes ", arity,
                                      " operands, not ", i.operand_count()));
    }
    for (int k = 0; k < arity; ++k) {
      const Shape& s = i.operand(k)->shape();
      // clamp's bounds and select's predicate may be scalars.
      bool scalar_ok = (op == HloOpcode::kClamp && k != 1) ||
                       (op == HloOpcode::kSelect && k == 0);
      if (scalar_ok && s.IsArray() && s.rank() == 0) continue;
      if (!s.IsArray() || !i.shape().IsArray() ||
          s.dimensions() != i.shape().dimensions()) {
        return Fail(ctx, c, &i, absl::StrCat(
                               "elementwise ", HloOpcodeString(op),
                               " has operand ", k, " of shape ", s.ToString(),
                               " but result ", i.shape().ToString()));
      }
    }
  }
  if (op == HloOpcode::kTuple) {
    const auto& elements = i.shape().tuple_shapes();
    if (!i.shape().IsTuple() ||
        static_cast<int>(elements.size()) != i.operand_count()) {
      return Fail(ctx, c, &i, "tuple shape does not have one element per operand");
    }
    for (int k = 0; k < i.operand_count(); ++k) {
      if (!same_dims(elements[k], i.operand(k)->shape())) {
        return Fail(ctx, c, &i, absl::StrCat("tuple element ", k, " is ",
                                        elements[k].ToString(), " but operand is ",
                                        i.operand(k)->shape().ToString()));
      }
    }
  }
  if (op == HloOpcode::kGetTupleElement) {
    const Shape& t = i.operand_count() == 1 ? i.operand(0)->shape() : Shape();
    int64_t index = i.attributes().index().value_or(-1);
    if (!t.IsTuple() || index < 0 ||
        index >= static_cast<int64_t>(t.tuple_shapes().size())) {
      return Fail(ctx, c, &i, "get-tuple-element needs a tuple operand and an index in range");
    }
    if (!same_dims(t.tuple_shapes()[index], i.shape())) {
      return Fail(ctx, c, &i, absl::StrCat("get-tuple-element of ",
                                      t.tuple_shapes()[index].ToString(),
                                      " cannot be ", i.shape().ToString()));
    }
  }
  return absl::OkStatus();
}

// Operands form a DAG within a computation: no instruction reads itself,
// directly or through others. `position` gives each instruction's place in
// the computation by local id. Iterative, so deep chains cannot overflow.
absl::Status VerifyAcyclic(const Context& ctx, const HloComputation& c,
                           const std::vector<int>& position) {
  auto index = [&position](const HloInstruction* i) { return position[i->local_id()]; };
  const HloComputation::InstructionRange instrs = c.instruction_range();
  // Text order is nearly always an order of definitions before uses, which
  // proves the DAG without a search.
  bool ordered = true;
  for (size_t k = 0; k < instrs.size() && ordered; ++k) {
    for (HloInstruction* op : instrs[k]->operands()) {
      if (index(op) >= static_cast<int>(k)) {
        ordered = false;
        break;
      }
    }
  }
  if (ordered) return absl::OkStatus();
  std::vector<int8_t> state(instrs.size(), 0);  // 1 open, 2 done
  for (HloInstruction* start : instrs) {
    if (state[index(start)] == 2) continue;
    std::vector<std::pair<HloInstruction*, int>> stack = {{start, 0}};
    state[index(start)] = 1;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next == node->operand_count()) {
        state[index(node)] = 2;
        stack.pop_back();
        continue;
      }
      HloInstruction* op = node->operand(next++);
      int8_t& st = state[index(op)];
      if (st == 2) continue;
      if (st == 1) {
        std::vector<std::string> path;
        size_t from = 0;
        while (stack[from].first != op) ++from;
        for (size_t k = from; k < stack.size(); ++k) path.push_back(stack[k].first->name());
        path.push_back(op->name());
        // Reading order: the instruction first, then what it reads.
        std::reverse(path.begin(), path.end());
        return Fail(ctx, c, op, absl::StrCat("depends on itself (",
                                             absl::StrJoin(path, " <- "), ")"));
      }
      st = 1;
      stack.push_back({op, 0});
    }
  }
  return absl::OkStatus();
}

// Orders (key, index) pairs by key, stably: an LSD radix sort by bytes,
// linear where a comparison sort is not.
void RadixSortByKey(std::vector<std::pair<uint32_t, uint32_t>>& keyed) {
  std::vector<std::pair<uint32_t, uint32_t>> other(keyed.size());
  for (int shift = 0; shift < 32; shift += 8) {
    size_t start[257] = {0};
    for (const auto& e : keyed) ++start[((e.first >> shift) & 255) + 1];
    for (int b = 0; b < 256; ++b) start[b + 1] += start[b];
    for (const auto& e : keyed) other[start[(e.first >> shift) & 255]++] = e;
    keyed.swap(other);
  }
}

// For each instruction of the module, in computation and instruction order:
// whether an earlier one has its name. Names are hashed in one sequential
// pass and radix-sorted by 32 bits of hash; only names that share those
// bits are compared, in name order. Unlike a hash set of names probed at
// random, this stays cache-friendly and linear on a module of millions of
// instructions.
std::vector<bool> RepeatedNames(const HloModule& module) {
  std::vector<const HloInstruction*> all;
  all.reserve(static_cast<size_t>(module.instruction_count()));
  for (HloComputation* c : module.computations()) {
    for (HloInstruction* i : c->instruction_range()) all.push_back(i);
  }
  std::vector<std::pair<uint32_t, uint32_t>> keyed(all.size());  // (hash, order)
  for (size_t n = 0; n < all.size(); ++n) {
    keyed[n] = {static_cast<uint32_t>(absl::HashOf(all[n]->name()) >> 32),
                static_cast<uint32_t>(n)};
  }
  RadixSortByKey(keyed);
  std::vector<bool> repeated(all.size(), false);
  for (size_t a = 0; a < keyed.size();) {
    size_t b = a + 1;
    while (b < keyed.size() && keyed[b].first == keyed[a].first) ++b;
    if (b - a > 1) {
      // Equal names sit together in name order, the earliest first.
      std::sort(keyed.begin() + a, keyed.begin() + b, [&all](const auto& x, const auto& y) {
        int order = all[x.second]->name().compare(all[y.second]->name());
        return order != 0 ? order < 0 : x.second < y.second;
      });
      for (size_t k = a + 1; k < b; ++k) {
        if (all[keyed[k].second]->name() == all[keyed[k - 1].second]->name()) {
          repeated[keyed[k].second] = true;
        }
      }
    }
    a = b;
  }
  return repeated;
}

// What VerifyModule carries from one computation to the next.
struct ModuleScan {
  // Views of names the module owns, which do not change while it is read.
  absl::flat_hash_set<absl::string_view> computation_names;
  absl::flat_hash_set<const HloComputation*> owned;
  std::vector<bool> repeated_name;  // RepeatedNames(module)
  size_t order = 0;  // of the instruction in the module, as RepeatedNames walks it
};

// `i`'s operands are instructions of `c` (`position` as VerifyAcyclic takes
// it) and its callees computations of the module.
absl::Status VerifyReferences(const Context& ctx, const HloComputation& c,
                              const HloInstruction& i, const std::vector<int>& position,
                              const absl::flat_hash_set<const HloComputation*>& owned) {
  auto mine = [&](const HloInstruction* op) {
    return op != nullptr && op->parent() == &c && op->local_id() >= 0 &&
           op->local_id() < c.local_id_bound() && position[op->local_id()] >= 0;
  };
  for (HloInstruction* op : i.operands()) {
    if (!mine(op)) {
      return Fail(ctx, c, &i, "an operand does not belong to this computation");
    }
  }
  for (const auto& called : i.called_computations()) {
    if (called.computation == nullptr || !owned.contains(called.computation)) {
      return Fail(ctx, c, &i, absl::StrCat("calls a computation (", called.attribute,
                                           ") that is not in the module"));
    }
  }
  return absl::OkStatus();
}

// Counts a parameter's number in `seen`, refusing one used twice.
absl::Status CountParameter(const Context& ctx, const HloComputation& c,
                            const HloInstruction& i, std::vector<int>& seen) {
  if (i.opcode() != HloOpcode::kParameter) return absl::OkStatus();
  int64_t n = i.parameter_number();
  if (n >= static_cast<int64_t>(seen.size())) {
    if (n > 1 << 20) return Fail(ctx, c, &i, "parameter number is too large");
    seen.resize(n + 1, 0);
  }
  if (seen[n]++ > 0) {
    return Fail(ctx, c, &i, absl::StrCat("parameter number ", n, " is used twice"));
  }
  return absl::OkStatus();
}

// Every check of one computation and its instructions, in order.
absl::Status VerifyComputation(const Context& ctx, const HloComputation& c, ModuleScan& scan) {
  if (!scan.computation_names.insert(c.name()).second) {
    return Fail(ctx, c, nullptr, "computation name is not unique");
  }
  if (c.root() == nullptr || c.root()->parent() != &c) {
    return Fail(ctx, c, nullptr, "has no root instruction of its own");
  }
  // The position of each of the computation's instructions, by local id
  // (-1 for ids it no longer holds).
  std::vector<int> position(c.local_id_bound(), -1);
  {
    int k = 0;
    for (HloInstruction* i : c.instruction_range()) position[i->local_id()] = k++;
  }
  std::vector<int> parameter_seen;
  for (HloInstruction* i : c.instruction_range()) {
    if (scan.repeated_name[scan.order++]) {
      return Fail(ctx, c, i, "instruction name is not unique in the module");
    }
    absl::Status s = VerifyReferences(ctx, c, *i, position, scan.owned);
    if (!s.ok()) return s;
    s = i->shape().Validate();
    if (s.ok() && ctx.options.require_layouts) s = CheckLayouts(i->shape());
    if (!s.ok()) return Fail(ctx, c, i, s.message());
    s = CountParameter(ctx, c, *i, parameter_seen);
    if (!s.ok()) return s;
    s = VerifyInstruction(ctx, c, *i);
    if (!s.ok()) return s;
    s = VerifyCallees(ctx, c, *i);
    if (!s.ok()) return s;
    s = CheckShape(*i);
    if (!s.ok()) return Fail(ctx, c, i, s.message());
  }
  for (size_t n = 0; n < parameter_seen.size(); ++n) {
    if (parameter_seen[n] == 0) {
      return Fail(ctx, c, nullptr, absl::StrCat("parameter ", n, " is missing"));
    }
  }
  return VerifyAcyclic(ctx, c, position);
}

// Calls form a DAG (XLA's rule): a computation never calls itself,
// directly or through others.
absl::Status VerifyCallGraph(const Context& ctx, const HloModule& module) {
  absl::flat_hash_map<const HloComputation*, int> state;  // 1 open, 2 done
  std::vector<std::string> path;
  std::function<absl::Status(const HloComputation*)> visit =
      [&](const HloComputation* c) -> absl::Status {
    int& st = state[c];
    if (st == 2) return absl::OkStatus();
    path.push_back(c->name());
    if (st == 1) {
      return Positioned(ctx, c->location(),
                        absl::StrCat("verifier: computation '", c->name(),
                                     "' calls itself (", absl::StrJoin(path, " -> "),
                                     ")"));
    }
    st = 1;
    for (HloInstruction* i : c->CallingInstructions()) {
      for (const auto& called : i->called_computations()) {
        absl::Status s = visit(called.computation);
        if (!s.ok()) return s;
      }
    }
    state[c] = 2;
    path.pop_back();
    return absl::OkStatus();
  };
  for (HloComputation* c : module.computations()) {
    absl::Status s = visit(c);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

// A written entry_computation_layout fits the entry's parameters and root.
absl::Status VerifyEntryLayout(const Context& ctx, const HloModule& module) {
  const auto& layout = module.entry_computation_layout();
  if (!layout) return absl::OkStatus();
  std::vector<HloInstruction*> params = module.entry()->parameters();
  if (layout->parameters.size() != params.size()) {
    return Fail(ctx, *module.entry(), nullptr, absl::StrCat(
        "entry_computation_layout has ", layout->parameters.size(),
        " parameters but the entry computation has ", params.size()));
  }
  for (size_t k = 0; k < params.size(); ++k) {
    if (!Shape::Equal().IgnoreLayout()(layout->parameters[k], params[k]->shape())) {
      return Fail(ctx, *module.entry(), params[k], absl::StrCat(
          "entry_computation_layout gives ", layout->parameters[k].ToString()));
    }
  }
  if (!Shape::Equal().IgnoreLayout()(layout->result, module.entry()->root()->shape())) {
    return Fail(ctx, *module.entry(), module.entry()->root(), absl::StrCat(
        "entry_computation_layout gives the result ", layout->result.ToString()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status VerifyModule(const HloModule& module,
                          const VerifierOptions& options) {
  if (module.entry() == nullptr) {
    return absl::InvalidArgumentError("verifier: the module has no entry computation");
  }
  const Context ctx{module, options};
  ModuleScan scan;
  scan.computation_names.reserve(module.computation_count());
  scan.repeated_name = RepeatedNames(module);
  for (HloComputation* c : module.computations()) scan.owned.insert(c);
  for (HloComputation* c : module.computations()) {
    absl::Status s = VerifyComputation(ctx, *c, scan);
    if (!s.ok()) return s;
  }
  absl::Status s = VerifyCallGraph(ctx, module);
  if (!s.ok()) return s;
  absl::Status aliasing = VerifyAliasing(module);
  if (!aliasing.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("verifier: ", aliasing.message()));
  }
  return VerifyEntryLayout(ctx, module);
}

namespace {
absl::Status Invalid(const std::string& message) {
  return absl::InvalidArgumentError(message);
}
}  // namespace

// A written `(a: s32[7]) -> pred[]` must be what the parameters and the root
// are (layouts aside: a pass may change those).
absl::Status VerifySignature(const HloComputation& c) {
  if (!c.has_signature()) return absl::OkStatus();
  const HloComputation::Signature& sig = *c.signature();
  const Shape::Equal same = Shape::Equal().IgnoreLayout();
  std::vector<HloInstruction*> params = c.parameters();
  auto refuse = [&](const std::string& what) {
    return Invalid(absl::StrCat("the signature of computation '", c.name(),
                                    "' does not match its body: ", what));
  };
  if (sig.parameters.size() != params.size()) {
    return refuse(absl::StrCat("it lists ", sig.parameters.size(),
                               " parameters, the body has ", params.size()));
  }
  for (size_t k = 0; k < params.size(); ++k) {
    if (params[k] == nullptr) continue;  // the verifier names the gap
    if (!same(sig.parameters[k].second, params[k]->shape())) {
      return refuse(absl::StrCat("parameter ", k, " is written ",
                                 sig.parameters[k].second.ToString(), ", but '",
                                 params[k]->name(), "' is ",
                                 params[k]->shape().ToString()));
    }
  }
  if (!same(sig.result, c.root()->shape())) {
    return refuse(absl::StrCat("the result is written ", sig.result.ToString(),
                               ", but the root '", c.root()->name(), "' is ",
                               c.root()->shape().ToString()));
  }
  return absl::OkStatus();
}

absl::Status VerifyAliasing(const HloModule& module) {
  std::vector<HloInstruction*> params = module.entry()->parameters();
  const Shape& result = module.entry()->root()->shape();
  // The parameter buffer at (number, index), or an error naming `what`.
  auto parameter_buffer = [&](int64_t n, const std::vector<int64_t>& index,
                              absl::string_view what) -> absl::StatusOr<const Shape*> {
    if (n < 0 || n >= static_cast<int64_t>(params.size()) || params[n] == nullptr) {
      return Invalid(absl::StrCat(what, " names parameter ", n, "; the entry has ",
                                      params.size()));
    }
    const Shape* s = ShapeAtIndex(params[n]->shape(), index);
    if (s == nullptr) {
      return Invalid(absl::StrCat(what, " names index {", absl::StrJoin(index, ","),
                                      "} of parameter ", n, ", which is ",
                                      params[n]->shape().ToString()));
    }
    return s;
  };
  absl::flat_hash_set<std::string> outputs, buffers;
  for (const InputOutputAlias& a : module.input_output_aliases()) {
    absl::StatusOr<const Shape*> in =
        parameter_buffer(a.parameter, a.parameter_index, "input_output_alias");
    if (!in.ok()) return in.status();
    const Shape* out = ShapeAtIndex(result, a.output_index);
    if (out == nullptr) {
      return Invalid(absl::StrCat("input_output_alias names output {",
                                                absl::StrJoin(a.output_index, ","),
                                                "} of the result ", result.ToString()));
    }
    if (!Shape::Equal().IgnoreLayout()(**in, *out)) {
      return Invalid(absl::StrCat(
          "input_output_alias makes output {", absl::StrJoin(a.output_index, ","), "} (",
          out->ToString(), ") share parameter ", a.parameter, " {",
          absl::StrJoin(a.parameter_index, ","), "} (", (*in)->ToString(), ")"));
    }
    if (!outputs.insert(absl::StrJoin(a.output_index, ",")).second) {
      return Invalid(absl::StrCat("input_output_alias names output {",
                                                absl::StrJoin(a.output_index, ","),
                                                "} twice"));
    }
    if (!buffers.insert(absl::StrCat(a.parameter, ":", absl::StrJoin(a.parameter_index, ",")))
             .second) {
      return Invalid(absl::StrCat("input_output_alias gives parameter ",
                                                a.parameter, " {",
                                                absl::StrJoin(a.parameter_index, ","),
                                                "} to two outputs"));
    }
  }
  absl::flat_hash_set<std::string> donated;
  for (const BufferDonor& d : module.buffer_donors()) {
    absl::StatusOr<const Shape*> in =
        parameter_buffer(d.parameter, d.parameter_index, "buffer_donor");
    if (!in.ok()) return in.status();
    std::string key = absl::StrCat(d.parameter, ":", absl::StrJoin(d.parameter_index, ","));
    if (buffers.contains(key) || !donated.insert(key).second) {
      return Invalid(absl::StrCat("buffer_donor names parameter ", d.parameter, " {",
                                              absl::StrJoin(d.parameter_index, ","),
                                              "}, which is already aliased or donated"));
    }
  }
  return absl::OkStatus();
}

namespace {

// The array leaves of `shape`, in order.
void ArrayLeaves(const Shape& shape, std::vector<const Shape*>& out) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) ArrayLeaves(s, out);
  } else if (shape.IsArray()) {
    out.push_back(&shape);
  }
}

// Byte sizes of array shapes by shape, for the bitcast rule: a module's
// bitcasts repeat a few shapes, and a TiledLayout allocates about 25 times
// as it is built (at 100k instructions of the chain module, 2.5M of the 3.6M
// allocations of a layout-assignment run; heaptrack). Unset where the shape
// has no TiledLayout. Past kMaxShapes distinct shapes the rest are computed
// each time, so a module of only distinct shapes costs no more memory.
class ByteSizes {
 public:
  std::optional<int64_t> Of(const Shape& shape) {
    auto it = sizes_.find(shape);
    if (it != sizes_.end()) return it->second;
    absl::StatusOr<TiledLayout> tiled = TiledLayout::Create(shape);
    std::optional<int64_t> size;
    if (tiled.ok()) size = tiled->byte_size();
    if (sizes_.size() < kMaxShapes) sizes_.emplace(shape, size);
    return size;
  }

 private:
  static constexpr size_t kMaxShapes = 1024;
  absl::flat_hash_map<Shape, std::optional<int64_t>> sizes_;
};

// Equal layouts where both are laid out (rank > 0, with layouts).
bool SameLayouts(const Shape& a, const Shape& b) {
  if (!a.IsArray() || !b.IsArray() || a.rank() == 0 || !a.has_layout() || !b.has_layout()) {
    return true;
  }
  if (a.dimensions() != b.dimensions()) {
    // Same order and tiles for ops that change sizes (all-gather, ...).
    return a.layout().minor_to_major() == b.layout().minor_to_major() &&
           a.layout().tiles() == b.layout().tiles();
  }
  return SamePhysicalLayout(a, a.layout(), b.layout());
}

absl::Status LayoutRule(const HloInstruction& i, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(
      "layout invariant: computation '", i.parent()->name(), "', instruction '", i.name(),
      "': ", what));
}

// Whether `i`'s result is a view of another value or delivered as written
// (see VerifyLayoutInvariants): it need not carry the target's tiles.
bool ExemptFromTiles(const HloInstruction& i, const HloModule& module) {
  switch (i.opcode()) {
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kTuple:
    case HloOpcode::kBitcast:
    case HloOpcode::kInfeed:
    case HloOpcode::kRecvDone:
    case HloOpcode::kCustomCall:
      return true;
    case HloOpcode::kParameter:
      return i.parent() != module.entry();
    default:
      return false;
  }
}

absl::Status VerifyRequiredTiles(const HloModule& module, const RequiresTiles& requires_tiles,
                                 const std::optional<ComputationLayout>& header) {
  const absl::flat_hash_set<const HloComputation*> fused = FusedComputations(module);
  // An output that is one buffer with a parameter the header pins untiled
  // is written untiled too (the same bytes).
  absl::flat_hash_set<const HloInstruction*> aliased_outputs;
  const HloInstruction* root = module.entry() != nullptr ? module.entry()->root() : nullptr;
  for (const InputOutputAlias& a : module.input_output_aliases()) {
    const Shape* in = header && a.parameter >= 0 &&
                              a.parameter < static_cast<int64_t>(header->parameters.size())
                          ? ShapeAtIndex(header->parameters[a.parameter], a.parameter_index)
                          : nullptr;
    if (root == nullptr || in == nullptr || !in->has_layout() || !in->layout().tiles().empty()) {
      continue;
    }
    if (a.output_index.empty()) {
      aliased_outputs.insert(root);
    } else if (a.output_index.size() == 1 && root->opcode() == HloOpcode::kTuple &&
               a.output_index[0] >= 0 && a.output_index[0] < root->operand_count()) {
      aliased_outputs.insert(root->operand(a.output_index[0]));
    }
  }
  // Reused: a vector per instruction was an allocation per instruction.
  std::vector<const Shape*> leaves, pinned;
  // The operands of bitcasts (bytes as written), by local id: a vector
  // indexed by id, not a hash set of half a million pointers, which missed
  // the cache on every probe.
  std::vector<bool> bitcast_operands;
  // One walk: an instruction that lacks tiles waits here until the walk has
  // seen every bitcast (one may read it from further on).
  // Its message is written only for the one reported.
  struct Untiled {
    const HloInstruction* instruction;
    size_t index;       // of the array leaf
    const Shape* leaf;  // inside instruction->shape()
  };
  std::vector<Untiled> untiled;
  for (HloComputation* c : module.computations()) {
    if (fused.contains(c)) continue;
    bitcast_operands.assign(c->local_id_bound(), false);
    untiled.clear();
    for (HloInstruction* i : c->instruction_range()) {
      if (i->opcode() == HloOpcode::kBitcast && i->operand_count() == 1 &&
          i->operand(0)->parent() == c) {
        bitcast_operands[i->operand(0)->local_id()] = true;
      }
      if (ExemptFromTiles(*i, module) || aliased_outputs.contains(i)) continue;
      leaves.clear();
      pinned.clear();
      ArrayLeaves(i->shape(), leaves);
      if (i->opcode() == HloOpcode::kParameter && header &&
          i->parameter_number() < static_cast<int64_t>(header->parameters.size())) {
        ArrayLeaves(header->parameters[i->parameter_number()], pinned);
      }
      for (size_t k = 0; k < leaves.size(); ++k) {
        const Shape& leaf = *leaves[k];
        if (leaf.rank() == 0 || !leaf.has_layout() || !leaf.layout().tiles().empty() ||
            !requires_tiles(leaf)) {
          continue;
        }
        if (k < pinned.size() && pinned[k]->has_layout() && pinned[k]->layout().tiles().empty()) {
          continue;  // the header pins it untiled: copied where it is used
        }
        untiled.push_back({i, k, &leaf});
        break;
      }
    }
    for (const Untiled& u : untiled) {
      if (bitcast_operands[u.instruction->local_id()]) continue;
      return LayoutRule(*u.instruction, absl::StrCat("array ", u.index, " is ", u.leaf->ToString(),
                                                     ", without the tiles the target requires"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

namespace {

// A bitcast of one array is the same bytes as its operand.
absl::Status CheckBitcastBytes(const HloInstruction& i, ByteSizes& byte_sizes) {
  if (i.operand_count() != 1) return absl::OkStatus();
  const Shape& in = i.operand(0)->shape();
  if (!in.IsArray() || !i.shape().IsArray()) return absl::OkStatus();
  const std::optional<int64_t> a = byte_sizes.Of(in);
  const std::optional<int64_t> b = byte_sizes.Of(i.shape());
  if (a && b && *a != *b) {
    return LayoutRule(i, absl::StrCat("bitcast of ", in.ToString(), " is not the same bytes as ",
                                      i.shape().ToString()));
  }
  return absl::OkStatus();
}

// The relations between layouts (everything but the required tiles).
absl::Status VerifyLayoutRelations(const HloModule& module) {
  ByteSizes byte_sizes;
  std::vector<const Shape*> results;
  for (HloComputation* c : module.computations()) {
    for (HloInstruction* i : c->instruction_range()) {
      const HloOpcode op = i->opcode();
      if (ForwardsLayout(op)) {
        results.clear();
        ArrayLeaves(i->shape(), results);
        // The in-place collective-permute's result is its output buffer.
        const int first = IsInPlaceCollectivePermute(*i) ? 1 : 0;
        for (int k = 0; k + first < i->operand_count() && k < static_cast<int>(results.size());
             ++k) {
          const Shape& in = i->operand(k + first)->shape();
          if (!SameLayouts(*results[k], in)) {
            return LayoutRule(*i, absl::StrCat(HloOpcodeString(op), " result ", k, " is ",
                                               results[k]->ToString(), " but operand ",
                                               k + first, " is ", in.ToString()));
          }
        }
      }
      switch (op) {
        case HloOpcode::kBitcast:
          if (absl::Status s = CheckBitcastBytes(*i, byte_sizes); !s.ok()) return s;
          break;
        case HloOpcode::kTuple: {
          for (int k = 0; k < i->operand_count() &&
                          k < static_cast<int>(i->shape().tuple_shapes().size());
               ++k) {
            std::vector<const Shape*> want, have;
            ArrayLeaves(i->shape().tuple_shapes()[k], want);
            ArrayLeaves(i->operand(k)->shape(), have);
            for (size_t l = 0; l < want.size() && l < have.size(); ++l) {
              if (!SameLayouts(*want[l], *have[l])) {
                return LayoutRule(*i, absl::StrCat("tuple element ", k, " is ",
                                                   want[l]->ToString(), " but its operand is ",
                                                   have[l]->ToString()));
              }
            }
          }
          break;
        }
        case HloOpcode::kSend:
          if (i->operand_count() >= 1 && i->shape().IsTuple() &&
              !i->shape().tuple_shapes().empty() &&
              !SameLayouts(i->shape().tuple_shapes()[0], i->operand(0)->shape())) {
            return LayoutRule(*i, "a send's data layout differs from its operand's");
          }
          break;
        case HloOpcode::kRecvDone:
          if (i->operand_count() == 1 && i->shape().IsTuple() &&
              i->operand(0)->shape().IsTuple() && !i->shape().tuple_shapes().empty() &&
              !i->operand(0)->shape().tuple_shapes().empty() &&
              !SameLayouts(i->shape().tuple_shapes()[0], i->operand(0)->shape().tuple_shapes()[0])) {
            return LayoutRule(*i, "a recv-done's data layout differs from its recv's");
          }
          break;
        default:
          break;
      }
      for (const OutputOperandAlias& a : i->attributes().rare().output_to_operand_aliasing.value_or(
               std::vector<OutputOperandAlias>{})) {
        if (a.operand < 0 || a.operand >= i->operand_count()) continue;
        const Shape* out = ShapeAtIndex(i->shape(), a.output_index);
        const Shape* in = ShapeAtIndex(i->operand(a.operand)->shape(), a.operand_index);
        if (out != nullptr && in != nullptr && !SameLayouts(*out, *in)) {
          return LayoutRule(*i, absl::StrCat("output {", absl::StrJoin(a.output_index, ","),
                                             "} aliases operand ", a.operand, " but is laid out ",
                                             out->ToString(), " against ", in->ToString()));
        }
      }
    }
  }
  if (module.entry() != nullptr) {
    std::vector<HloInstruction*> params = module.entry()->parameters();
    for (const InputOutputAlias& a : module.input_output_aliases()) {
      if (a.parameter < 0 || a.parameter >= static_cast<int64_t>(params.size()) ||
          params[a.parameter] == nullptr) {
        continue;
      }
      const Shape* out = ShapeAtIndex(module.entry()->root()->shape(), a.output_index);
      const Shape* in = ShapeAtIndex(params[a.parameter]->shape(), a.parameter_index);
      if (out != nullptr && in != nullptr && !SameLayouts(*out, *in)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "layout invariant: input_output_alias: output {", absl::StrJoin(a.output_index, ","),
            "} is laid out ", out->ToString(), " but parameter ", a.parameter, " {",
            absl::StrJoin(a.parameter_index, ","), "} ", in->ToString()));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status VerifyLayoutInvariants(const HloModule& module, const RequiresTiles& requires_tiles,
                                    const std::optional<ComputationLayout>* pinned_entry) {
  absl::Status status = VerifyLayoutRelations(module);
  if (!status.ok() || !requires_tiles) return status;
  return VerifyRequiredTiles(module, requires_tiles,
                             pinned_entry != nullptr ? *pinned_entry
                                                     : module.entry_computation_layout());
}

}  // namespace xla_layout
