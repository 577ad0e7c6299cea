#include "runtime/sort.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/op_test_util.h"

namespace xla_layout::runtime {
namespace {

using ::testing::HasSubstr;

// Comparators: on the first operand only, and on (key, value) pairs.
const char kLtF32[] =
    "lt {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
    "  ROOT c = pred[] compare(a, b), direction=LT\n}\n\n";
const char kTotalLtF32[] =
    "tlt {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
    "  ROOT c = pred[] compare(a, b), direction=LT, type=TOTALORDER\n}\n\n";
const char kGtS32[] =
    "gt {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n"
    "  ROOT c = pred[] compare(a, b), direction=GT\n}\n\n";
const char kKeyLt[] =
    "keylt {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n"
    "  x = f32[] parameter(2)\n  y = f32[] parameter(3)\n"
    "  ROOT c = pred[] compare(a, b), direction=LT\n}\n\n";
const char kPairLt[] =
    "pairlt {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n"
    "  x = f32[] parameter(2)\n  y = f32[] parameter(3)\n"
    "  lt = pred[] compare(a, b), direction=LT\n  eq = pred[] compare(a, b), direction=EQ\n"
    "  vlt = pred[] compare(x, y), direction=LT\n  tie = pred[] and(eq, vlt)\n"
    "  ROOT c = pred[] or(lt, tie)\n}\n\n";

TEST(SortTest, EqualKeysKeepTheirOrder) {
  // -0 and 0 are equal under IEEE's LT and keep their order; the total
  // order puts -0 first.
  const std::string a = "  a = f32[5] constant({3, 0, 2, -0, -1})\n";
  EXPECT_EQ(
      Eval(a + "  ROOT s = f32[5] sort(a), dimensions={0}, is_stable=true, to_apply=lt\n", kLtF32),
      "f32[5] {-1, 0, -0, 2, 3}");
  EXPECT_EQ(Eval(a + "  ROOT s = f32[5] sort(a), dimensions={0}, to_apply=tlt\n", kTotalLtF32),
            "f32[5] {-1, -0, 0, 2, 3}");
}

TEST(SortTest, SortsAlongTheNamedDim) {
  // Each column of [[1,6],[3,4],[2,5]] descending.
  EXPECT_EQ(Eval("  a = s32[3,2] constant({{1, 6}, {3, 4}, {2, 5}})\n"
                 "  ROOT s = s32[3,2] sort(a), dimensions={0}, to_apply=gt\n",
                 kGtS32),
            "s32[3,2] {3, 6, 2, 5, 1, 4}");
  // Each row.
  EXPECT_EQ(Eval("  a = s32[3,2] constant({{1, 6}, {3, 4}, {2, 5}})\n"
                 "  ROOT s = s32[3,2] sort(a), dimensions={1}, to_apply=gt\n",
                 kGtS32),
            "s32[3,2] {6, 1, 4, 3, 5, 2}");
}

TEST(SortTest, NonDefaultLayoutsGiveTheSameResult) {
  EXPECT_EQ(Eval("  a = s32[3,2]{0,1} constant({{1, 6}, {3, 4}, {2, 5}})\n"
                 "  ROOT s = s32[3,2]{1,0:T(2,2)} sort(a), dimensions={0}, to_apply=gt\n",
                 kGtS32),
            "s32[3,2] {3, 6, 2, 5, 1, 4}");
}

TEST(SortTest, SeveralOperandsArePermutedAlike) {
  // Keys only decide; is_stable=false sorts stably all the same.
  EXPECT_EQ(Eval("  k = s32[5] constant({2, 1, 2, 1, 0})\n"
                 "  v = f32[5] constant({10, 11, 12, 13, 14})\n"
                 "  ROOT s = (s32[5], f32[5]) sort(k, v), dimensions={0}, is_stable=false, "
                 "to_apply=keylt\n",
                 kKeyLt),
            "s32[5] {0, 1, 1, 2, 2} | f32[5] {14, 11, 13, 10, 12}");
  // The comparator sees every operand's elements: (key, value) pairs.
  EXPECT_EQ(Eval("  k = s32[4]{0} constant({1, 0, 1, 0})\n"
                 "  v = f32[4]{0} constant({4, 3, 2, 1})\n"
                 "  ROOT s = (s32[4]{0}, f32[4]{0}) sort(k, v), dimensions={0}, to_apply=pairlt\n",
                 kPairLt),
            "s32[4] {0, 0, 1, 1} | f32[4] {1, 3, 2, 4}");
}

TEST(SortTest, MovesBitsUnchanged) {
  // A NaN with a payload comes out with the same bits.
  EXPECT_EQ(Eval("  a = u32[2] constant({2143289345, 1065353216})\n"
                 "  f = f32[2] bitcast-convert(a)\n"
                 "  s = f32[2] sort(f), dimensions={0}, to_apply=tlt\n"
                 "  ROOT r = u32[2] bitcast-convert(s)\n",
                 kTotalLtF32),
            "u32[2] {1065353216, 2143289345}");
}

// The executor checks the comparator itself, for a module nobody verified.
TEST(SortTest, ComparatorArityIsCheckedAtLoadTime) {
  EXPECT_THAT(Eval("  k = s32[2] constant({1, 0})\n  v = s32[2] constant({1, 0})\n"
                   "  ROOT s = (s32[2], s32[2]) sort(k, v), dimensions={0}, to_apply=gt\n",
                   kGtS32, /*verify=*/false),
              HasSubstr("s (sort): to_apply=gt must take 4 scalars of the operands' types"));
  EXPECT_THAT(Eval("  a = s32[2] constant({1, 0})\n"
                   "  ROOT s = s32[2] sort(a), dimensions={0}, to_apply=add\n",
                   "add {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n"
                   "  ROOT c = s32[] add(a, b)\n}\n\n",
                   /*verify=*/false),
              HasSubstr("and return 1 pred scalar"));
  EXPECT_THAT(Eval("  a = s32[2] constant({1, 0})\n"
                   "  ROOT s = s32[2] sort(a), dimensions={0}, is_stable=maybe, to_apply=gt\n",
                   kGtS32),
              HasSubstr("is_stable=maybe"));
}

TEST(TopKTest, LargestInTotalOrderLowerIndexFirst) {
  // NaN > 3 = 3 > 1 > -0 > -inf; the equal 3s keep index order.
  const std::string a = "  a = f32[6] constant({1, nan, 3, 3, -inf, -0})\n";
  EXPECT_EQ(Eval(a + "  ROOT t = (f32[3], s32[3]) topk(a), k=3, largest=true\n"),
            "f32[3] {nan, 3, 3} | s32[3] {1, 2, 3}");
  EXPECT_EQ(Eval(a + "  ROOT t = (f32[2], s32[2]) topk(a), k=2, largest=false\n"),
            "f32[2] {-inf, -0} | s32[2] {4, 5}");
  // largest defaults to true.
  EXPECT_EQ(Eval(a + "  ROOT t = (f32[1], s32[1]) topk(a), k=1\n"), "f32[1] {nan} | s32[1] {1}");
}

TEST(TopKTest, RowsAlongTheLastDimUnderAnyLayout) {
  EXPECT_EQ(Eval("  a = s32[2,3] constant({{5, 1, 5}, {0, 2, 1}})\n"
                 "  ROOT t = (s32[2,2], s32[2,2]) topk(a), k=2, largest=true\n"),
            "s32[2,2] {5, 5, 2, 1} | s32[2,2] {0, 2, 1, 2}");
  EXPECT_EQ(Eval("  a = s32[2,3]{0,1} constant({{5, 1, 5}, {0, 2, 1}})\n"
                 "  ROOT t = (s32[2,2]{0,1}, s32[2,2]{1,0:T(2,2)}) topk(a), k=2, largest=true\n"),
            "s32[2,2] {5, 5, 2, 1} | s32[2,2] {0, 2, 1, 2}");
}

TEST(TopKTest, KIsCheckedAtLoadTime) {
  EXPECT_THAT(Eval("  a = s32[3] constant({1, 2, 3})\n"
                   "  ROOT t = (s32[4], s32[4]) topk(a), k=4, largest=true\n"),
              HasSubstr("k must be written and lie in [0, 3]"));
}

}  // namespace
}  // namespace xla_layout::runtime
