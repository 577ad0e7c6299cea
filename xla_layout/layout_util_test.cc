#include "xla_layout/layout_util.h"

#include <algorithm>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "xla_layout/shape_text.h"
#include "xla_layout/test_util.h"
#include "xla_layout/tiled_layout.h"

namespace xla_layout {
namespace {

TEST(SamePhysicalLayoutTest, SizeOneDimsMayMoveWhenUntiled) {
  Shape s = ParseTestShape("f32[8,1,128]");
  EXPECT_TRUE(SamePhysicalLayout(s, Layout(std::vector<int64_t>{2, 1, 0}),
                                 Layout(std::vector<int64_t>{2, 0, 1})));
  EXPECT_FALSE(SamePhysicalLayout(s, Layout(std::vector<int64_t>{2, 1, 0}),
                                  Layout(std::vector<int64_t>{0, 2, 1})));
  Layout tiled(std::vector<int64_t>{2, 1, 0});
  tiled.add_tile(Tile(std::vector<int64_t>{8, 128}));
  Layout moved(std::vector<int64_t>{2, 0, 1});
  moved.add_tile(Tile(std::vector<int64_t>{8, 128}));
  EXPECT_FALSE(SamePhysicalLayout(s, tiled, moved));  // tiles see the minor dims
  EXPECT_TRUE(SamePhysicalLayout(s, tiled, tiled));
}

TEST(ReshapeBitcastLayoutTest, XlaGatherExample) {
  // reshape.3 of the corpus: f32[288,1,32]{2,1,0} -> f32[16,1,18,32].
  Shape from = ParseTestShape("f32[288,1,32]");
  std::optional<Layout> l = ReshapeBitcastLayout(
      from, Layout(std::vector<int64_t>{2, 1, 0}), ParseTestShape("f32[16,1,18,32]"));
  ASSERT_TRUE(l.has_value());
  EXPECT_EQ(PrintLayout(*l), "{3,2,1,0}");
  // reshape.1: column-major s32[16,1,18] has no bitcast to s32[288,1].
  EXPECT_FALSE(ReshapeBitcastLayout(ParseTestShape("s32[16,1,18]"),
                                    Layout(std::vector<int64_t>{0, 1, 2}),
                                    ParseTestShape("s32[288,1]")));
}

TEST(ReshapeBitcastLayoutTest, ColumnMajorSplitAndTiles) {
  std::optional<Layout> l =
      ReshapeBitcastLayout(ParseTestShape("f32[6,4]"), Layout(std::vector<int64_t>{0, 1}),
                           ParseTestShape("f32[2,3,4]"));
  ASSERT_TRUE(l.has_value());
  EXPECT_EQ(PrintLayout(*l), "{1,0,2}");
  Layout tiled(std::vector<int64_t>{2, 1, 0});
  tiled.add_tile(Tile(std::vector<int64_t>{8, 128}));
  l = ReshapeBitcastLayout(ParseTestShape("f32[4,16,256]"), tiled,
                           ParseTestShape("f32[2,2,16,256]"));
  ASSERT_TRUE(l.has_value());
  EXPECT_EQ(PrintLayout(*l), "{3,2,1,0:T(8,128)}");
  // Merging into the tiled minor dims changes the tiles' meaning.
  EXPECT_FALSE(ReshapeBitcastLayout(ParseTestShape("f32[4,16,256]"), tiled,
                                    ParseTestShape("f32[64,256]")));
}

TEST(TransposeIsBitcastTest, OperandLayoutPermuted) {
  // Attention's [b,s,h,d] -> [b,h,s,d]: a bitcast when the result's layout
  // is the operand's permuted, tiles included.
  const std::vector<int64_t> perm = {0, 2, 1, 3};
  Shape in = ParseTestShape("f32[2,256,8,64]{3,2,1,0:T(8,128)}");
  EXPECT_TRUE(TransposeIsBitcast(in, ParseTestShape("f32[2,8,256,64]{3,1,2,0:T(8,128)}"), perm));
  EXPECT_FALSE(TransposeIsBitcast(in, ParseTestShape("f32[2,8,256,64]{3,2,1,0:T(8,128)}"), perm));
  EXPECT_FALSE(TransposeIsBitcast(in, ParseTestShape("f32[2,8,256,64]{3,1,2,0}"), perm));
  EXPECT_FALSE(TransposeIsBitcast(in, ParseTestShape("s32[2,8,256,64]{3,1,2,0:T(8,128)}"), perm));
  // Size-1 dims may sit anywhere in an untiled layout.
  EXPECT_TRUE(TransposeIsBitcast(ParseTestShape("f32[1,8]{1,0}"),
                                 ParseTestShape("f32[8,1]{1,0}"), {1, 0}));
  EXPECT_FALSE(TransposeIsBitcast(ParseTestShape("f32[2,8]{1,0}"),
                                  ParseTestShape("f32[8,2]{1,0}"), {1, 0}));
}

TEST(ReshapeIsBitcastTest, MergesAndSplitsInPhysicalOrder) {
  // [s,h,d] -> [s,h*d] row-major is a bitcast; column-major is not.
  EXPECT_TRUE(ReshapeIsBitcast(ParseTestShape("f32[256,8,64]{2,1,0}"),
                               ParseTestShape("f32[256,512]{1,0}")));
  EXPECT_FALSE(ReshapeIsBitcast(ParseTestShape("f32[256,8,64]{2,1,0}"),
                                ParseTestShape("f32[256,512]{0,1}")));
  EXPECT_FALSE(ReshapeIsBitcast(ParseTestShape("f32[256,8,64]{1,2,0}"),
                                ParseTestShape("f32[256,512]{1,0}")));
  EXPECT_TRUE(ReshapeIsBitcast(ParseTestShape("f32[4,16,256]{2,1,0:T(8,128)}"),
                               ParseTestShape("f32[2,2,16,256]{3,2,1,0:T(8,128)}")));
  EXPECT_FALSE(ReshapeIsBitcast(ParseTestShape("f32[4,16,256]{2,1,0:T(8,128)}"),
                                ParseTestShape("f32[64,256]{1,0:T(8,128)}")));
  EXPECT_FALSE(ReshapeIsBitcast(ParseTestShape("f32[6,4]{1,0}"),
                                ParseTestShape("s32[24]{0}")));
}

// Property: whenever a layout is returned, every element sits at the same
// offset before and after the reshape (checked with the index math).
TEST(ReshapeBitcastLayoutTest, RandomReshapesAreBitcasts) {
  std::mt19937_64 rng(7);
  int found = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    std::vector<int64_t> factors;
    int n = 1 + rng() % 4;
    for (int k = 0; k < n; ++k) factors.push_back(1 + rng() % 4);
    auto random_grouping = [&](std::vector<int64_t> f) {
      std::shuffle(f.begin(), f.end(), rng);
      std::vector<int64_t> dims;
      for (int64_t x : f) {
        if (!dims.empty() && rng() % 2) {
          dims.back() *= x;
        } else {
          dims.push_back(x);
        }
      }
      if (rng() % 3 == 0) dims.insert(dims.begin() + rng() % (dims.size() + 1), 1);
      return dims;
    };
    Shape from(F32, random_grouping(factors));
    Shape to(F32, random_grouping(factors));
    Layout from_layout = RandomLayoutFor(
        rng, from, {.max_tile_levels = 1, .allow_combine = false, .allow_attributes = false});
    std::optional<Layout> l = ReshapeBitcastLayout(from, from_layout, to);
    if (!l) continue;
    ++found;
    from.set_layout(from_layout);
    to.set_layout(*l);
    ASSERT_TRUE(ValidateLayoutForShape(*l, to).ok()) << PrintShape(to);
    absl::StatusOr<TiledLayout> a = TiledLayout::Create(from);
    absl::StatusOr<TiledLayout> b = TiledLayout::Create(to);
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_EQ(a->byte_size(), b->byte_size()) << PrintShape(from) << " " << PrintShape(to);
    int64_t count = *from.ElementCount();
    for (int64_t linear = 0; linear < count; ++linear) {
      std::vector<int64_t> ia(from.rank()), ib(to.rank());
      int64_t rest = linear;
      for (int d = from.rank() - 1; d >= 0; --d) {
        ia[d] = rest % from.dimensions(d);
        rest /= from.dimensions(d);
      }
      rest = linear;
      for (int d = to.rank() - 1; d >= 0; --d) {
        ib[d] = rest % to.dimensions(d);
        rest /= to.dimensions(d);
      }
      ASSERT_EQ(a->LinearIndex(ia), b->LinearIndex(ib))
          << PrintShape(from) << " -> " << PrintShape(to) << " element " << linear;
    }
  }
  EXPECT_GT(found, 400);
}

}  // namespace
}  // namespace xla_layout
