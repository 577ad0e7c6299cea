#include "xla_layout/shape.h"

#include <numeric>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla_layout/primitive_type.h"

namespace xla_layout {

Shape::Shape(PrimitiveType element_type, absl::Span<const int64_t> dimensions)
    : element_type_(element_type),
      dimensions_(dimensions.begin(), dimensions.end()) {
  for (size_t i = 0; i < dimensions_.size(); ++i) {
    if (dimensions_[i] == kUnboundedSize) set_dynamic_dimension(static_cast<int>(i), true);
  }
}

Shape& Shape::set_dynamic_dimension(int i, bool dynamic) {
  if (!dynamic && !has_dynamic()) return *this;  // static already
  if (!has_dynamic()) rare_.mutable_get().dynamic.assign(dimensions_.size(), false);
  rare_.mutable_get().dynamic[i] = dynamic;
  return *this;
}

Shape Shape::MakeTuple(std::vector<Shape> elements) {
  Shape shape;
  shape.element_type_ = TUPLE;
  if (!elements.empty()) shape.rare_.mutable_get().tuple_shapes = std::move(elements);
  return shape;
}

bool Shape::IsArray() const { return IsArrayType(element_type_); }

bool Shape::is_static() const {
  for (bool d : rare_.get().dynamic) {
    if (d) return false;
  }
  for (const Shape& s : tuple_shapes()) {
    if (!s.is_static()) return false;
  }
  return true;
}

absl::StatusOr<int64_t> Shape::ElementCount() const {
  int64_t count = 1;
  for (int i = 0; i < rank(); ++i) {
    if (dimensions_[i] == kUnboundedSize) {
      return absl::InvalidArgumentError(absl::StrCat(
          "dimension ", i, " of ", ToString(),
          " is unbounded ('?'): it has no static size"));
    }
    if (dimensions_[i] != 0 &&
        count > std::numeric_limits<int64_t>::max() / dimensions_[i]) {
      return absl::InvalidArgumentError(
          absl::StrCat("element count of ", ToString(), " overflows int64"));
    }
    count *= dimensions_[i];
  }
  return count;
}

bool Shape::Equal::operator()(const Shape& a, const Shape& b) const {
  if (a.IsTuple() || b.IsTuple()) {
    if (a.element_type_ != b.element_type_ ||
        a.tuple_shapes().size() != b.tuple_shapes().size()) {
      return false;
    }
    for (size_t i = 0; i < a.tuple_shapes().size(); ++i) {
      if (!(*this)(a.tuple_shapes()[i], b.tuple_shapes()[i])) return false;
    }
    return true;
  }
  if (!ignore_element_type_ && a.element_type_ != b.element_type_) {
    return false;
  }
  if (a.dimensions_ != b.dimensions_) return false;
  if (!ignore_dynamic_) {
    for (int i = 0; i < a.rank(); ++i) {
      if (a.is_dynamic_dimension(i) != b.is_dynamic_dimension(i)) return false;
    }
  }
  if (ignore_layout_) return true;
  if (a.has_layout() != b.has_layout()) return false;
  return !a.has_layout() || layout_equal_(a.layout(), b.layout());
}

absl::Status Shape::Validate() const {
  if (IsTuple()) {
    if (has_layout()) {
      return absl::InvalidArgumentError("a tuple shape cannot have a layout");
    }
    for (size_t i = 0; i < tuple_shapes().size(); ++i) {
      absl::Status s = tuple_shapes()[i].Validate();
      if (!s.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("tuple element ", i, ": ", s.message()));
      }
    }
    return absl::OkStatus();
  }
  if (IsToken() || IsOpaque()) {
    if (rank() != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          PrimitiveTypeName(element_type_), " shapes have no dimensions"));
    }
    if (has_layout() && (layout().HasAttributes() ||
                         !layout().minor_to_major().empty())) {
      return absl::InvalidArgumentError(absl::StrCat(
          PrimitiveTypeName(element_type_), " shapes cannot have a layout"));
    }
    return absl::OkStatus();
  }
  if (!IsArray()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "invalid element type ", static_cast<int>(element_type_)));
  }
  if (has_dynamic() && rare_.get().dynamic.size() != dimensions_.size()) {
    return absl::InvalidArgumentError(
        "is_dynamic_dimension must have one entry per dimension");
  }
  for (int i = 0; i < rank(); ++i) {
    if (dimensions_[i] == kUnboundedSize) {
      if (!is_dynamic_dimension(static_cast<int>(i))) {
        return absl::InvalidArgumentError(
            absl::StrCat("dimension ", i, " is unbounded but not dynamic"));
      }
      continue;
    }
    if (dimensions_[i] < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "dimension ", i, " has negative size ", dimensions_[i]));
    }
  }
  if (has_layout()) return ValidateLayoutForShape(layout(), *this);
  return absl::OkStatus();
}

ShapeProto Shape::ToProto() const {
  ShapeProto proto;
  proto.set_element_type(element_type_);
  for (int64_t d : dimensions_) proto.add_dimensions(d);
  for (int i = 0; i < rank(); ++i) proto.add_is_dynamic_dimension(is_dynamic_dimension(i));
  for (const Shape& s : tuple_shapes()) *proto.add_tuple_shapes() = s.ToProto();
  if (has_layout()) *proto.mutable_layout() = layout().ToProto();
  return proto;
}

absl::StatusOr<Shape> Shape::FromProto(const ShapeProto& proto) {
  Shape shape;
  shape.element_type_ = proto.element_type();
  if (shape.IsTuple()) {
    for (const ShapeProto& element : proto.tuple_shapes()) {
      absl::StatusOr<Shape> s = FromProto(element);
      if (!s.ok()) return s.status();
      shape.mutable_tuple_shapes().push_back(*std::move(s));
    }
  } else {
    shape.dimensions_.assign(proto.dimensions().begin(),
                             proto.dimensions().end());
    if (proto.is_dynamic_dimension_size() == proto.dimensions_size()) {
      for (int i = 0; i < proto.dimensions_size(); ++i) {
        shape.set_dynamic_dimension(i, proto.is_dynamic_dimension(i));
      }
    } else if (proto.is_dynamic_dimension_size() != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "shape has ", proto.dimensions_size(), " dimensions but ",
          proto.is_dynamic_dimension_size(), " is_dynamic_dimension entries"));
    }
  }
  if (proto.has_layout()) {
    absl::StatusOr<Layout> layout = Layout::FromProto(proto.layout());
    if (!layout.ok()) return layout.status();
    // XLA attaches an empty layout message to token and tuple shapes.
    if (shape.IsArray() || layout->HasAttributes() ||
        !layout->minor_to_major().empty()) {
      shape.set_layout(*std::move(layout));
    }
  }
  absl::Status status = shape.Validate();
  if (!status.ok()) return status;
  return shape;
}

void Shape::Print(std::string* out, const PrintOptions& options) const {
  if (IsTuple()) {
    *out += '(';
    for (size_t i = 0; i < tuple_shapes().size(); ++i) {
      if (i > 0) *out += ", ";
      // XLA marks every fifth element of a long tuple with its index.
      if (i > 0 && i % 5 == 0) absl::StrAppend(out, "/*index=", i, "*/");
      tuple_shapes()[i].Print(out, options);
    }
    *out += ')';
    return;
  }
  {
    TextAppender text(out);
    AppendPrimitiveTypeText(text, element_type_, options);
    text.Char('[');
    for (int i = 0; i < rank(); ++i) {
      if (i > 0) text.Char(',');
      if (is_unbounded_dynamic_dimension(i)) {
        text.Char('?');
        continue;
      }
      if (is_dynamic_dimension(i)) text.Text("<=", 2);
      text.Int(dimensions_[i]);
    }
    text.Char(']');
  }
  if (!options.print_layout || !has_layout() || !IsArray()) return;
  // XLA leaves out a scalar's plain layout, but prints one with attributes.
  if (rank() == 0 && !layout_.HasAttributes()) return;
  layout_.Print(out, options);
}

std::string Shape::ToString(const PrintOptions& options) const {
  std::string out;
  Print(&out, options);
  return out;
}

std::ostream& operator<<(std::ostream& os, const Shape& shape) {
  return os << shape.ToString();
}

Layout DefaultLayoutForRank(int rank) {
  absl::InlinedVector<int64_t, 6> m2m(rank);
  for (int i = 0; i < rank; ++i) m2m[i] = rank - 1 - i;
  return Layout(m2m);
}

void SetDefaultLayouts(Shape& shape) {
  if (shape.IsTuple()) {
    for (Shape& s : shape.mutable_tuple_shapes()) SetDefaultLayouts(s);
    return;
  }
  if (shape.IsArray() && !shape.has_layout()) {
    shape.set_layout(DefaultLayoutForRank(shape.rank()));
  }
}

absl::Status ValidateLayoutForShape(const Layout& layout, const Shape& shape) {
  if (!shape.IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat("only arrays have layouts, not ", shape.ToString()));
  }
  int rank = shape.rank();
  absl::Span<const int64_t> m2m = layout.minor_to_major();
  if (static_cast<int>(m2m.size()) != rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("Dimensions size is ", rank, ", but minor to major size is ",
                     m2m.size(), "."));
  }
  absl::InlinedVector<bool, 8> seen(rank, false);
  for (int64_t d : m2m) {
    if (d < 0 || d >= rank) {
      return absl::InvalidArgumentError(absl::StrCat(
          "minor_to_major {", absl::StrJoin(m2m, ","), "} names dimension ", d,
          ", which is out of range for rank ", rank));
    }
    if (seen[d]) {
      return absl::InvalidArgumentError(
          absl::StrCat("minor_to_major {", absl::StrJoin(m2m, ","),
                       "} names dimension ", d, " twice"));
    }
    seen[d] = true;
  }
  absl::Status s = layout.ValidateStandalone();
  if (!s.ok()) return s;

  // Each tiling level applies to the shape the previous levels produced; a
  // scalar with tiles is laid out as a one-element rank-1 array.
  int current_rank = rank == 0 && !layout.tiles().empty() ? 1 : rank;
  for (size_t level = 0; level < layout.tiles().size(); ++level) {
    const Tile& tile = layout.tiles()[level];
    if (tile.rank() > current_rank) {
      return absl::InvalidArgumentError(absl::StrCat(
          "tile ", tile.ToString(), " (level ", level + 1, ") has rank ",
          tile.rank(), " but applies to a shape of rank ", current_rank));
    }
    int stars = 0;
    for (int64_t d : tile.dimensions()) stars += d == kCombineDimension;
    current_rank += tile.rank() - 2 * stars;
  }

  int64_t bits = layout.element_size_in_bits();
  if (bits != 0 && bits < PrimitiveBitWidth(shape.element_type())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "E(", bits, ") is smaller than the ",
        PrimitiveBitWidth(shape.element_type()), " bits of ",
        PrimitiveTypeName(shape.element_type())));
  }
  if (!layout.dim_level_types().empty() &&
      static_cast<int>(layout.dim_level_types().size()) != rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "layout has ", layout.dim_level_types().size(),
        " dim level types for a shape of rank ", rank));
  }
  for (const SplitConfig& sc : layout.split_configs()) {
    if (sc.dimension < 0 || sc.dimension >= rank) {
      return absl::InvalidArgumentError(absl::StrCat(
          "split config names dimension ", sc.dimension,
          ", out of range for rank ", rank));
    }
    int64_t previous = 0;
    for (int64_t index : sc.split_indices) {
      if (index <= previous) {
        return absl::InvalidArgumentError(absl::StrCat(
            "split indices of dimension ", sc.dimension,
            " must be positive and increasing"));
      }
      previous = index;
    }
  }
  return absl::OkStatus();
}

}  // namespace xla_layout
