// The executor's array ops (internal to runtime/): each computes one
// instruction's result, in `out`'s layout, from operand values in theirs,
// through the logical index (ArrayInfo::Slot). Checks that depend only on
// the module were made when the executor was created.
#ifndef RUNTIME_OPS_H_
#define RUNTIME_OPS_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/hlo_module.h"
#include "runtime/buffer.h"
#include "runtime/scalar_program.h"

namespace xla_layout::runtime {

using Info = std::shared_ptr<const ArrayInfo>;

// Whether ArrayOp computes `opcode` (the executor runs the others itself).
bool IsArrayOp(HloOpcode opcode);
// Checks what ArrayOp will need of `instruction` beyond the verifier
// (supported element types per op, literal values).
absl::Status CheckArrayOp(const HloInstruction& instruction);

// `out` holds the result's ArrayInfo, or one per element of a variadic
// reduce's tuple; `to_apply` is the reduce's compiled computation (null for
// other ops).
absl::StatusOr<Value> ArrayOp(const HloInstruction& instruction,
                              absl::Span<const Value* const> operands,
                              absl::Span<const Info> out, const ScalarProgram* to_apply);

}  // namespace xla_layout::runtime

#endif  // RUNTIME_OPS_H_
