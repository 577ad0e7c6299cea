#include "runtime/plan_cache.h"

#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"
#include "runtime/executor.h"
#include "runtime/logical.h"
#include "xla_layout/test_util.h"

namespace xla_layout::runtime {
namespace {

TEST(PlanCacheTest, IdenticalPairsShareOnePlan) {
  PlanCache cache;
  const Shape row = ParseTestShape("f32[16,24]{1,0}");
  const Shape col = ParseTestShape("f32[16,24]{0,1}");
  const Shape tiled = ParseTestShape("f32[16,24]{1,0:T(8,128)}");
  absl::StatusOr<const RelayoutPlan*> a = cache.Get(row, col);
  absl::StatusOr<const RelayoutPlan*> b = cache.Get(row, col);
  absl::StatusOr<const RelayoutPlan*> c = cache.Get(row, tiled);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_NE(*a, *c);
  EXPECT_EQ((*c)->dst_bytes(), 16 * 128 * 4);
  // The pair the other way round is another plan.
  absl::StatusOr<const RelayoutPlan*> back = cache.Get(col, row);
  ASSERT_TRUE(back.ok());
  EXPECT_NE(*back, *a);
  const PlanCache::Counts n = cache.counts();
  EXPECT_EQ(n.lookups, 4);
  EXPECT_EQ(n.hits, 1);
  EXPECT_EQ(n.plans, 3);
}

TEST(PlanCacheTest, RefusedPairsAreNotKept) {
  PlanCache cache;
  absl::StatusOr<const RelayoutPlan*> p =
      cache.Get(ParseTestShape("f32[16,24]{1,0}"), ParseTestShape("f32[24,16]{1,0}"));
  EXPECT_FALSE(p.ok());
  EXPECT_EQ(cache.counts().lookups, 1);
  EXPECT_EQ(cache.counts().plans, 0);
}

TEST(PlanCacheTest, ThreadsLookingUpTogetherGetOnePlan) {
  PlanCache cache;
  const Shape row = ParseTestShape("f32[64,64]{1,0}");
  const Shape col = ParseTestShape("f32[64,64]{0,1}");
  std::vector<const RelayoutPlan*> got(4, nullptr);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < 100; ++k) got[t] = *cache.Get(row, col);
    });
  }
  for (std::thread& t : threads) t.join();
  for (const RelayoutPlan* p : got) EXPECT_EQ(p, got[0]);
  EXPECT_EQ(cache.counts().plans, 1);
  EXPECT_EQ(cache.counts().hits, 399);
}

// Two copies of one pair in a module: one plan, built at load, and runs
// look nothing up again.
TEST(PlanCacheTest, TheExecutorSharesPlansAcrossCopiesAndRuns) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(R"(
HloModule m, entry_computation_layout={(f32[16,24]{1,0})->(f32[16,24]{0,1}, f32[16,24]{0,1}, f32[16,24]{1,0:T(8,128)})}

ENTRY e {
  p = f32[16,24]{1,0} parameter(0)
  a = f32[16,24]{0,1} copy(p)
  b = f32[16,24]{0,1} copy(p)
  c = f32[16,24]{1,0:T(8,128)} copy(p)
  ROOT t = (f32[16,24]{0,1}, f32[16,24]{0,1}, f32[16,24]{1,0:T(8,128)}) tuple(a, b, c)
}
)", "t.hlo");
  ASSERT_TRUE(m.ok()) << m.status();
  absl::StatusOr<std::unique_ptr<Executor>> e = Executor::Create(**m);
  ASSERT_TRUE(e.ok()) << e.status();
  std::mt19937_64 rng(7);
  absl::StatusOr<LogicalArray> x = RandomLogicalArray((*m)->entry()->parameters()[0]->shape(), rng);
  ASSERT_TRUE(x.ok());
  for (int run = 0; run < 2; ++run) {
    absl::StatusOr<std::vector<std::vector<LogicalArray>>> out =
        RunLogicalOnDevices(**e, {{*x}});
    ASSERT_TRUE(out.ok()) << out.status();
    const ExecutionStats& s = (*e)->stats();
    EXPECT_EQ(s.copies, 3);
    EXPECT_EQ(s.plans_built, 2);
    EXPECT_EQ(s.plan_lookups, 3);
    EXPECT_EQ(s.plan_hits, 1);
  }
}

}  // namespace
}  // namespace xla_layout::runtime
