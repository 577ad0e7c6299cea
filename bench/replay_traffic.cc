#include "bench/replay_traffic.h"

#include <algorithm>
#include <functional>
#include <vector>

#include "xla_layout/copy_reference.h"
#include "xla_layout/primitive_type.h"

namespace xla_layout::bench {
namespace {

// Runs shorter than a vector are not what a kernel moves: it shuffles
// them within registers, so moving them one by one bounds nothing.
constexpr int64_t kMinRunBytes = 32;

// The dims of `shape` from major to minor, as its layout orders them;
// without those of size 1 when `drop_ones`.
std::vector<int64_t> MajorToMinor(const Shape& shape, bool drop_ones) {
  std::vector<int64_t> order;
  const auto minor_to_major = shape.layout().minor_to_major();
  for (auto it = minor_to_major.rbegin(); it != minor_to_major.rend(); ++it) {
    if (!drop_ones || shape.dimensions(static_cast<int>(*it)) != 1) order.push_back(*it);
  }
  return order;
}

int64_t Product(const Shape& shape, const std::vector<int64_t>& dims, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t i = begin; i < end; ++i) n *= shape.dimensions(static_cast<int>(dims[i]));
  return n;
}

// Both layouts plain: no tiles, no E(n), the same element type.
bool Plain(const Shape& src, const Shape& dst) {
  return src.layout().tiles().empty() && dst.layout().tiles().empty() &&
         src.layout().element_size_in_bits() == 0 && dst.layout().element_size_in_bits() == 0;
}

// The one 2-D tile of whichever side has tiles, when the other side has
// none and neither sets E(n); null otherwise. `to_tiles`: the destination
// is the tiled side.
const Tile* SoleTile(const Shape& src, const Shape& dst, bool* to_tiles) {
  *to_tiles = src.layout().tiles().empty();
  const Shape& tiled = *to_tiles ? dst : src;
  const Shape& flat = *to_tiles ? src : dst;
  if (!flat.layout().tiles().empty() || tiled.layout().tiles().size() != 1 ||
      src.layout().element_size_in_bits() != 0 || dst.layout().element_size_in_bits() != 0) {
    return nullptr;
  }
  const Tile& tile = tiled.layout().tiles()[0];
  if (tile.rank() != 2 || tile.dimension(0) <= 0 || tile.dimension(1) <= 0) return nullptr;
  return &tile;
}

// The k with d == s rotated left by k (s[k:] then s[:k]), or 0.
size_t Rotation(const std::vector<int64_t>& s, const std::vector<int64_t>& d) {
  for (size_t k = 1; k < s.size(); ++k) {
    std::vector<int64_t> rotated(s.begin() + k, s.end());
    rotated.insert(rotated.end(), s.begin(), s.begin() + k);
    if (rotated == d) return k;
  }
  return 0;
}

TrafficReduction ReduceTranspose(const Shape& src, const Shape& dst) {
  TrafficReduction r;
  if (!Plain(src, dst) || PrimitiveByteSize(src.element_type()) != 4) return r;
  const std::vector<int64_t> s = MajorToMinor(src, true), d = MajorToMinor(dst, true);
  const size_t k = Rotation(s, d);
  if (k == 0) return r;
  r.kind = TrafficReduction::Kind::kTranspose;
  r.nb = Product(src, s, 0, k);         // the source's rows
  r.na = Product(src, s, k, s.size());  // each row's elements
  r.dsa = 4 * r.nb;
  return r;
}

// A transpose into tiles (r,c) whose minor dim fits one tile's columns, and
// whose second-minor dim r divides: the destination is then row-major with
// rows of c elements, the tiles' padding at each row's end. The source's
// major dim must be the destination's minor one (a rotation by one).
TrafficReduction ReducePaddedTranspose(const Shape& src, const Shape& dst) {
  TrafficReduction r;
  bool to_tiles = false;
  const Tile* sole = SoleTile(src, dst, &to_tiles);
  if (sole == nullptr || !to_tiles || PrimitiveByteSize(src.element_type()) != 4 ||
      dst.rank() < 2) {
    return r;
  }
  const Tile& tile = *sole;
  const std::vector<int64_t> q = MajorToMinor(dst, false);
  const int64_t minor = dst.dimensions(static_cast<int>(q.back()));
  const int64_t second = dst.dimensions(static_cast<int>(q[q.size() - 2]));
  if (minor > tile.dimension(1) || second % tile.dimension(0) != 0) return r;
  const std::vector<int64_t> s = MajorToMinor(src, true), d = MajorToMinor(dst, true);
  if (Rotation(s, d) != 1 || s[0] != q.back()) return r;
  r.kind = TrafficReduction::Kind::kTranspose;
  r.nb = minor;
  r.na = Product(src, s, 1, s.size());
  r.dsa = 4 * tile.dimension(1);
  r.pad_bytes = 4 * (tile.dimension(1) - minor);
  return r;
}

// Row-major [A,B] (dims of size 1 aside) and its panels of t columns,
// {0,1:T(t,1)}: each panel holds t columns of every row, row by row, which
// is {1,0:T(A,t)} of the same array. Dims before A and B, major to minor
// alike on both sides, repeat the conversion.
TrafficReduction ReducePanels(const Shape& src, const Shape& dst) {
  TrafficReduction r;
  bool to_panels = false;
  const Tile* tile = SoleTile(src, dst, &to_panels);
  if (tile == nullptr) return r;
  const Shape& panels = to_panels ? dst : src;
  const Shape& flat = to_panels ? src : dst;
  const std::vector<int64_t> f = MajorToMinor(flat, true), p = MajorToMinor(panels, false);
  const std::vector<int64_t> q = MajorToMinor(panels, true);
  const size_t n = f.size();
  if (tile->dimension(1) != 1 ||
      tile->dimension(0) * PrimitiveByteSize(src.element_type()) < kMinRunBytes || n < 2 ||
      q.size() != n || p[p.size() - 2] != f[n - 1] || p.back() != f[n - 2] ||
      !std::equal(f.begin(), f.end() - 2, q.begin())) {
    return r;
  }
  r.kind = TrafficReduction::Kind::kTileRuns;
  r.rows = flat.dimensions(static_cast<int>(f[n - 2]));
  r.cols = flat.dimensions(static_cast<int>(f[n - 1]));
  r.tile_rows = r.rows;
  r.tile_cols = tile->dimension(0);
  r.element_bytes = PrimitiveByteSize(src.element_type());
  r.to_tiles = to_panels;
  r.batch = Product(flat, f, 0, n - 2);
  const int64_t flat_step = r.rows * r.cols * r.element_bytes;
  const int64_t panel_step = (r.cols + r.tile_cols - 1) / r.tile_cols * r.tile_cols * r.rows *
                             r.element_bytes;
  r.src_step = to_panels ? flat_step : panel_step;
  r.dst_step = to_panels ? panel_step : flat_step;
  return r;
}

TrafficReduction ReduceTileRuns(const Shape& src, const Shape& dst) {
  TrafficReduction r;
  bool to_tiles = false;
  const Tile* sole = SoleTile(src, dst, &to_tiles);
  if (sole == nullptr || src.layout().minor_to_major() != dst.layout().minor_to_major() ||
      src.rank() < 2 || sole->dimension(1) * PrimitiveByteSize(src.element_type()) < kMinRunBytes) {
    return r;
  }
  const Tile& tile = *sole;
  const std::vector<int64_t> order = MajorToMinor(src, false);
  const size_t n = order.size();
  const int64_t outer = Product(src, order, 0, n - 2);
  const int64_t second = Product(src, order, n - 2, n - 1);
  if (outer > 1 && second % tile.dimension(0) != 0) return r;
  r.kind = TrafficReduction::Kind::kTileRuns;
  r.rows = outer * second;
  r.cols = Product(src, order, n - 1, n);
  r.tile_rows = tile.dimension(0);
  r.tile_cols = tile.dimension(1);
  r.element_bytes = PrimitiveByteSize(src.element_type());
  r.to_tiles = to_tiles;
  return r;
}

}  // namespace

bool EachOfBatch(const TrafficReduction& r, const char* src, char* dst,
                 const std::function<bool(const char*, char*)>& move) {
  for (int64_t i = 0; i < r.batch; ++i, src += r.src_step, dst += r.dst_step) {
    if (!move(src, dst)) return false;
  }
  return true;
}

TrafficReduction ReduceForTraffic(const Shape& src, const Shape& dst) {
  if (!src.IsArray() || !src.has_layout() || !dst.has_layout() ||
      src.element_type() != dst.element_type() || src.dimensions() != dst.dimensions()) {
    return {};
  }
  for (auto reduce : {ReduceTranspose, ReducePaddedTranspose, ReducePanels, ReduceTileRuns}) {
    const TrafficReduction r = reduce(src, dst);
    if (r.kind != TrafficReduction::Kind::kNone) return r;
  }
  return {};
}

std::vector<Mover> TrafficMovers(const TrafficReduction& r) {
  switch (r.kind) {
    case TrafficReduction::Kind::kTranspose: {
      std::vector<Mover> movers = TransposeLines(r.na, r.nb, 4 * r.na, r.dsa);
      if (r.pad_bytes == 0) return movers;
      for (Mover& lines : movers) {
        lines = [lines, r](const char* s, char* d, bool streaming) {
          return lines(s, d, streaming) &&
                 ZeroRowTails(d + 4 * r.nb, r.na, r.dsa, r.pad_bytes, streaming);
        };
      }
      return movers;
    }
    case TrafficReduction::Kind::kTileRuns: {
      std::vector<Mover> movers = {[r](const char* s, char* d, bool streaming) {
        return EachOfBatch(r, s, d, [&](const char* bs, char* bd) {
          return CopyTileRuns(bs, bd, r.rows, r.cols, r.tile_rows, r.tile_cols, r.element_bytes,
                              r.to_tiles, streaming);
        });
      }};
      if (TakesTileRunLines(r.rows, r.cols, r.tile_rows, r.tile_cols, r.element_bytes)) {
        movers.push_back([r](const char* s, char* d, bool streaming) {
          return !streaming && EachOfBatch(r, s, d, [&](const char* bs, char* bd) {
            return TileRunLines(bs, bd, r.rows, r.cols, r.tile_rows, r.tile_cols,
                                r.element_bytes, r.to_tiles);
          });
        });
      }
      return movers;
    }
    case TrafficReduction::Kind::kNone:
      break;
  }
  return {};
}

}  // namespace xla_layout::bench
