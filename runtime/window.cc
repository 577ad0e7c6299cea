#include "runtime/window.h"

#include <vector>

#include "absl/strings/str_cat.h"

namespace xla_layout::runtime {
namespace {

std::vector<WindowDimension> WindowOf(const HloInstruction& inst, int rank) {
  return inst.attributes().rare().window.value_or(std::vector<WindowDimension>(rank));
}

absl::Status CheckWindow(const HloInstruction& inst, int rank) {
  const std::vector<WindowDimension> window = WindowOf(inst, rank);
  if (static_cast<int>(window.size()) != rank) {
    return OpError(inst, absl::StrCat("the window has ", window.size(), " dims for rank ", rank));
  }
  for (const WindowDimension& w : window) {
    if (w.reversal) return OpError(inst, "a reversed window is not supported by the executor");
    if (w.size < 0 || w.stride < 1 || w.lhs_dilation < 1 || w.rhs_dilation < 1) {
      return OpError(inst, "window sizes must be >= 0 and strides and dilations >= 1");
    }
  }
  return absl::OkStatus();
}

// The input elements under the window of one output position.
class WindowWalker {
 public:
  WindowWalker(std::vector<WindowDimension> window, absl::Span<const int64_t> input_dims)
      : window_(std::move(window)), input_dims_(input_dims), at_(input_dims.size()) {
    std::vector<int64_t> sizes;
    for (const WindowDimension& w : window_) sizes.push_back(w.size);
    ForEachIndex(sizes, [&](const IndexVector& p) { positions_.push_back(p); });
  }

  // Calls fn(input index) for each window position of output index `o`, in
  // row-major order of the position, that lands on an input element.
  template <typename Fn>
  void Visit(const IndexVector& o, Fn&& fn) {
    for (const IndexVector& p : positions_) {
      bool inside = true;
      for (size_t d = 0; d < window_.size() && inside; ++d) {
        const WindowDimension& w = window_[d];
        const int64_t dilated = o[d] * w.stride - w.padding_low + p[d] * w.rhs_dilation;
        inside = dilated % w.lhs_dilation == 0 && dilated >= 0 &&
                 dilated / w.lhs_dilation < input_dims_[d];
        at_[d] = dilated / w.lhs_dilation;
      }
      if (inside) fn(static_cast<const IndexVector&>(at_));
    }
  }

 private:
  std::vector<WindowDimension> window_;
  absl::Span<const int64_t> input_dims_;
  std::vector<IndexVector> positions_;
  IndexVector at_;
};

Num Scalar(const Value& v) { return v.info->Load(v.data(), v.info->Slot({})); }

}  // namespace

absl::Status CheckReduceWindow(const HloInstruction& inst) {
  const int n = inst.operand_count() / 2;
  if (n < 1 || inst.operand_count() % 2 != 0 || !inst.operand(0)->shape().IsArray()) {
    return OpError(inst, "reduce-window takes inputs and as many init values");
  }
  absl::Status s = CheckWindow(inst, inst.operand(0)->shape().rank());
  if (!s.ok()) return s;
  std::vector<PrimitiveType> types;
  for (int k = 0; k < n; ++k) types.push_back(inst.operand(n + k)->shape().element_type());
  for (int k = 0; k < n; ++k) types.push_back(inst.operand(k)->shape().element_type());
  return CheckScalarComputation(inst, "to_apply", 2 * n, types, n, PRIMITIVE_TYPE_INVALID);
}

absl::StatusOr<Value> ReduceWindow(const HloInstruction& inst, absl::Span<const Value* const> ops,
                                   absl::Span<const Info> out, const ScalarProgram& to_apply) {
  const size_t n = ops.size() / 2;
  const Value& first = *ops[0];
  WindowWalker walker(WindowOf(inst, first.info->rank()), first.info->dims());
  std::vector<Value> results;
  for (size_t k = 0; k < n; ++k) {
    absl::StatusOr<Value> v = Value::Allocate(out[k]);
    if (!v.ok()) return v;
    results.push_back(*std::move(v));
  }
  std::vector<Num> args(2 * n), accs(n);
  ForEachIndex(out[0]->dims(), [&](const IndexVector& o) {
    for (size_t k = 0; k < n; ++k) accs[k] = Scalar(*ops[n + k]);
    walker.Visit(o, [&](const IndexVector& at) {
      for (size_t k = 0; k < n; ++k) {
        args[k] = accs[k];
        args[n + k] = At(*ops[k], at);
      }
      to_apply.Run(args, absl::MakeSpan(accs));
    });
    for (size_t k = 0; k < n; ++k)
      out[k]->Store(results[k].mutable_data(), out[k]->Slot(o), accs[k]);
  });
  if (n == 1) return std::move(results[0]);
  return Value::Tuple(std::move(results));
}

absl::Status CheckSelectAndScatter(const HloInstruction& inst) {
  if (inst.operand_count() != 3 || !inst.operand(0)->shape().IsArray() ||
      !inst.operand(1)->shape().IsArray()) {
    return OpError(inst, "select-and-scatter takes an operand, a source and an init value");
  }
  absl::Status s = CheckWindow(inst, inst.operand(0)->shape().rank());
  if (!s.ok()) return s;
  const PrimitiveType operand = inst.operand(0)->shape().element_type();
  const PrimitiveType source = inst.operand(1)->shape().element_type();
  const PrimitiveType init = inst.operand(2)->shape().element_type();
  const PrimitiveType select_types[] = {operand, operand};
  s = CheckScalarComputation(inst, "select", 2, select_types, 1, PRED);
  if (!s.ok()) return s;
  const PrimitiveType scatter_types[] = {source, init};
  return CheckScalarComputation(inst, "scatter", 2, scatter_types, 1, init);
}

absl::StatusOr<Value> SelectAndScatter(const HloInstruction& inst,
                                       absl::Span<const Value* const> ops, const Info& out,
                                       const ScalarProgram& select, const ScalarProgram& scatter) {
  const Value& operand = *ops[0];
  const Value& source = *ops[1];
  const Num init = Scalar(*ops[2]);
  absl::StatusOr<Value> result = Generate<false>(out, [&](const IndexVector&) { return init; });
  if (!result.ok()) return result;
  uint8_t* data = result->mutable_data();
  WindowWalker walker(WindowOf(inst, operand.info->rank()), operand.info->dims());
  Num args[2], verdict;
  IndexVector picked;
  ForEachIndex(source.info->dims(), [&](const IndexVector& s) {
    bool found = false;
    Num picked_value;
    walker.Visit(s, [&](const IndexVector& at) {
      const Num value = At(operand, at);
      if (found) {
        args[0] = picked_value;
        args[1] = value;
        select.Run(args, absl::MakeSpan(&verdict, 1));
        if (verdict.i) return;
      }
      found = true;
      picked.assign(at.begin(), at.end());
      picked_value = value;
    });
    if (!found) return;
    const int64_t slot = out->Slot(picked);
    args[0] = At(source, s);
    args[1] = out->Load(data, slot);
    scatter.Run(args, absl::MakeSpan(&verdict, 1));
    out->Store(data, slot, verdict);
  });
  return result;
}

}  // namespace xla_layout::runtime
