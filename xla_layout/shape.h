// Shape: an array (element type, dims, dynamic flags, optional layout), a
// tuple of shapes, a token or an opaque value. A plain value type: copyable,
// comparable (Shape::Equal chooses what counts), printed by one routine
// (Print), and converted to and from ShapeProto only by ToProto/FromProto.
//
// Construction does not validate; Validate() (which FromProto and the text
// parser call) refuses negative dims, dynamic flags of the wrong count, an
// unbounded dim not marked dynamic, a layout on a tuple, token or opaque
// value, and a layout that does not fit the rank or element type. Sizes are
// not checked there: ElementCount() fails on an unbounded dim ('?') and on
// an element count that overflows int64.
#ifndef XLA_LAYOUT_SHAPE_H_
#define XLA_LAYOUT_SHAPE_H_

#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "proto/layout.pb.h"
#include "xla_layout/layout.h"
#include "xla_layout/out_of_line.h"

namespace xla_layout {

// Size of an unbounded dynamic dimension ('?'), as XLA stores it.
inline constexpr int64_t kUnboundedSize = std::numeric_limits<int64_t>::min();

class Shape {
 public:
  Shape() = default;  // PRIMITIVE_TYPE_INVALID: only a placeholder.
  // An array shape without a layout.
  Shape(PrimitiveType element_type, absl::Span<const int64_t> dimensions);
  static Shape MakeTuple(std::vector<Shape> elements);
  static Shape MakeToken() { return Shape(TOKEN, {}); }
  static Shape MakeOpaque() { return Shape(OPAQUE_TYPE, {}); }

  PrimitiveType element_type() const { return element_type_; }
  Shape& set_element_type(PrimitiveType type) {
    element_type_ = type;
    return *this;
  }
  bool IsArray() const;
  bool IsTuple() const { return element_type_ == TUPLE; }
  bool IsToken() const { return element_type_ == TOKEN; }
  bool IsOpaque() const { return element_type_ == OPAQUE_TYPE; }

  int rank() const { return static_cast<int>(dimensions_.size()); }
  absl::Span<const int64_t> dimensions() const { return dimensions_; }
  int64_t dimensions(int i) const { return dimensions_[i]; }
  Shape& set_dimensions(int i, int64_t size) {
    dimensions_[i] = size;
    return *this;
  }
  bool is_dynamic_dimension(int i) const { return has_dynamic() && rare_.get().dynamic[i]; }
  Shape& set_dynamic_dimension(int i, bool dynamic);
  bool is_unbounded_dynamic_dimension(int i) const {
    return dimensions_[i] == kUnboundedSize;
  }
  bool is_static() const;

  const std::vector<Shape>& tuple_shapes() const { return rare_.get().tuple_shapes; }
  std::vector<Shape>& mutable_tuple_shapes() { return rare_.mutable_get().tuple_shapes; }

  bool has_layout() const { return has_layout_; }
  // The layout; a default Layout when there is none (check has_layout()).
  const Layout& layout() const { return layout_; }
  Layout* mutable_layout() { return has_layout_ ? &layout_ : nullptr; }
  Shape& set_layout(Layout layout) {
    layout_ = std::move(layout);
    has_layout_ = true;
    return *this;
  }
  Shape& clear_layout() {
    layout_ = Layout();
    has_layout_ = false;
    return *this;
  }

  // Product of the dims (the bounds for dynamic ones); 1 for a scalar.
  // Fails on unbounded dims and on overflow.
  absl::StatusOr<int64_t> ElementCount() const;

  // Comparison that can ignore parts: Shape::Equal().IgnoreLayout()(a, b).
  class Equal {
   public:
    Equal& IgnoreLayout() {
      ignore_layout_ = true;
      return *this;
    }
    Equal& IgnoreDynamicDimensions() {
      ignore_dynamic_ = true;
      return *this;
    }
    Equal& IgnoreElementType() {
      ignore_element_type_ = true;
      return *this;
    }
    Equal& LayoutEqual(Layout::Equal eq) {
      layout_equal_ = eq;
      return *this;
    }
    bool operator()(const Shape& a, const Shape& b) const;

   private:
    bool ignore_layout_ = false;
    bool ignore_dynamic_ = false;
    bool ignore_element_type_ = false;
    Layout::Equal layout_equal_;
  };
  bool operator==(const Shape& other) const { return Equal()(*this, other); }
  bool operator!=(const Shape& other) const { return !(*this == other); }
  // Consistent with operator==: shapes key the memos of the passes.
  template <typename H>
  friend H AbslHashValue(H h, const Shape& shape) {
    h = H::combine(std::move(h), shape.element_type_, shape.dimensions_);
    for (int i = 0; i < shape.rank(); ++i) {
      h = H::combine(std::move(h), shape.is_dynamic_dimension(i));
    }
    h = H::combine(std::move(h), shape.has_layout_);
    if (shape.has_layout_) h = H::combine(std::move(h), shape.layout_);
    return H::combine(std::move(h), shape.tuple_shapes());
  }

  // Full validation: dims, tuple elements and the layout against the shape.
  absl::Status Validate() const;

  ShapeProto ToProto() const;
  static absl::StatusOr<Shape> FromProto(const ShapeProto& proto);

  // Appends the text form: XLA's syntax by default, layouts included.
  void Print(std::string* out, const PrintOptions& options = {}) const;
  std::string ToString(const PrintOptions& options = {}) const;

 private:
  PrimitiveType element_type_ = PRIMITIVE_TYPE_INVALID;
  // Whether layout_ is the layout. A flag in the padding after the element
  // type, where std::optional<Layout> took 8 bytes of its own: an
  // instruction holds a shape, and a module of 1M instructions a million.
  bool has_layout_ = false;
  // Inline up to rank 4 (NCHW and below): shapes are copied often, and an
  // instruction holds one.
  absl::InlinedVector<int64_t, 4> dimensions_;
  // What few shapes have, in one block out of line (one pointer in every
  // shape, not two): the dynamic flags, one per dimension, empty while
  // every dimension is static (nearly every shape), and a tuple's elements.
  struct Rare {
    absl::InlinedVector<bool, 6> dynamic;
    std::vector<Shape> tuple_shapes;
  };
  bool has_dynamic() const { return rare_.has_value() && !rare_.get().dynamic.empty(); }
  OutOfLine<Rare> rare_;
  Layout layout_;  // a default Layout while has_layout_ is false
};

std::ostream& operator<<(std::ostream& os, const Shape& shape);

// The descending layout {rank-1,...,0} that XLA gives a shape without one.
Layout DefaultLayoutForRank(int rank);

// Gives every array in `shape` (recursively through tuples) the default
// layout where it has none.
void SetDefaultLayouts(Shape& shape);

// Checks `layout` for an array of `shape`'s rank and element type: the
// permutation, tile ranks per level, E(n), and the sparse-only rules.
absl::Status ValidateLayoutForShape(const Layout& layout, const Shape& shape);

}  // namespace xla_layout

#endif  // XLA_LAYOUT_SHAPE_H_
