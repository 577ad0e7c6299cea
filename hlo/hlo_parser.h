// Parser for XLA's HLO text: the module header with its attributes,
// computations with or without a signature, ENTRY, ROOT, `%` prefixes or
// none, operands with or without their shapes, nested attribute values,
// constants and /*index=N*/ comments. Arrays without a layout get the default
// descending layout, as in XLA. Shapes are read with the shape parser's own
// cursor (xla_layout/shape_text.h), so both report the same errors.
//
// Typed when parsed (HloInstruction::Attributes): dimensions, index,
// iota_dimension, lhs/rhs contracting and batch dims, slice, pad's padding,
// compare's direction, fusion's kind, convolution's dim_labels,
// operand_layout_constraints, output_to_operand_aliasing, and the attributes
// that name called computations. A malformed typed attribute is an error.
//
// Kept as raw text, printed back verbatim, never checked: every other
// instruction attribute (window, metadata, backend_config, sharding,
// custom_call_target, ...), including unknown ones; constant literals; and
// every module header attribute except entry_computation_layout.
//
// Refused: an unknown opcode, a duplicate name within a computation or a
// duplicate computation, an undefined operand or callee, an operand written
// with a shape other than its definition's, a second ROOT or ENTRY, an
// empty computation, and a shape left out where it cannot be inferred (only
// elementwise ops other than convert infer theirs). Names must be unique
// within a computation, not across the module.
#ifndef HLO_HLO_PARSER_H_
#define HLO_HLO_PARSER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/hlo_module.h"

namespace xla_layout {

// Errors read `file:line:col: error: message`, then the source line and a
// caret under the column. Text XLA accepts but reads differently from how it
// is written (an operand written with a layout other than its definition's)
// adds a `file:line:col: warning: ...` to `warnings`, when given.
absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModule(
    absl::string_view text, absl::string_view filename = "<stdin>",
    std::vector<std::string>* warnings = nullptr);

}  // namespace xla_layout

#endif  // HLO_HLO_PARSER_H_
