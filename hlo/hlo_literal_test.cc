#include "hlo/hlo_literal.h"

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla_layout/primitive_type.h"
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
  EXPECT_THAT(Ok("1e-05", "f32[]").floats(), ElementsAre(1e-05f));  // as f32 holds it
  EXPECT_THAT(Ok("-2.5", "bf16[]").floats(), ElementsAre(-2.5));
  EXPECT_THAT(Ok("448", "f8e4m3fn[]").floats(), ElementsAre(448));
  EXPECT_THAT(Ok("(1, -2)", "c64[]").floats(), ElementsAre(1, -2));
  EXPECT_TRUE(std::isinf(Ok("-inf", "f16[]").floats()[0]));
  double nan = Ok("nan(0x7f)", "f32[]").floats()[0];
  EXPECT_TRUE(std::isnan(nan));
  EXPECT_EQ(FloatToBits(nan, F32), 0x7f80007fu);  // the payload travels
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

// XLA converts a float to its type first and refuses only what converts to
// a value that is not finite: f32's largest value as XLA prints it, and
// values that round down to the largest, are taken.
TEST(HloLiteralTest, FloatsConvertToTheirTypeFirst) {
  EXPECT_THAT(Ok("{-3.40282347e+38, 3.4028235e+38}", "f32[2]").floats(),
              ElementsAre(-FLT_MAX, FLT_MAX));
  EXPECT_THAT(Ok("3.40282356e+38", "f32[]").floats(), ElementsAre(FLT_MAX));
  EXPECT_THAT(Error("3.4028236e+38", "f32[]"), HasSubstr("out of range for f32"));
  const double bf16_max = 3.38953138925153547590470800371487866880e38;
  EXPECT_THAT(Ok("3.39e+38", "bf16[]").floats(), ElementsAre(bf16_max));
  EXPECT_THAT(Ok("-3.39e+38", "bf16[]").floats(), ElementsAre(-bf16_max));
  EXPECT_THAT(Ok("65519", "f16[]").floats(), ElementsAre(65504));
  size_t offset = 0;
  EXPECT_THAT(Error("{1, 65520}", "f16[2]", &offset),
              HasSubstr("value 65520 is out of range for f16 (largest finite: 65504)"));
  EXPECT_EQ(offset, 4u);
  // The values held are the type's.
  EXPECT_THAT(Ok("0.1", "bf16[]").floats(), ElementsAre(0.10009765625));
  EXPECT_THAT(Ok("0.1", "f16[]").floats(), ElementsAre(0.0999755859375));
  EXPECT_THAT(Ok("(0.1, 1e300)", "c128[]").floats(), ElementsAre(0.1, 1e300));
  EXPECT_THAT(Error("(0.1, 1e300)", "c64[]"), HasSubstr("out of range for c64"));
}

// The narrow types round to nearest, ties to even, and overflow the way
// their conversion does: to infinity or NaN (refused), or, in f4e2m1fn, to
// the largest value (taken).
TEST(HloLiteralTest, NarrowFloatsRoundAndOverflowAsTheirConversion) {
  struct Case {
    const char* type;
    const char* text;
    double held;  // 0 with refused: the value is refused
    bool refused;
  };
  const Case cases[] = {
      {"f8e4m3fn", "464", 448, false},      {"f8e4m3fn", "465", 0, true},
      {"f8e4m3fn", "-464", -448, false},    {"f8e4m3fn", "0.0009765625", 0, false},
      {"f8e4m3fn", "0.001", 0.001953125, false},
      {"f8e4m3", "247", 240, false},        {"f8e4m3", "248", 0, true},
      {"f8e4m3fnuz", "247", 240, false},    {"f8e4m3fnuz", "248", 0, true},
      {"f8e5m2", "61439", 57344, false},    {"f8e5m2", "61440", 0, true},
      {"f8e5m2fnuz", "61439", 57344, false}, {"f8e5m2fnuz", "-61440", 0, true},
      {"f8e3m4", "15.7", 15.5, false},      {"f8e3m4", "15.75", 0, true},
      {"f8e4m3b11fnuz", "30.9", 30, false}, {"f8e4m3b11fnuz", "31", 0, true},
      {"f4e2m1fn", "2.5", 2, false},        {"f4e2m1fn", "0.25", 0, false},
      {"f4e2m1fn", "7", 6, false},          {"f4e2m1fn", "-1e30", -6, false},
      {"f8e8m0fnu", "3", 4, false},         {"f8e8m0fnu", "2.9", 2, false},
      {"f8e8m0fnu", "1e-40", std::ldexp(1.0, -127), false},
      {"f8e8m0fnu", "2.5e38", std::ldexp(1.0, 127), false},
      {"f8e8m0fnu", "2.6e38", 0, true},     {"f8e8m0fnu", "0", 0, true},
      {"f8e8m0fnu", "-1", 0, true},
  };
  for (const Case& c : cases) {
    std::string shape = absl::StrCat(c.type, "[]");
    if (c.refused) {
      EXPECT_THAT(Error(c.text, shape), HasSubstr(c.type)) << c.type << " " << c.text;
    } else {
      EXPECT_THAT(Ok(c.text, shape).floats(), ElementsAre(c.held)) << c.type << " " << c.text;
    }
  }
  EXPECT_THAT(Error("0", "f8e8m0fnu[]"),
              HasSubstr("value 0 converts to NaN in f8e8m0fnu, which holds only positive "
                        "powers of two"));
  EXPECT_THAT(Error("465", "f8e4m3fn[]"),
              HasSubstr("value 465 is out of range for f8e4m3fn (largest finite: 448)"));
}

// A NaN keeps its payload and its sign in every type that has payloads;
// a type with a single NaN takes `nan` and `-nan` only.
TEST(HloLiteralTest, NanPayloadsAndSignsAreKept) {
  auto bits = [](absl::string_view text, absl::string_view shape) {
    HloLiteral lit = Ok(text, shape);
    std::vector<uint64_t> out;
    for (double v : lit.floats()) out.push_back(FloatToBits(v, lit.shape().element_type()));
    return out;
  };
  EXPECT_THAT(bits("nan(0x123)", "f32[]"), ElementsAre(0x7f800123u));
  EXPECT_THAT(bits("{nan, -nan, -nan(0x1)}", "f32[3]"),
              ElementsAre(0x7fc00000u, 0xffc00000u, 0xff800001u));
  EXPECT_THAT(bits("nan(0x3f)", "bf16[]"), ElementsAre(0x7fbfu));
  EXPECT_THAT(bits("-nan(0x3f)", "bf16[]"), ElementsAre(0xffbfu));
  EXPECT_THAT(bits("{nan(0x1), -nan}", "f16[2]"), ElementsAre(0x7c01u, 0xfe00u));
  EXPECT_THAT(bits("-nan(0x1)", "f64[]"), ElementsAre(0xfff0000000000001u));
  EXPECT_THAT(bits("(nan(0x5), -nan(0x6))", "c64[]"), ElementsAre(0x7f800005u, 0xff800006u));
  EXPECT_THAT(bits("{nan(0x1), nan(0x3), -nan}", "f8e5m2[3]"), ElementsAre(0x7du, 0x7fu, 0xfeu));
  EXPECT_THAT(bits("nan(0x7)", "f8e4m3[]"), ElementsAre(0x7fu));
  EXPECT_THAT(bits("-nan(0xf)", "f8e3m4[]"), ElementsAre(0xffu));
  EXPECT_THAT(bits("{nan, -nan}", "f8e4m3fn[2]"), ElementsAre(0x7fu, 0xffu));
  EXPECT_THAT(bits("{nan, -nan}", "f8e4m3fnuz[2]"), ElementsAre(0x80u, 0x80u));
  EXPECT_THAT(bits("nan", "f8e8m0fnu[]"), ElementsAre(0xffu));
  EXPECT_THAT(Error("nan(0x4)", "f8e5m2[]"),
              HasSubstr("NaN payload 0x4 does not fit the 2 mantissa bits of f8e5m2"));
  EXPECT_THAT(Error("nan(0x80)", "bf16[]"), HasSubstr("does not fit the 7 mantissa bits"));
  for (const char* single : {"f8e4m3fn", "f8e4m3fnuz", "f8e5m2fnuz", "f8e4m3b11fnuz",
                             "f8e8m0fnu"}) {
    size_t offset = 0;
    EXPECT_THAT(Error("-nan(0x1)", absl::StrCat(single, "[]"), &offset),
                HasSubstr(absl::StrCat(single, " has a single NaN, without a payload")));
    EXPECT_EQ(offset, 5u) << single;  // at the payload
  }
}

TEST(FloatBitsTest, EncodingsOfTheNarrowTypes) {
  EXPECT_EQ(FloatToBits(448, F8E4M3FN), 0x7eu);
  EXPECT_EQ(FloatToBits(1e30, F8E4M3FN), 0x7fu);     // NaN: no infinity
  EXPECT_EQ(FloatToBits(-1e30, F8E4M3FN), 0xffu);
  EXPECT_EQ(FloatToBits(1e30, F8E4M3FNUZ), 0x80u);   // the one NaN
  EXPECT_EQ(FloatToBits(-1e-4, F8E4M3FNUZ), 0x00u);  // no -0: 0x80 is NaN
  EXPECT_EQ(FloatToBits(-0.0, F8E5M2FNUZ), 0x00u);
  EXPECT_EQ(FloatToBits(-0.0, F8E5M2), 0x80u);
  EXPECT_EQ(FloatToBits(1e30, F8E5M2), 0x7cu);       // infinity
  EXPECT_EQ(FloatToBits(-1e30, F4E2M1FN), 0xfu);     // saturates
  EXPECT_EQ(FloatToBits(1.0, F8E8M0FNU), 127u);
  EXPECT_EQ(FloatToBits(0.0, F8E8M0FNU), 0xffu);     // no zero: NaN
  EXPECT_EQ(FloatToBits(65504, F16), 0x7bffu);
  EXPECT_EQ(FloatToBits(65520, F16), 0x7c00u);
  EXPECT_EQ(FloatToBits(std::ldexp(1.0, -24), F16), 0x0001u);  // smallest subnormal
  EXPECT_EQ(FloatToBits(-1, BF16), 0xbf80u);
  EXPECT_EQ(FloatToBits(1.5, F64), 0x3ff8000000000000u);
}

// Every bit pattern of the types up to 16 bits reads to a double and
// converts back to itself; NaN patterns give the type's NaN.
TEST(FloatBitsTest, EveryPatternRoundTrips) {
  for (PrimitiveType t : {F16, BF16, F8E5M2, F8E4M3, F8E3M4, F8E4M3FN, F8E4M3FNUZ,
                          F8E5M2FNUZ, F8E4M3B11FNUZ, F4E2M1FN, F8E8M0FNU}) {
    const int width = t == F16 || t == BF16 ? 16 : t == F4E2M1FN ? 4 : 8;
    for (uint64_t bits = 0; bits < (uint64_t{1} << width); ++bits) {
      const double v = FloatFromBits(bits, t);
      const uint64_t back = FloatToBits(v, t);
      if (std::isnan(v)) {
        EXPECT_TRUE(std::isnan(FloatFromBits(back, t))) << PrimitiveTypeName(t) << " " << bits;
      } else {
        EXPECT_EQ(back, bits) << PrimitiveTypeName(t) << " " << v;
      }
    }
  }
}

// f32 rounds as the hardware's conversion from double does.
TEST(FloatBitsTest, F32MatchesTheHardware) {
  for (double v : {0.1, -1e-40, 1e-46, 3.4028235677973366e38, 3.40282356e38, 123456789.0,
                   std::ldexp(1.0, -149) * 1.5, std::ldexp(1.0, -150)}) {
    float f = static_cast<float>(v);
    uint32_t want;
    std::memcpy(&want, &f, sizeof(want));
    EXPECT_EQ(FloatToBits(v, F32), want) << v;
  }
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

// A shape with a zero-size dim has no values: its braces stop where the
// empty dim starts.
TEST(HloLiteralTest, ZeroSizeDimsTakeEmptyInnerBraces) {
  EXPECT_EQ(Ok("{ { }, { } }", "f32[2,0,3]").element_count(), 0);
  EXPECT_TRUE(Ok("{ { /*none*/ }, { } }", "f32[2,0,3]").floats().empty());
  EXPECT_EQ(Ok("{ {}, {}, {} }", "s32[3,0]").element_count(), 0);
  EXPECT_EQ(Ok("{}", "f32[0,3]").element_count(), 0);
  EXPECT_THAT(Error("{ { {} }, { {} } }", "f32[2,0,3]"), HasSubstr("more than 0 entries in dim 1"));
  EXPECT_THAT(Error("{ { }, { } }", "f32[2,3,0]"), HasSubstr("dim 1 needs 3 entries"));
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
