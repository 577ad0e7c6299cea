#include "xla_layout/shape_text.h"

#include <cctype>
#include <limits>

#include "absl/container/inlined_vector.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla_layout/primitive_type.h"

namespace xla_layout {
namespace {

// Nesting bound for tuples and P(...): deep input fails cleanly instead of
// exhausting the stack.
constexpr int kMaxDepth = 256;

}  // namespace

absl::Status ShapeParser::Error(size_t offset, absl::string_view message) {
  error_offset_ = offset;
  return absl::InvalidArgumentError(message);
}

size_t SkipSpaceAndCommentsFrom(absl::string_view text, size_t pos) {
  const size_t n = text.size();
  while (pos < n) {
    const char c = text[pos];
    if (absl::ascii_isspace(c)) {
      ++pos;
      continue;
    }
    const char next = pos + 1 < n ? text[pos + 1] : '\0';
    if (c == '/' && next == '/') {
      size_t end = text.find('\n', pos);
      pos = end == absl::string_view::npos ? n : end;
    } else if (c == '/' && next == '*') {
      size_t end = text.find("*/", pos + 2);
      pos = end == absl::string_view::npos ? n : end + 2;
    } else {
      break;
    }
  }
  return pos;
}

void ShapeParser::SkipSpace() { pos_ = SkipSpaceAndComments(text_, pos_); }

bool ShapeParser::Consume(char c) {
  SkipSpace();
  if (pos_ < text_.size() && text_[pos_] == c) {
    ++pos_;
    return true;
  }
  return false;
}

bool ShapeParser::ConsumeWord(absl::string_view word) {
  SkipSpace();
  if (text_.substr(pos_, word.size()) == word) {
    pos_ += word.size();
    return true;
  }
  return false;
}

absl::Status ShapeParser::Expect(char c, absl::string_view what) {
  if (Consume(c)) return absl::OkStatus();
  SkipSpace();
  std::string found = pos_ < text_.size()
                          ? absl::StrCat("'", text_.substr(pos_, 1), "'")
                          : std::string("end of input");
  return Error(pos_, absl::StrCat("expected '", std::string(1, c), "' ", what,
                                  ", found ", found));
}

absl::StatusOr<int64_t> ShapeParser::ParseInt(absl::string_view what) {
  SkipSpace();
  size_t start = pos_;
  if (pos_ >= text_.size() || !absl::ascii_isdigit(text_[pos_])) {
    return Error(start, absl::StrCat("expected ", what));
  }
  int64_t value = 0;
  while (pos_ < text_.size() && absl::ascii_isdigit(text_[pos_])) {
    int digit = text_[pos_] - '0';
    if (value > (std::numeric_limits<int64_t>::max() - digit) / 10) {
      return Error(start, absl::StrCat(what, " is too large for int64"));
    }
    value = value * 10 + digit;
    ++pos_;
  }
  return value;
}

bool ShapeParser::AtLayoutStart() {
  SkipSpace();
  if (pos_ >= text_.size()) return false;
  char open = text_[pos_];
  if (open != '{' && open != '<') return false;
  // A '{' after a shape opens a layout only when a number, ':' or the
  // closing bracket follows; otherwise (in HLO) it opens a body.
  size_t saved = pos_;
  ++pos_;
  SkipSpace();
  bool layout = pos_ < text_.size() &&
                (absl::ascii_isdigit(text_[pos_]) || text_[pos_] == ':' ||
                 text_[pos_] == (open == '{' ? '}' : '>'));
  pos_ = saved;
  return layout;
}

absl::StatusOr<Shape> ShapeParser::ParseShape() {
  SkipSpace();
  if (++depth_ > kMaxDepth) {
    return Error(pos_, "shape nesting is too deep");
  }
  absl::StatusOr<Shape> result;
  if (Consume('(')) {
    std::vector<Shape> elements;
    if (!Consume(')')) {
      while (true) {
        absl::StatusOr<Shape> element = ParseShape();
        if (!element.ok()) return element.status();
        elements.push_back(*std::move(element));
        if (Consume(')')) break;
        absl::Status s = Expect(',', "or ')' in tuple shape");
        if (!s.ok()) return s;
      }
    }
    result = Shape::MakeTuple(std::move(elements));
  } else {
    result = ParseArrayShape();
  }
  --depth_;
  return result;
}

absl::StatusOr<Shape> ShapeParser::ParseArrayShape() {
  SkipSpace();
  size_t start = pos_;
  while (pos_ < text_.size() && absl::ascii_isalnum(text_[pos_])) ++pos_;
  absl::string_view name = text_.substr(start, pos_ - start);
  if (name.empty()) {
    return Error(start, "expected a shape: an element type such as 'f32' or "
                        "'(' for a tuple");
  }
  absl::StatusOr<PrimitiveType> type = ParsePrimitiveType(name);
  if (!type.ok()) return Error(start, type.status().message());

  absl::Status s = Expect('[', "after the element type");
  if (!s.ok()) return s;
  absl::InlinedVector<int64_t, 6> dims;
  absl::InlinedVector<bool, 6> dynamic;
  if (!Consume(']')) {
    while (true) {
      SkipSpace();
      if (Consume('?')) {
        dims.push_back(kUnboundedSize);
        dynamic.push_back(true);
      } else {
        bool bounded = ConsumeWord("<=");
        absl::StatusOr<int64_t> d = ParseInt(
            bounded ? "a dimension bound after '<='"
                    : "a dimension size, '<=' bound or '?'");
        if (!d.ok()) return d.status();
        dims.push_back(*d);
        dynamic.push_back(bounded);
      }
      if (Consume(']')) break;
      s = Expect(',', "or ']' between dimensions");
      if (!s.ok()) return s;
    }
  }
  Shape shape(*type, dims);
  for (size_t i = 0; i < dynamic.size(); ++i) {
    if (dynamic[i]) shape.set_dynamic_dimension(static_cast<int>(i), true);
  }
  if (!shape.IsArray() && !dims.empty()) {
    return Error(start, absl::StrCat(name, " shapes have no dimensions"));
  }
  if (AtLayoutStart()) {
    size_t layout_start = pos_;
    absl::StatusOr<Layout> layout = ParseLayout();
    if (!layout.ok()) return layout.status();
    if (!shape.IsArray()) {
      return Error(layout_start,
                   absl::StrCat(name, " shapes cannot have a layout"));
    }
    // A scalar's layout may omit the empty minor_to_major: `u32[]{:T(128)}`.
    absl::Status v = ValidateLayoutForShape(*layout, shape);
    if (!v.ok()) return Error(layout_start, v.message());
    shape.set_layout(*std::move(layout));
  } else if (shape.IsArray() && shape.rank() == 0) {
    // `f32[]` is how a scalar with the (empty) default layout prints, so it
    // parses back with that layout.
    shape.set_layout(Layout());
  }
  return shape;
}

absl::StatusOr<Layout> ShapeParser::ParseLayout() {
  SkipSpace();
  size_t start = pos_;
  absl::StatusOr<Layout> layout;
  if (Consume('{')) {
    layout = ParseLayoutBody('}');
  } else if (Consume('<')) {
    layout = ParseLayoutBody('>');
  } else {
    return Error(pos_, "expected a layout starting with '{' or '<'");
  }
  if (!layout.ok()) return layout;
  absl::Status v = layout->ValidateStandalone();
  if (!v.ok()) return Error(start, v.message());
  return layout;
}

absl::StatusOr<Layout> ShapeParser::ParseLayoutBody(char close) {
  Layout layout;
  std::vector<int64_t> m2m;
  SkipSpace();
  if (pos_ < text_.size() && absl::ascii_isdigit(text_[pos_])) {
    while (true) {
      absl::StatusOr<int64_t> d = ParseInt("a dimension number");
      if (!d.ok()) return d.status();
      m2m.push_back(*d);
      if (!Consume(',')) break;
    }
  }
  layout.set_minor_to_major(m2m);
  if (Consume(':')) {
    absl::Status s = ParseAttributes(layout, close);
    if (!s.ok()) return s;
  }
  SkipSpace();
  if (!Consume(close)) {
    SkipSpace();
    if (pos_ < text_.size() && close == '}' && text_[pos_] == '>') {
      return Error(pos_, "layout opened with '{' must close with '}'");
    }
    return Error(pos_, absl::StrCat("expected '", std::string(1, close),
                                    "' to close the layout, or ',' / ':'"));
  }
  return layout;
}

absl::StatusOr<int64_t> ShapeParser::ParseParenthesizedInt(
    absl::string_view what) {
  absl::Status s = Expect('(', absl::StrCat("after ", what));
  if (!s.ok()) return s;
  absl::StatusOr<int64_t> value = ParseInt(absl::StrCat("a number in ", what));
  if (!value.ok()) return value.status();
  s = Expect(')', absl::StrCat("to close ", what));
  if (!s.ok()) return s;
  return value;
}

absl::StatusOr<PrimitiveType> ShapeParser::ParseParenthesizedType() {
  absl::Status s = Expect('(', "before the primitive type");
  if (!s.ok()) return s;
  SkipSpace();
  size_t start = pos_;
  while (pos_ < text_.size() && absl::ascii_isalnum(text_[pos_])) ++pos_;
  absl::StatusOr<PrimitiveType> type =
      ParsePrimitiveType(text_.substr(start, pos_ - start));
  if (!type.ok()) return Error(start, type.status().message());
  s = Expect(')', "after the primitive type");
  if (!s.ok()) return s;
  return type;
}

absl::Status ShapeParser::ParseTiles(Layout& layout) {
  std::vector<Tile> tiles;
  SkipSpace();
  while (pos_ < text_.size() && text_[pos_] == '(') {
    size_t tile_start = pos_;
    if (tiles.size() == kMaxTiles) {
      return Error(tile_start, absl::StrCat("a layout has at most ", kMaxTiles,
                                            " tiles"));
    }
    ++pos_;
    std::vector<int64_t> dims;
    while (true) {
      if (Consume('*')) {
        dims.push_back(kCombineDimension);
      } else {
        absl::StatusOr<int64_t> d = ParseInt("a tile size or '*'");
        if (!d.ok()) return d.status();
        dims.push_back(*d);
      }
      if (Consume(')')) break;
      absl::Status s = Expect(',', "or ')' in a tile");
      if (!s.ok()) return s;
    }
    Tile tile(dims);
    absl::Status s = tile.Validate();
    if (!s.ok()) return Error(tile_start, s.message());
    tiles.push_back(std::move(tile));
    SkipSpace();
  }
  if (tiles.empty()) return Error(pos_, "expected '(' to start a tile after T");
  layout.set_tiles(std::move(tiles));
  return absl::OkStatus();
}

absl::Status ShapeParser::ParseDimLevelTypes(Layout& layout) {
  absl::Status s = Expect('(', "after D");
  if (!s.ok()) return s;
  while (true) {
    SkipSpace();
    size_t at = pos_;
    char c = at < text_.size() ? text_[at] : '\0';
    DimLevelType type;
    switch (c) {
      case 'D':
        type = DIM_DENSE;
        break;
      case 'C':
        type = DIM_COMPRESSED;
        break;
      case 'S':
        type = DIM_SINGLETON;
        break;
      case 'H':
        type = DIM_LOOSE_COMPRESSED;
        break;
      default:
        return Error(at, "expected a dim level type: D, C, S or H");
    }
    ++pos_;
    bool unique = true, ordered = true;
    while (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '~')) {
      (text_[pos_] == '+' ? unique : ordered) = false;
      ++pos_;
    }
    layout.add_dim_level_type(type, unique, ordered);
    if (Consume(')')) return absl::OkStatus();
    s = Expect(',', "or ')' between dim level types");
    if (!s.ok()) return s;
  }
}

absl::Status ShapeParser::ParseSplitConfigs(Layout& layout) {
  SkipSpace();
  bool any = false;
  while (Consume('(')) {
    any = true;
    SplitConfig sc;
    absl::StatusOr<int64_t> dim = ParseInt("a split dimension");
    if (!dim.ok()) return dim.status();
    sc.dimension = *dim;
    absl::Status s = Expect(':', "after the split dimension");
    if (!s.ok()) return s;
    while (true) {
      absl::StatusOr<int64_t> index = ParseInt("a split index");
      if (!index.ok()) return index.status();
      sc.split_indices.push_back(*index);
      if (Consume(')')) break;
      s = Expect(',', "or ')' between split indices");
      if (!s.ok()) return s;
    }
    layout.add_split_config(std::move(sc));
  }
  if (!any) return Error(pos_, "expected '(' after SC");
  return absl::OkStatus();
}

absl::Status ShapeParser::ParseAttributes(Layout& layout, char close) {
  // XLA's order; each attribute at most once.
  static constexpr absl::string_view kOrder[] = {"D", "T", "L", "#", "*",
                                                 "E", "S", "SC", "P", "M"};
  int last = -1;
  while (true) {
    SkipSpace();
    if (pos_ >= text_.size() || text_[pos_] == close) return absl::OkStatus();
    size_t at = pos_;
    absl::string_view rest = text_.substr(pos_);
    int which = -1;
    if (rest[0] == '(') {
      which = 1;  // The old form without 'T': {1,0:(2,2)}.
    } else if (rest.substr(0, 2) == "SC") {
      which = 7;
    } else {
      for (int i = 0; i < 10; ++i) {
        if (i != 7 && rest.substr(0, 1) == kOrder[i]) which = i;
      }
    }
    if (which < 0) {
      return Error(at, absl::StrCat("unknown layout attribute '",
                                    rest.substr(0, 1),
                                    "'; expected one of D T L # * E S SC P M"));
    }
    if (which <= last) {
      return Error(at, absl::StrCat(
                           "layout attribute ", kOrder[which],
                           which == last ? " appears twice"
                                         : " is out of order; XLA's order is "
                                           "D T L # * E S SC P M"));
    }
    last = which;
    if (rest[0] != '(') pos_ += kOrder[which].size();
    absl::Status s;
    switch (which) {
      case 0:
        s = ParseDimLevelTypes(layout);
        break;
      case 1:
        s = ParseTiles(layout);
        break;
      case 2: {
        absl::StatusOr<int64_t> v = ParseParenthesizedInt("L(...)");
        if (!v.ok()) return v.status();
        if (*v <= 0) return Error(at, "L(n): tail padding alignment must be positive");
        layout.set_tail_padding_alignment_in_elements(*v);
        break;
      }
      case 3: {
        absl::StatusOr<PrimitiveType> t = ParseParenthesizedType();
        if (!t.ok()) return t.status();
        layout.set_index_primitive_type(*t);
        break;
      }
      case 4: {
        absl::StatusOr<PrimitiveType> t = ParseParenthesizedType();
        if (!t.ok()) return t.status();
        layout.set_pointer_primitive_type(*t);
        break;
      }
      case 5: {
        absl::StatusOr<int64_t> v = ParseParenthesizedInt("E(...)");
        if (!v.ok()) return v.status();
        layout.set_element_size_in_bits(*v);
        break;
      }
      case 6: {
        absl::StatusOr<int64_t> v = ParseParenthesizedInt("S(...)");
        if (!v.ok()) return v.status();
        layout.set_memory_space(*v);
        break;
      }
      case 7:
        s = ParseSplitConfigs(layout);
        break;
      case 8: {
        s = Expect('(', "after P");
        if (!s.ok()) return s;
        absl::StatusOr<Shape> physical = ParseShape();
        if (!physical.ok()) return physical.status();
        layout.set_physical_shape(*physical);
        s = Expect(')', "to close P(...)");
        break;
      }
      case 9: {
        absl::StatusOr<int64_t> v = ParseParenthesizedInt("M(...)");
        if (!v.ok()) return v.status();
        layout.set_dynamic_shape_metadata_prefix_bytes(*v);
        break;
      }
    }
    if (!s.ok()) return s;
  }
}

namespace {

absl::Status WithColumn(const ShapeParser& parser, const absl::Status& s) {
  return absl::Status(s.code(), absl::StrCat("column ",
                                             parser.error_offset() + 1, ": ",
                                             s.message()));
}

template <typename T, typename ParseFn>
absl::StatusOr<T> ParseWhole(absl::string_view text, ParseFn parse) {
  ShapeParser parser(text);
  absl::StatusOr<T> result = parse(parser);
  if (!result.ok()) return WithColumn(parser, result.status());
  parser.SkipSpace();
  if (parser.pos() != text.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("column ", parser.pos() + 1, ": unexpected '",
                     text.substr(parser.pos(), 1), "' after the end"));
  }
  return result;
}

}  // namespace

absl::StatusOr<Shape> ParseShape(absl::string_view text) {
  return ParseWhole<Shape>(text,
                           [](ShapeParser& p) { return p.ParseShape(); });
}

absl::StatusOr<Layout> ParseLayout(absl::string_view text) {
  return ParseWhole<Layout>(text,
                            [](ShapeParser& p) { return p.ParseLayout(); });
}

}  // namespace xla_layout
