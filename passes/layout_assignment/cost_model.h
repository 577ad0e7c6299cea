// The layout pass's cost model for one target: which tilings it accepts (the
// padding rule of TargetConfig), which layout a value nobody constrains gets,
// and how tiles carry across an op whose sides share a dimension order.
//
// The rule is the target table's: a tiling is refused when its padded bytes
// exceed max_padding_ratio times the data bytes. Refused means untiled,
// never a different tile. Where the target requires tiles (a required base
// tiling) nothing is refused: the variant that pads least is taken, and the
// free-value search weighs the orders with it.
#ifndef PASSES_LAYOUT_ASSIGNMENT_COST_MODEL_H_
#define PASSES_LAYOUT_ASSIGNMENT_COST_MODEL_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "passes/layout_assignment/target_config.h"
#include "xla_layout/layout.h"
#include "xla_layout/relayout.h"
#include "xla_layout/shape.h"

namespace xla_layout::layout_assignment {

class LayoutCostModel {
 public:
  explicit LayoutCostModel(const TargetConfig& target) : target_(target) {}

  const TargetConfig& target() const { return target_; }

  // Whether `layout` is valid for `shape` and, when tiled, the target
  // accepts its padding.
  bool Acceptable(const Shape& shape, const Layout& layout) const;

  // Order `m2m` with the target's tiles for `shape`; untiled when the
  // target has none for it or refuses their padding. Where the target
  // requires tiles, the variant that pads least on that order (the first
  // listed on a tie), whatever its padding.
  Layout TargetTiled(const Shape& shape, absl::Span<const int64_t> m2m) const;

  // Whether the target keeps arrays like `shape` in tiles only.
  bool RequiresTiles(const Shape& shape) const { return target_.RequiresTiles(shape); }
  // Whether `layout` of `shape` is untiled where the target requires tiles.
  bool LacksRequiredTiles(const Shape& shape, const Layout& layout) const;
  // `layout` as a target that requires tiles reads an untiled one: its
  // order (and other attributes) with the least padded variant added.
  // Unchanged when tiled already or when the target does not require tiles.
  Layout WithRequiredTiles(const Shape& shape, const Layout& layout) const;
  // The layout of the one tiled copy an untiled input gets when its readers
  // accept any order: `layout`'s order with its least padded variant, or the
  // free search's order when that pads less (a pinned f32[1280,320,1,1]
  // OIHW weight would pad 128x in its own order under T(1,128)).
  Layout TiledCopyLayout(const Shape& shape, const Layout& layout) const;

  // The layout of a value no constraint reaches: descending order with the
  // target's tiles. When the padding rule refuses them, size-1 dims move
  // major (free while untiled) if that rescues the tiling; otherwise the
  // value stays untiled and `refused_ratio` gets the padding ratio that was
  // refused (negative when the size is unbounded).
  struct Default {
    Layout layout;
    std::optional<double> refused_ratio;
    // The order search behind `layout`: its score and the best other
    // physical layout's (lower is better); no runner-up when one order
    // was all there was to weigh.
    double score = 0;
    std::optional<Layout> runner_up;
    double runner_up_score = 0;
  };
  Default DefaultLayout(const Shape& shape) const { return ChooseFreeLayout(shape, {}); }

  // The layout of a free value, searched over its dimension orders (all of
  // them up to rank 4 when the target tiles the shape or `keep_major` is
  // given; otherwise the descending order, size-1 dims major, and
  // `keep_major` dims major). An order scores the padding ratio of the
  // target's tiles on it (untiled costs max_padding_ratio + 1 where the
  // target tiles), plus 1 for each `keep_major` dim among the two minor
  // dims (a dot's batch dims: it wants its contracting and free dims
  // minor), plus 0.001 per dim pair out of descending order, so that ties
  // keep the order the value had.
  Default ChooseFreeLayout(const Shape& shape, absl::Span<const int64_t> keep_major) const;

  // `from`, a layout of `from_shape`, carried to `to` in the same order:
  // its tiles when the element widths match and `to` accepts them, else the
  // target's tiles for `to` (an untiled `from` stays untiled unless the
  // target requires tiles for `to`).
  Layout AdaptTiles(const Layout& from, const Shape& from_shape,
                    const Shape& to) const;

  // The rate of a copy of `copy_class`, in bytes per second, from the
  // target's copy_throughput; none when the table has no figure for it.
  std::optional<double> CopyRate(CopyClass copy_class) const;
  // `bytes` at that rate, in seconds; none without the rate.
  std::optional<double> CopySeconds(int64_t bytes, CopyClass copy_class) const;
  // The cost of moving `bytes` with a copy of `copy_class`, and of reading
  // `bytes` `factor` times (a convolution's read factor) at the contiguous
  // rate: seconds when the target has the rates, else the bytes themselves
  // (every class at one rate).
  double CopyCost(int64_t bytes, CopyClass copy_class) const;
  double ReadCost(int64_t bytes, double factor) const;

 private:
  Default SearchFreeLayout(const Shape& shape, absl::Span<const int64_t> keep_major) const;
  // `layout` with the target's tile variant that pads `shape` least; as it
  // is when no variant is valid for the shape.
  Layout LeastPaddedVariant(const Shape& shape, const Layout& layout) const;
  // Slots over padding (TargetConfig::PaddingRatio), memoized per
  // shape; none when the index math refuses the shape.
  std::optional<double> PaddingRatio(const Shape& shape) const;

  const TargetConfig& target_;
  mutable absl::flat_hash_map<Shape, std::optional<double>> padding_ratios_;
  mutable absl::flat_hash_map<std::pair<Shape, std::vector<int64_t>>, Default> free_layouts_;
};

}  // namespace xla_layout::layout_assignment

#endif  // PASSES_LAYOUT_ASSIGNMENT_COST_MODEL_H_
