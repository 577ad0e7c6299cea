// How shapes and layouts print: XLA's `f32[3,5]{1,0:T(2,2)}` or the angle
// form `F32[3,5]<1,0:T(2,2)>`, with or without layouts. Shared by the model's
// Print routines and the text layer above them.
#ifndef XLA_LAYOUT_PRINT_OPTIONS_H_
#define XLA_LAYOUT_PRINT_OPTIONS_H_

#include <cstdint>
#include <string>

#include "absl/strings/numbers.h"

namespace xla_layout {

// Appends the decimal digits of `value`: the printers' one way to write an
// integer, without the temporary strings StrCat and StrJoin build.
inline void AppendInt(std::string* out, int64_t value) {
  char buffer[absl::numbers_internal::kFastToBufferSize];
  char* end = absl::numbers_internal::FastIntToBuffer(value, buffer);
  out->append(buffer, end - buffer);
}

enum class ShapeSyntax {
  kXla,    // lower-case types, {} layouts: what XLA prints (the default).
  kAngle,  // upper-case types, <> layouts: the project brief's form.
};

struct PrintOptions {
  ShapeSyntax syntax = ShapeSyntax::kXla;
  // When false, arrays print without their layouts (`f32[3,5]`).
  bool print_layout = true;
};

}  // namespace xla_layout

#endif  // XLA_LAYOUT_PRINT_OPTIONS_H_
