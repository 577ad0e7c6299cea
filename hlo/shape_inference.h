// Shape inference for HLO instructions, as XLA's ShapeInference computes
// shapes: from the operands, the typed attributes and the called
// computations, without layouts. The parser uses it for instructions written
// without a shape; the verifier compares every written shape with it.
//
// Inferred: elementwise ops (compare and is-finite give pred; real, imag and
// abs of complex give the component type; complex builds one), tuple,
// get-tuple-element, while, conditional, call, map, transpose, dot (a sparse
// one too, with its metadata operands checked: sparse_dot.h), reduce,
// reduce-window, concatenate, pad, slice, dynamic-slice, dynamic-update-slice,
// reverse, convolution, gather, scatter, sort, select, clamp, add-dependency,
// opt-barrier, after-all, replica-id, partition-id, get-dimension-size,
// select-and-scatter (its source fits the window), collective-permute (in
// place too: the output buffer), collective-permute-done. Checked but never
// inferred (the shape must be written): reshape (same element count),
// bitcast (same byte size), convert and bitcast-convert (same dims),
// broadcast (operand dims where they map), iota (iota_dimension in range).
// Anything else is taken as written.
//
// Refused as XLA refuses them: reverse dims repeated or outside the rank,
// clamp bounds of another element type than the operand, a compare
// direction other than EQ, NE, LT, LE, GT, GE (or none), dynamic-slice and
// dynamic-update-slice start indices that are not integers, and pad and
// window sizes (padding, lhs_dilate, rhs_dilate) whose arithmetic overflows
// int64: never wrapped into a size that looks right.
#ifndef HLO_SHAPE_INFERENCE_H_
#define HLO_SHAPE_INFERENCE_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hlo/hlo_module.h"

namespace xla_layout {

// The shape `i` has by its operands and attributes. NotFound when the
// opcode's shape is not inferred here; InvalidArgument (saying why) when the
// operands or attributes do not fit the op.
absl::StatusOr<Shape> InferShape(const HloInstruction& i);

// Checks `i`'s written shape against InferShape, or against the rules above
// for ops whose shape must be written. Layouts are not compared; nor are
// element types of dot and convolution (XLA's preferred_element_type).
absl::Status CheckShape(const HloInstruction& i);

}  // namespace xla_layout

#endif  // HLO_SHAPE_INFERENCE_H_
