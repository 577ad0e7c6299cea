#include "bench/plan_traffic.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "xla_layout/copy_reference.h"
#include "xla_layout/relayout.h"
#include "xla_layout/shape_text.h"

namespace xla_layout::bench {
namespace {

struct Moved {
  std::vector<float> src, core, reference;
};

// The copy's source (distinct values), the core's destination, and the
// reference's, both destinations first filled with NaN-free sentinels.
Moved Move(const std::string& src_text, const std::string& dst_text, BlockMove move) {
  Moved m;
  const Shape src = *ParseShape(src_text), dst = *ParseShape(dst_text);
  absl::StatusOr<RelayoutPlan> plan = RelayoutPlan::Create(src, dst);
  EXPECT_TRUE(plan.ok()) << plan.status();
  const std::vector<Mover> movers = PlanMovers(src, dst, move);
  EXPECT_EQ(movers.size(), 1u);
  if (!plan.ok() || movers.size() != 1) return m;
  m.src.resize(plan->src_bytes() / 4);
  for (size_t i = 0; i < m.src.size(); ++i) m.src[i] = static_cast<float>(i + 1);
  m.core.assign(plan->dst_bytes() / 4, -7.0f);
  m.reference = m.core;
  plan->Execute(m.src.data(), m.core.data());
  const char* s = reinterpret_cast<const char*>(m.src.data());
  EXPECT_FALSE(movers[0](s, reinterpret_cast<char*>(m.reference.data()), true));
  EXPECT_TRUE(movers[0](s, reinterpret_cast<char*>(m.reference.data()), false));
  return m;
}

struct Copy {
  std::string src, dst;
  bool blocks;  // the plan has 8x8 blocks to transpose: a permute mover
};

const std::vector<Copy>& Copies() {
  static const auto* copies = new std::vector<Copy>{
      {"f32[64,256]{1,0}", "f32[64,256]{1,0:T(8,1)}", true},
      {"f32[64,256]{1,0}", "f32[64,256]{1,0:T(16,1)}", true},
      {"f32[96,1000]{1,0:T(8,1)}", "f32[96,1000]{0,1:T(8,1)}", true},
      {"f32[32,688]{1,0:T(16,16)}", "f32[32,688]{1,0:T(16,1)}", true},
      {"f32[192,32,1,1]{3,2,1,0}", "f32[192,32,1,1]{0,1,3,2:T(8,128)}", true},
      {"f32[512,256]{1,0}", "f32[512,256]{0,1:T(8,128)}", true},
      {"f32[40,24]{1,0}", "f32[40,24]{0,1}", true},
      {"f32[256,128]{1,0}", "f32[256,128]{0,1:T(8,1)}", false},          // runs of 32 bytes
      {"f32[192,1,3,3]{3,2,1,0}", "f32[192,1,3,3]{0,1,3,2:T(1,128)}", false},  // rows of 9
      {"f32[40,1,3,3]{3,2,1,0}", "f32[40,1,3,3]{0,1,3,2}", false},  // 8 rows at a time
  };
  return *copies;
}

// The permute blocks transpose: their bytes are the core's.
TEST(PlanTrafficTest, PermuteBlocksMoveWhatTheCoreMoves) {
  if (!CanMoveTiles(TileMove::kAvx512)) GTEST_SKIP() << "no AVX-512F";
  for (const Copy& c : Copies()) {
    if (!c.blocks) continue;
    SCOPED_TRACE(c.src + " -> " + c.dst);
    const Moved m = Move(c.src, c.dst, BlockMove::kPermute);
    EXPECT_EQ(m.core, m.reference);
  }
}

// The lines move every element once and write every byte the core writes,
// padding included, and no other: the same values, in another order.
TEST(PlanTrafficTest, LinesMoveEveryElementOnce) {
  if (!CanMoveTiles(TileMove::kAvx512)) GTEST_SKIP() << "no AVX-512F";
  for (const Copy& c : Copies()) {
    SCOPED_TRACE(c.src + " -> " + c.dst);
    Moved m = Move(c.src, c.dst, BlockMove::kLines);
    ASSERT_EQ(m.core.size(), m.reference.size());
    for (size_t i = 0; i < m.core.size(); ++i) {
      ASSERT_EQ(m.core[i] == -7.0f, m.reference[i] == -7.0f) << "at " << i;
      ASSERT_EQ(m.core[i] == 0.0f, m.reference[i] == 0.0f) << "at " << i;
    }
    std::sort(m.core.begin(), m.core.end());
    std::sort(m.reference.begin(), m.reference.end());
    EXPECT_EQ(m.core, m.reference);
  }
}

TEST(PlanTrafficTest, NoMoverWhereTheBlocksDoNotFit) {
  const auto movers = [](const char* src, const char* dst) {
    return PlanMovers(*ParseShape(src), *ParseShape(dst), BlockMove::kLines).size();
  };
  EXPECT_EQ(movers("f32[12,20]{1,0}", "f32[12,20]{0,1}"), 0u);   // not 8x8 blocks
  EXPECT_EQ(movers("bf16[64,64]{1,0}", "bf16[64,64]{0,1}"), 0u);  // 16-bit elements
  EXPECT_EQ(movers("f32[64,64]{1,0}", "f32[64,64]{1,0}"), 0u);    // long runs only
  EXPECT_EQ(PlanMovers(*ParseShape("f32[96,9]{1,0}"), *ParseShape("f32[96,9]{0,1}"),
                       BlockMove::kPermute)
                .size(),
            0u);  // rows of 9: no 8x8 blocks
  EXPECT_EQ(PlanMovers(*ParseShape("f32[256,128]{1,0}"),
                       *ParseShape("f32[256,128]{0,1:T(8,1)}"), BlockMove::kPermute)
                .size(),
            0u);  // no transpose
}

}  // namespace
}  // namespace xla_layout::bench
