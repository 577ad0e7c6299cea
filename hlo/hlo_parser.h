// Parser for XLA's HLO text: the module header with its attributes,
// computations with or without a signature, ENTRY, ROOT, `%` prefixes or
// none, operands with or without their shapes, nested attribute values,
// constants and /*index=N*/ comments. Arrays without a layout get the default
// descending layout, as in XLA.
#ifndef HLO_HLO_PARSER_H_
#define HLO_HLO_PARSER_H_

#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/hlo_module.h"

namespace xla_layout {

// Errors read `file:line:col: error: message`, then the source line and a
// caret under the column.
absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModule(
    absl::string_view text, absl::string_view filename = "<stdin>");

}  // namespace xla_layout

#endif  // HLO_HLO_PARSER_H_
