// The text form of shapes and layouts: XLA's `f32[3,5]{1,0:T(2,2)}` and the
// angle form `F32[3,5]<1,0:T(2,2)>`. parse(print(x)) == x in both styles.
#ifndef XLA_LAYOUT_SHAPE_TEXT_H_
#define XLA_LAYOUT_SHAPE_TEXT_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/string_view.h"
#include "xla_layout/layout.h"
#include "xla_layout/print_options.h"
#include "xla_layout/shape.h"

namespace xla_layout {

// The model's printers (Shape::Print, Layout::Print, Tile::Print) by
// their text-layer names.
inline std::string PrintShape(const Shape& shape, PrintOptions options = {}) {
  return shape.ToString(options);
}
// The layout with its brackets: "{1,0:T(2,2)}".
inline std::string PrintLayout(const Layout& layout, PrintOptions options = {}) {
  return layout.ToString(options);
}
inline std::string PrintTile(const Tile& tile) { return tile.ToString(); }

// Parses a whole string as one shape (or layout); surrounding whitespace is
// allowed. Errors read "column N: what was wrong, what was expected".
absl::StatusOr<Shape> ParseShape(absl::string_view text);
absl::StatusOr<Layout> ParseLayout(absl::string_view text);

// The offset of the first character at or after `pos` that is not white
// space or inside a /*...*/ or //... comment. Shared by the shape and HLO
// parsers so that both read comments alike.
size_t SkipSpaceAndCommentsFrom(absl::string_view text, size_t pos);
// Most calls stand on a token already: that case is answered inline, since
// the parsers call this before every token and a call per token would cost
// more than the check.
inline size_t SkipSpaceAndComments(absl::string_view text, size_t pos) {
  if (pos < text.size() && text[pos] != '/' && !absl::ascii_isspace(text[pos])) {
    return pos;
  }
  return SkipSpaceAndCommentsFrom(text, pos);
}

// A shape parser positioned inside a larger text, for the HLO parser. After
// a failure, error_offset() is the byte offset the message refers to.
class ShapeParser {
 public:
  explicit ShapeParser(absl::string_view text, size_t pos = 0)
      : text_(text), pos_(pos) {}

  // Parses a shape (validated against its layout) starting at pos().
  absl::StatusOr<Shape> ParseShape();
  // Parses a bracketed layout ('{...}' or '<...>') starting at pos().
  absl::StatusOr<Layout> ParseLayout();

  // Skips whitespace and /*...*/ and //... comments (SkipSpaceAndComments).
  void SkipSpace();
  size_t pos() const { return pos_; }
  size_t error_offset() const { return error_offset_; }

 private:
  absl::Status Error(size_t offset, absl::string_view message);
  bool Consume(char c);
  bool ConsumeWord(absl::string_view word);
  absl::Status Expect(char c, absl::string_view what);
  absl::StatusOr<int64_t> ParseInt(absl::string_view what);
  absl::StatusOr<Shape> ParseArrayShape();
  absl::StatusOr<Layout> ParseLayoutBody(char close);
  absl::Status ParseAttributes(Layout& layout, char close);
  absl::Status ParseTiles(Layout& layout);
  absl::Status ParseDimLevelTypes(Layout& layout);
  absl::Status ParseSplitConfigs(Layout& layout);
  absl::StatusOr<PrimitiveType> ParseParenthesizedType();
  absl::StatusOr<int64_t> ParseParenthesizedInt(absl::string_view what);
  bool AtLayoutStart();

  absl::string_view text_;
  size_t pos_;
  size_t error_offset_ = 0;
  int depth_ = 0;
};

}  // namespace xla_layout

#endif  // XLA_LAYOUT_SHAPE_TEXT_H_
