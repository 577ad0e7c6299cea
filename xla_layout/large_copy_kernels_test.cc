#include "xla_layout/large_copy_kernels.h"

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "xla_layout/memory.h"
#include "xla_layout/relayout.h"
#include "xla_layout/relayout_kernels.h"
#include "xla_layout/short_row_transposes.h"
#include "xla_layout/test_util.h"
#include "xla_layout/tiled_layout.h"

namespace xla_layout::internal {
namespace {

std::vector<char> RandomBytes(std::mt19937_64& rng, int64_t n) {
  std::vector<char> v(n);
  for (char& c : v) c = static_cast<char>(rng());
  return v;
}

AlignedBuffer Aligned(int64_t bytes) {
  absl::StatusOr<AlignedBuffer> b = AllocateAligned(bytes, "test");
  EXPECT_TRUE(b.ok()) << b.status();
  return *std::move(b);
}

// Relayouts `from` into `to` on one thread of `isa` (streaming stores or
// none), random source bytes into a 64-byte aligned destination (streaming
// kernels need it), and checks the result against the index math; the
// error carries the plan.
absl::Status RelayoutOnAlignedBuffers(Isa isa, const std::string& from, const std::string& to,
                                      bool streaming, std::mt19937_64& rng) {
  RelayoutOptions options;
  options.isa = isa;
  options.threads = 1;
  options.streaming =
      streaming ? RelayoutOptions::Streaming::kOn : RelayoutOptions::Streaming::kOff;
  const Shape src = ParseTestShape(from), dst = ParseTestShape(to);
  absl::StatusOr<RelayoutPlan> plan = RelayoutPlan::Create(src, dst, options);
  if (!plan.ok()) return plan.status();
  const TiledLayout s = *TiledLayout::Create(src), d = *TiledLayout::Create(dst);
  std::vector<uint8_t> in(s.byte_size());
  FillRandomBytes(rng, absl::MakeSpan(in));
  AlignedBuffer out = Aligned(d.byte_size());
  plan->Execute(in.data(), out.get());
  const absl::Status check =
      CheckRelayout(s, in.data(), d, reinterpret_cast<const uint8_t*>(out.get()), {});
  if (check.ok()) return check;
  return absl::Status(check.code(), std::string(check.message()) + "\n" + plan->Describe());
}

// In one pass (long rows, an aligned destination) or in two (too few rows,
// a destination 32 bytes off a line), on every path: each destination row
// holds its nb elements, then `pad` bytes of the value, and the bytes past
// the last row are untouched.
TEST(LargeCopyKernelsTest, TransposePaddedRowsWritesRowsThenPadding) {
  std::mt19937_64 rng(7);
  const int64_t nb = 48, dsa = 512, pad = 320, ssb = 2240 * 4 + 64;
  for (Isa isa : IsaPathsHere()) {
    for (const auto& [na, offset] : {std::pair<int64_t, int64_t>{2232, 0}, {100, 0}, {2232, 32}}) {
      const std::vector<char> src = RandomBytes(rng, nb * ssb);
      AlignedBuffer buffer = Aligned(na * dsa + offset + 64);
      char* dst = static_cast<char*>(buffer.get()) + offset;
      std::memset(buffer.get(), 0x5A, na * dsa + offset + 64);
      TransposePaddedRows(src.data(), dst, na, nb, ssb, dsa, pad, 0xAB, isa);
      for (int64_t a = 0; a < na; ++a) {
        for (int64_t b = 0; b < nb; ++b) {
          ASSERT_EQ(std::memcmp(dst + a * dsa + b * 4, src.data() + a * 4 + b * ssb, 4), 0)
              << "element " << a << "," << b << " isa " << IsaName(isa) << " na " << na
              << " offset " << offset;
        }
        for (int64_t k = nb * 4; k < dsa; ++k) {
          ASSERT_EQ(static_cast<uint8_t>(dst[a * dsa + k]), 0xAB)
              << "padding " << a << "+" << k << " isa " << IsaName(isa) << " na " << na;
        }
      }
      ASSERT_EQ(static_cast<uint8_t>(dst[na * dsa]), 0x5A);
    }
  }
}

TEST(LargeCopyKernelsTest, LineRunsNeedWholeAlignedDestinationLines) {
  alignas(64) static char line[128];
  EXPECT_TRUE(IsLineRuns(line, 64, 128));
  EXPECT_TRUE(IsLineRuns(line, 4096, 16384));
  EXPECT_FALSE(IsLineRuns(line, 96, 128));      // part of a line
  EXPECT_FALSE(IsLineRuns(line + 32, 64, 128));  // unaligned destination
  EXPECT_FALSE(IsLineRuns(line, 64, 96));        // unaligned later runs
  EXPECT_FALSE(IsLineRuns(line, 0, 64));
}

// Streaming copies through each SIMD set's copy and copy_planes, runs of
// whole lines (the line-run kernel) and not (the set's own), against a
// plain loop; bytes outside the runs stay as they were.
TEST(LargeCopyKernelsTest, StreamingRunCopiesMatchAPlainLoop) {
  std::mt19937_64 rng(31);
  for (Isa isa : SimdPathsHere()) {
    const Kernels& k = KernelsFor(isa);
    for (int trial = 0; trial < 40; ++trial) {
      const int64_t bytes = 64 * (1 + rng() % 12) - (trial % 4 == 3 ? 8 : 0);
      const int64_t rows = 1 + rng() % 40, planes = 1 + rng() % 3;
      const int64_t src_stride = bytes + 8 * (rng() % 5);
      const int64_t dst_stride = (bytes + 63) / 64 * 64 + 64 * (rng() % 3);
      const int64_t plane_src = rows * src_stride, plane_dst = rows * dst_stride + 64;
      const std::vector<char> src = RandomBytes(rng, planes * plane_src + 4096);
      AlignedBuffer dst = Aligned(planes * plane_dst);
      std::vector<char> want(planes * plane_dst, 0x5A);
      for (int64_t p = 0; p < planes; ++p) {
        for (int64_t r = 0; r < rows; ++r) {
          std::memcpy(&want[p * plane_dst + r * dst_stride],
                      &src[p * plane_src + r * src_stride], bytes);
        }
      }
      char* out = static_cast<char*>(dst.get());
      std::memset(out, 0x5A, planes * plane_dst);
      if (planes == 1) {
        k.copy(src.data(), out, rows, bytes, src_stride, dst_stride, /*streaming=*/true);
      } else {
        k.copy_planes(src.data(), out, planes, plane_src, plane_dst, rows, bytes, src_stride,
                      dst_stride, /*streaming=*/true);
      }
      ASSERT_EQ(std::memcmp(out, want.data(), want.size()), 0)
          << IsaName(isa) << " rows " << rows << " x " << bytes << " bytes, strides "
          << src_stride << "/" << dst_stride << ", planes " << planes;
    }
  }
}

TEST(LargeCopyKernelsTest, StagedTransposesTakeRowsThatShareOneL1Set) {
  // f32[512,1024]{1,0} -> {0,1}: source rows 4 KiB apart.
  EXPECT_TRUE(IsStagedTranspose(1024, 512, 4096, 2048, 4, false));
  // {0,1} -> {1,0}: destination rows 4 KiB apart, 128 source rows needed.
  EXPECT_TRUE(IsStagedTranspose(512, 1024, 2048, 4096, 4, false));
  EXPECT_FALSE(IsStagedTranspose(512, 100, 2048, 4096, 4, false));
  EXPECT_FALSE(IsStagedTranspose(1024, 512, 4096, 2048, 4, true));   // streaming
  EXPECT_FALSE(IsStagedTranspose(1000, 1000, 4000, 4000, 4, false)); // no collision
  EXPECT_FALSE(IsStagedTranspose(1024, 512, 4096, 2048, 2, false));  // not 4-byte
  EXPECT_FALSE(IsStagedTranspose(16, 512, 4096, 2048, 4, false));    // no whole block
}

// Transposes in cache through each SIMD set's transpose and
// transpose_planes (staged or not, as the vendor's tuning chooses), and
// through TransposeStaged itself, with rows 4 KiB (or 8 KiB) apart on
// either side and edges of every size, against a plain loop.
TEST(LargeCopyKernelsTest, StagedTransposesMatchAPlainLoop) {
  std::mt19937_64 rng(7);
  for (Isa isa : SimdPathsHere()) {
    const Kernels& k = KernelsFor(isa);
    for (int trial = 0; trial < 24; ++trial) {
      const bool src_collides = trial % 2 == 0;
      const int64_t pitch = (trial % 3 == 2 ? 2048 : 1024);  // elements per colliding row
      const int64_t na = src_collides ? 32 + rng() % 200 : 32 + rng() % 100;
      const int64_t nb = src_collides ? 64 + rng() % 150 : 128 + rng() % 200;
      // A source row holds na elements (and a gap), a destination row nb.
      const int64_t ssb = (src_collides ? pitch : na + 3) * 4;
      const int64_t dsa = (src_collides ? nb + 5 : pitch) * 4;
      const int64_t planes = trial % 4 == 1 ? 2 : 1;
      const int64_t plane_src = nb * ssb, plane_dst = na * dsa;
      ASSERT_TRUE(IsStagedTranspose(na, nb, ssb, dsa, 4, false));
      const std::vector<char> src = RandomBytes(rng, planes * plane_src);
      std::vector<char> want(planes * plane_dst, 0x5A), out(planes * plane_dst, 0x5A);
      for (int64_t p = 0; p < planes; ++p) {
        for (int64_t a = 0; a < na; ++a) {
          for (int64_t b = 0; b < nb; ++b) {
            std::memcpy(&want[p * plane_dst + a * dsa + b * 4],
                        &src[p * plane_src + a * 4 + b * ssb], 4);
          }
        }
      }
      if (planes == 1) {
        k.transpose(src.data(), out.data(), na, nb, ssb, dsa, 4, /*streaming=*/false);
      } else {
        k.transpose_planes(src.data(), out.data(), planes, plane_src, plane_dst, na, nb, ssb,
                           dsa, 4, /*streaming=*/false);
      }
      ASSERT_EQ(out, want) << IsaName(isa) << " " << na << "x" << nb << ", strides " << ssb
                           << "/" << dsa << ", planes " << planes;
      if (planes != 1) continue;
      std::vector<char> staged(plane_dst, 0x5A);
      TransposeStaged(src.data(), staged.data(), na, nb, ssb, dsa, k.transpose);
      ASSERT_EQ(staged, want) << "staged, " << IsaName(isa) << " " << na << "x" << nb
                              << ", strides " << ssb << "/" << dsa;
    }
  }
}

// Transposes whose source rows pass the L2 cache, streaming (strips of 256
// rows that fetch their lines two tiles ahead) or not, through each SIMD
// set's transpose: ragged edges of a and b (not multiples of 16, nor of
// 256), against a plain loop; the gap after each destination row keeps its
// bytes.
TEST(LargeCopyKernelsTest, TransposesPastL2MatchAPlainLoop) {
  std::mt19937_64 rng(11);
  for (Isa isa : SimdPathsHere()) {
    const Kernels& k = KernelsFor(isa);
    for (int trial = 0; trial < 6; ++trial) {
      const int64_t na = 600 + rng() % 400, nb = 440 + rng() % 300;
      // Streaming stores need 32-byte aligned destination rows.
      const bool streaming = trial % 2 == 1;
      const int64_t ssb = (na + 1 + rng() % 7) * 4;
      const int64_t dsa = ((streaming ? (nb + 7) / 8 * 8 : nb) + 8 * (trial % 3)) * 4;
      ASSERT_GT(nb * ssb, int64_t{1} << 20);
      const std::vector<char> src = RandomBytes(rng, nb * ssb);
      AlignedBuffer out = Aligned(na * dsa);
      std::memset(out.get(), 0x5A, na * dsa);
      std::vector<char> want(na * dsa, 0x5A);
      for (int64_t a = 0; a < na; ++a) {
        for (int64_t b = 0; b < nb; ++b) {
          std::memcpy(&want[a * dsa + b * 4], &src[a * 4 + b * ssb], 4);
        }
      }
      k.transpose(src.data(), out.get(), na, nb, ssb, dsa, 4, streaming);
      ASSERT_EQ(std::memcmp(out.get(), want.data(), want.size()), 0)
          << IsaName(isa) << " " << na << "x" << nb << ", strides " << ssb << "/" << dsa
          << ", streaming " << streaming;
    }
  }
}

// Three rows interleaved (an image's RGB planes into channels-last), through
// each SIMD set's transpose with nb == 3 and contiguous triples: every tail
// length, aligned and unaligned destinations, streaming or not, against a
// plain loop; the bytes after the last triple stay as they were.
TEST(LargeCopyKernelsTest, ThreeRowInterleavesMatchAPlainLoop) {
  std::mt19937_64 rng(3);
  for (Isa isa : SimdPathsHere()) {
    const Kernels& k = KernelsFor(isa);
    for (int64_t na = 1; na <= 40; ++na) {
      for (int64_t offset : {0, 4, 32}) {
        for (bool streaming : {false, true}) {
          const int64_t ssb = (na + rng() % 5) * 4;
          const std::vector<char> src = RandomBytes(rng, 3 * ssb);
          AlignedBuffer out = Aligned(na * 12 + offset + 64);
          std::memset(out.get(), 0x5A, na * 12 + offset + 64);
          std::vector<char> want(na * 12 + 64, 0x5A);
          for (int64_t a = 0; a < na; ++a) {
            for (int64_t b = 0; b < 3; ++b) {
              std::memcpy(&want[a * 12 + b * 4], &src[a * 4 + b * ssb], 4);
            }
          }
          k.transpose(src.data(), out.get() + offset, na, 3, ssb, 12, 4, streaming);
          ASSERT_EQ(std::vector<char>(out.get() + offset, out.get() + offset + want.size()),
                    want)
              << IsaName(isa) << " na " << na << " offset " << offset << " streaming "
              << streaming;
        }
      }
    }
  }
}

// Whole relayouts that reach the kernels above, on every ISA path, against
// the index math: transposes whose rows are 4 KiB apart, in cache (the
// first trial f32[512,2048], whose other rows are 2 KiB apart, as in the
// replayed f32[512,1024] copies), and streaming copies into 32x32 tiles and
// nChw16c.
TEST(LargeCopyKernelsTest, RelayoutsThroughTheKernelsMatchTheIndexMath) {
  std::mt19937_64 rng(2024);
  std::vector<Isa> paths = SimdPathsHere();
  paths.push_back(Isa::kScalar);
  for (Isa isa : paths) {
    for (int trial = 0; trial < 4; ++trial) {
      const int64_t rows = trial == 0 ? 512 : 64 + rng() % 200, cols = trial % 2 ? 1024 : 2048;
      const std::string dims = "[" + std::to_string(rows) + "," + std::to_string(cols) + "]";
      const std::vector<std::pair<std::string, std::string>> pairs = {
          {"f32" + dims + "{1,0}", "f32" + dims + "{0,1}"},
          {"f32" + dims + "{0,1}", "f32" + dims + "{1,0}"},
          {"f32" + dims + "{1,0}", "f32" + dims + "{0,1:T(32,32)(32,1)}"},
          {"f32" + dims + "{0,1:T(32,32)(32,1)}", "f32" + dims + "{1,0}"},
          {"f32[2,48,5,7]{3,2,1,0}", "f32[2,48,5,7]{3,2,1,0:T(16,1,1)}"},
          {"f32[2,48,5,7]{3,2,1,0:T(16,1,1)}", "f32[2,48,5,7]{3,2,1,0}"},
          {"f32[2,3,17,19]{3,2,1,0}", "f32[2,3,17,19]{1,3,2,0}"}};
      for (const auto& [from, to] : pairs) {
        // Streaming where the line runs are; in cache for the transposes.
        const bool streaming =
            from.find("T(") != std::string::npos || to.find("T(") != std::string::npos;
        const absl::Status check = RelayoutOnAlignedBuffers(isa, from, to, streaming, rng);
        ASSERT_TRUE(check.ok()) << IsaName(isa) << " " << from << " -> " << to << ": " << check;
      }
    }
  }
}

// Streaming transposes into narrow tiles (grouped kernels, their rows in
// strips of up to 128) on every ISA path, against the index math: tiles of
// 1 to 8 rows, source rows not a multiple of the tile's 128 (padding) nor of
// the strip, an odd number of row blocks.
TEST(LargeCopyKernelsTest, StreamingTransposesIntoNarrowTilesMatchTheIndexMath) {
  std::mt19937_64 rng(77);
  std::vector<Isa> paths = SimdPathsHere();
  paths.push_back(Isa::kScalar);
  for (Isa isa : paths) {
    for (const char* tile : {"T(8,128)", "T(4,128)", "T(2,128)", "T(1,128)"}) {
      for (const char* dims : {"[200,384]", "[96,1000]", "[300,176]"}) {
        const std::string from = std::string("f32") + dims + "{1,0}";
        const std::string to = std::string("f32") + dims + "{0,1:" + tile + "}";
        const absl::Status check = RelayoutOnAlignedBuffers(isa, from, to, true, rng);
        ASSERT_TRUE(check.ok()) << IsaName(isa) << " " << from << " -> " << to << ": " << check;
      }
    }
  }
}

}  // namespace
}  // namespace xla_layout::internal
