#include "xla_layout/shape_text.h"

#include <random>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla_layout/test_util.h"

namespace xla_layout {
namespace {

using ::testing::HasSubstr;

std::string RoundTrip(absl::string_view text) {
  absl::StatusOr<Shape> shape = ParseShape(text);
  if (!shape.ok()) return std::string(shape.status().message());
  return PrintShape(*shape);
}

// Canonical text prints back unchanged.
class CanonicalTest : public ::testing::TestWithParam<const char*> {};

TEST_P(CanonicalTest, PrintsBackUnchanged) {
  EXPECT_EQ(RoundTrip(GetParam()), GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, CanonicalTest,
    ::testing::Values(
        "f32[3,5]{1,0:T(2,2)}", "bf16[8,256]{1,0:T(8,128)(2,1)}",
        "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}",
        "s4[64,128]{1,0:T(2,128)E(4)}", "f32[16]{0:S(1)}", "f32[]",
        "u32[]{:T(128)}", "(f32[2]{0}, s32[], token[])",
        "f32[<=10,3]{1,0}", "f32[?,784]", "f32[?,784]{1,0}",
        "pred[8,8,8]{0,2,1:T(8,128)E(32)}", "f32[5]{0:L(8)}",
        "f32[4,4]{0,1:T(2,2)L(16)E(64)S(2)M(16)}",
        "f32[100,100]{1,0:SC(0:50)}", "f32[100,100]{1,0:SC(0:25,50)(1:10)}",
        "f32[10,10]{1,0:D(D,C)#(u32)*(u16)}",
        "f32[10,10]{1,0:D(D,C+~)#(u8)P(s32[100]{0})}",
        "f32[10]{0:D(S)}", "f32[10]{0:D(H~)}",
        "((f32[1]{0}, (s8[2,2]{0,1})), opaque[])", "()", "token[]",
        "c128[2,3,4]{2,1,0}", "u2[16]{0:E(2)}", "f8e4m3fn[4]{0}",
        "f32[4,8]{1,0:T(2,4)(2,1)}", "s8[32,128]{1,0:T(8,128)(4,1)}",
        "f32[3,32,64,56,56]{4,3,2,1,0:T(16,1,1)}", "f32[1,2]{0,1:M(8)}",
        "f32[0]{0}", "f64[2]{0:E(128)}"));

TEST(ShapeTextTest, AngleStyleRoundTrips) {
  absl::StatusOr<Shape> shape = ParseShape("f32[3,5]{1,0:T(2,2)}");
  ASSERT_TRUE(shape.ok());
  PrintOptions angle{ShapeSyntax::kAngle};
  EXPECT_EQ(PrintShape(*shape, angle), "F32[3,5]<1,0:T(2,2)>");
  absl::StatusOr<Shape> back = ParseShape("F32[3,5]<1,0:T(2,2)>");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, *shape);
  absl::StatusOr<Shape> tuple = ParseShape("(BF16[8]<0>, TOKEN[])");
  ASSERT_TRUE(tuple.ok()) << tuple.status();
  EXPECT_EQ(PrintShape(*tuple, angle), "(BF16[8]<0>, TOKEN[])");
}

TEST(ShapeTextTest, AcceptsOldTileFormAndUpperCaseAndSpaces) {
  EXPECT_EQ(RoundTrip("F32[3,5]{1,0:(2,2)}"), "f32[3,5]{1,0:T(2,2)}");
  EXPECT_EQ(RoundTrip("  f32 [ 3 , 5 ] { 1 , 0 : T ( 2 , 2 ) }  "),
            "f32[3,5]{1,0:T(2,2)}");
  EXPECT_EQ(RoundTrip("(f32[1]{0}, /*index=1*/s32[], /*index=2*/f32[])"),
            "(f32[1]{0}, s32[], f32[])");
  EXPECT_EQ(RoundTrip("f32[2]{0:}"), "f32[2]{0}");
}

TEST(ShapeTextTest, PrintWithoutLayout) {
  absl::StatusOr<Shape> shape = ParseShape("(f32[3,5]{0,1}, s8[2]{0})");
  ASSERT_TRUE(shape.ok());
  PrintOptions options;
  options.print_layout = false;
  EXPECT_EQ(PrintShape(*shape, options), "(f32[3,5], s8[2])");
}

struct ErrorCase {
  const char* text;
  const char* message;
};

class ErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ErrorTest, ReportsColumnAndExpectation) {
  absl::StatusOr<Shape> shape = ParseShape(GetParam().text);
  ASSERT_FALSE(shape.ok()) << GetParam().text;
  EXPECT_EQ(shape.status().message(), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, ErrorTest,
    ::testing::Values(
        ErrorCase{"f32[3,5,7]{1}",
                  "column 11: Dimensions size is 3, but minor to major size "
                  "is 1."},
        ErrorCase{"f32[3,5]{1,0:T(2,2)Q(1)}",
                  "column 20: unknown layout attribute 'Q'; expected one of D "
                  "T L # * E S SC P M"},
        ErrorCase{"f33[3]", "column 1: unknown element type 'f33'"},
        ErrorCase{"f32[3,", "column 7: expected a dimension size, '<=' bound "
                            "or '?'"},
        ErrorCase{"f32[3]{0", "column 9: expected '}' to close the layout, "
                              "or ',' / ':'"},
        ErrorCase{"f32[3,5]{1,1}",
                  "column 9: minor_to_major {1,1} names dimension 1 twice"},
        ErrorCase{"f32[3,5]{2,0}",
                  "column 9: minor_to_major {2,0} names dimension 2, which is "
                  "out of range for rank 2"},
        ErrorCase{"f32[3,5]{1,0:T(2,*)}",
                  "column 15: tile (2,*): '*' cannot be the most minor entry "
                  "(there is no dimension to combine it into)"},
        ErrorCase{"f32[3,5]{1,0:T(0,2)}",
                  "column 15: tile (0,2): entry 0 is 0; tile sizes must be "
                  "positive or '*'"},
        ErrorCase{"f32[3]{0:T(2,2)}",
                  "column 7: tile (2,2) (level 1) has rank 2 but applies to a "
                  "shape of rank 1"},
        ErrorCase{"s4[8]{0:E(3)}",
                  "column 6: E(3): a sub-byte element size must divide 8 (1, "
                  "2 or 4)"},
        ErrorCase{"f32[8]{0:E(16)}",
                  "column 7: E(16) is smaller than the 32 bits of f32"},
        ErrorCase{"f32[8]{0:#(u32)}",
                  "column 7: #(...) index primitive type is only allowed on a "
                  "sparse layout"},
        ErrorCase{"f32[8]{0:P(s32[8]{0})}",
                  "column 7: P(...) physical shape is only allowed on a "
                  "sparse layout"},
        ErrorCase{"f32[8]{0:E(8)T(2)}",
                  "column 14: layout attribute T is out of order; XLA's order "
                  "is D T L # * E S SC P M"},
        ErrorCase{"f32[8]{0:S(1)S(2)}",
                  "column 14: layout attribute S appears twice"},
        ErrorCase{"token[]{0}", "column 8: token shapes cannot have a layout"},
        ErrorCase{"(f32[1], s32[]", "column 15: expected ',' or ')' in tuple "
                                    "shape, found end of input"},
        ErrorCase{"f32[3]{0}}", "column 10: unexpected '}' after the end"},
        ErrorCase{"f32[99999999999999999999]",
                  "column 5: a dimension size, '<=' bound or '?' is too large "
                  "for int64"},
        ErrorCase{"f32[3]{0>", "column 9: layout opened with '{' must close "
                               "with '}'"},
        ErrorCase{"f32[4]{0:D(X)}",
                  "column 12: expected a dim level type: D, C, S or H"}));

TEST(ShapeTextTest, LayoutAlone) {
  absl::StatusOr<Layout> layout = ParseLayout("{1,0:T(8,128)(2,1)}");
  ASSERT_TRUE(layout.ok()) << layout.status();
  EXPECT_EQ(layout->tiles().size(), 2u);
  EXPECT_EQ(layout->ToString(), "{1,0:T(8,128)(2,1)}");
  EXPECT_FALSE(ParseLayout("{1,0:T(8,*)}").ok());
}

TEST(ShapeTextTest, DeepNestingFailsCleanly) {
  std::string deep(100000, '(');
  absl::StatusOr<Shape> shape = ParseShape(deep);
  ASSERT_FALSE(shape.ok());
  EXPECT_THAT(shape.status().message(), HasSubstr("too deep"));
}

TEST(ShapeTextPropertyTest, PrintParseRoundTripsInBothStyles) {
  std::mt19937_64 rng(7);
  RandomShapeOptions options;
  options.max_slots = 1 << 20;
  for (int i = 0; i < 10000; ++i) {
    Shape shape = RandomArrayShape(rng, options);
    if (i % 3 == 0) {
      Shape other = RandomArrayShape(rng, options);
      shape = Shape::MakeTuple({shape, Shape::MakeToken(),
                                Shape::MakeTuple({other})});
    }
    for (ShapeSyntax syntax : {ShapeSyntax::kXla, ShapeSyntax::kAngle}) {
      std::string text = PrintShape(shape, {syntax});
      absl::StatusOr<Shape> back = ParseShape(text);
      ASSERT_TRUE(back.ok()) << text << ": " << back.status();
      ASSERT_EQ(*back, shape) << text;
      ASSERT_EQ(PrintShape(*back, {syntax}), text);
    }
  }
}

// White space and both comment forms are skipped; a lone '/' is a token.
TEST(SkipSpaceAndCommentsTest, StopsAtTheNextToken) {
  struct Case {
    absl::string_view text;
    size_t from, want;
  };
  const Case cases[] = {
      {"", 0, 0},
      {"x", 0, 0},
      {"x", 1, 1},
      {"  \t\nx", 0, 4},
      {"/x", 0, 0},
      {"a/", 1, 1},
      {"// note\nx", 0, 8},
      {"// to the end", 0, 13},
      {"/* a */x", 0, 7},
      {" /* a */ /**/ // b\n  y", 0, 21},
      {"/* open", 0, 7},
      {"/*/ x", 0, 5},
      {"/", 0, 0},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(SkipSpaceAndComments(c.text, c.from), c.want) << '"' << c.text << '"';
  }
}

}  // namespace
}  // namespace xla_layout
