#include "hlo/hlo_literal.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla_layout/shape_text.h"

namespace xla_layout {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

HloLiteral Ok(absl::string_view text, absl::string_view shape) {
  absl::StatusOr<HloLiteral> lit = HloLiteral::Parse(text, *ParseShape(shape));
  EXPECT_TRUE(lit.ok()) << shape << " " << text << ": " << lit.status();
  return lit.ok() ? *std::move(lit) : HloLiteral();
}

std::string Error(absl::string_view text, absl::string_view shape, size_t* offset = nullptr) {
  absl::StatusOr<HloLiteral> lit = HloLiteral::Parse(text, *ParseShape(shape), offset);
  EXPECT_FALSE(lit.ok()) << shape << " " << text << " parsed";
  return lit.ok() ? "" : std::string(lit.status().message());
}

TEST(HloLiteralTest, ScalarsOfEveryKind) {
  EXPECT_THAT(Ok("1", "s32[]").ints(), ElementsAre(1));
  EXPECT_THAT(Ok("-128", "s8[]").ints(), ElementsAre(-128));
  EXPECT_THAT(Ok("255", "u8[]").ints(), ElementsAre(255));
  EXPECT_THAT(Ok("true", "pred[]").ints(), ElementsAre(1));
  EXPECT_THAT(Ok("false", "pred[]").ints(), ElementsAre(0));
  EXPECT_THAT(Ok("-8", "s4[]").ints(), ElementsAre(-8));
  EXPECT_THAT(Ok("18446744073709551615", "u64[]").ints(), ElementsAre(-1));  // its bits
  EXPECT_THAT(Ok("1e-05", "f32[]").floats(), ElementsAre(1e-05));
  EXPECT_THAT(Ok("-2.5", "bf16[]").floats(), ElementsAre(-2.5));
  EXPECT_THAT(Ok("448", "f8e4m3fn[]").floats(), ElementsAre(448));
  EXPECT_THAT(Ok("(1, -2)", "c64[]").floats(), ElementsAre(1, -2));
  EXPECT_TRUE(std::isinf(Ok("-inf", "f16[]").floats()[0]));
  double nan = Ok("nan(0x7f)", "f32[]").floats()[0];
  uint64_t bits;
  std::memcpy(&bits, &nan, sizeof(bits));
  EXPECT_TRUE(std::isnan(nan));
  EXPECT_EQ(bits & 0xfffffffffffffull, 0x7fu);  // the payload travels
}

TEST(HloLiteralTest, ArraysAndTuples) {
  EXPECT_THAT(Ok("{1, 2, 3, 4}", "s32[4]").ints(), ElementsAre(1, 2, 3, 4));
  EXPECT_THAT(Ok("{ { 1, 2 }, { 3, 4 } }", "f32[2,2]").floats(), ElementsAre(1, 2, 3, 4));
  EXPECT_THAT(Ok("{{{1},{2}},{{3},{4}}}", "u8[2,2,1]").ints(), ElementsAre(1, 2, 3, 4));
  HloLiteral big = Ok("{...}", "f32[1000,1000]");
  EXPECT_TRUE(big.abbreviated());
  EXPECT_EQ(big.element_count(), 1000000);
  HloLiteral tuple = Ok("(f32[2] {1, 2}, 3)", "(f32[2], s32[])");
  ASSERT_EQ(tuple.tuple_elements().size(), 2u);
  EXPECT_THAT(tuple.tuple_elements()[0].floats(), ElementsAre(1, 2));
  EXPECT_THAT(tuple.tuple_elements()[1].ints(), ElementsAre(3));
  EXPECT_EQ(Ok("{}", "f32[0]").element_count(), 0);
}

// u64 takes a negative value as its bits, as XLA does; the narrower
// unsigned types refuse it, and every type refuses what does not fit.
TEST(HloLiteralTest, NegativeU64WrapsOthersRefuse) {
  EXPECT_THAT(Ok("-1", "u64[]").ints(), ElementsAre(-1));  // 0xffffffffffffffff
  EXPECT_THAT(Ok("{-2, 3}", "u64[2]").ints(), ElementsAre(-2, 3));
  EXPECT_THAT(Ok("-9223372036854775808", "u64[]").ints(),
              ElementsAre(std::numeric_limits<int64_t>::min()));
  EXPECT_THAT(Error("-9223372036854775809", "u64[]"), HasSubstr("out of range for u64"));
  EXPECT_THAT(Error("18446744073709551616", "u64[]"), HasSubstr("out of range for u64"));
  EXPECT_THAT(Error("-1", "u8[]"), HasSubstr("value -1 is out of range for u8 [0, 255]"));
  EXPECT_THAT(Error("-1", "u16[]"), HasSubstr("out of range for u16"));
  EXPECT_THAT(Error("-1", "u32[]"), HasSubstr("out of range for u32"));
  EXPECT_THAT(Error("4294967296", "u32[]"),
              HasSubstr("value 4294967296 is out of range for u32 [0, 4294967295]"));
}

// XLA's dumps comment large literals (`/*i0=1*/`); comments are whitespace.
TEST(HloLiteralTest, CommentsAreWhitespace) {
  EXPECT_THAT(Ok("{ { /*i0=0*/ {1} }, { /*i0=1*/ {2} } }", "f32[2,1,1]").floats(),
              ElementsAre(1, 2));
  EXPECT_THAT(Ok("{5 /*x*/}", "f32[1]").floats(), ElementsAre(5));
  EXPECT_THAT(Ok("{1, // one\n 2}", "s32[2]").ints(), ElementsAre(1, 2));
  HloLiteral tuple = Ok("/*a*/ (/*b*/ s32[] /*c*/ 1, /*d*/ 2 /*e*/) /*f*/", "(s32[], s32[])");
  ASSERT_EQ(tuple.tuple_elements().size(), 2u);
  EXPECT_THAT(tuple.tuple_elements()[1].ints(), ElementsAre(2));
  size_t offset = 0;
  EXPECT_THAT(Error("{1 /*x*/ y}", "s32[2]", &offset), HasSubstr("expected a value"));
  EXPECT_EQ(offset, 9u);  // at the y, after the comment
}

TEST(HloLiteralTest, RefusesWhatXlaRefuses) {
  size_t offset = 0;
  EXPECT_THAT(Error("-65520", "f16[]", &offset),
              HasSubstr("value -65520 is out of range for f16 (largest finite: 65504)"));
  EXPECT_EQ(offset, 0u);
  EXPECT_THAT(Error("{1,2}", "f32[3]", &offset),
              HasSubstr("dim 0 needs 3 entries, the literal has 2"));
  EXPECT_EQ(offset, 4u);  // at the closing brace
  EXPECT_THAT(Error("{1,2,3,4}", "f32[3]"), HasSubstr("more than 3 entries in dim 0"));
  EXPECT_THAT(Error("128", "s8[]"), HasSubstr("value 128 is out of range for s8 [-128, 127]"));
  EXPECT_THAT(Error("-1", "u32[]"), HasSubstr("out of range for u32 [0, 4294967295]"));
  EXPECT_THAT(Error("8", "s4[]"), HasSubstr("out of range for s4 [-8, 7]"));
  EXPECT_THAT(Error("2", "pred[]"), HasSubstr("out of range for pred [0, 1]"));
  EXPECT_THAT(Error("1.5", "s32[]"), HasSubstr("expected an integer for s32"));
  EXPECT_THAT(Error("inf", "f8e4m3fn[]"), HasSubstr("f8e4m3fn has no infinity"));
  EXPECT_THAT(Error("nan", "f4e2m1fn[]"), HasSubstr("f4e2m1fn has no NaN"));
  EXPECT_THAT(Error("nan(0x800000)", "f32[]"),
              HasSubstr("NaN payload 0x800000 does not fit the 23 mantissa bits of f32"));
  EXPECT_THAT(Error("nan(0x0)", "f32[]"), HasSubstr("does not fit"));
  EXPECT_THAT(Error("1e39", "f32[]"), HasSubstr("out of range for f32"));
  EXPECT_THAT(Error("{{1,2},{3,4}}", "f32[4]"), HasSubstr("braces nested deeper than the rank"));
  EXPECT_THAT(Error("{1,2}", "f32[2,1]"), HasSubstr("a value at nesting level 1 of a rank-2"));
  EXPECT_THAT(Error("1 2", "f32[]"), HasSubstr("unexpected text after the literal"));
  EXPECT_THAT(Error("{{...}}", "f32[2,2]"), HasSubstr("'...' stands only at the outermost"));
  EXPECT_THAT(Error("(1, 2)", "(s32[], s32[], s32[])"), HasSubstr("expected ','"));
  EXPECT_THAT(Error("1", "c64[]"), HasSubstr("a complex value is written (real, imag)"));
}

}  // namespace
}  // namespace xla_layout
