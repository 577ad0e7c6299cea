#include "hlo/hlo_literal.h"

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
  switch (type) {
    case F16: return FloatFormat{65504.0, true, true, 10};
    case BF16: return FloatFormat{3.38953138925153547590470800371487866880e38, true, true, 7};
    case F32:
    case C64: return FloatFormat{FLT_MAX, true, true, 23};
    case F64:
    case C128: return FloatFormat{DBL_MAX, true, true, 52};
    case F8E5M2: return FloatFormat{57344.0, true, true, 2};
    case F8E4M3: return FloatFormat{240.0, true, true, 3};
    case F8E4M3FN: return FloatFormat{448.0, false, true, 3};
    case F8E4M3FNUZ: return FloatFormat{240.0, false, true, 3};
    case F8E5M2FNUZ: return FloatFormat{57344.0, false, true, 2};
    case F8E4M3B11FNUZ: return FloatFormat{30.0, false, true, 3};
    case F8E3M4: return FloatFormat{15.5, true, true, 4};
    case F4E2M1FN: return FloatFormat{6.0, false, false, 1};
    case F8E8M0FNU: return FloatFormat{1.7014118346046923e38, false, true, 0};
    default: return std::nullopt;
  }
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
      if (!f.has_inf) {
        pos_ = at;
        return Error(absl::StrCat(PrimitiveTypeName(t), " has no infinity"));
      }
      out = neg ? -std::numeric_limits<double>::infinity()
                : std::numeric_limits<double>::infinity();
      return absl::OkStatus();
    }
    if (Consume("nan")) {
      if (!f.has_nan) {
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
        if (payload == 0 || (f.mantissa_bits < 64 && payload >> f.mantissa_bits != 0)) {
          pos_ = start;
          return Error(absl::StrCat("NaN payload 0x", absl::Hex(payload), " does not fit the ",
                                    f.mantissa_bits, " mantissa bits of ",
                                    PrimitiveTypeName(t)));
        }
      }
      uint64_t bits = 0x7ff0000000000000ull | (payload != 0 ? payload : 0x8000000000000ull);
      if (neg) bits |= 0x8000000000000000ull;
      std::memcpy(&out, &bits, sizeof(out));
      return absl::OkStatus();
    }
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
    if (std::isinf(v) || std::fabs(v) > f.max_finite) {
      std::string written(text_.substr(at, pos_ - at));
      pos_ = at;
      return Error(absl::StrCat("value ", written, " is out of range for ",
                                PrimitiveTypeName(t), " (largest finite: ", f.max_finite, ")"));
    }
    out = v;
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

}  // namespace xla_layout
