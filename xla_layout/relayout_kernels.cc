#include "xla_layout/relayout_kernels.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <utility>

#include "xla_layout/fill_kernels.h"
#include "xla_layout/interleave_kernels.h"
#include "xla_layout/kernel_tuning.h"
#include "xla_layout/large_copy_kernels.h"
#include "xla_layout/short_row_transposes.h"
#include "xla_layout/simd_copy.h"
#include "xla_layout/simd_transpose.h"
#include "xla_layout/transpose_permute.h"

namespace xla_layout::internal {
namespace {

// Elements of 16 bytes (c128) move as one trivially copyable value.
struct Bytes16 {
  uint64_t lo, hi;
};

// Square blocks of this many elements keep both sides of a transpose in L1.
constexpr int64_t kBlock = 64;

template <typename T>
void TransposeScalarT(const char* src, char* dst, int64_t na, int64_t nb,
                      int64_t ssb, int64_t dsa) {
  for (int64_t a0 = 0; a0 < na; a0 += kBlock) {
    int64_t a1 = std::min(na, a0 + kBlock);
    for (int64_t b0 = 0; b0 < nb; b0 += kBlock) {
      int64_t b1 = std::min(nb, b0 + kBlock);
      for (int64_t a = a0; a < a1; ++a) {
        T* out = reinterpret_cast<T*>(dst + a * dsa);
        const char* in = src + a * sizeof(T);
        for (int64_t b = b0; b < b1; ++b) {
          std::memcpy(&out[b], in + b * ssb, sizeof(T));
        }
      }
    }
  }
}

void TransposeScalarAny(const char* src, char* dst, int64_t na, int64_t nb,
                        int64_t ssb, int64_t dsa, int es) {
  for (int64_t a = 0; a < na; ++a) {
    for (int64_t b = 0; b < nb; ++b) {
      std::memcpy(dst + a * dsa + b * es, src + a * es + b * ssb, es);
    }
  }
}

void TransposeScalar(const char* src, char* dst, int64_t na, int64_t nb,
                     int64_t ssb, int64_t dsa, int es, bool /*streaming*/ = false) {
  switch (es) {
    case 1:
      return TransposeScalarT<uint8_t>(src, dst, na, nb, ssb, dsa);
    case 2:
      return TransposeScalarT<uint16_t>(src, dst, na, nb, ssb, dsa);
    case 4:
      return TransposeScalarT<uint32_t>(src, dst, na, nb, ssb, dsa);
    case 8:
      return TransposeScalarT<uint64_t>(src, dst, na, nb, ssb, dsa);
    case 16:
      return TransposeScalarT<Bytes16>(src, dst, na, nb, ssb, dsa);
    default:
      return TransposeScalarAny(src, dst, na, nb, ssb, dsa, es);
  }
}

void CopyScalar(const char* src, char* dst, int64_t rows, int64_t bytes,
                int64_t src_stride, int64_t dst_stride, bool) {
  for (int64_t r = 0; r < rows; ++r) {
    std::memcpy(dst + r * dst_stride, src + r * src_stride, bytes);
  }
}

// ---------------------------------------------------------------------------
// AVX2

template <bool kStream>
__attribute__((target("avx2"))) inline void Store8(float* p, __m256 v) {
  Store32Avx2<kStream>(p, _mm256_castps_si256(v));
}

// Stores v[a] (and then w[a], when given) at the start of destination row
// a, for a = 0..7; rows come in groups of kGroup, dsa apart within a group
// and dsg from one group to the next (narrow tiles: the rows of a tile,
// then the next tile). Expanded over constant indices, not written as a
// loop: GCC keeps a loop's register arrays on the stack, so each transposed
// row would go through memory twice more.
template <bool kStream, int64_t kGroup, size_t... kRows>
__attribute__((target("avx2"), always_inline)) inline void StoreRows(
    char* dst, int64_t dsa, int64_t dsg, const __m256* v, const __m256* w,
    std::index_sequence<kRows...>) {
  auto store = [&](size_t a) __attribute__((target("avx2"), always_inline)) {
    float* row = reinterpret_cast<float*>(dst + (a / kGroup) * dsg + (a % kGroup) * dsa);
    Store8<kStream>(row, v[a]);
    if (w != nullptr) Store8<kStream>(row + 8, w[a]);
  };
  (store(kRows), ...);
}

template <bool kStream>
__attribute__((target("avx2"), always_inline)) inline void StoreRows8(
    char* dst, int64_t dsa, const __m256* v, const __m256* w = nullptr) {
  StoreRows<kStream, 8>(dst, dsa, 0, v, w, std::make_index_sequence<8>());
}

template <bool kStream>
__attribute__((target("avx2"))) inline void Transpose8x8Avx2(
    const char* src, char* dst, int64_t ssb, int64_t dsa) {
  __m256 out[8];
  Transpose8x8ToRegs(src, ssb, out);
  StoreRows8<kStream>(dst, dsa, out);
}

// 8 rows of a by 16 of b: each destination row gets one whole 64-byte line,
// written by two adjacent stores, so streaming stores fill their
// write-combining buffers completely. Rows in groups as for StoreRows.
template <bool kStream, int64_t kGroup = 8>
__attribute__((target("avx2"))) inline void Transpose8x16Avx2(
    const char* src, char* dst, int64_t ssb, int64_t dsa, int64_t dsg = 0) {
  __m256 lo[8], hi[8];
  Transpose8x8ToRegs(src, ssb, lo);
  Transpose8x8ToRegs(src + 8 * ssb, ssb, hi);
  StoreRows<kStream, kGroup>(dst, dsa, dsg, lo, hi, std::make_index_sequence<8>());
}

// 8 rows of b by 4 of a: the rows meet in pairs, row b and row b + 4 in the
// two halves of one register, so a 4x4 transpose per half gives each of the
// 4 destination rows its 8 elements in one register. Narrow tiles
// (T(4,128)) and the last 4 to 7 rows of a wide transpose take this block.
template <bool kStream>
__attribute__((target("avx2"))) inline void Transpose4x8Avx2(
    const char* src, char* dst, int64_t ssb, int64_t dsa) {
  auto pair = [&](int b) __attribute__((target("avx2"), always_inline)) {
    const __m128 lo = _mm_loadu_ps(reinterpret_cast<const float*>(src + b * ssb));
    const __m128 hi = _mm_loadu_ps(reinterpret_cast<const float*>(src + (b + 4) * ssb));
    return _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
  };
  const __m256 r0 = pair(0), r1 = pair(1), r2 = pair(2), r3 = pair(3);
  const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
  const __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
  Store8<kStream>(reinterpret_cast<float*>(dst), _mm256_shuffle_ps(t0, t2, 0x44));
  Store8<kStream>(reinterpret_cast<float*>(dst + dsa), _mm256_shuffle_ps(t0, t2, 0xEE));
  Store8<kStream>(reinterpret_cast<float*>(dst + 2 * dsa), _mm256_shuffle_ps(t1, t3, 0x44));
  Store8<kStream>(reinterpret_cast<float*>(dst + 3 * dsa), _mm256_shuffle_ps(t1, t3, 0xEE));
}

// 8 rows of b by 2 of a (T(2,128) tiles): rows b and b + 1 share a half
// register, rows b + 4 and b + 5 the other half, so one shuffle gathers
// each destination row's 8 elements.
template <bool kStream>
__attribute__((target("avx2"))) inline void Transpose2x8Avx2(
    const char* src, char* dst, int64_t ssb, int64_t dsa) {
  auto two = [&](int b) __attribute__((target("avx2"), always_inline)) {
    const __m128 lo = _mm_castsi128_ps(
        _mm_loadl_epi64(reinterpret_cast<const __m128i*>(src + b * ssb)));
    const __m128 hi = _mm_castsi128_ps(
        _mm_loadl_epi64(reinterpret_cast<const __m128i*>(src + (b + 1) * ssb)));
    return _mm_movelh_ps(lo, hi);  // row b's pair, then row b + 1's
  };
  const __m256 u01 = _mm256_insertf128_ps(_mm256_castps128_ps256(two(0)), two(4), 1);
  const __m256 u23 = _mm256_insertf128_ps(_mm256_castps128_ps256(two(2)), two(6), 1);
  Store8<kStream>(reinterpret_cast<float*>(dst), _mm256_shuffle_ps(u01, u23, 0x88));
  Store8<kStream>(reinterpret_cast<float*>(dst + dsa), _mm256_shuffle_ps(u01, u23, 0xDD));
}

// A transpose of 32-bit elements with few rows of a (na < 8 here, or the
// rows a wide transpose leaves): 4x8 blocks, then a row of 2x8 blocks, then
// element by element.
template <bool kStream>
__attribute__((target("avx2"))) void Transpose32Avx2Narrow(
    const char* src, char* dst, int64_t na, int64_t nb, int64_t ssb,
    int64_t dsa) {
  const int64_t na4 = na & ~int64_t{3}, na2 = na & ~int64_t{1}, nb8 = nb & ~int64_t{7};
  for (int64_t a = 0; a < na4; a += 4) {
    for (int64_t b = 0; b < nb8; b += 8) {
      Transpose4x8Avx2<kStream>(src + a * 4 + b * ssb, dst + a * dsa + b * 4, ssb, dsa);
    }
  }
  if (na4 < na2) {
    for (int64_t b = 0; b < nb8; b += 8) {
      Transpose2x8Avx2<kStream>(src + na4 * 4 + b * ssb, dst + na4 * dsa + b * 4, ssb, dsa);
    }
  }
  if (nb8 < nb) {
    TransposeScalarT<uint32_t>(src + nb8 * ssb, dst + nb8 * 4, na2, nb - nb8, ssb, dsa);
  }
  if (na2 < na) {
    TransposeScalarT<uint32_t>(src + na2 * 4, dst + na2 * dsa, na - na2, nb, ssb, dsa);
  }
}

// What the strips' whole 16x16 tiles leave of a transpose: 8x8 blocks where
// they fit, then element by element.
__attribute__((target("avx2"))) void Transpose32Avx2Edges(const char* src, char* dst,
                                                         int64_t na, int64_t nb, int64_t ssb,
                                                         int64_t dsa) {
  const int64_t na16 = na & ~int64_t{15}, nb16 = nb & ~int64_t{15};
  const int64_t na8 = na & ~int64_t{7}, nb8 = nb & ~int64_t{7};
  for (int64_t a = 0; a < na8; a += 8) {
    for (int64_t b = (a < na16 ? nb16 : 0); b < nb8; b += 8) {
      Transpose8x8Avx2<false>(src + a * 4 + b * ssb, dst + a * dsa + b * 4, ssb, dsa);
    }
  }
  if (nb8 < nb) {
    TransposeScalarT<uint32_t>(src + nb8 * ssb, dst + nb8 * 4, na8, nb - nb8, ssb, dsa);
  }
  if (na8 < na) {
    Transpose32Avx2Narrow<false>(src + na8 * 4, dst + na8 * dsa, na - na8, nb, ssb, dsa);
  }
}

// The rows of b in a strip of a transpose in cache: about 64 KiB of source
// rows, 16 to 256 (why: Transpose32Avx2Strips).
inline int64_t InCacheStripRows(int64_t ssb) {
  return std::clamp<int64_t>((int64_t{64} << 10) / std::max<int64_t>(ssb, 1) / 16 * 16, 16, 256);
}

// Strips of 16 along a sweep all of b in 16x16 tiles, so each tile reads 16
// whole source lines and writes 16 whole destination lines (64 bytes each):
// no line is touched twice, whatever the strides, and full lines suit
// streaming stores.
template <bool kStream>
__attribute__((target("avx2"))) void Transpose32Avx2Strips(
    const char* src, char* dst, int64_t na, int64_t nb, int64_t ssb,
    int64_t dsa) {
  const int64_t na16 = na & ~int64_t{15}, nb16 = nb & ~int64_t{15};
  // From memory, a strip sweeps at most 256 source rows (16 on Intel when
  // there are more: StreamsInShortStrips), so the pages it reads stay in
  // the TLB, and each tile fetches into L2 the lines its own 16 rows need
  // two tiles along a: a whole strip of tiles ahead, where the
  // next tile's lines down the strip came too late to hide DRAM. The fetch
  // runs past na, since an interleaved plan calls this on chunks of a row
  // that goes on (a fetch past the source is dropped, never a fault); 16
  // rows fetch nothing: the hardware follows 16 streams alone, and the
  // fetches got in its way (docs/benchmarks.md, "On Zen 5"). In cache, a
  // strip holds about 64 KiB of source rows (16 at least): each destination
  // row then gets a run of lines, not one, which the hardware's prefetch
  // follows (f32[512,256] to {0,1}, 1 KiB rows: 64-row strips 0.48x ->
  // 0.80x of memcpy), while rows of 4 KB stay in strips of 16, which
  // measured best on them; 256-row strips fetching ahead measured no faster
  // in L3 (f32[1000,1000]) and slower on short rows (f32[2000,300]).
  const int64_t stream_rows = nb > 256 && StreamsInShortStrips() ? 16 : 256;
  const int64_t strip_rows = kStream ? stream_rows : InCacheStripRows(ssb);
  auto tile = [&](int64_t a, int64_t b) __attribute__((target("avx2"), always_inline)) {
    const char* s = src + a * 4 + b * ssb;
    char* d = dst + a * dsa + b * 4;
    Transpose8x16Avx2<kStream>(s, d, ssb, dsa);
    Transpose8x16Avx2<kStream>(s + 32, d + 8 * dsa, ssb, dsa);
  };
  // Two tiles down b: each of the 16 destination rows gets 128 bytes at a
  // visit, 8 rows at a time, where a tile gives it one line.
  auto pair = [&](int64_t a, int64_t b) __attribute__((target("avx2"), always_inline)) {
    const char* s = src + a * 4 + b * ssb;
    char* d = dst + a * dsa + b * 4;
    for (int half = 0; half < 2; ++half, s += 32, d += 8 * dsa) {
      Transpose8x16Avx2<kStream>(s, d, ssb, dsa);
      Transpose8x16Avx2<kStream>(s + 16 * ssb, d + 64, ssb, dsa);
    }
  };
  // Streaming onto destination rows of at most 1 KiB (every row of b in
  // one strip, the strip's tiles lines apart), the sweep goes by chunks of
  // kStreamChunk along a, a band of 16 rows at a time, with no fetch: each
  // source row is then read 4 KiB at a go, where a sweep down the strip
  // reads 64 bytes of each in turn, and DRAM serves one core many rows read
  // 64 bytes at a time at about half the rate of longer visits. Rows
  // further apart keep the sweep, since there the chunks scatter the
  // destination's lines, and so do the short calls of an interleaved plan,
  // where a chunk is cut to a few tiles (figures: docs/benchmarks.md,
  // "Stop 42, same machine"). On AMD, rows of at most 512 bytes go by
  // strips of 16 along the whole row instead (TakesStripsOf16): 16 rows
  // read along their whole length are 16 streams the hardware prefetcher
  // follows, and measured faster (kernel_tuning.h, SweepsShortRowsInStrips).
  constexpr int64_t kStreamChunk = 1024;
  if (kStream && TakesStripsOf16(na16, nb16, dsa)) {
    StreamStripsOf16(src, dst, na16, nb16, ssb, dsa);
  } else if (kStream && dsa <= 1024 && nb16 > 16 && na16 >= 2 * kStreamChunk) {
    for (int64_t a0 = 0; a0 < na16; a0 += kStreamChunk) {
      const int64_t a1 = std::min(na16, a0 + kStreamChunk);
      for (int64_t b = 0; b < nb16; b += 16) {
        for (int64_t a = a0; a < a1; a += 16) tile(a, b);
      }
    }
  } else if (kStream && strip_rows == 16) {
    // Intel's short strips, two at a time: lone 64-byte streaming stores
    // to rows kilobytes apart ran at 0.90x of memcpy in a harness, pairs
    // of them at 0.98x (docs/benchmarks.md, "Stop 47, same machine").
    for (int64_t b = 0; b < nb16; b += 32) {
      for (int64_t a = 0; a < na16; a += 16) b + 32 <= nb16 ? pair(a, b) : tile(a, b);
    }
  } else {
    const bool fetch = kStream && nb16 > 16 && strip_rows > 16;
    const bool claim = !kStream && ClaimsDestinationAhead(na16 * dsa);
    for (int64_t b0 = 0; b0 < nb16; b0 += strip_rows) {
      const int64_t b1 = std::min(nb16, b0 + strip_rows);
      for (int64_t a = 0; a < na16; a += 16) {
        for (int64_t b = b0; b < b1; b += 16) {
          if (fetch) {
            for (int r = 0; r < 16; ++r) {
              _mm_prefetch(src + (a + 32) * 4 + (b + r) * ssb, _MM_HINT_T1);
            }
          }
          if (claim && b + strip_rows < nb16) {
            char* ahead = dst + a * dsa + (b + strip_rows) * 4;
            for (int r = 0; r < 16; ++r) asm volatile("prefetchw %0" : : "m"(ahead[r * dsa]));
          }
          tile(a, b);
        }
      }
    }
  }
  Transpose32Avx2Edges(src, dst, na, nb, ssb, dsa);
}

// The rows of a come in groups (tiles): ng groups of ga rows, dsa apart in
// a group and dsg between groups; in the source a runs on across groups.
// 16x16 blocks of 32-bit elements, as in the strips above: each block
// reads 16 whole source lines and writes 16 whole destination lines of 64
// bytes, however narrow the tiles, so a sweep along the source rows reads
// every line once. Needs 16 % ga == 0 and nb % 16 == 0; kStream needs
// 32-byte aligned destination rows.
template <bool kStream, int64_t kGroup>
__attribute__((target("avx2"))) void Transpose32Avx2Grouped(
    const char* src, char* dst, int64_t na, int64_t nb, int64_t ssb, int64_t dsa,
    int64_t dsg) {
  constexpr int64_t kGroupsPerHalf = 8 / kGroup;
  auto tile = [&](int64_t a, int64_t b) __attribute__((target("avx2"), always_inline)) {
    const char* s = src + a * 4 + b * ssb;
    char* d = dst + (a / kGroup) * dsg + b * 4;
    Transpose8x16Avx2<kStream, kGroup>(s, d, ssb, dsa, dsg);
    Transpose8x16Avx2<kStream, kGroup>(s + 32, d + kGroupsPerHalf * dsg, ssb, dsa, dsg);
  };
  // Two tiles down b, as the plain strips' pairs.
  auto pair = [&](int64_t a, int64_t b) __attribute__((target("avx2"), always_inline)) {
    const char* s = src + a * 4 + b * ssb;
    char* d = dst + (a / kGroup) * dsg + b * 4;
    for (int half = 0; half < 2; ++half, s += 32, d += kGroupsPerHalf * dsg) {
      Transpose8x16Avx2<kStream, kGroup>(s, d, ssb, dsa, dsg);
      Transpose8x16Avx2<kStream, kGroup>(s + 16 * ssb, d + 64, ssb, dsa, dsg);
    }
  };
  // Streaming, the rows come in strips (TallerGroupedBlocks), swept down 16
  // columns at a time, fetching two tiles ahead, past na too, as the plain
  // strips of more than 16 rows do; on Intel 32 rows at a time along the
  // whole of a instead, in pairs of tiles with no fetch, as the plain
  // strips do there (StreamsInShortStrips). In cache, a call of more than
  // 16 rows (Intel's taller blocks) goes down them 16 columns at a time
  // with no fetch: each destination tile row then gets nb * 4 bytes in one
  // run, where a sweep along a writes one line of each in turn.
  if (kStream && !StreamsInShortStrips()) {
    for (int64_t a = 0; a + 16 <= na; a += 16) {
      for (int64_t b = 0; b < nb; b += 16) {
        for (int r = 0; r < 16; ++r) {
          _mm_prefetch(src + (a + 32) * 4 + (b + r) * ssb, _MM_HINT_T1);
        }
        tile(a, b);
      }
    }
    return;
  }
  if (!kStream) {
    for (int64_t a = 0; a + 16 <= na; a += 16) {
      for (int64_t b = 0; b < nb; b += 16) tile(a, b);
    }
    return;
  }
  for (int64_t b = 0; b < nb; b += 32) {
    for (int64_t a = 0; a + 16 <= na; a += 16) b + 32 <= nb ? pair(a, b) : tile(a, b);
  }
}

// A 16x16 block of bytes: 16 source rows (16 bytes of a each, at stride
// ssb) become 16 destination rows (16 bytes of b each, at stride dsa), in
// four rounds of unpacks (bytes, words, dwords, qwords).
__attribute__((target("avx2"))) inline void Transpose16x16Bytes(const char* src,
                                                                char* dst, int64_t ssb,
                                                                int64_t dsa) {
  __m128i r[16], x[16], y[16];
  for (int i = 0; i < 16; ++i) {
    r[i] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i * ssb));
  }
  // x[8h + k]: rows 2k, 2k+1 interleaved, columns 8h..8h+7.
  for (int k = 0; k < 8; ++k) {
    x[k] = _mm_unpacklo_epi8(r[2 * k], r[2 * k + 1]);
    x[8 + k] = _mm_unpackhi_epi8(r[2 * k], r[2 * k + 1]);
  }
  // y[8h + 4q + k]: rows 4k..4k+3, columns 8h + 4q .. +3.
  for (int h = 0; h < 2; ++h) {
    for (int k = 0; k < 4; ++k) {
      y[8 * h + k] = _mm_unpacklo_epi16(x[8 * h + 2 * k], x[8 * h + 2 * k + 1]);
      y[8 * h + 4 + k] = _mm_unpackhi_epi16(x[8 * h + 2 * k], x[8 * h + 2 * k + 1]);
    }
  }
  // x[g + 2p + k] (g = 8h + 4q): rows 8k..8k+7, columns 8h + 4q + 2p, +1.
  for (int g = 0; g < 16; g += 4) {
    for (int k = 0; k < 2; ++k) {
      x[g + k] = _mm_unpacklo_epi32(y[g + 2 * k], y[g + 2 * k + 1]);
      x[g + 2 + k] = _mm_unpackhi_epi32(y[g + 2 * k], y[g + 2 * k + 1]);
    }
  }
  for (int g = 0; g < 16; g += 4) {
    for (int p = 0; p < 2; ++p) {
      const int column = g + 2 * p;  // 8h + 4q + 2p
      const __m128i lo = x[g + 2 * p], hi = x[g + 2 * p + 1];
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + column * dsa),
                       _mm_unpacklo_epi64(lo, hi));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + (column + 1) * dsa),
                       _mm_unpackhi_epi64(lo, hi));
    }
  }
}

// Byte transposes in 16x16 blocks, in strips of source rows as the 32-bit
// kernel does; the edges go element by element.
__attribute__((target("avx2"))) void Transpose8Avx2Strips(const char* src, char* dst,
                                                         int64_t na, int64_t nb,
                                                         int64_t ssb, int64_t dsa) {
  const int64_t na16 = na & ~int64_t{15}, nb16 = nb & ~int64_t{15};
  constexpr int64_t kStripRows = 256;
  for (int64_t b0 = 0; b0 < nb16; b0 += kStripRows) {
    const int64_t b1 = std::min(nb16, b0 + kStripRows);
    for (int64_t a = 0; a < na16; a += 16) {
      for (int64_t b = b0; b < b1; b += 16) {
        Transpose16x16Bytes(src + a + b * ssb, dst + a * dsa + b, ssb, dsa);
      }
    }
  }
  if (nb16 < nb) {
    TransposeScalarT<uint8_t>(src + nb16 * ssb, dst + nb16, na16, nb - nb16, ssb, dsa);
  }
  if (na16 < na) {
    TransposeScalarT<uint8_t>(src + na16, dst + na16 * dsa, na - na16, nb, ssb, dsa);
  }
}

__attribute__((target("avx2"))) void TransposeAvx2(const char* src, char* dst,
                                                   int64_t na, int64_t nb,
                                                   int64_t ssb, int64_t dsa,
                                                   int es, bool streaming) {
  if (es == 4 && nb == 3 && dsa == 12) return Interleave3x32Avx2(src, dst, na, ssb, streaming);
  if (es == 4 && na >= 2 && nb >= 8) {
    // Streaming needs 32-byte aligned rows; the tiles keep that alignment.
    const uintptr_t at = reinterpret_cast<uintptr_t>(dst);
    if (na < 8) {
      return streaming && (at & 31) == 0 && dsa % 32 == 0
                 ? Transpose32Avx2Narrow<true>(src, dst, na, nb, ssb, dsa)
                 : Transpose32Avx2Narrow<false>(src, dst, na, nb, ssb, dsa);
    }
    // The strips' streaming stores need whole lines: on rows that start
    // mid-line, each line is half written by one tile and half by the next,
    // and those partial non-temporal writes ran f32[4104,4096] to {0,1} at
    // 0.34x of memcpy, against 0.56x with ordinary stores.
    if (streaming && (at & 63) == 0 && dsa % 64 == 0) {
      return Transpose32Avx2Strips<true>(src, dst, na, nb, ssb, dsa);
    }
    return Transpose32Avx2Strips<false>(src, dst, na, nb, ssb, dsa);
  }
  if (IsRowPairInterleave(nb, dsa, es)) {
    return InterleaveRowPairs(src, dst, 1, 0, 0, na, ssb, streaming, /*avx512=*/false);
  }
  if (es == 1 && na >= 16 && nb >= 16) {
    return Transpose8Avx2Strips(src, dst, na, nb, ssb, dsa);
  }
  TransposeScalar(src, dst, na, nb, ssb, dsa, es);
}

// Runs up to this size are copied inline: for a 512-byte tile row, glibc's
// memcpy spends about as many instructions choosing its path as moving the
// bytes, and a tiling in cache is bound by instructions.
constexpr int64_t kInlineRunBytes = 2048;

__attribute__((target("avx2"))) inline void CopyShortAvx2(const char* src,
                                                         char* dst,
                                                         int64_t bytes) {
  int64_t i = CopyBlocks128Avx2<false>(src, dst, bytes);
  for (; i + 32 <= bytes; i += 32) {
    _mm256_storeu_si256(
        reinterpret_cast<__m256i*>(dst + i),
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i)));
  }
  if (i < bytes) std::memcpy(dst + i, src + i, bytes - i);
}

__attribute__((target("avx2"))) inline void CopyRunAvx2(const char* src,
                                                       char* dst,
                                                       int64_t bytes,
                                                       bool streaming) {
  if (!streaming || bytes < 64) {
    if (bytes >= 32 && bytes <= kInlineRunBytes) {
      CopyShortAvx2(src, dst, bytes);
    } else {
      std::memcpy(dst, src, bytes);
    }
    return;
  }
  int64_t head = (32 - (reinterpret_cast<uintptr_t>(dst) & 31)) & 31;
  std::memcpy(dst, src, head);
  int64_t i = head;
  for (; i + 64 <= bytes; i += 64) {
    __m256i v0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
    __m256i v1 =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i + 32));
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i), v0);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i + 32), v1);
  }
  std::memcpy(dst + i, src + i, bytes - i);
}

// Rows of kBytes each (the lines of a small tile: 16 to 512 bytes), the
// size known to the compiler: a row costs its loads and stores and one step
// of the loop, where the general path spends about as many instructions
// choosing how to copy a 32-byte row as copying it.
template <int64_t kBytes>
__attribute__((target("avx2"))) void CopyRowsAvx2(const char* src, char* dst, int64_t rows,
                                                  int64_t src_stride, int64_t dst_stride) {
  for (int64_t r = 0; r < rows; ++r) {
    const char* s = src + r * src_stride;
    char* d = dst + r * dst_stride;
    if constexpr (kBytes == 16) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d),
                       _mm_loadu_si128(reinterpret_cast<const __m128i*>(s)));
    } else {
      for (int64_t i = 0; i < kBytes; i += 32) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i),
                            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i)));
      }
    }
  }
}

// Whether rows of `bytes` went through CopyRowsAvx2 (in cache, sizes that
// are tile lines); returns false for the general path.
__attribute__((target("avx2"))) inline bool CopyTileRowsAvx2(const char* src, char* dst,
                                                            int64_t rows, int64_t bytes,
                                                            int64_t src_stride,
                                                            int64_t dst_stride) {
  switch (bytes) {
    case 16: CopyRowsAvx2<16>(src, dst, rows, src_stride, dst_stride); return true;
    case 32: CopyRowsAvx2<32>(src, dst, rows, src_stride, dst_stride); return true;
    case 64: CopyRowsAvx2<64>(src, dst, rows, src_stride, dst_stride); return true;
    case 128: CopyRowsAvx2<128>(src, dst, rows, src_stride, dst_stride); return true;
    case 256: CopyRowsAvx2<256>(src, dst, rows, src_stride, dst_stride); return true;
    case 512: CopyRowsAvx2<512>(src, dst, rows, src_stride, dst_stride); return true;
    default: return false;
  }
}

// Planes of tile rows: the size switch once, then every plane.
template <int64_t kBytes>
__attribute__((target("avx2"))) void CopyRowPlanesAvx2(const char* src, char* dst,
                                                       int64_t planes, int64_t plane_src,
                                                       int64_t plane_dst, int64_t rows,
                                                       int64_t src_stride,
                                                       int64_t dst_stride) {
  for (int64_t p = 0; p < planes; ++p) {
    CopyRowsAvx2<kBytes>(src + p * plane_src, dst + p * plane_dst, rows, src_stride,
                         dst_stride);
  }
}

__attribute__((target("avx2"))) void CopyAvx2(const char* src, char* dst,
                                              int64_t rows, int64_t bytes,
                                              int64_t src_stride,
                                              int64_t dst_stride,
                                              bool streaming) {
  if (!streaming && CopyTileRowsAvx2(src, dst, rows, bytes, src_stride, dst_stride)) return;
  for (int64_t r = 0; r < rows; ++r) {
    // Runs usually continue where the next call reads (the next tile of the
    // same source rows): fetch that part while this one is copied.
    if (streaming && rows > 1) {
      for (int64_t k = 0; k < bytes; k += 64) {
        _mm_prefetch(src + r * src_stride + bytes + k, _MM_HINT_T0);
      }
    }
    CopyRunAvx2(src + r * src_stride, dst + r * dst_stride, bytes, streaming);
  }
}

// ---------------------------------------------------------------------------
// AVX-512

// The AVX-512 path moves contiguous runs with 512-bit streaming stores,
// interleaves 16-bit pairs with 512-bit word permutes (interleave_kernels.h),
// and builds 32-bit transposes in cache from 8x8 blocks of two-source
// permutes (transpose_permute.h: the panels' planes, the strips' whole
// tiles). Streaming transposes, the grouped tiles, the strips' edges and
// blocks narrower than 16 keep the AVX2 tiles; a 16x16 transpose of in-lane
// 512-bit shuffles did about twice the shuffle work of four 8x8 AVX2 ones
// on Zen 4 and measured no faster on Zen 5 (docs/benchmarks.md).

__attribute__((target("avx512f"))) inline void CopyRunAvx512(
    const char* src, char* dst, int64_t bytes, bool streaming) {
  if (!streaming || bytes < 64) {
    return CopyRunAvx2(src, dst, bytes, false);
  }
  int64_t head = (64 - (reinterpret_cast<uintptr_t>(dst) & 63)) & 63;
  std::memcpy(dst, src, head);
  int64_t i = head;
  for (; i + 64 <= bytes; i += 64) {
    _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + i),
                        _mm512_loadu_si512(src + i));
  }
  std::memcpy(dst + i, src + i, bytes - i);
}

__attribute__((target("avx512f"))) void CopyAvx512(
    const char* src, char* dst, int64_t rows, int64_t bytes,
    int64_t src_stride, int64_t dst_stride, bool streaming) {
  if (!streaming && CopyTileRowsAvx2(src, dst, rows, bytes, src_stride, dst_stride)) return;
  for (int64_t r = 0; r < rows; ++r) {
    // Runs usually continue where the next call reads (the next tile of the
    // same source rows): fetch that part while this one is copied.
    if (streaming && rows > 1) {
      for (int64_t k = 0; k < bytes; k += 64) {
        _mm_prefetch(src + r * src_stride + bytes + k, _MM_HINT_T0);
      }
    }
    CopyRunAvx512(src + r * src_stride, dst + r * dst_stride, bytes,
                  streaming);
  }
}

bool HasAvx512Bw() {
  static const bool bw = __builtin_cpu_supports("avx512bw");
  return bw;
}

__attribute__((target("avx512f"))) void TransposeAvx512(
    const char* src, char* dst, int64_t na, int64_t nb, int64_t ssb,
    int64_t dsa, int es, bool streaming) {
  if (HasAvx512Bw() && IsRowPairInterleave(nb, dsa, es)) {
    return InterleaveRowPairs(src, dst, 1, 0, 0, na, ssb, streaming, /*avx512=*/true);
  }
  // In cache, the AVX2 strips' tiles from permute blocks; where Intel
  // claims destination lines ahead, the AVX2 strips keep doing so.
  const int64_t na16 = na & ~int64_t{15}, nb16 = nb & ~int64_t{15};
  if (es == 4 && na16 > 0 && nb16 > 0 && !streaming && !ClaimsDestinationAhead(na16 * dsa)) {
    TransposeStripsPermute(src, dst, na16, nb16, ssb, dsa, InCacheStripRows(ssb));
    return Transpose32Avx2Edges(src, dst, na, nb, ssb, dsa);
  }
  TransposeAvx2(src, dst, na, nb, ssb, dsa, es, streaming);
}

// Group by group, with the set's own transpose.
template <TransposeFn kTranspose>
void TransposeGroupsEach(const char* src, char* dst, int64_t ng, int64_t ga, int64_t nb,
                         int64_t ssb, int64_t dsa, int64_t dsg, int es, bool streaming) {
  for (int64_t g = 0; g < ng; ++g) {
    kTranspose(src + g * ga * es, dst + g * dsg, ga, nb, ssb, dsa, es, streaming);
  }
}

template <TransposeFn kTranspose>
__attribute__((target("avx2"))) void TransposeGroupedAvx2(
    const char* src, char* dst, int64_t ng, int64_t ga, int64_t nb, int64_t ssb,
    int64_t dsa, int64_t dsg, int es, bool streaming) {
  const int64_t blocked =
      HasGroupedTransposeKernel(Isa::kAvx2, ga, es) ? ng / (16 / ga) * (16 / ga) : 0;
  if (blocked == 0 || nb % 16 != 0) {
    return TransposeGroupsEach<kTranspose>(src, dst, ng, ga, nb, ssb, dsa, dsg, es, streaming);
  }
  const bool stream = streaming && (reinterpret_cast<uintptr_t>(dst) & 31) == 0 &&
                      dsa % 32 == 0 && dsg % 32 == 0;
  const int64_t na = blocked * ga;
  auto run = [&](auto group) __attribute__((target("avx2"))) {
    constexpr int64_t kGroup = decltype(group)::value;
    if (stream) return Transpose32Avx2Grouped<true, kGroup>(src, dst, na, nb, ssb, dsa, dsg);
    Transpose32Avx2Grouped<false, kGroup>(src, dst, na, nb, ssb, dsa, dsg);
  };
  switch (ga) {
    case 1: run(std::integral_constant<int64_t, 1>()); break;
    case 2: run(std::integral_constant<int64_t, 2>()); break;
    case 4: run(std::integral_constant<int64_t, 4>()); break;
    default: run(std::integral_constant<int64_t, 8>()); break;
  }
  TransposeGroupsEach<kTranspose>(src + na * es, dst + blocked * dsg, ng - blocked, ga, nb,
                                  ssb, dsa, dsg, es, streaming);
}

// Plane by plane, with the set's own kernel.
template <decltype(Kernels::copy) kCopy>
void CopyPlanesEach(const char* src, char* dst, int64_t planes, int64_t plane_src,
                    int64_t plane_dst, int64_t rows, int64_t bytes, int64_t src_stride,
                    int64_t dst_stride, bool streaming) {
  for (int64_t p = 0; p < planes; ++p) {
    kCopy(src + p * plane_src, dst + p * plane_dst, rows, bytes, src_stride, dst_stride,
          streaming);
  }
}

template <TransposeFn kTranspose>
void TransposePlanesEach(const char* src, char* dst, int64_t planes, int64_t plane_src,
                         int64_t plane_dst, int64_t na, int64_t nb, int64_t ssb, int64_t dsa,
                         int es, bool streaming) {
  for (int64_t p = 0; p < planes; ++p) {
    kTranspose(src + p * plane_src, dst + p * plane_dst, na, nb, ssb, dsa, es, streaming);
  }
}

// Rows of tile lines in cache go through CopyRowPlanesAvx2; the rest plane
// by plane through `kCopy`.
template <decltype(Kernels::copy) kCopy>
__attribute__((target("avx2"))) void CopyPlanesAvx2(const char* src, char* dst,
                                                    int64_t planes, int64_t plane_src,
                                                    int64_t plane_dst, int64_t rows,
                                                    int64_t bytes, int64_t src_stride,
                                                    int64_t dst_stride, bool streaming) {
  auto run = [&](auto size) __attribute__((target("avx2"))) {
    CopyRowPlanesAvx2<decltype(size)::value>(src, dst, planes, plane_src, plane_dst, rows,
                                             src_stride, dst_stride);
  };
  if (!streaming) {
    switch (bytes) {
      case 16: return run(std::integral_constant<int64_t, 16>());
      case 32: return run(std::integral_constant<int64_t, 32>());
      case 64: return run(std::integral_constant<int64_t, 64>());
      case 128: return run(std::integral_constant<int64_t, 128>());
      case 256: return run(std::integral_constant<int64_t, 256>());
      case 512: return run(std::integral_constant<int64_t, 512>());
      default: break;
    }
  }
  CopyPlanesEach<kCopy>(src, dst, planes, plane_src, plane_dst, rows, bytes, src_stride,
                        dst_stride, streaming);
}

// Blocks of 8 or 16 source rows of 32-bit elements in cache (the T(8,1),
// T(8,8), T(16,1) and T(16,16) tiles of CPU panels), 8 destination rows at
// a time straight to the register transpose, plane after plane (on the
// AVX-512 set, 8x8 blocks of two-source permutes: transpose_permute.h); other
// transposes plane by plane through `kTranspose`.
// Row-pair interleaves take every plane in one call, with the AVX-512 set's
// kernel when kAvx512 and the CPU has AVX-512BW (interleave_kernels.h).
template <TransposeFn kTranspose, bool kAvx512>
__attribute__((target("avx2"))) void TransposePlanesAvx2(const char* src, char* dst,
                                                         int64_t planes, int64_t plane_src,
                                                         int64_t plane_dst, int64_t na,
                                                         int64_t nb, int64_t ssb, int64_t dsa,
                                                         int es, bool streaming) {
  if (IsRowPairInterleave(nb, dsa, es)) {
    return InterleaveRowPairs(src, dst, planes, plane_src, plane_dst, na, ssb, streaming,
                              kAvx512 && HasAvx512Bw());
  }
  if (kAvx512 && !streaming && TakesTransposePlanes8x8(es, na, nb, Isa::kAvx512)) {
    return TransposePlanes8x8(src, dst, planes, plane_src, plane_dst, na, nb, ssb, dsa);
  }
  if (es == 4 && (nb == 8 || nb == 16) && na % 8 == 0 && !streaming) {
    for (int64_t p = 0; p < planes; ++p) {
      const char* s = src + p * plane_src;
      char* d = dst + p * plane_dst;
      for (int64_t a = 0; a < na; a += 8) {
        if (nb == 8) {
          Transpose8x8Avx2<false>(s + a * 4, d + a * dsa, ssb, dsa);
        } else {
          Transpose8x16Avx2<false>(s + a * 4, d + a * dsa, ssb, dsa);
        }
      }
    }
    return;
  }
  TransposePlanesEach<kTranspose>(src, dst, planes, plane_src, plane_dst, na, nb, ssb, dsa,
                                  es, streaming);
}

constexpr Kernels kScalar = {CopyScalar, TransposeScalar, TransposeGroupsEach<TransposeScalar>,
                             CopyPlanesEach<CopyScalar>, TransposePlanesEach<TransposeScalar>,
                             FillPlanesScalar};
constexpr Kernels kAvx2 = {LineRuns<CopyAvx2>, Staged<TransposeAvx2>,
                           TransposeGroupedAvx2<TransposeAvx2>, CopyPlanesAvx2<LineRuns<CopyAvx2>>,
                           TransposePlanesAvx2<Staged<TransposeAvx2>, false>, FillPlanesAvx2};
constexpr Kernels kAvx512 = {LineRuns<CopyAvx512>,
                             Staged<TransposeAvx512>,
                             TransposeGroupedAvx2<TransposeAvx512>,
                             CopyPlanesAvx2<LineRuns<CopyAvx512>>,
                             TransposePlanesAvx2<Staged<TransposeAvx512>, true>,
                             FillPlanesAvx2};

}  // namespace

const Kernels& KernelsFor(Isa isa) {
  switch (isa) {
    case Isa::kAvx512:
      return kAvx512;
    case Isa::kAvx2:
      return kAvx2;
    default:
      return kScalar;
  }
}

}  // namespace xla_layout::internal
