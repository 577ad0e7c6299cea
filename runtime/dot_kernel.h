// The executor's fast path for a matmul whose operands come packed: the lhs
// with runs of 4 rows contiguous per contracting index, the rhs with runs of
// 8 columns (as the CPU targets' {1,0:T(m0,1)} and {0,1:T(n0,1)} put them).
// A register-blocked kernel (8x16 with AVX-512 when the result's rows
// divide by 8 and its columns by 16, else 4x8 with AVX2 or plain C++) walks
// whole panels with no index math per product, and gives the bits the
// generic dot gives: products and sums in double, each sum in increasing
// contracting index, rounded once.
#ifndef RUNTIME_DOT_KERNEL_H_
#define RUNTIME_DOT_KERNEL_H_

#include <optional>

#include "absl/status/statusor.h"
#include "hlo/hlo_module.h"
#include "runtime/buffer.h"

namespace xla_layout::runtime {

// The result of dot(lhs[M,K], rhs[K,N]) -> out[M,N] on f32, or none when the
// operands are not packed so (the caller then runs the generic dot).
std::optional<absl::StatusOr<Value>> PackedDot(const HloInstruction& dot, const Value& lhs,
                                               const Value& rhs,
                                               const std::shared_ptr<const ArrayInfo>& out);

}  // namespace xla_layout::runtime

#endif  // RUNTIME_DOT_KERNEL_H_
