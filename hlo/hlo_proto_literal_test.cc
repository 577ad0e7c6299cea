#include "hlo/hlo_proto_literal.h"

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla_layout/shape_text.h"

namespace xla_layout {
namespace {

using ::testing::HasSubstr;

xla::LiteralProto ToProto(absl::string_view shape_text, absl::string_view value) {
  absl::StatusOr<Shape> shape = ParseShape(shape_text);
  EXPECT_TRUE(shape.ok()) << shape.status();
  SetDefaultLayouts(*shape);
  absl::StatusOr<HloLiteral> lit = HloLiteral::Parse(value, *shape);
  EXPECT_TRUE(lit.ok()) << lit.status();
  absl::StatusOr<xla::LiteralProto> p = LiteralToProto(*lit, *shape);
  EXPECT_TRUE(p.ok()) << p.status();
  return *p;
}

std::string BackToText(const xla::LiteralProto& p) {
  Shape shape;
  absl::StatusOr<std::string> text = LiteralProtoToText(p, &shape);
  EXPECT_TRUE(text.ok()) << text.status();
  return text.value_or("");
}

// Every element type: its values go to XLA's field for it and come back.
TEST(HloProtoLiteralTest, EveryElementTypeRoundTrips) {
  const std::pair<const char*, const char*> cases[] = {
      {"pred[2]", "{true, false}"},       {"s1[2]", "{-1, 0}"},
      {"s2[2]", "{-2, 1}"},               {"s4[3]", "{-8, 7, -1}"},
      {"s8[2]", "{-128, 127}"},           {"s16[2]", "{-32768, 32767}"},
      {"s32[2]", "{-2147483648, 7}"},     {"s64[2]", "{-9223372036854775808, 9}"},
      {"u1[2]", "{1, 0}"},                {"u2[2]", "{3, 0}"},
      {"u4[2]", "{15, 1}"},               {"u8[2]", "{255, 0}"},
      {"u16[2]", "{65535, 1}"},           {"u32[2]", "{4294967295, 1}"},
      {"u64[2]", "{18446744073709551615, 1}"},
      {"f16[3]", "{1, -0.5, inf}"},       {"bf16[3]", "{1, -2.5, -inf}"},
      {"f32[4]", "{0.1, 1e-05, -3.40282347e+38, nan(0x123)}"},
      {"f64[2]", "{0.1, -nan}"},          {"c64[2]", "{(1, -2), (0.5, nan)}"},
      {"c128[1]", "{(0.1, 2)}"},          {"f8e5m2[2]", "{1, -inf}"},
      {"f8e4m3[2]", "{1, 240}"},          {"f8e4m3fn[2]", "{448, -nan}"},
      {"f8e4m3b11fnuz[2]", "{1, 0.5}"},   {"f8e3m4[2]", "{1, 15.5}"},
      {"f8e5m2fnuz[2]", "{1, 2}"},        {"f8e4m3fnuz[2]", "{1, 2}"},
      {"f4e2m1fn[2]", "{6, -0.5}"},       {"f8e8m0fnu[2]", "{1, 0.5}"},
  };
  for (const auto& [shape, value] : cases) {
    SCOPED_TRACE(shape);
    EXPECT_EQ(BackToText(ToProto(shape, value)), value);
  }
}

// The fields and encodings XLA reads: 16-bit values little-endian, narrow
// types one element per byte, f32 in f32s.
TEST(HloProtoLiteralTest, ValuesGoToXlasFields) {
  EXPECT_EQ(ToProto("f16[1]", "{1}").f16s(), std::string("\x00\x3c", 2));
  EXPECT_EQ(ToProto("bf16[1]", "{1}").bf16s(), std::string("\x80\x3f", 2));
  EXPECT_EQ(ToProto("s4[2]", "{-1, 3}").s4s(), std::string("\xff\x03", 2));
  EXPECT_EQ(ToProto("u16[1]", "{258}").u16s(), std::string("\x02\x01", 2));
  EXPECT_EQ(ToProto("f8e4m3fn[1]", "{1}").f8e4m3fns(), std::string("\x38", 1));
  EXPECT_THAT(ToProto("f32[2]", "{1, 2}").f32s(), ::testing::ElementsAre(1.0f, 2.0f));
  EXPECT_THAT(ToProto("pred[2]", "{true, false}").preds(), ::testing::ElementsAre(true, false));
}

// Values are stored in the layout's order, and read back in logical order.
TEST(HloProtoLiteralTest, ValuesFollowTheLayout) {
  const xla::LiteralProto p = ToProto("s32[2,3]{0,1}", "{ { 1, 2, 3 }, { 4, 5, 6 } }");
  EXPECT_THAT(p.s32s(), ::testing::ElementsAre(1, 4, 2, 5, 3, 6));
  EXPECT_EQ(BackToText(p), "{ { 1, 2, 3 }, { 4, 5, 6 } }");
}

TEST(HloProtoLiteralTest, ScalarsTuplesAndEmptyArrays) {
  EXPECT_EQ(BackToText(ToProto("f32[]", "0.5")), "0.5");
  EXPECT_EQ(BackToText(ToProto("f32[2,0]", "{ { }, { } }")), "{ { }, { } }");
  EXPECT_EQ(BackToText(ToProto("(s32[], f32[2])", "(1, {2, 3})")), "(1, {2, 3})");
}

TEST(HloProtoLiteralTest, AbbreviatedLiteralsHoldNoValues) {
  const xla::LiteralProto p = ToProto("f32[4]", "{...}");
  EXPECT_EQ(p.f32s_size(), 0);
  EXPECT_EQ(BackToText(p), "{...}");
}

TEST(HloProtoLiteralTest, AWrongValueCountIsAnError) {
  xla::LiteralProto p = ToProto("s32[3]", "{1, 2, 3}");
  p.add_s32s(4);
  Shape shape;
  absl::StatusOr<std::string> text = LiteralProtoToText(p, &shape);
  ASSERT_FALSE(text.ok());
  EXPECT_THAT(text.status().message(), HasSubstr("holds 4 values, not 3"));
}

TEST(HloProtoLiteralTest, FloatsPrintAsXlaPrintsThem) {
  EXPECT_EQ(FormatFloatLiteral(0.1f, F32), "0.1");
  EXPECT_EQ(FormatFloatLiteral(3.4028234663852886e+38, F32), "3.40282347e+38");
  EXPECT_EQ(FormatFloatLiteral(1e-5f, F32), "1e-05");
  EXPECT_EQ(FormatFloatLiteral(65504, F16), "6.55e+04");
  EXPECT_EQ(FormatFloatLiteral(-std::numeric_limits<double>::infinity(), BF16), "-inf");
}

// Bits as the executor holds them: s4 -1 is 0xf, written as XLA's int8 -1.
TEST(HloProtoLiteralTest, BitsRoundTripWithXlasEncodings) {
  const Shape s4 = ParseShape("s4[2]{0}").value();
  absl::StatusOr<xla::LiteralProto> p = ArrayLiteralFromBits(s4, {0xf, 0x7});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->s4s(), std::string("\xff\x07", 2));
  Shape shape;
  EXPECT_THAT(ArrayBitsFromLiteral(*p, &shape).value(), ::testing::ElementsAre(0xf, 0x7));
  const Shape c64 = ParseShape("c64[1]{0}").value();
  p = ArrayLiteralFromBits(c64, {0x400000003f800000});  // (1, 2)
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_THAT(p->c64s(), ::testing::ElementsAre(1.0f, 2.0f));
  const Shape transposed = ParseShape("s32[2,2]{0,1}").value();
  p = ArrayLiteralFromBits(transposed, {1, 2, 3, 4});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_THAT(p->s32s(), ::testing::ElementsAre(1, 3, 2, 4));
  EXPECT_THAT(ArrayBitsFromLiteral(*p, &shape).value(), ::testing::ElementsAre(1, 2, 3, 4));
  EXPECT_FALSE(ArrayLiteralFromBits(ParseShape("c128[1]").value(), {0}).ok());
}

}  // namespace
}  // namespace xla_layout
