#include "xla_layout/layout.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "xla_layout/primitive_type.h"
#include "xla_layout/shape.h"
#include "absl/strings/str_join.h"

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
  *out += '(';
  for (int i = 0; i < rank(); ++i) {
    if (i > 0) *out += ',';
    int64_t d = dimensions_[i];
    if (d == kCombineDimension) {
      *out += '*';
    } else {
      absl::StrAppend(out, d);
    }
  }
  *out += ')';
}

std::string Tile::ToString() const {
  std::string out;
  Print(&out);
  return out;
}

Layout::Layout() = default;
Layout::Layout(absl::Span<const int64_t> minor_to_major)
    : minor_to_major_(minor_to_major.begin(), minor_to_major.end()) {}
Layout::Layout(Layout&&) noexcept = default;
Layout& Layout::operator=(Layout&&) noexcept = default;
Layout::~Layout() = default;

Layout::Layout(const Layout& other)
    : minor_to_major_(other.minor_to_major_),
      dim_level_types_(other.dim_level_types_),
      dim_unique_(other.dim_unique_),
      dim_ordered_(other.dim_ordered_),
      tiles_(other.tiles_),
      tail_padding_alignment_in_elements_(
          other.tail_padding_alignment_in_elements_),
      element_size_in_bits_(other.element_size_in_bits_),
      memory_space_(other.memory_space_),
      index_primitive_type_(other.index_primitive_type_),
      pointer_primitive_type_(other.pointer_primitive_type_),
      physical_shape_(other.physical_shape_
                          ? std::make_unique<Shape>(*other.physical_shape_)
                          : nullptr),
      dynamic_shape_metadata_prefix_bytes_(
          other.dynamic_shape_metadata_prefix_bytes_),
      split_configs_(other.split_configs_) {}

Layout& Layout::operator=(const Layout& other) {
  if (this != &other) {
    Layout copy(other);
    *this = std::move(copy);
  }
  return *this;
}

Layout& Layout::add_dim_level_type(DimLevelType type, bool unique,
                                   bool ordered) {
  dim_level_types_.push_back(type);
  dim_unique_.push_back(unique);
  dim_ordered_.push_back(ordered);
  return *this;
}

Layout& Layout::set_physical_shape(const Shape& shape) {
  physical_shape_ = std::make_unique<Shape>(shape);
  return *this;
}

bool Layout::IsSparse() const {
  for (DimLevelType t : dim_level_types_) {
    if (t != DIM_DENSE) return true;
  }
  return false;
}

bool Layout::HasAttributes() const {
  return !dim_level_types_.empty() || !tiles_.empty() ||
         tail_padding_alignment_in_elements_ != 1 ||
         index_primitive_type_ != PRIMITIVE_TYPE_INVALID ||
         pointer_primitive_type_ != PRIMITIVE_TYPE_INVALID ||
         element_size_in_bits_ != 0 || memory_space_ != 0 ||
         !split_configs_.empty() || physical_shape_ != nullptr ||
         dynamic_shape_metadata_prefix_bytes_ != 0;
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
  if (a.dim_level_types_ != b.dim_level_types_ ||
      a.dim_unique_ != b.dim_unique_ || a.dim_ordered_ != b.dim_ordered_ ||
      a.tail_padding_alignment_in_elements_ !=
          b.tail_padding_alignment_in_elements_ ||
      a.index_primitive_type_ != b.index_primitive_type_ ||
      a.pointer_primitive_type_ != b.pointer_primitive_type_ ||
      a.dynamic_shape_metadata_prefix_bytes_ !=
          b.dynamic_shape_metadata_prefix_bytes_ ||
      a.split_configs_ != b.split_configs_) {
    return false;
  }
  if (a.has_physical_shape() != b.has_physical_shape()) return false;
  return !a.has_physical_shape() || a.physical_shape() == b.physical_shape();
}

LayoutProto Layout::ToProto() const {
  LayoutProto proto;
  for (int64_t d : minor_to_major_) proto.add_minor_to_major(d);
  for (DimLevelType t : dim_level_types_) proto.add_dim_level_types(t);
  // XLA writes the unique/ordered lists only when some entry is false.
  bool all_unique = true, all_ordered = true;
  for (bool u : dim_unique_) all_unique &= u;
  for (bool o : dim_ordered_) all_ordered &= o;
  if (!all_unique) {
    for (bool u : dim_unique_) proto.add_dim_unique(u);
  }
  if (!all_ordered) {
    for (bool o : dim_ordered_) proto.add_dim_ordered(o);
  }
  for (const Tile& tile : tiles_) *proto.add_tiles() = tile.ToProto();
  if (tail_padding_alignment_in_elements_ != 1) {
    proto.set_tail_padding_alignment_in_elements(
        tail_padding_alignment_in_elements_);
  }
  proto.set_element_size_in_bits(element_size_in_bits_);
  proto.set_memory_space(memory_space_);
  proto.set_index_primitive_type(index_primitive_type_);
  proto.set_pointer_primitive_type(pointer_primitive_type_);
  if (physical_shape_) *proto.mutable_physical_shape() = physical_shape_->ToProto();
  proto.set_dynamic_shape_metadata_prefix_bytes(
      dynamic_shape_metadata_prefix_bytes_);
  for (const SplitConfig& sc : split_configs_) {
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
  layout.tail_padding_alignment_in_elements_ =
      proto.tail_padding_alignment_in_elements() == 0
          ? 1
          : proto.tail_padding_alignment_in_elements();
  layout.element_size_in_bits_ = proto.element_size_in_bits();
  layout.memory_space_ = proto.memory_space();
  layout.index_primitive_type_ = proto.index_primitive_type();
  layout.pointer_primitive_type_ = proto.pointer_primitive_type();
  if (proto.has_physical_shape()) {
    absl::StatusOr<Shape> physical = Shape::FromProto(proto.physical_shape());
    if (!physical.ok()) return physical.status();
    layout.physical_shape_ = std::make_unique<Shape>(*std::move(physical));
  }
  layout.dynamic_shape_metadata_prefix_bytes_ =
      proto.dynamic_shape_metadata_prefix_bytes();
  for (const SplitConfigProto& p : proto.split_configs()) {
    layout.split_configs_.push_back(SplitConfig{
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
  if (tail_padding_alignment_in_elements_ <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("L(", tail_padding_alignment_in_elements_,
                     "): tail padding alignment must be positive"));
  }
  if (dynamic_shape_metadata_prefix_bytes_ < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("M(", dynamic_shape_metadata_prefix_bytes_,
                     "): metadata prefix bytes must not be negative"));
  }
  if (!IsSparse()) {
    if (index_primitive_type_ != PRIMITIVE_TYPE_INVALID) {
      return absl::InvalidArgumentError(
          "#(...) index primitive type is only allowed on a sparse layout");
    }
    if (pointer_primitive_type_ != PRIMITIVE_TYPE_INVALID) {
      return absl::InvalidArgumentError(
          "*(...) pointer primitive type is only allowed on a sparse layout");
    }
    if (physical_shape_ != nullptr) {
      return absl::InvalidArgumentError(
          "P(...) physical shape is only allowed on a sparse layout");
    }
    for (size_t i = 0; i < dim_level_types_.size(); ++i) {
      if (!dim_unique_[i] || !dim_ordered_[i]) {
        return absl::InvalidArgumentError(
            "a dense dimension must be unique and ordered ('+'/'~' need a "
            "sparse level type)");
      }
    }
  } else {
    if (!tiles_.empty()) {
      return absl::InvalidArgumentError("a sparse layout cannot have tiles");
    }
    for (PrimitiveType t : {index_primitive_type_, pointer_primitive_type_}) {
      if (t != PRIMITIVE_TYPE_INVALID && t != U8 && t != U16 && t != U32 &&
          t != U64) {
        return absl::InvalidArgumentError(absl::StrCat(
            "sparse index and pointer types must be u8, u16, u32 or u64, not ",
            PrimitiveTypeName(t)));
      }
    }
    if (physical_shape_ != nullptr) {
      absl::Status s = physical_shape_->Validate();
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
  *out += angle ? '<' : '{';
  absl::StrAppend(out, absl::StrJoin(minor_to_major_, ","));
  if (HasAttributes()) {
    *out += ':';
    if (!dim_level_types_.empty()) {
      *out += "D(";
      for (size_t i = 0; i < dim_level_types_.size(); ++i) {
        if (i > 0) *out += ',';
        *out += DimLevelTypeLetter(dim_level_types_[i]);
        if (!dim_unique_[i]) *out += '+';
        if (!dim_ordered_[i]) *out += '~';
      }
      *out += ')';
    }
    if (!tiles_.empty()) {
      *out += 'T';
      for (const Tile& tile : tiles_) tile.Print(out);
    }
    if (tail_padding_alignment_in_elements_ != 1) {
      absl::StrAppend(out, "L(", tail_padding_alignment_in_elements_, ")");
    }
    if (index_primitive_type_ != PRIMITIVE_TYPE_INVALID) {
      absl::StrAppend(out, "#(", PrimitiveTypeText(index_primitive_type_, options),
                      ")");
    }
    if (pointer_primitive_type_ != PRIMITIVE_TYPE_INVALID) {
      absl::StrAppend(out, "*(",
                      PrimitiveTypeText(pointer_primitive_type_, options), ")");
    }
    if (element_size_in_bits_ != 0) {
      absl::StrAppend(out, "E(", element_size_in_bits_, ")");
    }
    if (memory_space_ != 0) absl::StrAppend(out, "S(", memory_space_, ")");
    if (!split_configs_.empty()) {
      *out += "SC";
      for (const SplitConfig& sc : split_configs_) {
        absl::StrAppend(out, "(", sc.dimension, ":",
                        absl::StrJoin(sc.split_indices, ","), ")");
      }
    }
    if (physical_shape_ != nullptr) {
      *out += "P(";
      physical_shape_->Print(out, options);
      *out += ')';
    }
    if (dynamic_shape_metadata_prefix_bytes_ != 0) {
      absl::StrAppend(out, "M(", dynamic_shape_metadata_prefix_bytes_, ")");
    }
  }
  *out += angle ? '>' : '}';
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
