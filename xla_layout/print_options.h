// How shapes and layouts print: XLA's `f32[3,5]{1,0:T(2,2)}` or the angle
// form `F32[3,5]<1,0:T(2,2)>`, with or without layouts. Shared by the model's
// Print routines and the text layer above them.
#ifndef XLA_LAYOUT_PRINT_OPTIONS_H_
#define XLA_LAYOUT_PRINT_OPTIONS_H_

namespace xla_layout {

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
