#include "runtime/map.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/op_test_util.h"

namespace xla_layout::runtime {
namespace {

using ::testing::HasSubstr;

const char kMulAddOne[] =
    "f {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  m = f32[] multiply(x, y)\n"
    "  one = f32[] constant(1)\n  ROOT s = f32[] add(m, one)\n}\n\n";
const char kLess[] =
    "lt {\n  x = s32[] parameter(0)\n  y = s32[] parameter(1)\n"
    "  ROOT r = pred[] compare(x, y), direction=LT\n}\n\n";

TEST(MapTest, AppliesToApplyPerElement) {
  EXPECT_EQ(Eval("  a = f32[3] constant({1, 2, 3})\n  b = f32[3] constant({4, 5, 6})\n"
                 "  ROOT r = f32[3] map(a, b), dimensions={0}, to_apply=f\n",
                 kMulAddOne),
            "f32[3] {5, 11, 19}");
  // The result takes to_apply's type.
  EXPECT_EQ(Eval("  a = s32[3] constant({1, 5, 3})\n  b = s32[3] constant({4, 5, 2})\n"
                 "  ROOT r = pred[3] map(a, b), dimensions={0}, to_apply=lt\n",
                 kLess),
            "pred[3] {true, false, false}");
}

TEST(MapTest, NonDefaultLayouts) {
  EXPECT_EQ(Eval("  a = f32[2,2]{0,1} constant({{1, 2}, {3, 4}})\n"
                 "  b = f32[2,2]{1,0:T(2,2)} constant({{5, 6}, {7, 8}})\n"
                 "  ROOT r = f32[2,2]{0,1} map(a, b), dimensions={0,1}, to_apply=f\n",
                 kMulAddOne),
            "f32[2,2] {6, 13, 22, 33}");
}

TEST(MapTest, ToApplyIsCheckedAtLoadTime) {
  EXPECT_THAT(Eval("  a = f32[3] constant({1, 2, 3})\n"
                   "  ROOT r = f32[3] map(a), dimensions={0}, to_apply=f\n",
                   kMulAddOne, /*verify=*/false),
              HasSubstr("r (map): to_apply=f must take 1 scalars"));
}

TEST(DynamicReshapeTest, StaticSizesReshape) {
  const std::string a = "  a = s32[2,3]{0,1} constant({{1, 2, 3}, {4, 5, 6}})\n";
  EXPECT_EQ(Eval(a + "  i = s32[] constant(3)\n  j = s32[] constant(2)\n"
                     "  ROOT r = s32[3,2]{0,1} dynamic-reshape(a, i, j)\n"),
            "s32[3,2] {1, 2, 3, 4, 5, 6}");
  // A size that disagrees with the static result is an error at run time.
  EXPECT_THAT(Eval(a + "  i = s32[] constant(2)\n  j = s32[] constant(3)\n"
                       "  ROOT r = s32[3,2] dynamic-reshape(a, i, j)\n"),
              HasSubstr("r (dynamic-reshape): size 2 for dim 0 of the static result"));
}

TEST(DynamicReshapeTest, RefusesDynamicResults) {
  EXPECT_THAT(Eval("  a = s32[6] constant({1, 2, 3, 4, 5, 6})\n  i = s32[] constant(6)\n"
                   "  ROOT r = s32[<=6] dynamic-reshape(a, i)\n"),
              HasSubstr("result dim 0 is dynamic"));
}

}  // namespace
}  // namespace xla_layout::runtime
