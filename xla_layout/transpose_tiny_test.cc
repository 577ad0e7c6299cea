#include "xla_layout/transpose_tiny.h"

#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla_layout/relayout.h"
#include "xla_layout/test_util.h"

namespace xla_layout {
namespace {

bool HasAvx512() { return ResolveIsa(Isa::kAuto) == Isa::kAvx512; }

// The kernel alone against an element loop: whole 8x16 blocks (8 columns
// by 16 rows) and 16x8 blocks into rows back to back, up to
// kMaxTinyElements, source rows and destination
// rows with gaps; bytes the transpose does not own keep their value, and
// nothing is read past the last source element (the source ends at it,
// the end of a vector: a heap overflow under ASan).
TEST(TransposeTiny32Test, MatchesAnElementLoop) {
  if (!HasAvx512()) GTEST_SKIP() << "no AVX-512 here";
  std::mt19937_64 rng(38);
  int trials = 0;
  for (int trial = 0; trial < 1000; ++trial) {
    // A third of the trials with source rows of 8 (the [8,N]{0,1} sources:
    // contiguous rows take a block of their own when there are 32 or
    // more), a third with 8 rows into destination rows back to back.
    const bool lines = trial % 3 == 1;
    const int64_t nb = lines ? 8 : 16 * (1 + rng() % 16);
    const int64_t na = trial % 3 == 0 ? 8
                       : lines        ? 16 * (4 + rng() % (internal::kMaxTinyElements / 128 - 3))
                                      : 8 * (1 + rng() % (internal::kMaxTinyElements / nb / 8));
    const int64_t ssb = 4 * (na + (rng() % 2 ? 0 : rng() % 9));
    const int64_t dsa = lines ? 32 : 4 * (nb + (rng() % 2 ? 0 : rng() % 9));
    ASSERT_TRUE(internal::TakesTransposeTiny(4, na, nb, dsa, Isa::kAvx512)) << na << "x" << nb;
    std::vector<uint8_t> src((nb - 1) * ssb + na * 4);
    FillRandomBytes(rng, absl::MakeSpan(src));
    std::vector<uint8_t> want(dsa * na, 0xEE), got(want.size(), 0xEE);
    for (int64_t a = 0; a < na; ++a) {
      for (int64_t b = 0; b < nb; ++b) {
        std::memcpy(&want[a * dsa + b * 4], &src[a * 4 + b * ssb], 4);
      }
    }
    internal::TransposeTiny32(reinterpret_cast<const char*>(src.data()),
                              reinterpret_cast<char*>(got.data()), na, nb, ssb, dsa);
    ASSERT_EQ(got, want) << "na=" << na << " nb=" << nb << " ssb=" << ssb << " dsa=" << dsa;
    ++trials;
  }
  EXPECT_EQ(trials, 1000);
}

// What the kernel takes: AVX-512, 32-bit elements, whole 8x16 blocks or
// 16x8 blocks into rows back to back, at most kMaxTinyElements.
TEST(TransposeTiny32Test, TakesWholeBlocksOfFloatsOnAvx512) {
  EXPECT_TRUE(internal::TakesTransposeTiny(4, 8, 16, 64, Isa::kAvx512));
  EXPECT_TRUE(internal::TakesTransposeTiny(4, 128, 32, 128, Isa::kAvx512));
  EXPECT_TRUE(internal::TakesTransposeTiny(4, 256, 16, 64, Isa::kAvx512));
  EXPECT_TRUE(internal::TakesTransposeTiny(4, 64, 8, 32, Isa::kAvx512));
  EXPECT_TRUE(internal::TakesTransposeTiny(4, 256, 8, 32, Isa::kAvx512));
  EXPECT_FALSE(internal::TakesTransposeTiny(4, 48, 8, 32, Isa::kAvx512));
  EXPECT_FALSE(internal::TakesTransposeTiny(4, 16, 8, 32, Isa::kAvx512));
  EXPECT_FALSE(internal::TakesTransposeTiny(4, 64, 8, 36, Isa::kAvx512));
  EXPECT_FALSE(internal::TakesTransposeTiny(4, 8, 8, 32, Isa::kAvx512));
  EXPECT_FALSE(internal::TakesTransposeTiny(4, 8, 16, 64, Isa::kAvx2));
  EXPECT_FALSE(internal::TakesTransposeTiny(4, 8, 16, 64, Isa::kScalar));
  EXPECT_FALSE(internal::TakesTransposeTiny(2, 8, 16, 64, Isa::kAvx512));
  EXPECT_FALSE(internal::TakesTransposeTiny(8, 8, 16, 64, Isa::kAvx512));
  EXPECT_FALSE(internal::TakesTransposeTiny(4, 8, 24, 96, Isa::kAvx512));
  EXPECT_FALSE(internal::TakesTransposeTiny(4, 12, 16, 64, Isa::kAvx512));
  EXPECT_FALSE(internal::TakesTransposeTiny(4, 256, 32, 128, Isa::kAvx512));
}

// Whole relayouts: the replayed copies the kernel is for, and edge shapes
// around them (one block, blocks in planes, planes too small for it,
// column counts that are not whole blocks), with a padding value, on every path here: each writes
// what the index math says, and on AVX-512 the small plan names the kernel
// for the whole-block ones.
TEST(TransposeTiny32Test, TinyCopiesMatchTheIndexMath) {
  const std::vector<std::pair<std::string, std::string>> copies = {
      {"f32[8,16]{0,1}", "f32[8,16]{1,0}"},
      {"s32[8,16]{0,1}", "s32[8,16]{1,0}"},
      {"f32[16,16]{1,0}", "f32[16,16]{1,0:T(16,1)}"},
      {"f32[16,32]{0,1}", "f32[16,32]{1,0}"},
      {"f32[8,128]{0,1}", "f32[8,128]{1,0}"},
      {"f32[32,128]{1,0}", "f32[32,128]{0,1}"},
      {"f32[64,256]{1,0}", "f32[64,256]{1,0:T(16,1)}"},
      {"f32[8,256]{1,0}", "f32[8,256]{0,1}"},
      {"f32[16,128]{1,0}", "f32[16,128]{1,0:T(8,1)}"},
      {"f32[4,16,64]{2,1,0}", "f32[4,16,64]{1,2,0}"},
  };
  const std::vector<std::pair<std::string, std::string>> edges = {
      {"f32[8,24]{0,1}", "f32[8,24]{1,0}"},
      {"f32[9,16]{0,1}", "f32[9,16]{1,0}"},
      {"f32[7,16]{0,1}", "f32[7,16]{1,0}"},
      {"f32[32,256]{1,0}", "f32[32,256]{0,1}"},
      {"f32[24,8]{1,0}", "f32[24,8]{0,1}"},
      {"f32[16,16]{1,0}", "f32[16,16]{1,0:T(8,1)}"},
      {"f32[2,4,32,32]{3,2,1,0}", "f32[2,4,32,32]{3,2,1,0:T(8,1)}"},
      {"f32[3,16,8]{2,1,0}", "f32[3,16,8]{1,2,0}"},
      {"f32[2,4,32,32]{3,2,1,0:T(16,16)}", "f32[2,4,32,32]{3,2,1,0:T(16,1)}"},
  };
  std::mt19937_64 rng(7);
  int with_kernel = 0;
  for (const auto* list : {&copies, &edges}) {
    for (const auto& [src_text, dst_text] : *list) {
      for (Isa isa : IsaPathsHere()) {
        std::string text;
        absl::Status check = CheckOneThreadRelayout(src_text, dst_text, isa, {0xC3}, rng, &text);
        ASSERT_TRUE(check.ok()) << check << "\n" << text;
        const bool takes = absl::StrContains(text, "transpose in register blocks");
        EXPECT_EQ(takes, list == &copies && isa == Isa::kAvx512)
            << src_text << " -> " << dst_text << " " << IsaName(isa) << "\n" << text;
        with_kernel += takes;
      }
    }
  }
  if (HasAvx512()) {
    EXPECT_EQ(with_kernel, static_cast<int>(copies.size()));
  }
}

}  // namespace
}  // namespace xla_layout
