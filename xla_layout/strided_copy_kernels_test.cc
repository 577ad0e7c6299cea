#include "xla_layout/strided_copy_kernels.h"

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla_layout/relayout.h"
#include "xla_layout/test_util.h"
#include "xla_layout/tiled_layout.h"

namespace xla_layout::internal {
namespace {

// Runs and their padding of every length (whole 128-, 64- and 32-byte
// blocks and tails), strides with gaps, on every ISA path, against a plain
// loop; the bytes between a row's padding and the next row stay as they
// were.
TEST(StridedCopyKernelsTest, PaddedRowsMatchAPlainLoop) {
  std::mt19937_64 rng(37);
  for (Isa isa : IsaPathsHere()) {
    for (int trial = 0; trial < 200; ++trial) {
      const int64_t bytes = rng() % 300, pad = rng() % 300, rows = 1 + rng() % 20;
      const int64_t src_stride = bytes + rng() % 9;
      const int64_t dst_stride = bytes + pad + rng() % 9;
      const uint8_t value = static_cast<uint8_t>(rng());
      std::vector<char> src(rows * src_stride + 1);
      for (char& c : src) c = static_cast<char>(rng());
      std::vector<char> want(rows * dst_stride + 1, 0x5A), out(want);
      for (int64_t r = 0; r < rows; ++r) {
        std::memcpy(&want[r * dst_stride], &src[r * src_stride], bytes);
        std::memset(&want[r * dst_stride + bytes], value, pad);
      }
      CopyPaddedRows(src.data(), out.data(), rows, bytes, pad, src_stride, dst_stride, value,
                     isa);
      ASSERT_EQ(out, want) << IsaName(isa) << " rows " << rows << " x " << bytes << " + "
                           << pad << ", strides " << src_stride << "/" << dst_stride;
    }
  }
}

Task CopyTask(int64_t rows, int64_t run, int64_t es) {
  return Task{Kind::kCopy, 0, 0, {Loop{rows, run * es, 2 * run * es}, Loop{run, es, es}}};
}

Task FillTask(int64_t rows, int64_t run, int64_t es, int64_t dst_offset) {
  return Task{Kind::kFill, 0, dst_offset, {Loop{rows, 0, 2 * run * es}, Loop{run, 0, es}}};
}

TEST(StridedCopyKernelsTest, FusesAFillThatPadsTheCopysRuns) {
  std::vector<Task> tasks = {CopyTask(4096, 64, 4), FillTask(4096, 64, 4, 256)};
  FusePaddedRows(&tasks, 4);
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].kind, Kind::kCopy);
  EXPECT_EQ(tasks[0].pad_bytes, 256);
  // The fill first in the list, as well.
  tasks = {FillTask(4096, 64, 4, 256), CopyTask(4096, 64, 4)};
  FusePaddedRows(&tasks, 4);
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].pad_bytes, 256);
}

TEST(StridedCopyKernelsTest, LeavesFillsThatDoNotPadTheRuns) {
  const std::vector<std::vector<Task>> cases = {
      {CopyTask(4096, 64, 4), FillTask(4096, 64, 4, 260)},  // a gap after the run
      {CopyTask(4096, 64, 4), FillTask(2048, 64, 4, 256)},  // other rows
      {CopyTask(4096, 64, 4), Task{Kind::kFill, 0, 256, {Loop{4096, 0, 1024}, Loop{64, 0, 4}}}},
      {CopyTask(4096, 64, 4), Task{Kind::kFill, 0, 256, {Loop{64, 0, 4}}}},
      {Task{Kind::kCopy, 0, 0, {Loop{64, 4, 4}}}, Task{Kind::kFill, 0, 256, {Loop{64, 0, 4}}}},
  };
  for (const std::vector<Task>& c : cases) {
    std::vector<Task> tasks = c;
    FusePaddedRows(&tasks, 4);
    ASSERT_EQ(tasks.size(), 2u);
    EXPECT_EQ(tasks[0].pad_bytes + tasks[1].pad_bytes, 0);
  }
}

// Whole relayouts into tiles whose rows are part elements and part padding
// (a minor dim under 128 into T(8,128), as in the replayed
// f32[32,64,128]{1,2,0} copy), past the small plans' size, on every ISA
// path and on one and two threads, against the index math; with a padding
// value of one byte repeated. With whole tiles the plan must take the fused
// rows (no fill task of its own); partial tiles (rows not a multiple of 8)
// keep their fill tasks and are checked too.
TEST(StridedCopyKernelsTest, PaddedRelayoutsMatchTheIndexMath) {
  std::mt19937_64 rng(3131);
  for (Isa isa : IsaPathsHere()) {
    for (int trial = 0; trial < 6; ++trial) {
      const bool whole = trial % 3 != 2;
      const int64_t outer = 1 + rng() % 4, minor = 1 + rng() % 127;
      const int64_t rows = whole ? 8 * (75 + rng() % 75) : 600 + rng() % 600;
      const std::string dims = absl::StrCat("[", outer, ",", minor, ",", rows, "]");
      const std::string from = absl::StrCat("f32", dims, "{1,2,0}");
      const std::string to = absl::StrCat("f32", dims, "{1,2,0:T(8,128)}");
      RelayoutOptions options;
      options.isa = isa;
      options.threads = 1 + trial % 2;
      options.streaming = RelayoutOptions::Streaming::kOff;
      if (trial % 2 == 1) options.padding_value = {0x7F};
      const Shape src = ParseTestShape(from), dst = ParseTestShape(to);
      absl::StatusOr<RelayoutPlan> plan = RelayoutPlan::Create(src, dst, options);
      ASSERT_TRUE(plan.ok()) << plan.status();
      if (whole) {
        EXPECT_EQ(plan->Describe().find("fill"), std::string::npos) << plan->Describe();
      }
      const absl::Status check =
          RunAndCheckRelayout(*plan, src, dst, options.padding_value, rng);
      ASSERT_TRUE(check.ok()) << IsaName(isa) << " " << from << " -> " << to << ": " << check
                              << "\n"
                              << plan->Describe();
    }
  }
}

}  // namespace
}  // namespace xla_layout::internal
