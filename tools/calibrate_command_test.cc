#include "tools/calibrate_command.h"

#include <chrono>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xla_layout::cli {
namespace {

using ::testing::HasSubstr;

// --repeat is bounded in time, as the relayout command's timed runs are.
TEST(CalibrateTest, SamplesStopAtTheTimeBudget) {
  CalibrateOptions options;
  options.bytes = 1 << 20;
  options.repeat = 1000;
  options.budget_seconds = 0.2;
  options.threads = 1;
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<CalibrateResult> result = RunCalibrate(TargetLayoutConfig(), options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_GE(result->samples, 1);
  EXPECT_LT(result->samples, 1000);
  EXPECT_LT(seconds, 10.0);
  EXPECT_THAT(result->report, HasSubstr("(stopped at the time budget)"));
}

// Every class gets a measured rate, and the base table is kept.
TEST(CalibrateTest, FillsEveryRate) {
  CalibrateOptions options;
  options.bytes = 1 << 20;
  options.repeat = 1;
  options.threads = 1;
  TargetLayoutConfig base;
  base.set_name("mine");
  absl::StatusOr<CalibrateResult> result = RunCalibrate(base, options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->samples, 1);
  EXPECT_EQ(result->table.name(), "mine");
  const CopyThroughput& rates = result->table.cost_model().copy_throughput();
  EXPECT_GT(rates.contiguous_gbps(), 0);
  EXPECT_GT(rates.tile_gbps(), 0);
  EXPECT_GT(rates.transpose_gbps(), 0);
  EXPECT_GT(rates.subbyte_gbps(), 0);
  EXPECT_THAT(result->report, ::testing::Not(HasSubstr("time budget")));
}

// A CPU table whose convolutions prefer channels-last gets one measured
// channels-first factor per class (tiny convolutions here: the same code as
// the full sizes), within the time budget; its single factor stays.
TEST(CalibrateTest, MeasuresConvolutionFactorsOfCpuTables) {
  CalibrateOptions options;
  options.bytes = 1 << 20;
  options.repeat = 1;
  options.threads = 1;
  options.conv.repeat = 3;
  options.conv.shrink = 16;
  options.conv.budget_seconds = 2;
  TargetLayoutConfig base;
  base.set_name("cpu");
  base.set_conv_channels_last(true);
  base.mutable_cost_model()->set_conv_mismatch_read_factor(1);
  base.mutable_cost_model()->add_conv_read_factors()->set_factor(7);  // replaced
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<CalibrateResult> result = RunCalibrate(base, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_LT(seconds, 20.0);
  const CostModel& cost = result->table.cost_model();
  EXPECT_EQ(cost.conv_mismatch_read_factor(), 1);
  ASSERT_EQ(cost.conv_read_factors_size(), 9);
  ASSERT_EQ(result->conv.size(), 9u);
  for (int k = 0; k < 9; ++k) {
    const ConvReadFactor& f = cost.conv_read_factors(k);
    EXPECT_NE(f.kind(), ANY_CONV);
    EXPECT_NE(f.pass(), ANY_PASS);
    EXPECT_EQ(f.read(), CHANNELS_FIRST_READ);
    EXPECT_GE(f.factor(), kMinMeasuredReadFactor);
    EXPECT_GT(result->conv[k].nchw_seconds, 0);
    EXPECT_GT(result->conv[k].nhwc_seconds, 0);
    EXPECT_GT(result->conv[k].bytes_read, 0);
  }
  EXPECT_EQ(cost.conv_read_factors(1).kind(), DEPTHWISE);
  EXPECT_EQ(cost.conv_read_factors(8).pass(), WEIGHT_GRADIENT);
  EXPECT_THAT(result->report, HasSubstr("depthwise  weight gradient"));
}

// A table that requires tiles (tpu) keeps its factors.
TEST(CalibrateTest, KeepsTheFactorsOfATargetThatRequiresTiles) {
  CalibrateOptions options;
  options.bytes = 1 << 20;
  options.repeat = 1;
  options.threads = 1;
  TargetLayoutConfig base;
  base.set_name("tiles");
  base.set_conv_channels_last(true);
  BaseTiling* rule = base.add_base_tilings();
  rule->set_required(true);
  rule->add_tiles()->add_dimensions(128);
  base.mutable_cost_model()->add_conv_read_factors()->set_factor(7);
  absl::StatusOr<CalibrateResult> result = RunCalibrate(base, options);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->table.cost_model().conv_read_factors_size(), 1);
  EXPECT_EQ(result->table.cost_model().conv_read_factors(0).factor(), 7);
  EXPECT_TRUE(result->conv.empty());
  EXPECT_THAT(result->report, HasSubstr("convolution read factors: kept"));
}

}  // namespace
}  // namespace xla_layout::cli
