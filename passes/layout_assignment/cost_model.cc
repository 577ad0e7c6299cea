#include "passes/layout_assignment/cost_model.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xla_layout/layout_util.h"
#include "xla_layout/primitive_type.h"

namespace xla_layout::layout_assignment {

std::optional<double> LayoutCostModel::PaddingRatio(const Shape& shape) const {
  // Modules repeat a few shapes many times: the index math runs once per
  // distinct shape and layout.
  auto [it, inserted] = padding_ratios_.try_emplace(shape);
  if (inserted) {
    absl::StatusOr<double> ratio = TargetConfig::PaddingRatio(shape);
    if (ratio.ok()) it->second = *ratio;
  }
  return it->second;
}

bool LayoutCostModel::Acceptable(const Shape& shape, const Layout& layout) const {
  if (!ValidateLayoutForShape(layout, shape).ok()) return false;
  if (layout.tiles().empty()) return true;
  Shape laid_out = shape;
  laid_out.set_layout(layout);
  std::optional<double> ratio = PaddingRatio(laid_out);
  const double limit = target_.proto().cost_model().max_padding_ratio();
  return ratio && (limit == 0 || *ratio <= limit);
}

Layout LayoutCostModel::LeastPaddedVariant(const Shape& shape, const Layout& layout) const {
  Layout best = layout;
  std::optional<double> best_ratio;
  for (std::vector<Tile>& tiles : target_.TileVariants(shape)) {
    Layout tiled = layout;
    tiled.set_tiles(std::move(tiles));
    if (!ValidateLayoutForShape(tiled, shape).ok()) continue;
    Shape laid_out = shape;
    laid_out.set_layout(tiled);
    std::optional<double> ratio = PaddingRatio(laid_out);
    if (ratio && (!best_ratio || *ratio < *best_ratio)) {
      best = std::move(tiled);
      best_ratio = ratio;
    }
  }
  return best;
}

Layout LayoutCostModel::WithRequiredTiles(const Shape& shape, const Layout& layout) const {
  if (!layout.tiles().empty() || !target_.RequiresTiles(shape)) return layout;
  return LeastPaddedVariant(shape, layout);
}

Layout LayoutCostModel::TiledCopyLayout(const Shape& shape, const Layout& layout) const {
  Layout same_order = WithRequiredTiles(shape, layout);
  // Attributes the pass does not model stay as written, in their order.
  if (!LacksRequiredTiles(shape, layout) || !(layout == Layout(layout.minor_to_major()))) {
    return same_order;
  }
  Layout searched = ChooseFreeLayout(shape, {}).layout;
  Shape a = shape, b = shape;
  a.set_layout(same_order);
  b.set_layout(searched);
  std::optional<double> ra = PaddingRatio(a), rb = PaddingRatio(b);
  return rb && (!ra || *rb < *ra) ? searched : same_order;
}

bool LayoutCostModel::LacksRequiredTiles(const Shape& shape, const Layout& layout) const {
  return layout.tiles().empty() && target_.RequiresTiles(shape);
}

Layout LayoutCostModel::TargetTiled(const Shape& shape,
                              absl::Span<const int64_t> m2m) const {
  Layout layout(m2m);
  if (target_.RequiresTiles(shape)) return LeastPaddedVariant(shape, layout);
  std::vector<Tile> tiles = target_.BaseTiles(shape);
  if (tiles.empty()) return layout;
  Layout tiled = layout;
  tiled.set_tiles(std::move(tiles));
  return Acceptable(shape, tiled) ? tiled : layout;
}

LayoutCostModel::Default LayoutCostModel::ChooseFreeLayout(
    const Shape& shape, absl::Span<const int64_t> keep_major) const {
  std::pair<Shape, std::vector<int64_t>> key(shape, std::vector<int64_t>(keep_major.begin(),
                                                                         keep_major.end()));
  auto it = free_layouts_.find(key);
  if (it != free_layouts_.end()) return it->second;
  Default d = SearchFreeLayout(shape, keep_major);
  free_layouts_.emplace(std::move(key), d);
  return d;
}

LayoutCostModel::Default LayoutCostModel::SearchFreeLayout(
    const Shape& shape, absl::Span<const int64_t> keep_major) const {
  const Layout descending = DefaultLayoutForRank(shape.rank());
  const std::vector<int64_t> desc(descending.minor_to_major().begin(),
                                  descending.minor_to_major().end());
  const std::vector<Tile> tiles = target_.BaseTiles(shape);
  std::vector<std::vector<int64_t>> candidates;
  if (shape.rank() <= 4 && (!tiles.empty() || !keep_major.empty())) {
    std::vector<int64_t> order = desc;
    std::sort(order.begin(), order.end());
    do {
      candidates.push_back(order);
    } while (std::next_permutation(order.begin(), order.end()));
  } else {
    candidates.push_back(desc);
    std::vector<int64_t> rescued, batch_major;
    for (int64_t d : desc) if (shape.dimensions(d) != 1) rescued.push_back(d);
    for (int64_t d : desc) if (shape.dimensions(d) == 1) rescued.push_back(d);
    candidates.push_back(rescued);
    for (int64_t d : desc) {
      if (std::find(keep_major.begin(), keep_major.end(), d) == keep_major.end()) {
        batch_major.push_back(d);
      }
    }
    for (int64_t d : desc) {
      if (std::find(keep_major.begin(), keep_major.end(), d) != keep_major.end()) {
        batch_major.push_back(d);
      }
    }
    candidates.push_back(batch_major);
  }
  const double limit = target_.proto().cost_model().max_padding_ratio();
  const double untiled = (limit > 0 ? limit : 1.0) + 1.0;
  struct Scored {
    Layout layout;
    double score;
  };
  std::vector<Scored> scored;
  for (const std::vector<int64_t>& order : candidates) {
    Layout layout = TargetTiled(shape, order);
    double score = 1.0;
    if (!tiles.empty()) {
      if (layout.tiles().empty()) {
        score = untiled;
      } else {
        Shape laid_out = shape;
        laid_out.set_layout(layout);
        std::optional<double> ratio = PaddingRatio(laid_out);
        score = ratio ? *ratio : untiled;
      }
    }
    for (size_t pos = 0; pos < order.size() && pos < 2; ++pos) {
      if (std::find(keep_major.begin(), keep_major.end(), order[pos]) != keep_major.end()) {
        score += 1.0;
      }
    }
    // Pairs out of the descending order, whose minor-to-major list falls.
    int inversions = 0;
    for (size_t a = 0; a < order.size(); ++a) {
      for (size_t b = a + 1; b < order.size(); ++b) inversions += order[a] < order[b];
    }
    score += 0.001 * inversions;
    scored.push_back({std::move(layout), score});
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const Scored& a, const Scored& b) { return a.score < b.score; });
  Default d{scored[0].layout, std::nullopt, scored[0].score, std::nullopt, 0};
  for (size_t k = 1; k < scored.size(); ++k) {
    if (!SamePhysicalLayout(shape, scored[k].layout, d.layout)) {
      d.runner_up = scored[k].layout;
      d.runner_up_score = scored[k].score;
      break;
    }
  }
  if (!tiles.empty() && d.layout.tiles().empty()) {
    Shape probe = shape;
    probe.set_layout(Layout(desc).set_tiles(tiles));
    std::optional<double> ratio = PaddingRatio(probe);
    d.refused_ratio = ratio ? *ratio : -1.0;
  }
  return d;
}

Layout LayoutCostModel::AdaptTiles(const Layout& from, const Shape& from_shape,
                             const Shape& to) const {
  if (PrimitiveBitWidth(from_shape.element_type()) !=
      PrimitiveBitWidth(to.element_type())) {
    return TargetTiled(to, from.minor_to_major());
  }
  if (from.tiles().empty()) return WithRequiredTiles(to, from);
  if (Acceptable(to, from)) return from;
  return TargetTiled(to, from.minor_to_major());
}

std::optional<double> LayoutCostModel::CopyRate(CopyClass copy_class) const {
  const CopyThroughput& t = target_.proto().cost_model().copy_throughput();
  double gbps = 0;
  switch (copy_class) {
    case CopyClass::kContiguous: gbps = t.contiguous_gbps(); break;
    case CopyClass::kTile: gbps = t.tile_gbps(); break;
    case CopyClass::kTranspose: gbps = t.transpose_gbps(); break;
    case CopyClass::kSubByte: gbps = t.subbyte_gbps(); break;
  }
  if (gbps <= 0) return std::nullopt;
  return gbps * 1e9;
}

std::optional<double> LayoutCostModel::CopySeconds(int64_t bytes, CopyClass copy_class) const {
  std::optional<double> rate = CopyRate(copy_class);
  if (!rate) return std::nullopt;
  return static_cast<double>(bytes) / *rate;
}

double LayoutCostModel::CopyCost(int64_t bytes, CopyClass copy_class) const {
  std::optional<double> seconds = CopySeconds(bytes, copy_class);
  // Without both figures, costs stay in bytes so that they compare with
  // ReadCost in the same unit.
  if (!seconds || !CopyRate(CopyClass::kContiguous)) return static_cast<double>(bytes);
  return *seconds;
}

double LayoutCostModel::ReadCost(int64_t bytes, double factor) const {
  std::optional<double> contiguous = CopyRate(CopyClass::kContiguous);
  const double b = factor * static_cast<double>(bytes);
  return contiguous ? b / *contiguous : b;
}

}  // namespace xla_layout::layout_assignment
