// Callers against the computations they call: one handler per opcode
// family, as XLA's verifier visits them.
#include <cstddef>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hlo/hlo_verifier_internal.h"

namespace xla_layout::hlo_verifier_internal {
namespace {

bool IsScalarOf(const Shape& s, PrimitiveType type) {
  return s.IsArray() && s.rank() == 0 && s.element_type() == type;
}

std::string Describe(const Shape& s) { return s.ToString(); }

// Checks instruction `i` of `c` against its callees.
class CalleeVerifier {
 public:
  CalleeVerifier(const Context& ctx, const HloComputation& c, const HloInstruction& i)
      : ctx_(ctx), c_(c), i_(i) {}

  absl::Status Verify() {
    switch (i_.opcode()) {
      case HloOpcode::kCall:
      case HloOpcode::kFusion:
        return HandleCall();
      case HloOpcode::kAsyncStart:
        return HandleAsyncStart();
      case HloOpcode::kWhile:
        return HandleWhile();
      case HloOpcode::kConditional:
        return HandleConditional();
      case HloOpcode::kMap:
        return HandleMap();
      case HloOpcode::kReduce:
      case HloOpcode::kReduceWindow:
        return HandleReduce();
      case HloOpcode::kAllReduce:
      case HloOpcode::kAllReduceStart:
      case HloOpcode::kReduceScatter:
        return HandleAllReduce();
      case HloOpcode::kSort:
        return HandleSort();
      default:
        return absl::OkStatus();
    }
  }

 private:
  absl::Status HandleCall();
  absl::Status HandleAsyncStart();
  absl::Status HandleWhile();
  absl::Status HandleConditional();
  absl::Status HandleMap();
  absl::Status HandleReduce();
  absl::Status HandleAllReduce();
  absl::Status HandleSort();

  absl::Status Failure(const std::string& message) const {
    return Fail(ctx_, c_, &i_, message);
  }
  // `callee` takes exactly `shapes`.
  absl::Status Takes(const HloComputation* callee,
                     const std::vector<const Shape*>& shapes) const;
  absl::Status Takes(const HloComputation* callee, const std::vector<Shape>& shapes) const {
    std::vector<const Shape*> ptrs;
    for (const Shape& s : shapes) ptrs.push_back(&s);
    return Takes(callee, ptrs);
  }
  absl::Status Returns(const HloComputation* callee, const Shape& want) const;
  // A scalar reduction with `n` inputs of `types`: 2n scalar parameters
  // (accumulators, then values) and n scalar results.
  absl::Status Reducer(const HloComputation* callee,
                       const std::vector<PrimitiveType>& types) const;
  // The shapes of operands [from, to).
  std::vector<const Shape*> OperandShapes(int from, int to) const {
    std::vector<const Shape*> shapes;
    for (int k = from; k < to; ++k) shapes.push_back(&i_.operand(k)->shape());
    return shapes;
  }

  const Shape::Equal same_ = Shape::Equal().IgnoreLayout();
  const Context& ctx_;
  const HloComputation& c_;
  const HloInstruction& i_;
};

absl::Status CalleeVerifier::Takes(const HloComputation* callee,
                                   const std::vector<const Shape*>& shapes) const {
  std::vector<HloInstruction*> params = callee->parameters();
  if (params.size() != shapes.size()) {
    return Failure(absl::StrCat("passes ", shapes.size(), " values to '", callee->name(),
                                "', which takes ", params.size()));
  }
  for (size_t k = 0; k < shapes.size(); ++k) {
    if (params[k] != nullptr && !same_(params[k]->shape(), *shapes[k])) {
      return Failure(absl::StrCat("passes ", Describe(*shapes[k]), " as parameter ", k,
                                  " of '", callee->name(), "', which takes ",
                                  Describe(params[k]->shape())));
    }
  }
  return absl::OkStatus();
}

absl::Status CalleeVerifier::Returns(const HloComputation* callee, const Shape& want) const {
  if (!same_(callee->root()->shape(), want)) {
    return Failure(absl::StrCat("expects ", Describe(want), " from '", callee->name(),
                                "', which returns ", Describe(callee->root()->shape())));
  }
  return absl::OkStatus();
}

absl::Status CalleeVerifier::Reducer(const HloComputation* callee,
                                     const std::vector<PrimitiveType>& types) const {
  std::vector<Shape> scalars;
  for (int round = 0; round < 2; ++round) {
    for (PrimitiveType t : types) scalars.push_back(Shape(t, {}));
  }
  absl::Status st = Takes(callee, scalars);
  if (!st.ok()) return st;
  if (types.size() == 1) return Returns(callee, Shape(types[0], {}));
  std::vector<Shape> results;
  for (PrimitiveType t : types) results.push_back(Shape(t, {}));
  return Returns(callee, Shape::MakeTuple(results));
}

// call and fusion: the operands in, the result out.
absl::Status CalleeVerifier::HandleCall() {
  const auto& called = i_.called_computations();
  if (called.empty()) return Failure(absl::StrCat(HloOpcodeString(i_.opcode()), " calls nothing"));
  absl::Status st = Takes(called[0].computation, OperandShapes(0, i_.operand_count()));
  if (!st.ok()) return st;
  return Returns(called[0].computation, i_.shape());
}

absl::Status CalleeVerifier::HandleAsyncStart() {
  HloComputation* callee = i_.called_computation("calls");
  if (callee == nullptr) return Failure("async-start calls nothing (calls=)");
  const Shape& state = i_.shape();
  if (!state.IsTuple() || state.tuple_shapes().size() < 2) {
    return Failure("async-start needs the shape ((operands...), results, context...)");
  }
  absl::Status st = Takes(callee, OperandShapes(0, i_.operand_count()));
  if (!st.ok()) return st;
  return Returns(callee, state.tuple_shapes()[1]);
}

absl::Status CalleeVerifier::HandleWhile() {
  HloComputation* body = i_.called_computation("body");
  HloComputation* cond = i_.called_computation("condition");
  if (body == nullptr || cond == nullptr || i_.operand_count() != 1) {
    return Failure("while needs one operand, a body and a condition");
  }
  const Shape& state = i_.operand(0)->shape();
  if (!same_(state, i_.shape())) {
    return Failure(absl::StrCat("while's operand is ", Describe(state),
                                " but its result is ", Describe(i_.shape())));
  }
  for (const HloComputation* callee : {body, cond}) {
    absl::Status st = Takes(callee, {&state});
    if (!st.ok()) return st;
  }
  absl::Status st = Returns(body, state);
  if (!st.ok()) return st;
  return Returns(cond, Shape(PRED, {}));
}

absl::Status CalleeVerifier::HandleConditional() {
  const auto& called = i_.called_computations();
  if (i_.operand_count() < 1 || static_cast<int>(called.size()) != i_.operand_count() - 1) {
    return Failure("conditional needs one operand per branch after the selector");
  }
  const Shape& selector = i_.operand(0)->shape();
  const bool two = IsScalarOf(selector, PRED) && called.size() == 2;
  if (!two && !IsScalarOf(selector, S32)) {
    return Failure(absl::StrCat("the selector is ", Describe(selector),
                                "; use pred[] with two branches or s32[]"));
  }
  for (size_t b = 0; b < called.size(); ++b) {
    absl::Status st = Takes(called[b].computation, {&i_.operand(b + 1)->shape()});
    if (!st.ok()) return st;
    st = Returns(called[b].computation, i_.shape());
    if (!st.ok()) return st;
  }
  return absl::OkStatus();
}

// map: a scalar of each operand's type in, a scalar of the result's out.
absl::Status CalleeVerifier::HandleMap() {
  HloComputation* f = i_.called_computation("to_apply");
  if (f == nullptr || !i_.shape().IsArray()) return absl::OkStatus();
  std::vector<Shape> scalars;
  for (int k = 0; k < i_.operand_count(); ++k) {
    scalars.push_back(Shape(i_.operand(k)->shape().element_type(), {}));
  }
  absl::Status st = Takes(f, scalars);
  if (!st.ok()) return st;
  return Returns(f, Shape(i_.shape().element_type(), {}));
}

// reduce and reduce-window: inputs, then as many init values.
absl::Status CalleeVerifier::HandleReduce() {
  HloComputation* f = i_.called_computation("to_apply");
  if (f == nullptr || i_.operand_count() % 2 != 0) {
    return Failure(absl::StrCat(HloOpcodeString(i_.opcode()),
                                " needs inputs, as many init values, and to_apply"));
  }
  std::vector<PrimitiveType> types;
  for (int k = i_.operand_count() / 2; k < i_.operand_count(); ++k) {
    types.push_back(i_.operand(k)->shape().element_type());
  }
  return Reducer(f, types);
}

// all-reduce, all-reduce-start and reduce-scatter: a reduction of the
// first operand's type.
absl::Status CalleeVerifier::HandleAllReduce() {
  HloComputation* f = i_.called_computation("to_apply");
  if (f == nullptr || i_.operand_count() < 1 || !i_.operand(0)->shape().IsArray()) {
    return absl::OkStatus();
  }
  return Reducer(f, {i_.operand(0)->shape().element_type()});
}

// sort: a comparator of two scalars per operand, returning pred[].
absl::Status CalleeVerifier::HandleSort() {
  HloComputation* f = i_.called_computation("to_apply");
  if (f == nullptr) return Failure("sort needs a comparator (to_apply)");
  std::vector<Shape> scalars;
  for (int k = 0; k < i_.operand_count(); ++k) {
    for (int side = 0; side < 2; ++side) {
      scalars.push_back(Shape(i_.operand(k)->shape().element_type(), {}));
    }
  }
  absl::Status st = Takes(f, scalars);
  if (!st.ok()) return st;
  return Returns(f, Shape(PRED, {}));
}

}  // namespace

absl::Status VerifyCallees(const Context& ctx, const HloComputation& c,
                           const HloInstruction& i) {
  return CalleeVerifier(ctx, c, i).Verify();
}

}  // namespace xla_layout::hlo_verifier_internal
