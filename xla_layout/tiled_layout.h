// The index math of an XLA array layout, compiled once from a Shape: the
// physical and tiled dims, the linear index of a logical element and its
// inverse, and sizes with padding. Everything that places elements (the
// packing core, the CLI, the layout pass, the executor) calls this; the
// formulas exist nowhere else.
//
// Semantics (SPEC section 3): minor_to_major gives the physical order; each
// tile applies to the minor dims of the shape the previous level produced,
// first folding '*' dims into the next more minor one, then padding, splitting
// and moving the tile dims to the minor end. L(n) pads the total slot count.
#ifndef XLA_LAYOUT_TILED_LAYOUT_H_
#define XLA_LAYOUT_TILED_LAYOUT_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xla_layout/shape.h"

namespace xla_layout {

using IndexVector = absl::InlinedVector<int64_t, 8>;

class TiledLayout {
 public:
  // `shape` must be a valid, static-or-bounded array shape; one without a
  // layout gets the default descending layout. Fails on unbounded dims, on
  // non-array shapes and when a size overflows int64.
  static absl::StatusOr<TiledLayout> Create(const Shape& shape);

  const Shape& shape() const { return shape_; }
  int rank() const { return static_cast<int>(logical_dims_.size()); }
  absl::Span<const int64_t> logical_dims() const { return logical_dims_; }
  // Dims in physical order, major to minor, before tiling.
  absl::Span<const int64_t> physical_dims() const { return levels_[0].dims; }
  // The shape before tiling level `level`; level == num_levels() is the final
  // tiled shape.
  int num_levels() const { return static_cast<int>(levels_.size()) - 1; }
  absl::Span<const int64_t> level_dims(int level) const {
    return levels_[level].dims;
  }
  // The final tiled shape, major to minor: the buffer is this array, then
  // L(n) tail padding.
  absl::Span<const int64_t> tiled_dims() const { return levels_.back().dims; }

  int64_t element_count() const { return element_count_; }  // logical
  int64_t slot_count() const { return slot_count_; }  // with all padding
  // Slots of the tiled array alone, before L(n) tail padding.
  int64_t tiled_slot_count() const { return tiled_slot_count_; }
  int64_t padding_slots() const { return slot_count_ - element_count_; }
  // E(n) when set, else the natural size in whole bytes times 8.
  int64_t element_size_in_bits() const { return element_bits_; }
  int64_t byte_size() const { return byte_size_; }

  // Slot of a logical element; `index` must be in range.
  int64_t LinearIndex(absl::Span<const int64_t> index) const;
  absl::StatusOr<int64_t> CheckedLinearIndex(
      absl::Span<const int64_t> index) const;
  // The logical element in `slot`, or nullopt when the slot is padding.
  std::optional<IndexVector> LogicalIndex(int64_t slot) const;

  // Element strides per logical dim; only for layouts without tiles.
  std::optional<IndexVector> UntiledStrides() const;

  // A final tiled dim seen as a digit of one logical index:
  //   coordinate = (e[logical_dim] / divisor) % extent
  // (no modulo for the most significant digit of a dim). logical_dim == -1
  // marks a dim whose only valid coordinate is 0 (the rest is padding). A slot
  // holds an element iff every such dim is 0 and each logical index summed
  // from its digits (sum of coordinate * divisor) is below the dim's size.
  struct Digit {
    int logical_dim;
    int64_t divisor;
    int64_t extent;
    int64_t stride;  // in slots, in the final tiled shape
  };
  // The digits of every final dim, when the layout has this form: always
  // without '*', and with '*' only where the folded dims are adjacent digits
  // of one logical dim or have size 1. nullopt otherwise.
  const std::optional<std::vector<Digit>>& digits() const { return digits_; }

 private:
  // One tiling level: `dims` is the shape it receives. The tiled suffix is
  // split into groups of input dims folded together by '*'.
  struct Level {
    std::vector<int64_t> dims;
    int lead = 0;                       // dims left untouched
    std::vector<int> group_begin;       // first input dim of each group
    std::vector<int> group_end;         // one past its last input dim
    std::vector<int64_t> group_size;    // product of the group's dims
    std::vector<int64_t> tile;          // tile size of each group
  };

  TiledLayout() = default;
  // Create's steps after the physical level: one level per tile, then the
  // strides and sizes of the final shape, then the digits. Errors name
  // `shape` as Create was given it.
  absl::Status AddLevel(const Tile& tile, const Shape& shape);
  absl::Status ComputeSizes(const Shape& shape);
  void ComputeDigits();
  IndexVector PhysicalIndex(absl::Span<const int64_t> index) const;

  Shape shape_;
  std::vector<int64_t> logical_dims_;
  std::vector<int64_t> minor_to_major_;
  bool scalar_tiled_ = false;  // a tiled scalar is laid out as [1]
  std::vector<Level> levels_;  // tiling levels, then the final shape
  std::vector<int64_t> final_strides_;
  int64_t element_count_ = 0;
  int64_t tiled_slot_count_ = 0;  // product of tiled_dims()
  int64_t slot_count_ = 0;
  int64_t element_bits_ = 0;
  int64_t byte_size_ = 0;
  std::optional<std::vector<Digit>> digits_;
};

// OK when the index math can size every array in `shape` (tuples
// recursively): element counts and sizes in bits fit int64, tiled and
// padded sizes too. Arrays with an unbounded dim have no size and pass.
// Cheap for untiled arrays: nothing is built.
absl::Status CheckShapeSizes(const Shape& shape);

}  // namespace xla_layout

#endif  // XLA_LAYOUT_TILED_LAYOUT_H_
