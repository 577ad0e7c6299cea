#include "runtime/logical.h"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "xla_layout/memory.h"
#include "xla_layout/primitive_type.h"

namespace xla_layout::runtime {
namespace {

int64_t ElementBytes(PrimitiveType type) { return PrimitiveByteSize(type); }

uint64_t BitsAt(const LogicalArray& a, int64_t k) {
  const int64_t n = ElementBytes(a.shape.element_type());
  uint64_t bits = 0;
  std::memcpy(&bits, a.bytes.data() + k * n, n);
  return bits;
}

std::string NpyDescr(PrimitiveType type) {
  switch (type) {
    case PRED: return "|b1";
    case S4: case S8: return "|i1";
    case U4: case U8: return "|u1";
    case S16: return "<i2";
    case U16: case BF16: return "<u2";
    case F16: return "<f2";
    case S32: return "<i4";
    case U32: return "<u4";
    case F32: return "<f4";
    case S64: return "<i8";
    case U64: return "<u8";
    case F64: return "<f8";
    case C64: return "<c8";
    default: return "";
  }
}

absl::StatusOr<int64_t> CheckedCount(const Shape& shape) {
  absl::StatusOr<int64_t> count = shape.ElementCount();
  if (!count.ok()) return count.status();
  absl::Status room = CheckAllocationSize(*count * ElementBytes(shape.element_type()),
                                          "a logical array");
  if (!room.ok()) return room;
  return count;
}

Shape LogicalShape(const Shape& shape) {
  Shape s = shape;
  s.set_layout(DefaultLayoutForRank(s.rank()));
  return s;
}

// The header of a .npy file: a Python dict literal with exactly the keys
// descr (a string), fortran_order (True or False) and shape (a tuple of
// integers), as numpy writes and requires it.
struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> dims;
};

class NpyHeaderReader {
 public:
  explicit NpyHeaderReader(absl::string_view text) : text_(text) {}

  absl::StatusOr<NpyHeader> Read() {
    NpyHeader h;
    bool seen[3] = {false, false, false};
    if (!Take('{')) return Error("the header is not a dict");
    while (!Take('}')) {
      absl::StatusOr<std::string> key = String();
      if (!key.ok()) return key.status();
      if (!Take(':')) return Error(absl::StrCat("expected ':' after '", *key, "'"));
      absl::Status s = Value(*key, h, seen);
      if (!s.ok()) return s;
      if (!Take(',') && Peek() != '}') return Error("expected ',' or '}'");
    }
    Space();
    if (pos_ != text_.size()) return Error("text after the header's dict");
    if (!seen[0] || !seen[1] || !seen[2]) {
      return Error("the header lacks descr, fortran_order or shape");
    }
    return h;
  }

 private:
  absl::Status Value(const std::string& key, NpyHeader& h, bool* seen) {
    const int k = key == "descr" ? 0 : key == "fortran_order" ? 1 : key == "shape" ? 2 : -1;
    if (k < 0) return Error(absl::StrCat("unknown header key '", key, "'"));
    if (seen[k]) return Error(absl::StrCat("header key '", key, "' is given twice"));
    seen[k] = true;
    if (k == 0) {
      absl::StatusOr<std::string> d = String();
      if (!d.ok()) return d.status();
      h.descr = *d;
    } else if (k == 1) {
      if (Word("True")) {
        h.fortran_order = true;
      } else if (!Word("False")) {
        return Error("fortran_order must be True or False");
      }
    } else {
      return Tuple(h.dims);
    }
    return absl::OkStatus();
  }
  absl::Status Tuple(std::vector<int64_t>& dims) {
    if (!Take('(')) return Error("shape must be a tuple");
    while (!Take(')')) {
      Space();
      size_t end = pos_;
      while (end < text_.size() && absl::ascii_isdigit(text_[end])) ++end;
      int64_t d;
      if (!absl::SimpleAtoi(text_.substr(pos_, end - pos_), &d)) {
        return Error("shape must hold non-negative integers");
      }
      dims.push_back(d);
      pos_ = end;
      if (!Take(',') && Peek() != ')') return Error("expected ',' or ')' in shape");
    }
    return absl::OkStatus();
  }
  absl::StatusOr<std::string> String() {
    Space();
    const char quote = pos_ < text_.size() ? text_[pos_] : '\0';
    if (quote != '\'' && quote != '"') return Error("expected a quoted string");
    std::string out;
    for (++pos_; pos_ < text_.size() && text_[pos_] != quote; ++pos_) {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;
      out += text_[pos_];
    }
    if (pos_ >= text_.size()) return Error("unterminated string");
    ++pos_;
    return out;
  }
  bool Word(absl::string_view w) {
    Space();
    if (!absl::StartsWith(text_.substr(pos_), w)) return false;
    pos_ += w.size();
    return true;
  }
  void Space() {
    while (pos_ < text_.size() && absl::ascii_isspace(text_[pos_])) ++pos_;
  }
  char Peek() { return Space(), pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool Take(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat("bad header at byte ", pos_, " of its dict: ", what));
  }

  absl::string_view text_;
  size_t pos_ = 0;
};

absl::StatusOr<NpyHeader> ParseNpyHeader(absl::string_view text) {
  return NpyHeaderReader(text).Read();
}

// A .npy byte holds one s4, u4 or pred element: refuses one outside the
// type's range, naming it.
absl::Status CheckElementsInRange(const LogicalArray& a) {
  const PrimitiveType type = a.shape.element_type();
  if (type != S4 && type != U4 && type != PRED) return absl::OkStatus();
  const int lo = type == S4 ? -8 : 0, hi = type == S4 ? 7 : type == U4 ? 15 : 1;
  for (size_t k = 0; k < a.bytes.size(); ++k) {
    const int v = type == S4 ? static_cast<int8_t>(a.bytes[k]) : static_cast<uint8_t>(a.bytes[k]);
    if (v >= lo && v <= hi) continue;
    return absl::InvalidArgumentError(absl::StrCat(
        "element ", k, " holds ", v, ", outside ", PrimitiveTypeName(type), "'s range [", lo,
        ", ", hi, "]"));
  }
  return absl::OkStatus();
}

}  // namespace

// A c64's real and imaginary parts, each an f32 (uniform in [-1, 1)).
uint64_t RandomComplexBits(std::mt19937_64& rng) {
  uint64_t bits = 0;
  for (int part = 0; part < 2; ++part) {
    Num v;
    v.f = static_cast<double>(rng() >> 11) * 0x1.0p-52 - 1.0;
    bits |= ToBits(Normalize(v, F32), F32) << (32 * part);
  }
  return bits;
}

absl::StatusOr<LogicalArray> RandomLogicalArray(const Shape& shape, std::mt19937_64& rng) {
  absl::Status type = CheckStorableType(shape.element_type());
  if (!type.ok()) return type;
  absl::StatusOr<int64_t> count = CheckedCount(shape);
  if (!count.ok()) return count.status();
  LogicalArray a;
  a.shape = LogicalShape(shape);
  const PrimitiveType t = shape.element_type();
  const int64_t n = ElementBytes(t);
  a.bytes.resize(*count * n);
  for (int64_t k = 0; k < *count; ++k) {
    if (t == C64) {
      const uint64_t bits = RandomComplexBits(rng);
      std::memcpy(a.bytes.data() + k * n, &bits, n);
      continue;
    }
    Num v;
    switch (DomainOf(t)) {
      case Domain::kFloat:
        // 53 random bits: uniform in [-1, 1).
        v.f = static_cast<double>(rng() >> 11) * 0x1.0p-52 - 1.0;
        break;
      case Domain::kSigned: v.i = static_cast<int64_t>(rng() % 16) - 8; break;
      case Domain::kUnsigned: v.i = static_cast<int64_t>(rng() % 16); break;
      case Domain::kPred: v.i = rng() & 1; break;
    }
    uint64_t bits = ToBits(Normalize(v, t), t);
    if (DomainOf(t) == Domain::kSigned) bits = static_cast<uint64_t>(v.i);  // sign-extended
    std::memcpy(a.bytes.data() + k * n, &bits, n);
  }
  return a;
}

Num ElementAt(const LogicalArray& array, int64_t k) {
  return FromBits(BitsAt(array, k), array.shape.element_type());
}

std::string FormatElement(const LogicalArray& array, int64_t k, bool with_bits) {
  const PrimitiveType t = array.shape.element_type();
  if (t == C64) {
    const uint64_t bits = BitsAt(array, k);
    std::string text = absl::StrFormat("(%.9g, %.9g)", FromBits(bits & 0xffffffffu, F32).f,
                                       FromBits(bits >> 32, F32).f);
    if (with_bits) absl::StrAppend(&text, absl::StrFormat(" (0x%016x)", bits));
    return text;
  }
  const Num v = ElementAt(array, k);
  switch (DomainOf(t)) {
    case Domain::kPred: return v.i ? "true" : "false";
    case Domain::kUnsigned: return absl::StrCat(static_cast<uint64_t>(v.i));
    case Domain::kSigned: return absl::StrCat(v.i);
    case Domain::kFloat: {
      const int digits = t == F64 ? 17 : t == F32 ? 9 : 5;
      std::string text = absl::StrFormat("%.*g", digits, v.f);
      if (with_bits) {
        absl::StrAppend(&text, absl::StrFormat(" (0x%0*x)", 2 * ElementBytes(t), BitsAt(array, k)));
      }
      return text;
    }
  }
  return "";
}

std::optional<int64_t> FirstDifference(const LogicalArray& a, const LogicalArray& b) {
  if (!Shape::Equal().IgnoreLayout()(a.shape, b.shape)) return 0;
  const int64_t n = ElementBytes(a.shape.element_type());
  for (size_t byte = 0; byte < a.bytes.size(); byte += n) {
    if (std::memcmp(a.bytes.data() + byte, b.bytes.data() + byte, n) != 0) {
      return static_cast<int64_t>(byte / n);
    }
  }
  return std::nullopt;
}

std::string DescribeArray(const LogicalArray& array, int64_t max_elements) {
  Shape plain = array.shape;
  plain.clear_layout();
  const int64_t n = static_cast<int64_t>(array.bytes.size()) /
                    ElementBytes(array.shape.element_type());
  if (n <= max_elements) {
    std::vector<std::string> items;
    for (int64_t k = 0; k < n; ++k) items.push_back(FormatElement(array, k));
    return absl::StrCat(plain.ToString(), " {", absl::StrJoin(items, ", "), "}");
  }
  uint64_t hash = 1469598103934665603ull;
  for (uint8_t byte : array.bytes) hash = (hash ^ byte) * 1099511628211ull;
  if (array.shape.element_type() == C64) {
    return absl::StrFormat("%s checksum=%016x", plain.ToString(), hash);
  }
  const bool is_float = DomainOf(array.shape.element_type()) == Domain::kFloat;
  double lo = 0, hi = 0, sum = 0;
  for (int64_t k = 0; k < n; ++k) {
    Num v = ElementAt(array, k);
    double x = is_float ? v.f
               : DomainOf(array.shape.element_type()) == Domain::kUnsigned
                   ? static_cast<double>(static_cast<uint64_t>(v.i))
                   : static_cast<double>(v.i);
    if (k == 0 || x < lo || std::isnan(x)) lo = x;
    if (k == 0 || x > hi || std::isnan(x)) hi = x;
    sum += x;
  }
  return absl::StrFormat("%s min=%.6g max=%.6g mean=%.6g checksum=%016x", plain.ToString(), lo,
                         hi, n > 0 ? sum / n : 0.0, hash);
}

std::string EncodeNpy(const LogicalArray& array) {
  std::vector<std::string> dims;
  for (int64_t d : array.shape.dimensions()) dims.push_back(absl::StrCat(d));
  std::string shape = dims.size() == 1 ? absl::StrCat("(", dims[0], ",)")
                                       : absl::StrCat("(", absl::StrJoin(dims, ", "), ")");
  std::string header = absl::StrCat("{'descr': '", NpyDescr(array.shape.element_type()),
                                    "', 'fortran_order': False, 'shape': ", shape, ", }");
  // Magic (6) + version (2) + length (2) + header + '\n', a multiple of 64.
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(header.size() & 0xFF));
  out.push_back(static_cast<char>(header.size() >> 8));
  out += header;
  out.append(reinterpret_cast<const char*>(array.bytes.data()), array.bytes.size());
  return out;
}

absl::StatusOr<LogicalArray> DecodeNpy(const std::string& bytes, const Shape& shape,
                                       const std::string& name) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": ", why));
  };
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) {
    return bad("not a .npy file (no \\x93NUMPY magic)");
  }
  const int major = static_cast<uint8_t>(bytes[6]);
  size_t header_len, start;
  if (major == 1) {
    header_len = static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return bad("truncated header");
    header_len = 0;
    for (int k = 3; k >= 0; --k) header_len = (header_len << 8) | static_cast<uint8_t>(bytes[8 + k]);
    start = 12;
  } else {
    return bad(absl::StrCat("unknown .npy version ", major));
  }
  if (bytes.size() < start + header_len) return bad("truncated header");
  absl::StatusOr<NpyHeader> header = ParseNpyHeader(bytes.substr(start, header_len));
  if (!header.ok()) return bad(header.status().message());
  const std::string want = NpyDescr(shape.element_type());
  std::string got = header->descr;
  if (!got.empty() && got[0] == '=') got[0] = '<';
  if (got.size() == 3 && got[0] == '<' && want[0] == '|') got[0] = '|';
  if (got != want) {
    return bad(absl::StrCat("holds '", header->descr, "' but ",
                            PrimitiveTypeName(shape.element_type()), " needs '", want, "'"));
  }
  if (header->fortran_order) return bad("Fortran order is not supported; save in C order");
  const std::vector<int64_t>& dims = header->dims;
  const std::string dims_text = absl::StrCat("(", absl::StrJoin(dims, ", "), ")");
  if (dims != std::vector<int64_t>(shape.dimensions().begin(), shape.dimensions().end())) {
    Shape plain = shape;
    plain.clear_layout();
    return bad(absl::StrCat("has shape ", dims_text, " but the parameter is ", plain.ToString()));
  }
  absl::StatusOr<int64_t> count = CheckedCount(shape);
  if (!count.ok()) return count.status();
  const size_t data = start + header_len;
  const size_t need = *count * ElementBytes(shape.element_type());
  if (bytes.size() - data != need) {
    return bad(absl::StrCat("holds ", bytes.size() - data, " bytes of data, not ", need));
  }
  LogicalArray a;
  a.shape = LogicalShape(shape);
  a.bytes.assign(bytes.begin() + data, bytes.end());
  absl::Status in_range = CheckElementsInRange(a);
  if (!in_range.ok()) return bad(in_range.message());
  return a;
}

}  // namespace xla_layout::runtime
