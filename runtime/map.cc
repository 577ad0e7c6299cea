#include "runtime/map.h"

#include <vector>

#include "absl/strings/str_cat.h"

namespace xla_layout::runtime {

absl::Status CheckMap(const HloInstruction& inst) {
  std::vector<PrimitiveType> types;
  for (const HloInstruction* o : inst.operands()) {
    if (!o->shape().IsArray() || !inst.shape().IsArray() ||
        o->shape().dimensions() != inst.shape().dimensions()) {
      return OpError(inst, "the operands of a map have the result's dims");
    }
    types.push_back(o->shape().element_type());
  }
  return CheckScalarComputation(inst, "to_apply", inst.operand_count(), types, 1,
                                inst.shape().element_type());
}

absl::StatusOr<Value> Map(absl::Span<const Value* const> ops, const Info& out,
                          const ScalarProgram& to_apply) {
  std::vector<Num> args(ops.size());
  Num result;
  return Generate<false>(out, [&](const IndexVector& index) {
    for (size_t k = 0; k < ops.size(); ++k) args[k] = At(*ops[k], index);
    to_apply.Run(args, absl::MakeSpan(&result, 1));
    return result;
  });
}

absl::Status CheckDynamicReshape(const HloInstruction& inst) {
  const Shape& out = inst.shape();
  if (inst.operand_count() < 1 || !inst.operand(0)->shape().IsArray() || !out.IsArray()) {
    return OpError(inst, "dynamic-reshape takes an array and its sizes");
  }
  for (int d = 0; d < out.rank(); ++d) {
    if (out.is_dynamic_dimension(d)) {
      return OpError(inst, absl::StrCat("result dim ", d,
                                        " is dynamic; the executor runs only a "
                                        "dynamic-reshape whose result sizes are static"));
    }
  }
  if (inst.operand_count() != out.rank() + 1) {
    return OpError(
        inst, absl::StrCat("a rank-", out.rank(), " result needs ", out.rank(), " size operands"));
  }
  for (int k = 1; k < inst.operand_count(); ++k) {
    const Shape& s = inst.operand(k)->shape();
    const Domain d = s.IsArray() ? DomainOf(s.element_type()) : Domain::kFloat;
    if (!s.IsArray() || s.rank() != 0 || (d != Domain::kSigned && d != Domain::kUnsigned)) {
      return OpError(inst, "the sizes of a dynamic-reshape are integer scalars");
    }
  }
  absl::StatusOr<int64_t> a = inst.operand(0)->shape().ElementCount(), b = out.ElementCount();
  if (!a.ok() || !b.ok() || *a != *b ||
      inst.operand(0)->shape().element_type() != out.element_type()) {
    return OpError(inst, "the operand and the result differ in element count or type");
  }
  return absl::OkStatus();
}

absl::StatusOr<Value> DynamicReshape(const HloInstruction& inst, absl::Span<const Value* const> ops,
                                     const Info& out) {
  for (int d = 0; d < out->rank(); ++d) {
    const Value& size = *ops[d + 1];
    const int64_t n = size.info->Load(size.data(), size.info->Slot({})).i;
    if (n != out->dims()[d]) {
      return absl::InvalidArgumentError(absl::StrCat(inst.name(), " (dynamic-reshape): size ", n,
                                                     " for dim ", d, " of the static result ",
                                                     out->shape().ToString()));
    }
  }
  // Both sides in row-major order walk the same element sequence.
  const Value& a = *ops[0];
  absl::Span<const int64_t> in_dims = a.info->dims();
  IndexVector from(in_dims.size(), 0);
  return Generate<true>(out, [&](const IndexVector&) {
    const uint64_t bits = BitsAt(a, from);
    for (int d = static_cast<int>(in_dims.size()) - 1; d >= 0; --d) {
      if (++from[d] < in_dims[d]) break;
      from[d] = 0;
    }
    return bits;
  });
}

absl::Status CheckGetDimensionSize(const HloInstruction& inst) {
  const std::vector<int64_t> dims = Attr(inst.attributes().dimensions);
  const Shape& in = inst.operand_count() == 1 ? inst.operand(0)->shape() : inst.shape();
  if (inst.operand_count() != 1 || !in.IsArray() || dims.size() != 1 || dims[0] < 0 ||
      dims[0] >= in.rank()) {
    return OpError(inst,
                   "get-dimension-size takes an array and dimensions={d} naming one of its dims");
  }
  if (in.is_dynamic_dimension(static_cast<int>(dims[0]))) {
    return OpError(inst, absl::StrCat("dim ", dims[0], " of ", in.ToString(),
                                      " is dynamic; the executor keeps no runtime sizes"));
  }
  const Domain d = inst.shape().IsArray() ? DomainOf(inst.shape().element_type()) : Domain::kFloat;
  if (d != Domain::kSigned && d != Domain::kUnsigned) {
    return OpError(inst, "the result of a get-dimension-size is an integer");
  }
  return absl::OkStatus();
}

absl::StatusOr<Value> GetDimensionSize(const HloInstruction& inst, const Info& out) {
  Num size;
  size.i = inst.operand(0)->shape().dimensions(
      static_cast<int>(Attr(inst.attributes().dimensions).at(0)));
  return Generate<false>(out, [&](const IndexVector&) { return Normalize(size, out->type()); });
}

}  // namespace xla_layout::runtime
