#include "xla_layout/transpose_weights.h"

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla_layout/relayout.h"
#include "xla_layout/test_util.h"
#include "xla_layout/tiled_layout.h"

namespace xla_layout {
namespace {

using ::testing::HasSubstr;

// The kernel alone against an element loop, on every SIMD path here:
// random column counts across the kernel's range (8 to kMaxWeightColumns,
// so 0, 1, 2 and more columns past a multiple of 8), rows, source strides
// (rows within 40 bytes take the AVX-512 permute of a lone column, wider
// ones the element loop), destination rows with gaps; bytes the transpose
// does not own keep their value, and nothing is read past the last source
// element (the source ends at it, the end of a vector).
TEST(TransposeWeights32Test, MatchesAnElementLoop) {
  std::mt19937_64 rng(9);
  int trials = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int64_t na = 8 + rng() % (internal::kMaxWeightColumns - 7);
    int64_t nb = 8 + rng() % 120;
    if (na % 8 == 0 && (nb == 8 || nb == 16)) ++nb;
    const int64_t ssb = 4 * (na + (rng() % 2 ? 0 : rng() % 6));
    const int64_t dsa = 4 * (nb + rng() % 9);
    const int64_t src_bytes = (nb - 1) * ssb + na * 4;
    std::vector<uint8_t> src(src_bytes);
    FillRandomBytes(rng, absl::MakeSpan(src));
    std::vector<uint8_t> want(dsa * na, 0xEE);
    for (int64_t a = 0; a < na; ++a) {
      for (int64_t b = 0; b < nb; ++b) std::memcpy(&want[a * dsa + b * 4], &src[a * 4 + b * ssb], 4);
    }
    for (Isa isa : SimdPathsHere()) {
      // The source at the end of a vector: a read past it is a heap
      // overflow under ASan.
      std::vector<uint8_t> in(src);
      std::vector<uint8_t> got(want.size(), 0xEE);
      internal::TransposeWeights32(reinterpret_cast<const char*>(in.data()),
                                   reinterpret_cast<char*>(got.data()), na, nb, ssb, dsa, isa);
      ASSERT_EQ(got, want) << IsaName(isa) << " na=" << na << " nb=" << nb << " ssb=" << ssb
                           << " dsa=" << dsa;
      ++trials;
    }
  }
  if (SimdPathsHere().empty()) GTEST_SKIP() << "no AVX2 here";
  EXPECT_GT(trials, 0);
}

// What the kernel takes: 32-bit elements, 8 to kMaxWeightColumns columns,
// 8 rows or more (not panels of 8 or 16 rows by whole column blocks), on
// AVX2 and AVX-512.
TEST(TransposeWeights32Test, TakesNarrowSourceRowsOfFloats) {
  EXPECT_TRUE(internal::TakesTransposeWeights(4, 9, 96, 36, Isa::kAvx2));
  EXPECT_TRUE(internal::TakesTransposeWeights(4, 32, 24, 128, Isa::kAvx512));
  EXPECT_FALSE(internal::TakesTransposeWeights(4, 9, 96, 36, Isa::kScalar));
  EXPECT_FALSE(internal::TakesTransposeWeights(8, 9, 96, 72, Isa::kAvx2));
  EXPECT_FALSE(internal::TakesTransposeWeights(4, 7, 96, 28, Isa::kAvx2));
  EXPECT_FALSE(internal::TakesTransposeWeights(4, 9, 7, 36, Isa::kAvx2));
  EXPECT_FALSE(internal::TakesTransposeWeights(4, 33, 96, 132, Isa::kAvx2));
  EXPECT_FALSE(internal::TakesTransposeWeights(4, 16, 8, 64, Isa::kAvx2));
  EXPECT_TRUE(internal::TakesTransposeWeights(4, 16, 24, 64, Isa::kAvx2));
  EXPECT_TRUE(internal::TakesTransposeWeights(4, 9, 384, 36, Isa::kAvx2));
  EXPECT_FALSE(internal::TakesTransposeWeights(4, 9, 576, 36, Isa::kAvx2));
}

// Whole relayouts of the weight copies the layout pass inserts ([C,1,3,3]
// to {0,1,3,2}, with and without T(1,128); [C,K,1,1] into T(8,128)) and of
// small float transposes, with random sizes: the small plan names the
// kernel on the SIMD paths, and every path writes what the index math says
// (padding included).
TEST(TransposeWeights32Test, WeightCopiesMatchTheIndexMath) {
  std::mt19937_64 rng(31);
  int with_kernel = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const int64_t c = 8 + rng() % 600, k = 8 + rng() % 25, r = 8 + rng() % 40;
    const std::vector<std::pair<std::string, std::string>> copies = {
        {absl::StrCat("f32[", c, ",1,3,3]{3,2,1,0}"), absl::StrCat("f32[", c, ",1,3,3]{0,1,3,2}")},
        {absl::StrCat("f32[", c, ",1,3,3]{3,2,1,0}"),
         absl::StrCat("f32[", c, ",1,3,3]{0,1,3,2:T(1,128)}")},
        {absl::StrCat("f32[", c, ",", k, ",1,1]{3,2,1,0}"),
         absl::StrCat("f32[", c, ",", k, ",1,1]{0,1,3,2:T(8,128)}")},
        {absl::StrCat("s32[", k, ",", r, "]{0,1}"), absl::StrCat("s32[", k, ",", r, "]{1,0}")},
    };
    for (const auto& [src_text, dst_text] : copies) {
      for (Isa isa : IsaPathsHere()) {
        std::string text;
        absl::Status check = CheckOneThreadRelayout(src_text, dst_text, isa, {0xC3}, rng, &text);
        ASSERT_TRUE(check.ok()) << check << "\n" << text;
        with_kernel += absl::StrContains(text, "transpose of 32-bit columns");
      }
    }
  }
  if (SimdPathsHere().empty()) GTEST_SKIP() << "no AVX2 here";
  EXPECT_GT(with_kernel, 100);
}

// The convolution weight copy of the replayed copies on the SIMD paths:
// the small plan runs it with this kernel.
TEST(TransposeWeights32Test, DepthwiseWeightsTakeTheKernel) {
  for (Isa isa : SimdPathsHere()) {
    RelayoutOptions options;
    options.isa = isa;
    options.threads = 1;
    absl::StatusOr<RelayoutPlan> plan =
        RelayoutPlan::Create(ParseTestShape("f32[96,1,3,3]{3,2,1,0}"),
                             ParseTestShape("f32[96,1,3,3]{0,1,3,2:T(1,128)}"), options);
    ASSERT_TRUE(plan.ok()) << plan.status();
    EXPECT_THAT(plan->Describe(), HasSubstr("small: transpose of 32-bit columns"))
        << IsaName(isa);
  }
}

}  // namespace
}  // namespace xla_layout
