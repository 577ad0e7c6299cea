#include "xla_layout/tiled_layout.h"

#include <random>
#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla_layout/shape_text.h"
#include "xla_layout/test_util.h"

namespace xla_layout {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TiledLayout Make(absl::string_view text) {
  absl::StatusOr<Shape> shape = ParseShape(text);
  EXPECT_TRUE(shape.ok()) << shape.status();
  absl::StatusOr<TiledLayout> t = TiledLayout::Create(*shape);
  EXPECT_TRUE(t.ok()) << t.status();
  return *std::move(t);
}

// Figure 1 of the documents.
TEST(TiledLayoutTest, Figure1Element23Is17In24Slots) {
  TiledLayout t = Make("f32[3,5]{1,0:T(2,2)}");
  EXPECT_EQ(t.LinearIndex({2, 3}), 17);
  EXPECT_EQ(t.slot_count(), 24);
  EXPECT_EQ(t.element_count(), 15);
  EXPECT_EQ(t.padding_slots(), 9);
  EXPECT_THAT(t.tiled_dims(), ElementsAre(2, 3, 2, 2));
  EXPECT_EQ(t.byte_size(), 96);
}

// Figure 2: the full 4x8 map of T(2,4)(2,1).
TEST(TiledLayoutTest, Figure2RepeatedTiling) {
  TiledLayout t = Make("f32[4,8]{1,0:T(2,4)(2,1)}");
  const int64_t expected[4][8] = {{0, 2, 4, 6, 8, 10, 12, 14},
                                  {1, 3, 5, 7, 9, 11, 13, 15},
                                  {16, 18, 20, 22, 24, 26, 28, 30},
                                  {17, 19, 21, 23, 25, 27, 29, 31}};
  for (int64_t r = 0; r < 4; ++r) {
    for (int64_t c = 0; c < 8; ++c) {
      EXPECT_EQ(t.LinearIndex({r, c}), expected[r][c]) << r << "," << c;
    }
  }
  EXPECT_EQ(t.slot_count(), 32);
}

// Combined dims: the 5-D shape lays out exactly like the 2-D one.
TEST(TiledLayoutTest, CombinedDimsMatchTheFoldedShape) {
  TiledLayout five = Make("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}");
  TiledLayout two = Make("f32[112,110]{1,0:T(2,3)}");
  EXPECT_EQ(five.slot_count(), two.slot_count());
  EXPECT_THAT(five.tiled_dims(), ElementsAre(56, 37, 2, 3));
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t b = 0; b < 7; ++b)
      for (int64_t c = 0; c < 8; ++c)
        for (int64_t d = 0; d < 11; ++d)
          for (int64_t e = 0; e < 10; ++e) {
            int64_t row = (a * 7 + b) * 8 + c, col = d * 10 + e;
            ASSERT_EQ(five.LinearIndex({a, b, c, d, e}),
                      two.LinearIndex({row, col}));
          }
}

TEST(TiledLayoutTest, PhysicalDimsFollowMinorToMajor) {
  TiledLayout t = Make("f32[2,3,4]{0,2,1}");
  EXPECT_THAT(t.physical_dims(), ElementsAre(3, 4, 2));
  EXPECT_EQ(t.LinearIndex({1, 2, 3}), (2 * 4 + 3) * 2 + 1);
  EXPECT_THAT(*t.UntiledStrides(), ElementsAre(1, 8, 2));
}

TEST(TiledLayoutTest, UntiledStridesOnlyWithoutTiles) {
  EXPECT_FALSE(Make("f32[4,4]{1,0:T(2,2)}").UntiledStrides().has_value());
  EXPECT_THAT(*Make("f32[4,5]{1,0}").UntiledStrides(), ElementsAre(5, 1));
}

TEST(TiledLayoutTest, TileLevelsAndPaddingOfBf16) {
  TiledLayout t = Make("bf16[10,200]{1,0:T(8,128)(2,1)}");
  EXPECT_THAT(t.level_dims(1), ElementsAre(2, 2, 8, 128));
  EXPECT_THAT(t.tiled_dims(), ElementsAre(2, 2, 4, 128, 2, 1));
  EXPECT_EQ(t.slot_count(), 2 * 2 * 8 * 128);
  EXPECT_EQ(t.byte_size(), 2 * 2 * 8 * 128 * 2);
}

TEST(TiledLayoutTest, SubBytePackingAndTailPadding) {
  TiledLayout packed = Make("s4[64,128]{1,0:T(2,128)E(4)}");
  EXPECT_EQ(packed.byte_size(), 64 * 128 / 2);
  TiledLayout unpacked = Make("s4[64,128]{1,0}");
  EXPECT_EQ(unpacked.byte_size(), 64 * 128);
  TiledLayout tail = Make("f32[5]{0:L(8)}");
  EXPECT_EQ(tail.slot_count(), 8);
  EXPECT_EQ(tail.LogicalIndex(6), std::nullopt);
  TiledLayout padded = Make("pred[8,8,8]{0,2,1:T(8,128)E(32)}");
  EXPECT_EQ(padded.element_size_in_bits(), 32);
  EXPECT_EQ(padded.byte_size(), 8 * 1 * 8 * 128 * 4);
}

TEST(TiledLayoutTest, TiledScalarIsOneElementArray) {
  TiledLayout t = Make("u32[]{:T(128)}");
  EXPECT_EQ(t.slot_count(), 128);
  EXPECT_EQ(t.LinearIndex({}), 0);
  EXPECT_EQ(t.LogicalIndex(1), std::nullopt);
  TiledLayout plain = Make("f32[]");
  EXPECT_EQ(plain.slot_count(), 1);
}

TEST(TiledLayoutTest, EmptyArraysHaveNoSlots) {
  TiledLayout t = Make("f32[0,5]{1,0:T(2,2)}");
  EXPECT_EQ(t.slot_count(), 0);
  EXPECT_EQ(t.LogicalIndex(0), std::nullopt);
}

TEST(TiledLayoutTest, Errors) {
  absl::StatusOr<Shape> unbounded = ParseShape("f32[?,4]");
  ASSERT_TRUE(unbounded.ok());
  EXPECT_THAT(TiledLayout::Create(*unbounded).status().message(),
              HasSubstr("unbounded"));
  absl::StatusOr<Shape> huge =
      ParseShape("f32[4611686018427387904,4]{1,0}");
  ASSERT_TRUE(huge.ok());
  EXPECT_THAT(TiledLayout::Create(*huge).status().message(),
              HasSubstr("overflows"));
  EXPECT_FALSE(TiledLayout::Create(Shape::MakeToken()).ok());
  TiledLayout t = Make("f32[3,5]{1,0:T(2,2)}");
  EXPECT_FALSE(t.CheckedLinearIndex({3, 0}).ok());
  EXPECT_FALSE(t.CheckedLinearIndex({0}).ok());
}

TEST(TiledLayoutTest, DigitsDescribeTheTiledDims) {
  TiledLayout t = Make("f32[3,5]{1,0:T(2,2)}");
  ASSERT_TRUE(t.digits().has_value());
  const auto& d = *t.digits();
  ASSERT_EQ(d.size(), 4u);
  EXPECT_EQ(d[0].logical_dim, 0);
  EXPECT_EQ(d[0].divisor, 2);
  EXPECT_EQ(d[3].logical_dim, 1);
  EXPECT_EQ(d[3].divisor, 1);
  EXPECT_EQ(d[3].stride, 1);
  // Folding two different logical dims has no digit form.
  EXPECT_FALSE(Make("f32[3,5]{1,0:T(*,2)}").digits().has_value());
}

// Slot <-> element through the digits, compared with the index math.
std::optional<IndexVector> DigitLogicalIndex(const TiledLayout& t,
                                             int64_t slot) {
  IndexVector e(t.rank(), 0);
  for (const TiledLayout::Digit& d : *t.digits()) {
    int64_t coord = (slot / d.stride) % d.extent;
    if (d.logical_dim < 0) {
      if (coord != 0) return std::nullopt;
      continue;
    }
    e[d.logical_dim] += coord * d.divisor;
  }
  for (int i = 0; i < t.rank(); ++i) {
    if (e[i] >= t.logical_dims()[i]) return std::nullopt;
  }
  return e;
}

// The index map is a bijection from logical elements onto non-padding slots;
// the digit form, where it exists, agrees with it.
TEST(TiledLayoutPropertyTest, BijectionOverRandomLayouts) {
  std::mt19937_64 rng(20261122);
  int with_digits = 0, with_stars = 0;
  for (int iteration = 0; iteration < 10000; ++iteration) {
    Shape shape = RandomArrayShape(rng);
    SCOPED_TRACE(shape.ToString());
    absl::StatusOr<TiledLayout> t = TiledLayout::Create(shape);
    ASSERT_TRUE(t.ok()) << t.status();
    for (const Tile& tile : shape.layout().tiles()) {
      for (int64_t d : tile.dimensions()) with_stars += d == kCombineDimension;
    }
    int64_t int_slots = 1;
    for (int64_t d : t->tiled_dims()) int_slots *= d;
    ASSERT_GE(t->slot_count(), int_slots);
    int64_t elements = 0;
    for (int64_t slot = 0; slot < t->slot_count(); ++slot) {
      std::optional<IndexVector> e = t->LogicalIndex(slot);
      if (t->digits().has_value() && slot < int_slots) {
        ASSERT_EQ(DigitLogicalIndex(*t, slot), e) << "slot " << slot;
      }
      if (!e.has_value()) continue;
      ++elements;
      ASSERT_EQ(t->LinearIndex(*e), slot);
    }
    ASSERT_EQ(elements, t->element_count());
    with_digits += t->digits().has_value();
  }
  // The generator must exercise both the digit form and '*'.
  EXPECT_GT(with_digits, 5000);
  EXPECT_GT(with_stars, 1000);
}

}  // namespace
}  // namespace xla_layout
