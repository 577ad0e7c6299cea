// The provenance the layout pass records for `hlo-layout explain`: each
// copy's chain from the need to the root cause.
#include "passes/layout_assignment/provenance.h"

#include <string>

#include "gtest/gtest.h"
#include "hlo/hlo_test_util.h"
#include "passes/layout_assignment/layout_assignment.h"
#include "xla_layout/file_io.h"

namespace xla_layout {
namespace {


// The chain of the copy of `value`, or null.
const LayoutExplanation::CopyChain* ChainOf(const LayoutAssignment& pass,
                                            const std::string& value) {
  for (const LayoutExplanation::CopyChain& c : pass.explanation().copies) {
    if (pass.stats().copies[c.copy].operand == value) return &c;
  }
  return nullptr;
}

LayoutAssignment RunOnMlp(bool explain) {
  LayoutAssignment pass(*TargetConfig::Builtin("cpu-avx2"));
  pass.set_explain(explain, explain);
  // A dot of two row-major parameters, then bias and relu, the result
  // pinned row-major.
  absl::StatusOr<std::string> text =
      ReadFileBounded("examples/mlp_row_major.hlo", "HLO file");
  EXPECT_TRUE(text.ok()) << text.status();
  auto m = ParseTestModule(text.value_or(""));
  EXPECT_NE(m, nullptr);
  if (m != nullptr) {
    EXPECT_TRUE(pass.Run(*m).ok());
  }
  return pass;
}

TEST(ProvenanceTest, PackedWeightIsNeededByTheDotBecauseTheHeaderPinsIt) {
  LayoutAssignment pass = RunOnMlp(true);
  ASSERT_EQ(pass.explanation().copies.size(), 3u);
  const LayoutExplanation::CopyChain* w = ChainOf(pass, "w");
  ASSERT_NE(w, nullptr);
  ASSERT_EQ(w->chain.size(), 2u);
  EXPECT_EQ(w->chain[0].instruction, "d");
  EXPECT_EQ(w->chain[0].operand, 1);
  EXPECT_EQ(w->chain[0].layout, "{0,1:T(8,1)}");
  EXPECT_EQ(w->chain[0].rule, "cost decision");
  EXPECT_EQ(w->chain[0].detail,
            "dot rhs packed into panels: read 8 times; copy 262144 bytes once");
  EXPECT_EQ(w->chain[1].instruction, "w");
  EXPECT_EQ(w->chain[1].layout, "{1,0}");
  EXPECT_EQ(w->chain[1].rule, "header pin");
  EXPECT_EQ(w->chain[1].parameter, 1);
}

// The unpacking copy of the dot's result: `a` wants {1,0} because the
// root it feeds elementwise is pinned so; `d` is tiled by the cost model.
TEST(ProvenanceTest, UnpackingCopyFollowsTheResultPinThroughElementwiseOps) {
  LayoutAssignment pass = RunOnMlp(true);
  const LayoutExplanation::CopyChain* d = ChainOf(pass, "d");
  ASSERT_NE(d, nullptr);
  ASSERT_EQ(d->chain.size(), 4u);
  EXPECT_EQ(d->chain[0].instruction, "a");
  EXPECT_EQ(d->chain[0].operand, 0);
  EXPECT_EQ(d->chain[0].rule, "elementwise agreement");
  EXPECT_EQ(d->chain[1].instruction, "a");
  EXPECT_EQ(d->chain[1].rule, "elementwise agreement");
  EXPECT_EQ(d->chain[2].instruction, "r");
  EXPECT_EQ(d->chain[2].rule, "header pin");
  EXPECT_EQ(d->chain[2].result_leaf, 0);
  EXPECT_EQ(d->chain[3].instruction, "d");
  EXPECT_EQ(d->chain[3].layout, "{1,0:T(8,8)}");
  EXPECT_EQ(d->chain[3].rule, "cost decision");
}

TEST(ProvenanceTest, ValuesOffTheDefaultNameTheirRule) {
  LayoutAssignment pass = RunOnMlp(true);
  ASSERT_EQ(pass.explanation().values.size(), 1u);
  EXPECT_EQ(pass.explanation().values[0].instruction, "d");
  EXPECT_EQ(pass.explanation().values[0].rule, "cost decision");
}

TEST(ProvenanceTest, NothingIsRecordedUnlessAsked) {
  LayoutAssignment pass = RunOnMlp(false);
  EXPECT_EQ(pass.stats().copies.size(), 3u);
  EXPECT_TRUE(pass.explanation().copies.empty());
  EXPECT_TRUE(pass.explanation().values.empty());
}

}  // namespace
}  // namespace xla_layout
