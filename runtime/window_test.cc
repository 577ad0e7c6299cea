#include "runtime/window.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/op_test_util.h"

namespace xla_layout::runtime {
namespace {

using ::testing::HasSubstr;

const char kSum[] =
    "sum {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = f32[] add(a, b)\n}\n\n";
const char kMaxS32[] =
    "max {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  ROOT c = s32[] maximum(a, "
    "b)\n}\n\n";
const char kArgmax[] =
    "argmax {\n  a = f32[] parameter(0)\n  i = s32[] parameter(1)\n  b = f32[] parameter(2)\n"
    "  j = s32[] parameter(3)\n  ge = pred[] compare(a, b), direction=GE\n"
    "  m = f32[] select(ge, a, b)\n  k = s32[] select(ge, i, j)\n"
    "  ROOT t = (f32[], s32[]) tuple(m, k)\n}\n\n";

TEST(ReduceWindowTest, SumsWindowsFromTheInitValue) {
  const std::string a = "  a = f32[4] constant({1, 2, 3, 4})\n";
  EXPECT_EQ(Eval(a + "  z = f32[] constant(0)\n"
                     "  ROOT r = f32[3] reduce-window(a, z), window={size=2}, to_apply=sum\n",
                 kSum),
            "f32[3] {3, 5, 7}");
  // Padding is skipped, not folded in as the init value: the first window
  // is 10 + 1, not 10 + 10 + 1.
  EXPECT_EQ(Eval(a + "  z = f32[] constant(10)\n"
                     "  ROOT r = f32[4] reduce-window(a, z), window={size=2 pad=1_0}, "
                     "to_apply=sum\n",
                 kSum),
            "f32[4] {11, 13, 15, 17}");
}

TEST(ReduceWindowTest, StridesPaddingAndDilations) {
  // 2x2 max pool, stride 2, one padded row and column at the end.
  const std::string a = "  a = s32[3,3] constant({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}})\n";
  EXPECT_EQ(Eval(a + "  lo = s32[] constant(-100)\n"
                     "  ROOT r = s32[2,2] reduce-window(a, lo), window={size=2x2 stride=2x2 "
                     "pad=0_1x0_1}, to_apply=max\n",
                 kMaxS32),
            "s32[2,2] {5, 6, 8, 9}");
  // lhs_dilate=2 reads [1, _, 2, _, 3]; the holes are skipped.
  EXPECT_EQ(Eval("  a = f32[3] constant({1, 2, 3})\n  z = f32[] constant(0)\n"
                 "  ROOT r = f32[4] reduce-window(a, z), window={size=2 lhs_dilate=2}, "
                 "to_apply=sum\n",
                 kSum),
            "f32[4] {1, 2, 2, 3}");
  // rhs_dilate=2: each window is elements i and i + 2.
  EXPECT_EQ(Eval("  a = f32[5] constant({1, 2, 3, 4, 5})\n  z = f32[] constant(0)\n"
                 "  ROOT r = f32[3] reduce-window(a, z), window={size=2 rhs_dilate=2}, "
                 "to_apply=sum\n",
                 kSum),
            "f32[3] {4, 6, 8}");
}

TEST(ReduceWindowTest, VariadicUnderNonDefaultLayouts) {
  EXPECT_EQ(Eval("  a = f32[4] constant({3, 9, 2, 9})\n  i = s32[4] iota(), iota_dimension=0\n"
                 "  lo = f32[] constant(-inf)\n  z = s32[] constant(0)\n"
                 "  ROOT r = (f32[2], s32[2]) reduce-window(a, i, lo, z), "
                 "window={size=2 stride=2}, to_apply=argmax\n",
                 kArgmax),
            "f32[2] {9, 9} | s32[2] {1, 3}");
  EXPECT_EQ(Eval("  a = s32[3,3]{0,1} constant({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}})\n"
                 "  lo = s32[] constant(-100)\n"
                 "  ROOT r = s32[2,2]{0,1:T(2,2)} reduce-window(a, lo), window={size=2x2 "
                 "stride=2x2 pad=0_1x0_1}, to_apply=max\n",
                 kMaxS32),
            "s32[2,2] {5, 6, 8, 9}");
}

TEST(ReduceWindowTest, ToApplyArityIsCheckedAtLoadTime) {
  EXPECT_THAT(Eval("  a = f32[4] constant({3, 9, 2, 9})\n  i = s32[4] iota(), iota_dimension=0\n"
                   "  lo = f32[] constant(-inf)\n  z = s32[] constant(0)\n"
                   "  ROOT r = (f32[2], s32[2]) reduce-window(a, i, lo, z), "
                   "window={size=2 stride=2}, to_apply=sum\n",
                   kSum, /*verify=*/false),
              HasSubstr("r (reduce-window): to_apply=sum must take 4 scalars"));
}

const char kGe[] =
    "ge {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
    "  ROOT c = pred[] compare(a, b), direction=GE\n}\n\n";
const char kGt[] =
    "gt {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
    "  ROOT c = pred[] compare(a, b), direction=GT\n}\n\n";
// scatter(source, current): subtraction shows the order.
const char kSourceMinusCurrent[] =
    "sub {\n  s = f32[] parameter(0)\n  c = f32[] parameter(1)\n  ROOT d = f32[] subtract(s, "
    "c)\n}\n\n";

std::string Sas(const std::string& operand, const std::string& source, const std::string& out,
                const std::string& window, const std::string& select, const std::string& scatter) {
  return absl::StrCat("  a = ", operand, "\n  s = ", source, "\n  z = f32[] constant(0)\n",
                      "  ROOT r = ", out, " select-and-scatter(a, s, z), window={", window,
                      "}, select=", select, ", scatter=", scatter, "\n");
}

TEST(SelectAndScatterTest, ScattersToTheSelectedPosition) {
  const std::string comps = std::string(kGe) + kGt + kSum + kSourceMinusCurrent;
  // Windows {1, 5} and {3, 2}: GE picks 5 (index 1) and 3 (index 2).
  EXPECT_EQ(Eval(Sas("f32[4] constant({1, 5, 3, 2})", "f32[2] constant({10, 20})", "f32[4]",
                     "size=2 stride=2", "ge", "sum"),
                 comps),
            "f32[4] {0, 10, 20, 0}");
  // A tie keeps the first under GE (select(picked, later) true) and takes
  // the later under GT.
  EXPECT_EQ(
      Eval(Sas("f32[2] constant({2, 2})", "f32[1] constant({7})", "f32[2]", "size=2", "ge", "sum"),
           comps),
      "f32[2] {7, 0}");
  EXPECT_EQ(
      Eval(Sas("f32[2] constant({2, 2})", "f32[1] constant({7})", "f32[2]", "size=2", "gt", "sum"),
           comps),
      "f32[2] {0, 7}");
}

TEST(SelectAndScatterTest, OverlapsScatterInSourceOrderAsSourceThenCurrent) {
  const std::string comps = std::string(kGe) + kSourceMinusCurrent;
  // Both windows of {1, 5, 3} pick index 1: 10 - 0, then 20 - 10.
  EXPECT_EQ(Eval(Sas("f32[3] constant({1, 5, 3})", "f32[2] constant({10, 20})", "f32[3]", "size=2",
                     "ge", "sub"),
                 comps),
            "f32[3] {0, 10, 0}");
}

TEST(SelectAndScatterTest, PaddingIsNeverPicked) {
  const std::string comps = std::string(kGe) + kSum;
  EXPECT_EQ(Eval(Sas("f32[2] constant({1, 5})", "f32[2] constant({10, 20})", "f32[2]",
                     "size=2 pad=1_0", "ge", "sum"),
                 comps),
            "f32[2] {10, 20}");
  // The first window lies wholly in the padding: its 10 goes nowhere.
  EXPECT_EQ(Eval(Sas("f32[1] constant({1})", "f32[2] constant({10, 20})", "f32[1]",
                     "size=2 pad=2_0", "ge", "sum"),
                 comps),
            "f32[1] {20}");
}

TEST(SelectAndScatterTest, NonDefaultLayouts) {
  // Row windows of 2 over [[1,5],[4,3]]: max at (0,1) and (1,0).
  const std::string comps = std::string(kGe) + kSum;
  EXPECT_EQ(
      Eval(Sas("f32[2,2]{0,1} constant({{1, 5}, {4, 3}})", "f32[2,1]{0,1} constant({{10}, {20}})",
               "f32[2,2]{1,0:T(2,2)}", "size=1x2", "ge", "sum"),
           comps),
      "f32[2,2] {0, 10, 20, 0}");
}

TEST(SelectAndScatterTest, ComputationsAreCheckedAtLoadTime) {
  const std::string comps = std::string(kGe) + kSum;
  EXPECT_THAT(Eval(Sas("f32[2] constant({1, 5})", "f32[1] constant({10})", "f32[2]", "size=2",
                       "sum", "sum"),
                   comps, /*verify=*/false),
              HasSubstr("r (select-and-scatter): select=sum must take 2 scalars of the "
                        "operands' types and return 1 pred scalar"));
}

}  // namespace
}  // namespace xla_layout::runtime
