#include "tools/snapshot_io.h"

#include <random>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/logical.h"
#include "xla_layout/shape_text.h"

namespace xla_layout::cli {
namespace {

using ::testing::HasSubstr;

Shape ParsedShape(absl::string_view text) {
  absl::StatusOr<Shape> s = ParseShape(text);
  EXPECT_TRUE(s.ok()) << s.status();
  return *s;
}

// Random arrays of every stored type go to a literal and back bit for bit,
// through tuples and non-default layouts.
TEST(SnapshotIoTest, ArraysRoundTripThroughLiterals) {
  for (const char* text : {"f32[3,4]{0,1}", "bf16[5]", "s4[7]", "u4[3]", "pred[4]", "s8[2,2]",
                           "u16[3]", "s64[2]", "f64[2]", "c64[3]", "f16[2,3]{0,1}"}) {
    SCOPED_TRACE(text);
    const Shape shape = ParsedShape(text);
    std::mt19937_64 rng(7);
    absl::StatusOr<runtime::LogicalArray> a = runtime::RandomLogicalArray(shape, rng);
    ASSERT_TRUE(a.ok()) << a.status();
    size_t next = 0;
    absl::StatusOr<xla::LiteralProto> lit = LiteralOfLeaves(shape, {*a}, &next);
    ASSERT_TRUE(lit.ok()) << lit.status();
    absl::StatusOr<std::vector<runtime::LogicalArray>> back = LeavesOfLiteral(*lit, shape, "x");
    ASSERT_TRUE(back.ok()) << back.status();
    ASSERT_EQ(back->size(), 1u);
    EXPECT_EQ(runtime::FirstDifference(*a, (*back)[0]), std::nullopt);
  }
}

TEST(SnapshotIoTest, TuplesFlattenToLeavesInOrder) {
  const Shape shape = ParsedShape("(f32[2], (s32[3], pred[]))");
  std::mt19937_64 rng(1);
  std::vector<runtime::LogicalArray> leaves;
  for (const char* t : {"f32[2]", "s32[3]", "pred[]"}) {
    leaves.push_back(*runtime::RandomLogicalArray(ParsedShape(t), rng));
  }
  size_t next = 0;
  absl::StatusOr<xla::LiteralProto> lit = LiteralOfLeaves(shape, leaves, &next);
  ASSERT_TRUE(lit.ok()) << lit.status();
  EXPECT_EQ(next, 3u);
  EXPECT_EQ(lit->tuple_literals(1).tuple_literals(0).s32s_size(), 3);
  absl::StatusOr<std::vector<runtime::LogicalArray>> back = LeavesOfLiteral(*lit, shape, "x");
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->size(), 3u);
  for (size_t k = 0; k < 3; ++k) EXPECT_EQ(runtime::FirstDifference(leaves[k], (*back)[k]), std::nullopt);
}

TEST(SnapshotIoTest, AnArgumentOfAnotherShapeIsNamed) {
  std::mt19937_64 rng(1);
  runtime::LogicalArray a = *runtime::RandomLogicalArray(ParsedShape("f32[2]"), rng);
  size_t next = 0;
  xla::LiteralProto lit = *LiteralOfLeaves(ParsedShape("f32[2]"), {a}, &next);
  absl::StatusOr<std::vector<runtime::LogicalArray>> back =
      LeavesOfLiteral(lit, ParsedShape("f32[3]"), "argument 1");
  ASSERT_FALSE(back.ok());
  EXPECT_THAT(back.status().message(),
              HasSubstr("the snapshot's argument 1 is f32[2]{0}, the module takes f32[3]"));
}

}  // namespace
}  // namespace xla_layout::cli
