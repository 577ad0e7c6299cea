#include "xla_layout/transpose_weights_tiled.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla_layout/relayout.h"
#include "xla_layout/test_util.h"
#include "xla_layout/tiled_layout.h"

namespace xla_layout {
namespace {

constexpr char kName[] = "transpose of 32-bit columns into rows of";

// The tiling MatchWeightsTiling finds for a pair of shapes, on `isa`.
std::optional<internal::WeightsTiling> Match(const std::string& src, const std::string& dst,
                                             Isa isa = Isa::kAvx2) {
  absl::StatusOr<TiledLayout> s = TiledLayout::Create(ParseTestShape(src));
  absl::StatusOr<TiledLayout> d = TiledLayout::Create(ParseTestShape(dst));
  EXPECT_TRUE(s.ok() && d.ok()) << src << " " << dst;
  return internal::MatchWeightsTiling(*s, *d, {0, 0, 0, 0}, isa);
}

// Plans src -> dst on every ISA path here with padding value `fill`, checks
// every element and padding slot against the index math, and returns how
// many of those plans ran the tiled kernel.
int CheckOnEveryPath(const std::string& src_text, const std::string& dst_text,
                     const std::vector<uint8_t>& fill, std::mt19937_64& rng) {
  int with_kernel = 0;
  for (Isa isa : IsaPathsHere()) {
    std::string text;
    absl::Status check = CheckOneThreadRelayout(src_text, dst_text, isa, fill, rng, &text);
    EXPECT_TRUE(check.ok()) << check << "\n" << text;
    with_kernel += absl::StrContains(text, kName);
  }
  return with_kernel;
}

// The weight copies into tiles, with sizes around every edge of the
// kernel: rows (C) not a multiple of 8 or 128, a last tile of 1 to 7 rows
// (element by element), a whole number of tiles with padding rows only;
// columns (K) of 8 to 32 (lone columns, an overlapping block, padding rows
// of T(8,128) when K is not a multiple of 8); T(1,128), T(2,128),
// T(8,128); a padding value whose bytes differ.
TEST(TransposeWeightsTiledTest, WritesWhatTheIndexMathSays) {
  std::mt19937_64 rng(38);
  std::vector<int64_t> cs = {8, 9, 15, 96, 127, 128, 129, 133, 135, 136, 255, 256, 257, 300};
  for (int i = 0; i < 12; ++i) cs.push_back(8 + rng() % 700);
  int with_kernel = 0;
  for (int64_t c : cs) {
    const int64_t k = 8 + rng() % 25;
    const std::vector<uint8_t> fill =
        rng() % 2 ? std::vector<uint8_t>{0xC3} : std::vector<uint8_t>{1, 2, 3, 4};
    with_kernel += CheckOnEveryPath(absl::StrCat("f32[", c, ",1,3,3]{3,2,1,0}"),
                                    absl::StrCat("f32[", c, ",1,3,3]{0,1,3,2:T(1,128)}"), fill,
                                    rng);
    for (const char* tile : {"T(8,128)", "T(2,128)"}) {
      with_kernel += CheckOnEveryPath(absl::StrCat("f32[", c, ",", k, ",1,1]{3,2,1,0}"),
                                      absl::StrCat("f32[", c, ",", k, ",1,1]{0,1,3,2:", tile, "}"),
                                      fill, rng);
    }
    with_kernel += CheckOnEveryPath(absl::StrCat("s32[", c, ",3,3,3]{3,2,1,0}"),
                                    absl::StrCat("s32[", c, ",3,3,3]{0,1,3,2:T(1,128)}"), fill,
                                    rng);
    // Untiled: taken when the source outgrows L1 or the rows are a table.
    with_kernel += CheckOnEveryPath(absl::StrCat("f32[", c, ",1,3,3]{3,2,1,0}"),
                                    absl::StrCat("f32[", c, ",1,3,3]{0,1,3,2}"), fill, rng);
    with_kernel += CheckOnEveryPath(absl::StrCat("f32[", c, ",3,3,3]{3,2,1,0}"),
                                    absl::StrCat("f32[", c, ",3,3,3]{0,1,3,2}"), fill, rng);
  }
  if (SimdPathsHere().empty()) GTEST_SKIP() << "no AVX2 here";
  EXPECT_GT(with_kernel, static_cast<int>(cs.size()));
}

// What it takes: the tiling of the depthwise and 1x1 weights, with their
// rows from the index math; not the scalar path, copies that
// TransposeWeights32 takes whole, other element sizes, rows over
// kMaxTiledWeightColumns or under 8 elements, fewer than 8 rows, panels of
// 8 or 16 rows.
TEST(TransposeWeightsTiledTest, TakesWeightsIntoPaddedRows) {
  std::optional<internal::WeightsTiling> t =
      Match("f32[144,24,1,1]{3,2,1,0}", "f32[144,24,1,1]{0,1,3,2:T(8,128)}");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->na, 24);
  EXPECT_EQ(t->nb, 144);
  EXPECT_EQ(t->ssb, 96);
  EXPECT_EQ(t->tb, 128);
  EXPECT_EQ(t->tiles, 2);
  EXPECT_EQ(t->dgb, 4096);
  // Row k: tile row k / 8 (two tiles of 4096 bytes each), row k % 8.
  ASSERT_EQ(t->rows.size(), 24u);
  EXPECT_EQ(t->rows[9], 8192 + 512);
  EXPECT_TRUE(t->pad_rows.empty());
  EXPECT_EQ(t->dsa, 0);

  // K = 12: rows 12..15 of the second tile row are padding.
  t = Match("f32[136,12,1,1]{3,2,1,0}", "f32[136,12,1,1]{0,1,3,2:T(8,128)}");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->pad_rows, (std::vector<int64_t>{10240, 10752, 11264, 11776}));

  // T(1,128): tiles that continue one another are one row of lanes.
  t = Match("f32[960,1,3,3]{3,2,1,0}", "f32[960,1,3,3]{0,1,3,2:T(1,128)}", Isa::kAvx512);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->na, 9);
  EXPECT_EQ(t->tb, 1024);
  EXPECT_EQ(t->tiles, 1);
  EXPECT_EQ(t->dsa, 4096);

  EXPECT_FALSE(Match("f32[960,1,3,3]{3,2,1,0}", "f32[960,1,3,3]{0,1,3,2:T(1,128)}", Isa::kScalar));
  // Evenly spaced rows that TransposeWeights32 takes in one call.
  EXPECT_FALSE(Match("f32[96,1,3,3]{3,2,1,0}", "f32[96,1,3,3]{0,1,3,2}"));
  EXPECT_FALSE(Match("f32[96,1,3,3]{3,2,1,0}", "f32[96,1,3,3]{0,1,3,2:T(1,128)}"));
  EXPECT_FALSE(Match("f32[96,16,1,1]{3,2,1,0}", "f32[96,16,1,1]{0,1,3,2:T(8,128)}"));
  EXPECT_TRUE(Match("f32[576,1,3,3]{3,2,1,0}", "f32[576,1,3,3]{0,1,3,2}"));
  EXPECT_TRUE(Match("f32[32,3,3,3]{3,2,1,0}", "f32[32,3,3,3]{0,1,3,2}"));
  // Two tiles of lanes without padding: the rows are a table.
  EXPECT_TRUE(Match("f32[256,16,1,1]{3,2,1,0}", "f32[256,16,1,1]{0,1,3,2:T(8,128)}"));
  EXPECT_FALSE(Match("f64[960,1,3,3]{3,2,1,0}", "f64[960,1,3,3]{0,1,3,2:T(1,128)}"));
  EXPECT_FALSE(Match("f32[196,33,1,1]{3,2,1,0}", "f32[196,33,1,1]{0,1,3,2:T(8,128)}"));
  EXPECT_FALSE(Match("f32[196,7,1,1]{3,2,1,0}", "f32[196,7,1,1]{0,1,3,2:T(8,128)}"));
  EXPECT_FALSE(Match("f32[7,16,1,1]{3,2,1,0}", "f32[7,16,1,1]{0,1,3,2:T(8,128)}"));
  EXPECT_FALSE(Match("f32[8,16]{0,1}", "f32[8,16]{1,0:T(8,128)}"));
  // Source rows that are not the destination's lanes: no transpose.
  EXPECT_FALSE(Match("f32[24,144,1,1]{3,2,1,0}", "f32[24,144,1,1]{1,3,2,0:T(1,128)}"));
}

// [O,I,3,3] to {0,1,3,2}: plane i is O source rows of 9 elements from
// byte 36 * i, into 9 destination rows I * O * 4 bytes apart from byte
// O * 4 * i. Not when those 9 rows share an L1 set (4096 bytes apart).
TEST(TransposeWeightsTiledTest, FindsPlanesOfNine) {
  std::optional<internal::WeightsTiling> t =
      Match("f32[32,3,3,3]{3,2,1,0}", "f32[32,3,3,3]{0,1,3,2}");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->na, 27);
  EXPECT_EQ(t->nine_dsa, 384);
  EXPECT_EQ(t->plane_dst, 128);
  t = Match("f32[32,3,3,3]{3,2,1,0}", "f32[32,3,3,3]{0,1,3,2:T(1,128)}");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->nine_dsa, 1536);
  EXPECT_EQ(t->plane_dst, 512);
  // Over kMaxTiledWeightColumns, taken as planes.
  t = Match("f32[32,16,3,3]{3,2,1,0}", "f32[32,16,3,3]{0,1,3,2}");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->na, 144);
  EXPECT_EQ(t->nine_dsa, 2048);
  EXPECT_EQ(t->plane_dst, 128);
  EXPECT_FALSE(Match("f32[32,32,3,3]{3,2,1,0}", "f32[32,32,3,3]{0,1,3,2}"));
  // Evenly spaced rows (a multiple of 9 of them) are not planes.
  EXPECT_FALSE(Match("f32[96,576,1,1]{3,2,1,0}", "f32[96,576,1,1]{0,1,3,2:T(8,128)}"));
  // A row table that is not planes of nine keeps the column blocks.
  t = Match("f32[144,24,1,1]{3,2,1,0}", "f32[144,24,1,1]{0,1,3,2:T(8,128)}");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->plane_dst, 0);
}

// The kernel alone: it writes every byte of the destination, the padding
// value in the lanes past the last row and in the padding rows.
TEST(TransposeWeightsTiledTest, WritesEveryDestinationByte) {
  std::optional<internal::WeightsTiling> t =
      Match("f32[136,12,1,1]{3,2,1,0}", "f32[136,12,1,1]{0,1,3,2:T(8,128)}");
  ASSERT_TRUE(t.has_value());
  for (uint8_t& b : t->fill) b = 0xAB;
  std::vector<float> src(136 * 12);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i);
  for (Isa isa : SimdPathsHere()) {
    std::vector<uint8_t> dst(2 * 2 * 4096, 0x00);
    internal::TransposeWeightsTiled32(*t, reinterpret_cast<const char*>(src.data()),
                                      reinterpret_cast<char*>(dst.data()), isa);
    for (int64_t k = 0; k < 16; ++k) {
      for (int64_t c = 0; c < 256; ++c) {
        const int64_t offset = (k / 8) * 8192 + (c / 128) * 4096 + (k % 8) * 512 + (c % 128) * 4;
        float got;
        std::memcpy(&got, &dst[offset], 4);
        if (k < 12 && c < 136) {
          ASSERT_EQ(got, static_cast<float>(c * 12 + k)) << IsaName(isa) << " k=" << k;
        } else {
          ASSERT_EQ(dst[offset], 0xAB) << IsaName(isa) << " k=" << k << " c=" << c;
        }
      }
    }
  }
}

}  // namespace
}  // namespace xla_layout
