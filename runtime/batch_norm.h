// XLA's batch-norm-training, batch-norm-inference and batch-norm-grad in the
// executor (internal to runtime/).
//
// XLA runs these ops through its BatchNormExpander (the CPU and interpreter
// backends always do), so the executor computes exactly the ops the expander
// emits, in its order, each one an element op of the operand's type rounded
// to that type (element.h): the result is bit for bit what the expanded HLO
// gives on this executor. With N the element count per feature (the product
// of the other dims, as s32, converted to the type), eps the `epsilon`
// attribute read as XLA reads it (a double narrowed to f32) and converted to
// the type, rs = rsqrt(var + eps), and sum() a reduce over every dim but the
// feature dim:
//   training:  mean = sum(x) / N, var = sum(x * x) / N - mean * mean (the
//              biased variance, as E[x^2] - E[x]^2, which is what the
//              expander computes); y = (x - mean) * rs * scale + offset;
//              returns (y, mean, var).
//   inference: s = scale * rs, t = offset - mean * s; y = x * s + t.
//   grad:      xm = x - mean, a = sum(dy * xm), b = sum(dy);
//              grad_scale = a * rs, grad_offset = b,
//              grad_x = (scale * rs / N) * ((dy * N - b) - a * xm / (var + eps)).
// Each sum starts at +0 and adds the elements of one feature in row-major
// order of the other dims, one add at a time in the type (the executor's
// reduce order), so the results depend on logical indices only.
#ifndef RUNTIME_BATCH_NORM_H_
#define RUNTIME_BATCH_NORM_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/hlo_module.h"
#include "runtime/buffer.h"
#include "runtime/ops_util.h"

namespace xla_layout::runtime {

// Checks at load time what BatchNorm relies on: a floating-point operand,
// feature_index a dim of it, a numeric epsilon, feature operands of one dim
// sized as the feature dim, grad_output shaped as the operand, all of one
// type, and the result shapes XLA gives these ops.
absl::Status CheckBatchNorm(const HloInstruction& batch_norm);

// Runs any of the three ops; `out` has one ArrayInfo per array of the
// result (three for training and grad, one for inference).
absl::StatusOr<Value> BatchNorm(const HloInstruction& batch_norm,
                                absl::Span<const Value* const> ops, absl::Span<const Info> out);

}  // namespace xla_layout::runtime

#endif  // RUNTIME_BATCH_NORM_H_
