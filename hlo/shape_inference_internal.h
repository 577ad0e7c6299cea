// Shape inference's helpers, shared by its two files: shape_inference.cc
// (every op but those with a window) and shape_inference_window.cc
// (convolution, reduce-window, select-and-scatter). Not a public API:
// use shape_inference.h.
#ifndef HLO_SHAPE_INFERENCE_INTERNAL_H_
#define HLO_SHAPE_INFERENCE_INTERNAL_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/hlo_module.h"

namespace xla_layout::shape_inference_internal {

absl::Status Bad(const std::string& message);
std::string Dims(absl::Span<const int64_t> dims);
// `ref` with another element type and no layout.
Shape Like(const Shape& ref, PrimitiveType type);
// a + b and a * b, or nothing where they would overflow int64.
std::optional<int64_t> Add(int64_t a, int64_t b);
std::optional<int64_t> Multiply(int64_t a, int64_t b);
// Every operand is an array.
absl::Status NeedArrays(const HloInstruction& i);
// `n` operands, every one an array.
absl::Status NeedOperands(const HloInstruction& i, int n);

// The windowed ops: what InferShape gives for them.
absl::StatusOr<Shape> InferConvolution(const HloInstruction& i);
absl::StatusOr<Shape> InferReduceWindow(const HloInstruction& i);
absl::StatusOr<Shape> InferSelectAndScatter(const HloInstruction& i);

}  // namespace xla_layout::shape_inference_internal

#endif  // HLO_SHAPE_INFERENCE_INTERNAL_H_
