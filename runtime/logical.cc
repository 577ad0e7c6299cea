#include "runtime/logical.h"

#include <cmath>
#include <cstring>

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

}  // namespace

absl::StatusOr<LogicalArray> RandomLogicalArray(const Shape& shape, std::mt19937_64& rng) {
  absl::Status type = CheckSupportedType(shape.element_type());
  if (!type.ok()) return type;
  absl::StatusOr<int64_t> count = CheckedCount(shape);
  if (!count.ok()) return count.status();
  LogicalArray a;
  a.shape = LogicalShape(shape);
  const PrimitiveType t = shape.element_type();
  const int64_t n = ElementBytes(t);
  a.bytes.resize(*count * n);
  for (int64_t k = 0; k < *count; ++k) {
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
  const std::string header = bytes.substr(start, header_len);
  auto field = [&](absl::string_view key) -> std::optional<std::string> {
    size_t at = header.find(absl::StrCat("'", key, "'"));
    if (at == std::string::npos) return std::nullopt;
    at = header.find(':', at);
    if (at == std::string::npos) return std::nullopt;
    size_t end = key == "shape" ? header.find(')', at) + 1 : header.find_first_of(",}", at);
    if (end == std::string::npos || end == 0) return std::nullopt;
    return std::string(absl::StripAsciiWhitespace(header.substr(at + 1, end - at - 1)));
  };
  std::optional<std::string> descr = field("descr"), order = field("fortran_order"),
                             dims_text = field("shape");
  if (!descr || !order || !dims_text) return bad("the header lacks descr, fortran_order or shape");
  const std::string want = NpyDescr(shape.element_type());
  std::string got = std::string(absl::StripSuffix(absl::StripPrefix(*descr, "'"), "'"));
  if (!got.empty() && got[0] == '=') got[0] = '<';
  if (got.size() == 3 && got[0] == '<' && want[0] == '|') got[0] = '|';
  if (got != want) {
    return bad(absl::StrCat("holds ", *descr, " but ", PrimitiveTypeName(shape.element_type()),
                            " needs '", want, "'"));
  }
  if (*order != "False") return bad("Fortran order is not supported; save in C order");
  std::vector<int64_t> dims;
  std::string inner(absl::StripSuffix(absl::StripPrefix(*dims_text, "("), ")"));
  for (absl::string_view part : absl::StrSplit(inner, ',', absl::SkipWhitespace())) {
    int64_t d;
    if (!absl::SimpleAtoi(part, &d) || d < 0) return bad(absl::StrCat("bad shape ", *dims_text));
    dims.push_back(d);
  }
  if (dims != std::vector<int64_t>(shape.dimensions().begin(), shape.dimensions().end())) {
    Shape plain = shape;
    plain.clear_layout();
    return bad(absl::StrCat("has shape ", *dims_text, " but the parameter is ", plain.ToString()));
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
  return a;
}

}  // namespace xla_layout::runtime
