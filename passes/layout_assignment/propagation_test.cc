// Pieces of propagation tested alone.
#include "passes/layout_assignment/propagation.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "hlo/hlo_test_util.h"
#include "passes/layout_assignment/target_config.h"

namespace xla_layout::layout_assignment {
namespace {

// A concatenate of `n` operands along dim 0: the first is f32[2,8], the
// others f32[1,8], so every operand but the first is outgrown.
std::string WideConcatenate(int n) {
  std::vector<std::string> operands = {"big"};
  for (int k = 1; k < n; ++k) operands.push_back("small");
  return absl::StrCat(
      "HloModule m\nENTRY e {\n  big = f32[2,8] parameter(0)\n",
      "  small = f32[1,8] parameter(1)\n  ROOT c = f32[", n + 1,
      ",8] concatenate(", absl::StrJoin(operands, ", "), "), dimensions={0}\n}\n");
}

// Each operand's extent is read a bounded number of times, however many
// operands the concatenate has: propagation stays linear in them.
TEST(ConcatenateOperandSizesTest, ReadsEachOperandOnce) {
  constexpr int kOperands = 2000;
  auto m = ParseTestModule(WideConcatenate(kOperands));
  ASSERT_NE(m, nullptr);
  TargetConfig config = *TargetConfig::Builtin("tpu");
  LayoutCostModel cost(config);
  absl::StatusOr<LayoutConstraints> c = LayoutConstraints::Build(*m, cost);
  ASSERT_TRUE(c.ok()) << c.status();
  ConcatenateOperandSizes sizes;
  int concatenate_edges = 0, outgrown = 0;
  for (const OperandEdge& edge : c->edges()) {
    if (edge.user == nullptr || edge.user->opcode() != HloOpcode::kConcatenate) continue;
    ++concatenate_edges;
    if (sizes.IsOutgrown(edge)) {
      ++outgrown;
      EXPECT_NE(edge.operand_index, 0);
    }
  }
  EXPECT_EQ(concatenate_edges, kOperands);
  EXPECT_EQ(outgrown, kOperands - 1);
  EXPECT_LE(sizes.extents_read(), 2 * kOperands);
}

}  // namespace
}  // namespace xla_layout::layout_assignment
