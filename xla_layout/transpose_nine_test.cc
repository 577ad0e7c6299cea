#include "xla_layout/transpose_nine.h"

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla_layout/isa.h"
#include "xla_layout/test_util.h"
#include "xla_layout/tiled_layout.h"

namespace xla_layout {
namespace {

// The kernel on each SIMD path against an element loop, for every row
// count from 8 to 72 (whole blocks of 8 and of 16, and a last block
// overlapping the one before it), source rows of 9 elements back to back
// (the AVX-512 blocks) and wider ones, destination rows with gaps: the
// gaps keep their bytes, and the source ends at the last row's 9th
// element, just before an unreadable page.
TEST(TransposeNine32Test, MatchesAnElementLoop) {
  if (SimdPathsHere().empty()) GTEST_SKIP() << "no AVX2 here";
  std::mt19937_64 rng(39);
  for (Isa isa : SimdPathsHere()) {
    for (int64_t nb = 8; nb <= 72; ++nb) {
      for (int64_t ssb : {36, 40, 64, 100}) {
        const int64_t dsa = 4 * (nb + rng() % 9);
        std::vector<uint8_t> src((nb - 1) * ssb + 36);
        FillRandomBytes(rng, absl::MakeSpan(src));
        std::vector<uint8_t> want(dsa * 9, 0xEE), got(want);
        for (int64_t a = 0; a < 9; ++a) {
          for (int64_t b = 0; b < nb; ++b) {
            std::memcpy(&want[a * dsa + b * 4], &src[a * 4 + b * ssb], 4);
          }
        }
        GuardedBytes guarded(src.size(), GuardedBytes::kBeforeGuard);
        std::memcpy(guarded.data(), src.data(), src.size());
        internal::TransposeNine32(reinterpret_cast<const char*>(guarded.data()),
                                  reinterpret_cast<char*>(got.data()), nb, ssb, dsa, isa);
        ASSERT_EQ(got, want) << IsaName(isa) << " nb=" << nb << " ssb=" << ssb << " dsa=" << dsa;
      }
    }
  }
}

// The AVX-512 blocks take 16 rows or more of 9 elements back to back, on
// AVX-512 only; everything else stays on the AVX2 blocks.
TEST(TransposeNine32Test, TakesTheAvx512BlocksOnlyForRowsBackToBack) {
  EXPECT_TRUE(internal::TakesNine32Avx512(16, 36, Isa::kAvx512));
  EXPECT_TRUE(internal::TakesNine32Avx512(960, 36, Isa::kAvx512));
  EXPECT_FALSE(internal::TakesNine32Avx512(15, 36, Isa::kAvx512));
  EXPECT_FALSE(internal::TakesNine32Avx512(16, 40, Isa::kAvx512));
  EXPECT_FALSE(internal::TakesNine32Avx512(16, 108, Isa::kAvx512));
  EXPECT_FALSE(internal::TakesNine32Avx512(16, 36, Isa::kAvx2));
}

// Depthwise weights of every C from 1 to 40 and the sizes of the replayed
// copies, to {0,1,3,2} and into T(1,128) (the padding lanes of the 9 rows
// written with the fill): every path writes what the index math says, and
// from 8 channels on the SIMD paths the kernel set's 32-bit column
// transpose takes them.
TEST(TransposeNine32Test, DepthwiseWeightCopiesMatchTheIndexMath) {
  std::mt19937_64 rng(40);
  std::vector<int64_t> channels;
  for (int64_t c = 1; c <= 40; ++c) channels.push_back(c);
  for (int64_t c : {96, 144, 192, 383, 384, 576, 960}) channels.push_back(c);
  int with_kernel = 0;
  for (int64_t c : channels) {
    const std::string src = absl::StrCat("f32[", c, ",1,3,3]{3,2,1,0}");
    for (const char* layout : {"{0,1,3,2}", "{0,1,3,2:T(1,128)}"}) {
      const std::string dst = absl::StrCat("f32[", c, ",1,3,3]", layout);
      for (Isa isa : IsaPathsHere()) {
        std::string describe;
        const absl::Status check = CheckOneThreadRelayout(src, dst, isa, {0xC3}, rng, &describe);
        ASSERT_TRUE(check.ok()) << check << "\n" << describe;
        if (isa != Isa::kScalar && c >= 8) {
          EXPECT_TRUE(absl::StrContains(describe, "32-bit columns")) << dst << "\n" << describe;
          ++with_kernel;
        }
      }
    }
  }
  if (SimdPathsHere().empty()) GTEST_SKIP() << "no AVX2 here";
  EXPECT_GT(with_kernel, 0);
}

// A single plane of nine columns is one op that calls the kernel directly
// (no loops around it); nine columns in two or more planes keep the loops
// of the weights op. Both write what the index math says on every path.
TEST(TransposeNine32Test, OnePlaneIsTheKernelAlone) {
  std::mt19937_64 rng(41);
  struct Case {
    const char* src;
    const char* dst;
    bool one_plane;
  };
  const Case cases[] = {
      {"f32[32,1,3,3]{3,2,1,0}", "f32[32,1,3,3]{0,1,3,2}", true},
      {"f32[96,1,3,3]{3,2,1,0}", "f32[96,1,3,3]{0,1,3,2:T(1,128)}", true},
      {"f32[3,3,3,32]{1,0,2,3}", "f32[3,3,3,32]{2,3,1,0}", true},
      {"f32[16,2,3,3]{3,2,1,0}", "f32[16,2,3,3]{1,0,3,2}", true},
      {"f32[2,16,3,3]{3,2,1,0}", "f32[2,16,3,3]{1,3,2,0}", false},
      {"f32[3,24,3,3]{3,2,1,0}", "f32[3,24,3,3]{1,3,2,0:T(1,128)}", false},
  };
  for (const Case& c : cases) {
    for (Isa isa : IsaPathsHere()) {
      std::string describe;
      const absl::Status check = CheckOneThreadRelayout(c.src, c.dst, isa, {0xC3}, rng, &describe);
      ASSERT_TRUE(check.ok()) << check << "\n" << describe;
      if (isa == Isa::kScalar) continue;
      EXPECT_TRUE(absl::StrContains(describe, "32-bit columns")) << c.dst << "\n" << describe;
      EXPECT_EQ(absl::StrContains(describe, "nine in one plane"), c.one_plane)
          << c.src << " -> " << c.dst << "\n" << describe;
    }
  }
}

// Planes of nine of every O from 8 to 40 and the replayed sizes, 2 to 4
// and 16 planes, with and without T(1,128): every path writes what the
// index math says, the SIMD paths through the per-plane kernel.
TEST(TransposeNine32Test, PlanesOfNineMatchTheIndexMath) {
  std::mt19937_64 rng(42);
  std::vector<int64_t> outputs;
  for (int64_t o = 8; o <= 40; ++o) outputs.push_back(o);
  for (int64_t o : {64, 96, 127, 129}) outputs.push_back(o);
  int with_planes = 0;
  for (int64_t o : outputs) {
    for (int64_t i : {2, 3, 4, 16}) {
      const std::string src = absl::StrCat("f32[", o, ",", i, ",3,3]{3,2,1,0}");
      for (const char* layout : {"{0,1,3,2}", "{0,1,3,2:T(1,128)}"}) {
        const std::string dst = absl::StrCat("f32[", o, ",", i, ",3,3]", layout);
        // Not taken: nine rows a multiple of 4096 bytes apart (I * lanes *
        // 4), panels of 8 or 16 rows by whole column blocks.
        const int64_t lanes = absl::StrContains(layout, "T(") ? (o + 127) / 128 * 128 : o;
        const bool panel = (o == 8 || o == 16) && i % 8 == 0;
        const bool planes = i * lanes * 4 % 4096 != 0 && !panel;
        for (Isa isa : IsaPathsHere()) {
          std::string describe;
          const absl::Status check =
              CheckOneThreadRelayout(src, dst, isa, {0xC3}, rng, &describe);
          ASSERT_TRUE(check.ok()) << check << "\n" << describe;
          if (isa == Isa::kScalar) continue;
          EXPECT_EQ(absl::StrContains(describe, absl::StrCat(i, " planes of nine")), planes)
              << src << " -> " << dst << "\n" << describe;
          // Without padding lanes an op of its own, without the tiled op's
          // table, chunks and fills.
          const bool tiled_op = absl::StrContains(describe, "into rows of");
          if (planes) {
            EXPECT_EQ(tiled_op, lanes != o) << src << " -> " << dst << "\n" << describe;
          }
          with_planes += planes;
        }
      }
    }
  }
  if (SimdPathsHere().empty()) GTEST_SKIP() << "no AVX2 here";
  EXPECT_GT(with_planes, 0);
}

// The plans of planes of nine, each source ending at the last row's last
// element just before an unreadable page: every element and padding slot
// is what the index math says, and nothing past the source is read.
TEST(TransposeNine32Test, PlanesOfNineReadNothingPastTheSource) {
  std::mt19937_64 rng(43);
  for (const char* dst_text : {"f32[20,3,3,3]{0,1,3,2}", "f32[20,3,3,3]{0,1,3,2:T(1,128)}"}) {
    const Shape src_shape = ParseTestShape("f32[20,3,3,3]{3,2,1,0}");
    const Shape dst_shape = ParseTestShape(dst_text);
    absl::StatusOr<TiledLayout> s = TiledLayout::Create(src_shape);
    absl::StatusOr<TiledLayout> d = TiledLayout::Create(dst_shape);
    ASSERT_TRUE(s.ok() && d.ok());
    for (Isa isa : SimdPathsHere()) {
      const std::vector<uint8_t> fill = {0xAB};
      absl::StatusOr<RelayoutPlan> plan = OneThreadPlan(src_shape, dst_shape, isa, fill);
      ASSERT_TRUE(plan.ok()) << plan.status();
      ASSERT_TRUE(absl::StrContains(plan->Describe(), "3 planes of nine")) << plan->Describe();
      GuardedBytes guarded(s->byte_size(), GuardedBytes::kBeforeGuard);
      FillRandomBytes(rng, absl::MakeSpan(guarded.data(), s->byte_size()));
      std::vector<uint8_t> out(d->byte_size(), 0x5A);
      plan->Execute(guarded.data(), out.data());
      const absl::Status check = CheckRelayout(*s, guarded.data(), *d, out.data(), fill);
      EXPECT_TRUE(check.ok()) << check << " " << dst_text << " on " << IsaName(isa);
    }
  }
}

}  // namespace
}  // namespace xla_layout
