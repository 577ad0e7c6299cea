// What a replayed copy's traffic alone costs, where the copy reduces to a
// conversion that xla_layout/copy_reference.h moves: the replay's per-copy
// reference, beside memcpy, the floor and the plain vector copy.
//
// The reductions, exact in bytes and in the order of elements:
// - a transpose of 32-bit elements: both sides untiled, and the
//   destination's dims (major to minor, dims of size 1 left out) a rotation
//   of the source's, so the copy is an [A,B] -> [B,A] transpose. Its
//   reference moves the same 64-byte lines in 16x16 tiles with no shuffle.
// - the same into tiles (r,c) that only pad rows: the source's major dim
//   becomes the destination's minor one, at most c long, and r divides the
//   second-minor dim; the destination is then [B, c] row-major, and the
//   reference zeroes each row's tail after its lines, in a pass of its own.
// - a tile conversion: the same dimension order on both sides, one side
//   untiled and the other with one 2-D tile (r,c) on its two minor dims,
//   whose second-minor dim is a multiple of r where more-major dims exist.
//   The copy is then {1,0} <-> {1,0:T(r,c)} on [rows, cols], rows the
//   product of every dim but the minor one; its reference moves the runs,
//   which must be 32 bytes or longer (shorter ones a kernel shuffles).
// - row-major [A,B] to and from panels {0,1:T(t,1)}, which is
//   {1,0:T(A,t)}: the runs again; with dims before A and B, the same
//   major to minor on both sides, once per index of those.
// Any other copy has no reduction (Kind::kNone).
#ifndef BENCH_REPLAY_TRAFFIC_H_
#define BENCH_REPLAY_TRAFFIC_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "bench/relayout_cases.h"
#include "xla_layout/shape.h"

namespace xla_layout::bench {

struct TrafficReduction {
  enum class Kind { kNone, kTranspose, kTileRuns };
  Kind kind = Kind::kNone;
  // kTranspose: dst[a * dsa + b * 4] = src[a * 4 + b * 4 * na] for
  // a < na, b < nb (TransposeTiles' indexing), then pad_bytes of zeros at
  // each destination row's end (dsa = 4 * nb + pad_bytes).
  int64_t na = 0, nb = 0, dsa = 0, pad_bytes = 0;
  // kTileRuns: CopyTileRuns' arguments, for each of `batch` arrays, the
  // next one src_step and dst_step bytes on.
  int64_t rows = 0, cols = 0, tile_rows = 0, tile_cols = 0, element_bytes = 0;
  bool to_tiles = false;
  int64_t batch = 1, src_step = 0, dst_step = 0;
};

// The reduction of the copy from `src` to `dst` (same dimensions, both with
// layouts), or kNone.
TrafficReduction ReduceForTraffic(const Shape& src, const Shape& dst);

// Calls move(src, dst) for each array of a kTileRuns reduction's batch,
// stepping both; false, and no more calls, once a call is false.
bool EachOfBatch(const TrafficReduction& r, const char* src, char* dst,
                 const std::function<bool(const char*, char*)>& move);

// The reduction's references: a transpose's lines in strips of 16 and of
// 256 source rows (TransposeLines), or a tile conversion's runs one by one
// (CopyTileRuns) and, for runs of 32 or 64 bytes, in lines as the core's
// kernels move them (TileRunLines, where it applies); none for kNone.
std::vector<Mover> TrafficMovers(const TrafficReduction& reduction);

}  // namespace xla_layout::bench

#endif  // BENCH_REPLAY_TRAFFIC_H_
