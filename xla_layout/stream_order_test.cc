#include "xla_layout/stream_order.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "xla_layout/relayout.h"
#include "xla_layout/test_util.h"

namespace xla_layout::internal {
namespace {

std::string LoopsOf(const Task& t) {
  std::vector<std::string> loops;
  for (const Loop& l : t.loops) loops.push_back(absl::StrCat(l.extent, ":", l.src, "/", l.dst));
  return absl::StrJoin(loops, " ");
}

Task Copy(std::vector<Loop> loops) { return Task{Kind::kCopy, 0, 0, std::move(loops)}; }

TEST(StreamOrderTest, RunsThatContinueInTheDestinationAreTakenEightAtATime) {
  // f32[4096,4096]{0,1:T(32,32)(32,1)} -> {1,0}, read in source order:
  // 128-byte rows of 32 tiles in turn, one 128-byte piece per destination row.
  std::vector<Task> tasks = {
      Copy({{4, 16777216, 4096}, {32, 524288, 128}, {4096, 128, 16384}, {32, 4, 4}})};
  GroupLineRunsForStreaming(&tasks, 4);
  EXPECT_EQ(LoopsOf(tasks[0]),
            "4:16777216/4096 4:4194304/1024 4096:128/16384 8:524288/128 32:4/4");
  // And {1,0} -> {0,1:T(32,32)(32,1)}: eight source rows at a time, 1 KiB
  // of a tile per call.
  tasks = {Copy({{128, 524288, 4096}, {32, 16384, 128}, {128, 128, 524288}, {32, 4, 4}})};
  GroupLineRunsForStreaming(&tasks, 4);
  EXPECT_EQ(LoopsOf(tasks[0]), "128:524288/4096 4:131072/1024 128:128/524288 8:16384/128 32:4/4");
  // 64-byte runs: eight at a time, 512 bytes.
  tasks = {Copy({{64, 64, 1024}, {16, 4096, 64}, {16, 4, 4}})};
  GroupLineRunsForStreaming(&tasks, 4);
  EXPECT_EQ(LoopsOf(tasks[0]), "64:64/1024 2:32768/512 8:4096/64 16:4/4");
  // 256-byte runs ({0,1:T(64,64)(64,1)}): eight at a time, 2 KiB.
  tasks = {Copy({{256, 262144, 4096}, {16, 16384, 256}, {64, 256, 1048576}, {64, 4, 4}})};
  GroupLineRunsForStreaming(&tasks, 4);
  EXPECT_EQ(LoopsOf(tasks[0]), "256:262144/4096 2:131072/2048 64:256/1048576 8:16384/256 64:4/4");
}

TEST(StreamOrderTest, OtherTasksAreLeftAsPlanned) {
  const std::vector<std::vector<Loop>> kept = {
      {{32, 16384, 512}, {128, 4, 4}},                  // 512-byte runs: whole pieces already
      {{32, 16384, 96}, {24, 4, 4}},                    // 96 bytes: not whole lines
      {{6, 16384, 128}, {32, 4, 4}},                    // the group does not divide 6
      {{32, 16384, 4096}, {32, 4, 4}},                  // no loop continues the runs
      {{32, 4, 16384}, {32, 16384, 4}}};                // a transpose's loops
  for (const std::vector<Loop>& loops : kept) {
    std::vector<Task> tasks = {Copy(loops)};
    if (loops.back().src != 4) tasks[0].kind = Kind::kTranspose;
    const std::string before = LoopsOf(tasks[0]);
    GroupLineRunsForStreaming(&tasks, 4);
    EXPECT_EQ(LoopsOf(tasks[0]), before);
  }
}

// The plans that streaming relayouts build take the grouping (the moves
// themselves are checked against the index math in large_copy_kernels_test).
TEST(StreamOrderTest, StreamingPlansOfThirtyTwoByThirtyTwoTilesAreGrouped) {
  RelayoutOptions options;
  options.threads = 1;
  options.streaming = RelayoutOptions::Streaming::kOn;
  absl::StatusOr<RelayoutPlan> plan =
      RelayoutPlan::Create(ParseTestShape("f32[512,512]{0,1:T(32,32)(32,1)}"),
                           ParseTestShape("f32[512,512]{1,0}"), options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_NE(plan->Describe().find("2:524288/1024 512:128/2048 8:65536/128 32:4/4"),
            std::string::npos)
      << plan->Describe();
}

Task Grouped(std::vector<Loop> loops) {
  Task t{Kind::kTranspose, 0, 0, std::move(loops)};
  t.grouped = true;
  return t;
}

TEST(StreamOrderTest, GroupedTransposesTakeTheirBlocksOfRowsInStrips) {
  // f32[4096,4096]{1,0} -> {0,1:T(4,128)}: eight blocks of 16 rows per tile
  // row become one call of 128 rows; the block loop stays, at extent 1.
  std::vector<Task> tasks = {Grouped(
      {{32, 2097152, 2048}, {8, 262144, 64}, {1024, 16, 65536}, {4, 4, 512}, {16, 16384, 4}})};
  TallerGroupedBlocks(&tasks, 4, Isa::kAvx2, /*streaming=*/true, /*outermost_too=*/false);
  EXPECT_EQ(LoopsOf(tasks[0]), "32:2097152/2048 1:2097152/512 1024:16/65536 4:4/512 128:16384/4");
  // Twelve blocks: the largest divisor of 12 that fits 128 rows, 6.
  tasks = {Grouped({{3, 786432, 768}, {12, 65536, 64}, {8, 16, 8192}, {8, 4, 1024},
                    {16, 4096, 4}})};
  TallerGroupedBlocks(&tasks, 4, Isa::kAvx2, /*streaming=*/true, /*outermost_too=*/false);
  EXPECT_EQ(LoopsOf(tasks[0]), "3:786432/768 2:393216/384 8:16/8192 8:4/1024 96:4096/4");
}

TEST(StreamOrderTest, GroupedTransposesInCacheTakeTallerBlocks) {
  // f32[320,960]{1,0} -> {0,1:T(8,128)}: 3840-byte source rows, eight
  // blocks of 16 become one call of 128 rows.
  std::vector<Task> tasks = {Grouped(
      {{2, 491520, 4096}, {8, 61440, 64}, {120, 32, 12288}, {8, 4, 512}, {16, 3840, 4}})};
  TallerGroupedBlocks(&tasks, 4, Isa::kAvx2, /*streaming=*/false, /*outermost_too=*/false);
  EXPECT_EQ(LoopsOf(tasks[0]), "2:491520/4096 1:491520/512 120:32/12288 8:4/512 128:3840/4");
  // f32[512,1024]{1,0} -> {0,1:T(8,128)}: rows 4 KiB apart, calls of 64.
  tasks = {Grouped(
      {{4, 524288, 4096}, {8, 65536, 64}, {128, 32, 16384}, {8, 4, 512}, {16, 4096, 4}})};
  TallerGroupedBlocks(&tasks, 4, Isa::kAvx2, /*streaming=*/false, /*outermost_too=*/false);
  EXPECT_EQ(LoopsOf(tasks[0]), "4:524288/4096 2:262144/256 128:32/16384 8:4/512 64:4096/4");
  // Streaming, the same task takes 128 rows.
  tasks = {Grouped(
      {{4, 524288, 4096}, {8, 65536, 64}, {128, 32, 16384}, {8, 4, 512}, {16, 4096, 4}})};
  TallerGroupedBlocks(&tasks, 4, Isa::kAvx2, /*streaming=*/true, /*outermost_too=*/false);
  EXPECT_EQ(LoopsOf(tasks[0]), "4:524288/4096 1:524288/512 128:32/16384 8:4/512 128:4096/4");
  // f32[160,960]'s first 128 rows: the block loop outermost merges only in
  // a plan of one thread.
  const std::vector<Loop> outer_blocks = {
      {8, 61440, 64}, {120, 32, 8192}, {8, 4, 512}, {16, 3840, 4}};
  tasks = {Grouped(outer_blocks)};
  TallerGroupedBlocks(&tasks, 4, Isa::kAvx2, /*streaming=*/false, /*outermost_too=*/false);
  EXPECT_EQ(LoopsOf(tasks[0]), "8:61440/64 120:32/8192 8:4/512 16:3840/4");
  TallerGroupedBlocks(&tasks, 4, Isa::kAvx2, /*streaming=*/false, /*outermost_too=*/true);
  EXPECT_EQ(LoopsOf(tasks[0]), "1:491520/512 120:32/8192 8:4/512 128:3840/4");
}

TEST(StreamOrderTest, OtherTransposesKeepTheirRows) {
  const std::vector<std::vector<Loop>> kept = {
      {{2, 720896, 512}, {11, 65536, 64}, {8, 16, 8192}, {8, 4, 1024}, {16, 4096, 4}},  // 11
      {{2, 32768, 512}, {8, 4096, 64}, {8, 16, 8192}, {8, 4, 1024}, {16, 4096, 4}},  // not rows
      {{8, 65536, 64}, {8, 16, 8192}, {8, 4, 1024}, {16, 4096, 4}},  // blocks outermost: threads
      {{8, 16, 8192}, {8, 4, 1024}, {16, 4096, 4}}};                 // no loop outside
  for (const std::vector<Loop>& loops : kept) {
    std::vector<Task> tasks = {Grouped(loops)};
    const std::string before = LoopsOf(tasks[0]);
    TallerGroupedBlocks(&tasks, 4, Isa::kAvx2, /*streaming=*/true, /*outermost_too=*/false);
    EXPECT_EQ(LoopsOf(tasks[0]), before);
  }
  // No grouped kernel (the scalar path, 2-byte elements): tile by tile, one
  // line of rows per call as planned.
  const std::vector<Loop> tile_rows = {
      {32, 2097152, 2048}, {8, 262144, 64}, {1024, 16, 65536}, {4, 4, 512}, {16, 16384, 4}};
  for (const auto& [es, isa] :
       {std::pair{int64_t{4}, Isa::kScalar}, std::pair{int64_t{2}, Isa::kAvx2}}) {
    std::vector<Task> tasks = {Grouped(tile_rows)};
    TallerGroupedBlocks(&tasks, es, isa, /*streaming=*/true, /*outermost_too=*/false);
    EXPECT_EQ(tasks[0].loops[4].extent, 16) << IsaName(isa) << " " << es;
  }
  std::vector<Task> plain = {Task{
      Kind::kTranspose, 0, 0,
      {{32, 2097152, 2048}, {8, 262144, 64}, {4, 4, 512}, {16, 16384, 4}}}};
  TallerGroupedBlocks(&plain, 4, Isa::kAvx2, /*streaming=*/true, /*outermost_too=*/false);
  EXPECT_EQ(LoopsOf(plain[0]), "32:2097152/2048 8:262144/64 4:4/512 16:16384/4");
}

}  // namespace
}  // namespace xla_layout::internal
