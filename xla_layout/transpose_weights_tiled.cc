#include "xla_layout/transpose_weights_tiled.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "xla_layout/kernel_tuning.h"
#include "xla_layout/transpose_narrow.h"
#include "xla_layout/transpose_nine.h"
#include "xla_layout/transpose_weights.h"

namespace xla_layout::internal {
namespace {

// Source bytes a chunk of rows may span: the chunk is read once per column
// block and again for the lone columns, so it stays in L1 (32 KiB) beside
// the destination lines being written.
constexpr int64_t kChunkSourceBytes = 16 << 10;

// Columns past the last multiple of 8 up to this many go one by one; more
// take one 8-column block overlapping the one before it.
constexpr int64_t kMaxLoneColumns = 2;

// n lanes of the 4-byte value w from dst + rows[i] for i < count:
// 32-byte stores, the last one of a row overlapping, or lane by lane under
// 8 lanes.
__attribute__((target("avx2"))) void FillRowsAvx2(char* dst, const int64_t* rows, int64_t count,
                                                  int64_t n, int32_t w) {
  const __m256i v = _mm256_set1_epi32(w);
  for (int64_t r = 0; r < count; ++r) {
    char* d = dst + rows[r];
    if (n < 8) {
      for (int64_t i = 0; i < n; ++i) std::memcpy(d + 4 * i, &w, 4);
      continue;
    }
    int64_t i = 0;
    for (; i + 8 < n; i += 8) _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + 4 * i), v);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + 4 * (n - 8)), v);
  }
}

// The same with 64-byte stores from 16 lanes.
__attribute__((target("avx512f"))) void FillRowsAvx512(char* dst, const int64_t* rows,
                                                      int64_t count, int64_t n, int32_t w) {
  if (n < 16) return FillRowsAvx2(dst, rows, count, n, w);
  const __m512i v = _mm512_set1_epi32(w);
  for (int64_t r = 0; r < count; ++r) {
    char* d = dst + rows[r];
    int64_t i = 0;
    for (; i + 16 < n; i += 16) _mm512_storeu_si512(d + 4 * i, v);
    _mm512_storeu_si512(d + 4 * (n - 16), v);
  }
}

// Planes of nine: plane p is nb source rows (ssb bytes apart) of 9
// elements from byte 36 * p into 9 rows (dsa apart) from byte pds * p.
// One straight-line kernel per plane: the row table's 8-column blocks took
// 24 + 8 overlapping columns for 27 and a call per block.
void NinePlanes(const char* s, char* d, int64_t planes, int64_t nb, int64_t ssb, int64_t dsa,
                int64_t pds, Isa isa) {
  for (int64_t p = 0; p < planes; ++p, s += 36, d += pds) {
    TransposeNine32(s, d, nb, ssb, dsa, isa);
  }
}

// Source rows [b, b + n) of one tile (n >= 1), every column, into lanes
// from `lane0` (bytes) of each destination row, at tile offset `to`: by
// TransposeWeights32 where the destination rows do not share an L1 set,
// or are nine that the AVX-512 nine-column blocks take; else the column
// blocks by TransposeRows32 (16 rows at a time), one or two columns left
// over by TransposeColumn32, more by one block overlapping the one before
// it.
void Chunk(const WeightsTiling& t, const char* src, char* dst, int64_t to, int64_t b, int64_t n,
           Isa isa) {
  const char* s = src + b * t.ssb;
  char* d = dst + to + (b % t.tb) * 4;
  if (t.plane_dst != 0) {
    return NinePlanes(s, d + t.rows[0], t.na / 9, n, t.ssb, t.nine_dsa, t.plane_dst, isa);
  }
  // Nine columns in AVX-512 blocks store one 64-byte line per row and
  // block (TakesNineColumnsOnSharedSets in kernel_tuning.h has the figures).
  const bool nine =
      t.na == 9 && TakesNine32Avx512(n, t.ssb, isa) && TakesNineColumnsOnSharedSets();
  if (t.dsa != 0 && (t.dsa % kSharedSetBytes != 0 || nine) && n >= 8) {
    return TransposeWeights32(s, d + t.rows[0], t.na, n, t.ssb, t.dsa, isa);
  }
  const int64_t na8 = t.na & ~int64_t{7};
  if (t.na - na8 > kMaxLoneColumns) {
    TransposeRows32(s, d, 1, 0, 0, na8, n, t.ssb, t.rows.data(), isa);
    TransposeRows32(s + (t.na - 8) * 4, d, 1, 0, 0, 8, n, t.ssb, t.rows.data() + t.na - 8, isa);
    return;
  }
  TransposeRows32(s, d, 1, 0, 0, na8, n, t.ssb, t.rows.data(), isa);
  for (int64_t a = na8; a < t.na; ++a) {
    TransposeColumn32(s + a * 4, d + t.rows[a], n, t.ssb, isa);
  }
}

// Rows of a tile per chunk: the whole tile when its source rows fit in
// kChunkSourceBytes, else a multiple of 8 that does.
int64_t ChunkRows(const WeightsTiling& t) {
  const int64_t fit = std::max<int64_t>(8, kChunkSourceBytes / t.ssb / 8 * 8);
  return std::min(t.tb, fit);
}

}  // namespace

void TransposeWeightsTiled32(const WeightsTiling& t, const char* src, char* dst, Isa isa) {
  int32_t w;
  std::memcpy(&w, t.fill, 4);
  const auto fill = isa == Isa::kAvx512 ? FillRowsAvx512 : FillRowsAvx2;
  const int64_t cb = ChunkRows(t);
  const int64_t pad_rows = static_cast<int64_t>(t.pad_rows.size());
  for (int64_t tile = 0; tile < t.tiles; ++tile) {
    const int64_t b0 = tile * t.tb, bn = std::min(t.tb, t.nb - b0), to = tile * t.dgb;
    // Chunks of cb rows; a rest under 8 rows joins the chunk before it.
    for (int64_t c = 0; c < bn;) {
      const int64_t n = bn - c < cb + 8 ? bn - c : cb;
      Chunk(t, src, dst, to, b0 + c, n, isa);
      c += n;
    }
    if (bn < t.tb) fill(dst + to + bn * 4, t.rows.data(), t.na, t.tb - bn, w);
    if (pad_rows > 0) fill(dst + to, t.pad_rows.data(), pad_rows, t.tb, w);
  }
}

namespace {

// Sets t's lanes (tb, tiles, dgb) from b's digits in `dst`: the lanes
// (stride 1) and at most one of tiles; `row_digits` gets every other digit
// of more than one step (they step through rows). False when b's digits
// are not of that form or do not cover t->nb.
bool FindLanes(const TiledLayout& dst, int b, WeightsTiling* t,
               std::vector<TiledLayout::Digit>* row_digits) {
  const TiledLayout::Digit* lanes = nullptr;
  const TiledLayout::Digit* tiles = nullptr;
  for (const TiledLayout::Digit& g : *dst.digits()) {
    if (g.logical_dim != b) {
      if (g.extent > 1) row_digits->push_back(g);
    } else if (g.divisor == 1 && lanes == nullptr) {
      lanes = &g;
    } else if (tiles == nullptr) {
      tiles = &g;
    } else {
      return false;
    }
  }
  if (lanes == nullptr || lanes->stride != 1) return false;
  t->tb = lanes->extent;
  t->tiles = tiles == nullptr ? 1 : tiles->extent;
  t->dgb = tiles == nullptr ? 0 : tiles->stride * 4;
  if ((tiles != nullptr && tiles->divisor != t->tb) || t->tiles * t->tb < t->nb ||
      (t->tiles - 1) * t->tb >= t->nb) {
    return false;
  }
  // Tiles that continue one another (T(1,128): lanes 128.. follow 0..127)
  // are one run of lanes.
  if (t->dgb == t->tb * 4) {
    t->tb *= t->tiles;
    t->tiles = 1;
  }
  return true;
}

// Sets t->nine_dsa and t->plane_dst when t's rows are planes of nine in
// one run of lanes (see WeightsTiling) whose nine rows do not share an L1
// set: with rows a multiple of kSharedSetBytes apart ([32,32,3,3] to
// {0,1,3,2}, 4096 bytes) the per-plane kernel measured 0.26x of memcpy
// in relayout_bench replay, the general plan 0.55-0.62x.
void FindNinePlanes(WeightsTiling* t) {
  // Evenly spaced rows are one transpose, not planes ([96,576,1,1] into
  // T(8,128): 0.76-0.80x of memcpy as before, 0.47-0.49x as planes).
  if (t->na % 9 != 0 || t->na == 9 || t->tiles != 1 || t->dsa != 0) return;
  const int64_t dk = t->rows[1] - t->rows[0], dp = t->rows[9] - t->rows[0];
  if (dk % kSharedSetBytes == 0) return;
  for (int64_t a = 0; a < t->na; ++a) {
    if (t->rows[a] != t->rows[0] + a / 9 * dp + a % 9 * dk) return;
  }
  t->nine_dsa = dk;
  t->plane_dst = dp;
}

// Sets t->pad_rows: every row of `dst` (each combination of `row_digits`)
// that holds no data row of t->rows. False when the rows do not cover the
// destination or are too many to list.
bool FindPadRows(const TiledLayout& dst, const std::vector<TiledLayout::Digit>& row_digits,
                 WeightsTiling* t) {
  int64_t all_rows = 1;
  for (const TiledLayout::Digit& g : row_digits) all_rows *= g.extent;
  if (all_rows * t->tiles * t->tb != dst.tiled_slot_count() || all_rows > 4096) return false;
  std::vector<int64_t> data(t->rows);
  std::sort(data.begin(), data.end());
  for (int64_t r = 0; r < all_rows; ++r) {
    int64_t offset = 0;
    for (int64_t k = static_cast<int64_t>(row_digits.size()) - 1, q = r; k >= 0; --k) {
      offset += q % row_digits[k].extent * row_digits[k].stride * 4;
      q /= row_digits[k].extent;
    }
    if (!std::binary_search(data.begin(), data.end(), offset)) t->pad_rows.push_back(offset);
  }
  return static_cast<int64_t>(t->pad_rows.size()) + t->na == all_rows;
}

}  // namespace

std::optional<WeightsTiling> MatchWeightsTiling(const TiledLayout& src, const TiledLayout& dst,
                                                const std::vector<uint8_t>& fill, Isa isa) {
  if ((isa != Isa::kAvx2 && isa != Isa::kAvx512) || src.element_size_in_bits() != 32 ||
      dst.element_size_in_bits() != 32 || fill.size() != 4 || src.num_levels() != 0 ||
      dst.slot_count() != dst.tiled_slot_count() ||
      dst.byte_size() > kSmallPlanBytes || !dst.digits().has_value()) {
    return std::nullopt;
  }
  const std::optional<IndexVector> strides = src.UntiledStrides();
  if (!strides.has_value()) return std::nullopt;
  const absl::Span<const int64_t> dims = src.logical_dims();
  // b: the outermost source dim of size > 1; the others, more minor, are a.
  int b = -1;
  for (int i = 0; i < src.rank(); ++i) {
    if (dims[i] > 1 && (b < 0 || (*strides)[i] > (*strides)[b])) b = i;
  }
  if (b < 0) return std::nullopt;
  WeightsTiling t;
  t.nb = dims[b];
  t.na = (*strides)[b];
  t.ssb = 4 * t.na;
  // Panels of 8 or 16 rows by whole column blocks stay with the kernel
  // set's direct blocks, as in TakesTransposeWeights.
  const bool panel = (t.nb == 8 || t.nb == 16) && t.na % 8 == 0;
  const bool nines = t.na % 9 == 0;
  if (t.na < 8 || (t.na > kMaxTiledWeightColumns && !nines) || t.nb < 8 || panel) {
    return std::nullopt;
  }
  std::vector<TiledLayout::Digit> row_digits;
  if (!FindLanes(dst, b, &t, &row_digits)) return std::nullopt;
  // The data rows, from the index math.
  IndexVector index(dims.begin(), dims.end());
  for (int64_t a = 0; a < t.na; ++a) {
    for (int i = 0; i < src.rank(); ++i) index[i] = i == b ? 0 : a / (*strides)[i] % dims[i];
    t.rows.push_back(dst.LinearIndex(index) * 4);
  }
  t.dsa = t.rows[1] - t.rows[0];
  for (int64_t a = 2; a < t.na; ++a) {
    if (t.rows[a] - t.rows[a - 1] != t.dsa) t.dsa = 0;
  }
  FindNinePlanes(&t);
  if (t.na > kMaxTiledWeightColumns && t.plane_dst == 0) return std::nullopt;
  // Evenly spaced rows in one run of lanes that the small plans' transpose
  // takes in one call stay with it (and its fill op, if any): the same
  // kernel without this one's chunks, a few ns less on [96,9] and [96,16]
  // into tiles. Taken here: rows that are a table ([O,3,3,3], T(8,128) of
  // two or more tiles) or a source over kMaxWeightSourceBytes ([576,9]).
  if (t.tiles == 1 && t.dsa != 0 && TakesTransposeWeights(4, t.na, t.nb, t.ssb, isa)) {
    return std::nullopt;
  }
  if (!FindPadRows(dst, row_digits, &t)) return std::nullopt;
  std::memcpy(t.fill, fill.data(), 4);
  return t;
}

namespace {

// Planes of nine without padding as an op of their own: loops[1] the
// planes, loops[2].dst the nine rows' stride, loops[3] the source rows;
// the fields read into scalars and no table, chunks or fills around the
// kernel.
template <Isa kIsa>
void RunNinePlanes(const SmallOp& op, const char* src, char* dst) {
  const Loop p = op.loops[1], b = op.loops[3];
  return NinePlanes(src, dst + op.dst_offset, p.extent, b.extent, b.src, op.loops[2].dst, p.dst,
                    kIsa);
}

template <Isa kIsa>
void RunWeightsTiling(const SmallOp& op, const char* src, char* dst) {
  TransposeWeightsTiled32(*static_cast<const WeightsTiling*>(op.table), src, dst, kIsa);
}

}  // namespace

std::unique_ptr<SmallPlan> CompileWeightsTiling(const TiledLayout& src, const TiledLayout& dst,
                                                const std::vector<uint8_t>& fill, Isa isa) {
  std::optional<WeightsTiling> tiling = MatchWeightsTiling(src, dst, fill, isa);
  if (!tiling.has_value()) return nullptr;
  auto table = std::make_shared<const WeightsTiling>(std::move(*tiling));
  const WeightsTiling& t = *table;
  if (t.plane_dst != 0 && t.tb == t.nb && t.pad_rows.empty()) {
    SmallOp op{isa == Isa::kAvx512 ? RunNinePlanes<Isa::kAvx512> : RunNinePlanes<Isa::kAvx2>};
    op.es = 4;
    op.dst_offset = t.rows[0];
    op.loops[0] = {1, 0, 0};
    op.loops[1] = {t.na / 9, 36, t.plane_dst};
    op.loops[2] = {9, 4, t.nine_dsa};
    op.loops[3] = {t.nb, t.ssb, 4};
    return SmallPlan::OfOp(op, absl::StrCat("transpose of 32-bit columns, ", t.na / 9,
                                            " planes of nine"), nullptr);
  }
  SmallOp op{isa == Isa::kAvx512 ? RunWeightsTiling<Isa::kAvx512> : RunWeightsTiling<Isa::kAvx2>};
  op.es = 4;
  op.table = table.get();
  std::string name = absl::StrCat("transpose of 32-bit columns into rows of ", table->tiles,
                                  " x ", table->tb, " lanes, padding in the same pass");
  if (table->plane_dst != 0) absl::StrAppend(&name, ", ", table->na / 9, " planes of nine");
  return SmallPlan::OfOp(op, std::move(name), std::move(table));
}

}  // namespace xla_layout::internal
