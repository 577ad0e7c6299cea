#include "xla_layout/copy_reference.h"

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "xla_layout/simd_copy.h"
#include "xla_layout/simd_transpose.h"
#include "xla_layout/simd_transpose_permute.h"

namespace xla_layout {
namespace {

// A run of `bytes`: whole 128-byte blocks as 32-byte vectors, the rest by
// memcpy. No fence: the caller fences once after its last streaming store.
template <bool kStream>
__attribute__((target("avx2"), always_inline)) inline void MoveRun(const char* s, char* d,
                                                                  int64_t bytes) {
  const int64_t i = internal::CopyBlocks128Avx2<kStream>(s, d, bytes);
  if (i < bytes) std::memcpy(d + i, s + i, bytes - i);
}

// A run of a tile conversion: whole 128-byte blocks as MoveRun moves
// them, then whole 32-byte pieces as one vector each (ordinary stores),
// the rest by memcpy. Runs are one tile row, often 32 or 64 bytes: through
// MoveRun each was a call of memcpy, which cost the reference ten times
// what the core spends on such a conversion.
template <bool kStream>
__attribute__((target("avx2"), always_inline)) inline void MoveTileRun(const char* s, char* d,
                                                                      int64_t bytes) {
  int64_t i = internal::CopyBlocks128Avx2<kStream>(s, d, bytes);
  for (; i + 32 <= bytes; i += 32) {
    internal::Store32Avx2<false>(d + i,
                                 _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i)));
  }
  if (i < bytes) std::memcpy(d + i, s + i, bytes - i);
}

// One run, then the fence a streaming one needs. Copy, below, takes memcpy
// alone without AVX2 or, streaming, for a destination not 32-byte aligned.
template <bool kStream>
__attribute__((target("avx2"))) void CopyAvx2(const char* src, char* dst, int64_t bytes) {
  MoveRun<kStream>(src, dst, bytes);
  if (kStream) _mm_sfence();
}

template <bool kStream>
void Copy(const void* src, void* dst, int64_t bytes) {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2 && (!kStream || reinterpret_cast<uintptr_t>(dst) % 32 == 0)) {
    CopyAvx2<kStream>(static_cast<const char*>(src), static_cast<char*>(dst), bytes);
  } else {
    std::memcpy(dst, src, bytes);
  }
}

// A 64-byte line as two 32-byte stores.
template <bool kStream>
__attribute__((target("avx2"), always_inline)) inline void StoreLine(char* d, __m256i lo,
                                                                    __m256i hi) {
  internal::Store32Avx2<kStream>(d, lo);
  internal::Store32Avx2<kStream>(d + 32, hi);
}

template <TileMove kMove, bool kStream>
__attribute__((target("avx2"), always_inline)) inline void TileAvx2(const char* s, char* d,
                                                                   int64_t ssb, int64_t dsa) {
  if constexpr (kMove == TileMove::kLines) {
#pragma GCC unroll 16
    for (int r = 0; r < 16; ++r, s += ssb, d += dsa) {
      StoreLine<kStream>(d, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s)),
                         _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 32)));
    }
  } else {
    for (int half = 0; half < 2; ++half, s += 32, d += 8 * dsa) {
      __m256 top[8], bottom[8];
      internal::Transpose8x8ToRegs(s, ssb, top);
      internal::Transpose8x8ToRegs(s + 8 * ssb, ssb, bottom);
#pragma GCC unroll 8
      for (int a = 0; a < 8; ++a) {
        StoreLine<kStream>(d + a * dsa, _mm256_castps_si256(top[a]),
                           _mm256_castps_si256(bottom[a]));
      }
    }
  }
}

// The strips' order, shared by both ISAs' sweeps: strips of `strip_rows`
// source rows, each swept along a, tiles down the strip innermost. A macro,
// not a template over the tile: GCC inlines an always_inline tile only into
// a function with the tile's own target ISA, and a template cannot take its
// target attribute from a parameter; a call per tile would cost a tenth of
// a 16x16 transpose in L1.
#define XLA_LAYOUT_SWEEP_TILES(TILE)                                    \
  for (int64_t b0 = 0; b0 < nb; b0 += strip_rows) {                     \
    const int64_t b1 = std::min(nb, b0 + strip_rows);                   \
    for (int64_t a = 0; a < na; a += 16) {                              \
      for (int64_t b = b0; b < b1; b += 16) {                           \
        TILE(src + a * 4 + b * ssb, dst + a * dsa + b * 4, ssb, dsa);   \
      }                                                                 \
    }                                                                   \
  }

template <TileMove kMove, bool kStream>
__attribute__((target("avx2"))) void SweepAvx2(const char* src, char* dst, int64_t na,
                                               int64_t nb, int64_t ssb, int64_t dsa,
                                               int64_t strip_rows) {
  XLA_LAYOUT_SWEEP_TILES((TileAvx2<kMove, kStream>))
  if (kStream) _mm_sfence();
}

// A 64-byte line as one 64-byte store.
template <bool kStream>
__attribute__((target("avx512f"), always_inline)) inline void StoreLine512(char* d, __m512 v) {
  if (kStream) {
    _mm512_stream_ps(reinterpret_cast<float*>(d), v);
  } else {
    _mm512_storeu_ps(reinterpret_cast<float*>(d), v);
  }
}

// Transposed: four 8x8 permute blocks, each destination row's 64 bytes
// from two of them, one 32-byte store each.
template <TileMove kMove, bool kStream>
__attribute__((target("avx512f"), always_inline)) inline void TileAvx512(const char* s,
                                                                       char* d, int64_t ssb,
                                                                       int64_t dsa) {
  if constexpr (kMove == TileMove::kLines) {
#pragma GCC unroll 16
    for (int r = 0; r < 16; ++r, s += ssb, d += dsa) {
      StoreLine512<kStream>(d, _mm512_loadu_ps(reinterpret_cast<const float*>(s)));
    }
    return;
  }
#pragma GCC unroll 2
  for (int half = 0; half < 2; ++half, s += 32, d += 8 * dsa) {
#pragma GCC unroll 2
    for (int block = 0; block < 2; ++block) {
      __m512 out[4];
      internal::Transpose8x8PermuteToRegs<false>(s + block * 8 * ssb, ssb, out);
#pragma GCC unroll 4
      for (int k = 0; k < 4; ++k) {
        internal::StoreRowPair<kStream>(d + 2 * k * dsa + block * 32,
                                        d + (2 * k + 1) * dsa + block * 32, out[k]);
      }
    }
  }
}

template <TileMove kMove, bool kStream>
__attribute__((target("avx512f"))) void SweepAvx512(const char* src, char* dst, int64_t na,
                                                    int64_t nb, int64_t ssb, int64_t dsa,
                                                    int64_t strip_rows) {
  XLA_LAYOUT_SWEEP_TILES((TileAvx512<kMove, kStream>))
  if (kStream) _mm_sfence();
}

#undef XLA_LAYOUT_SWEEP_TILES

// The elements of an na x nb transpose outside its whole 16x16 tiles.
void TransposeEdges(const char* s, char* d, int64_t na, int64_t nb, int64_t ssb, int64_t dsa) {
  const int64_t na_tiles = na / 16 * 16, nb_tiles = nb / 16 * 16;
  for (int64_t b = 0; b < nb; ++b) {
    for (int64_t a = b < nb_tiles ? na_tiles : 0; a < na; ++a) {
      std::memcpy(d + a * dsa + b * 4, s + a * 4 + b * ssb, 4);
    }
  }
}

// Where the runs of a {1,0} <-> {1,0:T(tile_rows,tile_cols)} conversion are.
struct TileRuns {
  int64_t rows, cols, tile_rows, tile_cols, element_bytes;

  int64_t row_bytes() const { return cols * element_bytes; }
  int64_t run_bytes() const { return tile_cols * element_bytes; }
  int64_t tiles_across() const { return (cols + tile_cols - 1) / tile_cols; }
  bool DestinationsAligned(const void* dst, bool to_tiles) const {
    return reinterpret_cast<uintptr_t>(dst) % 32 == 0 && run_bytes() % 32 == 0 &&
           (to_tiles || row_bytes() % 32 == 0);
  }
};

// Offsets advance by additions: a division per run (of the tiles across)
// cost more than moving a 32-byte run.
template <bool kStream>
__attribute__((target("avx2"))) void MoveTileRuns(const char* src, char* dst,
                                                  const TileRuns& t, bool to_tiles) {
  const int64_t tiles_down = (t.rows + t.tile_rows - 1) / t.tile_rows;
  const int64_t across = t.tiles_across(), run = t.run_bytes(), row_bytes = t.row_bytes();
  int64_t tiled = 0;  // the tiled side's runs follow each other
  for (int64_t ti = 0; ti < tiles_down; ++ti) {
    for (int64_t tj = 0; tj < across; ++tj) {
      const int64_t width = std::min(t.tile_cols, t.cols - tj * t.tile_cols) * t.element_bytes;
      int64_t dense = ti * t.tile_rows * row_bytes + tj * run;
      for (int64_t r = 0; r < t.tile_rows; ++r, tiled += run, dense += row_bytes) {
        const bool inside = ti * t.tile_rows + r < t.rows;
        if (!to_tiles) {
          if (inside) MoveTileRun<kStream>(src + tiled, dst + dense, width);
          continue;
        }
        const int64_t moved = inside ? width : 0;
        MoveTileRun<kStream>(src + dense, dst + tiled, moved);
        if (moved < run) std::memset(dst + tiled + moved, 0, run - moved);
      }
    }
  }
  if (kStream) _mm_sfence();
}

// A tile conversion's lines (TileRunLines), in the order the core's
// planner gives its kernel, the destination's: bands of tile rows, then
// rows and tiles along each into dense rows, or tiles and rows down them
// into tiles. With 32-byte runs, rows and tiles go in pairs (a line holds
// two rows of a tile, or one row of two tiles).
__attribute__((target("avx512f"))) void MoveTileRunLines(const char* src, char* dst,
                                                        const TileRuns& t, bool to_tiles) {
  const int64_t row_bytes = t.row_bytes(), run = t.run_bytes(), tile_bytes = t.tile_rows * run;
  const int64_t group = 64 / run;  // rows of a tile in a line, and tiles in a dense line
  const int64_t across = t.tiles_across() / group, down = t.tile_rows / group;
  // Line k of tile group j, and the dense lines of its rows.
  auto move = [&](int64_t base, int64_t j, int64_t k) __attribute__((target("avx512f"))) {
    for (int64_t g = 0; g < group; ++g) {
      const int64_t tiled = base + (group * j + g) * tile_bytes + 64 * k;
      const int64_t dense = base + (group * k + g) * row_bytes + 64 * j;
      if (to_tiles) {
        _mm512_storeu_si512(dst + tiled, _mm512_loadu_si512(src + dense));
      } else {
        _mm512_storeu_si512(dst + dense, _mm512_loadu_si512(src + tiled));
      }
    }
  };
  for (int64_t base = 0; base < t.rows * row_bytes; base += t.tile_rows * row_bytes) {
    for (int64_t outer = 0; outer < (to_tiles ? across : down); ++outer) {
      for (int64_t inner = 0; inner < (to_tiles ? down : across); ++inner) {
        if (to_tiles) {
          move(base, outer, inner);
        } else {
          move(base, inner, outer);
        }
      }
    }
  }
}

// bf16 T(8,128)(2,1)'s lines without the interleave: line c of row pair k
// of tile (ti, tj) is the 32 bytes of row 8 ti + 2 k at columns tj * 128 +
// 16 c, then the next row's.
template <bool kStream>
__attribute__((target("avx2"))) void PairLines(const char* src, char* dst, int64_t rows,
                                               int64_t cols) {
  const int64_t row_bytes = cols * 2;
  char* d = dst;
  for (int64_t ti = 0; ti < rows / 8; ++ti) {
    for (int64_t tj = 0; tj < cols / 128; ++tj) {
      for (int64_t k = 0; k < 4; ++k) {
        const char* even = src + (ti * 8 + 2 * k) * row_bytes + tj * 256;
        const char* odd = even + row_bytes;
#pragma GCC unroll 8
        for (int64_t c = 0; c < 8; ++c, d += 64) {
          internal::Store32Avx2<kStream>(
              d, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(even + 32 * c)));
          internal::Store32Avx2<kStream>(
              d + 32, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(odd + 32 * c)));
        }
      }
    }
  }
  if (kStream) _mm_sfence();
}

template <bool kStream>
__attribute__((target("avx2"))) void ZeroTails(char* dst, int64_t rows, int64_t stride,
                                               int64_t bytes) {
  const __m256i zero = _mm256_setzero_si256();
  for (int64_t r = 0; r < rows; ++r, dst += stride) {
    for (int64_t i = 0; i < bytes; i += 32) internal::Store32Avx2<kStream>(dst + i, zero);
  }
  if (kStream) _mm_sfence();
}

}  // namespace

bool ZeroRowTails(void* dst, int64_t rows, int64_t stride, int64_t bytes, bool streaming) {
  const bool aligned = reinterpret_cast<uintptr_t>(dst) % 32 == 0 && stride % 32 == 0;
  if (rows < 0 || bytes <= 0 || bytes % 32 != 0 || !CanMoveTiles(TileMove::kAvx2) ||
      (streaming && !aligned)) {
    return false;
  }
  (streaming ? ZeroTails<true> : ZeroTails<false>)(static_cast<char*>(dst), rows, stride, bytes);
  return true;
}

bool CanMoveTiles(TileMove move) {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  return move == TileMove::kAvx512 ? avx512 : avx2;
}

bool TransposeTiles(TileMove move, const void* src, void* dst, int64_t na, int64_t nb,
                    int64_t ssb, int64_t dsa, int64_t strip_rows, bool streaming) {
  const bool aligned = reinterpret_cast<uintptr_t>(dst) % 64 == 0 && dsa % 64 == 0;
  if (na < 0 || nb < 0 || strip_rows <= 0 || strip_rows % 16 != 0 || !CanMoveTiles(move) ||
      (streaming && !aligned)) {
    return false;
  }
  const char* s = static_cast<const char*>(src);
  char* d = static_cast<char*>(dst);
  const int64_t na_tiles = na / 16 * 16, nb_tiles = nb / 16 * 16;
  auto run = [&](auto sweep_stream, auto sweep) {
    (streaming ? sweep_stream : sweep)(s, d, na_tiles, nb_tiles, ssb, dsa, strip_rows);
  };
  switch (move) {
    case TileMove::kAvx2:
      run(SweepAvx2<TileMove::kAvx2, true>, SweepAvx2<TileMove::kAvx2, false>);
      break;
    case TileMove::kLines:
      if (CanMoveTiles(TileMove::kAvx512)) {
        run(SweepAvx512<TileMove::kLines, true>, SweepAvx512<TileMove::kLines, false>);
      } else {
        run(SweepAvx2<TileMove::kLines, true>, SweepAvx2<TileMove::kLines, false>);
      }
      break;
    case TileMove::kAvx512:
      run(SweepAvx512<TileMove::kAvx512, true>, SweepAvx512<TileMove::kAvx512, false>);
      break;
  }
  TransposeEdges(s, d, na, nb, ssb, dsa);
  return true;
}

bool CopyTileRuns(const void* src, void* dst, int64_t rows, int64_t cols, int64_t tile_rows,
                  int64_t tile_cols, int64_t element_bytes, bool to_tiles, bool streaming) {
  if (rows <= 0 || cols <= 0 || tile_rows <= 0 || tile_cols <= 0 || element_bytes <= 0 ||
      !CanMoveTiles(TileMove::kAvx2)) {
    return false;
  }
  const TileRuns runs{rows, cols, tile_rows, tile_cols, element_bytes};
  if (streaming && !runs.DestinationsAligned(dst, to_tiles)) return false;
  (streaming ? MoveTileRuns<true> : MoveTileRuns<false>)(static_cast<const char*>(src),
                                                         static_cast<char*>(dst), runs, to_tiles);
  return true;
}

bool TakesTileRunLines(int64_t rows, int64_t cols, int64_t tile_rows, int64_t tile_cols,
                       int64_t element_bytes) {
  if (rows <= 0 || cols <= 0 || tile_rows <= 0 || tile_cols <= 0 || element_bytes <= 0) {
    return false;
  }
  const int64_t run = tile_cols * element_bytes, group = run == 32 ? 2 : 1;
  return (run == 32 || run == 64) && tile_rows % group == 0 && rows % tile_rows == 0 &&
         cols % (group * tile_cols) == 0 && CanMoveTiles(TileMove::kAvx512);
}

bool TileRunLines(const void* src, void* dst, int64_t rows, int64_t cols, int64_t tile_rows,
                  int64_t tile_cols, int64_t element_bytes, bool to_tiles) {
  if (!TakesTileRunLines(rows, cols, tile_rows, tile_cols, element_bytes)) return false;
  MoveTileRunLines(static_cast<const char*>(src), static_cast<char*>(dst),
                   TileRuns{rows, cols, tile_rows, tile_cols, element_bytes}, to_tiles);
  return true;
}

bool PairLinesT8x128(const void* src, void* dst, int64_t rows, int64_t cols, bool streaming) {
  if (rows <= 0 || rows % 8 != 0 || cols <= 0 || cols % 128 != 0 ||
      !CanMoveTiles(TileMove::kAvx2) || (streaming && reinterpret_cast<uintptr_t>(dst) % 32 != 0)) {
    return false;
  }
  (streaming ? PairLines<true> : PairLines<false>)(static_cast<const char*>(src),
                                                   static_cast<char*>(dst), rows, cols);
  return true;
}

void StreamingCopy(const void* src, void* dst, int64_t bytes) { Copy<true>(src, dst, bytes); }

void VectorCopy(const void* src, void* dst, int64_t bytes) { Copy<false>(src, dst, bytes); }

}  // namespace xla_layout
