// Parser for XLA's HLO text, as XLA's own parser reads it: the module header
// (or none: a module named module_<entry>), computations with or without a
// signature, ENTRY, ROOT, `%` prefixes or none, operands with or without
// their shapes or written inline (`add(f32[4] parameter(0), ...)`, named
// `<opcode>.anon`), shapes left out where XLA infers them, the async
// shorthand (`add-start`/`-update`/`-done`, wrapped in an `async_wrapped`
// computation on the start's async_execution_thread; the printer writes the
// shorthand back), `execution_thread` after a computation, constants parsed to
// values (hlo_literal.h), comments. Arrays without a layout get the default
// descending layout; a name an earlier computation used is renamed `.N`, as
// XLA's uniquer does. Shapes are read with the shape parser's own cursor.
//
// Typed when parsed (HloInstruction::Attributes): dimensions, index,
// iota_dimension, dot dims and sparsity, slice, padding, direction, fusion kind,
// dim_labels, window, group counts, slice sizes, gather/scatter dims,
// the lists of lists (source_target_pairs, collective-permute's
// slice_sizes, replica_groups in its list form: hlo_module.h),
// operand_layout_constraints, output_to_operand_aliasing, custom-call's
// literal (read against its own shape by the rules of constants, printed as
// XLA prints it: `literal=s32[2]{0} {1, 2}`), the called
// computations; the header's entry_computation_layout, input_output_alias,
// buffer_donor. Kept as raw text and printed back verbatim: metadata,
// backend_config, sharding, frontend_attributes, original_value (checked
// against the shape), result_accuracy (checked to be a ResultAccuracy) and
// every other attribute an opcode takes (hlo_attributes.h has the table per
// opcode).
//
// Refused, with file:line:col: unknown opcodes and attributes, repeated
// attributes, duplicate names within a computation, undefined operands and
// callees, control-predecessors that are not in the computation, operand
// shapes other than their definition's (a layout that differs is only a
// warning), a parameter without a number, inline operands nested deeper
// than 256, constants and custom-call literals out of their type's range
// or of the wrong element count, sizes whose bits overflow int64, a
// signature other than the body,
// aliasing that does not fit the entry, a second ROOT or ENTRY, an empty
// computation, a shape left out where it cannot be inferred, an infeed
// whose shape is not a non-empty tuple (data, token), custom-call
// operand_layout_constraints other than one shape per operand with the
// operand's dims and element type, a conditional with both
// true_computation/false_computation and branch_computations, a computation
// wrapped by two async-starts, an async-update or -done whose calls= or
// async_execution_thread= differs from its async-start's, an
// original_value (or origin) whose tuple structure is not the
// instruction's shape, or on an instruction whose shape is left out, a
// result_accuracy that is not a ResultAccuracy (`{mode=high}`).
#ifndef HLO_HLO_PARSER_H_
#define HLO_HLO_PARSER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/hlo_module.h"

namespace xla_layout {

// How to read forms that only older XLA versions wrote.
struct HloParseOptions {
  // Today's XLA refuses `api_version=API_VERSION_UNSPECIFIED` in text, but
  // older versions (those PyTorch/XLA and other frameworks ship) wrote it on
  // every custom call. When set, it reads as API_VERSION_ORIGINAL, as XLA
  // reads the same value from a proto, and so prints as XLA prints
  // ORIGINAL: not at all.
  bool accept_old_dumps = false;
  // When given, one `file: warning: ...` line per kind of old form read
  // under accept_old_dumps, naming how many instructions it upgraded.
  std::vector<std::string>* upgrades = nullptr;
};

// Errors read `file:line:col: error: message`, then the source line and a
// caret under the column. Text XLA accepts but reads differently from how it
// is written (an operand written with a layout other than its definition's)
// adds a `file:line:col: warning: ...` to `warnings`, when given.
absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModule(
    absl::string_view text, absl::string_view filename = "<stdin>",
    std::vector<std::string>* warnings = nullptr);
absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModule(
    absl::string_view text, absl::string_view filename,
    std::vector<std::string>* warnings, const HloParseOptions& options);

}  // namespace xla_layout

#endif  // HLO_HLO_PARSER_H_
