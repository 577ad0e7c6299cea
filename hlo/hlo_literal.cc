#include "hlo/hlo_literal.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "xla_layout/primitive_type.h"
#include "xla_layout/shape_text.h"

namespace xla_layout {

std::optional<FloatFormat> FloatFormatOf(PrimitiveType type) {
  using K = FloatFormat::Kind;
  switch (type) {
    case F16: return FloatFormat{K::kIeee, 5, 10, 15, 65504.0};
    case BF16: return FloatFormat{K::kIeee, 8, 7, 127, 3.38953138925153547590470800371487866880e38};
    case F32:
    case C64: return FloatFormat{K::kIeee, 8, 23, 127, FLT_MAX};
    case F64:
    case C128: return FloatFormat{K::kIeee, 11, 52, 1023, DBL_MAX};
    case F8E5M2: return FloatFormat{K::kIeee, 5, 2, 15, 57344.0};
    case F8E4M3: return FloatFormat{K::kIeee, 4, 3, 7, 240.0};
    case F8E3M4: return FloatFormat{K::kIeee, 3, 4, 3, 15.5};
    case F8E4M3FN: return FloatFormat{K::kFiniteNan, 4, 3, 7, 448.0};
    case F8E4M3FNUZ: return FloatFormat{K::kFiniteUnsignedZero, 4, 3, 8, 240.0};
    case F8E5M2FNUZ: return FloatFormat{K::kFiniteUnsignedZero, 5, 2, 16, 57344.0};
    case F8E4M3B11FNUZ: return FloatFormat{K::kFiniteUnsignedZero, 4, 3, 11, 30.0};
    case F4E2M1FN: return FloatFormat{K::kFinite, 2, 1, 1, 6.0};
    case F8E8M0FNU: return FloatFormat{K::kPowerOfTwo, 8, 0, 127, 1.7014118346046923e38};
    default: return std::nullopt;
  }
}

namespace {

using Kind = FloatFormat::Kind;

constexpr int kDoubleMantissaBits = 52;
constexpr uint64_t kDoubleExponentMask = 0x7ff0000000000000ull;
constexpr uint64_t kDoubleMantissaMask = 0x000fffffffffffffull;

uint64_t DoubleBits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, sizeof(u));
  return u;
}
double BitsDouble(uint64_t u) {
  double d;
  std::memcpy(&d, &u, sizeof(d));
  return d;
}
uint64_t LowBits(int n) { return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1; }

// The sign bit of a signed format (f8e8m0fnu has none).
uint64_t SignBit(const FloatFormat& f) {
  return f.kind == Kind::kPowerOfTwo ? 0 : uint64_t{1} << (f.exponent_bits + f.mantissa_bits);
}
uint64_t AllOnesMagnitude(const FloatFormat& f) {
  return LowBits(f.exponent_bits + f.mantissa_bits);
}
// The unbiased exponent of the smallest normal value.
int MinExponent(const FloatFormat& f) {
  return f.kind == Kind::kPowerOfTwo ? -f.bias : 1 - f.bias;
}

// A NaN of `f`: in kIeee types with `payload` (0: the quiet NaN), in the
// others the type's one NaN (f4e2m1fn has none: -0, as ml_dtypes gives).
uint64_t NanBits(bool negative, uint64_t payload, const FloatFormat& f) {
  switch (f.kind) {
    case Kind::kIeee: {
      if (payload == 0) payload = uint64_t{1} << (f.mantissa_bits - 1);
      uint64_t exponent = LowBits(f.exponent_bits) << f.mantissa_bits;
      return (negative ? SignBit(f) : 0) | exponent | payload;
    }
    case Kind::kFiniteNan: return (negative ? SignBit(f) : 0) | AllOnesMagnitude(f);
    case Kind::kPowerOfTwo: return LowBits(f.exponent_bits);
    default: return SignBit(f);
  }
}

// What a value past the largest finite one converts to.
uint64_t OverflowBits(bool negative, const FloatFormat& f) {
  const uint64_t sign = negative ? SignBit(f) : 0;
  switch (f.kind) {
    case Kind::kIeee: return sign | (LowBits(f.exponent_bits) << f.mantissa_bits);
    case Kind::kFinite: return sign | AllOnesMagnitude(f);  // saturates
    default: return NanBits(negative, 0, f);
  }
}

// `a` (finite, > 0) rounded to the nearest value on the grid of `f`, ties
// to the even significand: mantissa_bits below the leading one for normal
// values, a fixed step below the smallest normal. May pass max_finite.
double RoundToGrid(double a, const FloatFormat& f) {
  int exponent;
  std::frexp(a, &exponent);  // a = m * 2^exponent, m in [0.5, 1)
  const int step = std::max(exponent - 1, MinExponent(f)) - f.mantissa_bits;
  const double scaled = std::ldexp(a, -step);  // exact: below 2^(mantissa_bits + 1)
  double whole = std::floor(scaled);
  const double rest = scaled - whole;
  if (rest > 0.5 || (rest == 0.5 && std::fmod(whole, 2.0) != 0)) whole += 1;
  return std::ldexp(whole, step);
}

// The exponent and mantissa fields of `r`, a finite value >= 0 of `f`.
uint64_t MagnitudeBits(double r, const FloatFormat& f) {
  if (r == 0) return 0;
  int exponent;
  std::frexp(r, &exponent);
  const int e = exponent - 1;  // r = 1.m * 2^e
  if (f.kind == Kind::kPowerOfTwo) return static_cast<uint64_t>(e + f.bias);
  const int min_exponent = MinExponent(f);
  if (e < min_exponent) {  // subnormal: a multiple of the smallest step
    return static_cast<uint64_t>(std::ldexp(r, f.mantissa_bits - min_exponent));
  }
  const uint64_t significand = static_cast<uint64_t>(std::ldexp(r, f.mantissa_bits - e));
  return (static_cast<uint64_t>(e + f.bias) << f.mantissa_bits) |
         (significand & LowBits(f.mantissa_bits));
}

// FloatToBits for a finite value of a type narrower than f64.
uint64_t FiniteToBits(double value, PrimitiveType type, const FloatFormat& f) {
  const bool negative = std::signbit(value);
  double a = std::fabs(value);
  // f32 by the hardware's conversion; f16 and bf16 through it, as XLA's
  // conversions from double go.
  if (type == F32 || type == C64 || type == F16 || type == BF16) {
    a = static_cast<float>(a);
    if (std::isinf(a)) return OverflowBits(negative, f);
  }
  if (f.kind == Kind::kPowerOfTwo && (a == 0 || negative)) return NanBits(negative, 0, f);
  double r = a == 0 ? 0 : RoundToGrid(a, f);
  if (f.kind == Kind::kPowerOfTwo) r = std::max(r, std::ldexp(1.0, -f.bias));
  if (r > f.max_finite) return OverflowBits(negative, f);
  const uint64_t magnitude = MagnitudeBits(r, f);
  // The fnuz types have no -0: its encoding is their NaN.
  const bool signed_zero = f.kind != Kind::kFiniteUnsignedZero || magnitude != 0;
  return (negative && signed_zero ? SignBit(f) : 0) | magnitude;
}

}  // namespace

uint64_t FloatToBits(double value, PrimitiveType type) {
  std::optional<FloatFormat> format = FloatFormatOf(type);
  if (!format) return 0;
  const FloatFormat& f = *format;
  if (f.mantissa_bits == kDoubleMantissaBits) return DoubleBits(value);
  if (std::isnan(value)) {
    const uint64_t top = (DoubleBits(value) & kDoubleMantissaMask) >>
                         (kDoubleMantissaBits - f.mantissa_bits);
    return NanBits(std::signbit(value), f.kind == Kind::kIeee ? top : 0, f);
  }
  if (std::isinf(value)) return OverflowBits(std::signbit(value), f);
  return FiniteToBits(value, type, f);
}

double FloatFromBits(uint64_t bits, PrimitiveType type) {
  std::optional<FloatFormat> format = FloatFormatOf(type);
  if (!format) return 0;
  const FloatFormat& f = *format;
  if (f.mantissa_bits == kDoubleMantissaBits) return BitsDouble(bits);
  const uint64_t exponent = (bits >> f.mantissa_bits) & LowBits(f.exponent_bits);
  const uint64_t mantissa = bits & LowBits(f.mantissa_bits);
  const bool negative = (bits & SignBit(f)) != 0;
  const uint64_t sign = negative ? uint64_t{1} << 63 : 0;
  const bool top_exponent = exponent == LowBits(f.exponent_bits);
  if (f.kind == Kind::kIeee && top_exponent) {
    return BitsDouble(sign | kDoubleExponentMask |
                      mantissa << (kDoubleMantissaBits - f.mantissa_bits));
  }
  const bool nan = (f.kind == Kind::kFiniteNan && top_exponent &&
                    mantissa == LowBits(f.mantissa_bits)) ||
                   (f.kind == Kind::kFiniteUnsignedZero && bits == SignBit(f)) ||
                   (f.kind == Kind::kPowerOfTwo && top_exponent);
  if (nan) return BitsDouble(sign | kDoubleExponentMask | (uint64_t{1} << 51));
  if (f.kind == Kind::kPowerOfTwo) {
    return std::ldexp(1.0, static_cast<int>(exponent) - f.bias);
  }
  const double magnitude =
      exponent == 0
          ? std::ldexp(static_cast<double>(mantissa), MinExponent(f) - f.mantissa_bits)
          : std::ldexp(static_cast<double>(mantissa | (uint64_t{1} << f.mantissa_bits)),
                       static_cast<int>(exponent) - f.bias - f.mantissa_bits);
  return negative ? -magnitude : magnitude;
}

double RoundToFloatType(double value, PrimitiveType type) {
  // The common types the short way: a constant may hold millions.
  if (type == F64 || type == C128) return value;
  if ((type == F32 || type == C64) && !std::isnan(value)) return static_cast<float>(value);
  return FloatFromBits(FloatToBits(value, type), type);
}

namespace {

bool IsComplexType(PrimitiveType t) { return t == C64 || t == C128; }

// The values an integer literal of type `t` may be written with (pred: 0
// and 1), as [lo, hi] in 128 bits.
bool IntegerRange(PrimitiveType t, __int128& lo, __int128& hi) {
  int bits;
  bool is_signed;
  switch (t) {
    case PRED: lo = 0; hi = 1; return true;
    case S1: bits = 1; is_signed = true; break;
    case S2: bits = 2; is_signed = true; break;
    case S4: bits = 4; is_signed = true; break;
    case S8: bits = 8; is_signed = true; break;
    case S16: bits = 16; is_signed = true; break;
    case S32: bits = 32; is_signed = true; break;
    case S64: bits = 64; is_signed = true; break;
    case U1: bits = 1; is_signed = false; break;
    case U2: bits = 2; is_signed = false; break;
    case U4: bits = 4; is_signed = false; break;
    case U8: bits = 8; is_signed = false; break;
    case U16: bits = 16; is_signed = false; break;
    case U32: bits = 32; is_signed = false; break;
    case U64: bits = 64; is_signed = false; break;
    default: return false;
  }
  if (is_signed) {
    lo = -(static_cast<__int128>(1) << (bits - 1));
    hi = (static_cast<__int128>(1) << (bits - 1)) - 1;
  } else {
    // XLA reads integer text as s64 and gives a u64 literal those bits, so
    // that u64 takes -1 as 0xffffffffffffffff; narrower types refuse it.
    lo = bits == 64 ? -(static_cast<__int128>(1) << 63) : 0;
    hi = (static_cast<__int128>(1) << bits) - 1;
  }
  return true;
}

std::string Int128String(__int128 v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  unsigned __int128 u = neg ? -static_cast<unsigned __int128>(v) : v;
  std::string s;
  while (u > 0) {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  return neg ? "-" + s : s;
}

}  // namespace

// A recursive-descent reader over one literal's text.
class LiteralParser {
 public:
  explicit LiteralParser(absl::string_view text) : text_(text) {}

  absl::Status Error(absl::string_view message) {
    error_offset_ = pos_;
    return absl::InvalidArgumentError(message);
  }
  size_t error_offset() const { return error_offset_; }
  size_t pos() const { return pos_; }

  // Comments are whitespace here as everywhere in HLO text: XLA's dumps
  // write `/*index=N*/` inside large literals.
  void Skip() { pos_ = SkipSpaceAndComments(text_, pos_); }
  bool Consume(absl::string_view s) {
    Skip();
    if (text_.substr(pos_, s.size()) == s) {
      pos_ += s.size();
      return true;
    }
    return false;
  }
  bool AtEnd() {
    Skip();
    return pos_ >= text_.size();
  }

  absl::StatusOr<HloLiteral> Parse(const Shape& shape) {
    HloLiteral lit;
    lit.shape_ = shape;
    lit.shape_.clear_layout();
    if (shape.IsTuple()) {
      absl::Status s = ParseTuple(lit);
      if (!s.ok()) return s;
      return lit;
    }
    if (!shape.IsArray()) return Error(absl::StrCat(shape.ToString(), " has no literal"));
    absl::StatusOr<int64_t> count = shape.ElementCount();
    if (!count.ok()) return Error(count.status().message());
    lit.count_ = *count;
    absl::Status s = ParseDense(lit);
    if (!s.ok()) return s;
    return lit;
  }

 private:
  absl::Status ParseTuple(HloLiteral& lit) {
    if (!Consume("(")) return Error("a tuple literal starts with '('");
    for (size_t k = 0; k < lit.shape_.tuple_shapes().size(); ++k) {
      if (k > 0 && !Consume(",")) return Error("expected ',' between tuple elements");
      const Shape& element = lit.shape_.tuple_shapes()[k];
      // An element may be written with its type and dims first (no layout:
      // a '{' after them starts the values).
      Skip();
      size_t name_end = pos_;
      while (name_end < text_.size() && absl::ascii_isalnum(text_[name_end])) ++name_end;
      if (name_end < text_.size() && text_[name_end] == '[' &&
          ParsePrimitiveType(text_.substr(pos_, name_end - pos_)).ok()) {
        size_t close = text_.find(']', name_end);
        if (close == absl::string_view::npos) return Error("unclosed '[' in a tuple element");
        absl::StatusOr<Shape> written = ParseShape(text_.substr(pos_, close + 1 - pos_));
        if (!written.ok() || !Shape::Equal().IgnoreLayout()(*written, element)) {
          return Error(absl::StrCat("tuple element ", k, " is written ",
                                    text_.substr(pos_, close + 1 - pos_),
                                    " but the shape says ", element.ToString()));
        }
        pos_ = close + 1;
      }
      absl::StatusOr<HloLiteral> e = Parse(element);
      if (!e.ok()) return e.status();
      lit.elements_.push_back(*std::move(e));
    }
    if (!Consume(")")) {
      return Error(absl::StrCat("expected ')' after the ", lit.shape_.tuple_shapes().size(),
                                " tuple elements"));
    }
    return absl::OkStatus();
  }

  absl::Status ParseDense(HloLiteral& lit) {
    const Shape& shape = lit.shape_;
    const int rank = shape.rank();
    if (rank == 0) return ParseValue(lit);
    std::vector<int64_t> seen(rank, 0);
    int level = 0;
    do {
      Skip();
      if (pos_ >= text_.size()) return Error("the literal ends early");
      char c = text_[pos_];
      if (c == '{') {
        if (++level > rank) {
          return Error(absl::StrCat("braces nested deeper than the rank (", rank, ")"));
        }
        if (level > 1 && ++seen[level - 2] > shape.dimensions(level - 2)) {
          return Error(absl::StrCat("more than ", shape.dimensions(level - 2),
                                    " entries in dim ", level - 2));
        }
        ++pos_;
      } else if (c == '}') {
        if (level == 0) return Error("unexpected '}'");
        if (seen[level - 1] != shape.dimensions(level - 1)) {
          return Error(absl::StrCat("dim ", level - 1, " needs ", shape.dimensions(level - 1),
                                    " entries, the literal has ", seen[level - 1]));
        }
        seen[level - 1] = 0;
        --level;
        ++pos_;
      } else if (c == ',') {
        ++pos_;
      } else if (text_.substr(pos_, 3) == "...") {
        if (level != 1) return Error("'...' stands only at the outermost level");
        seen[0] = shape.dimensions(0);
        lit.abbreviated_ = true;
        pos_ += 3;
      } else {
        if (level != rank) {
          return Error(absl::StrCat("a value at nesting level ", level, " of a rank-", rank,
                                    " literal"));
        }
        if (++seen[rank - 1] > shape.dimensions(rank - 1)) {
          return Error(absl::StrCat("more than ", shape.dimensions(rank - 1),
                                    " entries in dim ", rank - 1));
        }
        absl::Status s = ParseValue(lit);
        if (!s.ok()) return s;
      }
    } while (level > 0);
    if (lit.abbreviated_) {
      lit.ints_.clear();
      lit.floats_.clear();
    }
    return absl::OkStatus();
  }

  // One scalar of the literal's type, appended to its values.
  absl::Status ParseValue(HloLiteral& lit) {
    const PrimitiveType t = lit.shape_.element_type();
    Skip();
    const size_t at = pos_;
    if (IsComplexType(t)) {
      if (!Consume("(")) return Error("a complex value is written (real, imag)");
      double re, im;
      absl::Status s = ParseFloat(t, re);
      if (!s.ok()) return s;
      if (!Consume(",")) return Error("expected ',' between real and imaginary parts");
      s = ParseFloat(t, im);
      if (!s.ok()) return s;
      if (!Consume(")")) return Error("expected ')' after a complex value");
      lit.floats_.push_back(re);
      lit.floats_.push_back(im);
      return absl::OkStatus();
    }
    if (FloatFormatOf(t)) {
      double v;
      absl::Status s = ParseFloat(t, v);
      if (!s.ok()) return s;
      lit.floats_.push_back(v);
      return absl::OkStatus();
    }
    __int128 lo, hi;
    if (!IntegerRange(t, lo, hi)) {
      return Error(absl::StrCat(PrimitiveTypeName(t), " has no literal values"));
    }
    if (Consume("true")) {
      lit.ints_.push_back(1);
    } else if (Consume("false")) {
      lit.ints_.push_back(0);
    } else {
      size_t start = pos_;
      if (pos_ < text_.size() && (text_[pos_] == '-' || text_[pos_] == '+')) ++pos_;
      while (pos_ < text_.size() && absl::ascii_isdigit(text_[pos_])) ++pos_;
      absl::string_view digits = text_.substr(start, pos_ - start);
      if (pos_ < text_.size() && (text_[pos_] == '.' || text_[pos_] == 'e' || text_[pos_] == 'E')) {
        pos_ = at;
        return Error(absl::StrCat("expected an integer for ", PrimitiveTypeName(t)));
      }
      __int128 v = 0;
      bool neg = !digits.empty() && digits[0] == '-';
      absl::string_view mag = digits;
      if (!mag.empty() && (mag[0] == '-' || mag[0] == '+')) mag.remove_prefix(1);
      if (mag.empty()) {
        pos_ = at;
        return Error(absl::StrCat("expected a value of type ", PrimitiveTypeName(t)));
      }
      for (char d : mag) {
        v = v * 10 + (d - '0');
        if (v > (static_cast<__int128>(1) << 65)) break;  // out of every range
      }
      if (neg) v = -v;
      if (v < lo || v > hi) {
        pos_ = at;
        return Error(absl::StrCat("value ", digits, " is out of range for ", PrimitiveTypeName(t),
                                  " [", Int128String(lo), ", ", Int128String(hi), "]"));
      }
      lit.ints_.push_back(static_cast<int64_t>(static_cast<uint64_t>(v)));
    }
    return absl::OkStatus();
  }

  absl::Status ParseFloat(PrimitiveType t, double& out) {
    const FloatFormat f = *FloatFormatOf(t);
    Skip();
    const size_t at = pos_;
    bool neg = false;
    if (pos_ < text_.size() && (text_[pos_] == '-' || text_[pos_] == '+')) {
      neg = text_[pos_] == '-';
      ++pos_;
    }
    if (Consume("inf")) {
      if (!f.has_inf()) {
        pos_ = at;
        return Error(absl::StrCat(PrimitiveTypeName(t), " has no infinity"));
      }
      out = neg ? -std::numeric_limits<double>::infinity()
                : std::numeric_limits<double>::infinity();
      return absl::OkStatus();
    }
    if (Consume("nan")) return ParseNan(t, at, neg, out);
    return ParseNumber(t, at, neg, out);
  }

  // A NaN after its sign and `nan`: the type's quiet NaN, or `(0x...)` with
  // a payload, kept bit for bit (XLA prints it back so).
  absl::Status ParseNan(PrimitiveType t, size_t at, bool neg, double& out) {
    const FloatFormat f = *FloatFormatOf(t);
    if (!f.has_nan()) {
      pos_ = at;
      return Error(absl::StrCat(PrimitiveTypeName(t), " has no NaN"));
    }
    uint64_t payload = 0;
    if (Consume("(")) {
      size_t start = pos_;
      while (pos_ < text_.size() && text_[pos_] != ')') ++pos_;
      absl::string_view p = text_.substr(start, pos_ - start);
      if (!absl::ConsumePrefix(&p, "0x") || !absl::SimpleHexAtoi(p, &payload) ||
          pos_ >= text_.size()) {
        pos_ = start;
        return Error("a NaN payload is written nan(0x...)");
      }
      ++pos_;
      if (f.nan_payload_bits() == 0) {
        pos_ = start;
        return Error(absl::StrCat(PrimitiveTypeName(t), " has a single NaN, without a payload"));
      }
      if (payload == 0 || payload >> f.nan_payload_bits() != 0) {
        pos_ = start;
        return Error(absl::StrCat("NaN payload 0x", absl::Hex(payload), " does not fit the ",
                                  f.nan_payload_bits(), " mantissa bits of ",
                                  PrimitiveTypeName(t)));
      }
    }
    out = FloatFromBits(NanBits(neg, payload, f), t);
    return absl::OkStatus();
  }

  // The digits of a float after its sign (at `at`), converted to `t` and
  // refused, as XLA refuses them, only when that is not finite.
  absl::Status ParseNumber(PrimitiveType t, size_t at, bool neg, double& out) {
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (absl::ascii_isdigit(text_[pos_]) || text_[pos_] == '.' || text_[pos_] == 'e' ||
            text_[pos_] == 'E' ||
            ((text_[pos_] == '-' || text_[pos_] == '+') && pos_ > start &&
             (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E')))) {
      ++pos_;
    }
    double v;
    if (pos_ == start || !absl::SimpleAtod(text_.substr(start, pos_ - start), &v)) {
      pos_ = at;
      return Error(absl::StrCat("expected a value of type ", PrimitiveTypeName(t)));
    }
    if (neg) v = -v;
    // Text past the range of double is refused even where the type would
    // saturate it.
    const double converted = std::isinf(v) ? v : RoundToFloatType(v, t);
    if (!std::isfinite(converted)) {
      const FloatFormat f = *FloatFormatOf(t);
      std::string written(text_.substr(at, pos_ - at));
      pos_ = at;
      if (std::isinf(v) || std::fabs(v) > f.max_finite) {
        return Error(absl::StrCat("value ", written, " is out of range for ",
                                  PrimitiveTypeName(t), " (largest finite: ", f.max_finite,
                                  ")"));
      }
      return Error(absl::StrCat("value ", written, " converts to NaN in ", PrimitiveTypeName(t),
                                ", which holds only positive powers of two"));
    }
    out = converted;
    return absl::OkStatus();
  }

  absl::string_view text_;
  size_t pos_ = 0;
  size_t error_offset_ = 0;
};

absl::StatusOr<HloLiteral> HloLiteral::Parse(absl::string_view text, const Shape& shape,
                                             size_t* error_offset) {
  LiteralParser parser(text);
  absl::StatusOr<HloLiteral> lit = parser.Parse(shape);
  if (lit.ok() && !parser.AtEnd()) {
    lit = parser.Error("unexpected text after the literal");
  }
  if (!lit.ok() && error_offset != nullptr) *error_offset = parser.error_offset();
  return lit;
}

absl::StatusOr<HloLiteral> HloLiteral::ParsePrefix(absl::string_view text, const Shape& shape,
                                                   size_t* length, size_t* error_offset) {
  LiteralParser parser(text);
  absl::StatusOr<HloLiteral> lit = parser.Parse(shape);
  if (lit.ok()) *length = parser.pos();
  if (!lit.ok() && error_offset != nullptr) *error_offset = parser.error_offset();
  return lit;
}

}  // namespace xla_layout
