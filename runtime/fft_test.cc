#include "runtime/fft.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/op_test_util.h"

namespace xla_layout::runtime {
namespace {

using ::testing::HasSubstr;

// Hand-computed transforms of small integers (exact in f32).
TEST(FftTest, RealAndComplexTransformsOfSmallIntegers) {
  EXPECT_EQ(Eval("  p = f32[4] constant({1, 2, 3, 4})\n"
                   "  ROOT f = c64[3] fft(p), fft_type=RFFT, fft_length={4}\n"),
            "c64[3] {(10, 0), (-2, 2), (-2, 0)}");
  EXPECT_EQ(Eval("  p = f32[4] constant({1, 2, 3, 4})\n"
                   "  f = c64[3] fft(p), fft_type=RFFT, fft_length={4}\n"
                   "  ROOT i = f32[4] fft(f), fft_type=IRFFT, fft_length={4}\n"),
            "f32[4] {1, 2, 3, 4}");
  // FFT then IFFT of rows: each row's transform, then back (scaled 1/N).
  EXPECT_EQ(Eval("  p = f32[2,4] constant({{1, 0, 0, 0}, {1, 1, 1, 1}})\n"
                   "  f = c64[2,3] fft(p), fft_type=RFFT, fft_length={4}\n"
                   "  ROOT i = f32[2,4] fft(f), fft_type=IRFFT, fft_length={4}\n"),
            "f32[2,4] {1, 0, 0, 0, 1, 1, 1, 1}");
  // Two dims: the transform of a delta is all ones.
  EXPECT_EQ(Eval("  p = f32[2,2] constant({{1, 0}, {0, 0}})\n"
                   "  ROOT f = c64[2,2] fft(p), fft_type=RFFT, fft_length={2,2}\n"),
            "c64[2,2] {(1, 0), (1, 0), (1, 0), (1, 0)}");
}

TEST(FftTest, ComplexForwardAndInverse) {
  // The RFFT of a 2x2 delta is all ones; their FFT is 4 at the origin, and
  // the IFFT (scaled by 1/4) gives the ones back.
  EXPECT_EQ(Eval("  p = f32[2,2] constant({{1, 0}, {0, 0}})\n"
                 "  r = c64[2,2] fft(p), fft_type=RFFT, fft_length={2,2}\n"
                 "  f = c64[2,2] fft(r), fft_type=FFT, fft_length={2,2}\n"
                 "  i = c64[2,2] fft(f), fft_type=IFFT, fft_length={2,2}\n"
                 "  ROOT t = (c64[2,2], c64[2,2]) tuple(f, i)\n"),
            "c64[2,2] {(4, 0), (0, 0), (0, 0), (0, 0)} | "
            "c64[2,2] {(1, 0), (1, 0), (1, 0), (1, 0)}");
}

TEST(FftTest, LayoutsDoNotChangeTheResult) {
  const std::string body =
      "  p = f32[3,4]{0,1} constant({{1, 2, 3, 4}, {0, 1, 0, 1}, {5, 5, 5, 5}})\n"
      "  ROOT f = c64[3,3]LAYOUT fft(p), fft_type=RFFT, fft_length={4}\n";
  std::string row_major = body, tiled = body;
  row_major.replace(row_major.find("LAYOUT"), 6, "{1,0}");
  tiled.replace(tiled.find("LAYOUT"), 6, "{0,1:T(2,2)}");
  EXPECT_EQ(Eval(row_major), Eval(tiled));
  EXPECT_THAT(Eval(row_major), HasSubstr("(10, 0), (-2, 2), (-2, 0)"));
}

// Shapes that do not fit fft_length are refused at load, not read past
// their ends (the fuzzer's case: a length larger than the operand).
TEST(FftTest, ShapesThatDoNotFitTheLengthAreRefused) {
  EXPECT_THAT(Eval("  p = f32[4] constant({1, 2, 3, 4})\n"
                   "  ROOT f = c64[4] fft(p), fft_type=RFFT, fft_length={6}\n",
                   "", /*verify=*/false),
              HasSubstr("does not fit fft_length"));
  EXPECT_THAT(Eval("  p = f32[2,4] constant({{1, 2, 3, 4}, {1, 2, 3, 4}})\n"
                   "  ROOT f = c64[3,3] fft(p), fft_type=RFFT, fft_length={4}\n",
                   "", /*verify=*/false),
              HasSubstr("does not fit fft_length"));
}

TEST(FftTest, ComplexValuesAreOnlyMovedOutsideFft) {
  EXPECT_THAT(Eval("  p = f32[4] constant({1, 2, 3, 4})\n"
                     "  f = c64[3] fft(p), fft_type=RFFT, fft_length={4}\n"
                     "  ROOT a = c64[3] add(f, f)\n"),
              HasSubstr("c64 is computed on only by fft"));
}

}  // namespace
}  // namespace xla_layout::runtime
