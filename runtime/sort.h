// The executor's sorting ops (internal to runtime/): sort and topk. Both
// sort stably (sort with is_stable=false too, so that its result is one
// defined permutation), reading every sorted row in increasing logical
// index, so that layouts never change which element lands where.
#ifndef RUNTIME_SORT_H_
#define RUNTIME_SORT_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/hlo_module.h"
#include "runtime/buffer.h"
#include "runtime/ops_util.h"
#include "runtime/scalar_program.h"

namespace xla_layout::runtime {

// Load-time checks of a sort: operands of one shape, dimensions={d} with d
// a dim of theirs, is_stable true or false, and a comparator (to_apply)
// taking two scalars per operand (lhs then rhs, of the operand's type) and
// returning pred.
absl::Status CheckSort(const HloInstruction& inst);
// Sorts every row along dim d: row element a goes before b when
// compare(a's elements of every operand, b's) is true, ties keeping their
// order; every operand is permuted alike. `out` has one info per operand.
absl::StatusOr<Value> Sort(const HloInstruction& inst, absl::Span<const Value* const> ops,
                           absl::Span<const Info> out, const ScalarProgram& compare);

// Load-time checks of a topk: an array operand of rank >= 1, k between 0
// and the last dim, largest true or false, and a result of (values, s32
// indices), each the operand's dims with the last one k.
absl::Status CheckTopK(const HloInstruction& inst);
// The k largest (or, largest=false, smallest) elements of every row along
// the last dim and their indices, in that order; floats order as XLA's
// total order (-NaN < -inf < -0 < +0 < inf < NaN) and equal elements keep
// their order (the lower index first), as XLA's TopK decomposition does.
absl::StatusOr<Value> TopK(const HloInstruction& inst, const Value& operand,
                           absl::Span<const Info> out);

}  // namespace xla_layout::runtime

#endif  // RUNTIME_SORT_H_
