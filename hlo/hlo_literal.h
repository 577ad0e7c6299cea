// The value of a constant: XLA's literal text parsed against the
// constant's shape. Elements are kept in logical row-major order, integers
// (and pred) as int64 (u64 as its bits), floating-point values as double,
// complex values as two doubles.
//
// Accepted, as XLA writes literals: a scalar (`1`, `-2.5e-3`, `true`,
// `inf`, `-inf`, `nan`, `nan(0x1)`, `(1, 2)` for complex); nested braces,
// one level per dim (`{{1, 2}, {3, 4}}`); `{...}` for a large array whose
// values XLA leaves out; a tuple `(lit, lit)`, each element optionally
// preceded by its shape. Comments (`/*i0=1*/`, `// ...`) count as whitespace.
//
// An integer outside its type's range is refused (s8 128, u8 -1), but for
// u64, which takes a negative value as its two's-complement bits (-1 is
// 0xffffffffffffffff), as XLA does.
//
// Refused, with the offset into the text: a value outside the element
// type's range (s8 128, u8 -1, f16 65520, inf for a type without inf), a
// NaN payload that does not fit the mantissa, a count of elements other
// than the shape's, a float where an integer is needed.
#ifndef HLO_HLO_LITERAL_H_
#define HLO_HLO_LITERAL_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla_layout/shape.h"

namespace xla_layout {

class HloLiteral {
 public:
  // Parses the text between a constant's parentheses as a value of `shape`.
  // On failure, `error_offset` (when given) is the offset the error is at.
  static absl::StatusOr<HloLiteral> Parse(absl::string_view text, const Shape& shape,
                                          size_t* error_offset = nullptr);

  const Shape& shape() const { return shape_; }
  // `{...}`: the values were left out of the text.
  bool abbreviated() const { return abbreviated_; }
  int64_t element_count() const { return count_; }
  // Element k in row-major order. Integers and pred in ints(); floats in
  // floats(); complex element k at floats()[2k] (real) and [2k+1] (imag).
  const std::vector<int64_t>& ints() const { return ints_; }
  const std::vector<double>& floats() const { return floats_; }
  const std::vector<HloLiteral>& tuple_elements() const { return elements_; }

 private:
  Shape shape_;
  bool abbreviated_ = false;
  int64_t count_ = 0;
  std::vector<int64_t> ints_;
  std::vector<double> floats_;
  std::vector<HloLiteral> elements_;
  friend class LiteralParser;
};

// The largest finite value of a floating-point type, whether it has
// infinities and NaNs, and its explicit mantissa bits (XLA's formats).
struct FloatFormat {
  double max_finite;
  bool has_inf;
  bool has_nan;
  int mantissa_bits;
};
// None for types that are not floating point (complex types give their
// part's format).
std::optional<FloatFormat> FloatFormatOf(PrimitiveType type);

}  // namespace xla_layout

#endif  // HLO_HLO_LITERAL_H_
