#include "runtime/fast_element.h"

#include <vector>

namespace xla_layout::runtime {
namespace {

uint64_t DoubleBits(double r) {
  uint64_t u;
  std::memcpy(&u, &r, 8);
  return u;
}

// ToBits after Normalize: the generic element function's rounding, for the
// values the bit arithmetic below leaves to it.
uint16_t GenericBits16(double r, PrimitiveType type) {
  Num n;
  n.f = r;
  return static_cast<uint16_t>(ToBits(Normalize(n, type), type));
}

// `r` rounded once to nearest even to a format with `fraction` fraction
// bits whose normal binades are [2^min_exp, 2^(max_exp + 1)), as its sign,
// biased exponent and fraction in 16 bits; 0 when |r| is not in that range
// or rounds past it (zero, subnormal, infinite, NaN or overflowing: the
// caller asks the generic rounding). Rounding the double's significand at
// the format's last bit is RoundToFormat's nearbyint of the scaled value.
uint16_t RoundNormal16(double r, int fraction, int min_exp, int max_exp, int bias) {
  const uint64_t u = DoubleBits(r);
  const uint64_t mag = u & ~(uint64_t{1} << 63);
  const uint64_t lo = static_cast<uint64_t>(1023 + min_exp) << 52;
  const uint64_t hi = static_cast<uint64_t>(1023 + max_exp + 1) << 52;
  if (mag < lo || mag >= hi) return 0;
  const int drop = 52 - fraction;
  const uint64_t half = (uint64_t{1} << (drop - 1)) - 1;
  const uint64_t rounded = mag + half + ((mag >> drop) & 1);
  if (rounded >= hi) return 0;
  const uint64_t exp = (rounded >> 52) - 1023 + bias;
  const uint64_t frac = (rounded >> drop) & ((uint64_t{1} << fraction) - 1);
  return static_cast<uint16_t>(((u >> 48) & 0x8000) | (exp << fraction) | frac);
}

template <typename T>
void LoadAs(const uint8_t* data, int64_t k0, int n, int64_t* out) {
  const uint8_t* p = data + k0 * static_cast<int64_t>(sizeof(T));
  for (int j = 0; j < n; ++j) {
    T v;
    std::memcpy(&v, p + j * sizeof(T), sizeof(T));
    out[j] = static_cast<int64_t>(v);
  }
}

template <typename T>
void StoreAs(uint8_t* data, int64_t k0, int n, const int64_t* r) {
  uint8_t* p = data + k0 * static_cast<int64_t>(sizeof(T));
  for (int j = 0; j < n; ++j) {
    const T v = static_cast<T>(static_cast<uint64_t>(r[j]));
    std::memcpy(p + j * sizeof(T), &v, sizeof(T));
  }
}

template <typename Slots>
void LoadWith(const uint8_t* data, int64_t k0, int n, double* out) {
  for (int j = 0; j < n; ++j) out[j] = Slots::Load(data, k0 + j);
}

// r[j] = fn(a[j]) and r[j] = fn(a[j], b[j]) for j < n.
template <typename T, typename R, typename Fn>
void EachOf(const T* a, int n, R* r, Fn fn) {
  for (int j = 0; j < n; ++j) r[j] = fn(a[j]);
}
template <typename T, typename R, typename Fn>
void EachPairOf(const T* a, const T* b, int n, R* r, Fn fn) {
  for (int j = 0; j < n; ++j) r[j] = fn(a[j], b[j]);
}

enum class Dir { kEq, kNe, kLt, kLe, kGt, kGe };
Dir ParseDirection(absl::string_view d) {
  if (d == "EQ") return Dir::kEq;
  if (d == "NE") return Dir::kNe;
  if (d == "LT") return Dir::kLt;
  if (d == "LE") return Dir::kLe;
  if (d == "GT") return Dir::kGt;
  return Dir::kGe;
}

// Integer comparisons through `less`, as ApplyCompare makes them.
template <typename Less>
void CompareWith(Dir dir, const int64_t* a, const int64_t* b, int n, uint8_t* r, Less less) {
  switch (dir) {
    case Dir::kEq:
      for (int j = 0; j < n; ++j) r[j] = a[j] == b[j];
      return;
    case Dir::kNe:
      for (int j = 0; j < n; ++j) r[j] = a[j] != b[j];
      return;
    case Dir::kLt:
      for (int j = 0; j < n; ++j) r[j] = less(a[j], b[j]);
      return;
    case Dir::kLe:
      for (int j = 0; j < n; ++j) r[j] = !less(b[j], a[j]);
      return;
    case Dir::kGt:
      for (int j = 0; j < n; ++j) r[j] = less(b[j], a[j]);
      return;
    case Dir::kGe:
      for (int j = 0; j < n; ++j) r[j] = !less(a[j], b[j]);
      return;
  }
}

}  // namespace

TypeClass ClassOf(PrimitiveType type) {
  switch (type) {
    case F16:
    case BF16:
    case F32:
    case F64: return TypeClass::kFloat;
    case S8:
    case S16:
    case S32:
    case S64:
    case U8:
    case U16:
    case U32:
    case U64: return TypeClass::kInt;
    case PRED: return TypeClass::kPred;
    default: return TypeClass::kNone;
  }
}

bool NaturalSlots(const ArrayInfo& a) {
  if (ClassOf(a.type()) == TypeClass::kNone) return false;
  return a.slot_bits() == (a.type() == PRED ? 8 : TypeBits(a.type()));
}

uint16_t Bf16Bits(double r) {
  const uint16_t bits = RoundNormal16(r, 7, -126, 127, 127);
  return bits != 0 ? bits : GenericBits16(r, BF16);
}

uint16_t HalfBits(double r) {
  const uint16_t bits = RoundNormal16(r, 10, -14, 15, 15);
  return bits != 0 ? bits : GenericBits16(r, F16);
}

double HalfValue(uint16_t h) {
  // Built from FromBits itself, so that it reads every half as it does.
  struct Table {
    float value[65536];
    Table() {
      for (uint32_t b = 0; b < 65536; ++b) value[b] = static_cast<float>(FromBits(b, F16).f);
    }
  };
  static const Table table;
  return table.value[h];
}

void LoadFloats(PrimitiveType type, const uint8_t* data, int64_t k0, int n, double* out) {
  switch (type) {
    case F32: return LoadWith<F32Slots>(data, k0, n, out);
    case F64: return LoadWith<F64Slots>(data, k0, n, out);
    case BF16: return LoadWith<Bf16Slots>(data, k0, n, out);
    default: return LoadWith<F16Slots>(data, k0, n, out);
  }
}

void LoadInts(PrimitiveType type, const uint8_t* data, int64_t k0, int n, int64_t* out) {
  switch (type) {
    case S8: return LoadAs<int8_t>(data, k0, n, out);
    case S16: return LoadAs<int16_t>(data, k0, n, out);
    case S32: return LoadAs<int32_t>(data, k0, n, out);
    case S64: return LoadAs<int64_t>(data, k0, n, out);
    case U8: return LoadAs<uint8_t>(data, k0, n, out);
    case U16: return LoadAs<uint16_t>(data, k0, n, out);
    case U32: return LoadAs<uint32_t>(data, k0, n, out);
    default: return LoadAs<uint64_t>(data, k0, n, out);
  }
}

void LoadPreds(const uint8_t* data, int64_t k0, int n, uint8_t* out) {
  for (int j = 0; j < n; ++j) out[j] = data[k0 + j] != 0;
}

void StoreFloats(PrimitiveType type, uint8_t* data, int64_t k0, int n, const double* r) {
  switch (type) {
    case F32:
      for (int j = 0; j < n; ++j) {
        const float f = static_cast<float>(r[j]);
        std::memcpy(data + 4 * (k0 + j), &f, 4);
      }
      return;
    case F64: std::memcpy(data + 8 * k0, r, 8 * static_cast<size_t>(n)); return;
    default:
      for (int j = 0; j < n; ++j) {
        if (std::isnan(r[j])) continue;
        const uint16_t h = type == BF16 ? Bf16Bits(r[j]) : HalfBits(r[j]);
        std::memcpy(data + 2 * (k0 + j), &h, 2);
      }
  }
}

void StoreInts(PrimitiveType type, uint8_t* data, int64_t k0, int n, const int64_t* r) {
  switch (TypeBits(type)) {
    case 8: return StoreAs<uint8_t>(data, k0, n, r);
    case 16: return StoreAs<uint16_t>(data, k0, n, r);
    case 32: return StoreAs<uint32_t>(data, k0, n, r);
    default: return StoreAs<uint64_t>(data, k0, n, r);
  }
}

void StoreNative(PrimitiveType type, uint8_t* data, int64_t k, uint64_t bits) {
  const int bytes = type == PRED ? 1 : TypeBits(type) / 8;
  std::memcpy(data + k * bytes, &bits, bytes);
}

bool HasFloatUnaryLoop(HloOpcode op) {
  switch (op) {
    case HloOpcode::kNegate:
    case HloOpcode::kAbs:
    case HloOpcode::kExp:
    case HloOpcode::kExpm1:
    case HloOpcode::kLog:
    case HloOpcode::kLog1p:
    case HloOpcode::kSqrt:
    case HloOpcode::kRsqrt:
    case HloOpcode::kTanh:
    case HloOpcode::kLogistic:
    case HloOpcode::kFloor:
    case HloOpcode::kCeil:
    case HloOpcode::kSin:
    case HloOpcode::kCos:
    case HloOpcode::kSign:
    case HloOpcode::kRoundNearestAfz:
    case HloOpcode::kRoundNearestEven: return true;
    default: return false;
  }
}

bool HasFloatBinaryLoop(HloOpcode op) {
  switch (op) {
    case HloOpcode::kAdd:
    case HloOpcode::kSubtract:
    case HloOpcode::kMultiply:
    case HloOpcode::kDivide:
    case HloOpcode::kRemainder:
    case HloOpcode::kPower:
    case HloOpcode::kAtan2:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum: return true;
    default: return false;
  }
}

bool HasIntUnaryLoop(HloOpcode op) {
  return op == HloOpcode::kNegate || op == HloOpcode::kNot || op == HloOpcode::kAbs;
}

bool HasIntBinaryLoop(HloOpcode op) {
  switch (op) {
    case HloOpcode::kAdd:
    case HloOpcode::kSubtract:
    case HloOpcode::kMultiply:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
    case HloOpcode::kXor: return true;
    default: return false;
  }
}

// The formulas of ApplyUnary, one loop each.
void FloatUnaryLoop(HloOpcode op, const double* a, int n, double* r) {
  switch (op) {
    case HloOpcode::kNegate: return EachOf(a, n, r, [](double x) { return -x; });
    case HloOpcode::kAbs: return EachOf(a, n, r, [](double x) { return std::fabs(x); });
    case HloOpcode::kExp: return EachOf(a, n, r, [](double x) { return std::exp(x); });
    case HloOpcode::kExpm1: return EachOf(a, n, r, [](double x) { return std::expm1(x); });
    case HloOpcode::kLog: return EachOf(a, n, r, [](double x) { return std::log(x); });
    case HloOpcode::kLog1p: return EachOf(a, n, r, [](double x) { return std::log1p(x); });
    case HloOpcode::kSqrt: return EachOf(a, n, r, [](double x) { return std::sqrt(x); });
    case HloOpcode::kRsqrt: return EachOf(a, n, r, [](double x) { return 1.0 / std::sqrt(x); });
    case HloOpcode::kTanh: return EachOf(a, n, r, [](double x) { return std::tanh(x); });
    case HloOpcode::kLogistic:
      return EachOf(a, n, r, [](double x) { return 1.0 / (1.0 + std::exp(-x)); });
    case HloOpcode::kFloor: return EachOf(a, n, r, [](double x) { return std::floor(x); });
    case HloOpcode::kCeil: return EachOf(a, n, r, [](double x) { return std::ceil(x); });
    case HloOpcode::kSin: return EachOf(a, n, r, [](double x) { return std::sin(x); });
    case HloOpcode::kCos: return EachOf(a, n, r, [](double x) { return std::cos(x); });
    case HloOpcode::kRoundNearestAfz:
      return EachOf(a, n, r, [](double x) { return std::round(x); });
    case HloOpcode::kRoundNearestEven:
      return EachOf(a, n, r, [](double x) { return std::nearbyint(x); });
    case HloOpcode::kSign:
      return EachOf(a, n, r,
                    [](double x) { return std::isnan(x) || x == 0 ? x : (x > 0 ? 1.0 : -1.0); });
    default: return;
  }
}

// The formulas of ApplyBinary, one loop each.
void FloatBinaryLoop(HloOpcode op, const double* a, const double* b, int n, double* r) {
  switch (op) {
    case HloOpcode::kAdd: return EachPairOf(a, b, n, r, [](double x, double y) { return x + y; });
    case HloOpcode::kSubtract:
      return EachPairOf(a, b, n, r, [](double x, double y) { return x - y; });
    case HloOpcode::kMultiply:
      return EachPairOf(a, b, n, r, [](double x, double y) { return x * y; });
    case HloOpcode::kDivide:
      return EachPairOf(a, b, n, r, [](double x, double y) { return x / y; });
    case HloOpcode::kRemainder:
      return EachPairOf(a, b, n, r, [](double x, double y) { return std::fmod(x, y); });
    case HloOpcode::kPower:
      return EachPairOf(a, b, n, r, [](double x, double y) { return std::pow(x, y); });
    case HloOpcode::kAtan2:
      return EachPairOf(a, b, n, r, [](double x, double y) { return std::atan2(x, y); });
    case HloOpcode::kMaximum: return EachPairOf(a, b, n, r, FloatMaximum);
    case HloOpcode::kMinimum: return EachPairOf(a, b, n, r, FloatMinimum);
    default: return;
  }
}

void IntUnaryLoop(HloOpcode op, const int64_t* a, int n, int64_t* r) {
  // Through uint64: wrapping, never overflowing.
  auto u = [](int64_t x) { return static_cast<uint64_t>(x); };
  switch (op) {
    case HloOpcode::kNegate:
      return EachOf(a, n, r, [&](int64_t x) { return static_cast<int64_t>(0 - u(x)); });
    case HloOpcode::kNot:
      return EachOf(a, n, r, [&](int64_t x) { return static_cast<int64_t>(~u(x)); });
    default:  // abs
      return EachOf(a, n, r, [&](int64_t x) { return x < 0 ? static_cast<int64_t>(0 - u(x)) : x; });
  }
}

// Wrapping arithmetic on the int64 values; the store keeps the low bytes.
void IntBinaryLoop(HloOpcode op, bool is_signed, const int64_t* a, const int64_t* b, int n,
                   int64_t* r) {
  auto u = [](int64_t x) { return static_cast<uint64_t>(x); };
  switch (op) {
    case HloOpcode::kAdd:
      return EachPairOf(a, b, n, r,
                        [&](int64_t x, int64_t y) { return static_cast<int64_t>(u(x) + u(y)); });
    case HloOpcode::kSubtract:
      return EachPairOf(a, b, n, r,
                        [&](int64_t x, int64_t y) { return static_cast<int64_t>(u(x) - u(y)); });
    case HloOpcode::kMultiply:
      return EachPairOf(a, b, n, r,
                        [&](int64_t x, int64_t y) { return static_cast<int64_t>(u(x) * u(y)); });
    case HloOpcode::kMaximum:
      return EachPairOf(a, b, n, r,
                        [&](int64_t x, int64_t y) { return IntMaximum(is_signed, x, y); });
    case HloOpcode::kMinimum:
      return EachPairOf(a, b, n, r,
                        [&](int64_t x, int64_t y) { return IntMinimum(is_signed, x, y); });
    case HloOpcode::kAnd: return EachPairOf(a, b, n, r, [](int64_t x, int64_t y) { return x & y; });
    case HloOpcode::kOr: return EachPairOf(a, b, n, r, [](int64_t x, int64_t y) { return x | y; });
    case HloOpcode::kXor: return EachPairOf(a, b, n, r, [](int64_t x, int64_t y) { return x ^ y; });
    default: return;
  }
}

// The IEEE comparisons themselves: a NaN operand makes all but NE false.
void FloatCompareLoop(absl::string_view direction, const double* a, const double* b, int n,
                      uint8_t* r) {
  switch (ParseDirection(direction)) {
    case Dir::kEq: return EachPairOf(a, b, n, r, [](double x, double y) { return x == y; });
    case Dir::kNe: return EachPairOf(a, b, n, r, [](double x, double y) { return x != y; });
    case Dir::kLt: return EachPairOf(a, b, n, r, [](double x, double y) { return x < y; });
    case Dir::kLe: return EachPairOf(a, b, n, r, [](double x, double y) { return x <= y; });
    case Dir::kGt: return EachPairOf(a, b, n, r, [](double x, double y) { return x > y; });
    case Dir::kGe: return EachPairOf(a, b, n, r, [](double x, double y) { return x >= y; });
  }
}

void IntCompareLoop(absl::string_view direction, bool is_signed, const int64_t* a, const int64_t* b,
                    int n, uint8_t* r) {
  const Dir dir = ParseDirection(direction);
  if (is_signed) {
    CompareWith(dir, a, b, n, r, [](int64_t x, int64_t y) { return x < y; });
  } else {
    CompareWith(dir, a, b, n, r, [](int64_t x, int64_t y) {
      return static_cast<uint64_t>(x) < static_cast<uint64_t>(y);
    });
  }
}

}  // namespace xla_layout::runtime
