// JSON text helpers shared by the CLI and the passes' statistics.
#ifndef XLA_LAYOUT_JSON_H_
#define XLA_LAYOUT_JSON_H_

#include <string>

#include "absl/strings/string_view.h"

namespace xla_layout {

// The text of a JSON string literal, quotes included.
std::string JsonString(absl::string_view s);

}  // namespace xla_layout

#endif  // XLA_LAYOUT_JSON_H_
