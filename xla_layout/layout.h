// Value types for XLA layouts: Tile, SplitConfig and Layout. They are plain,
// copyable and comparable; ToProto()/FromProto() are the only doors to the
// wire format, and Print() is the one printer: ToString(), the text layer
// (shape_text.h) and streams all call it.
#ifndef XLA_LAYOUT_LAYOUT_H_
#define XLA_LAYOUT_LAYOUT_H_

#include <cstdint>
#include <limits>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "proto/layout.pb.h"
#include "xla_layout/out_of_line.h"
#include "xla_layout/print_options.h"

namespace xla_layout {

class Shape;

// A tile entry that folds its dimension into the next more minor one ('*').
inline constexpr int64_t kCombineDimension =
    std::numeric_limits<int64_t>::min();

// One tiling level: sizes for a suffix of the dims it applies to, most major
// first. Entries are positive or kCombineDimension.
class Tile {
 public:
  Tile() = default;
  explicit Tile(absl::Span<const int64_t> dimensions)
      : dimensions_(dimensions.begin(), dimensions.end()) {}

  absl::Span<const int64_t> dimensions() const { return dimensions_; }
  int64_t dimension(int i) const { return dimensions_[i]; }
  int rank() const { return static_cast<int>(dimensions_.size()); }

  // Checks entries: positive or '*', and no '*' on the most minor entry.
  absl::Status Validate() const;

  TileProto ToProto() const;
  // Maps -1 to kCombineDimension (the documents' spelling), then validates.
  static absl::StatusOr<Tile> FromProto(const TileProto& proto);

  void Print(std::string* out) const;  // appends "(8,128)", "(*,2)"
  void Print(TextAppender& text) const;
  std::string ToString() const;
  bool operator==(const Tile& other) const {
    return dimensions_ == other.dimensions_;
  }
  bool operator!=(const Tile& other) const { return !(*this == other); }
  template <typename H>
  friend H AbslHashValue(H h, const Tile& tile) {
    return H::combine(std::move(h), tile.dimensions_);
  }

 private:
  // Inline: tiles have one or two dims ((8,128), (2,1), (128)); deeper ones
  // are rare enough to live on the heap.
  absl::InlinedVector<int64_t, 2> dimensions_;
};

// How a dimension is split between memories: SC(dim:i,j).
struct SplitConfig {
  int64_t dimension = 0;
  std::vector<int64_t> split_indices;

  bool operator==(const SplitConfig& o) const {
    return dimension == o.dimension && split_indices == o.split_indices;
  }
  bool operator!=(const SplitConfig& o) const { return !(*this == o); }
};

// The most tiles a layout may have. XLA's layouts use at most three; the
// bound keeps the tiled index math (whose size grows with the square of the
// tile count) small on hostile input.
inline constexpr int kMaxTiles = 16;

// A layout's tiles, most major level first. One inline: most tiled layouts
// have one (T(8,128)); a second (bf16's T(8,128)(2,1)) goes to the heap.
// Every shape holds a layout, and an instruction a shape: a second inline
// tile took 24 bytes of each of a million instructions, tiled or not.
using TileList = absl::InlinedVector<Tile, 1>;

// The placement of an array in linear memory. Structural checks that need the
// shape (rank, element type) live in ValidateLayoutForShape (shape.h).
class Layout {
 public:
  Layout();
  explicit Layout(absl::Span<const int64_t> minor_to_major);
  Layout(const Layout& other);
  Layout& operator=(const Layout& other);
  Layout(Layout&&) noexcept;
  Layout& operator=(Layout&&) noexcept;
  ~Layout();

  absl::Span<const int64_t> minor_to_major() const { return minor_to_major_; }
  int64_t minor_to_major(int i) const { return minor_to_major_[i]; }
  Layout& set_minor_to_major(absl::Span<const int64_t> m2m) {
    minor_to_major_.assign(m2m.begin(), m2m.end());
    return *this;
  }

  const TileList& tiles() const { return tiles_; }
  Layout& add_tile(Tile tile) {
    tiles_.push_back(std::move(tile));
    return *this;
  }
  Layout& set_tiles(absl::Span<const Tile> tiles) {
    tiles_.assign(tiles.begin(), tiles.end());
    return *this;
  }
  Layout& clear_tiles() {
    tiles_.clear();
    return *this;
  }

  // 0 means the element type's natural size.
  int64_t element_size_in_bits() const { return element_size_in_bits_; }
  Layout& set_element_size_in_bits(int64_t bits) {
    element_size_in_bits_ = bits;
    return *this;
  }
  int64_t memory_space() const { return memory_space_; }
  Layout& set_memory_space(int64_t space) {
    memory_space_ = space;
    return *this;
  }
  // The attributes below are rare; they live out of line (see Rare), so
  // that the common layout is small and cheap to copy.
  // 1 (the default, also spelled 0 on the wire) means no tail padding.
  int64_t tail_padding_alignment_in_elements() const;
  Layout& set_tail_padding_alignment_in_elements(int64_t n);
  int64_t dynamic_shape_metadata_prefix_bytes() const;
  Layout& set_dynamic_shape_metadata_prefix_bytes(int64_t n);

  // Sparse attributes. The layout is sparse when any level type is not dense.
  const std::vector<DimLevelType>& dim_level_types() const;
  const std::vector<bool>& dim_unique() const;
  const std::vector<bool>& dim_ordered() const;
  Layout& add_dim_level_type(DimLevelType type, bool unique = true,
                             bool ordered = true);
  PrimitiveType index_primitive_type() const;
  Layout& set_index_primitive_type(PrimitiveType t);
  PrimitiveType pointer_primitive_type() const;
  Layout& set_pointer_primitive_type(PrimitiveType t);
  bool has_physical_shape() const;
  const Shape& physical_shape() const;
  Layout& set_physical_shape(const Shape& shape);
  bool IsSparse() const;

  const std::vector<SplitConfig>& split_configs() const;
  Layout& add_split_config(SplitConfig config);

  // True when any attribute after ':' would be printed.
  bool HasAttributes() const { return !tiles_.empty() || HasAttributesBeyondTiles(); }
  // The same, tiles left out: memory space, element size, sparse levels, ...
  bool HasAttributesBeyondTiles() const;

  // Comparison that can ignore parts: Layout::Equal().IgnoreTiles()(a, b).
  class Equal {
   public:
    Equal& IgnoreTiles() {
      ignore_tiles_ = true;
      return *this;
    }
    Equal& IgnoreElementSize() {
      ignore_element_size_ = true;
      return *this;
    }
    Equal& IgnoreMemorySpace() {
      ignore_memory_space_ = true;
      return *this;
    }
    Equal& MinorToMajorOnly() {
      minor_to_major_only_ = true;
      return *this;
    }
    bool operator()(const Layout& a, const Layout& b) const;

   private:
    bool ignore_tiles_ = false;
    bool ignore_element_size_ = false;
    bool ignore_memory_space_ = false;
    bool minor_to_major_only_ = false;
  };
  bool operator==(const Layout& other) const { return Equal()(*this, other); }
  bool operator!=(const Layout& other) const { return !(*this == other); }
  // Consistent with operator== (it hashes a part of what that compares), so
  // that a layout, or a shape with one, can key a memo.
  template <typename H>
  friend H AbslHashValue(H h, const Layout& layout) {
    return H::combine(std::move(h), layout.minor_to_major_, layout.tiles_,
                      layout.element_size_in_bits_, layout.memory_space_,
                      layout.RareHash());
  }

  LayoutProto ToProto() const;
  // Checks what can be checked without the shape (tiles, sizes, sparse-only
  // attributes on dense layouts, the nested physical shape).
  static absl::StatusOr<Layout> FromProto(const LayoutProto& proto);
  absl::Status ValidateStandalone() const;

  // Appends "{1,0:T(2,2)}" (or "<1,0:T(2,2)>" in the angle syntax).
  void Print(std::string* out, const PrintOptions& options = {}) const;
  std::string ToString(const PrintOptions& options = {}) const;

 private:
  // Sparse-array attributes, tail padding, split configs and the metadata
  // prefix: null while all are at their defaults.
  struct Rare;
  // A hash of the Rare attributes (the same for none and all defaults).
  size_t RareHash() const;

  absl::InlinedVector<int64_t, 4> minor_to_major_;
  TileList tiles_;
  int64_t element_size_in_bits_ = 0;
  int64_t memory_space_ = 0;
  OutOfLine<Rare> rare_;
};

std::ostream& operator<<(std::ostream& os, const Tile& tile);
std::ostream& operator<<(std::ostream& os, const Layout& layout);

}  // namespace xla_layout

#endif  // XLA_LAYOUT_LAYOUT_H_
