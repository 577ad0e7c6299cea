// The executor's ops on an element's bits (internal to runtime/):
// bitcast-convert and reduce-precision.
#ifndef RUNTIME_BITS_H_
#define RUNTIME_BITS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hlo/hlo_module.h"
#include "runtime/buffer.h"
#include "runtime/ops_util.h"

namespace xla_layout::runtime {

// Load-time checks of a bitcast-convert: neither side pred (a pred's byte
// has no defined bits beyond 0 and 1); the shapes were checked by the
// verifier (equal widths keep the dims, else the narrower side has one more
// minor dim of the width ratio).
absl::Status CheckBitcastConvert(const HloInstruction& inst);
// Each element's bits reread as the result type. Between widths, as XLA
// does on a little-endian machine: a wide element splits into narrow ones
// along the new minor dim, its lowest bits at index 0, and narrow elements
// join into one wide element the same way.
absl::StatusOr<Value> BitcastConvert(const Value& operand, const Info& out);

// Load-time checks of a reduce-precision: a floating-point operand,
// exponent_bits >= 1 and mantissa_bits >= 0 written.
absl::Status CheckReducePrecision(const HloInstruction& inst);
// The float `bits` of `type` (f16, bf16, f32, f64) rounded to a format of
// `exponent_bits` and `mantissa_bits`, and kept in `type`, as XLA's CPU
// and GPU backends compute it on the type's own bits: the mantissa rounds
// to nearest even; past the format's largest exponent it is inf; at or
// below the exponent of the format's denormals it is zero (denormals flush,
// the sign kept); a NaN stays the same NaN when mantissa_bits > 0 and
// becomes +inf when mantissa_bits is 0. Each narrowing applies only when
// the format is narrower than `type` in that field.
uint64_t ReducePrecisionBits(uint64_t bits, PrimitiveType type, int exponent_bits,
                             int mantissa_bits);
absl::StatusOr<Value> ReducePrecision(const HloInstruction& inst, const Value& operand,
                                      const Info& out);

}  // namespace xla_layout::runtime

#endif  // RUNTIME_BITS_H_
