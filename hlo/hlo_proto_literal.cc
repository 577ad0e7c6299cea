#include "hlo/hlo_proto_literal.h"

#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "xla_layout/primitive_type.h"

namespace xla_layout {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Reflection;

// The bytes field of each type stored as bytes, and its width in bytes.
struct BytesField {
  PrimitiveType type;
  const char* field;
  int width;
};
constexpr BytesField kBytesFields[] = {
    {S1, "s1s", 1},     {S2, "s2s", 1},     {S4, "s4s", 1},
    {S8, "s8s", 1},     {U1, "u1s", 1},     {U2, "u2s", 1},
    {U4, "u4s", 1},     {U8, "u8s", 1},     {S16, "s16s", 2},
    {U16, "u16s", 2},   {F16, "f16s", 2},   {BF16, "bf16s", 2},
    {F4E2M1FN, "f4e2m1fns", 1},        {F8E3M4, "f8e3m4s", 1},
    {F8E4M3B11FNUZ, "f8e4m3b11fnuzs", 1}, {F8E4M3FN, "f8e4m3fns", 1},
    {F8E4M3FNUZ, "f8e4m3fnuzs", 1},    {F8E4M3, "f8e4m3s", 1},
    {F8E5M2FNUZ, "f8e5m2fnuzs", 1},    {F8E5M2, "f8e5m2s", 1},
    {F8E8M0FNU, "f8e8m0fnus", 1},
};

const BytesField* BytesFieldOf(PrimitiveType type) {
  for (const BytesField& f : kBytesFields) {
    if (f.type == type) return &f;
  }
  return nullptr;
}

bool IsComplex(PrimitiveType t) { return t == C64 || t == C128; }
bool IsFloat(PrimitiveType t) { return !IsComplex(t) && FloatFormatOf(t).has_value(); }

// order[p] is the row-major index of the element at position p of the
// layout (identity for the default layout or none).
absl::StatusOr<std::vector<int64_t>> LayoutOrder(const Shape& shape) {
  const absl::Span<const int64_t> dims = shape.dimensions();
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  std::vector<int64_t> order(static_cast<size_t>(count));
  std::iota(order.begin(), order.end(), 0);
  if (!shape.has_layout() || dims.size() < 2) return order;
  if (!shape.layout().tiles().empty()) {
    return absl::InvalidArgumentError("a literal with a tiled layout has no proto form");
  }
  const absl::Span<const int64_t> m2m = shape.layout().minor_to_major();
  if (m2m.size() != dims.size()) return order;
  std::vector<int64_t> strides(dims.size(), 1);  // row-major strides
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * dims[i + 1];
  }
  std::vector<int64_t> index(dims.size(), 0);
  for (int64_t p = 0; p < count; ++p) {
    int64_t logical = 0;
    for (size_t i = 0; i < dims.size(); ++i) logical += index[i] * strides[i];
    order[p] = logical;
    for (int64_t dim : m2m) {  // next position: the minor dim moves first
      if (++index[dim] < dims[dim]) break;
      index[dim] = 0;
    }
  }
  return order;
}

// f32 values by their bits: converting through double would quiet a NaN.
float FloatWithBits(uint64_t bits) {
  const uint32_t b = static_cast<uint32_t>(bits);
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}
double FloatOf(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return FloatFromBits(b, F32);
}

void WriteBytes(xla::LiteralProto& proto, const BytesField& f, const std::vector<uint64_t>& bits) {
  std::string bytes;
  bytes.reserve(bits.size() * f.width);
  for (uint64_t b : bits) {
    for (int k = 0; k < f.width; ++k) bytes.push_back(static_cast<char>((b >> (8 * k)) & 0xff));
  }
  const FieldDescriptor* field = proto.GetDescriptor()->FindFieldByName(f.field);
  proto.GetReflection()->SetString(&proto, field, std::move(bytes));
}

// The elements of a bytes field, little-endian, `f.width` bytes each.
std::vector<uint64_t> ReadBytes(const xla::LiteralProto& proto, const BytesField& f) {
  const FieldDescriptor* field = proto.GetDescriptor()->FindFieldByName(f.field);
  const std::string bytes = proto.GetReflection()->GetString(proto, field);
  std::vector<uint64_t> out;
  for (size_t at = 0; at + f.width <= bytes.size(); at += f.width) {
    uint64_t b = 0;
    for (int k = 0; k < f.width; ++k) {
      b |= static_cast<uint64_t>(static_cast<uint8_t>(bytes[at + k])) << (8 * k);
    }
    out.push_back(b);
  }
  return out;
}

// The element values in layout order, as bits (ints, and narrow floats) or
// doubles (f32, f64, complex parts).
void WriteArray(const HloLiteral& lit, const std::vector<int64_t>& order,
                xla::LiteralProto& proto) {
  const PrimitiveType t = lit.shape().element_type();
  const std::vector<int64_t>& ints = lit.ints();
  const std::vector<double>& floats = lit.floats();
  if (const BytesField* f = BytesFieldOf(t)) {
    std::vector<uint64_t> bits;
    for (int64_t k : order) {
      bits.push_back(IsFloat(t) ? FloatToBits(floats[k], t) : static_cast<uint64_t>(ints[k]));
    }
    WriteBytes(proto, *f, bits);
    return;
  }
  for (int64_t k : order) {
    switch (t) {
      case PRED: proto.add_preds(ints[k] != 0); break;
      case S32: proto.add_s32s(static_cast<int32_t>(ints[k])); break;
      case S64: proto.add_s64s(ints[k]); break;
      case U32: proto.add_u32s(static_cast<uint32_t>(ints[k])); break;
      case U64: proto.add_u64s(static_cast<uint64_t>(ints[k])); break;
      case F32: proto.add_f32s(FloatWithBits(FloatToBits(floats[k], F32))); break;
      case F64: proto.add_f64s(floats[k]); break;
      case C64:
        proto.add_c64s(FloatWithBits(FloatToBits(floats[2 * k], F32)));
        proto.add_c64s(FloatWithBits(FloatToBits(floats[2 * k + 1], F32)));
        break;
      case C128:
        proto.add_c128s(floats[2 * k]);
        proto.add_c128s(floats[2 * k + 1]);
        break;
      default: break;
    }
  }
}

}  // namespace

absl::StatusOr<xla::LiteralProto> LiteralToProto(const HloLiteral& literal, const Shape& shape) {
  xla::LiteralProto proto;
  *proto.mutable_shape() = shape.ToProto();
  if (literal.shape().IsTuple()) {
    if (shape.tuple_shapes().size() != literal.tuple_elements().size()) {
      return absl::InvalidArgumentError("a tuple literal of another shape than its constant");
    }
    for (size_t k = 0; k < literal.tuple_elements().size(); ++k) {
      absl::StatusOr<xla::LiteralProto> p =
          LiteralToProto(literal.tuple_elements()[k], shape.tuple_shapes()[k]);
      if (!p.ok()) return p.status();
      *proto.add_tuple_literals() = *std::move(p);
    }
    return proto;
  }
  if (literal.abbreviated()) return proto;  // `{...}`: no values to write
  absl::StatusOr<std::vector<int64_t>> order = LayoutOrder(shape);
  if (!order.ok()) return order.status();
  if (static_cast<int64_t>(order->size()) != literal.element_count()) {
    return absl::InvalidArgumentError("a literal of another size than its constant's shape");
  }
  WriteArray(literal, *order, proto);
  return proto;
}

std::string FormatFloatLiteral(double value, PrimitiveType type) {
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  const PrimitiveType part = type == C64 ? F32 : type == C128 ? F64 : type;
  if (std::isnan(value)) {
    const std::string sign = std::signbit(value) ? "-" : "";
    const std::optional<FloatFormat> format = FloatFormatOf(part);
    const int payload_bits = format ? format->nan_payload_bits() : 0;
    const uint64_t payload = FloatToBits(value, part) & ((uint64_t{1} << payload_bits) - 1);
    const uint64_t quiet = payload_bits > 0 ? uint64_t{1} << (payload_bits - 1) : 0;
    if (payload == quiet || payload_bits == 0) return sign + "nan";
    return absl::StrCat(sign, "nan(0x", absl::Hex(payload), ")");
  }
  const std::optional<FloatFormat> format = FloatFormatOf(part);
  const int mantissa = format ? format->mantissa_bits : 52;
  const int digits10 = static_cast<int>(std::floor(mantissa * std::log10(2.0)));
  const int max_digits10 = static_cast<int>(std::ceil((mantissa + 1) * std::log10(2.0) + 1));
  for (int precision : {std::max(digits10, 1), max_digits10}) {
    std::string text = absl::StrFormat("%.*g", precision, value);
    double back = 0;
    if (absl::SimpleAtod(text, &back) && RoundToFloatType(back, part) == value) return text;
  }
  return absl::StrFormat("%.17g", value);
}

namespace {

// Each element's text, in row-major order.
absl::StatusOr<std::vector<std::string>> ElementTexts(const xla::LiteralProto& proto,
                                                      const Shape& shape, int64_t count) {
  const PrimitiveType t = shape.element_type();
  std::vector<std::string> physical;
  if (const BytesField* f = BytesFieldOf(t)) {
    for (uint64_t b : ReadBytes(proto, *f)) {
      if (IsFloat(t)) {
        physical.push_back(FormatFloatLiteral(FloatFromBits(b, t), t));
      } else {
        const int bits = t == S1 || t == U1 ? 1 : t == S2 || t == U2 ? 2 : t == S4 || t == U4 ? 4
                                                                            : 8 * f->width;
        const bool is_signed = t == S1 || t == S2 || t == S4 || t == S8 || t == S16;
        int64_t v = static_cast<int64_t>(b & ((uint64_t{1} << bits) - 1));
        if (is_signed && (v >> (bits - 1)) & 1) v -= int64_t{1} << bits;
        physical.push_back(absl::StrCat(v));
      }
    }
  } else {
    switch (t) {
      case PRED: for (bool b : proto.preds()) physical.push_back(b ? "true" : "false"); break;
      case S32: for (int32_t v : proto.s32s()) physical.push_back(absl::StrCat(v)); break;
      case S64: for (int64_t v : proto.s64s()) physical.push_back(absl::StrCat(v)); break;
      case U32: for (uint32_t v : proto.u32s()) physical.push_back(absl::StrCat(v)); break;
      case U64: for (uint64_t v : proto.u64s()) physical.push_back(absl::StrCat(v)); break;
      case F32:  // through the bits: widening a float to double quiets a NaN
        for (float v : proto.f32s()) physical.push_back(FormatFloatLiteral(FloatOf(v), F32));
        break;
      case F64: for (double v : proto.f64s()) physical.push_back(FormatFloatLiteral(v, F64)); break;
      case C64:
        for (int k = 0; k + 1 < proto.c64s_size(); k += 2) {
          physical.push_back(absl::StrCat("(", FormatFloatLiteral(FloatOf(proto.c64s(k)), C64),
                                          ", ", FormatFloatLiteral(FloatOf(proto.c64s(k + 1)), C64),
                                          ")"));
        }
        break;
      case C128:
        for (int k = 0; k + 1 < proto.c128s_size(); k += 2) {
          physical.push_back(absl::StrCat("(", FormatFloatLiteral(proto.c128s(k), C128), ", ",
                                          FormatFloatLiteral(proto.c128s(k + 1), C128), ")"));
        }
        break;
      default:
        return absl::InvalidArgumentError(
            absl::StrCat("a literal of element type ", PrimitiveTypeName(t), " has no values"));
    }
  }
  if (static_cast<int64_t>(physical.size()) != count) {
    return absl::InvalidArgumentError(absl::StrCat("the literal of shape ", shape.ToString(),
                                                   " holds ", physical.size(),
                                                   " values, not ", count));
  }
  absl::StatusOr<std::vector<int64_t>> order = LayoutOrder(shape);
  if (!order.ok()) return order.status();
  std::vector<std::string> logical(physical.size());
  for (size_t p = 0; p < physical.size(); ++p) logical[(*order)[p]] = std::move(physical[p]);
  return logical;
}

// XLA's nesting: `{1, 2}` for one dim, `{ { 1, 2 }, { 3, 4 } }` above.
void AppendNested(const std::vector<std::string>& values, absl::Span<const int64_t> dims,
                  size_t dim, int64_t& next, bool spaced, std::string& out) {
  if (dim == dims.size()) {
    out += values[next++];
    return;
  }
  out += spaced ? "{ " : "{";
  for (int64_t k = 0; k < dims[dim]; ++k) {
    if (k > 0) out += ", ";
    AppendNested(values, dims, dim + 1, next, spaced, out);
  }
  if (dims[dim] == 0 && spaced) out.pop_back();
  out += spaced ? " }" : "}";
}

}  // namespace

absl::StatusOr<std::string> LiteralProtoToText(const xla::LiteralProto& proto, Shape* shape) {
  absl::StatusOr<Shape> s = Shape::FromProto(proto.shape());
  if (!s.ok()) return s.status();
  *shape = *s;
  if (s->IsTuple()) {
    std::vector<std::string> parts;
    for (const xla::LiteralProto& e : proto.tuple_literals()) {
      Shape element;
      absl::StatusOr<std::string> text = LiteralProtoToText(e, &element);
      if (!text.ok()) return text.status();
      parts.push_back(*std::move(text));
    }
    return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
  }
  int64_t count = 1;
  for (int64_t d : s->dimensions()) count *= d;
  // A literal that holds no values at all stands for `{...}`.
  xla::LiteralProto bare;
  *bare.mutable_shape() = proto.shape();
  if (count > 0 && !s->dimensions().empty() &&
      proto.ByteSizeLong() == bare.ByteSizeLong()) {
    return std::string("{...}");
  }
  absl::StatusOr<std::vector<std::string>> values = ElementTexts(proto, *s, count);
  if (!values.ok()) return values.status();
  if (s->dimensions().empty()) return (*values)[0];
  std::string out;
  int64_t next = 0;
  AppendNested(*values, s->dimensions(), 0, next, s->dimensions().size() > 1, out);
  return out;
}

namespace {

// The bits of a sub-byte type (0 for the others).
int SubByteBits(PrimitiveType t) {
  switch (t) {
    case S1: case U1: return 1;
    case S2: case U2: return 2;
    case S4: case U4: case F4E2M1FN: return 4;
    default: return 0;
  }
}

uint32_t BitsOf(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

// Adds element bits `b` of type `t` to the proto's field for it (not the
// bytes types, which WriteBytes writes at once).
void AddBits(PrimitiveType t, uint64_t b, xla::LiteralProto& proto) {
  switch (t) {
    case PRED: proto.add_preds(b != 0); break;
    case S32: proto.add_s32s(static_cast<int32_t>(b)); break;
    case S64: proto.add_s64s(static_cast<int64_t>(b)); break;
    case U32: proto.add_u32s(static_cast<uint32_t>(b)); break;
    case U64: proto.add_u64s(b); break;
    case F32: proto.add_f32s(FloatWithBits(b)); break;
    case F64: {
      double d;
      std::memcpy(&d, &b, sizeof d);
      proto.add_f64s(d);
      break;
    }
    case C64:
      proto.add_c64s(FloatWithBits(b & 0xffffffffu));
      proto.add_c64s(FloatWithBits(b >> 32));
      break;
    default: break;
  }
}

}  // namespace

absl::StatusOr<xla::LiteralProto> ArrayLiteralFromBits(const Shape& shape,
                                                       absl::Span<const uint64_t> bits) {
  const PrimitiveType t = shape.element_type();
  if (shape.IsTuple() || t == C128 || t == TOKEN || t == OPAQUE_TYPE) {
    return absl::InvalidArgumentError(
        absl::StrCat("no literal from bits for ", shape.ToString()));
  }
  absl::StatusOr<std::vector<int64_t>> order = LayoutOrder(shape);
  if (!order.ok()) return order.status();
  if (order->size() != bits.size()) {
    return absl::InvalidArgumentError(absl::StrCat(bits.size(), " values for ", shape.ToString()));
  }
  xla::LiteralProto proto;
  *proto.mutable_shape() = shape.ToProto();
  std::vector<uint64_t> physical;
  const int narrow = SubByteBits(t);
  const bool is_signed = t == S1 || t == S2 || t == S4;
  for (int64_t k : *order) {
    uint64_t b = bits[k];
    if (narrow > 0) {  // one element per byte; signed ones sign-extended, as XLA's int8
      b &= (uint64_t{1} << narrow) - 1;
      if (is_signed && (b >> (narrow - 1)) & 1) b |= ~uint64_t{0} << narrow;
      b &= 0xff;
    }
    physical.push_back(b);
  }
  if (const BytesField* f = BytesFieldOf(t)) {
    WriteBytes(proto, *f, physical);
  } else {
    for (uint64_t b : physical) AddBits(t, b, proto);
  }
  return proto;
}

absl::StatusOr<std::vector<uint64_t>> ArrayBitsFromLiteral(const xla::LiteralProto& proto,
                                                           Shape* shape) {
  absl::StatusOr<Shape> s = Shape::FromProto(proto.shape());
  if (!s.ok()) return s.status();
  *shape = *s;
  const PrimitiveType t = s->element_type();
  std::vector<uint64_t> physical;
  if (const BytesField* f = BytesFieldOf(t)) {
    for (uint64_t b : ReadBytes(proto, *f)) {
      if (SubByteBits(t) > 0) b &= (uint64_t{1} << SubByteBits(t)) - 1;
      physical.push_back(b);
    }
  } else {
    switch (t) {
      case PRED: for (bool v : proto.preds()) physical.push_back(v); break;
      case S32: for (int32_t v : proto.s32s()) physical.push_back(static_cast<uint32_t>(v)); break;
      case S64: for (int64_t v : proto.s64s()) physical.push_back(static_cast<uint64_t>(v)); break;
      case U32: for (uint32_t v : proto.u32s()) physical.push_back(v); break;
      case U64: for (uint64_t v : proto.u64s()) physical.push_back(v); break;
      case F32: for (float v : proto.f32s()) physical.push_back(BitsOf(v)); break;
      case F64:
        for (double v : proto.f64s()) {
          uint64_t b;
          std::memcpy(&b, &v, sizeof b);
          physical.push_back(b);
        }
        break;
      case C64:
        for (int k = 0; k + 1 < proto.c64s_size(); k += 2) {
          physical.push_back(BitsOf(proto.c64s(k)) |
                             (static_cast<uint64_t>(BitsOf(proto.c64s(k + 1))) << 32));
        }
        break;
      default:
        return absl::InvalidArgumentError(
            absl::StrCat("no bits from a literal of ", s->ToString()));
    }
  }
  absl::StatusOr<std::vector<int64_t>> order = LayoutOrder(*s);
  if (!order.ok()) return order.status();
  if (order->size() != physical.size()) {
    return absl::InvalidArgumentError(absl::StrCat("the literal of shape ", s->ToString(),
                                                   " holds ", physical.size(), " values, not ",
                                                   order->size()));
  }
  std::vector<uint64_t> logical(physical.size());
  for (size_t p = 0; p < physical.size(); ++p) logical[(*order)[p]] = physical[p];
  return logical;
}

}  // namespace xla_layout
