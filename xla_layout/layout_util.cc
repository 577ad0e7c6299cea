#include "xla_layout/layout_util.h"

#include <algorithm>

namespace xla_layout {

bool SamePhysicalLayout(const Shape& shape, const Layout& a, const Layout& b) {
  if (a == b) return true;
  if (!a.tiles().empty() || !b.tiles().empty() || a.HasAttributesBeyondTiles() ||
      b.HasAttributesBeyondTiles() || a.minor_to_major().size() != b.minor_to_major().size()) {
    return false;
  }
  auto significant = [&](const Layout& l) {
    std::vector<int64_t> m2m;
    for (int64_t d : l.minor_to_major()) {
      if (d >= 0 && d < shape.rank() && shape.dimensions(d) != 1) m2m.push_back(d);
    }
    return m2m;
  };
  return significant(a) == significant(b);
}

std::optional<Layout> ReshapeBitcastLayout(const Shape& from,
                                           const Layout& from_layout,
                                           const Shape& to) {
  if (from_layout.HasAttributesBeyondTiles() || from.rank() == 0 || to.rank() == 0) {
    return std::nullopt;
  }
  for (int64_t d : from.dimensions()) if (d <= 0) return std::nullopt;
  for (int64_t d : to.dimensions()) if (d <= 0) return std::nullopt;
  std::vector<int> a, b;  // non-degenerate dims in logical order
  for (int i = 0; i < from.rank(); ++i) if (from.dimensions(i) != 1) a.push_back(i);
  for (int i = 0; i < to.rank(); ++i) if (to.dimensions(i) != 1) b.push_back(i);
  // Split both into runs of dims with equal products: the reshape maps each
  // run of `from` onto the matching run of `to`.
  std::vector<int> group_of_a(from.rank(), -1);
  std::vector<std::vector<int>> groups_b;
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (i >= a.size() || j >= b.size()) return std::nullopt;
    int g = static_cast<int>(groups_b.size());
    groups_b.emplace_back();
    int64_t pa = from.dimensions(a[i]), pb = to.dimensions(b[j]);
    group_of_a[a[i++]] = g;
    groups_b[g].push_back(b[j++]);
    while (pa != pb) {
      if (pa < pb) {
        if (i >= a.size()) return std::nullopt;
        pa *= from.dimensions(a[i]);
        group_of_a[a[i++]] = g;
      } else {
        if (j >= b.size()) return std::nullopt;
        pb *= to.dimensions(b[j]);
        groups_b[g].push_back(b[j++]);
      }
    }
  }
  // In `from`'s physical order (major to minor) each run must appear whole
  // and in logical order.
  std::vector<int> sequence;
  std::vector<bool> seen(groups_b.size(), false);
  int current = -1, last_dim = -1;
  for (auto it = from_layout.minor_to_major().rbegin();
       it != from_layout.minor_to_major().rend(); ++it) {
    int d = static_cast<int>(*it);
    if (from.dimensions(d) == 1) continue;
    int g = group_of_a[d];
    if (g != current) {
      if (seen[g]) return std::nullopt;
      seen[g] = true;
      current = g;
      for (int bd : groups_b[g]) sequence.push_back(bd);
    } else if (d < last_dim) {
      return std::nullopt;
    }
    last_dim = d;
  }
  // Size-1 dims go where the order stays closest to descending.
  for (int d = 0; d < to.rank(); ++d) {
    if (to.dimensions(d) != 1) continue;
    auto pos = std::find_if(sequence.begin(), sequence.end(),
                            [d](int x) { return x > d; });
    sequence.insert(pos, d);
  }
  std::vector<int64_t> m2m(sequence.rbegin(), sequence.rend());
  Layout result(m2m);
  if (!from_layout.tiles().empty()) {
    // Tiles cover the minor dims; they carry over when those are unchanged.
    int t = from_layout.tiles()[0].rank();
    if (t > from.rank() || t > to.rank()) return std::nullopt;
    for (int k = 0; k < t; ++k) {
      if (from.dimensions(from_layout.minor_to_major(k)) !=
          to.dimensions(result.minor_to_major(k))) {
        return std::nullopt;
      }
    }
    result.set_tiles(from_layout.tiles());
  }
  return result;
}

bool IsPermutation(absl::Span<const int64_t> dims, int rank) {
  if (static_cast<int>(dims.size()) != rank) return false;
  absl::InlinedVector<bool, 8> seen(rank, false);
  for (int64_t d : dims) {
    if (d < 0 || d >= rank || seen[d]) return false;
    seen[d] = true;
  }
  return true;
}

std::optional<Layout> TransposedLayout(absl::Span<const int64_t> perm,
                                       const Layout& from, bool toward_operand) {
  const int rank = static_cast<int>(from.minor_to_major().size());
  if (!IsPermutation(perm, rank)) return std::nullopt;
  absl::InlinedVector<int64_t, 6> map(rank);  // from's dims to the other side's
  for (int k = 0; k < rank; ++k) {
    if (toward_operand) {
      map[k] = perm[k];
    } else {
      map[perm[k]] = k;
    }
  }
  absl::InlinedVector<int64_t, 6> m2m;
  for (int64_t d : from.minor_to_major()) m2m.push_back(map[d]);
  // Only the order moves: tiles, element size, memory space and the rest
  // describe the same bytes on both sides.
  Layout layout = from;
  layout.set_minor_to_major(m2m);
  return layout;
}

bool TransposeIsBitcast(const Shape& operand, const Shape& result,
                        absl::Span<const int64_t> perm) {
  if (!operand.IsArray() || !result.IsArray() || operand.rank() != result.rank() ||
      operand.element_type() != result.element_type()) {
    return false;
  }
  std::optional<Layout> permuted =
      TransposedLayout(perm, operand.layout(), /*toward_operand=*/false);
  return permuted && SamePhysicalLayout(result, *permuted, result.layout());
}

bool ReshapeIsBitcast(const Shape& operand, const Shape& result) {
  if (!operand.IsArray() || !result.IsArray() ||
      operand.element_type() != result.element_type()) {
    return false;
  }
  std::optional<Layout> b = ReshapeBitcastLayout(operand, operand.layout(), result);
  return b && SamePhysicalLayout(result, *b, result.layout());
}

std::vector<int64_t> CommonOrder(const Shape& a, const Shape& b,
                                 const Layout& layout) {
  std::vector<int64_t> order;
  for (int64_t d : layout.minor_to_major()) {
    if (d < a.rank() && d < b.rank() && a.dimensions(d) != 1 &&
        b.dimensions(d) != 1) {
      order.push_back(d);
    }
  }
  return order;
}

bool IsChosenLayout(const Shape& leaf) {
  if (!leaf.has_layout()) return false;
  const Layout& l = leaf.layout();
  return l.HasAttributes() ||
         !SamePhysicalLayout(leaf, l, DefaultLayoutForRank(leaf.rank()));
}

}  // namespace xla_layout
