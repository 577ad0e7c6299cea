#include "xla_layout/layout.h"

#include <utility>

#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "xla_layout/primitive_type.h"
#include "xla_layout/shape.h"

namespace xla_layout {

absl::Status Tile::Validate() const {
  if (dimensions_.empty()) {
    return absl::InvalidArgumentError("a tile must have at least one entry");
  }
  for (int i = 0; i < rank(); ++i) {
    int64_t d = dimensions_[i];
    if (d == kCombineDimension) {
      if (i == rank() - 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "tile ", ToString(),
            ": '*' cannot be the most minor entry (there is no dimension to "
            "combine it into)"));
      }
      continue;
    }
    if (d <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("tile ", ToString(), ": entry ", i, " is ", d,
                       "; tile sizes must be positive or '*'"));
    }
  }
  return absl::OkStatus();
}

TileProto Tile::ToProto() const {
  TileProto proto;
  for (int64_t d : dimensions_) proto.add_dimensions(d);
  return proto;
}

absl::StatusOr<Tile> Tile::FromProto(const TileProto& proto) {
  std::vector<int64_t> dims;
  for (int64_t d : proto.dimensions()) {
    dims.push_back(d == -1 ? kCombineDimension : d);
  }
  Tile tile(dims);
  absl::Status status = tile.Validate();
  if (!status.ok()) return status;
  return tile;
}

void Tile::Print(std::string* out) const {
  TextAppender text(out);
  Print(text);
}

void Tile::Print(TextAppender& text) const {
  text.Char('(');
  for (int i = 0; i < rank(); ++i) {
    if (i > 0) text.Char(',');
    int64_t d = dimensions_[i];
    if (d == kCombineDimension) {
      text.Char('*');
    } else {
      text.Int(d);
    }
  }
  text.Char(')');
}

std::string Tile::ToString() const {
  std::string out;
  Print(&out);
  return out;
}

struct Layout::Rare {
  std::vector<DimLevelType> dim_level_types;
  std::vector<bool> dim_unique;
  std::vector<bool> dim_ordered;
  int64_t tail_padding_alignment_in_elements = 1;
  PrimitiveType index_primitive_type = PRIMITIVE_TYPE_INVALID;
  PrimitiveType pointer_primitive_type = PRIMITIVE_TYPE_INVALID;
  OutOfLine<Shape> physical_shape;
  int64_t dynamic_shape_metadata_prefix_bytes = 0;
  std::vector<SplitConfig> split_configs;
};

size_t Layout::RareHash() const {
  if (!rare_.has_value()) return 0;
  auto hash = [](const Rare& r) {
    size_t h = absl::HashOf(r.dim_level_types, r.dim_unique, r.dim_ordered,
                            r.tail_padding_alignment_in_elements, r.index_primitive_type,
                            r.pointer_primitive_type, r.dynamic_shape_metadata_prefix_bytes);
    for (const SplitConfig& sc : r.split_configs) {
      h = absl::HashOf(h, sc.dimension, sc.split_indices);
    }
    if (r.physical_shape.has_value()) h = absl::HashOf(h, r.physical_shape.get());
    return h;
  };
  // All defaults hash as no Rare at all, as they compare.
  static const size_t kDefaults = hash(Rare());
  const size_t h = hash(rare_.get());
  return h == kDefaults ? 0 : h;
}

Layout::Layout() = default;
Layout::Layout(absl::Span<const int64_t> minor_to_major)
    : minor_to_major_(minor_to_major.begin(), minor_to_major.end()) {}
Layout::Layout(Layout&&) noexcept = default;
Layout& Layout::operator=(Layout&&) noexcept = default;
Layout::~Layout() = default;
Layout::Layout(const Layout&) = default;
Layout& Layout::operator=(const Layout&) = default;

int64_t Layout::tail_padding_alignment_in_elements() const {
  return rare_.get().tail_padding_alignment_in_elements;
}
Layout& Layout::set_tail_padding_alignment_in_elements(int64_t n) {
  if (n != 1 || rare_.has_value()) rare_.mutable_get().tail_padding_alignment_in_elements = n;
  return *this;
}
int64_t Layout::dynamic_shape_metadata_prefix_bytes() const {
  return rare_.get().dynamic_shape_metadata_prefix_bytes;
}
Layout& Layout::set_dynamic_shape_metadata_prefix_bytes(int64_t n) {
  if (n != 0 || rare_.has_value()) rare_.mutable_get().dynamic_shape_metadata_prefix_bytes = n;
  return *this;
}
const std::vector<DimLevelType>& Layout::dim_level_types() const {
  return rare_.get().dim_level_types;
}
const std::vector<bool>& Layout::dim_unique() const { return rare_.get().dim_unique; }
const std::vector<bool>& Layout::dim_ordered() const { return rare_.get().dim_ordered; }
PrimitiveType Layout::index_primitive_type() const { return rare_.get().index_primitive_type; }
Layout& Layout::set_index_primitive_type(PrimitiveType t) {
  if (t != PRIMITIVE_TYPE_INVALID || rare_.has_value()) rare_.mutable_get().index_primitive_type = t;
  return *this;
}
PrimitiveType Layout::pointer_primitive_type() const {
  return rare_.get().pointer_primitive_type;
}
Layout& Layout::set_pointer_primitive_type(PrimitiveType t) {
  if (t != PRIMITIVE_TYPE_INVALID || rare_.has_value()) {
    rare_.mutable_get().pointer_primitive_type = t;
  }
  return *this;
}
bool Layout::has_physical_shape() const { return rare_.get().physical_shape.has_value(); }
const Shape& Layout::physical_shape() const { return rare_.get().physical_shape.get(); }
const std::vector<SplitConfig>& Layout::split_configs() const {
  return rare_.get().split_configs;
}
Layout& Layout::add_split_config(SplitConfig config) {
  rare_.mutable_get().split_configs.push_back(std::move(config));
  return *this;
}

Layout& Layout::add_dim_level_type(DimLevelType type, bool unique,
                                   bool ordered) {
  Rare& r = rare_.mutable_get();
  r.dim_level_types.push_back(type);
  r.dim_unique.push_back(unique);
  r.dim_ordered.push_back(ordered);
  return *this;
}

Layout& Layout::set_physical_shape(const Shape& shape) {
  rare_.mutable_get().physical_shape.mutable_get() = shape;
  return *this;
}

bool Layout::IsSparse() const {
  for (DimLevelType t : dim_level_types()) {
    if (t != DIM_DENSE) return true;
  }
  return false;
}

bool Layout::HasAttributesBeyondTiles() const {
  if (element_size_in_bits_ != 0 || memory_space_ != 0) return true;
  if (!rare_.has_value()) return false;
  const Rare& r = rare_.get();
  return !r.dim_level_types.empty() || r.tail_padding_alignment_in_elements != 1 ||
         r.index_primitive_type != PRIMITIVE_TYPE_INVALID ||
         r.pointer_primitive_type != PRIMITIVE_TYPE_INVALID || !r.split_configs.empty() ||
         r.physical_shape.has_value() || r.dynamic_shape_metadata_prefix_bytes != 0;
}

bool Layout::Equal::operator()(const Layout& a, const Layout& b) const {
  if (a.minor_to_major_ != b.minor_to_major_) return false;
  if (minor_to_major_only_) return true;
  if (!ignore_tiles_ && a.tiles_ != b.tiles_) return false;
  if (!ignore_element_size_ &&
      a.element_size_in_bits_ != b.element_size_in_bits_) {
    return false;
  }
  if (!ignore_memory_space_ && a.memory_space_ != b.memory_space_) {
    return false;
  }
  if (!a.rare_.has_value() && !b.rare_.has_value()) return true;
  const Rare& ra = a.rare_.get();
  const Rare& rb = b.rare_.get();
  if (ra.dim_level_types != rb.dim_level_types ||
      ra.dim_unique != rb.dim_unique || ra.dim_ordered != rb.dim_ordered ||
      ra.tail_padding_alignment_in_elements != rb.tail_padding_alignment_in_elements ||
      ra.index_primitive_type != rb.index_primitive_type ||
      ra.pointer_primitive_type != rb.pointer_primitive_type ||
      ra.dynamic_shape_metadata_prefix_bytes != rb.dynamic_shape_metadata_prefix_bytes ||
      ra.split_configs != rb.split_configs) {
    return false;
  }
  if (a.has_physical_shape() != b.has_physical_shape()) return false;
  return !a.has_physical_shape() || a.physical_shape() == b.physical_shape();
}

LayoutProto Layout::ToProto() const {
  LayoutProto proto;
  for (int64_t d : minor_to_major_) proto.add_minor_to_major(d);
  for (DimLevelType t : dim_level_types()) proto.add_dim_level_types(t);
  // XLA writes the unique/ordered lists only when some entry is false.
  bool all_unique = true, all_ordered = true;
  for (bool u : dim_unique()) all_unique &= u;
  for (bool o : dim_ordered()) all_ordered &= o;
  if (!all_unique) {
    for (bool u : dim_unique()) proto.add_dim_unique(u);
  }
  if (!all_ordered) {
    for (bool o : dim_ordered()) proto.add_dim_ordered(o);
  }
  for (const Tile& tile : tiles_) *proto.add_tiles() = tile.ToProto();
  if (tail_padding_alignment_in_elements() != 1) {
    proto.set_tail_padding_alignment_in_elements(
        tail_padding_alignment_in_elements());
  }
  proto.set_element_size_in_bits(element_size_in_bits_);
  proto.set_memory_space(memory_space_);
  proto.set_index_primitive_type(index_primitive_type());
  proto.set_pointer_primitive_type(pointer_primitive_type());
  if (has_physical_shape()) *proto.mutable_physical_shape() = physical_shape().ToProto();
  proto.set_dynamic_shape_metadata_prefix_bytes(
      dynamic_shape_metadata_prefix_bytes());
  for (const SplitConfig& sc : split_configs()) {
    SplitConfigProto* p = proto.add_split_configs();
    p->set_dimension(sc.dimension);
    for (int64_t i : sc.split_indices) p->add_split_indices(i);
  }
  return proto;
}

absl::StatusOr<Layout> Layout::FromProto(const LayoutProto& proto) {
  Layout layout;
  layout.minor_to_major_.assign(proto.minor_to_major().begin(),
                                proto.minor_to_major().end());
  int n = proto.dim_level_types_size();
  if (proto.dim_unique_size() != 0 && proto.dim_unique_size() != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "layout has ", proto.dim_unique_size(), " dim_unique entries for ", n,
        " dim_level_types"));
  }
  if (proto.dim_ordered_size() != 0 && proto.dim_ordered_size() != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "layout has ", proto.dim_ordered_size(), " dim_ordered entries for ", n,
        " dim_level_types"));
  }
  for (int i = 0; i < n; ++i) {
    layout.add_dim_level_type(
        proto.dim_level_types(i),
        proto.dim_unique_size() == 0 ? true : proto.dim_unique(i),
        proto.dim_ordered_size() == 0 ? true : proto.dim_ordered(i));
  }
  for (const TileProto& tp : proto.tiles()) {
    absl::StatusOr<Tile> tile = Tile::FromProto(tp);
    if (!tile.ok()) return tile.status();
    layout.tiles_.push_back(*std::move(tile));
  }
  layout.set_tail_padding_alignment_in_elements(
      proto.tail_padding_alignment_in_elements() == 0
          ? 1
          : proto.tail_padding_alignment_in_elements());
  layout.element_size_in_bits_ = proto.element_size_in_bits();
  layout.memory_space_ = proto.memory_space();
  layout.set_index_primitive_type(proto.index_primitive_type());
  layout.set_pointer_primitive_type(proto.pointer_primitive_type());
  if (proto.has_physical_shape()) {
    absl::StatusOr<Shape> physical = Shape::FromProto(proto.physical_shape());
    if (!physical.ok()) return physical.status();
    layout.set_physical_shape(*physical);
  }
  layout.set_dynamic_shape_metadata_prefix_bytes(
      proto.dynamic_shape_metadata_prefix_bytes());
  for (const SplitConfigProto& p : proto.split_configs()) {
    layout.add_split_config(SplitConfig{
        p.dimension(), {p.split_indices().begin(), p.split_indices().end()}});
  }
  absl::Status status = layout.ValidateStandalone();
  if (!status.ok()) return status;
  return layout;
}

absl::Status Layout::ValidateStandalone() const {
  if (tiles_.size() > kMaxTiles) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a layout has at most ", kMaxTiles, " tiles, not ", tiles_.size()));
  }
  for (const Tile& tile : tiles_) {
    absl::Status s = tile.Validate();
    if (!s.ok()) return s;
  }
  if (element_size_in_bits_ < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "E(", element_size_in_bits_, "): element size must be 0 or positive"));
  }
  if (element_size_in_bits_ > 0 && element_size_in_bits_ < 8 &&
      8 % element_size_in_bits_ != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("E(", element_size_in_bits_,
                     "): a sub-byte element size must divide 8 (1, 2 or 4)"));
  }
  if (element_size_in_bits_ > 8 && element_size_in_bits_ % 8 != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "E(", element_size_in_bits_,
        "): an element size above 8 bits must be a whole number of bytes"));
  }
  if (memory_space_ < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "S(", memory_space_, "): memory space must not be negative"));
  }
  if (tail_padding_alignment_in_elements() <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("L(", tail_padding_alignment_in_elements(),
                     "): tail padding alignment must be positive"));
  }
  if (dynamic_shape_metadata_prefix_bytes() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("M(", dynamic_shape_metadata_prefix_bytes(),
                     "): metadata prefix bytes must not be negative"));
  }
  if (!IsSparse()) {
    if (index_primitive_type() != PRIMITIVE_TYPE_INVALID) {
      return absl::InvalidArgumentError(
          "#(...) index primitive type is only allowed on a sparse layout");
    }
    if (pointer_primitive_type() != PRIMITIVE_TYPE_INVALID) {
      return absl::InvalidArgumentError(
          "*(...) pointer primitive type is only allowed on a sparse layout");
    }
    if (has_physical_shape()) {
      return absl::InvalidArgumentError(
          "P(...) physical shape is only allowed on a sparse layout");
    }
    for (size_t i = 0; i < dim_level_types().size(); ++i) {
      if (!dim_unique()[i] || !dim_ordered()[i]) {
        return absl::InvalidArgumentError(
            "a dense dimension must be unique and ordered ('+'/'~' need a "
            "sparse level type)");
      }
    }
  } else {
    if (!tiles_.empty()) {
      return absl::InvalidArgumentError("a sparse layout cannot have tiles");
    }
    for (PrimitiveType t : {index_primitive_type(), pointer_primitive_type()}) {
      if (t != PRIMITIVE_TYPE_INVALID && t != U8 && t != U16 && t != U32 &&
          t != U64) {
        return absl::InvalidArgumentError(absl::StrCat(
            "sparse index and pointer types must be u8, u16, u32 or u64, not ",
            PrimitiveTypeName(t)));
      }
    }
    if (has_physical_shape()) {
      absl::Status s = physical_shape().Validate();
      if (!s.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("in P(...): ", s.message()));
      }
    }
  }
  return absl::OkStatus();
}

namespace {

char DimLevelTypeLetter(DimLevelType t) {
  switch (t) {
    case DIM_DENSE:
      return 'D';
    case DIM_COMPRESSED:
      return 'C';
    case DIM_SINGLETON:
      return 'S';
    case DIM_LOOSE_COMPRESSED:
      return 'H';
    default:
      return '?';
  }
}

}  // namespace

void Layout::Print(std::string* out, const PrintOptions& options) const {
  const bool angle = options.syntax == ShapeSyntax::kAngle;
  // Written through a local buffer: the common layout (order, tiles,
  // element size, memory space) goes out in one append.
  TextAppender text(out);
  auto number = [&text](const char* tag, int64_t n) {
    text.Text(tag, 2);
    text.Int(n);
    text.Char(')');
  };
  text.Char(angle ? '<' : '{');
  for (size_t i = 0; i < minor_to_major_.size(); ++i) {
    if (i > 0) text.Char(',');
    text.Int(minor_to_major_[i]);
  }
  if (HasAttributes()) {
    const Rare& r = rare_.get();
    text.Char(':');
    if (!r.dim_level_types.empty()) {
      text.Text("D(", 2);
      for (size_t i = 0; i < r.dim_level_types.size(); ++i) {
        if (i > 0) text.Char(',');
        text.Char(DimLevelTypeLetter(r.dim_level_types[i]));
        if (!r.dim_unique[i]) text.Char('+');
        if (!r.dim_ordered[i]) text.Char('~');
      }
      text.Char(')');
    }
    if (!tiles_.empty()) {
      text.Char('T');
      for (const Tile& tile : tiles_) tile.Print(text);
    }
    if (r.tail_padding_alignment_in_elements != 1) {
      number("L(", r.tail_padding_alignment_in_elements);
    }
    for (const auto& [tag, type] : {std::pair{"#(", r.index_primitive_type},
                                    std::pair{"*(", r.pointer_primitive_type}}) {
      if (type == PRIMITIVE_TYPE_INVALID) continue;
      text.Text(tag, 2);
      AppendPrimitiveTypeText(text, type, options);
      text.Char(')');
    }
    if (element_size_in_bits_ != 0) number("E(", element_size_in_bits_);
    if (memory_space_ != 0) number("S(", memory_space_);
    if (!r.split_configs.empty()) {
      text.Text("SC", 2);
      for (const SplitConfig& sc : r.split_configs) {
        text.Char('(');
        text.Int(sc.dimension);
        text.Char(':');
        for (size_t i = 0; i < sc.split_indices.size(); ++i) {
          if (i > 0) text.Char(',');
          text.Int(sc.split_indices[i]);
        }
        text.Char(')');
      }
    }
    if (r.physical_shape.has_value()) {
      text.Text("P(", 2);
      text.Flush();  // the shape appends to `out` itself
      r.physical_shape.get().Print(out, options);
      text.Char(')');
    }
    if (r.dynamic_shape_metadata_prefix_bytes != 0) {
      number("M(", r.dynamic_shape_metadata_prefix_bytes);
    }
  }
  text.Char(angle ? '>' : '}');
}

std::string Layout::ToString(const PrintOptions& options) const {
  std::string out;
  Print(&out, options);
  return out;
}

std::ostream& operator<<(std::ostream& os, const Tile& tile) {
  return os << tile.ToString();
}
std::ostream& operator<<(std::ostream& os, const Layout& layout) {
  return os << layout.ToString();
}

}  // namespace xla_layout
