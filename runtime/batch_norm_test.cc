// batch-norm-training, -inference and -grad (runtime/batch_norm.h), run
// through the executor.
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_verifier.h"
#include "runtime/executor.h"
#include "runtime/logical.h"

namespace xla_layout::runtime {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<std::unique_ptr<HloModule>> ParseVerified(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text, "t.hlo");
  if (!m.ok()) return m;
  absl::Status v = VerifyModule(**m);
  if (!v.ok()) return v;
  return m;
}

std::string Describe(const absl::StatusOr<std::vector<LogicalArray>>& out) {
  if (!out.ok()) return std::string(out.status().message());
  std::string all;
  for (const LogicalArray& a : *out) absl::StrAppend(&all, all.empty() ? "" : "; ", DescribeArray(a));
  return all;
}

// Every output of a module without parameters whose entry is `body`, or the
// error.
std::string Eval(const std::string& body) {
  absl::StatusOr<std::unique_ptr<HloModule>> m =
      ParseVerified(absl::StrCat("HloModule t\n\nENTRY e {\n", body, "}\n"));
  if (!m.ok()) return std::string(m.status().message());
  return Describe(RunLogical(**m, {}));
}

const char kX[] = "  x = f32[2,2]{1,0} constant({{1, 2}, {3, 6}})\n";

TEST(BatchNormTest, TrainingNormalizesEachFeature) {
  // Feature 0 holds 1, 3: mean 2, var (1 + 9) / 2 - 4 = 1. Feature 1 holds
  // 2, 6: mean 4, var (4 + 36) / 2 - 16 = 4, so rsqrt(var) = 0.5.
  EXPECT_EQ(Eval(absl::StrCat(kX, "  s = f32[2] constant({1, 2})\n  o = f32[2] constant({0, 1})\n"
                              "  ROOT b = (f32[2,2], f32[2], f32[2]) batch-norm-training(x, s, o), "
                              "epsilon=0, feature_index=1\n")),
            "f32[2,2] {-1, -1, 1, 3}; f32[2] {2, 4}; f32[2] {1, 4}");
}

TEST(BatchNormTest, TrainingVarianceIsTheExpandersMeanOfSquaresLessSquaredMean) {
  // 10001 and 10003 deviate from their mean 10002 by 1: the mean of squared
  // deviations is 1. XLA's expander computes E[x^2] - E[x]^2 in f32 instead:
  // 10001^2 and 10003^2 round to 100020000 and 100060008, their sum to
  // 200080000, so E[x^2] = 100040000; 10002^2 = 100040004 rounds to
  // 100040000 too, and the variance is 0. With epsilon 1, rsqrt is 1.
  EXPECT_EQ(Eval("  x = f32[2,1] constant({{10001}, {10003}})\n"
                 "  s = f32[1] constant({1})\n  o = f32[1] constant({0})\n"
                 "  ROOT b = (f32[2,1], f32[1], f32[1]) batch-norm-training(x, s, o), "
                 "epsilon=1, feature_index=1\n"),
            "f32[2,1] {-1, 1}; f32[1] {10002}; f32[1] {0}");
}

TEST(BatchNormTest, InferenceUsesTheGivenMoments) {
  // Feature 0 (a row): scale 2 * rsqrt(3 + 1) = 1, shift 1 - 1 * 1 = 0.
  // Feature 1: scale 1 * rsqrt(0 + 1) = 1, shift 0 - 4 * 1 = -4.
  EXPECT_EQ(Eval(absl::StrCat(kX, "  s = f32[2] constant({2, 1})\n  o = f32[2] constant({1, 0})\n"
                              "  m = f32[2] constant({1, 4})\n  v = f32[2] constant({3, 0})\n"
                              "  ROOT b = f32[2,2] batch-norm-inference(x, s, o, m, v), "
                              "epsilon=1, feature_index=0\n")),
            "f32[2,2] {1, 2, -1, 2}");
}

TEST(BatchNormTest, GradFollowsTheExpandersFormulas) {
  // N = 3, xm = x - 2 = {-2, -1, 3}, var + eps = 4, rs = 0.5.
  // a = sum(dy * xm) = -2, b = sum(dy) = 1; grad_scale = a * rs = -1.
  // grad_x = (6 * 0.5 / 3) * (dy * 3 - b - a * xm / 4)
  //        = 1 * ({3, 0, 0} - 1 - {1, 0.5, -1.5}) = {1, -1.5, 0.5}.
  EXPECT_EQ(Eval("  x = f32[3,1] constant({{0}, {1}, {5}})\n  s = f32[1] constant({6})\n"
                 "  m = f32[1] constant({2})\n  v = f32[1] constant({3})\n"
                 "  dy = f32[3,1] constant({{1}, {0}, {0}})\n"
                 "  ROOT b = (f32[3,1], f32[1], f32[1]) batch-norm-grad(x, s, m, v, dy), "
                 "epsilon=1, feature_index=1\n"),
            "f32[3,1] {1, -1.5, 0.5}; f32[1] {-1}; f32[1] {1}");
}

TEST(BatchNormTest, LayoutsDoNotChangeTheResult) {
  EXPECT_EQ(Eval("  x = f32[2,2]{0,1} constant({{1, 2}, {3, 6}})\n"
                 "  s = f32[2] constant({1, 2})\n  o = f32[2] constant({0, 1})\n"
                 "  ROOT b = (f32[2,2]{0,1:T(2,2)}, f32[2]{0}, f32[2]{0}) "
                 "batch-norm-training(x, s, o), epsilon=0, feature_index=1\n"),
            "f32[2,2] {-1, -1, 1, 3}; f32[2] {2, 4}; f32[2] {1, 4}");
}

TEST(BatchNormTest, RefusesWhatXlaRefuses) {
  EXPECT_THAT(Eval(absl::StrCat(kX, "  s = f32[2] constant({1, 2})\n  o = f32[2] constant({0, 1})\n"
                                "  ROOT b = (f32[2,2], f32[2], f32[2]) batch-norm-training(x, s, o), "
                                "epsilon=0, feature_index=2\n")),
              HasSubstr("b (batch-norm-training): feature_index must name a dim of f32[2,2]"));
  EXPECT_THAT(Eval("  x = s32[2,2] constant({{1, 2}, {3, 6}})\n"
                   "  s = s32[2] constant({1, 2})\n  o = s32[2] constant({0, 1})\n"
                   "  ROOT b = (s32[2,2], s32[2], s32[2]) batch-norm-training(x, s, o), "
                   "epsilon=0, feature_index=1\n"),
              HasSubstr("must be a floating-point array"));
  EXPECT_THAT(Eval(absl::StrCat(kX, "  s = f32[3] constant({1, 2, 3})\n  o = f32[2] constant({0, 1})\n"
                                "  ROOT b = (f32[2,2], f32[2], f32[2]) batch-norm-training(x, s, o), "
                                "epsilon=0, feature_index=1\n")),
              HasSubstr("operand 1 must be f32[2]"));
}

// --- Bit for bit what XLA's BatchNormExpander emits ---------------------------

// The ops of BatchNormExpander for x = T[2,3,4], feature_index = 1 (N = 8),
// epsilon 2^-10 (exact in every float type, so that f32-then-T rounding and
// a constant's one rounding agree). `$T` is the element type.
const char kExpanded[] = R"(HloModule expanded

add {
  p = $T[] parameter(0)
  q = $T[] parameter(1)
  ROOT r = $T[] add(p, q)
}

ENTRY e {
  x = $T[2,3,4] parameter(0)
  scale = $T[3] parameter(1)
  offset = $T[3] parameter(2)
  mean_in = $T[3] parameter(3)
  var_in = $T[3] parameter(4)
  dy = $T[2,3,4] parameter(5)
  zero = $T[] constant(0)
  n = $T[] constant(8)
  eps = $T[] constant(0.0009765625)
  nf = $T[3] broadcast(n), dimensions={}
  epsf = $T[3] broadcast(eps), dimensions={}
  sum = $T[3] reduce(x, zero), dimensions={0,2}, to_apply=add
  xx = $T[2,3,4] multiply(x, x)
  sumsq = $T[3] reduce(xx, zero), dimensions={0,2}, to_apply=add
  mean = $T[3] divide(sum, nf)
  sqmean = $T[3] divide(sumsq, nf)
  msq = $T[3] multiply(mean, mean)
  var = $T[3] subtract(sqmean, msq)
  ve_f = $T[3] add(var, epsf)
  rs = $T[3] rsqrt(ve_f)
  mean_b = $T[2,3,4] broadcast(mean), dimensions={1}
  xm = $T[2,3,4] subtract(x, mean_b)
  rs_b = $T[2,3,4] broadcast(rs), dimensions={1}
  norm = $T[2,3,4] multiply(xm, rs_b)
  scale_b = $T[2,3,4] broadcast(scale), dimensions={1}
  scaled = $T[2,3,4] multiply(norm, scale_b)
  offset_b = $T[2,3,4] broadcast(offset), dimensions={1}
  y = $T[2,3,4] add(scaled, offset_b)

  ve_in = $T[3] add(var_in, epsf)
  rs_in = $T[3] rsqrt(ve_in)
  true_scale = $T[3] multiply(scale, rs_in)
  mean_scale = $T[3] multiply(mean_in, true_scale)
  true_shift = $T[3] subtract(offset, mean_scale)
  true_scale_b = $T[2,3,4] broadcast(true_scale), dimensions={1}
  true_shift_b = $T[2,3,4] broadcast(true_shift), dimensions={1}
  x_scaled = $T[2,3,4] multiply(x, true_scale_b)
  yi = $T[2,3,4] add(x_scaled, true_shift_b)

  mean_in_b = $T[2,3,4] broadcast(mean_in), dimensions={1}
  xm_in = $T[2,3,4] subtract(x, mean_in_b)
  dy_xm_all = $T[2,3,4] multiply(dy, xm_in)
  dy_xm = $T[3] reduce(dy_xm_all, zero), dimensions={0,2}, to_apply=add
  grad_offset = $T[3] reduce(dy, zero), dimensions={0,2}, to_apply=add
  grad_scale = $T[3] multiply(dy_xm, rs_in)
  dy_xm_b = $T[2,3,4] broadcast(dy_xm), dimensions={1}
  i4 = $T[2,3,4] multiply(dy_xm_b, xm_in)
  var_in_b = $T[2,3,4] broadcast(var_in), dimensions={1}
  eps_b = $T[2,3,4] broadcast(eps), dimensions={}
  ve = $T[2,3,4] add(var_in_b, eps_b)
  i5 = $T[2,3,4] divide(i4, ve)
  rs_b_in = $T[2,3,4] rsqrt(ve)
  f = $T[2,3,4] multiply(scale_b, rs_b_in)
  n_b = $T[2,3,4] broadcast(n), dimensions={}
  fn = $T[2,3,4] divide(f, n_b)
  i1 = $T[2,3,4] multiply(dy, n_b)
  grad_offset_b = $T[2,3,4] broadcast(grad_offset), dimensions={1}
  i12 = $T[2,3,4] subtract(i1, grad_offset_b)
  i6 = $T[2,3,4] subtract(i12, i5)
  dx = $T[2,3,4] multiply(fn, i6)
  ROOT t = ($T[2,3,4], $T[3], $T[3], $T[2,3,4], $T[2,3,4], $T[3], $T[3]) tuple(y, mean, var, yi, dx, grad_scale, grad_offset)
}
)";

// The three ops on the same parameters; `$L` is x's and dy's layout.
const char kOps[] = R"(HloModule ops

ENTRY e {
  x = $T[2,3,4]$L parameter(0)
  scale = $T[3] parameter(1)
  offset = $T[3] parameter(2)
  mean_in = $T[3] parameter(3)
  var_in = $T[3] parameter(4)
  dy = $T[2,3,4]$L parameter(5)
  tr = ($T[2,3,4]$L, $T[3], $T[3]) batch-norm-training(x, scale, offset), epsilon=0.0009765625, feature_index=1
  y = $T[2,3,4]$L get-tuple-element(tr), index=0
  mean = $T[3] get-tuple-element(tr), index=1
  var = $T[3] get-tuple-element(tr), index=2
  yi = $T[2,3,4]$L batch-norm-inference(x, scale, offset, mean_in, var_in), epsilon=0.0009765625, feature_index=1
  gr = ($T[2,3,4]$L, $T[3], $T[3]) batch-norm-grad(x, scale, mean_in, var_in, dy), epsilon=0.0009765625, feature_index=1
  dx = $T[2,3,4]$L get-tuple-element(gr), index=0
  grad_scale = $T[3] get-tuple-element(gr), index=1
  grad_offset = $T[3] get-tuple-element(gr), index=2
  ROOT t = ($T[2,3,4]$L, $T[3], $T[3], $T[2,3,4]$L, $T[2,3,4]$L, $T[3], $T[3]) tuple(y, mean, var, yi, dx, grad_scale, grad_offset)
}
)";

TEST(BatchNormTest, GivesTheExpandedHlosBitsInEveryFloatTypeAndLayout) {
  for (const char* type : {"f32", "bf16", "f16", "f64"}) {
    for (const char* layout : {"", "{0,2,1}", "{1,0,2:T(2,2)}"}) {
      SCOPED_TRACE(absl::StrCat(type, layout));
      absl::StatusOr<std::unique_ptr<HloModule>> expanded =
          ParseVerified(absl::StrReplaceAll(kExpanded, {{"$T", type}}));
      ASSERT_TRUE(expanded.ok()) << expanded.status();
      absl::StatusOr<std::unique_ptr<HloModule>> ops =
          ParseVerified(absl::StrReplaceAll(kOps, {{"$T", type}, {"$L", layout}}));
      ASSERT_TRUE(ops.ok()) << ops.status();
      std::mt19937_64 rng(7);
      std::vector<LogicalArray> inputs;
      for (const HloInstruction* p : (*ops)->entry()->parameters()) {
        absl::StatusOr<LogicalArray> a = RandomLogicalArray(p->shape(), rng);
        ASSERT_TRUE(a.ok());
        inputs.push_back(*std::move(a));
      }
      // A variance must not be negative.
      for (uint8_t& byte : inputs[4].bytes) byte &= 0x7f;
      absl::StatusOr<std::vector<LogicalArray>> want = RunLogical(**expanded, inputs);
      absl::StatusOr<std::vector<LogicalArray>> got = RunLogical(**ops, inputs);
      ASSERT_TRUE(want.ok()) << want.status();
      ASSERT_TRUE(got.ok()) << got.status();
      ASSERT_EQ(got->size(), 7u);
      for (size_t k = 0; k < got->size(); ++k) {
        std::optional<int64_t> diff = FirstDifference((*want)[k], (*got)[k]);
        EXPECT_FALSE(diff.has_value())
            << "output " << k << " element " << *diff << ": "
            << FormatElement((*want)[k], *diff, true) << " vs "
            << FormatElement((*got)[k], *diff, true);
      }
    }
  }
}

}  // namespace
}  // namespace xla_layout::runtime
