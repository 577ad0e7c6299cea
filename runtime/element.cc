#include "runtime/element.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "xla_layout/primitive_type.h"
#include "xla_layout/subbyte.h"

namespace xla_layout::runtime {
namespace {

uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float BitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// f32 -> bf16, round to nearest even; NaN stays a quiet NaN.
uint16_t FloatToBf16(float f) {
  uint32_t u = FloatBits(f);
  if (std::isnan(f)) return static_cast<uint16_t>((u >> 16) | 0x40);
  u += 0x7FFF + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}

// f32 -> IEEE half, round to nearest even.
uint16_t FloatToHalf(float f) {
  uint32_t u = FloatBits(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000);
  u &= 0x7FFFFFFF;
  if (u >= 0x7F800000) return sign | (u > 0x7F800000 ? 0x7E00 : 0x7C00);
  if (u >= 0x477FF000) return sign | 0x7C00;  // rounds past 65504: inf
  if (u < 0x38800000) {                       // below the smallest normal
    // Subnormal: value * 2^24 rounded to an integer (ties to even).
    float scaled = BitsFloat(u) * 16777216.0f;
    return sign | static_cast<uint16_t>(std::nearbyint(scaled));
  }
  uint32_t mant = u & 0x7FFFFF;
  uint32_t exp = (u >> 23) - 112;
  uint32_t half = (exp << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1FFF;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) ++half;
  return sign | static_cast<uint16_t>(half);
}

// `x` rounded once, to nearest even, to a binary format with `digits`
// significand bits and normal exponents down to `min_exp`; past the largest
// finite value of that format (whose exponent is `max_exp`) it is infinite.
// The result is exact in double and in the format. Rounding f64 to f16 by
// way of f32 would round twice: 65519.99999999 would become inf, not 65504.
double RoundToFormat(double x, int digits, int min_exp, int max_exp) {
  if (!std::isfinite(x) || x == 0) return x;
  const int exp = std::max(std::ilogb(x), min_exp);
  const int quantum = exp - (digits - 1);
  const double r = std::ldexp(std::nearbyint(std::ldexp(x, -quantum)), quantum);
  const double largest = std::ldexp(2.0 - std::ldexp(1.0, 1 - digits), max_exp);
  if (std::fabs(r) > largest) return std::copysign(HUGE_VAL, x);
  return r;
}
double RoundToHalf(double x) { return RoundToFormat(x, 11, -14, 15); }
double RoundToBf16(double x) { return RoundToFormat(x, 8, -126, 127); }

// An integer as a double rounded to odd (truncated, the last bit set when
// anything was cut): exact up to 2^53, and close enough above for one more
// rounding to a format of at most 51 digits to give the correctly rounded
// value. Rounding to nearest here would round twice: s64 2^60 + 2^36 + 1
// would become the f32 tie 2^60 + 2^36 and then 2^60.
double IntegerToOddDouble(uint64_t magnitude, bool negative) {
  int shift = 0;
  while ((magnitude >> shift) >= (uint64_t{1} << 53)) ++shift;
  uint64_t kept = magnitude >> shift;
  if (shift > 0 && (magnitude & ((uint64_t{1} << shift) - 1)) != 0) kept |= 1;
  const double d = std::ldexp(static_cast<double>(kept), shift);
  return negative ? -d : d;
}

// An integer of type `from` converted to the float type `to` with one
// rounding.
double IntegerToFloat(int64_t value, bool is_unsigned, PrimitiveType to) {
  const bool negative = !is_unsigned && value < 0;
  const uint64_t magnitude =
      negative ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  if (to == F64) {
    return is_unsigned ? static_cast<double>(magnitude) : static_cast<double>(value);
  }
  return IntegerToOddDouble(magnitude, negative);  // ToBits rounds it to `to`
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1F;
  const uint32_t mant = h & 0x3FF;
  if (exp == 0) {
    float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  if (exp == 31) return BitsFloat(sign | 0x7F800000 | (mant << 13));
  return BitsFloat(sign | ((exp + 112) << 23) | (mant << 13));
}

uint64_t WidthMask(int bits) {
  return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

bool IsSigned(PrimitiveType t) { return DomainOf(t) == Domain::kSigned; }

// Extremes of an integer type, as int64 (u64's max is kept as its bits).
int64_t MinOf(PrimitiveType t) {
  int bits = TypeBits(t);
  if (!IsSigned(t)) return 0;
  return bits >= 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (bits - 1));
}
int64_t MaxOf(PrimitiveType t) {
  int bits = TypeBits(t);
  if (IsSigned(t)) {
    return bits >= 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (bits - 1)) - 1;
  }
  return static_cast<int64_t>(WidthMask(bits));
}

bool UnsignedLess(int64_t a, int64_t b) {
  return static_cast<uint64_t>(a) < static_cast<uint64_t>(b);
}

double FloatMax(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  return a > b ? a : b;
}
double FloatMin(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  return a < b ? a : b;
}

int64_t IntPower(int64_t base, int64_t exp, PrimitiveType t) {
  if (exp < 0 && IsSigned(t)) {
    return base == 1 ? 1 : 0;  // as XLA: even -1 to a negative power is 0
  }
  uint64_t result = 1, b = static_cast<uint64_t>(base), e = static_cast<uint64_t>(exp);
  while (e != 0) {
    if (e & 1) result *= b;
    b *= b;
    e >>= 1;
  }
  return static_cast<int64_t>(result);
}

// The float's bits as a signed integer that orders like XLA's total order:
// negative values, sign and magnitude, map below zero in reverse.
int64_t TotalOrderKey(Num value, PrimitiveType type) {
  const int width = TypeBits(type);
  const int64_t bits = SignExtend(ToBits(value, type), width);
  return bits < 0 ? bits ^ static_cast<int64_t>(WidthMask(width - 1)) : bits;
}

}  // namespace

absl::Status CheckSupportedType(PrimitiveType type) {
  switch (type) {
    case PRED: case S4: case U4: case S8: case S16: case S32: case S64:
    case U8: case U16: case U32: case U64: case F16: case BF16: case F32:
    case F64:
      return absl::OkStatus();
    default:
      return absl::UnimplementedError(absl::StrCat(
          PrimitiveTypeName(type), " is not supported by the executor"));
  }
}

absl::Status CheckStorableType(PrimitiveType type) {
  return type == C64 ? absl::OkStatus() : CheckSupportedType(type);
}

Domain DomainOf(PrimitiveType type) {
  switch (type) {
    case PRED: return Domain::kPred;
    case S4: case S8: case S16: case S32: case S64: return Domain::kSigned;
    case F16: case BF16: case F32: case F64: return Domain::kFloat;
    default: return Domain::kUnsigned;
  }
}

int TypeBits(PrimitiveType type) {
  return type == PRED ? 1 : static_cast<int>(PrimitiveBitWidth(type));
}

Num FromBits(uint64_t bits, PrimitiveType type) {
  Num n;
  switch (type) {
    case F16: n.f = HalfToFloat(static_cast<uint16_t>(bits)); break;
    case BF16: n.f = BitsFloat(static_cast<uint32_t>(bits & 0xFFFF) << 16); break;
    case F32: n.f = BitsFloat(static_cast<uint32_t>(bits)); break;
    case F64: std::memcpy(&n.f, &bits, 8); break;
    case PRED: n.i = (bits & 0xFF) != 0; break;
    default: {
      const int width = TypeBits(type);
      n.i = IsSigned(type) ? SignExtend(bits, width)
                           : static_cast<int64_t>(bits & WidthMask(width));
    }
  }
  return n;
}

uint64_t ToBits(Num value, PrimitiveType type) {
  switch (type) {
    // Rounded from the double in one step; the float is then exact.
    case F16: return FloatToHalf(static_cast<float>(RoundToHalf(value.f)));
    case BF16: return FloatToBf16(static_cast<float>(RoundToBf16(value.f)));
    case F32: return FloatBits(static_cast<float>(value.f));
    case F64: {
      uint64_t u;
      std::memcpy(&u, &value.f, 8);
      return u;
    }
    case PRED: return value.i != 0;
    default: return static_cast<uint64_t>(value.i) & WidthMask(TypeBits(type));
  }
}

Num Normalize(Num value, PrimitiveType type) { return FromBits(ToBits(value, type), type); }

Num Convert(Num value, PrimitiveType from, PrimitiveType to) {
  const Domain f = DomainOf(from), t = DomainOf(to);
  Num out;
  if (t == Domain::kFloat) {
    if (f == Domain::kFloat) {
      out.f = value.f;
    } else {
      out.f = IntegerToFloat(value.i, f != Domain::kSigned, to);
    }
    return Normalize(out, to);
  }
  if (t == Domain::kPred) {
    out.i = f == Domain::kFloat ? value.f != 0 : value.i != 0;
    return out;
  }
  if (f == Domain::kFloat) {
    // Saturating, NaN to 0: no undefined conversion.
    double v = std::trunc(value.f);
    if (std::isnan(v)) {
      out.i = 0;
    } else if (t == Domain::kSigned) {
      const double lo = static_cast<double>(MinOf(to)), hi = static_cast<double>(MaxOf(to));
      out.i = v <= lo ? MinOf(to) : v >= hi ? MaxOf(to) : static_cast<int64_t>(v);
    } else {
      const double hi = static_cast<double>(static_cast<uint64_t>(MaxOf(to)));
      out.i = v <= 0 ? 0
              : v >= hi ? MaxOf(to)
                        : static_cast<int64_t>(static_cast<uint64_t>(v));
    }
    return out;
  }
  out.i = value.i;  // integer to integer wraps
  return Normalize(out, to);
}

absl::Status CheckElementwise(HloOpcode opcode, PrimitiveType type) {
  const Domain d = DomainOf(type);
  bool ok = false;
  switch (opcode) {
    case HloOpcode::kAdd: case HloOpcode::kSubtract: case HloOpcode::kMultiply:
    case HloOpcode::kDivide: case HloOpcode::kRemainder: case HloOpcode::kPower:
    case HloOpcode::kNegate: case HloOpcode::kAbs: case HloOpcode::kSign:
      ok = d != Domain::kPred;
      break;
    case HloOpcode::kMaximum: case HloOpcode::kMinimum: case HloOpcode::kCompare:
    case HloOpcode::kSelect: case HloOpcode::kClamp: case HloOpcode::kConvert:
      ok = true;
      break;
    case HloOpcode::kAnd: case HloOpcode::kOr: case HloOpcode::kXor:
    case HloOpcode::kNot:
      ok = d != Domain::kFloat;
      break;
    case HloOpcode::kShiftLeft: case HloOpcode::kShiftRightLogical:
    case HloOpcode::kShiftRightArithmetic: case HloOpcode::kPopulationCount:
    case HloOpcode::kClz:
      ok = d == Domain::kSigned || d == Domain::kUnsigned;
      break;
    case HloOpcode::kExp: case HloOpcode::kLog: case HloOpcode::kTanh:
    case HloOpcode::kSqrt: case HloOpcode::kRsqrt: case HloOpcode::kFloor:
    case HloOpcode::kCeil: case HloOpcode::kCos: case HloOpcode::kSin:
    case HloOpcode::kExpm1: case HloOpcode::kLog1p: case HloOpcode::kLogistic:
    case HloOpcode::kRoundNearestAfz: case HloOpcode::kRoundNearestEven:
    case HloOpcode::kCbrt: case HloOpcode::kIsFinite: case HloOpcode::kAtan2:
    case HloOpcode::kTan: case HloOpcode::kErf: case HloOpcode::kAcos:
    case HloOpcode::kAcosh: case HloOpcode::kAsin: case HloOpcode::kAsinh:
    case HloOpcode::kAtan: case HloOpcode::kAtanh: case HloOpcode::kCosh:
    case HloOpcode::kSinh:
      ok = d == Domain::kFloat;
      break;
    default:
      break;
  }
  if (ok) return absl::OkStatus();
  return absl::UnimplementedError(absl::StrCat(
      HloOpcodeString(opcode), " on ", PrimitiveTypeName(type),
      " is not supported by the executor"));
}

Num ApplyUnary(HloOpcode opcode, PrimitiveType type, Num a) {
  Num r;
  if (DomainOf(type) == Domain::kFloat) {
    const double x = a.f;
    switch (opcode) {
      case HloOpcode::kNegate: r.f = -x; break;
      case HloOpcode::kAbs: r.f = std::fabs(x); break;
      case HloOpcode::kExp: r.f = std::exp(x); break;
      case HloOpcode::kLog: r.f = std::log(x); break;
      case HloOpcode::kTanh: r.f = std::tanh(x); break;
      case HloOpcode::kSqrt: r.f = std::sqrt(x); break;
      case HloOpcode::kRsqrt: r.f = 1.0 / std::sqrt(x); break;
      case HloOpcode::kFloor: r.f = std::floor(x); break;
      case HloOpcode::kCeil: r.f = std::ceil(x); break;
      case HloOpcode::kCos: r.f = std::cos(x); break;
      case HloOpcode::kSin: r.f = std::sin(x); break;
      case HloOpcode::kTan: r.f = std::tan(x); break;
      case HloOpcode::kExpm1: r.f = std::expm1(x); break;
      case HloOpcode::kLog1p: r.f = std::log1p(x); break;
      case HloOpcode::kLogistic: r.f = 1.0 / (1.0 + std::exp(-x)); break;
      case HloOpcode::kCbrt: r.f = std::cbrt(x); break;
      case HloOpcode::kErf: r.f = std::erf(x); break;
      case HloOpcode::kAcos: r.f = std::acos(x); break;
      case HloOpcode::kAcosh: r.f = std::acosh(x); break;
      case HloOpcode::kAsin: r.f = std::asin(x); break;
      case HloOpcode::kAsinh: r.f = std::asinh(x); break;
      case HloOpcode::kAtan: r.f = std::atan(x); break;
      case HloOpcode::kAtanh: r.f = std::atanh(x); break;
      case HloOpcode::kCosh: r.f = std::cosh(x); break;
      case HloOpcode::kSinh: r.f = std::sinh(x); break;
      case HloOpcode::kRoundNearestAfz: r.f = std::round(x); break;
      case HloOpcode::kRoundNearestEven: r.f = std::nearbyint(x); break;
      case HloOpcode::kSign:
        r.f = std::isnan(x) || x == 0 ? x : (x > 0 ? 1.0 : -1.0);
        break;
      case HloOpcode::kIsFinite:
        r.i = std::isfinite(x);
        return r;  // pred
      default: break;
    }
    return Normalize(r, type);
  }
  const uint64_t u = static_cast<uint64_t>(a.i);
  switch (opcode) {
    case HloOpcode::kNegate: r.i = static_cast<int64_t>(0 - u); break;
    case HloOpcode::kAbs: r.i = a.i < 0 ? static_cast<int64_t>(0 - u) : a.i; break;
    case HloOpcode::kSign:
      r.i = DomainOf(type) == Domain::kSigned ? (a.i > 0) - (a.i < 0) : a.i != 0;
      break;
    case HloOpcode::kNot: r.i = type == PRED ? !a.i : static_cast<int64_t>(~u); break;
    case HloOpcode::kPopulationCount:
      r.i = __builtin_popcountll(u & WidthMask(TypeBits(type)));
      break;
    case HloOpcode::kClz: {
      // Leading zeros within the type's width: the width itself for 0.
      const uint64_t bits = u & WidthMask(TypeBits(type));
      r.i = bits == 0 ? TypeBits(type) : __builtin_clzll(bits) - (64 - TypeBits(type));
      break;
    }
    default: break;
  }
  return Normalize(r, type);
}

Num ApplyBinary(HloOpcode opcode, PrimitiveType type, Num a, Num b) {
  Num r;
  const Domain d = DomainOf(type);
  if (d == Domain::kFloat) {
    const double x = a.f, y = b.f;
    switch (opcode) {
      case HloOpcode::kAdd: r.f = x + y; break;
      case HloOpcode::kSubtract: r.f = x - y; break;
      case HloOpcode::kMultiply: r.f = x * y; break;
      case HloOpcode::kDivide: r.f = x / y; break;
      case HloOpcode::kRemainder: r.f = std::fmod(x, y); break;
      case HloOpcode::kPower: r.f = std::pow(x, y); break;
      case HloOpcode::kAtan2: r.f = std::atan2(x, y); break;
      case HloOpcode::kMaximum: r.f = FloatMax(x, y); break;
      case HloOpcode::kMinimum: r.f = FloatMin(x, y); break;
      default: break;
    }
    return Normalize(r, type);
  }
  const int64_t x = a.i, y = b.i;
  const uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
  const bool is_signed = d == Domain::kSigned;
  const int width = TypeBits(type);
  switch (opcode) {
    case HloOpcode::kAdd: r.i = static_cast<int64_t>(ux + uy); break;
    case HloOpcode::kSubtract: r.i = static_cast<int64_t>(ux - uy); break;
    case HloOpcode::kMultiply: r.i = static_cast<int64_t>(ux * uy); break;
    case HloOpcode::kDivide:
      if (y == 0) {
        r.i = -1;
      } else if (is_signed) {
        r.i = (x == std::numeric_limits<int64_t>::min() && y == -1) ? x : x / y;
      } else {
        r.i = static_cast<int64_t>(ux / uy);
      }
      break;
    case HloOpcode::kRemainder:
      if (y == 0) {
        r.i = x;
      } else if (is_signed) {
        r.i = y == -1 ? 0 : x % y;
      } else {
        r.i = static_cast<int64_t>(ux % uy);
      }
      break;
    case HloOpcode::kPower: r.i = IntPower(x, y, type); break;
    case HloOpcode::kMaximum:
      r.i = (is_signed ? x < y : UnsignedLess(x, y)) ? y : x;
      break;
    case HloOpcode::kMinimum:
      r.i = (is_signed ? y < x : UnsignedLess(y, x)) ? y : x;
      break;
    case HloOpcode::kAnd: r.i = x & y; break;
    case HloOpcode::kOr: r.i = x | y; break;
    case HloOpcode::kXor: r.i = x ^ y; break;
    case HloOpcode::kShiftLeft:
      r.i = uy >= static_cast<uint64_t>(width) ? 0 : static_cast<int64_t>(ux << uy);
      break;
    case HloOpcode::kShiftRightLogical: {
      const uint64_t bits = ux & WidthMask(width);
      r.i = uy >= static_cast<uint64_t>(width) ? 0 : static_cast<int64_t>(bits >> uy);
      break;
    }
    case HloOpcode::kShiftRightArithmetic: {
      const int64_t v = SignExtend(ux, width);
      r.i = uy >= static_cast<uint64_t>(width) ? (v < 0 ? -1 : 0) : (v >> uy);
      break;
    }
    default: break;
  }
  return Normalize(r, type);
}

bool IsTotalOrder(const HloInstruction& compare) {
  for (const HloAttribute& a : compare.raw_attributes()) {
    if (a.name == "type") return a.value == "TOTALORDER";
  }
  return false;
}

bool ApplyCompare(absl::string_view direction, bool total_order, PrimitiveType type, Num a,
                  Num b) {
  if (DomainOf(type) == Domain::kFloat && total_order) {
    a.i = TotalOrderKey(a, type);
    b.i = TotalOrderKey(b, type);
    type = S64;
  }
  if (DomainOf(type) == Domain::kFloat) {
    const double x = a.f, y = b.f;
    if (direction == "EQ") return x == y;
    if (direction == "NE") return x != y;
    if (direction == "LT") return x < y;
    if (direction == "LE") return x <= y;
    if (direction == "GT") return x > y;
    return x >= y;  // GE
  }
  const bool is_unsigned = DomainOf(type) != Domain::kSigned;
  auto less = [&](int64_t x, int64_t y) { return is_unsigned ? UnsignedLess(x, y) : x < y; };
  if (direction == "EQ") return a.i == b.i;
  if (direction == "NE") return a.i != b.i;
  if (direction == "LT") return less(a.i, b.i);
  if (direction == "LE") return !less(b.i, a.i);
  if (direction == "GT") return less(b.i, a.i);
  return !less(a.i, b.i);  // GE
}

}  // namespace xla_layout::runtime
