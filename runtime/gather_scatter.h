// XLA's gather and scatter in the executor (internal to runtime/).
//
// Both read start indices of any integer type (an unsigned index too large
// for int64 counts as larger than every dim) and address every array through
// its logical index, so the layouts never change a result.
//
// Gather clamps each start so that the whole slice lies in the operand, as
// XLA does: start[d] = clamp(index, 0, operand_dim[d] - slice_sizes[d]).
//
// Scatter drops an update window whose full extent is not inside the operand
// (it is never clamped, and never partly applied), as XLA's evaluator and CPU
// runtime do. Updates are applied in a fixed order: the scatter (batch)
// positions of `updates` in row-major order, and within each one the window
// positions in row-major order: the order of XLA's evaluator, so that
// colliding windows combine as they do there. The combiner sees (current
// values..., update values...) and returns the new values.
//
// indices_are_sorted and unique_indices are promises XLA may exploit; when
// one is broken XLA's result is implementation-defined, and the executor
// gives the result above whatever they say.
#ifndef RUNTIME_GATHER_SCATTER_H_
#define RUNTIME_GATHER_SCATTER_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/hlo_module.h"
#include "runtime/buffer.h"
#include "runtime/ops_util.h"
#include "runtime/scalar_program.h"

namespace xla_layout::runtime {

// Everything Gather and Scatter rely on, checked when the executor is
// created: dimension numbers in range and consistent with the operand,
// indices and result shapes (including operand_batching_dims and
// start_indices_batching_dims, whose dims must have equal sizes), integer
// indices; for scatter also matching operand and update types and a
// to_apply of 2N scalar parameters returning N scalars of the operands'
// types. An error names the instruction and what was wrong.
absl::Status CheckGather(const HloInstruction& gather);
absl::Status CheckScatter(const HloInstruction& scatter);

// The gather of `operand` at `indices`, in `out`'s layout. An operand with
// no elements gives zeros, as XLA's evaluator does.
absl::StatusOr<Value> Gather(const HloInstruction& gather, const Value& operand,
                             const Value& indices, const Info& out);

// `ops` are the N operands, the indices and the N updates; `out` has one
// ArrayInfo per result (N). One value for N == 1, a tuple otherwise.
absl::StatusOr<Value> Scatter(const HloInstruction& scatter, absl::Span<const Value* const> ops,
                              absl::Span<const Info> out, const ScalarProgram& to_apply);

}  // namespace xla_layout::runtime

#endif  // RUNTIME_GATHER_SCATTER_H_
