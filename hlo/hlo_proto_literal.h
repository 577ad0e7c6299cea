// Literals between the IR (HloLiteral, values in logical row-major order)
// and XLA's LiteralProto (values in the shape's layout order, by element
// type: 8-bit and narrower types one element per byte, 16-bit types as
// little-endian pairs of bytes, complex types as interleaved real and
// imaginary parts).
//
// A literal whose values the text left out (`{...}`) has none to write: its
// proto holds the shape only, and such a proto reads back as `{...}`. Tiled
// layouts of literals are refused (XLA's literals have none).
#ifndef HLO_HLO_PROTO_LITERAL_H_
#define HLO_HLO_PROTO_LITERAL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/hlo_literal.h"
#include "proto/hlo.pb.h"

namespace xla_layout {

// `shape` is the literal's with its layout (a constant's result shape):
// the proto's shape, and the order its values are written in.
absl::StatusOr<xla::LiteralProto> LiteralToProto(const HloLiteral& literal, const Shape& shape);

// The text XLA prints for the literal's value (`1`, `{1, 2}`,
// `{ { 1, 2 }, { 3, 4 } }`, `nan`, `(1, 2)` for complex), to be read back
// by HloLiteral::Parse against the shape, which goes to `shape`. A value
// list whose length is not the shape's element count is an error.
absl::StatusOr<std::string> LiteralProtoToText(const xla::LiteralProto& proto, Shape* shape);

// `value` (a value of floating-point type `type`) as XLA prints it: the
// shortest of the type's digits10 and max_digits10 precisions that reads
// back to the same value; inf, -inf, nan, -nan, and nan(0x...) for a NaN
// with a payload other than the quiet one.
std::string FormatFloatLiteral(double value, PrimitiveType type);

// An array literal from its elements' bits, element k (row-major) in
// bits[k] as its type holds them (c64: the real part's bits low, the
// imaginary part's high). c128 and non-array shapes are refused.
absl::StatusOr<xla::LiteralProto> ArrayLiteralFromBits(const Shape& shape,
                                                       absl::Span<const uint64_t> bits);
// The other way: the literal's shape (to `shape`) and its elements' bits in
// row-major order.
absl::StatusOr<std::vector<uint64_t>> ArrayBitsFromLiteral(const xla::LiteralProto& proto,
                                                           Shape* shape);

}  // namespace xla_layout

#endif  // HLO_HLO_PROTO_LITERAL_H_
