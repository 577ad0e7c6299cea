// The executor's array ops (internal to runtime/): each computes one
// instruction's result, in `out`'s layout, from operand values in theirs,
// through the logical index (ArrayInfo::Slot). Checks that depend only on
// the module were made when the executor was created.
#ifndef RUNTIME_OPS_H_
#define RUNTIME_OPS_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hlo/hlo_module.h"
#include "runtime/buffer.h"
#include "runtime/scalar_program.h"

namespace xla_layout::runtime {

using Info = std::shared_ptr<const ArrayInfo>;

// Whether ArrayOp computes `opcode` (the executor runs the others itself).
bool IsArrayOp(HloOpcode opcode);
// Why the executor refuses `opcode` when there is more to say than that it
// is not covered (fft: its complex numbers); empty otherwise.
absl::string_view RefusalReason(HloOpcode opcode);
// Checks what ArrayOp will need of `instruction` beyond the verifier
// (supported element types per op, literal values).
absl::Status CheckArrayOp(const HloInstruction& instruction);

// `out` holds the result's ArrayInfo, or one per element of a tuple result
// (a variadic reduce, reduce-window or sort; topk); `to_apply` points at the
// op's called computations compiled, in order: its to_apply, or
// select-and-scatter's select then scatter (null when it calls none).
absl::StatusOr<Value> ArrayOp(const HloInstruction& instruction,
                              absl::Span<const Value* const> operands,
                              absl::Span<const Info> out, const ScalarProgram* to_apply);

}  // namespace xla_layout::runtime

#endif  // RUNTIME_OPS_H_
