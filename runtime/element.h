// Element semantics of the executor: which types it runs, how an element's
// bits become a number and back, and the arithmetic every op shares (array
// ops and the scalar computations of reduce call the same functions).
//
// A number is kept normalized to its type: floating-point values as a double
// already rounded to the type (once, to nearest even, from the double or the
// integer it came from: never through a second format), integers as an
// int64 already wrapped to the type's width (u64 as its bits), pred as 0 or
// 1. Integer arithmetic wraps; division by zero gives -1 (all ones) and
// remainder by zero the dividend, as in XLA; an integer to a negative power
// is 1 for base 1 and 0 otherwise, as in XLA; float-to-integer conversion
// saturates and takes NaN to 0. Nothing here has undefined behaviour.
#ifndef RUNTIME_ELEMENT_H_
#define RUNTIME_ELEMENT_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "hlo/hlo_module.h"
#include "hlo/hlo_opcode.h"
#include "proto/layout.pb.h"

namespace xla_layout::runtime {

enum class Domain { kPred, kSigned, kUnsigned, kFloat };

// OK for pred, s4, u4, s8..s64, u8..u64, f16, bf16, f32, f64; otherwise an
// error naming the type ("c64 is not supported by the executor").
absl::Status CheckSupportedType(PrimitiveType type);
// CheckSupportedType's types and c64 (two f32, real then imaginary): what a
// buffer may hold. The executor computes on c64 only in fft and moves it
// with data-movement ops, bit for bit (the compiler checks which).
absl::Status CheckStorableType(PrimitiveType type);
Domain DomainOf(PrimitiveType type);
int TypeBits(PrimitiveType type);  // 1 for pred's value, 4 for s4, 32 for f32

// One element's value; `f` for floating-point types, `i` otherwise.
struct Num {
  double f = 0;
  int64_t i = 0;
};

// The element's bits (zero-extended, at most 64) to a number and back.
Num FromBits(uint64_t bits, PrimitiveType type);
uint64_t ToBits(Num value, PrimitiveType type);
// Rounds or wraps a value computed in double / int64 to `type`.
Num Normalize(Num value, PrimitiveType type);

Num Convert(Num value, PrimitiveType from, PrimitiveType to);
// Elementwise ops on normalized operands of `type`; the result is normalized
// (compare and is-finite give pred). Unsupported combinations were refused by
// CheckElementwise.
Num ApplyUnary(HloOpcode opcode, PrimitiveType type, Num a);
Num ApplyBinary(HloOpcode opcode, PrimitiveType type, Num a, Num b);
// `total_order` is XLA's `type=TOTALORDER`: floats compare by their bits
// as sign and magnitude, so -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN
// and two NaNs are equal when their bits are; otherwise floats compare as
// IEEE does (NaN unordered, -0 == +0). Integers ignore it.
bool ApplyCompare(absl::string_view direction, bool total_order, PrimitiveType type, Num a,
                  Num b);
// Whether a compare instruction asks for the total order.
bool IsTotalOrder(const HloInstruction& compare);

// Whether the executor runs `opcode` as an elementwise op on `type` (its
// operand type); an error naming both otherwise.
absl::Status CheckElementwise(HloOpcode opcode, PrimitiveType type);

}  // namespace xla_layout::runtime

#endif  // RUNTIME_ELEMENT_H_
