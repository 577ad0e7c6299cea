// Helpers over the PrimitiveType enum of proto/layout.proto (XLA's values).
#ifndef XLA_LAYOUT_PRIMITIVE_TYPE_H_
#define XLA_LAYOUT_PRIMITIVE_TYPE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/layout.pb.h"
#include "xla_layout/print_options.h"

namespace xla_layout {

// Lower-case XLA name: "f32", "bf16", "pred", "token", "opaque".
std::string PrimitiveTypeName(PrimitiveType type);
// The name as printed in `options`' syntax: "f32", or "F32" in the angle form.
std::string PrimitiveTypeText(PrimitiveType type, const PrintOptions& options);
// Appends that name (without a temporary string for XLA's spelling).
void AppendPrimitiveTypeText(TextAppender& text, PrimitiveType type,
                             const PrintOptions& options);

// Accepts XLA's lower-case names and their upper-case spelling ("F32").
absl::StatusOr<PrimitiveType> ParsePrimitiveType(absl::string_view name);

// True for element types of arrays (not tuple, token, opaque or invalid).
bool IsArrayType(PrimitiveType type);

// Bits of information in one element: 4 for s4, 8 for pred, 64 for c64.
int64_t PrimitiveBitWidth(PrimitiveType type);

// Bytes one element takes when the layout sets no E(n): sub-byte types take
// one whole byte each, as in XLA.
int64_t PrimitiveByteSize(PrimitiveType type);

}  // namespace xla_layout

#endif  // XLA_LAYOUT_PRIMITIVE_TYPE_H_
