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

}  // namespace
}  // namespace xla_layout::cli
