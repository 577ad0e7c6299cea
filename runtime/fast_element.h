// Typed element loops of the fast paths (internal to runtime/): whole
// chunks of slots read as double or int64, computed with the formulas of
// element.cc, and written back rounded once. Each function promises the
// value the Num functions of element.h give for the same element, except
// that a floating-point result that is a NaN may have any payload: callers
// recompute those with the generic element function.
#ifndef RUNTIME_FAST_ELEMENT_H_
#define RUNTIME_FAST_ELEMENT_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "absl/strings/string_view.h"
#include "hlo/hlo_opcode.h"
#include "runtime/buffer.h"

namespace xla_layout::runtime {

// kFloat: f16, bf16, f32, f64; kInt: s8..s64, u8..u64; kPred; kNone: the
// sub-byte types, which the typed loops do not read.
enum class TypeClass { kNone, kFloat, kInt, kPred };
TypeClass ClassOf(PrimitiveType type);
// Whether `a`'s slots are its type's natural width (8 bits for pred), so
// that slot k is bytes [k * width, (k + 1) * width).
bool NaturalSlots(const ArrayInfo& a);

// Whether the fast paths may run (see SetFastPathsEnabledForTesting).
bool FastPathsEnabled();
// Counts one run of a fast path (FastPathCountsForTesting).
enum class FastPath {
  kElementwiseTyped,
  kElementwiseNum,
  kReduceTyped,
  kReduceProgram,
  kBroadcast,
  kCount
};
void CountFastPath(FastPath path);

// Slots [k0, k0 + n) of natural slots of `type` as FromBits reads them: a
// float's double, an integer sign- or zero-extended, a pred 0 or 1.
void LoadFloats(PrimitiveType type, const uint8_t* data, int64_t k0, int n, double* out);
void LoadInts(PrimitiveType type, const uint8_t* data, int64_t k0, int n, int64_t* out);
void LoadPreds(const uint8_t* data, int64_t k0, int n, uint8_t* out);

// Writes r[0..n) (none a NaN) to slots [k0, k0 + n) of the float `type`,
// each rounded once as ToBits rounds it; NaNs are left for the caller.
void StoreFloats(PrimitiveType type, uint8_t* data, int64_t k0, int n, const double* r);
// Writes the low bytes of r[0..n): ToBits of a wrapped integer.
void StoreInts(PrimitiveType type, uint8_t* data, int64_t k0, int n, const int64_t* r);
// Writes `bits` (ToBits of the type) to slot k.
void StoreNative(PrimitiveType type, uint8_t* data, int64_t k, uint64_t bits);

// The element.cc formulas over a chunk: r[j] = op(a[j]) or op(a[j], b[j]).
// The Has* functions say which ops have a loop.
bool HasFloatUnaryLoop(HloOpcode op);
bool HasFloatBinaryLoop(HloOpcode op);
bool HasIntUnaryLoop(HloOpcode op);
bool HasIntBinaryLoop(HloOpcode op);
void FloatUnaryLoop(HloOpcode op, const double* a, int n, double* r);
void FloatBinaryLoop(HloOpcode op, const double* a, const double* b, int n, double* r);
void IntUnaryLoop(HloOpcode op, const int64_t* a, int n, int64_t* r);
void IntBinaryLoop(HloOpcode op, bool is_signed, const int64_t* a, const int64_t* b, int n,
                   int64_t* r);
// Compare as ApplyCompare without the total order (`direction` as it reads
// it: anything but EQ, NE, LT, LE, GT is GE); r[j] is 0 or 1.
void FloatCompareLoop(absl::string_view direction, const double* a, const double* b, int n,
                      uint8_t* r);
void IntCompareLoop(absl::string_view direction, bool is_signed, const int64_t* a, const int64_t* b,
                    int n, uint8_t* r);

// Maximum and minimum as ApplyBinary computes them (a NaN operand gives the
// default NaN; otherwise the second operand on ties).
inline double FloatMaximum(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  return a > b ? a : b;
}
inline double FloatMinimum(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  return a < b ? a : b;
}
inline int64_t IntMaximum(bool is_signed, int64_t x, int64_t y) {
  const bool less = is_signed ? x < y : static_cast<uint64_t>(x) < static_cast<uint64_t>(y);
  return less ? y : x;
}
inline int64_t IntMinimum(bool is_signed, int64_t x, int64_t y) {
  const bool less = is_signed ? y < x : static_cast<uint64_t>(y) < static_cast<uint64_t>(x);
  return less ? y : x;
}

// bf16 and f16 bits of `r` (not a NaN), rounded once to nearest even as
// ToBits rounds it.
uint16_t Bf16Bits(double r);
uint16_t HalfBits(double r);
// FromBits(h, F16).f, from a table.
double HalfValue(uint16_t h);

// Natural slots of one float type: Load is FromBits(...).f, Bits is ToBits
// of a result that is not a NaN, Round is Normalize of it.
struct F32Slots {
  static double Load(const uint8_t* d, int64_t k) {
    float f;
    std::memcpy(&f, d + 4 * k, 4);
    return f;
  }
  static double Round(double r) { return static_cast<float>(r); }
};
struct F64Slots {
  static double Load(const uint8_t* d, int64_t k) {
    double f;
    std::memcpy(&f, d + 8 * k, 8);
    return f;
  }
  static double Round(double r) { return r; }
};
struct Bf16Slots {
  static double Value(uint16_t h) {
    const uint32_t u = static_cast<uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
  static double Load(const uint8_t* d, int64_t k) {
    uint16_t h;
    std::memcpy(&h, d + 2 * k, 2);
    return Value(h);
  }
  static double Round(double r) { return Value(Bf16Bits(r)); }
};
struct F16Slots {
  static double Load(const uint8_t* d, int64_t k) {
    uint16_t h;
    std::memcpy(&h, d + 2 * k, 2);
    return HalfValue(h);
  }
  static double Round(double r) { return HalfValue(HalfBits(r)); }
};

}  // namespace xla_layout::runtime

#endif  // RUNTIME_FAST_ELEMENT_H_
