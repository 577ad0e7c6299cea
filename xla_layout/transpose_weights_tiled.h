// Convolution weights transposed into tiled destinations, padding written
// in the same pass: [C,1,3,3] to {0,1,3,2:T(1,128)} (9 rows of C lanes,
// each padded to a multiple of 128) and [C,K,1,1] to {0,1,3,2:T(8,128)}
// (K rows of C lanes in 8x128 tiles, K padded to 8); and the untiled ones
// whose source outgrows L1 ([576,9], [960,9]) or whose rows are a table
// ([O,3,3,3] to {0,1,3,2}). The general plan
// writes these as a transpose per tile box (the partial last tile a box of
// its own, through a row table for T(8,128), which the small plans do not
// take) and the padding as fills in further passes; here one call takes
// the whole destination, a tile of source rows at a time (so the source
// rows of a tile stay in L1 between the column blocks), each destination
// tile row written whole, elements then padding.
#ifndef XLA_LAYOUT_TRANSPOSE_WEIGHTS_TILED_H_
#define XLA_LAYOUT_TRANSPOSE_WEIGHTS_TILED_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "xla_layout/isa.h"
#include "xla_layout/relayout_small.h"
#include "xla_layout/tiled_layout.h"

namespace xla_layout::internal {

// A transpose of 32-bit elements into destination rows of tiles:
//   dst[rows[a] + (b / tb) * dgb + (b % tb) * 4] = src[a * 4 + b * ssb]
// for a < na, b < nb; lanes nb .. tiles * tb of each of those rows, and
// every lane of each row in pad_rows, hold `fill`. Each row is `tiles`
// runs of tb lanes, dgb bytes apart; together the rows cover the whole
// destination.
struct WeightsTiling {
  int64_t na = 0, nb = 0, ssb = 0;
  int64_t tb = 0, dgb = 0, tiles = 0;
  std::vector<int64_t> rows;      // na entries, bytes
  std::vector<int64_t> pad_rows;  // bytes
  // rows[a] = rows[0] + a * dsa when the rows are evenly spaced, else 0.
  int64_t dsa = 0;
  // Planes of nine ([O,I,3,3] to {0,1,3,2}, one run of lanes): rows[9 * p
  // + k] = rows[0] + p * plane_dst + k * nine_dsa for k < 9, na a multiple
  // of 9 over 9, rows not evenly spaced (dsa 0), nine_dsa not a multiple
  // of kSharedSetBytes; both 0 otherwise.
  int64_t nine_dsa = 0, plane_dst = 0;
  uint8_t fill[4] = {0, 0, 0, 0};
};

// Columns a source row may have here: the weights of depthwise (9) and
// narrow 1x1 (K up to 32) convolutions; wider rows keep the general plan,
// except planes of nine (any multiple of 9).
inline constexpr int64_t kMaxTiledWeightColumns = 32;

// The tiling of a relayout from `src` to `dst` when it is such a transpose
// into a padded destination: 4-byte elements, an untiled source whose
// outermost dim of size > 1 (b, rows ssb bytes apart) becomes the
// destination's minor dim, split into tiles of tb lanes (or not split),
// the other dims (a) contiguous in the source, 8 to
// kMaxTiledWeightColumns of them (or planes of nine), 8 or more rows (not
// panels of 8 or 16 rows by a multiple of 8 columns), a destination of at
// most kSmallPlanBytes without an L(n) tail, `isa` AVX2 or AVX-512; not when
// TransposeWeights32 takes the whole copy in one call (evenly spaced rows,
// one run of lanes each, at most kMaxWeightSourceBytes of source), which
// leaves [C,K] with two or more tiles of lanes, rows that are a table
// ([O,3,3,3]) and sources outgrowing L1 ([576,9], [960,9]). nullopt
// otherwise.
std::optional<WeightsTiling> MatchWeightsTiling(const TiledLayout& src, const TiledLayout& dst,
                                                const std::vector<uint8_t>& fill, Isa isa);

// Writes the whole destination of `t` (see WeightsTiling); `isa` AVX2 or
// AVX-512. Planes of nine go through TransposeNine32 (transpose_nine.h)
// per plane and chunk of rows, so nothing past a source row's last
// element is read. The destination must not overlap the source.
void TransposeWeightsTiled32(const WeightsTiling& t, const char* src, char* dst, Isa isa);

// A small plan of one op that runs TransposeWeightsTiled32, when
// MatchWeightsTiling takes the pair (planes of nine without padding lanes
// or rows: an op that runs their kernel alone); null otherwise.
std::unique_ptr<SmallPlan> CompileWeightsTiling(const TiledLayout& src, const TiledLayout& dst,
                                                const std::vector<uint8_t>& fill, Isa isa);

}  // namespace xla_layout::internal

#endif  // XLA_LAYOUT_TRANSPOSE_WEIGHTS_TILED_H_
