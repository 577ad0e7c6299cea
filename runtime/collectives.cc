#include "runtime/collectives.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/collective_groups.h"
#include "runtime/element.h"
#include "runtime/ops_util.h"
#include "xla_layout/primitive_type.h"

namespace xla_layout::runtime {
namespace {

using collectives_internal::CheckIds;
using collectives_internal::GroupMode;
using collectives_internal::Groups;
using collectives_internal::Invalid;
using collectives_internal::IsGather;
using collectives_internal::IsPermute;
using collectives_internal::IsReduction;
using collectives_internal::kMaxId;
using collectives_internal::ModeOf;
using collectives_internal::ReplicaGroups;
using collectives_internal::Unsupported;

// --- Values --------------------------------------------------------------------

void FlattenLeaves(const Value& v, std::vector<const Value*>& out) {
  if (v.is_array()) {
    out.push_back(&v);
    return;
  }
  for (const Value& e : v.elements) FlattenLeaves(e, out);
}

int64_t LeafCount(const Shape& shape) {
  if (!shape.IsTuple()) return 1;
  int64_t n = 0;
  for (const Shape& s : shape.tuple_shapes()) n += LeafCount(s);
  return n;
}

// The leaves in `shape`'s tuple structure.
Value Nest(const Shape& shape, std::vector<Value>& leaves, size_t& next) {
  if (!shape.IsTuple()) return std::move(leaves[next++]);
  std::vector<Value> elements;
  for (const Shape& s : shape.tuple_shapes()) elements.push_back(Nest(s, leaves, next));
  return Value::Tuple(std::move(elements));
}

std::string Describe(PrimitiveType type, absl::Span<const int64_t> dims) {
  return absl::StrCat(PrimitiveTypeName(type), "[", absl::StrJoin(dims, ","), "]");
}

// That `info` holds `type` with `dims`.
absl::Status Expect(const HloInstruction& i, absl::string_view what, const ArrayInfo& info,
                    PrimitiveType type, absl::Span<const int64_t> dims) {
  if (info.type() == type && info.dims() == dims) return absl::OkStatus();
  return Invalid(i, absl::StrCat(what, " is ", Describe(info.type(), info.dims()), ", not ",
                                 Describe(type, dims)));
}

// `from`'s elements, bit for bit, in `to`'s layout.
absl::StatusOr<Value> CopyInto(const HloInstruction& i, const Value& from, const Info& to) {
  absl::Status s = Expect(i, "a result", *to, from.info->type(), from.info->dims());
  if (!s.ok()) return s;
  return Generate<true>(to, [&](const IndexVector& index) { return BitsAt(from, index); });
}

// --- The collectives other than collective-permute -------------------------------

struct Participants {
  const HloInstruction& i;
  absl::Span<const std::vector<const Value*>> values;
  int64_t rank;
  const ScalarProgram* to_apply;

  int64_t size() const { return static_cast<int64_t>(values.size()); }
  const Value& at(int64_t r, int k) const { return *values[r][k]; }
  // Every rank's operand k has rank 0's type and dims.
  absl::Status SameOperands(int k) const {
    const ArrayInfo& first = *at(0, k).info;
    for (int64_t r = 1; r < size(); ++r) {
      absl::Status s = Expect(i, absl::StrCat("operand ", k, " of rank ", r), *at(r, k).info,
                              first.type(), first.dims());
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }
  // ((x0 op x1) op x2)... of operand k at `index`.
  Num Reduce(int k, absl::Span<const int64_t> index) const {
    Num acc = At(at(0, k), index);
    Num args[2];
    for (int64_t r = 1; r < size(); ++r) {
      args[0] = acc;
      args[1] = At(at(r, k), index);
      to_apply->Run(args, absl::MakeSpan(&acc, 1));
    }
    return acc;
  }
};

using Leaves = std::vector<Value>;

absl::Status NeedResults(const HloInstruction& i, absl::Span<const Info> out, size_t n) {
  if (out.size() == n) return absl::OkStatus();
  return Invalid(i, absl::StrCat("has ", n, " array results but ", out.size(),
                                 " result layouts were given"));
}

// all-reduce, reduce-scatter and all-gather (and their -start forms):
// operand by operand.
absl::StatusOr<Leaves> Combine(const Participants& p, absl::Span<const Info> out) {
  const HloInstruction& i = p.i;
  const HloOpcode op = i.opcode();
  absl::Status s = NeedResults(i, out, i.operand_count());
  if (s.ok() && p.size() > 1 && IsReduction(op) && p.to_apply == nullptr) {
    s = Invalid(i, "the reduction was not given its compiled to_apply");
  }
  if (!s.ok()) return s;
  const int64_t n = p.size();
  const std::vector<int64_t> dimensions = Attr(i.attributes().dimensions);
  const int64_t d = dimensions.empty() ? 0 : dimensions[0];
  Leaves leaves;
  for (int k = 0; k < i.operand_count(); ++k) {
    if (!(s = p.SameOperands(k)).ok()) return s;
    const ArrayInfo& in = *p.at(0, k).info;
    std::vector<int64_t> dims(in.dims().begin(), in.dims().end());
    const bool scalar = in.rank() == 0 && op != HloOpcode::kAllReduce &&
                        op != HloOpcode::kAllReduceStart;
    if (scalar && n > 1) {
      return Invalid(i, absl::StrCat("operand ", k, " is a scalar, which cannot be ",
                                     IsGather(op) ? "gathered" : "scattered", " over ", n,
                                     " devices"));
    }
    if (!IsReduction(op) || op == HloOpcode::kReduceScatter) {
      if (!scalar && (d < 0 || d >= in.rank())) {
        return Invalid(i, absl::StrCat("dimension ", d, " is not a dim of operand ", k));
      }
    }
    if (!scalar && IsGather(op)) dims[d] *= n;
    if (!scalar && op == HloOpcode::kReduceScatter) {
      if (dims[d] % n != 0) {
        return Invalid(i, absl::StrCat("operand ", k, "'s dim ", d, " of ", dims[d],
                                       " does not split into ", n, " equal blocks"));
      }
      dims[d] /= n;
    }
    if (!(s = Expect(i, absl::StrCat("result ", k), *out[k], in.type(), dims)).ok()) return s;
    absl::StatusOr<Value> v;
    IndexVector from;
    if (n == 1) {
      v = CopyInto(i, p.at(0, k), out[k]);
    } else if (IsGather(op)) {
      const int64_t block = in.dims()[d];
      v = Generate<true>(out[k], [&](const IndexVector& index) {
        from = index;
        from[d] = index[d] % block;
        return BitsAt(p.at(index[d] / block, k), from);
      });
    } else if (op == HloOpcode::kReduceScatter) {
      const int64_t offset = p.rank * dims[d];
      v = Generate<false>(out[k], [&](const IndexVector& index) {
        from = index;
        from[d] += offset;
        return p.Reduce(k, from);
      });
    } else {
      v = Generate<false>(out[k], [&](const IndexVector& index) { return p.Reduce(k, index); });
    }
    if (!v.ok()) return v.status();
    leaves.push_back(*std::move(v));
  }
  return leaves;
}

absl::StatusOr<Leaves> AllToAll(const Participants& p, absl::Span<const Info> out) {
  const HloInstruction& i = p.i;
  const int64_t n = p.size();
  Leaves leaves;
  if (!i.attributes().dimensions.has_value()) {
    // The tuple form: operand j goes to rank j.
    if (i.operand_count() != n) {
      return Invalid(i, absl::StrCat("has ", i.operand_count(), " operands for a group of ", n,
                                     " devices; the tuple form needs one per device"));
    }
    absl::Status s = NeedResults(i, out, n);
    if (!s.ok()) return s;
    for (int64_t j = 0; j < n; ++j) {
      absl::StatusOr<Value> v = CopyInto(i, p.at(j, static_cast<int>(p.rank)), out[j]);
      if (!v.ok()) return v.status();
      leaves.push_back(*std::move(v));
    }
    return leaves;
  }
  absl::Status s = NeedResults(i, out, i.operand_count());
  if (!s.ok()) return s;
  const int64_t d = i.attributes().dimensions->at(0);
  for (int k = 0; k < i.operand_count(); ++k) {
    if (!(s = p.SameOperands(k)).ok()) return s;
    const ArrayInfo& in = *p.at(0, k).info;
    if (d < 0 || d >= in.rank()) {
      return Invalid(i, absl::StrCat("dimension ", d, " is not a dim of operand ", k));
    }
    if (in.dims()[d] % n != 0) {
      return Invalid(i, absl::StrCat("operand ", k, "'s dim ", d, " of ", in.dims()[d],
                                     " does not split into ", n, " equal blocks"));
    }
    if (!(s = Expect(i, absl::StrCat("result ", k), *out[k], in.type(), in.dims())).ok()) {
      return s;
    }
    const int64_t block = in.dims()[d] / n;
    IndexVector from;
    absl::StatusOr<Value> v = Generate<true>(out[k], [&](const IndexVector& index) {
      from = index;
      from[d] = p.rank * block + index[d] % block;
      return BitsAt(p.at(index[d] / block, k), from);
    });
    if (!v.ok()) return v.status();
    leaves.push_back(*std::move(v));
  }
  return leaves;
}

absl::StatusOr<Leaves> Broadcast(const Participants& p, absl::Span<const Info> out) {
  absl::Status s = NeedResults(p.i, out, p.i.operand_count());
  if (!s.ok()) return s;
  Leaves leaves;
  for (int k = 0; k < p.i.operand_count(); ++k) {
    absl::StatusOr<Value> v = CopyInto(p.i, p.at(0, k), out[k]);
    if (!v.ok()) return v.status();
    leaves.push_back(*std::move(v));
  }
  return leaves;
}

absl::Status CheckParticipants(const HloInstruction& i,
                               absl::Span<const std::vector<const Value*>> participants,
                               int64_t rank) {
  const int64_t n = static_cast<int64_t>(participants.size());
  if (n < 1 || rank < 0 || rank >= n) {
    return Invalid(i, absl::StrCat("rank ", rank, " in a group of ", n, " devices"));
  }
  for (int64_t r = 0; r < n; ++r) {
    if (static_cast<int>(participants[r].size()) != i.operand_count()) {
      return Invalid(i, absl::StrCat("rank ", r, " gave ", participants[r].size(),
                                     " operands, not ", i.operand_count()));
    }
    for (const Value* v : participants[r]) {
      if (v == nullptr || !v->is_array()) {
        return Invalid(i, absl::StrCat("rank ", r, " gave an operand that is not an array"));
      }
    }
  }
  return absl::OkStatus();
}

// --- collective-permute ----------------------------------------------------------

// One buffer of an in-place collective-permute: a slice of `sizes` moves
// from the input at the input offsets to the output at the output offsets.
struct Slab {
  const Value* input = nullptr;
  const Value* output = nullptr;
  const Value* input_offsets = nullptr;
  const Value* output_offsets = nullptr;
  const std::vector<int64_t>* sizes = nullptr;
};

// The slabs of the in-place form's operands (input, output, input offsets,
// output offsets), array by array or tuple element by tuple element.
absl::StatusOr<std::vector<Slab>> Slabs(const HloInstruction& i,
                                        const std::vector<const Value*>& ops) {
  const std::vector<std::vector<int64_t>>& sizes = *i.attributes().rare().slice_sizes_list;
  std::vector<Slab> slabs;
  if (ops[0]->is_array()) {
    slabs.push_back({ops[0], ops[1], ops[2], ops[3], &sizes[0]});
    return slabs;
  }
  const size_t buffers = ops[0]->elements.size();
  for (int k = 1; k < 4; ++k) {
    if (ops[k]->is_array() || ops[k]->elements.size() != buffers) {
      return Invalid(i, "the in-place operands do not hold one element per buffer");
    }
  }
  for (size_t b = 0; b < buffers; ++b) {
    slabs.push_back({&ops[0]->elements[b], &ops[1]->elements[b], &ops[2]->elements[b],
                     &ops[3]->elements[b], &sizes[b]});
  }
  for (const Slab& s : slabs) {
    if (!s.input->is_array() || !s.output->is_array()) {
      return Invalid(i, "an in-place buffer is not an array");
    }
  }
  return slabs;
}

std::vector<int64_t> Offsets(const Value& tuple) {
  std::vector<int64_t> at;
  for (const Value& e : tuple.elements) at.push_back(At(e, {}).i);
  return at;
}

// Copies the slice of `sizes` at `from_at` in `from` to `to_at` in `to`.
absl::Status WriteSlice(const HloInstruction& i, const Value& from,
                        absl::Span<const int64_t> from_at, Value& to,
                        absl::Span<const int64_t> to_at, absl::Span<const int64_t> sizes) {
  const ArrayInfo& a = *from.info;
  const ArrayInfo& b = *to.info;
  bool fits = from_at.size() == sizes.size() && to_at.size() == sizes.size() &&
              a.rank() == static_cast<int>(sizes.size()) &&
              b.rank() == static_cast<int>(sizes.size());
  for (size_t d = 0; fits && d < sizes.size(); ++d) {
    fits = from_at[d] >= 0 && to_at[d] >= 0 && sizes[d] >= 0 &&
           from_at[d] <= a.dims()[d] - sizes[d] && to_at[d] <= b.dims()[d] - sizes[d];
  }
  if (!fits) {
    return Invalid(i, absl::StrCat("the slice of [", absl::StrJoin(sizes, ","), "] from [",
                                   absl::StrJoin(from_at, ","), "] of ",
                                   Describe(a.type(), a.dims()), " to [",
                                   absl::StrJoin(to_at, ","), "] of ",
                                   Describe(b.type(), b.dims()), " is out of bounds"));
  }
  IndexVector x(sizes.size()), y(sizes.size());
  ForEachIndex(sizes, [&](const IndexVector& index) {
    for (size_t d = 0; d < sizes.size(); ++d) {
      x[d] = from_at[d] + index[d];
      y[d] = to_at[d] + index[d];
    }
    b.StoreBits(to.mutable_data(), b.Slot(y), a.LoadBits(from.data(), a.Slot(x)));
  });
  return absl::OkStatus();
}

// The permuted values, one per result leaf of the plain permute.
absl::StatusOr<Leaves> Permuted(const HloInstruction& i, const std::vector<const Value*>* source,
                                const std::vector<const Value*>& own,
                                absl::Span<const Info> out) {
  Leaves leaves;
  if (!IsInPlaceCollectivePermute(i)) {
    absl::Status s = NeedResults(i, out, own.size());
    if (!s.ok()) return s;
    for (size_t k = 0; k < own.size(); ++k) {
      const Value& from = source != nullptr ? *(*source)[k] : *own[k];
      if (!from.is_array()) return Invalid(i, "an operand is not an array");
      if (source == nullptr) {
        s = Expect(i, "a result", *out[k], from.info->type(), from.info->dims());
        if (!s.ok()) return s;
      }
      absl::StatusOr<Value> v =
          source != nullptr ? CopyInto(i, from, out[k]) : Value::Allocate(out[k]);
      if (!v.ok()) return v.status();
      leaves.push_back(*std::move(v));
    }
    return leaves;
  }
  absl::StatusOr<std::vector<Slab>> mine = Slabs(i, own);
  if (!mine.ok()) return mine.status();
  absl::StatusOr<std::vector<Slab>> theirs =
      source != nullptr ? Slabs(i, *source) : std::vector<Slab>{};
  if (!theirs.ok()) return theirs.status();
  absl::Status s = NeedResults(i, out, mine->size());
  if (!s.ok()) return s;
  for (size_t b = 0; b < mine->size(); ++b) {
    absl::StatusOr<Value> v = CopyInto(i, *(*mine)[b].output, out[b]);
    if (!v.ok()) return v.status();
    if (source != nullptr) {
      const Slab& from = (*theirs)[b];
      s = WriteSlice(i, *from.input, Offsets(*from.input_offsets), *v,
                     Offsets(*(*mine)[b].output_offsets), *from.sizes);
      if (!s.ok()) return s;
    }
    leaves.push_back(*std::move(v));
  }
  return leaves;
}

// --- Load-time checks ----------------------------------------------------------------

absl::Status CheckReduction(const HloInstruction& i) {
  const HloComputation* f = i.called_computation("to_apply");
  if (f == nullptr) return Invalid(i, "needs a to_apply computation");
  const PrimitiveType type = i.operand(0)->shape().element_type();
  for (const HloInstruction* o : i.operands()) {
    if (o->shape().element_type() != type) {
      return Unsupported(i, absl::StrCat("operands of ", PrimitiveTypeName(type), " and ",
                                         PrimitiveTypeName(o->shape().element_type()),
                                         " cannot share one to_apply"));
    }
  }
  const std::vector<HloInstruction*> params = f->parameters();
  auto is_scalar = [&](const HloInstruction* x) {
    return x != nullptr && x->shape().IsArray() && x->shape().rank() == 0 &&
           x->shape().element_type() == type;
  };
  if (params.size() != 2 || !is_scalar(params[0]) || !is_scalar(params[1]) ||
      !is_scalar(f->root())) {
    return Invalid(i, absl::StrCat("to_apply ", f->name(), " must take two ",
                                   PrimitiveTypeName(type), "[] and return one"));
  }
  return absl::OkStatus();
}

// all-gather, reduce-scatter and all-to-all's dimensions={d}.
absl::Status CheckDimension(const HloInstruction& i) {
  const HloOpcode op = i.opcode();
  const auto& dims = i.attributes().dimensions;
  if (op == HloOpcode::kAllToAll && !dims.has_value()) {
    if (LeafCount(i.shape()) != i.operand_count()) {
      return Invalid(i, "the tuple form of all-to-all has one result per operand");
    }
    return absl::OkStatus();
  }
  if (!dims.has_value() || dims->size() != 1) return Invalid(i, "needs dimensions={d}");
  for (const HloInstruction* o : i.operands()) {
    const int rank = o->shape().rank();
    // Torch-XLA's scalar operands of variadic all-gather and reduce-scatter.
    if (rank == 0 && op != HloOpcode::kAllToAll) continue;
    if ((*dims)[0] < 0 || (*dims)[0] >= rank) {
      return Invalid(i, absl::StrCat("dimension ", (*dims)[0], " is not a dim of ",
                                     o->shape().ToString()));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckLeafTypes(const HloInstruction& i, const Shape& shape) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) {
      absl::Status st = CheckLeafTypes(i, s);
      if (!st.ok()) return st;
    }
    return absl::OkStatus();
  }
  if (!shape.IsArray()) return Unsupported(i, absl::StrCat("a ", shape.ToString(), " value"));
  absl::Status st = CheckSupportedType(shape.element_type());
  return st.ok() ? st : Unsupported(i, st.message());
}

// An in-place permute's buffers are arrays or tuples of arrays; its offsets
// one tuple of integer scalars per buffer, with one slice_sizes list each.
absl::Status CheckInPlace(const HloInstruction& i) {
  const Shape& in = i.operand(0)->shape();
  const Shape& out = i.operand(1)->shape();
  const std::vector<std::vector<int64_t>>& sizes = *i.attributes().rare().slice_sizes_list;
  const size_t buffers = in.IsTuple() ? in.tuple_shapes().size() : 1;
  const absl::Status refuse = Unsupported(
      i, "the executor runs in-place collective-permutes with one tuple of integer offsets and "
         "one slice_sizes list per buffer");
  if (in.IsTuple() != out.IsTuple() || LeafCount(out) != static_cast<int64_t>(buffers) ||
      sizes.size() != buffers) {
    return refuse;
  }
  for (size_t b = 0; b < buffers; ++b) {
    const Shape& from = in.IsTuple() ? in.tuple_shapes()[b] : in;
    const Shape& to = out.IsTuple() ? out.tuple_shapes()[b] : out;
    if (!from.IsArray() || !to.IsArray() || from.rank() != to.rank() ||
        from.element_type() != to.element_type() ||
        static_cast<int>(sizes[b].size()) != from.rank()) {
      return refuse;
    }
    for (int k : {2, 3}) {
      const Shape* o = &i.operand(k)->shape();
      if (in.IsTuple()) {
        if (!o->IsTuple() || o->tuple_shapes().size() != buffers) return refuse;
        o = &o->tuple_shapes()[b];
      }
      if (!o->IsTuple() || static_cast<int>(o->tuple_shapes().size()) != from.rank()) {
        return refuse;
      }
      for (const Shape& e : o->tuple_shapes()) {
        if (!e.IsArray() || e.rank() != 0 || (DomainOf(e.element_type()) != Domain::kSigned &&
                                              DomainOf(e.element_type()) != Domain::kUnsigned)) {
          return refuse;
        }
      }
    }
  }
  return absl::OkStatus();
}

absl::Status CheckPermute(const HloInstruction& i) {
  const auto& pairs = i.attributes().rare().source_target_pairs;
  if (!pairs.has_value()) return Invalid(i, "needs source_target_pairs");
  const bool in_place = IsInPlaceCollectivePermute(i);
  absl::flat_hash_set<int64_t> sources, targets;
  for (const std::vector<int64_t>& pair : *pairs) {
    for (int64_t id : pair) {
      if (id < 0 || id > kMaxId) return Invalid(i, absl::StrCat("source_target_pairs name ", id));
    }
    if (!targets.insert(pair[1]).second) {
      return Invalid(i, absl::StrCat(pair[1], " is the target of two source_target_pairs"));
    }
    // XLA lets a source send several times only in the in-place form.
    if (!sources.insert(pair[0]).second && !in_place) {
      return Invalid(i, absl::StrCat(pair[0], " is the source of two source_target_pairs"));
    }
  }
  if (in_place) return CheckInPlace(i);
  if (i.attributes().rare().slice_sizes_list.has_value()) {
    return Unsupported(i, "slice_sizes without the in-place form's four operands");
  }
  for (const HloInstruction* o : i.operands()) {
    if (!o->shape().IsArray()) return Unsupported(i, "a tuple operand");
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckCollective(const HloInstruction& i) {
  const HloOpcode op = i.opcode();
  if (!IsCollective(op)) return Invalid(i, "is not a collective the executor runs");
  if (i.operand_count() < 1) return Invalid(i, "needs an operand");
  absl::Status s = CheckLeafTypes(i, i.shape());
  for (const HloInstruction* o : i.operands()) {
    if (s.ok()) s = CheckLeafTypes(i, o->shape());
  }
  if (!s.ok()) return s;
  if (IsPermute(op)) return CheckPermute(i);
  for (const HloInstruction* o : i.operands()) {
    if (!o->shape().IsArray()) return Unsupported(i, "a tuple operand");
  }
  absl::StatusOr<GroupMode> mode = ModeOf(i);
  if (!mode.ok()) return mode.status();
  absl::StatusOr<Groups> groups = ReplicaGroups(i);
  if (!groups.ok()) return groups.status();
  if (*mode == GroupMode::kFlattenedId && groups->empty()) {
    return Invalid(i, "use_global_device_ids=true needs replica_groups");
  }
  if (!(s = CheckIds(i, *groups, -1, "id")).ok()) return s;
  const int64_t results = LeafCount(i.shape());
  const int64_t expected = (op == HloOpcode::kAllGatherStart ? 2 : 1) * i.operand_count();
  if (results != expected) {
    return Invalid(i, absl::StrCat("has ", results, " array results for ", i.operand_count(),
                                   " operands"));
  }
  if (IsReduction(op) && !(s = CheckReduction(i)).ok()) return s;
  if (IsGather(op) || op == HloOpcode::kReduceScatter || op == HloOpcode::kAllToAll) {
    return CheckDimension(i);
  }
  return absl::OkStatus();
}

absl::StatusOr<Value> CollectiveResult(const HloInstruction& i,
                                       absl::Span<const std::vector<const Value*>> participants,
                                       int64_t rank, absl::Span<const Info> out,
                                       const ScalarProgram* to_apply) {
  const HloOpcode op = i.opcode();
  if (!IsCollective(op) || IsPermute(op)) {
    return Invalid(i, "CollectiveResult runs the collectives but collective-permute");
  }
  absl::Status s = CheckParticipants(i, participants, rank);
  if (!s.ok()) return s;
  if (static_cast<int64_t>(out.size()) != LeafCount(i.shape())) {
    return NeedResults(i, out, LeafCount(i.shape()));
  }
  const Participants p{i, participants, rank, to_apply};
  Leaves leaves;
  // all-gather-start's element 0: its operands, as the start holds them.
  const size_t lead = op == HloOpcode::kAllGatherStart ? i.operand_count() : 0;
  for (size_t k = 0; k < lead && k < out.size(); ++k) {
    absl::StatusOr<Value> v = CopyInto(i, p.at(rank, static_cast<int>(k)), out[k]);
    if (!v.ok()) return v.status();
    leaves.push_back(*std::move(v));
  }
  const absl::Span<const Info> rest = out.subspan(std::min(lead, out.size()));
  absl::StatusOr<Leaves> result = op == HloOpcode::kAllToAll ? AllToAll(p, rest)
                                  : op == HloOpcode::kCollectiveBroadcast ? Broadcast(p, rest)
                                                                          : Combine(p, rest);
  if (!result.ok()) return result.status();
  for (Value& v : *result) leaves.push_back(std::move(v));
  size_t next = 0;
  return Nest(i.shape(), leaves, next);
}

absl::StatusOr<Value> CollectivePermuteResult(const HloInstruction& i,
                                              const std::vector<const Value*>* source,
                                              const std::vector<const Value*>& own,
                                              absl::Span<const Info> out) {
  if (!IsPermute(i.opcode())) return Invalid(i, "is not a collective-permute");
  for (const std::vector<const Value*>* ops : {source, &own}) {
    if (ops == nullptr) continue;
    if (static_cast<int>(ops->size()) != i.operand_count() ||
        std::find(ops->begin(), ops->end(), nullptr) != ops->end()) {
      return Invalid(i, absl::StrCat("was given ", ops->size(), " operands, not ",
                                     i.operand_count()));
    }
  }
  const Shape& shape = i.shape();
  if (static_cast<int64_t>(out.size()) != LeafCount(shape)) {
    return NeedResults(i, out, LeafCount(shape));
  }
  const bool start = i.opcode() == HloOpcode::kCollectivePermuteStart;
  if (start && (!shape.IsTuple() || shape.tuple_shapes().size() < 2)) {
    return Invalid(i, "collective-permute-start returns (input, output, context...)");
  }
  Leaves leaves;
  // The start's element 0 holds its input operand(s); contexts after
  // element 1 are zeros.
  const size_t lead = start ? LeafCount(shape.tuple_shapes()[0]) : 0;
  const size_t core = start ? LeafCount(shape.tuple_shapes()[1]) : out.size();
  std::vector<const Value*> inputs;
  for (const Value* v : own) FlattenLeaves(*v, inputs);
  if (inputs.size() < lead) return Invalid(i, "element 0 does not hold the operands");
  for (size_t k = 0; k < lead; ++k) {
    absl::StatusOr<Value> v = CopyInto(i, *inputs[k], out[k]);
    if (!v.ok()) return v.status();
    leaves.push_back(*std::move(v));
  }
  absl::StatusOr<Leaves> permuted = Permuted(i, source, own, out.subspan(lead, core));
  if (!permuted.ok()) return permuted.status();
  for (Value& v : *permuted) leaves.push_back(std::move(v));
  for (size_t k = lead + core; k < out.size(); ++k) {
    absl::StatusOr<Value> v = Value::Allocate(out[k]);
    if (!v.ok()) return v.status();
    leaves.push_back(*std::move(v));
  }
  size_t next = 0;
  return Nest(shape, leaves, next);
}

}  // namespace xla_layout::runtime
