#include "bench/plan_traffic.h"

#include <immintrin.h>

#include <cstring>
#include <memory>

#include "xla_layout/copy_reference.h"
#include "xla_layout/relayout_planner.h"
#include "xla_layout/simd_transpose_permute.h"
#include "xla_layout/tiled_layout.h"
#include "xla_layout/transpose_narrow.h"

// GCC 12 warns that the `__Y = __Y` placeholder inside the AVX-512 insert
// and extract intrinsics may be used uninitialized once they are inlined
// here (GCC bug 105593); the placeholder is never read.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace xla_layout::bench {
namespace {

using internal::Kind;
using internal::Loop;
using internal::Task;

// Calls f(s, d) at every index of loops[0..n), s and d the byte offsets.
template <typename F>
void ForEachIndex(const Loop* loops, size_t n, int64_t s, int64_t d, const F& f) {
  if (n == 0) return f(s, d);
  for (int64_t i = 0; i < loops->extent; ++i, s += loops->src, d += loops->dst) {
    ForEachIndex(loops + 1, n - 1, s, d, f);
  }
}

// An 8x8 block's pieces, no element moved within them: source row r's 32
// bytes to destination row r's, or, where both sides' rows are back to
// back, the block's 256 bytes as four 64-byte lines.
__attribute__((target("avx512f"), always_inline)) inline void LinesBlock(const char* s, char* d,
                                                                       int64_t ssb,
                                                                       int64_t dsa) {
  if (ssb == 32 && dsa == 32) {
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) _mm512_storeu_ps(d + 64 * k, _mm512_loadu_ps(s + 64 * k));
    return;
  }
#pragma GCC unroll 8
  for (int r = 0; r < 8; ++r) {
    _mm256_storeu_ps(reinterpret_cast<float*>(d + r * dsa),
                     _mm256_loadu_ps(reinterpret_cast<const float*>(s + r * ssb)));
  }
}

// Two blocks side by side along a (16 source columns, so 64-byte source
// rows) into destination rows back to back (dsa == 32): 512 bytes, source
// row r's line to the destination's line r.
__attribute__((target("avx512f"), always_inline)) inline void LinesBlockPair(const char* s,
                                                                           char* d,
                                                                           int64_t ssb) {
#pragma GCC unroll 8
  for (int r = 0; r < 8; ++r) _mm512_storeu_ps(d + 64 * r, _mm512_loadu_ps(s + r * ssb));
}

__attribute__((target("avx512f"), always_inline)) inline void PermuteBlock(const char* s, char* d,
                                                                         int64_t ssb,
                                                                         int64_t dsa) {
  __m512 out[4];
  if (ssb == 32) {
    internal::Transpose8x8PermuteToRegs<true>(s, ssb, out);
  } else {
    internal::Transpose8x8PermuteToRegs<false>(s, ssb, out);
  }
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) {
    if (dsa == 32) {
      _mm512_storeu_ps(d + 64 * k, out[k]);
    } else {
      internal::StoreRowPair<false>(d + 2 * k * dsa, d + (2 * k + 1) * dsa, out[k]);
    }
  }
}

// The planes of a transpose: dst[a * dsa + b * 4] = src[a * 4 + b * ssb]
// in each plane, planes.extent of them.
// Source rows of fewer elements than a multiple of 8, back to back
// (ssb == 4 * na: the [C,9] weights): each group of 16 rows is na 64-byte
// pieces of the source, piece r to destination row r's 16 elements of the
// group (groups of 8 and 32-byte pieces where b is no multiple of 16). The
// traffic of a transpose of short rows, with no shuffle.
__attribute__((target("avx512f"))) void MoveShortRows(const char* src, char* dst, Loop planes,
                                                      Loop a, Loop b) {
  const bool lines = b.extent % 16 == 0;
  const int64_t group = lines ? 16 : 8;
  for (int64_t p = 0; p < planes.extent; ++p, src += planes.src, dst += planes.dst) {
    const char* s = src;
    for (int64_t b0 = 0; b0 < b.extent; b0 += group) {
      char* d = dst + b0 * 4;
      for (int64_t r = 0; r < a.extent; ++r, s += 4 * group, d += a.dst) {
        if (lines) {
          _mm512_storeu_ps(d, _mm512_loadu_ps(s));
        } else {
          _mm256_storeu_ps(reinterpret_cast<float*>(d),
                           _mm256_loadu_ps(reinterpret_cast<const float*>(s)));
        }
      }
    }
  }
}

template <BlockMove kMove>
__attribute__((target("avx512f"))) void MovePlanes(const char* src, char* dst, Loop planes,
                                                   Loop a, Loop b) {
  const int64_t ssb = b.src, dsa = a.dst;
  if (a.extent % 8 != 0) return MoveShortRows(src, dst, planes, a, b);
  const bool pairs = kMove == BlockMove::kLines && a.extent % 16 == 0 && dsa == 32;
  for (int64_t p = 0; p < planes.extent; ++p, src += planes.src, dst += planes.dst) {
    for (int64_t b0 = 0; b0 < b.extent; b0 += 8) {
      const char* s = src + b0 * ssb;
      char* d = dst + b0 * 4;
      if (pairs) {
        for (int64_t a0 = 0; a0 < a.extent; a0 += 16) LinesBlockPair(s + a0 * 4, d + a0 * 32, ssb);
        continue;
      }
      for (int64_t a0 = 0; a0 < a.extent; a0 += 8) {
        if (kMove == BlockMove::kLines) {
          LinesBlock(s + a0 * 4, d + a0 * dsa, ssb, dsa);
        } else {
          PermuteBlock(s + a0 * 4, d + a0 * dsa, ssb, dsa);
        }
      }
    }
  }
}

// Runs of `run` bytes, rows.extent of them (a fill's when src is null:
// zeros), in 64- and 32-byte vector moves and a memcpy or memset of the
// last bytes: a short run is one or two moves, as in the core, not a call.
__attribute__((target("avx512f"))) void MoveRuns(const char* src, char* dst, Loop rows,
                                                 int64_t run) {
  const __m512 zero = _mm512_setzero_ps();
  for (int64_t i = 0; i < rows.extent; ++i, src += rows.src, dst += rows.dst) {
    int64_t k = 0;
    for (; k + 64 <= run; k += 64) {
      _mm512_storeu_ps(dst + k, src != nullptr ? _mm512_loadu_ps(src + k) : zero);
    }
    if (k + 32 <= run) {
      _mm256_storeu_ps(reinterpret_cast<float*>(dst + k),
                       src != nullptr ? _mm256_loadu_ps(reinterpret_cast<const float*>(src + k))
                                      : _mm512_castps512_ps256(zero));
      k += 32;
    }
    if (k == run) continue;
    if (src != nullptr) {
      std::memcpy(dst + k, src + k, run - k);
    } else {
      std::memset(dst + k, 0, run - k);
    }
  }
}

template <BlockMove kMove>
void MoveTask(const Task& t, const char* src, char* dst) {
  const size_t n = t.loops.size();
  const Loop* loops = t.loops.data();
  const Loop none{1, 0, 0};
  src += t.src_offset;
  dst += t.dst_offset;
  if (t.kind == Kind::kTranspose) {
    const size_t outer = n >= 3 ? n - 3 : 0;
    const Loop planes = n >= 3 ? loops[n - 3] : none;
    ForEachIndex(loops, outer, 0, 0, [&](int64_t s, int64_t d) {
      MovePlanes<kMove>(src + s, dst + d, planes, loops[n - 2], loops[n - 1]);
    });
    return;
  }
  // A copy or a fill (Movable): runs along the last loop.
  const int64_t run = loops[n - 1].extent * loops[n - 1].dst;
  const size_t outer = n >= 2 ? n - 2 : 0;
  const Loop rows = n >= 2 ? loops[n - 2] : none;
  ForEachIndex(loops, outer, 0, 0, [&](int64_t s, int64_t d) {
    MoveRuns(t.kind == Kind::kFill ? nullptr : src + s, dst + d, rows, run);
  });
}

// Whether the references can move `t` with `move`: a copy or fill whose
// last loop is contiguous in the destination; a transpose of 8x8 blocks;
// with kLines, a transpose of short source rows back to back
// (MoveShortRows).
bool Movable(const Task& t, BlockMove move) {
  if (t.loops.empty() || t.grouped || !t.rows.empty() || t.pad_bytes != 0) return false;
  const Loop& last = t.loops.back();
  switch (t.kind) {
    case Kind::kCopy:
      return last.dst == 4 && last.src == 4;
    case Kind::kFill:
      return last.dst == 4;
    case Kind::kTranspose: {
      if (t.loops.size() < 2) return false;
      const Loop& a = t.loops[t.loops.size() - 2];
      const bool short_rows =
          move == BlockMove::kLines && last.src == 4 * a.extent && a.extent < 64;
      return a.src == 4 && last.dst == 4 && last.extent % 8 == 0 &&
             (a.extent % 8 == 0 || short_rows);
    }
    case Kind::kStrided:
      return false;
  }
  return false;
}

// Copies of runs this short are moved by kernels of their own, whose
// traffic the references' runs show.
constexpr int64_t kShortRunBytes = 256;

}  // namespace

std::vector<Mover> PlanMovers(const Shape& src, const Shape& dst, BlockMove move) {
  if (!CanMoveTiles(TileMove::kAvx512)) return {};
  const absl::StatusOr<TiledLayout> s = TiledLayout::Create(src);
  const absl::StatusOr<TiledLayout> d = TiledLayout::Create(dst);
  if (!s.ok() || !d.ok() || s->element_size_in_bits() != 32 ||
      d->element_size_in_bits() != 32 || !s->digits().has_value() ||
      !d->digits().has_value()) {
    return {};
  }
  auto tasks = std::make_shared<std::vector<Task>>();
  if (!internal::PlanDigits(*s, *d, 4, tasks.get())) return {};
  internal::MergeContinuingTasks(tasks.get());
  bool any_transpose = false, any_short_run = false;
  for (const Task& t : *tasks) {
    if (!Movable(t, move)) return {};
    any_transpose |= t.kind == Kind::kTranspose;
    any_short_run |= t.kind == Kind::kCopy && t.loops.back().extent * 4 <= kShortRunBytes;
  }
  if (!any_transpose && (move == BlockMove::kPermute || !any_short_run)) return {};
  return {[tasks, move](const char* s, char* d, bool streaming) {
    if (streaming) return false;
    for (const Task& t : *tasks) {
      if (move == BlockMove::kLines) {
        MoveTask<BlockMove::kLines>(t, s, d);
      } else {
        MoveTask<BlockMove::kPermute>(t, s, d);
      }
    }
    return true;
  }};
}

}  // namespace xla_layout::bench
