// The executor's fast path for dots on f32 and bf16: the operands are
// gathered once into panels of doubles (runs of 4 lhs rows and 8 rhs
// columns side by side per contracting index, fastest when the layout
// already holds such runs, as the CPU targets' {1,0:T(m0,1)} and
// {0,1:T(n0,1)} do), and a register-blocked kernel (8x16 with AVX-512 when
// the result's rows divide by 8 and its columns by 16, else 4x8 with AVX2
// or plain C++, its last blocks padded) walks whole panels with no index
// math per product. A dot with batch dims runs as one such matmul per batch
// index (the batch loop outside the blocked kernel); several free or
// contracting dims count as one, flattened row-major in the generic dot's
// order. It gives the bits the generic dot gives: products and sums in
// double, each sum in increasing contracting index, rounded once to the
// result's type; a NaN sum takes the NaN the rule of runtime/nan_rule.h
// gives it, whatever the kernel's operand order.
#ifndef RUNTIME_DOT_KERNEL_H_
#define RUNTIME_DOT_KERNEL_H_

#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/hlo_module.h"
#include "runtime/buffer.h"
#include "xla_layout/isa.h"

namespace xla_layout::runtime {

// The result of a dot in any dim numbers (sparse dots excepted) whose
// operands and result are f32 or bf16 in separable layouts, each operand
// of the result's type or bf16 under an f32 result (so that the generic
// dot's conversion to the result's type is exact); none otherwise, when a
// dim is empty, or when its panels would not fit in memory (the caller then
// runs the generic dot). `isa` picks the kernel as the packing core's
// kernels are picked (ResolveIsa: kAuto is the XLA_LAYOUT_ISA override,
// else the best the CPU has; a path the CPU lacks falls back); every path
// gives the same bits.
std::optional<absl::StatusOr<Value>> PackedDot(const HloInstruction& dot, const Value& lhs,
                                               const Value& rhs,
                                               const std::shared_ptr<const ArrayInfo>& out,
                                               Isa isa = Isa::kAuto);

// The kernel PackedDot runs with `isa` on a result of m_size x n_size:
// "avx512 8x16", "avx2 4x8" or "scalar 4x8".
absl::string_view PackedDotKernel(int64_t m_size, int64_t n_size, Isa isa = Isa::kAuto);

// The generic dot (runtime/ops.cc), element by element: the reference that
// PackedDot must match bit for bit, for tests.
absl::StatusOr<Value> GenericDot(const HloInstruction& dot, const Value& lhs, const Value& rhs,
                                 const std::shared_ptr<const ArrayInfo>& out);

}  // namespace xla_layout::runtime

#endif  // RUNTIME_DOT_KERNEL_H_
