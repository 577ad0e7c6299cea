// Ops the executor runs as another op it has (internal to runtime/): map,
// a scalar computation applied per element; dynamic-reshape whose result
// has static sizes, a reshape; get-dimension-size of a static dim, a
// constant.
#ifndef RUNTIME_MAP_H_
#define RUNTIME_MAP_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/hlo_module.h"
#include "runtime/buffer.h"
#include "runtime/ops_util.h"
#include "runtime/scalar_program.h"

namespace xla_layout::runtime {

// Load-time checks of a map: operands of the result's dims, and to_apply
// taking one scalar per operand, of its type, and returning one of the
// result's type.
absl::Status CheckMap(const HloInstruction& inst);
// out[i] = to_apply(op0[i], op1[i], ...).
absl::StatusOr<Value> Map(absl::Span<const Value* const> ops, const Info& out,
                          const ScalarProgram& to_apply);

// Load-time checks of a dynamic-reshape(operand, size...): a result without
// dynamic dims (the executor keeps no runtime sizes), as many integer
// scalar sizes as result dims, and as many elements as the operand.
absl::Status CheckDynamicReshape(const HloInstruction& inst);
// The operand reshaped (row-major order kept); an error naming the
// instruction when a size operand is not the result's static size.
absl::StatusOr<Value> DynamicReshape(const HloInstruction& inst, absl::Span<const Value* const> ops,
                                     const Info& out);

// Load-time checks of a get-dimension-size: dimensions={d} names a dim of
// the array operand, and that dim is static (the executor keeps no runtime
// sizes, so a dynamic dim's size is unknown to it).
absl::Status CheckGetDimensionSize(const HloInstruction& inst);
// The size of dim d, as the result's integer type.
absl::StatusOr<Value> GetDimensionSize(const HloInstruction& inst, const Info& out);

}  // namespace xla_layout::runtime

#endif  // RUNTIME_MAP_H_
