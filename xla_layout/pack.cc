#include "xla_layout/pack.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xla_layout {
namespace {

absl::Status VerifySpec(absl::Span<const int64_t> dims, const PackSpec& spec) {
  const int64_t rank = dims.size();
  if (spec.inner_dims_pos.size() != spec.inner_tiles.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "inner_dims_pos has ", spec.inner_dims_pos.size(),
        " entries but inner_tiles has ", spec.inner_tiles.size()));
  }
  if (static_cast<int64_t>(spec.inner_dims_pos.size()) > rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "inner_dims_pos has ", spec.inner_dims_pos.size(),
        " entries, more than the source rank ", rank));
  }
  for (size_t i = 0; i < spec.inner_tiles.size(); ++i) {
    if (spec.inner_tiles[i] <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "inner_tiles[", i, "] is ", spec.inner_tiles[i],
          ": tile factors must be positive (zero tile factor)"));
    }
  }
  std::vector<bool> seen(rank, false);
  for (int64_t p : spec.inner_dims_pos) {
    if (p < 0 || p >= rank || seen[p]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "inner_dims_pos [", absl::StrJoin(spec.inner_dims_pos, ","),
          "] must be distinct dims in [0, ", rank, ")"));
    }
    seen[p] = true;
  }
  if (!spec.outer_dims_perm.empty()) {
    std::vector<bool> used(rank, false);
    bool ok = static_cast<int64_t>(spec.outer_dims_perm.size()) == rank;
    for (int64_t p : spec.outer_dims_perm) {
      ok = ok && p >= 0 && p < rank && !used[p];
      if (ok) used[p] = true;
    }
    if (!ok) {
      return absl::InvalidArgumentError(absl::StrCat(
          "outer_dims_perm [", absl::StrJoin(spec.outer_dims_perm, ","),
          "] is not a permutation of the ", rank, " source dims"));
    }
  }
  if (!spec.padding_value.has_value()) {
    for (size_t i = 0; i < spec.inner_tiles.size(); ++i) {
      int64_t d = dims[spec.inner_dims_pos[i]];
      if (d % spec.inner_tiles[i] != 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "dim ", spec.inner_dims_pos[i], " (", d,
            ") is not a multiple of its tile ", spec.inner_tiles[i],
            "; partial tiles need a padding_value"));
      }
    }
  }
  return absl::OkStatus();
}

std::vector<int64_t> OuterPerm(int64_t rank, const PackSpec& spec) {
  if (!spec.outer_dims_perm.empty()) return spec.outer_dims_perm;
  std::vector<int64_t> perm(rank);
  for (int64_t i = 0; i < rank; ++i) perm[i] = i;
  return perm;
}

RelayoutOptions WithPadding(RelayoutOptions options, const PackSpec& spec) {
  if (spec.padding_value) options.padding_value = *spec.padding_value;
  return options;
}

}  // namespace

absl::StatusOr<std::vector<int64_t>> PackedDims(
    absl::Span<const int64_t> dims, const PackSpec& spec) {
  absl::Status s = VerifySpec(dims, spec);
  if (!s.ok()) return s;
  const int64_t rank = dims.size();
  std::vector<int64_t> outer(dims.begin(), dims.end());
  for (size_t i = 0; i < spec.inner_tiles.size(); ++i) {
    int64_t& d = outer[spec.inner_dims_pos[i]];
    d = (d + spec.inner_tiles[i] - 1) / spec.inner_tiles[i];
  }
  std::vector<int64_t> packed;
  for (int64_t p : OuterPerm(rank, spec)) packed.push_back(outer[p]);
  packed.insert(packed.end(), spec.inner_tiles.begin(), spec.inner_tiles.end());
  return packed;
}

absl::Status VerifyPackedDims(absl::Span<const int64_t> dims,
                              absl::Span<const int64_t> packed_dims,
                              const PackSpec& spec) {
  absl::StatusOr<std::vector<int64_t>> want = PackedDims(dims, spec);
  if (!want.ok()) return want.status();
  if (packed_dims.size() != want->size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "packed rank is ", packed_dims.size(), " but must be the source rank ",
        dims.size(), " plus ", spec.inner_tiles.size(), " tiles = ",
        want->size()));
  }
  for (size_t i = 0; i < want->size(); ++i) {
    if (packed_dims[i] != (*want)[i]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "packed dim ", i, " is ", packed_dims[i], " but must be ",
          (*want)[i], " (packed type [", absl::StrJoin(*want, "x"), "])"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> PackedLayoutShape(const Shape& source,
                                        const PackSpec& spec) {
  if (!source.IsArray()) {
    return absl::InvalidArgumentError("pack needs an array source");
  }
  absl::Status s = VerifySpec(source.dimensions(), spec);
  if (!s.ok()) return s;
  const int64_t rank = source.rank();
  std::vector<int64_t> perm = OuterPerm(rank, spec);
  // Physical order (major to minor) = the outer order of the packed type.
  std::vector<int64_t> m2m(perm.rbegin(), perm.rend());
  Layout layout(m2m);
  std::vector<int64_t> tile_of(rank, 1);
  for (size_t i = 0; i < spec.inner_tiles.size(); ++i) {
    tile_of[spec.inner_dims_pos[i]] = spec.inner_tiles[i];
  }
  if (!spec.inner_tiles.empty()) {
    // Level 1 tiles every dim (1 for untiled ones): the grid is the outer
    // part, and the tile part is in outer order.
    std::vector<int64_t> first;
    for (int64_t p : perm) first.push_back(tile_of[p]);
    layout.add_tile(Tile(first));
    // Then each inner tile, in inner_dims_pos order, moves to the minor end:
    // a tile (t, 1, ..., 1) over the suffix that starts at that tile dim
    // leaves the other dims where they are and puts t after them. `cur`
    // tracks the current dims: -1 for dims that cannot move data (grids and
    // size-1 dims do not matter once they precede the inner tiles), else the
    // source dim whose inner tile it is.
    std::vector<int64_t> cur(rank, -1);
    for (int64_t p : perm) cur.push_back(tile_of[p] > 1 ? p : -1);
    // The longest prefix of the wanted order that is already in order stays;
    // the rest move to the end one by one, in the wanted order.
    std::vector<int64_t> wanted;
    for (int64_t dim : spec.inner_dims_pos) {
      if (tile_of[dim] > 1) wanted.push_back(dim);
    }
    size_t keep = 0;
    for (size_t p = rank; p < cur.size() && keep < wanted.size(); ++p) {
      if (cur[p] == wanted[keep]) ++keep;
    }
    for (size_t w = keep; w < wanted.size(); ++w) {
      int64_t dim = wanted[w];
      int64_t pos = std::find(cur.begin(), cur.end(), dim) - cur.begin();
      int64_t suffix = static_cast<int64_t>(cur.size()) - pos;
      std::vector<int64_t> tile(suffix, 1);
      tile[0] = tile_of[dim];
      layout.add_tile(Tile(tile));
      std::vector<int64_t> next(cur.begin(), cur.begin() + pos);
      next.push_back(-1);  // the grid of the moved tile: size 1
      next.insert(next.end(), cur.begin() + pos + 1, cur.end());
      next.push_back(dim);
      next.insert(next.end(), suffix - 1, -1);
      cur = std::move(next);
    }
  }
  Shape shape = source;
  shape.set_layout(layout);
  return shape;
}

absl::StatusOr<RelayoutPlan> CreatePackPlan(const Shape& source,
                                            absl::Span<const int64_t> packed_dims,
                                            const PackSpec& spec,
                                            RelayoutOptions options) {
  absl::Status s = VerifyPackedDims(source.dimensions(), packed_dims, spec);
  if (!s.ok()) return s;
  absl::StatusOr<Shape> packed = PackedLayoutShape(source, spec);
  if (!packed.ok()) return packed.status();
  return RelayoutPlan::Create(source, *packed, WithPadding(options, spec));
}

absl::StatusOr<RelayoutPlan> CreateUnpackPlan(
    absl::Span<const int64_t> packed_dims, const Shape& dest,
    const PackSpec& spec, RelayoutOptions options) {
  absl::Status s = VerifyPackedDims(dest.dimensions(), packed_dims, spec);
  if (!s.ok()) return s;
  absl::StatusOr<Shape> packed = PackedLayoutShape(dest, spec);
  if (!packed.ok()) return packed.status();
  return RelayoutPlan::Create(*packed, dest, WithPadding(options, spec));
}

absl::Status Pack(const Shape& source, const void* src,
                  absl::Span<const int64_t> packed_dims, const PackSpec& spec,
                  void* dst) {
  absl::StatusOr<RelayoutPlan> plan =
      CreatePackPlan(source, packed_dims, spec);
  if (!plan.ok()) return plan.status();
  plan->Execute(src, dst);
  return absl::OkStatus();
}

absl::Status Unpack(absl::Span<const int64_t> packed_dims, const void* src,
                    const Shape& dest, const PackSpec& spec, void* dst) {
  absl::StatusOr<RelayoutPlan> plan =
      CreateUnpackPlan(packed_dims, dest, spec);
  if (!plan.ok()) return plan.status();
  plan->Execute(src, dst);
  return absl::OkStatus();
}

}  // namespace xla_layout
