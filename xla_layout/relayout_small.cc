#include "xla_layout/relayout_small.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla_layout/transpose_nine.h"
#include "xla_layout/transpose_tiny.h"
#include "xla_layout/transpose_weights.h"

namespace xla_layout::internal {
namespace {

// Calls fn(s, d) for every step of loops[kFirst..kLast] of an op (loops
// before kFirst have extent 1), from the op's offsets. The loops are copied
// first: the stores through `dst` may alias the op for all the compiler
// knows, and a reload of a field after a store whose address matches it
// modulo 4 KiB (destinations are often page-aligned) waits for that store.
template <int kFirst, int kLast, typename Fn>
__attribute__((always_inline)) inline void ForLoops(const SmallOp& op, const char* src,
                                                    char* dst, Fn fn) {
  // Loops outside [kFirst, kLast] become constant single steps, which the
  // compiler folds away.
  auto loop = [&](int k) { return kFirst <= k && k <= kLast ? op.loops[k] : Loop{1, 0, 0}; };
  const Loop l0 = loop(0), l1 = loop(1), l2 = loop(2);
  const char* s0 = src + op.src_offset;
  char* d0 = dst + op.dst_offset;
  for (int64_t i = 0; i < l0.extent; ++i, s0 += l0.src, d0 += l0.dst) {
    const char* s1 = s0;
    char* d1 = d0;
    for (int64_t j = 0; j < l1.extent; ++j, s1 += l1.src, d1 += l1.dst) {
      const char* s2 = s1;
      char* d2 = d1;
      for (int64_t k = 0; k < l2.extent; ++k, s2 += l2.src, d2 += l2.dst) fn(s2, d2);
    }
  }
}

// A kernel with kDepth loops of its op (the ones just outside the kernel's
// own) compiled in, for kDepth of 0 to 3: Pick(integral_constant<kDepth>)
// returns it. A kernel without loops is a leaf: no callee-saved registers
// to save and restore around a run of a few stores.
template <typename Pick>
SmallKernel ByDepth(int depth, Pick pick) {
  switch (depth) {
    case 0: return pick(std::integral_constant<int, 0>());
    case 1: return pick(std::integral_constant<int, 1>());
    case 2: return pick(std::integral_constant<int, 2>());
    default: return pick(std::integral_constant<int, 3>());
  }
}

// ---------------------------------------------------------------------------
// Runs of bytes (loops[3] contiguous on both sides) with kDepth loops
// around them (loops[3 - kDepth..2]), kBytes known to the compiler; kBytes
// == 0 for other sizes.

template <int kDepth, int64_t kBytes>
void CopyRunsScalar(const SmallOp& op, const char* src, char* dst) {
  const int64_t bytes = kBytes != 0 ? kBytes : op.loops[3].extent * op.es;
  ForLoops<3 - kDepth, 2>(op, src, dst, [=](const char* s, char* d) { std::memcpy(d, s, bytes); });
}

template <int kDepth, int64_t kBytes>
__attribute__((target("avx2"))) void CopyRunsAvx2(const SmallOp& op, const char* src,
                                                  char* dst) {
  static_assert(kBytes % 32 == 0 && kBytes > 0);
  ForLoops<3 - kDepth, 2>(op, src, dst, [](const char* s, char* d) __attribute__((target("avx2"))) {
    for (int64_t i = 0; i < kBytes; i += 32) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i),
                          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i)));
    }
  });
}

// Runs of any size over 32 bytes: 32-byte moves, the last one overlapping.
template <int kDepth>
__attribute__((target("avx2"))) void CopyRunsAnyAvx2(const SmallOp& op, const char* src,
                                                    char* dst) {
  const int64_t bytes = op.loops[3].extent * op.es;
  ForLoops<3 - kDepth, 2>(op, src, dst, [=](const char* s, char* d) __attribute__((target("avx2"))) {
    int64_t i = 0;
    for (; i + 32 < bytes; i += 32) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i),
                          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i)));
    }
    const int64_t last = bytes - 32;
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + last),
                        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + last)));
  });
}

// Runs of 64 bytes or more with 64-byte moves, the last one overlapping
// (kBytes == 0: the size from the op).
template <int kDepth, int64_t kBytes>
__attribute__((target("avx512f"))) void CopyRunsAvx512(const SmallOp& op, const char* src,
                                                      char* dst) {
  const int64_t bytes = kBytes != 0 ? kBytes : op.loops[3].extent * op.es;
  ForLoops<3 - kDepth, 2>(op, src, dst, [=](const char* s, char* d) __attribute__((target("avx512f"))) {
    int64_t i = 0;
    for (; i + 64 < bytes; i += 64) _mm512_storeu_si512(d + i, _mm512_loadu_si512(s + i));
    _mm512_storeu_si512(d + bytes - 64, _mm512_loadu_si512(s + bytes - 64));
  });
}

// Rows of 32 bytes whose loop (loops[2]) writes them one after another in
// pairs: each pair is one 64-byte store (the 8-float rows of T(8,8) and
// T(8,1) tiles to and from row-major, four or more to a line), half the
// stores of one per row. loops[2] has an even extent; kDepth counts it.
template <int kDepth>
__attribute__((target("avx512f"))) void CopyRowPairsAvx512(const SmallOp& op, const char* src,
                                                          char* dst) {
  const int64_t pairs = op.loops[2].extent / 2, step = op.loops[2].src;
  ForLoops<3 - kDepth, 1>(op, src, dst, [=](const char* s, char* d) __attribute__((target("avx512f"))) {
    for (int64_t i = 0; i < pairs; ++i, s += 2 * step, d += 64) {
      const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s));
      const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + step));
      _mm512_storeu_si512(d, _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1));
    }
  });
}

// The same when the loop outside (loops[1]) also steps 32 bytes in the
// source: each source row is read as one 64-byte line and its halves go to
// two destinations (the next 8 floats of a row-major row into the next
// T(8,1) panel), so a line is read once, not once per half: rows a
// power-of-two stride apart would evict it from L1 before the second read.
__attribute__((target("avx512f"))) void CopyRowQuadsAvx512(const SmallOp& op, const char* src,
                                                          char* dst) {
  const Loop l1 = op.loops[1], l2 = op.loops[2];
  ForLoops<0, 0>(op, src, dst, [=](const char* s0, char* d0) __attribute__((target("avx512f"))) {
    for (int64_t j = 0; j < l1.extent; j += 2, s0 += 2 * l1.src, d0 += 2 * l1.dst) {
      const char* s = s0;
      char* d = d0;
      for (int64_t i = 0; i < l2.extent; i += 2, s += 2 * l2.src, d += 64) {
        const __m512i a = _mm512_loadu_si512(s), b = _mm512_loadu_si512(s + l2.src);
        _mm512_storeu_si512(d, _mm512_shuffle_i64x2(a, b, 0x44));
        _mm512_storeu_si512(d + l1.dst, _mm512_shuffle_i64x2(a, b, 0xEE));
      }
    }
  });
}

// The run kernel for `isa`, runs of `bytes`, `depth` loops around them.
SmallKernel CopyKernel(int64_t bytes, Isa isa, int depth) {
  auto scalar = [depth](auto size) {
    return ByDepth(depth, [](auto d) { return &CopyRunsScalar<d(), decltype(size)::value>; });
  };
  auto avx2 = [depth](auto size) {
    return ByDepth(depth, [](auto d) { return &CopyRunsAvx2<d(), decltype(size)::value>; });
  };
  auto avx512 = [depth](auto size) {
    return ByDepth(depth, [](auto d) { return &CopyRunsAvx512<d(), decltype(size)::value>; });
  };
  using std::integral_constant;
  if (isa == Isa::kAvx512 && bytes >= 64 && bytes <= 4096) {
    switch (bytes) {
      case 64: return avx512(integral_constant<int64_t, 64>());
      case 128: return avx512(integral_constant<int64_t, 128>());
      case 256: return avx512(integral_constant<int64_t, 256>());
      case 512: return avx512(integral_constant<int64_t, 512>());
      default: return avx512(integral_constant<int64_t, 0>());
    }
  }
  const bool simd = isa != Isa::kScalar;
  switch (bytes) {
    case 4: return scalar(integral_constant<int64_t, 4>());
    case 8: return scalar(integral_constant<int64_t, 8>());
    case 16: return scalar(integral_constant<int64_t, 16>());
    case 32: return simd ? avx2(integral_constant<int64_t, 32>()) : scalar(integral_constant<int64_t, 32>());
    case 64: return simd ? avx2(integral_constant<int64_t, 64>()) : scalar(integral_constant<int64_t, 64>());
    default:
      if (simd && bytes > 32 && bytes <= 4096) {
        return ByDepth(depth, [](auto d) { return &CopyRunsAnyAvx2<d()>; });
      }
      return scalar(integral_constant<int64_t, 0>());
  }
}

// ---------------------------------------------------------------------------
// Padding: runs of loops[3] elements, contiguous in the destination.

template <int kDepth>
void FillRunsScalar(const SmallOp& op, const char* src, char* dst) {
  const int64_t bytes = op.loops[3].extent * op.es;
  const uint8_t value = op.fill[0];
  ForLoops<3 - kDepth, 2>(op, src, dst, [=](const char*, char* d) { std::memset(d, value, bytes); });
}

// A padding value whose bytes differ (1, 2, 3, 4 for an f32), element by element.
template <int kDepth>
void FillRunsPattern(const SmallOp& op, const char* src, char* dst) {
  const int64_t n = op.loops[3].extent, es = op.es;
  const uint8_t* fill = op.fill;
  ForLoops<3 - kDepth, 2>(op, src, dst, [=](const char*, char* d) {
    for (int64_t i = 0; i < n; ++i) std::memcpy(d + i * es, fill, es);
  });
}

// 32-byte stores; a run under 32 bytes by overlapping 8- or 16-byte ones.
template <int kDepth>
__attribute__((target("avx2"))) void FillRunsAvx2(const SmallOp& op, const char* src,
                                                  char* dst) {
  const int64_t bytes = op.loops[3].extent * op.es;
  const uint8_t value = op.fill[0];
  const __m256i v = _mm256_set1_epi8(static_cast<char>(value));
  const uint64_t w = 0x0101010101010101ull * value;
  ForLoops<3 - kDepth, 2>(op, src, dst, [=](const char*, char* d) __attribute__((target("avx2"))) {
    if (bytes >= 32) {
      int64_t i = 0;
      for (; i + 32 < bytes; i += 32) _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i), v);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + bytes - 32), v);
    } else if (bytes >= 16) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d), _mm256_castsi256_si128(v));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d + bytes - 16), _mm256_castsi256_si128(v));
    } else if (bytes >= 8) {
      std::memcpy(d, &w, 8);
      std::memcpy(d + bytes - 8, &w, 8);
    } else {
      std::memset(d, value, bytes);
    }
  });
}

// The same with 64-byte stores for runs of 64 bytes or more.
template <int kDepth>
__attribute__((target("avx512f"))) void FillRunsAvx512(const SmallOp& op, const char* src,
                                                      char* dst) {
  const int64_t bytes = op.loops[3].extent * op.es;
  const __m512i v = _mm512_set1_epi8(static_cast<char>(op.fill[0]));
  ForLoops<3 - kDepth, 2>(op, src, dst, [=](const char*, char* d) __attribute__((target("avx512f"))) {
    int64_t i = 0;
    for (; i + 64 < bytes; i += 64) _mm512_storeu_si512(d + i, v);
    _mm512_storeu_si512(d + bytes - 64, v);
  });
}

// A run of bytes and then a run of the padding value (a uniform one), both
// of 64 bytes or more, in one op: a 1-D array padded to its tile
// (f32[128]{0} -> {0:T(256)}), one call where two ops cost two.
__attribute__((target("avx512f"))) void CopyThenFillAvx512(const SmallOp& op, const char* src,
                                                          char* dst) {
  const int64_t bytes = op.loops[3].extent * op.es, fill = op.loops[2].extent * op.es;
  const char* s = src + op.src_offset;
  char* d = dst + op.dst_offset;
  char* f = dst + op.fill_offset;
  const __m512i v = _mm512_set1_epi8(static_cast<char>(op.fill[0]));
  int64_t i = 0;
  for (; i + 64 < bytes; i += 64) _mm512_storeu_si512(d + i, _mm512_loadu_si512(s + i));
  _mm512_storeu_si512(d + bytes - 64, _mm512_loadu_si512(s + bytes - 64));
  for (i = 0; i + 64 < fill; i += 64) _mm512_storeu_si512(f + i, v);
  _mm512_storeu_si512(f + fill - 64, v);
}

// A plan's ops, one after another (op.ops, op.op_count).
void RunOps(const SmallOp& op, const char* src, char* dst) {
  const SmallOp* ops = op.ops;
  for (int64_t i = 0, n = op.op_count; i < n; ++i) ops[i].kernel(ops[i], src, dst);
}

// Whether the padding value is one byte repeated.
bool Uniform(const std::vector<uint8_t>& fill) {
  return std::all_of(fill.begin(), fill.end(), [&](uint8_t b) { return b == fill[0]; });
}

// The fill kernel for `isa`, runs of `bytes` of `fill`, `depth` loops around them.
SmallKernel FillKernel(int64_t bytes, const std::vector<uint8_t>& fill, Isa isa, int depth) {
  if (!Uniform(fill)) return ByDepth(depth, [](auto d) { return &FillRunsPattern<d()>; });
  if (isa == Isa::kAvx512 && bytes >= 64) {
    return ByDepth(depth, [](auto d) { return &FillRunsAvx512<d()>; });
  }
  if (isa != Isa::kScalar) return ByDepth(depth, [](auto d) { return &FillRunsAvx2<d()>; });
  return ByDepth(depth, [](auto d) { return &FillRunsScalar<d()>; });
}

// ---------------------------------------------------------------------------
// Element by element (kStrided): loops[3] strided on both sides.

template <int kDepth, int64_t kEs>
void StridedElements(const SmallOp& op, const char* src, char* dst) {
  const Loop l = op.loops[3];
  const int64_t es = kEs != 0 ? kEs : op.es;
  ForLoops<3 - kDepth, 2>(op, src, dst, [=](const char* s, char* d) {
    for (int64_t i = 0; i < l.extent; ++i) std::memcpy(d + i * l.dst, s + i * l.src, es);
  });
}

SmallKernel StridedKernel(int64_t es, int depth) {
  auto pick = [depth](auto size) {
    return ByDepth(depth, [](auto d) { return &StridedElements<d(), decltype(size)::value>; });
  };
  using std::integral_constant;
  switch (es) {
    case 1: return pick(integral_constant<int64_t, 1>());
    case 2: return pick(integral_constant<int64_t, 2>());
    case 4: return pick(integral_constant<int64_t, 4>());
    case 8: return pick(integral_constant<int64_t, 8>());
    case 16: return pick(integral_constant<int64_t, 16>());
    default: return pick(integral_constant<int64_t, 0>());
  }
}

// ---------------------------------------------------------------------------
// Transposes: loops[2] is a (contiguous in the source), loops[3] b
// (contiguous in the destination); loops[1] the plane loop of the kernel
// set's transpose_planes, loops[0] outside it.

void TransposePlanes(const SmallOp& op, const char* src, char* dst) {
  const Loop p = op.loops[1], a = op.loops[2], b = op.loops[3];
  const int es = static_cast<int>(op.es);
  const auto kernel = op.kernels->transpose_planes;
  ForLoops<0, 0>(op, src, dst, [=](const char* s, char* d) {
    kernel(s, d, p.extent, p.src, p.dst, a.extent, b.extent, b.src, a.dst, es, false);
  });
}

// Grouped (Task::grouped): loops[1..3] are the kernel's g, a, b.
void TransposeGrouped(const SmallOp& op, const char* src, char* dst) {
  const Loop g = op.loops[1], a = op.loops[2], b = op.loops[3];
  const int es = static_cast<int>(op.es);
  const auto kernel = op.kernels->transpose_grouped;
  ForLoops<0, 0>(op, src, dst, [=](const char* s, char* d) {
    kernel(s, d, g.extent, a.extent, b.extent, b.src, a.dst, g.dst, es, false);
  });
}

// Short source rows of 32-bit elements (transpose_weights.h): loops[2] is
// a (contiguous in the source), loops[3] b (contiguous in the destination),
// loops[0..1] planes around them.
template <Isa kIsa>
void TransposeWeights(const SmallOp& op, const char* src, char* dst) {
  const Loop a = op.loops[2], b = op.loops[3];
  ForLoops<0, 1>(op, src, dst, [=](const char* s, char* d) {
    TransposeWeights32(s, d, a.extent, b.extent, b.src, a.dst, kIsa);
  });
}

// Planes of a few KiB in AVX-512 register blocks (transpose_tiny.h):
// loops[2] is a, loops[3] b, loops[1] planes around them (loops[0] has
// extent 1). The fields are read one by one into scalars, and one plane
// is a tail call: through ForLoops the loops were copied to the stack in
// 16-byte moves and read back in 8-byte halves around the kernel's call,
// which cost about as much as the 8x16 transpose itself (small_plan_bench
// f32[8,16] against the same bench calling the kernel in place of the plan).
void TransposeTiny(const SmallOp& op, const char* src, char* dst) {
  const int64_t na = op.loops[2].extent, dsa = op.loops[2].dst;
  const int64_t nb = op.loops[3].extent, ssb = op.loops[3].src;
  const int64_t planes = op.loops[1].extent, pss = op.loops[1].src, pds = op.loops[1].dst;
  src += op.src_offset;
  dst += op.dst_offset;
  for (int64_t p = 1; p < planes; ++p, src += pss, dst += pds) {
    TransposeTiny32(src, dst, na, nb, ssb, dsa);
  }
  return TransposeTiny32(src, dst, na, nb, ssb, dsa);
}

// One plane, or planes of 1024 elements or more (8 blocks): planes of one
// to four blocks each paid a call of the kernel per plane and measured
// slower than transpose planes ([2,4,32,32] and [32,688] from T(16,16)
// into T(16,1), 32 and 86 planes of 16x16: 0.92-1.01x of memcpy to
// 0.74-0.88x in relayout_bench replay).
bool IsTinyTranspose(const SmallOp& op, Isa isa) {
  const Loop &a = op.loops[2], &b = op.loops[3];
  const bool planes = op.loops[1].extent == 1 || a.extent * b.extent >= 1024;
  return op.loops[0].extent == 1 && planes && a.src == op.es && b.dst == op.es &&
         TakesTransposeTiny(op.es, a.extent, b.extent, a.dst, isa);
}

// One plane of nine columns (the [C,9] weights, transpose_nine.h): the
// fields read into scalars and the kernel a tail call. Through ForLoops
// and TransposeWeights32, f32[32,1,3,3] to {0,1,3,2} spent about a third
// of its samples around the kernel (perf of small_plan_bench).
template <Isa kIsa>
void TransposeNineColumns(const SmallOp& op, const char* src, char* dst) {
  const int64_t nb = op.loops[3].extent, ssb = op.loops[3].src, dsa = op.loops[2].dst;
  return TransposeNine32(src + op.src_offset, dst + op.dst_offset, nb, ssb, dsa, kIsa);
}

bool IsWeightTranspose(const SmallOp& op, Isa isa) {
  const Loop &a = op.loops[2], &b = op.loops[3];
  return a.src == op.es && b.dst == op.es &&
         TakesTransposeWeights(op.es, a.extent, b.extent, b.src, isa);
}

// Four rows of bytes interleaved (a (4,1) tile of 1-byte elements: pred,
// s8, u8 T(8,128)(4,1)): destination byte 4a + k is byte a of row k, rows
// ssb bytes apart. 32 bytes of each row per step, in two rounds of unpacks.
__attribute__((target("avx2"))) void Interleave4x1Bytes(const char* src, char* dst, int64_t na,
                                                       int64_t ssb) {
  int64_t a = 0;
  for (; a + 32 <= na; a += 32) {
    auto row = [&](int k) __attribute__((target("avx2"))) {
      return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + k * ssb + a));
    };
    const __m256i r0 = row(0), r1 = row(1), r2 = row(2), r3 = row(3);
    // Per 128-bit lane: t0 pairs rows 0, 1 of a = 0..7 (lane 1: 16..23).
    const __m256i t0 = _mm256_unpacklo_epi8(r0, r1), t1 = _mm256_unpackhi_epi8(r0, r1);
    const __m256i t2 = _mm256_unpacklo_epi8(r2, r3), t3 = _mm256_unpackhi_epi8(r2, r3);
    // u0: a = 0..3 (16..19), u1: 4..7, u2: 8..11, u3: 12..15 (and +16).
    const __m256i u0 = _mm256_unpacklo_epi16(t0, t2), u1 = _mm256_unpackhi_epi16(t0, t2);
    const __m256i u2 = _mm256_unpacklo_epi16(t1, t3), u3 = _mm256_unpackhi_epi16(t1, t3);
    __m256i* out = reinterpret_cast<__m256i*>(dst + 4 * a);
    _mm256_storeu_si256(out, _mm256_permute2x128_si256(u0, u1, 0x20));
    _mm256_storeu_si256(out + 1, _mm256_permute2x128_si256(u2, u3, 0x20));
    _mm256_storeu_si256(out + 2, _mm256_permute2x128_si256(u0, u1, 0x31));
    _mm256_storeu_si256(out + 3, _mm256_permute2x128_si256(u2, u3, 0x31));
  }
  for (; a < na; ++a) {
    for (int k = 0; k < 4; ++k) dst[4 * a + k] = src[k * ssb + a];
  }
}

__attribute__((target("avx2"))) void InterleaveBytes4(const SmallOp& op, const char* src,
                                                     char* dst) {
  const int64_t na = op.loops[2].extent, ssb = op.loops[3].src;
  ForLoops<0, 1>(op, src, dst, [=](const char* s, char* d) __attribute__((target("avx2"))) {
    Interleave4x1Bytes(s, d, na, ssb);
  });
}

// Whether the transpose (a = loops[2], b = loops[3]) interleaves four rows
// of bytes into contiguous groups of four.
bool IsByteInterleave4(const SmallOp& op) {
  const Loop &a = op.loops[2], &b = op.loops[3];
  return op.es == 1 && a.src == 1 && a.dst == 4 && b.extent == 4 && b.dst == 1;
}

// ---------------------------------------------------------------------------
// The permute op (AVX-512 VBMI): the whole copy, source <= 128 bytes,
// destination <= 256.

}  // namespace

struct SmallPlan::PermuteTables {
  struct alignas(64) Chunk {
    uint8_t index[64];    // source byte (0..127) of each destination byte
    uint8_t padding[64];  // the padding value where no source byte goes
    uint64_t from_source = 0;  // bit i: byte i comes from the source
    uint64_t inside = 0;       // bit i: byte i is inside the destination
  };
  uint64_t load_lo = 0, load_hi = 0;  // the source bytes in each 64-byte half
  int chunks = 0;
  Chunk chunk[4];
};

namespace {

// kChunks 64-byte chunks of destination; kPadding when some destination
// byte takes the padding value. Unrolled over the chunks.
template <int kChunks, bool kPadding>
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) void PermuteBytes(const SmallOp& op,
                                                                         const char* src,
                                                                         char* dst) {
  const auto& t = *static_cast<const SmallPlan::PermuteTables*>(op.table);
  const __m512i lo = _mm512_maskz_loadu_epi8(t.load_lo, src);
  const __m512i hi = _mm512_maskz_loadu_epi8(t.load_hi, src + 64);
  for (int c = 0; c < kChunks; ++c) {
    const auto& k = t.chunk[c];
    __m512i out = _mm512_permutex2var_epi8(lo, _mm512_load_si512(k.index), hi);
    if (kPadding) out = _mm512_mask_blend_epi8(k.from_source, _mm512_load_si512(k.padding), out);
    if (c + 1 < kChunks) {
      _mm512_storeu_si512(dst + 64 * c, out);
    } else {
      _mm512_mask_storeu_epi8(dst + 64 * c, k.inside, out);
    }
  }
}

SmallKernel PermuteKernel(int chunks, bool padding) {
  static constexpr SmallKernel kKernels[2][4] = {
      {PermuteBytes<1, false>, PermuteBytes<2, false>, PermuteBytes<3, false>,
       PermuteBytes<4, false>},
      {PermuteBytes<1, true>, PermuteBytes<2, true>, PermuteBytes<3, true>,
       PermuteBytes<4, true>}};
  return kKernels[padding][chunks - 1];
}

// Calls fn(src_byte, dst_byte) for every element of `task` (src_byte -1
// for padding).
template <typename Fn>
void ForEachElement(const Task& task, Fn fn) {
  std::vector<int64_t> i(task.loops.size(), 0);
  const int64_t n = task.Elements();
  for (int64_t e = 0; e < n; ++e) {
    int64_t s = task.src_offset, d = task.dst_offset;
    for (size_t k = 0; k < i.size(); ++k) {
      s += i[k] * task.loops[k].src;
      d += i[k] * task.loops[k].dst;
    }
    fn(task.kind == Kind::kFill ? -1 : s, d);
    for (size_t k = i.size(); k-- > 0;) {
      if (++i[k] < task.loops[k].extent) break;
      i[k] = 0;
    }
  }
}

// Sets op->kernel for `task` (its loops already in op->loops) and returns
// the op's name for Describe.
std::string ChooseKernel(const Task& task, Isa isa, const std::vector<uint8_t>& fill,
                         SmallOp* op) {
  const int64_t es = op->es;
  const int loops = static_cast<int>(task.loops.size());
  const int64_t run = op->loops[3].extent * es;
  std::string name;
  switch (task.kind) {
    case Kind::kCopy:
      op->kernel = CopyKernel(run, isa, loops - 1);
      name = absl::StrCat("rows of ", run, " bytes");
      if (isa == Isa::kAvx512 && run == 32 && loops >= 2 && op->loops[2].dst == 32 &&
          op->loops[2].extent % 2 == 0) {
        op->kernel = ByDepth(loops - 1, [](auto d) { return &CopyRowPairsAvx512<d()>; });
        name = "rows of 32 bytes in pairs";
        if (loops >= 3 && op->loops[1].src == 32 && op->loops[1].extent % 2 == 0) {
          op->kernel = CopyRowQuadsAvx512;
          name = "rows of 32 bytes in pairs, source lines whole";
        }
      }
      break;
    case Kind::kFill:
      op->kernel = FillKernel(run, fill, isa, loops - 1);
      name = absl::StrCat("fill of ", run, " bytes");
      break;
    case Kind::kStrided:
      op->kernel = StridedKernel(es, loops - 1);
      name = "strided elements";
      break;
    case Kind::kTranspose:
      if (task.grouped) {
        op->kernel = TransposeGrouped;
        name = "transpose (tiles grouped)";
      } else if (IsTinyTranspose(*op, isa)) {
        op->kernel = TransposeTiny;
        name = "transpose in register blocks";
      } else if (IsWeightTranspose(*op, isa)) {
        op->kernel = isa == Isa::kAvx512 ? TransposeWeights<Isa::kAvx512>
                                         : TransposeWeights<Isa::kAvx2>;
        name = "transpose of 32-bit columns";
        if (op->loops[0].extent == 1 && op->loops[1].extent == 1 && op->loops[2].extent == 9) {
          op->kernel = isa == Isa::kAvx512 ? TransposeNineColumns<Isa::kAvx512>
                                           : TransposeNineColumns<Isa::kAvx2>;
          name = "transpose of 32-bit columns, nine in one plane";
        }
      } else if (isa != Isa::kScalar && IsByteInterleave4(*op)) {
        op->kernel = InterleaveBytes4;
        name = "interleave of 4 byte rows";
      } else {
        op->kernel = TransposePlanes;
        name = "transpose planes";
      }
      break;
  }
  if (task.kind == Kind::kCopy || task.kind == Kind::kFill) {
    absl::StrAppend(&name, " x", task.Elements() / op->loops[3].extent);
  }
  return name;
}

}  // namespace

bool SmallPlan::CompilePermute(const std::vector<Task>& tasks, int64_t es, int64_t src_bytes,
                               int64_t dst_bytes) {
  if (src_bytes > 128 || dst_bytes > 256 || dst_bytes == 0) return false;
  auto t = std::make_shared<PermuteTables>();
  t->chunks = static_cast<int>((dst_bytes + 63) / 64);
  for (int64_t b = 0; b < src_bytes; ++b) (b < 64 ? t->load_lo : t->load_hi) |= 1ull << (b % 64);
  for (int64_t b = 0; b < dst_bytes; ++b) {
    PermuteTables::Chunk& c = t->chunk[b / 64];
    c.inside |= 1ull << (b % 64);
    c.padding[b % 64] = fill_[b % es];
  }
  for (const Task& task : tasks) {
    ForEachElement(task, [&](int64_t s, int64_t d) {
      for (int64_t k = 0; k < es && s >= 0; ++k) {
        PermuteTables::Chunk& c = t->chunk[(d + k) / 64];
        c.index[(d + k) % 64] = static_cast<uint8_t>(s + k);
        c.from_source |= 1ull << ((d + k) % 64);
      }
    });
  }
  bool padding = false;
  for (int c = 0; c < t->chunks; ++c) padding |= t->chunk[c].from_source != t->chunk[c].inside;
  SmallOp op{PermuteKernel(t->chunks, padding)};
  op.table = t.get();
  ops_ = {op};
  names_ = {absl::StrCat("byte permute of ", src_bytes, " to ", dst_bytes, " bytes")};
  permute_ = std::move(t);
  return true;
}

bool SmallPlan::AddTask(const Task& task, int64_t es, Isa isa) {
  const size_t n = task.loops.size();
  if (n == 0) return false;
  if (n > 4) {
    // The loops outside the last four are unrolled into ops of their own,
    // as long as the plan stays short.
    Task inner = task;
    inner.loops.erase(inner.loops.begin());
    const Loop& outer = task.loops[0];
    if (ops_.size() + outer.extent > kMaxOps) return false;
    for (int64_t i = 0; i < outer.extent; ++i) {
      inner.src_offset = task.src_offset + i * outer.src;
      inner.dst_offset = task.dst_offset + i * outer.dst;
      if (!AddTask(inner, es, isa)) return false;
    }
    return true;
  }
  if (ops_.size() >= kMaxOps) return false;
  SmallOp op{nullptr, task.src_offset, task.dst_offset};
  for (Loop& l : op.loops) l = Loop{1, 0, 0};
  std::copy(task.loops.begin(), task.loops.end(), op.loops + (4 - n));
  op.es = es;
  op.kernels = &KernelsFor(isa);
  op.fill = fill_.data();
  ops_.push_back(op);
  names_.push_back(ChooseKernel(task, isa, fill_, &ops_.back()));
  return true;
}

bool SmallPlan::CompileCopyThenFill(const std::vector<Task>& tasks, int64_t es, Isa isa) {
  if (isa != Isa::kAvx512 || tasks.size() != 2 || fill_.empty()) return false;
  const Task &copy = tasks[0], &fill = tasks[1];
  auto run = [es](const Task& t, Kind kind, int64_t src) {
    return t.kind == kind && !t.grouped && t.loops.size() == 1 && t.loops[0].src == src &&
           t.loops[0].dst == es && t.loops[0].extent * es >= 64;
  };
  if (!Uniform(fill_) || !run(copy, Kind::kCopy, es) || !run(fill, Kind::kFill, 0)) return false;
  SmallOp op{CopyThenFillAvx512, copy.src_offset, copy.dst_offset};
  for (Loop& l : op.loops) l = Loop{1, 0, 0};
  op.loops[3] = copy.loops[0];
  op.loops[2] = fill.loops[0];
  op.es = es;
  op.fill = fill_.data();
  op.fill_offset = fill.dst_offset;
  ops_ = {op};
  names_ = {absl::StrCat("rows of ", copy.loops[0].extent * es, " bytes then fill of ",
                         fill.loops[0].extent * es, " bytes")};
  return true;
}

void SmallPlan::SetHead() {
  if (ops_.size() == 1) {
    head_ = ops_[0];
  } else {
    head_.kernel = RunOps;
    head_.ops = ops_.data();
    head_.op_count = static_cast<int64_t>(ops_.size());
  }
}

std::unique_ptr<SmallPlan> SmallPlan::Compile(const std::vector<Task>& tasks, int64_t es,
                                              const std::vector<uint8_t>& fill, Isa isa,
                                              int64_t src_bytes, int64_t dst_bytes) {
  if (dst_bytes > kSmallPlanBytes || tasks.empty()) return nullptr;
  // A row table (transpose_narrow.h) replaces a loop's destination stride,
  // and a run with its padding fused (FusePaddedRows) writes more than its
  // loops say; the ops here step by strides and write the loops' bytes
  // only, so such plans keep the general path.
  for (const Task& task : tasks) {
    if (!task.rows.empty() || task.pad_bytes != 0) return nullptr;
  }
  auto plan = std::make_unique<SmallPlan>(Key());
  plan->fill_ = fill;
  static const bool vbmi = __builtin_cpu_supports("avx512vbmi") &&
                           __builtin_cpu_supports("avx512bw");
  if (isa == Isa::kAvx512 && vbmi && plan->CompilePermute(tasks, es, src_bytes, dst_bytes)) {
    plan->SetHead();
    return plan;
  }
  if (!plan->CompileCopyThenFill(tasks, es, isa)) {
    for (const Task& task : tasks) {
      if (!plan->AddTask(task, es, isa)) return nullptr;
    }
  }
  plan->SetHead();
  return plan;
}

std::unique_ptr<SmallPlan> SmallPlan::OfOp(const SmallOp& op, std::string name,
                                           std::shared_ptr<const void> table) {
  auto plan = std::make_unique<SmallPlan>(Key());
  plan->ops_ = {op};
  plan->names_ = {std::move(name)};
  plan->table_ = std::move(table);
  plan->SetHead();
  return plan;
}

std::string SmallPlan::Describe() const {
  return absl::StrCat("small: ", absl::StrJoin(names_, ", "), "\n");
}

}  // namespace xla_layout::internal
