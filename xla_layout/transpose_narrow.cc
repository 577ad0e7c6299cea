#include "xla_layout/transpose_narrow.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <utility>

#include "xla_layout/simd_transpose.h"

namespace xla_layout::internal {
namespace {

void TransposeRowsScalar(const char* src, char* dst, int64_t ncols, int64_t nb, int64_t ssb,
                         const int64_t* rows) {
  for (int64_t c = 0; c < ncols; ++c) {
    char* out = dst + rows[c];
    for (int64_t b = 0; b < nb; ++b) std::memcpy(out + b * 4, src + c * 4 + b * ssb, 4);
  }
}

// Stores v[i] (and w[i] after it, for kWide) at row[i], i = 0..7, expanded
// over constant indices so the registers stay registers.
template <bool kWide, size_t... kI>
__attribute__((target("avx2"), always_inline)) inline void StoreColumns(
    char* const* row, int64_t offset, const __m256* v, const __m256* w,
    std::index_sequence<kI...>) {
  auto store = [&](size_t i) __attribute__((target("avx2"), always_inline)) {
    float* p = reinterpret_cast<float*>(row[i] + offset);
    _mm256_storeu_ps(p, v[i]);
    if (kWide) _mm256_storeu_ps(p + 8, w[i]);
  };
  (store(kI), ...);
}

// Calls block(b, wide) for source rows b .. b + 16 (wide) or b + 8 that
// cover [0, nb) (nb >= 8), 16 at a time when kWide: the last block overlaps
// the one before it.
template <bool kWide, typename Block>
__attribute__((target("avx2"), always_inline)) inline void ForRowBlocks(int64_t nb, Block block) {
  int64_t b = 0;
  if (kWide) {
    for (; b + 16 <= nb; b += 16) block(b, std::true_type());
  }
  for (; b + 8 <= nb; b += 8) block(b, std::false_type());
  if (b < nb) block(nb - 8, std::false_type());
}

// Column block by column block (8 source columns, their destination rows
// held in registers), each down every source row: each destination row is
// written front to back, 32 or 64 bytes at a time. The columns left over (9 of
// 3x3 is 8 + 1) go element by element, a sweep down the rows per column:
// on [576,9] that measured faster than a register of 8 built from element
// loads per 8 rows, and than an 8x8 block overlapping the one before it.
// Column blocks outside row blocks measured faster (f32[576,1,3,3] to
// {0,1,3,2}, `bench/relayout_bench`).
template <bool kWide>
__attribute__((target("avx2"))) void TransposeRowsAvx2(const char* src, char* dst,
                                                       int64_t ncols, int64_t nb,
                                                       int64_t ssb, const int64_t* rows) {
  const int64_t c8 = ncols & ~int64_t{7};
  for (int64_t c = 0; c < c8; c += 8) {
    char* row[8];
    for (int i = 0; i < 8; ++i) row[i] = dst + rows[c + i];
    const char* s = src + c * 4;
    ForRowBlocks<kWide>(nb, [&](int64_t b, auto wide) __attribute__((target("avx2"), always_inline)) {
      __m256 lo[8], hi[8];
      Transpose8x8ToRegs(s + b * ssb, ssb, lo);
      if (wide) Transpose8x8ToRegs(s + (b + 8) * ssb, ssb, hi);
      StoreColumns<decltype(wide)::value>(row, b * 4, lo, hi, std::make_index_sequence<8>());
    });
  }
  TransposeRowsScalar(src + c8 * 4, dst, ncols - c8, nb, ssb, rows + c8);
}

}  // namespace

void TransposeRows32(const char* src, char* dst, int64_t planes, int64_t plane_src,
                     int64_t plane_dst, int64_t ncols, int64_t nb, int64_t ssb,
                     const int64_t* rows, Isa isa) {
  const bool simd = (isa == Isa::kAvx2 || isa == Isa::kAvx512) && ncols >= 8 && nb >= 8;
  // Destination rows a multiple of 4 KiB apart share their L1 set (and the
  // low address bits the loads are checked against): those take 16 source
  // rows at a time, so that each line of them is written whole at once
  // (f32[960,1,3,3] into T(1,128), 4 KiB rows: 0.33x -> 0.50x of memcpy);
  // other rows 8, which measured faster on them ([576,9] to {0,1,3,2}).
  const bool wide = simd && (rows[1] - rows[0]) % kSharedSetBytes == 0;
  for (int64_t p = 0; p < planes; ++p) {
    const char* s = src + p * plane_src;
    char* d = dst + p * plane_dst;
    if (simd && wide) {
      TransposeRowsAvx2<true>(s, d, ncols, nb, ssb, rows);
    } else if (simd) {
      TransposeRowsAvx2<false>(s, d, ncols, nb, ssb, rows);
    } else {
      TransposeRowsScalar(s, d, ncols, nb, ssb, rows);
    }
  }
}

namespace {

// The columns of transpose `t` (loops [..., a, b]) with the loops that
// continue a in the source folded in, and their destination offsets;
// `t`'s other loops are left in `outer`.
std::vector<int64_t> FoldColumns(const Task& t, int64_t es, std::vector<Loop>* outer) {
  const size_t n = t.loops.size();
  std::vector<int64_t> rows;
  for (int64_t i = 0; i < t.loops[n - 2].extent; ++i) rows.push_back(i * t.loops[n - 2].dst);
  outer->assign(t.loops.begin(), t.loops.end() - 2);
  for (bool folded = true; folded;) {
    folded = false;
    const int64_t cols = static_cast<int64_t>(rows.size());
    for (auto it = outer->begin(); it != outer->end(); ++it) {
      if (it->src != cols * es || cols * it->extent > kMaxRowTableColumns) continue;
      for (int64_t k = 1; k < it->extent; ++k) {
        for (int64_t c = 0; c < cols; ++c) rows.push_back(rows[c] + k * it->dst);
      }
      outer->erase(it);
      folded = true;
      break;
    }
  }
  return rows;
}

}  // namespace

namespace {

// The loop along which `b` continues `a` (every other loop equal, and b's
// offsets a's plus that loop's extent of steps on both sides), or -1.
int ContinuedLoop(const Task& a, const Task& b) {
  if (a.kind != b.kind || (a.kind != Kind::kCopy && a.kind != Kind::kTranspose) ||
      a.grouped || b.grouped || a.loops.size() != b.loops.size()) {
    return -1;
  }
  int found = -1;
  for (size_t k = 0; k < a.loops.size(); ++k) {
    const Loop &x = a.loops[k], &y = b.loops[k];
    if (x.src != y.src || x.dst != y.dst) return -1;
    if (x.extent == y.extent) continue;
    if (found >= 0) return -1;
    found = static_cast<int>(k);
  }
  // With equal extents everywhere, b may still continue a along any loop.
  for (size_t k = 0; found < 0 && k < a.loops.size(); ++k) {
    const Loop& x = a.loops[k];
    if (b.src_offset == a.src_offset + x.extent * x.src &&
        b.dst_offset == a.dst_offset + x.extent * x.dst) {
      found = static_cast<int>(k);
    }
  }
  if (found < 0) return -1;
  const Loop& x = a.loops[found];
  if (b.src_offset != a.src_offset + x.extent * x.src ||
      b.dst_offset != a.dst_offset + x.extent * x.dst) {
    return -1;
  }
  return found;
}

}  // namespace

void MergeContinuingTasks(std::vector<Task>* tasks) {
  for (bool merged = true; merged;) {
    merged = false;
    for (size_t i = 0; i < tasks->size() && !merged; ++i) {
      for (size_t j = 0; j < tasks->size() && !merged; ++j) {
        const int k = i == j ? -1 : ContinuedLoop((*tasks)[i], (*tasks)[j]);
        if (k < 0) continue;
        (*tasks)[i].loops[k].extent += (*tasks)[j].loops[k].extent;
        tasks->erase(tasks->begin() + j);
        merged = true;
      }
    }
  }
}

void UseRowTables(std::vector<Task>* tasks, int64_t es, Isa isa) {
  if (es != 4 || (isa != Isa::kAvx2 && isa != Isa::kAvx512)) return;
  for (Task& t : *tasks) {
    const size_t n = t.loops.size();
    if (t.kind != Kind::kTranspose || t.grouped || n < 2 || t.loops[n - 1].extent < 8 ||
        t.Elements() * es > kMaxRowTableBytes) {
      continue;
    }
    std::vector<Loop> outer;
    std::vector<int64_t> rows = FoldColumns(t, es, &outer);
    const int64_t cols = static_cast<int64_t>(rows.size());
    // A lone column loop is the planner's own kernels' case (16x16 strips,
    // tiles grouped; for [C,9] 8x8 blocks and a sweep of the 9th column, as
    // fast as the table), unless its destination rows are 4 KiB apart. Tile
    // rows fold into one table when a few ([144,24] into T(8,128): 3 tiles
    // of 8 rows, 0.23x -> 0.30x of memcpy); from 8 tiles ([384,64]) the
    // grouped tiles measured faster.
    const Loop& a = t.loops[n - 2];
    if (cols < 8 || (cols == a.extent && a.dst % kSharedSetBytes != 0) ||
        (a.extent % 8 == 0 && cols > kMaxFoldedTileColumns)) {
      continue;
    }
    // An outer loop of one step when there is none: the plan's work is
    // shared along loops[0], which must not cut the table.
    if (outer.empty()) outer.push_back(Loop{1, 0, 0});
    outer.push_back(Loop{cols, es, 0});
    outer.push_back(t.loops[n - 1]);
    t.loops = std::move(outer);
    t.rows = std::move(rows);
  }
}

}  // namespace xla_layout::internal
