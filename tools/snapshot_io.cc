#include "tools/snapshot_io.h"

#include "absl/strings/str_cat.h"
#include "hlo/hlo_proto_literal.h"

namespace xla_layout::cli {
namespace {

// `shape` with the default layout, as logical arrays hold it.
Shape LogicalShapeOf(const Shape& shape) {
  Shape s = shape;
  s.clear_layout();
  SetDefaultLayouts(s);
  return s;
}

absl::StatusOr<runtime::LogicalArray> ArrayOfBits(const Shape& shape,
                                                  const std::vector<uint64_t>& bits) {
  runtime::LogicalArray a;
  a.shape = LogicalShapeOf(shape);
  absl::StatusOr<std::shared_ptr<const runtime::ArrayInfo>> info =
      runtime::ArrayInfo::Create(a.shape);
  if (!info.ok()) return info.status();
  a.bytes.assign(static_cast<size_t>((*info)->byte_size()), 0);
  int64_t k = 0;
  runtime::ForEachIndex((*info)->dims(), [&](const auto& index) {
    (*info)->StoreBits(a.bytes.data(), (*info)->Slot(index), bits[k++]);
  });
  return a;
}

absl::StatusOr<std::vector<uint64_t>> BitsOfArray(const runtime::LogicalArray& a) {
  absl::StatusOr<std::shared_ptr<const runtime::ArrayInfo>> info =
      runtime::ArrayInfo::Create(a.shape);
  if (!info.ok()) return info.status();
  std::vector<uint64_t> bits;
  runtime::ForEachIndex((*info)->dims(), [&](const auto& index) {
    bits.push_back((*info)->LoadBits(a.bytes.data(), (*info)->Slot(index)));
  });
  return bits;
}

absl::Status AppendLeaves(const xla::LiteralProto& literal, const Shape& expected,
                          const std::string& what, std::vector<runtime::LogicalArray>& out) {
  if (expected.IsTuple()) {
    if (literal.tuple_literals_size() != static_cast<int>(expected.tuple_shapes().size())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the snapshot's ", what, " is not a tuple of ", expected.tuple_shapes().size()));
    }
    for (size_t k = 0; k < expected.tuple_shapes().size(); ++k) {
      absl::Status s = AppendLeaves(literal.tuple_literals(static_cast<int>(k)),
                                    expected.tuple_shapes()[k], what, out);
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }
  if (expected.IsToken()) return absl::OkStatus();
  Shape shape;
  absl::StatusOr<std::vector<uint64_t>> bits = ArrayBitsFromLiteral(literal, &shape);
  if (!bits.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the snapshot's ", what, ": ", bits.status().message()));
  }
  if (!Shape::Equal().IgnoreLayout()(shape, expected)) {
    return absl::InvalidArgumentError(absl::StrCat("the snapshot's ", what, " is ",
                                                   shape.ToString(), ", the module takes ",
                                                   expected.ToString()));
  }
  absl::StatusOr<runtime::LogicalArray> a = ArrayOfBits(expected, *bits);
  if (!a.ok()) return a.status();
  out.push_back(*std::move(a));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<runtime::LogicalArray>> LeavesOfLiteral(
    const xla::LiteralProto& literal, const Shape& expected, const std::string& what) {
  std::vector<runtime::LogicalArray> out;
  absl::Status s = AppendLeaves(literal, expected, what, out);
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<xla::LiteralProto> LiteralOfLeaves(const Shape& shape,
                                                  absl::Span<const runtime::LogicalArray> leaves,
                                                  size_t* next) {
  if (shape.IsTuple()) {
    xla::LiteralProto tuple;
    *tuple.mutable_shape() = shape.ToProto();
    for (const Shape& element : shape.tuple_shapes()) {
      absl::StatusOr<xla::LiteralProto> e = LiteralOfLeaves(element, leaves, next);
      if (!e.ok()) return e.status();
      *tuple.add_tuple_literals() = *std::move(e);
    }
    return tuple;
  }
  if (shape.IsToken()) {
    xla::LiteralProto token;
    *token.mutable_shape() = shape.ToProto();
    return token;
  }
  if (*next >= leaves.size()) return absl::InternalError("fewer arrays than the shape's leaves");
  absl::StatusOr<std::vector<uint64_t>> bits = BitsOfArray(leaves[(*next)++]);
  if (!bits.ok()) return bits.status();
  Shape laid_out = shape;
  if (!laid_out.has_layout()) SetDefaultLayouts(laid_out);
  if (laid_out.has_layout() && !laid_out.layout().tiles().empty()) {
    laid_out.clear_layout();  // XLA's literals have no tiles: the values go row-major
    SetDefaultLayouts(laid_out);
  }
  return ArrayLiteralFromBits(laid_out, *bits);
}

}  // namespace xla_layout::cli
