#include "runtime/executor.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <random>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_verifier.h"
#include "hlo/random_module.h"
#include "passes/layout_assignment/layout_assignment.h"
#include "passes/layout_assignment/target_config.h"
#include "runtime/dot_kernel.h"
#include "runtime/logical.h"
#include "xla_layout/isa.h"
#include "xla_layout/shape_text.h"
#include "xla_layout/test_util.h"

namespace xla_layout::runtime {
namespace {

using ::testing::HasSubstr;

// Every output leaf of `module` run on inputs from random:SEED.
absl::StatusOr<std::vector<LogicalArray>> RunModule(const HloModule& module, uint64_t seed,
                                                    ExecutionStats* stats = nullptr,
                                                    bool strict = true) {
  ExecutorOptions options;
  options.strict_layouts = strict;
  std::mt19937_64 rng(seed);
  std::vector<LogicalArray> inputs;
  for (const HloInstruction* p : module.entry()->parameters()) {
    absl::StatusOr<LogicalArray> a = RandomLogicalArray(p->shape(), rng);
    if (!a.ok()) return a.status();
    inputs.push_back(*std::move(a));
  }
  return RunLogical(module, inputs, options, stats);
}

std::unique_ptr<HloModule> Parse(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text, "t.hlo");
  EXPECT_TRUE(m.ok()) << m.status() << "\n" << text;
  if (!m.ok()) return nullptr;
  absl::Status v = VerifyModule(**m);
  EXPECT_TRUE(v.ok()) << v << "\n" << text;
  return v.ok() ? *std::move(m) : nullptr;
}

// The text of the only output of a module without parameters.
std::string Eval(const std::string& body, const std::string& extra = "") {
  std::unique_ptr<HloModule> m = Parse(absl::StrCat("HloModule t\n\n", extra, "ENTRY e {\n", body, "}\n"));
  if (m == nullptr) return "<parse error>";
  absl::StatusOr<std::vector<LogicalArray>> out = RunModule(*m, 0);
  if (!out.ok()) return std::string(out.status().message());
  return DescribeArray(out->at(0));
}

// --- The packed dot kernel ---------------------------------------------------

std::string DotModule(int64_t m, int64_t k, int64_t n, const std::string& lhs_layout,
                      const std::string& rhs_layout, const std::string& out_layout,
                      bool special_lhs) {
  const std::string lhs = absl::StrCat("f32[", m, ",", k, "]");
  const std::string rhs = absl::StrCat("f32[", k, ",", n, "]");
  const std::string res = absl::StrCat("f32[", m, ",", n, "]");
  std::string lhs_def = absl::StrCat("  a = ", lhs, lhs_layout, " parameter(0)\n");
  if (special_lhs) {
    // inf, -inf, nan, -0 and ordinary values, as a constant in the lhs layout.
    std::vector<std::string> rows;
    const char* values[] = {"inf", "-inf", "nan", "-0", "1.5", "-2", "0.25", "3"};
    for (int64_t i = 0; i < m; ++i) {
      std::vector<std::string> row;
      for (int64_t j = 0; j < k; ++j) row.push_back(values[(i * 7 + j * 3) % 8]);
      rows.push_back(absl::StrCat("{", absl::StrJoin(row, ","), "}"));
    }
    lhs_def = absl::StrCat("  a = ", lhs, lhs_layout, " constant({", absl::StrJoin(rows, ","), "})\n");
  }
  return absl::StrCat("HloModule d, entry_computation_layout={(",
                      special_lhs ? "" : absl::StrCat(lhs, lhs_layout, ", "), rhs, rhs_layout,
                      ")->", res, out_layout, "}\n\nENTRY e {\n", lhs_def, "  b = ", rhs,
                      rhs_layout, " parameter(", special_lhs ? 0 : 1, ")\n  ROOT d = ", res,
                      out_layout, " dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n");
}

TEST(PackedDotTest, PackedOperandsGiveTheGenericDotsBits) {
  struct Size {
    int64_t m, k, n;
  } sizes[] = {{8, 5, 16}, {16, 33, 8}, {24, 64, 40}, {64, 256, 128}, {8, 600, 16}, {16, 300, 32}};
  for (const Size& z : sizes) {
    for (bool special : {false, true}) {
      for (const auto& [l, r, o] :
           {std::tuple<std::string, std::string, std::string>{"{1,0:T(8,1)}", "{0,1:T(8,1)}",
                                                              "{1,0:T(8,8)}"},
            {"{1,0:T(8,1)}", "{0,1:T(8,1)}", "{0,1}"},
            {"{0,1}", "{1,0}", "{1,0}"}}) {
        SCOPED_TRACE(absl::StrCat(z.m, "x", z.k, "x", z.n, " ", l, " ", r, " ", o, " ", special));
        std::unique_ptr<HloModule> packed = Parse(DotModule(z.m, z.k, z.n, l, r, o, special));
        std::unique_ptr<HloModule> plain =
            Parse(DotModule(z.m, z.k, z.n, "{1,0}", "{1,0}", "{1,0}", special));
        ASSERT_NE(packed, nullptr);
        ASSERT_NE(plain, nullptr);
        absl::StatusOr<std::vector<LogicalArray>> a = RunModule(*packed, 11);
        absl::StatusOr<std::vector<LogicalArray>> b = RunModule(*plain, 11);
        ASSERT_TRUE(a.ok()) << a.status();
        ASSERT_TRUE(b.ok()) << b.status();
        EXPECT_EQ(a->at(0).bytes, b->at(0).bytes);
      }
    }
  }
}

TEST(PackedDotTest, TakesSeparableLayoutsOfF32) {
  auto dot_of = [](const HloModule& m) { return m.entry()->root(); };
  auto value = [](const std::string& text) {
    absl::StatusOr<std::shared_ptr<const ArrayInfo>> info = ArrayInfo::Create(*ParseShape(text));
    EXPECT_TRUE(info.ok()) << info.status();
    return std::make_pair(*info, *Value::Allocate(*info));
  };
  std::unique_ptr<HloModule> m =
      Parse(DotModule(16, 8, 16, "{1,0:T(8,1)}", "{0,1:T(8,1)}", "{1,0:T(8,8)}", false));
  ASSERT_NE(m, nullptr);
  auto [out_info, out] = value("f32[16,16]{1,0:T(8,8)}");
  auto lhs = value("f32[16,8]{1,0:T(8,1)}").second;
  auto rhs = value("f32[8,16]{0,1:T(8,1)}").second;
  auto row_major_lhs = value("f32[16,8]{1,0}").second;
  EXPECT_TRUE(PackedDot(*dot_of(*m), lhs, rhs, out_info).has_value());
  EXPECT_TRUE(PackedDot(*dot_of(*m), lhs, value("f32[8,16]{1,0}").second, out_info).has_value());
  // Rows that are not contiguous are gathered into panels all the same.
  EXPECT_TRUE(PackedDot(*dot_of(*m), row_major_lhs, rhs, out_info).has_value());
  // A bf16 result of f32 operands rounds each operand first: generic.
  EXPECT_FALSE(PackedDot(*dot_of(*m), lhs, rhs, value("bf16[16,16]{1,0}").first).has_value());
}

TEST(PackedDotTest, KernelFollowsTheIsaAndXlaLayoutIsa) {
  const Isa best = DetectIsa();
  EXPECT_EQ(PackedDotKernel(8, 16, Isa::kScalar), "scalar 4x8");
  if (best == Isa::kScalar) return;
  EXPECT_EQ(PackedDotKernel(8, 16, Isa::kAvx2), "avx2 4x8");
  setenv("XLA_LAYOUT_ISA", "scalar", 1);
  EXPECT_EQ(PackedDotKernel(8, 16), "scalar 4x8");
  setenv("XLA_LAYOUT_ISA", "avx2", 1);
  EXPECT_EQ(PackedDotKernel(8, 16), "avx2 4x8");
  unsetenv("XLA_LAYOUT_ISA");
  if (best != Isa::kAvx512) return;
  EXPECT_EQ(PackedDotKernel(8, 16), "avx512 8x16");
  EXPECT_EQ(PackedDotKernel(8, 16, Isa::kAvx512), "avx512 8x16");
  // The 8x16 block must divide the result; else the AVX2 kernel runs.
  EXPECT_EQ(PackedDotKernel(12, 16, Isa::kAvx512), "avx2 4x8");
  EXPECT_EQ(PackedDotKernel(8, 24, Isa::kAvx512), "avx2 4x8");
}

// --- What each op computes, on row-major layouts ---------------------------

TEST(ExecutorOpsTest, DataMovement) {
  const std::string m = "  a = s32[2,3] constant({{1, 2, 3}, {4, 5, 6}})\n";
  EXPECT_EQ(Eval(m + "  ROOT r = s32[3,2] transpose(a), dimensions={1,0}\n"),
            "s32[3,2] {1, 4, 2, 5, 3, 6}");
  EXPECT_EQ(Eval(m + "  ROOT r = s32[3,2] reshape(a)\n"), "s32[3,2] {1, 2, 3, 4, 5, 6}");
  EXPECT_EQ(Eval(m + "  ROOT r = s32[2,2,3] broadcast(a), dimensions={0,2}\n"),
            "s32[2,2,3] {1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6}");
  EXPECT_EQ(Eval(m + "  ROOT r = s32[2,2] slice(a), slice={[0:2], [0:3:2]}\n"),
            "s32[2,2] {1, 3, 4, 6}");
  EXPECT_EQ(Eval(m + "  ROOT r = s32[2,3] reverse(a), dimensions={1}\n"),
            "s32[2,3] {3, 2, 1, 6, 5, 4}");
  EXPECT_EQ(Eval(m + "  b = s32[2,3] negate(a)\n  ROOT r = s32[2,6] concatenate(a, b), dimensions={1}\n"),
            "s32[2,6] {1, 2, 3, -1, -2, -3, 4, 5, 6, -4, -5, -6}");
  EXPECT_EQ(Eval(m + "  z = s32[] constant(0)\n  ROOT r = s32[3,6] pad(a, z), padding=0_1x1_0_1\n"),
            "s32[3,6] {0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 0, 0, 0, 0, 0}");
  // Negative padding cuts.
  EXPECT_EQ(Eval(m + "  z = s32[] constant(0)\n  ROOT r = s32[2,2] pad(a, z), padding=0_0x-1_0\n"),
            "s32[2,2] {2, 3, 5, 6}");
  // Start indices are clamped so the window fits.
  EXPECT_EQ(Eval(m + "  i = s32[] constant(1)\n  j = s32[] constant(7)\n"
                     "  ROOT r = s32[1,2] dynamic-slice(a, i, j), dynamic_slice_sizes={1,2}\n"),
            "s32[1,2] {5, 6}");
  EXPECT_EQ(Eval(m + "  u = s32[1,2] constant({{9, 8}})\n  i = s32[] constant(-3)\n  j = s32[] constant(1)\n"
                     "  ROOT r = s32[2,3] dynamic-update-slice(a, u, i, j)\n"),
            "s32[2,3] {1, 9, 8, 4, 5, 6}");
  EXPECT_EQ(Eval("  ROOT r = s32[2,3] iota(), iota_dimension=1\n"), "s32[2,3] {0, 1, 2, 0, 1, 2}");
}

TEST(ExecutorOpsTest, Arithmetic) {
  // Integers wrap; division by zero gives -1 and remainder the dividend.
  EXPECT_EQ(Eval("  a = s4[3] constant({7, -8, 5})\n  b = s4[3] constant({1, -1, 0})\n"
                 "  ROOT r = s4[3] add(a, b)\n"), "s4[3] {-8, 7, 5}");
  EXPECT_EQ(Eval("  a = s32[3] constant({7, -2147483648, 5})\n  b = s32[3] constant({0, -1, 2})\n"
                 "  ROOT r = s32[3] divide(a, b)\n"), "s32[3] {-1, -2147483648, 2}");
  EXPECT_EQ(Eval("  a = u8[2] constant({7, 200})\n  b = u8[2] constant({0, 100})\n"
                 "  ROOT r = u8[2] remainder(a, b)\n"), "u8[2] {7, 0}");
  EXPECT_EQ(Eval("  a = u4[2] constant({15, 3})\n  b = u4[2] constant({1, 5})\n"
                 "  ROOT r = u4[2] add(a, b)\n"), "u4[2] {0, 8}");
  // Float to integer saturates; NaN becomes 0.
  EXPECT_EQ(Eval("  a = f32[4] constant({1e10, -1e10, nan, -2.7})\n  ROOT r = s8[4] convert(a)\n"),
            "s8[4] {127, -128, 0, -2}");
  EXPECT_EQ(Eval("  a = f32[2] constant({1.00390625, 3})\n  ROOT r = bf16[2] convert(a)\n"),
            "bf16[2] {1, 3}");
  EXPECT_EQ(Eval("  a = f32[3] constant({1, nan, -2})\n  b = f32[3] constant({2, 0, -3})\n"
                 "  ROOT r = f32[3] maximum(a, b)\n"), "f32[3] {2, nan, -2}");
  EXPECT_EQ(Eval("  a = f32[2] constant({1, 5})\n  b = f32[2] constant({2, 4})\n"
                 "  c = pred[2] compare(a, b), direction=LT\n  ROOT r = f32[2] select(c, a, b)\n"),
            "f32[2] {1, 4}");
  EXPECT_EQ(Eval("  lo = f32[] constant(0)\n  hi = f32[] constant(1)\n  a = f32[3] constant({-1, 0.5, 2})\n"
                 "  ROOT r = f32[3] clamp(lo, a, hi)\n"), "f32[3] {0, 0.5, 1}");
  EXPECT_EQ(Eval("  a = f16[2] constant({65504, 1})\n  ROOT r = f16[2] add(a, a)\n"),
            "f16[2] {inf, 2}");
}

// Inverse trigonometric and hyperbolic functions on floats; leading zeros
// counted within the integer type's width (all of it for 0).
TEST(ExecutorOpsTest, InverseAndHyperbolicFunctionsAndLeadingZeros) {
  const std::string a = "  a = f32[4] constant({1, -1, 0, 0.5})\n";
  EXPECT_EQ(Eval(a + "  ROOT r = f32[4] acos(a)\n"),
            "f32[4] {0, 3.14159274, 1.57079637, 1.04719758}");
  EXPECT_EQ(Eval(a + "  ROOT r = f32[4] asin(a)\n"),
            "f32[4] {1.57079637, -1.57079637, 0, 0.52359879}");
  EXPECT_EQ(Eval(a + "  ROOT r = f32[4] atan(a)\n"),
            "f32[4] {0.785398185, -0.785398185, 0, 0.463647604}");
  const std::string b = "  b = f32[3] constant({0, 1, -2})\n";
  EXPECT_EQ(Eval(b + "  ROOT r = f32[3] cosh(b)\n"), "f32[3] {1, 1.54308069, 3.76219559}");
  EXPECT_EQ(Eval(b + "  ROOT r = f32[3] sinh(b)\n"), "f32[3] {0, 1.17520118, -3.62686038}");
  EXPECT_EQ(Eval(b + "  ROOT r = f32[3] asinh(b)\n"), "f32[3] {0, 0.881373584, -1.44363546}");
  EXPECT_EQ(Eval("  c = f32[2] constant({1, 2})\n  ROOT r = f32[2] acosh(c)\n"),
            "f32[2] {0, 1.31695795}");
  EXPECT_EQ(Eval("  c = f32[3] constant({0, 0.5, 1})\n  ROOT r = f32[3] atanh(c)\n"),
            "f32[3] {0, 0.549306154, inf}");
  EXPECT_EQ(
      Eval("  c = s32[4] constant({0, 1, -1, 256})\n  ROOT r = s32[4] count-leading-zeros(c)\n"),
      "s32[4] {32, 31, 0, 23}");
  EXPECT_EQ(Eval("  c = u4[3] constant({0, 1, 8})\n  ROOT r = u4[3] count-leading-zeros(c)\n"),
            "u4[3] {4, 3, 0}");
  EXPECT_THAT(Eval("  c = f32[1] constant({1})\n  ROOT r = f32[1] count-leading-zeros(c)\n"),
              HasSubstr("count-leading-zeros on f32 is not supported by the executor"));
}

// opt-barrier and domain hand their operand on; get-dimension-size gives a
// static dim's size.
TEST(ExecutorOpsTest, PassThroughsAndDimensionSizes) {
  EXPECT_EQ(Eval("  a = f32[2] constant({1, -2})\n  b = s32[] constant(7)\n"
                 "  t = (f32[2], s32[]) tuple(a, b)\n"
                 "  o = (f32[2], s32[]) opt-barrier(t)\n"
                 "  ROOT r = f32[2] get-tuple-element(o), index=0\n"),
            "f32[2] {1, -2}");
  EXPECT_EQ(
      Eval("  a = f32[2,3]{0,1} constant({{1, 2, 3}, {4, 5, 6}})\n"
           "  ROOT d = f32[2,3]{0,1} domain(a), domain={kind=\"sharding\", entry={}, exit={}}\n"),
      "f32[2,3] {1, 2, 3, 4, 5, 6}");
  EXPECT_EQ(Eval("  a = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})\n"
                 "  ROOT d = s32[] get-dimension-size(a), dimensions={1}\n"),
            "s32[] {3}");
  EXPECT_THAT(Eval("  a = f32[<=3] constant({1, 2, 3})\n"
                   "  ROOT d = s32[] get-dimension-size(a), dimensions={0}\n"),
              HasSubstr("is dynamic; the executor keeps no runtime sizes"));
}

// async-start runs the wrapped computation (its context is zeros);
// async-update hands the state on; async-done gives the result.
TEST(ExecutorOpsTest, AsyncOpsRunTheWrappedComputation) {
  const std::string ab = "  a = f32[2] constant({1, 2})\n  b = f32[2] constant({3, 5})\n";
  EXPECT_EQ(Eval(ab + "  s = ((f32[2], f32[2]), f32[2]) add-start(a, b)\n"
                      "  u = ((f32[2], f32[2]), f32[2]) add-update(s)\n"
                      "  ROOT d = f32[2] add-done(u)\n"),
            "f32[2] {4, 7}");
  EXPECT_EQ(Eval(ab + "  s = ((f32[2]), f32[2], s32[]) async-start(a), calls=wrapped\n"
                      "  ROOT d = f32[2] async-done(s)\n",
                 "wrapped {\n  p = f32[2] parameter(0)\n  ROOT n = f32[2] negate(p)\n}\n\n"),
            "f32[2] {-1, -2}");
}

// XLA's type=TOTALORDER: -NaN < -inf < -0 < +0 < +inf < +NaN, and a NaN
// equals a NaN of the same bits; without it, IEEE's partial order. Array
// ops and the scalar computations of reduce share the rule.
TEST(ExecutorOpsTest, CompareTotalOrder) {
  const std::string operands =
      "  a = f32[5] constant({-0, -nan, nan, -inf, nan})\n"
      "  b = f32[5] constant({0, -inf, inf, -nan, nan})\n";
  EXPECT_EQ(Eval(operands + "  ROOT r = pred[5] compare(a, b), direction=LT, type=TOTALORDER\n"),
            "pred[5] {true, true, false, false, false}");
  EXPECT_EQ(Eval(operands + "  ROOT r = pred[5] compare(a, b), direction=EQ, type=TOTALORDER\n"),
            "pred[5] {false, false, false, false, true}");
  EXPECT_EQ(Eval(operands + "  ROOT r = pred[5] compare(a, b), direction=GE, type=TOTALORDER\n"),
            "pred[5] {false, false, true, true, true}");
  EXPECT_EQ(Eval(operands + "  ROOT r = pred[5] compare(a, b), direction=LT\n"),
            "pred[5] {false, false, false, false, false}");
  EXPECT_EQ(Eval(operands + "  ROOT r = pred[5] compare(a, b), direction=EQ\n"),
            "pred[5] {true, false, false, false, false}");
  const std::string max = R"(max {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  c = pred[] compare(x, y), direction=GT, type=TOTALORDER
  ROOT s = f32[] select(c, x, y)
}

)";
  EXPECT_EQ(Eval("  a = f32[2] constant({0, -0})\n  init = f32[] constant(-inf)\n"
                 "  ROOT r = f32[] reduce(a, init), dimensions={0}, to_apply=max\n",
                 max),
            "f32[] {0}");
}

// Conversions round once, from the source value straight to the target
// type (never through f32 or f64 on the way).
TEST(ExecutorOpsTest, ConversionsRoundOnce) {
  EXPECT_EQ(Eval("  a = f64[2] constant({65519.99999999, 1.0004882812509095})\n"
                 "  ROOT r = f16[2] convert(a)\n"),
            "f16[2] {65504, 1.001}");  // 1 + 2^-11 + 2^-40 rounds up to 1 + 2^-10
  EXPECT_EQ(Eval("  a = f64[] constant(1.0039062500000284)\n  ROOT r = bf16[] convert(a)\n"),
            "bf16[] {1.0078}");  // just above the tie 1 + 2^-8
  // 2^60 + 2^36 + 1 is f32 bits 0x5d800001; 2^64 - 2^39 - 1 is 0x5f7fffff.
  EXPECT_EQ(Eval("  a = s64[] constant(1152921573326323713)\n  ROOT r = f32[] convert(a)\n"),
            "f32[] {1.15292164e+18}");
  EXPECT_EQ(Eval("  a = u64[] constant(18446743523953737727)\n  ROOT r = f32[] convert(a)\n"),
            "f32[] {1.8446743e+19}");
  EXPECT_EQ(Eval("  a = s64[] constant(1157425104234217473)\n  ROOT r = bf16[] convert(a)\n"),
            "bf16[] {1.1619e+18}");  // 2^60 + 2^52 + 1: above the tie, up
  EXPECT_EQ(Eval("  a = s64[2] constant({65519, -70000})\n  ROOT r = f16[2] convert(a)\n"),
            "f16[2] {65504, -inf}");
}

// An integer to a negative power: 1 for base 1, 0 for every other base.
TEST(ExecutorOpsTest, IntegerPowerOfNegativeExponent) {
  EXPECT_EQ(Eval("  a = s32[5] constant({-1, -1, 1, 2, 0})\n  b = s32[5] constant({-3, -2, -5, -1, -1})\n"
                 "  ROOT r = s32[5] power(a, b)\n"),
            "s32[5] {0, 0, 1, 0, 0}");
}

TEST(ExecutorOpsTest, DotConvolutionReduce) {
  EXPECT_EQ(Eval("  a = s32[2,3] constant({{1, 2, 3}, {4, 5, 6}})\n"
                 "  b = s32[3,2] constant({{7, 8}, {9, 10}, {11, 12}})\n"
                 "  ROOT r = s32[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"),
            "s32[2,2] {58, 64, 139, 154}");
  // Batched: batch dim 0.
  EXPECT_EQ(Eval("  a = f32[2,1,2] constant({{{1, 2}}, {{3, 4}}})\n"
                 "  b = f32[2,2,1] constant({{{5}, {6}}, {{7}, {8}}})\n"
                 "  ROOT r = f32[2,1,1] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, "
                 "lhs_contracting_dims={2}, rhs_contracting_dims={1}\n"),
            "f32[2,1,1] {17, 53}");
  // A 3x3 input, a 2x2 kernel of ones, stride 1, no padding: window sums.
  EXPECT_EQ(Eval("  x = f32[1,3,3,1] constant({{{{1}, {2}, {3}}, {{4}, {5}, {6}}, {{7}, {8}, {9}}}})\n"
                 "  k = f32[2,2,1,1] constant({{{{1}}, {{1}}}, {{{1}}, {{1}}}})\n"
                 "  ROOT r = f32[1,2,2,1] convolution(x, k), window={size=2x2}, dim_labels=b01f_01io->b01f\n"),
            "f32[1,2,2,1] {12, 16, 24, 28}");
  // Padding 1 and stride 2.
  EXPECT_EQ(Eval("  x = f32[1,3,3,1] constant({{{{1}, {2}, {3}}, {{4}, {5}, {6}}, {{7}, {8}, {9}}}})\n"
                 "  k = f32[2,2,1,1] constant({{{{1}}, {{1}}}, {{{1}}, {{1}}}})\n"
                 "  ROOT r = f32[1,2,2,1] convolution(x, k), window={size=2x2 stride=2x2 pad=1_0x1_0}, "
                 "dim_labels=b01f_01io->b01f\n"),
            "f32[1,2,2,1] {1, 5, 11, 28}");
  // batch_group_count=2 (a weight gradient's form): output feature 0 reads
  // input batch 0 ([1,2,3]), feature 1 batch 1 ([10,20,30]); window 2.
  EXPECT_EQ(Eval("  l = f32[2,3,1] constant({{{1},{2},{3}},{{10},{20},{30}}})\n"
                 "  k = f32[2,1,2] constant({{{1,1}},{{1,-1}}})\n"
                 "  ROOT c = f32[1,2,2] convolution(l, k), window={size=2}, "
                 "dim_labels=b0f_0io->b0f, batch_group_count=2\n"),
            "f32[1,2,2] {3, -10, 5, -10}");
  const std::string sum = "sum {\n  l = f32[] parameter(0)\n  r = f32[] parameter(1)\n  ROOT s = f32[] add(l, r)\n}\n\n";
  EXPECT_EQ(Eval("  a = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})\n  z = f32[] constant(0)\n"
                 "  ROOT r = f32[2] reduce(a, z), dimensions={1}, to_apply=sum\n", sum),
            "f32[2] {6, 15}");
  // Variadic: the max and its index.
  const std::string argmax =
      "argmax {\n  a = f32[] parameter(0)\n  i = s32[] parameter(1)\n  b = f32[] parameter(2)\n"
      "  j = s32[] parameter(3)\n  ge = pred[] compare(a, b), direction=GE\n"
      "  m = f32[] select(ge, a, b)\n  k = s32[] select(ge, i, j)\n  ROOT t = (f32[], s32[]) tuple(m, k)\n}\n\n";
  std::unique_ptr<HloModule> m = Parse(
      "HloModule t\n\n" + argmax +
      "ENTRY e {\n  a = f32[4] constant({3, 9, 2, 9})\n  i = s32[4] iota(), iota_dimension=0\n"
      "  lo = f32[] constant(-inf)\n  z = s32[] constant(0)\n"
      "  ROOT r = (f32[], s32[]) reduce(a, i, lo, z), dimensions={0}, to_apply=argmax\n}\n");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<std::vector<LogicalArray>> out = RunModule(*m, 0);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(DescribeArray((*out)[0]), "f32[] {9}");
  EXPECT_EQ(DescribeArray((*out)[1]), "s32[] {1}");
}

TEST(ExecutorOpsTest, ControlFlow) {
  const std::string comps =
      "cond {\n  p = (s32[], f32[2]) parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n"
      "  k = s32[] constant(3)\n  ROOT lt = pred[] compare(i, k), direction=LT\n}\n\n"
      "body {\n  p = (s32[], f32[2]) parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n"
      "  one = s32[] constant(1)\n  j = s32[] add(i, one)\n  x = f32[2] get-tuple-element(p), index=1\n"
      "  y = f32[2] add(x, x)\n  ROOT t = (s32[], f32[2]) tuple(j, y)\n}\n\n"
      "neg {\n  p = f32[2] parameter(0)\n  ROOT n = f32[2] negate(p)\n}\n\n";
  EXPECT_EQ(Eval("  z = s32[] constant(0)\n  x = f32[2] constant({1, -2})\n"
                 "  t = (s32[], f32[2]) tuple(z, x)\n  w = (s32[], f32[2]) while(t), condition=cond, body=body\n"
                 "  ROOT r = f32[2] get-tuple-element(w), index=1\n", comps),
            "f32[2] {8, -16}");
  EXPECT_EQ(Eval("  x = f32[2] constant({1, -2})\n  ROOT r = f32[2] fusion(x), kind=kLoop, calls=neg\n", comps),
            "f32[2] {-1, 2}");
  EXPECT_EQ(Eval("  x = f32[2] constant({1, -2})\n  c = s32[] constant(5)\n"
                 "  ROOT r = f32[2] conditional(c, x, x), branch_computations={neg, neg}\n", comps),
            "f32[2] {-1, 2}");
}

TEST(ExecutorOpsTest, RefusesWhatItDoesNotCover) {
  EXPECT_THAT(Eval("  a = c64[2] constant({(1, 2), (3, 4)})\n  ROOT r = c64[2] negate(a)\n"),
              HasSubstr("c64 is computed on only by fft"));
  EXPECT_THAT(Eval("  a = c128[2] constant({(1, 2), (3, 4)})\n  ROOT r = c128[2] copy(a)\n"),
              HasSubstr("c128 is not supported by the executor"));
  EXPECT_THAT(Eval("  ROOT c = opaque[] custom-call(), custom_call_target=\"x\"\n"),
              HasSubstr("not supported by the executor"));
  EXPECT_THAT(Eval("  a = f32[4] constant({...})\n  ROOT r = f32[4] negate(a)\n"),
              HasSubstr("values were left out"));
  // A sparse dot's lhs holds half its contracting dim: read as dense, it
  // would be read past its end.
  EXPECT_THAT(Eval("  a = f32[2,4] constant({{1, 2, 3, 4}, {5, 6, 7, 8}})\n"
                   "  b = f32[8,2] broadcast(f32[] constant(1)), dimensions={}\n"
                   "  m = u16[2,1] constant({{0}, {0}})\n"
                   "  ROOT r = f32[2,2] dot(a, b, m), lhs_contracting_dims={1}, "
                   "rhs_contracting_dims={0}, sparsity=L.1@2:4\n"),
              HasSubstr("a sparse dot is not supported by the executor"));
  EXPECT_THAT(Eval("  a = f32[4]{0} constant({1, 2, 3, 4})\n  ROOT r = s32[4]{0} bitcast(a)\n"),
              "s32[4] {1065353216, 1073741824, 1077936128, 1082130432}");
  // The verifier refuses a bitcast between buffers of different sizes; the
  // executor does too, for a module changed after verification.
  std::unique_ptr<HloModule> m = Parse(
      "HloModule t\n\nENTRY e {\n  a = f32[3]{0} constant({1, 2, 3})\n  ROOT r = f32[3]{0} bitcast(a)\n}\n");
  ASSERT_NE(m, nullptr);
  m->entry()->root()->set_layout(ParseTestShape("f32[3]{0:T(4)}").layout());
  EXPECT_THAT(std::string(Executor::Create(*m).status().message()),
              HasSubstr("does not describe the same bytes"));
}

// Inside a BufferReuseScope a dead value's buffer serves the next
// allocation of its size, zeroed again (padding slots must read zero);
// outside one every allocation is fresh.
TEST(BufferReuseTest, DeadBuffersAreReusedZeroedWithinAScope) {
  const std::shared_ptr<const ArrayInfo> info = *ArrayInfo::Create(ParseTestShape("f32[3,5]{1,0:T(2,2)}"));
  const uint8_t* first = nullptr;
  {
    BufferReuseScope scope;
    {
      Value v = *Value::Allocate(info);
      first = v.data();
      std::fill(v.mutable_data(), v.mutable_data() + info->byte_size(), 0xAB);
    }
    EXPECT_GE(BufferReuseScope::PooledBytesForTesting(), info->byte_size());
    Value again = *Value::Allocate(info);
    EXPECT_EQ(again.data(), first);
    EXPECT_TRUE(std::all_of(again.data(), again.data() + info->byte_size(),
                            [](uint8_t b) { return b == 0; }));
    Value other = *Value::Allocate(info);  // the pool holds no second one
    EXPECT_NE(other.data(), first);
  }
  const int64_t pooled = BufferReuseScope::PooledBytesForTesting();
  Value outside = *Value::Allocate(info);
  { Value dropped = *Value::Allocate(info); }
  EXPECT_EQ(BufferReuseScope::PooledBytesForTesting(), pooled);  // not pooled
}

// A reshape whose layouts keep every element in place runs as a bitcast:
// the result shares the operand's bytes. One that reorders moves them.
TEST(ExecutorTest, ReshapeThatIsABitcastMovesNoData) {
  for (const char* result : {"f32[2,2,3]{2,1,0}", "f32[2,2,3]{1,2,0}"}) {
    std::unique_ptr<HloModule> m =
        Parse(absl::StrCat("HloModule t\n\nENTRY e {\n  p = f32[2,6]{1,0} parameter(0)\n"
                           "  ROOT r = ", result, " reshape(p)\n}\n"));
    ASSERT_NE(m, nullptr);
    absl::StatusOr<std::unique_ptr<Executor>> e = Executor::Create(*m);
    ASSERT_TRUE(e.ok()) << e.status();
    std::mt19937_64 rng(1);
    const Shape shape = ParseTestShape("f32[2,6]{1,0}");
    const LogicalArray in = *RandomLogicalArray(shape, rng);
    absl::StatusOr<Value> arg = MakeArgument(shape, in);
    ASSERT_TRUE(arg.ok());
    const Value kept = *arg;
    absl::StatusOr<Value> out = (*e)->Run({*std::move(arg)});
    ASSERT_TRUE(out.ok()) << out.status();
    const bool bitcast = std::string(result) == "f32[2,2,3]{2,1,0}";
    EXPECT_EQ(out->bytes == kept.bytes, bitcast) << result;
    absl::StatusOr<LogicalArray> logical = ToLogical(*out);
    ASSERT_TRUE(logical.ok());
    EXPECT_EQ(logical->bytes, in.bytes) << result;  // row-major, the same sequence
  }
}

TEST(ExecutorTest, LayoutsDisagreeingAtACallAreAnErrorOnlyWhenStrict) {
  std::unique_ptr<HloModule> m = Parse(
      "HloModule t\n\nneg {\n  p = f32[2,3]{1,0} parameter(0)\n  ROOT n = f32[2,3]{0,1} negate(p)\n}\n\n"
      "ENTRY e {\n  a = f32[2,3]{0,1} constant({{1, 2, 3}, {4, 5, 6}})\n"
      "  ROOT r = f32[2,3]{1,0} call(a), to_apply=neg\n}\n");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<std::vector<LogicalArray>> strict = RunModule(*m, 0);
  EXPECT_THAT(std::string(strict.status().message()),
              HasSubstr("parameter 0 of neg is written f32[2,3]{1,0} but receives f32[2,3]{0,1}"));
  ExecutionStats stats;
  absl::StatusOr<std::vector<LogicalArray>> loose = RunModule(*m, 0, &stats, /*strict=*/false);
  ASSERT_TRUE(loose.ok()) << loose.status();
  EXPECT_EQ(DescribeArray((*loose)[0]), "f32[2,3] {-1, -2, -3, -4, -5, -6}");
  EXPECT_EQ(stats.conformed, 2);  // into the parameter, out of the call
}

// --- Layouts do not change results ----------------------------------------

// Any layout on any value the entry computes freely (not a bitcast's, a
// tuple element's or a callee's) gives bit-identical outputs.
TEST(ExecutorPropertyTest, RandomLayoutsGiveBitIdenticalResults) {
  int relaid = 0, tiled = 0;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    const std::string text = RandomHloModule(seed);
    SCOPED_TRACE(absl::StrCat("seed ", seed, "\n", text));
    std::unique_ptr<HloModule> m = Parse(text);
    ASSERT_NE(m, nullptr);
    absl::StatusOr<std::vector<LogicalArray>> want = RunModule(*m, seed, nullptr, false);
    ASSERT_TRUE(want.ok()) << want.status();
    std::mt19937_64 rng(seed);
    RandomShapeOptions options;
    options.allow_attributes = false;
    options.max_slots = 1 << 16;
    for (HloInstruction* i : m->entry()->instructions()) {
      if (!i->shape().IsArray() || i->opcode() == HloOpcode::kBitcast ||
          i->opcode() == HloOpcode::kGetTupleElement || i->opcode() == HloOpcode::kParameter ||
          (!i->called_computations().empty() && i->opcode() != HloOpcode::kReduce)) {
        continue;
      }
      bool free = true;
      for (const HloInstruction* u : i->users()) {
        free &= u->opcode() != HloOpcode::kTuple && u->opcode() != HloOpcode::kBitcast &&
                u->called_computations().empty();
      }
      if (!free || rng() % 2) continue;
      Layout layout = RandomLayoutFor(rng, i->shape(), options);
      const PrimitiveType t = i->shape().element_type();
      if ((t == S4 || t == U4) && rng() % 2) layout.set_element_size_in_bits(4);
      i->set_layout(layout);
      ++relaid;
      tiled += !layout.tiles().empty();
    }
    absl::StatusOr<std::vector<LogicalArray>> got = RunModule(*m, seed, nullptr, false);
    ASSERT_TRUE(got.ok()) << got.status() << "\n" << m->ToString();
    ASSERT_EQ(got->size(), want->size());
    for (size_t k = 0; k < got->size(); ++k) {
      std::optional<int64_t> diff = FirstDifference((*want)[k], (*got)[k]);
      ASSERT_FALSE(diff.has_value()) << "output " << k << " element " << *diff << ": "
                                     << FormatElement((*want)[k], *diff, true) << " vs "
                                     << FormatElement((*got)[k], *diff, true) << "\n"
                                     << m->ToString();
    }
  }
  std::cout << "random layouts: " << relaid << " values relaid, " << tiled << " tiled\n";
  // The layouts drawn must exercise the tiled paths, not only orders.
  EXPECT_GT(relaid, 1000);
  EXPECT_GT(tiled, 300);
}

// The layout pass preserves what a module computes, on every target: each
// rewritten module runs its copies on the packing core and must give the
// original's outputs bit for bit.
TEST(ExecutorPropertyTest, LayoutAssignmentPreservesResultsOnEveryTarget) {
  int verified = 0, copies = 0, refused = 0;
  for (uint64_t seed = 0; seed < 500; ++seed) {
    const std::string text = RandomHloModule(seed);
    std::unique_ptr<HloModule> original = Parse(text);
    ASSERT_NE(original, nullptr) << "seed " << seed;
    // The original is not laid out: values move into written layouts.
    absl::StatusOr<std::vector<LogicalArray>> want = RunModule(*original, seed, nullptr, false);
    ASSERT_TRUE(want.ok()) << "seed " << seed << ": " << want.status() << "\n" << text;
    for (const std::string& target : TargetConfig::BuiltinNames()) {
      SCOPED_TRACE(absl::StrCat("seed ", seed, " target ", target, "\n", text));
      std::unique_ptr<HloModule> m = Parse(text);
      absl::StatusOr<TargetConfig> config = TargetConfig::Builtin(target);
      ASSERT_TRUE(config.ok());
      LayoutAssignment pass(*config);
      absl::StatusOr<bool> ran = pass.Run(*m);
      if (!ran.ok()) {
        // Entry layouts the target cannot reconcile are refused by the
        // pass, not miscompiled.
        ++refused;
        continue;
      }
      ExecutionStats stats;
      absl::StatusOr<std::vector<LogicalArray>> got = RunModule(*m, seed, &stats);
      ASSERT_TRUE(got.ok()) << got.status() << "\n" << m->ToString();
      ASSERT_EQ(got->size(), want->size());
      for (size_t k = 0; k < got->size(); ++k) {
        std::optional<int64_t> diff = FirstDifference((*want)[k], (*got)[k]);
        ASSERT_FALSE(diff.has_value())
            << "output " << k << " element " << *diff << ": " << FormatElement((*want)[k], *diff, true)
            << " vs " << FormatElement((*got)[k], *diff, true) << "\n" << m->ToString();
      }
      copies += stats.copies;
      ++verified;
    }
  }
  std::cout << "laid out and verified: " << verified << " module-target pairs, " << refused
            << " refused by the pass, " << copies << " copies executed\n";
  EXPECT_GE(verified, 2400);  // 500 modules x 5 targets, nearly all laid out
  EXPECT_LE(refused, 100);
  EXPECT_GT(copies, 1000);    // the rewrites do run copies
}

// Every device's outputs of `module` on inputs from random:SEED (each
// device its own draws).
absl::StatusOr<std::vector<std::vector<LogicalArray>>> RunDevices(const HloModule& module,
                                                                  uint64_t seed, bool strict) {
  ExecutorOptions options;
  options.strict_layouts = strict;
  absl::StatusOr<std::unique_ptr<Executor>> e = Executor::Create(module, options);
  if (!e.ok()) return e.status();
  std::vector<std::vector<LogicalArray>> inputs((*e)->grid().device_count());
  for (size_t d = 0; d < inputs.size(); ++d) {
    std::mt19937_64 rng(seed * 1000 + d);
    for (const HloInstruction* p : module.entry()->parameters()) {
      absl::StatusOr<LogicalArray> a = RandomLogicalArray(p->shape(), rng);
      if (!a.ok()) return a.status();
      inputs[d].push_back(*std::move(a));
    }
  }
  return RunLogicalOnDevices(**e, inputs);
}

// The same property on modules that also gather, scatter, run collectives
// over 2 or 4 devices and call vendor kernels (stand-ins).
TEST(ExecutorPropertyTest, LayoutAssignmentPreservesCollectivesGathersAndCustomCalls) {
  int verified = 0, multi = 0;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    RandomModuleOptions options;
    for (RandomOp op : {RandomOp::kGather, RandomOp::kScatter, RandomOp::kAllReduce,
                        RandomOp::kAllGather, RandomOp::kCustomCall}) {
      options.ops.push_back(op);
      options.ops.push_back(op);
    }
    options.replicas = seed % 2 == 0 ? 2 : 4;
    const std::string text = RandomHloModule(seed, options);
    std::unique_ptr<HloModule> original = Parse(text);
    ASSERT_NE(original, nullptr) << "seed " << seed;
    auto want = RunDevices(*original, seed, /*strict=*/false);
    ASSERT_TRUE(want.ok()) << "seed " << seed << ": " << want.status() << "\n" << text;
    multi += want->size() > 1;
    for (const std::string& target : TargetConfig::BuiltinNames()) {
      SCOPED_TRACE(absl::StrCat("seed ", seed, " target ", target, "\n", text));
      std::unique_ptr<HloModule> m = Parse(text);
      LayoutAssignment pass(*TargetConfig::Builtin(target));
      if (!pass.Run(*m).ok()) continue;
      auto got = RunDevices(*m, seed, /*strict=*/true);
      ASSERT_TRUE(got.ok()) << got.status() << "\n" << m->ToString();
      ASSERT_EQ(got->size(), want->size());
      for (size_t d = 0; d < got->size(); ++d) {
        ASSERT_EQ((*got)[d].size(), (*want)[d].size());
        for (size_t k = 0; k < (*got)[d].size(); ++k) {
          std::optional<int64_t> diff = FirstDifference((*want)[d][k], (*got)[d][k]);
          ASSERT_FALSE(diff.has_value()) << "device " << d << " output " << k << "\n"
                                         << m->ToString();
        }
      }
      ++verified;
    }
  }
  EXPECT_GE(verified, 800);  // 200 modules x 5 targets, most laid out
  EXPECT_EQ(multi, 200);
  // The draws reach the new ops.
  int gathers = 0, collectives = 0, calls = 0;
  for (uint64_t seed = 0; seed < 80; ++seed) {
    RandomModuleOptions options;
    options.ops = {RandomOp::kGather, RandomOp::kScatter, RandomOp::kAllReduce,
                   RandomOp::kAllGather, RandomOp::kCustomCall};
    options.replicas = 2;
    const std::string text = RandomHloModule(seed, options);
    gathers += text.find(" gather(") != std::string::npos;
    collectives += text.find(" all-reduce(") != std::string::npos;
    calls += text.find(" custom-call(") != std::string::npos;
  }
  EXPECT_GT(gathers, 20);
  EXPECT_GT(collectives, 20);
  EXPECT_GT(calls, 20);
}

// Tokens order infeeds and outfeeds; an infeed reads the options' source
// in the order it runs, an outfeed's data comes back with the run.
TEST(ExecutorTest, InfeedReadsTheSourceInOrderAndOutfeedSendsItsData) {
  std::unique_ptr<HloModule> m = Parse(
      "HloModule t\n\nENTRY e {\n  t = token[] after-all()\n"
      "  a = (f32[2]{0}, token[]) infeed(t)\n  ta = token[] get-tuple-element(a), index=1\n"
      "  b = (f32[2]{0}, token[]) infeed(ta)\n  x = f32[2] get-tuple-element(a), index=0\n"
      "  y = f32[2] get-tuple-element(b), index=0\n  s = f32[2] subtract(x, y)\n"
      "  tb = token[] get-tuple-element(b), index=1\n"
      "  o = token[] outfeed(s, tb), outfeed_shape=f32[2]{0}\n  ROOT r = f32[2] add(x, y)\n}\n");
  ASSERT_NE(m, nullptr);
  ExecutorOptions options;
  int calls = 0;
  options.infeed = [&](int64_t device, const Shape& shape) -> absl::StatusOr<LogicalArray> {
    EXPECT_EQ(device, 0);
    LogicalArray a{shape, std::vector<uint8_t>(8)};
    const float v[2] = {calls == 0 ? 10.0f : 1.0f, calls == 0 ? 20.0f : 2.0f};
    std::memcpy(a.bytes.data(), v, 8);
    ++calls;
    return a;
  };
  absl::StatusOr<std::unique_ptr<Executor>> e = Executor::Create(*m, options);
  ASSERT_TRUE(e.ok()) << e.status();
  absl::StatusOr<std::vector<std::vector<LogicalArray>>> out = RunLogicalOnDevices(**e, {{}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(DescribeArray((*out)[0][0]), "f32[2] {11, 22}");
  ASSERT_EQ((*e)->outfeeds().size(), 1u);
  ASSERT_EQ((*e)->outfeeds()[0].size(), 1u);
  EXPECT_EQ(DescribeArray((*e)->outfeeds()[0][0]), "f32[2] {9, 18}");
  ExecutorOptions none;
  e = Executor::Create(*m, none);
  ASSERT_TRUE(e.ok());
  EXPECT_THAT(std::string(RunLogicalOnDevices(**e, {{}}).status().message()),
              HasSubstr("no infeed data"));
}

// rng has no state in HLO: each execution draws from the run's seed, the
// device, the instruction and how often it ran, so two calls differ and two
// runs with one seed agree.
TEST(ExecutorTest, RngDrawsFromTheRunSeedAndTheExecution) {
  std::unique_ptr<HloModule> m = Parse(
      "HloModule t\n\ndraw {\n  a = f32[] parameter(0)\n  b = f32[] constant(1)\n"
      "  ROOT r = f32[4] rng(a, b), distribution=rng_uniform\n}\n\n"
      "ENTRY e {\n  z = f32[] constant(0)\n  x = f32[4] call(z), to_apply=draw\n"
      "  y = f32[4] call(z), to_apply=draw\n  ROOT t = (f32[4], f32[4]) tuple(x, y)\n}\n");
  ASSERT_NE(m, nullptr);
  auto run = [&](uint64_t seed) {
    ExecutorOptions options;
    options.rng_seed = seed;
    absl::StatusOr<std::vector<LogicalArray>> out = RunLogical(*m, {}, options);
    EXPECT_TRUE(out.ok()) << out.status();
    return out.ok() ? std::make_pair(DescribeArray((*out)[0]), DescribeArray((*out)[1]))
                    : std::make_pair(std::string(), std::string());
  };
  const auto first = run(1);
  EXPECT_NE(first.first, first.second);  // the same instruction, run twice
  EXPECT_EQ(run(1), first);
  EXPECT_NE(run(2).first, first.first);
}

}  // namespace
}  // namespace xla_layout::runtime
