// Fast paths of the executor's elementwise ops and reduce. They give the
// bits the generic paths of ops.cc give, for every layout and value (NaN
// payloads, -0, infinities, subnormals): they run only where the order of
// evaluation cannot show, and any element whose typed result is a NaN is
// recomputed by the generic element function, so that no payload depends on
// how the compiler ordered a commutative operation.
#ifndef RUNTIME_ELEMENTWISE_FAST_H_
#define RUNTIME_ELEMENTWISE_FAST_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/hlo_module.h"
#include "runtime/buffer.h"
#include "runtime/scalar_program.h"

namespace xla_layout::runtime {

// What an elementwise instruction (including compare, select, clamp and
// convert) computes from its operands' numbers: the one element function
// every path of the op calls.
struct ElementwiseOp {
  HloOpcode opcode = HloOpcode::kAdd;
  PrimitiveType type = F32;      // the operands' (select's values')
  PrimitiveType out_type = F32;  // the result's
  int arity = 1;
  std::string direction;     // compare
  bool total_order = false;  // compare, type=TOTALORDER

  static ElementwiseOp Of(const HloInstruction& inst, absl::Span<const Value* const> operands,
                          PrimitiveType out_type);
  // The result for one element; `args` holds `arity` normalized numbers.
  Num Apply(const Num* args) const;
};

// The result of `op` on `operands` when `out` and every operand of the same
// rank place each logical element in the same slot with no padding slot
// (rank-0 operands of a wider op are broadcast): the slots are walked in
// order, f16/bf16/f32/f64 and whole-byte integers in typed loops.
// nullopt when the layouts differ or have padding (the caller walks
// logical indices, leaving padding zero).
std::optional<absl::StatusOr<Value>> ElementwiseLinear(const ElementwiseOp& op,
                                                       absl::Span<const Value* const> operands,
                                                       const std::shared_ptr<const ArrayInfo>& out);

// Reduce of `operands` (inputs, then inits) over the input dims `reduced`
// when every input's layout is separable: slot offsets instead of Slot() per
// element, a typed loop when `to_apply` is one add, multiply, maximum or
// minimum of f16/bf16/f32/f64, and several outputs walked together when
// that reads memory in order. Each output still combines its elements in
// row-major order of the reduced dims. nullopt otherwise.
std::optional<absl::StatusOr<Value>> ReduceFast(
    absl::Span<const int64_t> reduced, absl::Span<const Value* const> operands,
    absl::Span<const std::shared_ptr<const ArrayInfo>> out, const ScalarProgram& to_apply);

// Broadcast of `operand` along `dims` (the broadcast's dimensions) when both
// layouts are separable and the slots natural (whole-byte types): each slot
// moved as it is, walking slot offsets instead of Slot() per element, so the
// bits are the generic path's (padding stays zero). nullopt otherwise.
std::optional<absl::StatusOr<Value>> BroadcastFast(absl::Span<const int64_t> dims,
                                                   const Value& operand,
                                                   const std::shared_ptr<const ArrayInfo>& out);

// Test-only: with false, ElementwiseLinear, ReduceFast and BroadcastFast return nullopt
// (every op takes its generic path). Process-wide; true by default.
void SetFastPathsEnabledForTesting(bool enabled);

// Test-only: how many ops each fast path ran in this process (typed loop or
// Num loop of ElementwiseLinear; typed or ScalarProgram combiner of
// ReduceFast; BroadcastFast), so that tests can tell that they exercised each.
struct FastPathCounts {
  int64_t elementwise_typed = 0;
  int64_t elementwise_num = 0;
  int64_t reduce_typed = 0;
  int64_t reduce_program = 0;
  int64_t broadcast = 0;
};
FastPathCounts FastPathCountsForTesting();

}  // namespace xla_layout::runtime

#endif  // RUNTIME_ELEMENTWISE_FAST_H_
