// The executor's fast path for a matmul whose operands come packed: the lhs
// with runs of 4 rows contiguous per contracting index, the rhs with runs of
// 8 columns (as the CPU targets' {1,0:T(m0,1)} and {0,1:T(n0,1)} put them).
// A dot with batch dims runs as one such matmul per batch index (the batch
// loop outside the blocked kernel); several free or contracting dims count
// as one, flattened row-major in the generic dot's order.
// A register-blocked kernel (8x16 with AVX-512 when the result's rows
// divide by 8 and its columns by 16, else 4x8 with AVX2 or plain C++) walks
// whole panels with no index math per product, and gives the bits the
// generic dot gives: products and sums in double, each sum in increasing
// contracting index, rounded once; a NaN sum takes the NaN the rule of
// runtime/nan_rule.h gives it, whatever the kernel's operand order.
#ifndef RUNTIME_DOT_KERNEL_H_
#define RUNTIME_DOT_KERNEL_H_

#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/hlo_module.h"
#include "runtime/buffer.h"
#include "xla_layout/isa.h"

namespace xla_layout::runtime {

// The result of a dot on f32, dot(lhs[B...,M...,K...], rhs[B...,K...,N...])
// -> out[B...,M...,N...] in any dim numbers (sparse dots excepted), or none
// when the operands are not packed so: the lhs's free dims flattened in runs
// of 4 contiguous slots, the rhs's in runs of 8, and every array separable
// (the caller then runs the generic dot). `isa`
// picks the kernel as the packing core's kernels are picked (ResolveIsa:
// kAuto is the XLA_LAYOUT_ISA override, else the best the CPU has; a path
// the CPU lacks falls back); every path gives the same bits.
std::optional<absl::StatusOr<Value>> PackedDot(const HloInstruction& dot, const Value& lhs,
                                               const Value& rhs,
                                               const std::shared_ptr<const ArrayInfo>& out,
                                               Isa isa = Isa::kAuto);

// The kernel PackedDot runs with `isa` on a result of m_size x n_size:
// "avx512 8x16", "avx2 4x8" or "scalar 4x8".
absl::string_view PackedDotKernel(int64_t m_size, int64_t n_size, Isa isa = Isa::kAuto);

}  // namespace xla_layout::runtime

#endif  // RUNTIME_DOT_KERNEL_H_
