#include "runtime/batch_norm.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace xla_layout::runtime {
namespace {

absl::Status Fail(const HloInstruction& i, absl::string_view why) {
  return absl::UnimplementedError(
      absl::StrCat(i.name(), " (", HloOpcodeString(i.opcode()), "): ", why));
}

const std::string* RawAttribute(const HloInstruction& i, absl::string_view name) {
  for (const HloAttribute& a : i.raw_attributes()) {
    if (a.name == name) return &a.value;
  }
  return nullptr;
}

// What the ops share: the operand's type, the feature dim, N and eps as
// numbers of that type.
struct Params {
  PrimitiveType type;
  int feature = 0;
  Num count;    // N
  Num epsilon;  // eps
};

absl::StatusOr<Params> ReadParams(const HloInstruction& i, const Shape& operand) {
  Params p;
  p.type = operand.element_type();
  const std::string* feature = RawAttribute(i, "feature_index");
  const std::string* epsilon = RawAttribute(i, "epsilon");
  int64_t f = -1;
  double e = 0;
  if (feature == nullptr || !absl::SimpleAtoi(*feature, &f) || f < 0 || f >= operand.rank()) {
    return Fail(i, absl::StrCat("feature_index must name a dim of ", operand.ToString()));
  }
  if (epsilon == nullptr || !absl::SimpleAtod(*epsilon, &e)) {
    return Fail(i, "epsilon must be a number");
  }
  p.feature = static_cast<int>(f);
  // XLA keeps epsilon as an f32 and converts it to the operand's type.
  Num eps;
  eps.f = static_cast<float>(e);
  p.epsilon = Convert(eps, F32, p.type);
  // XLA multiplies the other dims' sizes as s32 and converts the product.
  uint64_t product = 1;
  for (int d = 0; d < operand.rank(); ++d) {
    if (d != p.feature) product *= static_cast<uint64_t>(operand.dimensions(d));
  }
  Num n;
  n.i = static_cast<int64_t>(product);
  p.count = Convert(Normalize(n, S32), S32, p.type);
  return p;
}

Num Add(PrimitiveType t, Num a, Num b) { return ApplyBinary(HloOpcode::kAdd, t, a, b); }
Num Sub(PrimitiveType t, Num a, Num b) { return ApplyBinary(HloOpcode::kSubtract, t, a, b); }
Num Mul(PrimitiveType t, Num a, Num b) { return ApplyBinary(HloOpcode::kMultiply, t, a, b); }
Num Div(PrimitiveType t, Num a, Num b) { return ApplyBinary(HloOpcode::kDivide, t, a, b); }
Num Rsqrt(PrimitiveType t, Num a) { return ApplyUnary(HloOpcode::kRsqrt, t, a); }

// Per feature, the sum over the other dims of term(index, feature): +0 plus
// each term in row-major order of the index.
template <typename Term>
std::vector<Num> FeatureSums(const Params& p, absl::Span<const int64_t> dims, Term&& term) {
  std::vector<Num> sums(dims[p.feature]);
  ForEachIndex(dims, [&](const IndexVector& index) {
    Num& s = sums[index[p.feature]];
    s = Add(p.type, s, term(index));
  });
  return sums;
}

// A feature vector operand (scale, offset, mean, variance) as numbers.
std::vector<Num> Features(const Value& v) {
  std::vector<Num> out(v.info->dims()[0]);
  for (int64_t f = 0; f < static_cast<int64_t>(out.size()); ++f) out[f] = At(v, {f});
  return out;
}

absl::StatusOr<Value> FromFeatures(const Info& out, const std::vector<Num>& values) {
  return Generate<false>(out, [&](const IndexVector& index) { return values[index[0]]; });
}

absl::StatusOr<Value> Tuple(std::vector<absl::StatusOr<Value>> parts) {
  std::vector<Value> values;
  for (absl::StatusOr<Value>& v : parts) {
    if (!v.ok()) return v.status();
    values.push_back(*std::move(v));
  }
  return Value::Tuple(std::move(values));
}

absl::StatusOr<Value> Training(const Params& p, absl::Span<const Value* const> ops,
                               absl::Span<const Info> out) {
  const PrimitiveType t = p.type;
  const Value& x = *ops[0];
  const std::vector<Num> scale = Features(*ops[1]), offset = Features(*ops[2]);
  const std::vector<Num> sum = FeatureSums(p, x.info->dims(), [&](const IndexVector& i) {
    return At(x, i);
  });
  const std::vector<Num> squares = FeatureSums(p, x.info->dims(), [&](const IndexVector& i) {
    const Num v = At(x, i);
    return Mul(t, v, v);
  });
  std::vector<Num> mean(sum.size()), var(sum.size()), rs(sum.size());
  for (size_t f = 0; f < sum.size(); ++f) {
    mean[f] = Div(t, sum[f], p.count);
    var[f] = Sub(t, Div(t, squares[f], p.count), Mul(t, mean[f], mean[f]));
    rs[f] = Rsqrt(t, Add(t, var[f], p.epsilon));
  }
  absl::StatusOr<Value> y = Generate<false>(out[0], [&](const IndexVector& i) {
    const int64_t f = i[p.feature];
    const Num normalized = Mul(t, Sub(t, At(x, i), mean[f]), rs[f]);
    return Add(t, Mul(t, normalized, scale[f]), offset[f]);
  });
  return Tuple({std::move(y), FromFeatures(out[1], mean), FromFeatures(out[2], var)});
}

absl::StatusOr<Value> Inference(const Params& p, absl::Span<const Value* const> ops,
                                const Info& out) {
  const PrimitiveType t = p.type;
  const Value& x = *ops[0];
  const std::vector<Num> scale = Features(*ops[1]), offset = Features(*ops[2]);
  const std::vector<Num> mean = Features(*ops[3]), var = Features(*ops[4]);
  std::vector<Num> true_scale(scale.size()), true_shift(scale.size());
  for (size_t f = 0; f < scale.size(); ++f) {
    true_scale[f] = Mul(t, scale[f], Rsqrt(t, Add(t, var[f], p.epsilon)));
    true_shift[f] = Sub(t, offset[f], Mul(t, mean[f], true_scale[f]));
  }
  return Generate<false>(out, [&](const IndexVector& i) {
    const int64_t f = i[p.feature];
    return Add(t, Mul(t, At(x, i), true_scale[f]), true_shift[f]);
  });
}

absl::StatusOr<Value> Grad(const Params& p, absl::Span<const Value* const> ops,
                           absl::Span<const Info> out) {
  const PrimitiveType t = p.type;
  const Value& x = *ops[0];
  const Value& dy = *ops[4];
  const std::vector<Num> scale = Features(*ops[1]), mean = Features(*ops[2]);
  const std::vector<Num> var = Features(*ops[3]);
  const std::vector<Num> dy_xm = FeatureSums(p, x.info->dims(), [&](const IndexVector& i) {
    return Mul(t, At(dy, i), Sub(t, At(x, i), mean[i[p.feature]]));
  });
  const std::vector<Num> dy_sum = FeatureSums(p, x.info->dims(), [&](const IndexVector& i) {
    return At(dy, i);
  });
  std::vector<Num> var_eps(scale.size()), grad_scale(scale.size()), factor(scale.size());
  for (size_t f = 0; f < scale.size(); ++f) {
    var_eps[f] = Add(t, var[f], p.epsilon);
    const Num rs = Rsqrt(t, var_eps[f]);
    grad_scale[f] = Mul(t, dy_xm[f], rs);
    factor[f] = Div(t, Mul(t, scale[f], rs), p.count);
  }
  absl::StatusOr<Value> dx = Generate<false>(out[0], [&](const IndexVector& i) {
    const int64_t f = i[p.feature];
    const Num xm = Sub(t, At(x, i), mean[f]);
    const Num i5 = Div(t, Mul(t, dy_xm[f], xm), var_eps[f]);
    const Num i6 = Sub(t, Sub(t, Mul(t, At(dy, i), p.count), dy_sum[f]), i5);
    return Mul(t, factor[f], i6);
  });
  return Tuple({std::move(dx), FromFeatures(out[1], grad_scale), FromFeatures(out[2], dy_sum)});
}

}  // namespace

absl::Status CheckBatchNorm(const HloInstruction& i) {
  const HloOpcode op = i.opcode();
  const int want = op == HloOpcode::kBatchNormTraining ? 3 : 5;
  if (i.operand_count() != want) return Fail(i, absl::StrCat("it takes ", want, " operands"));
  const Shape& x = i.operand(0)->shape();
  if (!x.IsArray() || x.rank() < 1 || DomainOf(x.element_type()) != Domain::kFloat) {
    return Fail(i, "the operand must be a floating-point array of rank 1 or more");
  }
  absl::StatusOr<Params> p = ReadParams(i, x);
  if (!p.ok()) return p.status();
  const Shape feature(x.element_type(), {x.dimensions(p->feature)});
  auto same = [&](const Shape& s, const Shape& like) {
    return s.IsArray() && s.element_type() == like.element_type() &&
           s.dimensions() == like.dimensions();
  };
  for (int k = 1; k < want; ++k) {
    const bool grad_output = op == HloOpcode::kBatchNormGrad && k == 4;
    if (!same(i.operand(k)->shape(), grad_output ? x : feature)) {
      return Fail(i, absl::StrCat("operand ", k, " must be ",
                                  grad_output ? x.ToString() : feature.ToString()));
    }
  }
  const Shape& r = i.shape();
  const bool ok = op == HloOpcode::kBatchNormInference
                      ? same(r, x)
                      : r.IsTuple() && r.tuple_shapes().size() == 3 && same(r.tuple_shapes()[0], x) &&
                            same(r.tuple_shapes()[1], feature) && same(r.tuple_shapes()[2], feature);
  if (!ok) {
    return Fail(i, absl::StrCat("the result ", r.ToString(), " is not what the op gives for ",
                                x.ToString()));
  }
  return absl::OkStatus();
}

absl::StatusOr<Value> BatchNorm(const HloInstruction& i, absl::Span<const Value* const> ops,
                                absl::Span<const Info> out) {
  absl::StatusOr<Params> p = ReadParams(i, ops[0]->info->shape());
  if (!p.ok()) return p.status();
  switch (i.opcode()) {
    case HloOpcode::kBatchNormTraining: return Training(*p, ops, out);
    case HloOpcode::kBatchNormInference: return Inference(*p, ops, out[0]);
    default: return Grad(*p, ops, out);
  }
}

}  // namespace xla_layout::runtime
