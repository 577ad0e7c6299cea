#include "xla_layout/copy_reference.h"

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "xla_layout/simd_copy.h"
#include "xla_layout/simd_transpose.h"

namespace xla_layout {
namespace {

// Whole 128-byte blocks with AVX2 (streaming stores when kStream), the tail
// by memcpy; memcpy alone without AVX2 or, streaming, for a destination
// that is not 32-byte aligned.
template <bool kStream>
__attribute__((target("avx2"))) void CopyAvx2(const char* src, char* dst, int64_t bytes) {
  const int64_t i = internal::CopyBlocks128Avx2<kStream>(src, dst, bytes);
  std::memcpy(dst + i, src + i, bytes - i);
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

// Transposed: columns a0..a0 + 3 of the tile's rows k, k + 4, k + 8 and
// k + 12 (k < 4) in the four lanes of r[k]; the two in-lane rounds leave
// column a0 + c whole in out[c].
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
#pragma GCC unroll 4
  for (int a0 = 0; a0 < 16; a0 += 4) {
    __m512 r[4];
    auto quarter = [&](int row) __attribute__((target("avx512f"), always_inline)) {
      return _mm_loadu_ps(reinterpret_cast<const float*>(s + row * ssb + a0 * 4));
    };
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) {
      __m512 v = _mm512_castps128_ps512(quarter(k));
      v = _mm512_insertf32x4(v, quarter(k + 4), 1);
      v = _mm512_insertf32x4(v, quarter(k + 8), 2);
      r[k] = _mm512_insertf32x4(v, quarter(k + 12), 3);
    }
    const __m512 t0 = _mm512_unpacklo_ps(r[0], r[1]), t1 = _mm512_unpackhi_ps(r[0], r[1]);
    const __m512 t2 = _mm512_unpacklo_ps(r[2], r[3]), t3 = _mm512_unpackhi_ps(r[2], r[3]);
    const __m512 out[4] = {_mm512_shuffle_ps(t0, t2, 0x44), _mm512_shuffle_ps(t0, t2, 0xEE),
                           _mm512_shuffle_ps(t1, t3, 0x44), _mm512_shuffle_ps(t1, t3, 0xEE)};
#pragma GCC unroll 4
    for (int c = 0; c < 4; ++c) StoreLine512<kStream>(d + (a0 + c) * dsa, out[c]);
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

}  // namespace

bool CanMoveTiles(TileMove move) {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  return move == TileMove::kAvx512 ? avx512 : avx2;
}

bool TransposeTiles(TileMove move, const void* src, void* dst, int64_t na, int64_t nb,
                    int64_t ssb, int64_t dsa, int64_t strip_rows, bool streaming) {
  const bool aligned = reinterpret_cast<uintptr_t>(dst) % 64 == 0 && dsa % 64 == 0;
  if (na < 0 || nb < 0 || na % 16 != 0 || nb % 16 != 0 || strip_rows <= 0 ||
      strip_rows % 16 != 0 || !CanMoveTiles(move) || (streaming && !aligned)) {
    return false;
  }
  const char* s = static_cast<const char*>(src);
  char* d = static_cast<char*>(dst);
  auto run = [&](auto sweep_stream, auto sweep) {
    (streaming ? sweep_stream : sweep)(s, d, na, nb, ssb, dsa, strip_rows);
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
  return true;
}

void StreamingCopy(const void* src, void* dst, int64_t bytes) { Copy<true>(src, dst, bytes); }

void VectorCopy(const void* src, void* dst, int64_t bytes) { Copy<false>(src, dst, bytes); }

}  // namespace xla_layout
