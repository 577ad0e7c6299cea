// The value of a constant: XLA's literal text parsed against the
// constant's shape. Elements are kept in logical row-major order, integers
// (and pred) as int64 (u64 as its bits), floating-point values as double,
// complex values as two doubles. A floating-point value is held as the
// element type holds it (RoundToFloatType): FloatToBits gives its bits, a
// NaN's sign and payload included (`nan(0x123)` in f32 is 0x7f800123).
//
// Accepted, as XLA writes literals: a scalar (`1`, `-2.5e-3`, `true`,
// `inf`, `-inf`, `nan`, `nan(0x1)`, `(1, 2)` for complex); nested braces,
// one level per dim (`{{1, 2}, {3, 4}}`); `{...}` for a large array whose
// values XLA leaves out; a tuple `(lit, lit)`, each element optionally
// preceded by its shape. Comments (`/*i0=1*/`, `// ...`) count as whitespace.
//
// An integer outside its type's range is refused (s8 128, u8 -1), except
// that u64 takes a negative value (down to -2^63) as its two's-complement
// bits (-1 is 0xffffffffffffffff), as XLA does.
//
// A floating-point value is converted to its type first (FloatToBits) and
// refused only when what it converts to is not finite, as XLA does: f32
// takes 3.4028235e+38, the way XLA prints its largest value, and f16 takes
// 65519 as 65504, but refuses 65520, which rounds to infinity; f4e2m1fn
// saturates and refuses nothing finite; f8e8m0fnu refuses 0 and negative
// values, which convert to its NaN. Text past the range of double is
// refused in every type.
//
// Refused, with the offset into the text: a value outside the element
// type's range (s8 128, u8 -1, f16 65520, inf for a type without inf), a
// NaN payload that does not fit the mantissa or is given to a type with a
// single NaN (f8e4m3fn, the fnuz types, f8e8m0fnu), a count of elements
// other than the shape's, a float where an integer is needed.
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
  // The same for a literal at the start of `text` that more text may follow
  // (an attribute's value): `*length` is how much of `text` it takes.
  static absl::StatusOr<HloLiteral> ParsePrefix(absl::string_view text, const Shape& shape,
                                                size_t* length,
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

// How a floating-point type encodes its values, as XLA's types (ml_dtypes
// for the narrow ones) define them.
struct FloatFormat {
  enum class Kind {
    // The top exponent holds the infinities and the NaNs, which carry
    // payloads: f16, bf16, f32, f64, f8e5m2, f8e4m3, f8e3m4.
    kIeee,
    // No infinity; one NaN per sign, all ones: f8e4m3fn.
    kFiniteNan,
    // No infinity and no -0; the one NaN has -0's encoding: the fnuz types.
    kFiniteUnsignedZero,
    // No infinity, no NaN: f4e2m1fn.
    kFinite,
    // Unsigned powers of two (no zero); the one NaN is all ones: f8e8m0fnu.
    kPowerOfTwo,
  };
  Kind kind;
  int exponent_bits;
  int mantissa_bits;  // explicit ones
  int bias;
  double max_finite;
  bool has_inf() const { return kind == Kind::kIeee; }
  bool has_nan() const { return kind != Kind::kFinite; }
  // The bits nan(0x...) may set: none in a type with a single NaN.
  int nan_payload_bits() const { return kind == Kind::kIeee ? mantissa_bits : 0; }
};
// None for types that are not floating point (complex types give their
// part's format).
std::optional<FloatFormat> FloatFormatOf(PrimitiveType type);

// `value` converted to floating-point type `type` (a complex type: its
// part's), as XLA converts a literal's value, and returned as the element's
// bits, right-aligned. f16 and bf16 round through f32, as XLA's conversions
// from double do; the other types round directly; to nearest, ties to even.
// A value past the largest finite one becomes the type's infinity, its NaN
// when it has no infinity, or its largest finite value in f4e2m1fn, which
// has neither. In f8e8m0fnu, zero and negative values become NaN and
// positive values below 2^-127 become 2^-127. A NaN keeps its sign where the
// type has one, and in the kIeee types the top mantissa bits of the double
// as its payload (a NaN whose top bits are all zero becomes the quiet NaN);
// f4e2m1fn, without a NaN, gives -0. 0 for a type that is not floating point.
uint64_t FloatToBits(double value, PrimitiveType type);
// The value of an element's bits, exactly, as a double. A NaN keeps its sign
// and its payload at the top of the double's mantissa, where FloatToBits
// takes it back from.
double FloatFromBits(uint64_t bits, PrimitiveType type);
// FloatFromBits(FloatToBits(value, type), type): the value the type holds.
double RoundToFloatType(double value, PrimitiveType type);

}  // namespace xla_layout

#endif  // HLO_HLO_LITERAL_H_
