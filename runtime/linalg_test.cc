#include "runtime/linalg.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/op_test_util.h"

namespace xla_layout::runtime {
namespace {

using ::testing::HasSubstr;

// [[4,12,-16],[12,37,-43],[-16,-43,98]] = L L^T with L =
// [[2,0,0],[6,1,0],[-8,5,3]]. The 999s sit in the triangle not read.
TEST(CholeskyTest, LowerReadsTheLowerTriangleAndZeroesTheOther) {
  EXPECT_EQ(Eval("  a = f32[3,3] constant({{4, 999, 999}, {12, 37, 999}, {-16, -43, 98}})\n"
                 "  ROOT l = f32[3,3] cholesky(a), lower=true\n"),
            "f32[3,3] {2, 0, 0, 6, 1, 0, -8, 5, 3}");
}

TEST(CholeskyTest, UpperReadsTheUpperTriangle) {
  // U = L^T; lower defaults to false.
  EXPECT_EQ(Eval("  a = f64[3,3] constant({{4, 12, -16}, {999, 37, -43}, {999, 999, 98}})\n"
                 "  ROOT u = f64[3,3] cholesky(a)\n"),
            "f64[3,3] {2, 6, -8, 0, 1, 5, 0, 0, 3}");
}

TEST(CholeskyTest, ANonPositiveDefiniteMatrixIsAllNaNAndOnlyIt) {
  // [[1,2],[2,1]]: the second pivot is 1 - 4 < 0. [[4,2],[2,5]] = L L^T
  // with L = [[2,0],[1,2]].
  EXPECT_EQ(Eval("  a = f32[2,2,2] constant({{{1, 2}, {2, 1}}, {{4, 2}, {2, 5}}})\n"
                 "  ROOT l = f32[2,2,2] cholesky(a), lower=true\n"),
            "f32[2,2,2] {nan, nan, nan, nan, 2, 0, 1, 2}");
}

TEST(CholeskyTest, NonDefaultLayouts) {
  EXPECT_EQ(Eval("  a = f32[2,2,2]{0,1,2} constant({{{1, 2}, {2, 1}}, {{4, 2}, {2, 5}}})\n"
                 "  ROOT l = f32[2,2,2]{1,2,0:T(2,2)} cholesky(a), lower=true\n"),
            "f32[2,2,2] {nan, nan, nan, nan, 2, 0, 1, 2}");
}

TEST(CholeskyTest, RefusesIntegersAtLoadTime) {
  EXPECT_THAT(Eval("  a = s32[2,2] constant({{4, 2}, {2, 5}})\n"
                   "  ROOT l = s32[2,2] cholesky(a), lower=true\n",
                   "", /*verify=*/false),
              HasSubstr("l (cholesky): cholesky takes one floating-point array"));
}

// a = [[2, .], [1, 4]] (lower; the 999 is not read), b = [2, 9].
const char kLowerA[] = "  a = f32[2,2] constant({{2, 999}, {1, 4}})\n";

TEST(TriangularSolveTest, LeftSide) {
  const std::string b = "  b = f32[2,1] constant({{2}, {9}})\n";
  // a x = b: x0 = 2/2 = 1, x1 = (9 - 1*1)/4 = 2.
  EXPECT_EQ(Eval(kLowerA + b +
                 "  ROOT x = f32[2,1] triangular-solve(a, b), left_side=true, "
                 "lower=true, transpose_a=NO_TRANSPOSE\n"),
            "f32[2,1] {1, 2}");
  // a^T x = b: x1 = 9/4 = 2.25, x0 = (2 - 1*2.25)/2 = -0.125.
  EXPECT_EQ(Eval(kLowerA + b +
                 "  ROOT x = f32[2,1] triangular-solve(a, b), left_side=true, "
                 "lower=true, transpose_a=TRANSPOSE\n"),
            "f32[2,1] {-0.125, 2.25}");
  EXPECT_EQ(Eval(kLowerA + b +
                 "  ROOT x = f32[2,1] triangular-solve(a, b), left_side=true, "
                 "lower=true, transpose_a=ADJOINT\n"),
            "f32[2,1] {-0.125, 2.25}");
  // A unit diagonal is not read: x0 = 2, x1 = 9 - 1*2 = 7.
  EXPECT_EQ(Eval(kLowerA + b +
                 "  ROOT x = f32[2,1] triangular-solve(a, b), left_side=true, "
                 "lower=true, unit_diagonal=true, transpose_a=NO_TRANSPOSE\n"),
            "f32[2,1] {2, 7}");
  // The upper triangle of [[2, 1], [999, 4]]: x1 = 9/4, x0 = (2 - 2.25)/2.
  EXPECT_EQ(Eval("  a = f32[2,2] constant({{2, 1}, {999, 4}})\n" + b +
                 "  ROOT x = f32[2,1] triangular-solve(a, b), left_side=true, lower=false, "
                 "transpose_a=NO_TRANSPOSE\n"),
            "f32[2,1] {-0.125, 2.25}");
}

TEST(TriangularSolveTest, RightSide) {
  const std::string b = "  b = f32[1,2] constant({{4, 8}})\n";
  // x a = b: 2 x0 + x1 = 4, 4 x1 = 8: x = [1, 2].
  EXPECT_EQ(Eval(kLowerA + b +
                 "  ROOT x = f32[1,2] triangular-solve(a, b), lower=true, "
                 "transpose_a=NO_TRANSPOSE\n"),
            "f32[1,2] {1, 2}");
  // x a^T = b: 2 x0 = 4, x0 + 4 x1 = 8: x = [2, 1.5].
  EXPECT_EQ(Eval(kLowerA + b +
                 "  ROOT x = f32[1,2] triangular-solve(a, b), lower=true, "
                 "transpose_a=TRANSPOSE\n"),
            "f32[1,2] {2, 1.5}");
}

TEST(TriangularSolveTest, BatchedUnderNonDefaultLayouts) {
  // Batch 0 is the LeftSide case; batch 1 solves [[1, .], [3, 1]] x = [1, 5]:
  // x = [1, 2]. Two right-hand sides per batch (the second is doubled).
  const std::string body =
      "  a = f32[2,2,2]{LA} constant({{{2, 999}, {1, 4}}, {{1, 999}, {3, 1}}})\n"
      "  b = f32[2,2,2]{LB} constant({{{2, 4}, {9, 18}}, {{1, 2}, {5, 10}}})\n"
      "  ROOT x = f32[2,2,2]{LX} triangular-solve(a, b), left_side=true, lower=true, "
      "transpose_a=NO_TRANSPOSE\n";
  const std::string want = "f32[2,2,2] {1, 2, 2, 4, 1, 2, 2, 4}";
  auto with = [&](const std::string& la, const std::string& lb, const std::string& lx) {
    std::string s = body;
    s.replace(s.find("LA"), 2, la);
    s.replace(s.find("LB"), 2, lb);
    s.replace(s.find("LX"), 2, lx);
    return s;
  };
  EXPECT_EQ(Eval(with("2,1,0", "2,1,0", "2,1,0")), want);
  EXPECT_EQ(Eval(with("0,1,2", "1,2,0", "2,1,0:T(2,2)")), want);
}

TEST(TriangularSolveTest, TransposeAMustBeWritten) {
  EXPECT_THAT(Eval(kLowerA + std::string("  b = f32[2,1] constant({{2}, {9}})\n"
                                         "  ROOT x = f32[2,1] triangular-solve(a, b), "
                                         "left_side=true, lower=true\n"),
                   "", /*verify=*/false),
              HasSubstr("transpose_a must be NO_TRANSPOSE, TRANSPOSE or ADJOINT"));
}

}  // namespace
}  // namespace xla_layout::runtime
