// Relations between layouts that do not need the index math: physical
// equality up to size-1 dims, and the layout that makes a reshape a bitcast.
#ifndef XLA_LAYOUT_LAYOUT_UTIL_H_
#define XLA_LAYOUT_LAYOUT_UTIL_H_

#include <optional>

#include "xla_layout/layout.h"
#include "xla_layout/shape.h"

namespace xla_layout {

// Whether `layout` carries anything besides its order and tiles (memory
// space, element size, sparse levels, ...).
bool HasAttributesBeyondTiles(const Layout& layout);

// Whether layouts `a` and `b` of `shape` put every element at the same
// offset: equal, or untiled and differing only where size-1 dims sit.
bool SamePhysicalLayout(const Shape& shape, const Layout& a, const Layout& b);

// The layout of `to` (a reshape of `from`, same element count) that makes
// the reshape a bitcast of `from` in `from_layout`, if one exists. Size-1
// dims are placed as close to descending order as the bitcast allows; tiles
// carry over only when the tiled minor dims are unchanged.
std::optional<Layout> ReshapeBitcastLayout(const Shape& from,
                                           const Layout& from_layout,
                                           const Shape& to);

}  // namespace xla_layout

#endif  // XLA_LAYOUT_LAYOUT_UTIL_H_
