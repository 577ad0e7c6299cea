#include "runtime/bits.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/op_test_util.h"

namespace xla_layout::runtime {
namespace {

using ::testing::HasSubstr;

TEST(BitcastConvertTest, SameWidthRereadsTheBits) {
  // 1.0f is 0x3f800000; -0.0f is 0x80000000.
  EXPECT_EQ(Eval("  a = f32[2] constant({1, -0})\n  ROOT r = s32[2] bitcast-convert(a)\n"),
            "s32[2] {1065353216, -2147483648}");
  EXPECT_EQ(Eval("  a = s8[2] constant({-1, 5})\n  ROOT r = u8[2] bitcast-convert(a)\n"),
            "u8[2] {255, 5}");
}

TEST(BitcastConvertTest, WideToNarrowSplitsLowBitsFirst) {
  // 1.0f = 0x3f800000 and -2.0f = 0xc0000000, lowest byte first.
  EXPECT_EQ(Eval("  a = f32[2] constant({1, -2})\n  ROOT r = u8[2,4] bitcast-convert(a)\n"),
            "u8[2,4] {0, 0, 128, 63, 0, 0, 0, 192}");
  // 0x1234: 0x34 then 0x12.
  EXPECT_EQ(Eval("  a = u16[] constant(4660)\n  ROOT r = u8[2] bitcast-convert(a)\n"),
            "u8[2] {52, 18}");
  // 0xf3 into s4 nibbles: 3, then 0xf = -1.
  EXPECT_EQ(Eval("  a = u8[1] constant({243})\n  ROOT r = s4[1,2] bitcast-convert(a)\n"),
            "s4[1,2] {3, -1}");
}

TEST(BitcastConvertTest, NarrowToWideJoinsLowBitsFirst) {
  EXPECT_EQ(Eval("  a = u8[2,4] constant({{0, 0, 128, 63}, {0, 0, 0, 192}})\n"
                 "  ROOT r = f32[2] bitcast-convert(a)\n"),
            "f32[2] {1, -2}");
  EXPECT_EQ(Eval("  a = s4[1,2] constant({{3, -1}})\n  ROOT r = u8[1] bitcast-convert(a)\n"),
            "u8[1] {243}");
}

TEST(BitcastConvertTest, NonDefaultLayouts) {
  // 1.0f = 0x3f80 0000, -2.0f = 0xc000 0000, as u16 halves low first.
  EXPECT_EQ(Eval("  a = f32[2]{0} constant({1, -2})\n"
                 "  ROOT r = u16[2,2]{0,1} bitcast-convert(a)\n"),
            "u16[2,2] {0, 16256, 0, 49152}");
  EXPECT_EQ(Eval("  a = u16[2,2]{0,1:T(2,2)} constant({{0, 16256}, {0, 49152}})\n"
                 "  ROOT r = f32[2]{0} bitcast-convert(a)\n"),
            "f32[2] {1, -2}");
}

TEST(BitcastConvertTest, RefusesPred) {
  EXPECT_THAT(Eval("  a = pred[2] constant({true, false})\n  ROOT r = s8[2] bitcast-convert(a)\n"),
              HasSubstr("r (bitcast-convert): a bitcast-convert from or to pred is not supported"));
}

// ReducePrecisionBits on f32 bits, as a float.
float Reduce(float x, int e, int m) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  bits = static_cast<uint32_t>(ReducePrecisionBits(bits, F32, e, m));
  std::memcpy(&x, &bits, 4);
  return x;
}

TEST(ReducePrecisionTest, MantissaRoundsToNearestEven) {
  // To bf16's format: 1 + 2^-8 is the tie between 1 and 1 + 2^-7: even is
  // 1; 1 + 2^-7 + 2^-8 ties between odd 1 + 2^-7 and even 1 + 2^-6.
  EXPECT_EQ(Reduce(1.00390625f, 8, 7), 1.0f);
  EXPECT_EQ(Reduce(1.01171875f, 8, 7), 1.015625f);
  EXPECT_EQ(Reduce(std::nextafter(1.00390625f, 2.0f), 8, 7), 1.0078125f);  // past the tie
  // No mantissa bits: 1.5 ties between 1 (odd exponent) and 2 (even).
  EXPECT_EQ(Reduce(1.5f, 8, 0), 2.0f);
  EXPECT_EQ(Reduce(1.25f, 8, 0), 1.0f);
}

TEST(ReducePrecisionTest, ExponentOverflowsToInfAndFlushesDenormals) {
  // f16's format (5, 10): 65504 is its largest; 65520 rounds to 65536: inf.
  EXPECT_EQ(Reduce(65504.0f, 5, 10), 65504.0f);
  EXPECT_EQ(Reduce(65520.0f, 5, 10), std::numeric_limits<float>::infinity());
  EXPECT_EQ(Reduce(-1e5f, 5, 10), -std::numeric_limits<float>::infinity());
  // 2^-14 is f16's smallest normal; 2^-15 would be a denormal: zero, signed.
  EXPECT_EQ(Reduce(6.103515625e-05f, 5, 10), 6.103515625e-05f);
  EXPECT_EQ(Reduce(3.0517578125e-05f, 5, 10), 0.0f);
  EXPECT_TRUE(std::signbit(Reduce(-3.0517578125e-05f, 5, 10)));
  // An f32 denormal flushes under any narrower exponent.
  EXPECT_EQ(Reduce(1e-40f, 7, 23), 0.0f);
  // A wider format changes nothing.
  EXPECT_EQ(Reduce(1e-40f, 11, 52), 1e-40f);
}

TEST(ReducePrecisionTest, NaNStaysTheSameNaNUnlessNoMantissaIsLeft) {
  EXPECT_EQ(ReducePrecisionBits(0x7fc00001, F32, 5, 2), 0x7fc00001u);
  EXPECT_EQ(ReducePrecisionBits(0xffc00000, F32, 5, 10), 0xffc00000u);
  EXPECT_EQ(ReducePrecisionBits(0xffc00000, F32, 8, 0), 0x7f800000u);  // +inf
  EXPECT_EQ(ReducePrecisionBits(0x7f800000, F32, 5, 2), 0x7f800000u);  // inf stays inf
}

TEST(ReducePrecisionTest, RunsOnTheTypesOwnBits) {
  // f16 denormals: kept by f16's own format, rounded to even by a shorter
  // mantissa (0x0001 -> 0, 0x0003 -> 0x0004 with 9 bits).
  EXPECT_EQ(Eval("  a = u16[2] constant({1, 3})\n  f = f16[2] bitcast-convert(a)\n"
                 "  r = f16[2] reduce-precision(f), exponent_bits=5, mantissa_bits=10\n"
                 "  ROOT b = u16[2] bitcast-convert(r)\n"),
            "u16[2] {1, 3}");
  EXPECT_EQ(Eval("  a = u16[2] constant({1, 3})\n  f = f16[2] bitcast-convert(a)\n"
                 "  r = f16[2] reduce-precision(f), exponent_bits=5, mantissa_bits=9\n"
                 "  ROOT b = u16[2] bitcast-convert(r)\n"),
            "u16[2] {0, 4}");
  // f64 to f32's format: 0.1 becomes the f32 0.1 (0x3fb99999a0000000).
  EXPECT_EQ(Eval("  a = f64[2] constant({0.1, 1e-40})\n"
                 "  r = f64[2] reduce-precision(a), exponent_bits=8, mantissa_bits=23\n"
                 "  ROOT b = u64[2] bitcast-convert(r)\n"),
            "u64[2] {4591870180174331904, 0}");
  // bf16 to 3 mantissa bits: 1.125 stays, 1.0625 ties to 1.
  EXPECT_EQ(Eval("  a = bf16[2]{0} constant({1.125, 1.0625})\n"
                 "  ROOT r = bf16[2]{0:T(4)} reduce-precision(a), exponent_bits=8, "
                 "mantissa_bits=3\n"),
            "bf16[2] {1.125, 1}");
}

TEST(ReducePrecisionTest, NonDefaultLayout) {
  EXPECT_EQ(Eval("  a = f32[2,2]{0,1} constant({{1.00390625, 65520}, {3.0517578125e-05, -2}})\n"
                 "  ROOT r = f32[2,2]{1,0:T(2,2)} reduce-precision(a), exponent_bits=5, "
                 "mantissa_bits=7\n"),
            "f32[2,2] {1, inf, 0, -2}");
}

TEST(ReducePrecisionTest, RefusesIntegersAtLoadTime) {
  EXPECT_THAT(Eval("  a = s32[2] constant({1, 2})\n"
                   "  ROOT r = s32[2] reduce-precision(a), exponent_bits=5, mantissa_bits=2\n",
                   "", /*verify=*/false),
              HasSubstr("r (reduce-precision): reduce-precision takes one floating-point operand"));
}

}  // namespace
}  // namespace xla_layout::runtime
