// The executor's window ops (internal to runtime/): reduce-window and
// select-and-scatter. A window's positions are visited in row-major order
// of the window index; a position in the padding, or between the elements
// of a dilated input (lhs_dilate), is skipped, as XLA's evaluator skips it.
#ifndef RUNTIME_WINDOW_H_
#define RUNTIME_WINDOW_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/hlo_module.h"
#include "runtime/buffer.h"
#include "runtime/ops_util.h"
#include "runtime/scalar_program.h"

namespace xla_layout::runtime {

// Load-time checks of a reduce-window of n inputs: a window of one dim per
// input dim (or none: all ones), no window reversal, and to_apply taking
// 2n scalars (the accumulators, then the inputs' elements) and returning n.
absl::Status CheckReduceWindow(const HloInstruction& inst);
// Each result element folds to_apply over its window, from the init
// values; `out` has one info per input.
absl::StatusOr<Value> ReduceWindow(const HloInstruction& inst, absl::Span<const Value* const> ops,
                                   absl::Span<const Info> out, const ScalarProgram& to_apply);

// Load-time checks of a select-and-scatter(operand, source, init): a window
// of one dim per operand dim (or none), not reversed; select takes
// two scalars of the operand's type and returns pred, scatter takes two of
// the source's and returns one.
absl::Status CheckSelectAndScatter(const HloInstruction& inst);
// The result starts as init everywhere. For each source element, in
// row-major order: its window over the operand picks one position (the
// first, replaced by each later one for which select(picked, later) is
// false), and that result element becomes scatter(source element, result
// element): XLA's evaluator's argument order. A window wholly in the
// padding picks nothing.
absl::StatusOr<Value> SelectAndScatter(const HloInstruction& inst,
                                       absl::Span<const Value* const> ops, const Info& out,
                                       const ScalarProgram& select, const ScalarProgram& scatter);

}  // namespace xla_layout::runtime

#endif  // RUNTIME_WINDOW_H_
