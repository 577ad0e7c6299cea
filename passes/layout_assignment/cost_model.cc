#include "passes/layout_assignment/cost_model.h"

#include <utility>
#include <vector>

#include "xla_layout/primitive_type.h"

namespace xla_layout::layout_assignment {

bool LayoutCostModel::Acceptable(const Shape& shape, const Layout& layout) const {
  if (!ValidateLayoutForShape(layout, shape).ok()) return false;
  if (layout.tiles().empty()) return true;
  Shape laid_out = shape;
  laid_out.set_layout(layout);
  absl::StatusOr<bool> ok = target_.PaddingAcceptable(laid_out);
  return ok.ok() && *ok;
}

Layout LayoutCostModel::TargetTiled(const Shape& shape,
                              absl::Span<const int64_t> m2m) const {
  Layout layout(m2m);
  std::vector<Tile> tiles = target_.BaseTiles(shape);
  if (tiles.empty()) return layout;
  Layout tiled = layout;
  tiled.set_tiles(std::move(tiles));
  return Acceptable(shape, tiled) ? tiled : layout;
}

LayoutCostModel::Default LayoutCostModel::DefaultLayout(const Shape& shape) const {
  const Layout descending = DefaultLayoutForRank(shape.rank());
  std::vector<int64_t> m2m(descending.minor_to_major().begin(),
                           descending.minor_to_major().end());
  Layout layout = TargetTiled(shape, m2m);
  std::vector<Tile> tiles = target_.BaseTiles(shape);
  if (tiles.empty() || !layout.tiles().empty()) return {layout, std::nullopt};
  std::vector<int64_t> rescued;
  for (int64_t d : m2m) if (shape.dimensions(d) != 1) rescued.push_back(d);
  for (int64_t d : m2m) if (shape.dimensions(d) == 1) rescued.push_back(d);
  if (rescued != m2m) {
    Layout second = TargetTiled(shape, rescued);
    if (!second.tiles().empty()) return {second, std::nullopt};
  }
  Shape probe = shape;
  probe.set_layout(Layout(m2m).set_tiles(tiles));
  absl::StatusOr<double> ratio = TargetConfig::PaddingRatio(probe);
  return {layout, ratio.ok() ? *ratio : -1.0};
}

Layout LayoutCostModel::AdaptTiles(const Layout& from, const Shape& from_shape,
                             const Shape& to) const {
  if (PrimitiveBitWidth(from_shape.element_type()) !=
      PrimitiveBitWidth(to.element_type())) {
    return TargetTiled(to, from.minor_to_major());
  }
  if (from.tiles().empty() || Acceptable(to, from)) return from;
  return TargetTiled(to, from.minor_to_major());
}

}  // namespace xla_layout::layout_assignment
