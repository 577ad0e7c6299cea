// The executor's linear-algebra ops (internal to runtime/): cholesky and
// triangular-solve on batches of matrices (the two minor dims; the others
// are batch dims). Arithmetic is the element type's (each product, sum,
// quotient and square root rounded to it, as XLA's f32 expansions compute),
// in a fixed order of logical indices, so layouts never change a result.
// fft is refused: it computes on complex numbers, which the executor's
// elements (element.h) do not represent.
#ifndef RUNTIME_LINALG_H_
#define RUNTIME_LINALG_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/hlo_module.h"
#include "runtime/buffer.h"
#include "runtime/ops_util.h"

namespace xla_layout::runtime {

// Load-time checks of a cholesky: a floating-point operand of rank >= 2
// whose two minor dims are equal, the result of its shape, `lower` true or
// false.
absl::Status CheckCholesky(const HloInstruction& inst);
// Per matrix a: with lower=true, L with L L^T = a, read from a's lower
// triangle only (the diagonal included); with lower=false, U with U^T U =
// a, read from the upper triangle. The other triangle of the result is
// zero, as XLA's expansion leaves it. Where a pivot's square root is NaN
// (a not positive definite, or a NaN read), every element of that matrix
// is NaN, as in XLA's expansion; other matrices of the batch are not
// affected.
absl::StatusOr<Value> Cholesky(const HloInstruction& inst, const Value& a, const Info& out);

// Load-time checks of a triangular-solve: floating-point a [..., m, m] and
// b of a's type, [..., m, n] when left_side, [..., n, m] otherwise, with
// a's batch dims; the result b's shape; left_side, lower and unit_diagonal
// true or false; transpose_a written as NO_TRANSPOSE, TRANSPOSE or ADJOINT
// (the last is TRANSPOSE on real numbers), as XLA requires.
absl::Status CheckTriangularSolve(const HloInstruction& inst);
// x with op(a) x = b (left_side) or x op(a) = b, op(a) being a or a^T. Only
// the triangle `lower` names is read; with unit_diagonal the diagonal is
// taken as ones and not read. Substitution runs from the end of op(a)'s
// triangle that needs no unknowns, each sum in increasing index; a zero on
// the diagonal divides by zero (inf or NaN, as IEEE says).
absl::StatusOr<Value> TriangularSolve(const HloInstruction& inst, const Value& a, const Value& b,
                                      const Info& out);

}  // namespace xla_layout::runtime

#endif  // RUNTIME_LINALG_H_
