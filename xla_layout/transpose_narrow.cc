#include "xla_layout/transpose_narrow.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <utility>

namespace xla_layout::internal {
namespace {

void TransposeRowsScalar(const char* src, char* dst, int64_t ncols, int64_t nb, int64_t ssb,
                         const int64_t* rows) {
  for (int64_t c = 0; c < ncols; ++c) {
    char* out = dst + rows[c];
    for (int64_t b = 0; b < nb; ++b) std::memcpy(out + b * 4, src + c * 4 + b * ssb, 4);
  }
}

// out[a] = the 8 elements of column a0 + a of source rows 0..7 (ssb bytes
// apart). Rows b and b + 4 share a register: a 128-bit load, and a 128-bit
// broadcast load blended into its upper half (the broadcast is a load, the
// blend runs on any vector port, where an insert takes a shuffle port, which
// the two rounds of unpacks and shuffles after it already keep busy).
__attribute__((target("avx2"), always_inline)) inline void Columns8x8(const char* src,
                                                                     int64_t ssb,
                                                                     __m256* out) {
  auto pair = [&](int b) __attribute__((target("avx2"), always_inline)) {
    const __m128 lo = _mm_loadu_ps(reinterpret_cast<const float*>(src + b * ssb));
    const __m128 hi = _mm_loadu_ps(reinterpret_cast<const float*>(src + (b + 4) * ssb));
    return _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
  };
  auto half = [&](int a0) __attribute__((target("avx2"), always_inline)) {
    const __m256 r0 = pair(0), r1 = pair(1), r2 = pair(2), r3 = pair(3);
    const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    const __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    out[a0 + 0] = _mm256_shuffle_ps(t0, t2, 0x44);
    out[a0 + 1] = _mm256_shuffle_ps(t0, t2, 0xEE);
    out[a0 + 2] = _mm256_shuffle_ps(t1, t3, 0x44);
    out[a0 + 3] = _mm256_shuffle_ps(t1, t3, 0xEE);
  };
  half(0);
  src += 16;
  half(4);
}

// One column of 8 source rows (ssb bytes apart) in a register: element
// loads inserted in place (a gather of 8 measured slower here).
__attribute__((target("avx2"), always_inline)) inline __m256 Column8(const char* src,
                                                                    int64_t ssb) {
  auto four = [&](const char* s) __attribute__((target("avx2"), always_inline)) {
    auto at = [&](int b) { return *reinterpret_cast<const float*>(s + b * ssb); };
    return _mm_setr_ps(at(0), at(1), at(2), at(3));
  };
  return _mm256_set_m128(four(src + 4 * ssb), four(src));
}

// Stores v[i] (and w[i] after it, for kWide) at row[i] + offset, i = 0..7,
// expanded over constant indices so the registers stay registers.
template <bool kWide, size_t... kI>
__attribute__((target("avx2"), always_inline)) inline void StoreColumns(
    char* dst, const int64_t* row, const __m256* v, const __m256* w,
    std::index_sequence<kI...>) {
  auto store = [&](size_t i) __attribute__((target("avx2"), always_inline)) {
    float* p = reinterpret_cast<float*>(dst + row[i]);
    _mm256_storeu_ps(p, v[i]);
    if (kWide) _mm256_storeu_ps(p + 8, w[i]);
  };
  (store(kI), ...);
}

// Source rows b .. b + 8 (kWide: b + 16) of one plane, every column:
// blocks of 8 columns, then each column left over in one register per 8
// rows.
template <bool kWide>
__attribute__((target("avx2"))) inline void RowBlock(const char* src, char* dst,
                                                     int64_t ncols, int64_t ssb,
                                                     const int64_t* rows) {
  __m256 lo[8], hi[8];
  int64_t c = 0;
  for (; c + 8 <= ncols; c += 8) {
    Columns8x8(src + c * 4, ssb, lo);
    if (kWide) Columns8x8(src + c * 4 + 8 * ssb, ssb, hi);
    StoreColumns<kWide>(dst, rows + c, lo, hi, std::make_index_sequence<8>());
  }
  for (; c < ncols; ++c) {
    const char* s = src + c * 4;
    float* d = reinterpret_cast<float*>(dst + rows[c]);
    _mm256_storeu_ps(d, Column8(s, ssb));
    if (kWide) _mm256_storeu_ps(d + 8, Column8(s + 8 * ssb, ssb));
  }
}

__attribute__((target("avx2"))) void TransposeRowsAvx2(const char* src, char* dst,
                                                       int64_t ncols, int64_t nb,
                                                       int64_t ssb, const int64_t* rows) {
  // Blocks of 16 source rows write 64 bytes (a line) to each destination
  // row; an odd 8 and the last rows (overlapping the block before) 32.
  int64_t b = 0;
  for (; b + 16 <= nb; b += 16) {
    RowBlock<true>(src + b * ssb, dst + b * 4, ncols, ssb, rows);
  }
  if (b + 8 <= nb) {
    RowBlock<false>(src + b * ssb, dst + b * 4, ncols, ssb, rows);
    b += 8;
  }
  if (b < nb) {
    b = nb - 8;
    RowBlock<false>(src + b * ssb, dst + b * 4, ncols, ssb, rows);
  }
}

}  // namespace

void TransposeRows32(const char* src, char* dst, int64_t planes, int64_t plane_src,
                     int64_t plane_dst, int64_t ncols, int64_t nb, int64_t ssb,
                     const int64_t* rows, Isa isa) {
  const bool simd = (isa == Isa::kAvx2 || isa == Isa::kAvx512) && ncols >= 8 && nb >= 8;
  for (int64_t p = 0; p < planes; ++p) {
    const char* s = src + p * plane_src;
    char* d = dst + p * plane_dst;
    if (simd) {
      TransposeRowsAvx2(s, d, ncols, nb, ssb, rows);
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
    // A lone column loop of a multiple of 8 is the planner's own kernels'
    // case (16x16 strips, tiles grouped).
    if (cols < 8 || (t.loops[n - 2].extent % 8 == 0 && cols == t.loops[n - 2].extent)) continue;
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
