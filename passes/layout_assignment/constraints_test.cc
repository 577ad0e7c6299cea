// LayoutConstraints built alone, without propagation or copies: each rule
// is checked by what it adds.
#include "passes/layout_assignment/constraints.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/hlo_test_util.h"
#include "passes/layout_assignment/target_config.h"
#include "xla_layout/shape.h"

namespace xla_layout::layout_assignment {
namespace {

using ::testing::HasSubstr;

constexpr char kDot[] = R"(HloModule m
ENTRY e {
  a = f32[64,256] parameter(0)
  b = f32[256,128] parameter(1)
  ROOT d = f32[64,128] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";

// The constraints keep no reference to the target or the cost model.
absl::StatusOr<LayoutConstraints> Build(HloModule& m, absl::string_view target) {
  TargetConfig config = *TargetConfig::Builtin(target);
  LayoutCostModel cost(config);
  return LayoutConstraints::Build(m, cost);
}

TEST(LayoutConstraintsTest, DotPackingOnCpuOnly) {
  auto m = ParseTestModule(kDot);
  absl::StatusOr<LayoutConstraints> cpu = Build(*m, "cpu-avx2");
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  // Three slots (a, b, d); both operands are needed packed.
  EXPECT_EQ(cpu->slots().size(), 3u);
  ASSERT_EQ(cpu->operand_layouts().size(), 2u);
  EXPECT_EQ(cpu->operand_layouts()[0].layout.ToString(), "{1,0:T(8,1)}");
  EXPECT_EQ(cpu->operand_layouts()[1].layout.ToString(), "{0,1:T(8,1)}");
  EXPECT_STREQ(cpu->operand_layouts()[0].reason, "dot operand packing");
  // The result is produced tiled, the strongest constraint.
  bool produced = false;
  for (const BufferLayout& b : cpu->buffer_layouts()) {
    if (b.slot == cpu->SlotOf(m->entry()->root(), 0)) {
      produced = b.level == kProducer && b.layout.ToString() == "{1,0:T(8,8)}";
    }
  }
  EXPECT_TRUE(produced);

  auto m2 = ParseTestModule(kDot);
  absl::StatusOr<LayoutConstraints> plain = Build(*m2, "default");
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE(plain->operand_layouts().empty());
}

TEST(LayoutConstraintsTest, EntryHeaderPinsParametersAndResult) {
  auto m = ParseTestModule(R"(HloModule m, entry_computation_layout={(f32[4,8]{0,1})->f32[4,8]{1,0}}
ENTRY e {
  p = f32[4,8] parameter(0)
  ROOT n = f32[4,8] negate(p)
})");
  absl::StatusOr<LayoutConstraints> c = Build(*m, "tpu");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->exact().size(), 2u);
  ASSERT_EQ(c->operand_layouts().size(), 1u);
  EXPECT_STREQ(c->operand_layouts()[0].reason, "entry result layout");
  // The result's constraint is applied before the parameter's.
  ASSERT_EQ(c->buffer_layouts().size(), 2u);
  EXPECT_EQ(c->buffer_layouts()[0].level, kMandatory);
  EXPECT_EQ(c->buffer_layouts()[1].level, kProducer);
  // negate: one same-layout edge.
  ASSERT_EQ(c->edges().size(), 1u);
  EXPECT_EQ(c->edges()[0].relation, Relation::kSame);
}

TEST(LayoutConstraintsTest, ControlFlowAliasesAndPreferenceEdges) {
  auto m = ParseTestModule(R"(HloModule m
body {
  t = (f32[8,8]) parameter(0)
  x = f32[8,8] get-tuple-element(t), index=0
  y = f32[8,8] transpose(x), dimensions={1,0}
  ROOT r = (f32[8,8]) tuple(y)
}
cond {
  t = (f32[8,8]) parameter(0)
  ROOT c = pred[] constant(false)
}
ENTRY e {
  p = f32[8,8] parameter(0)
  t = (f32[8,8]) tuple(p)
  ROOT w = (f32[8,8]) while(t), body=body, condition=cond
})");
  absl::StatusOr<LayoutConstraints> c = Build(*m, "default");
  ASSERT_TRUE(c.ok());
  // get-tuple-element with its tuple, the while with body and condition
  // parameters.
  EXPECT_EQ(c->aliases().size(), 3u);
  int permute = 0, copies = 0;
  for (const OperandEdge& e : c->edges()) {
    permute += e.relation == Relation::kPermute;
    copies += e.reason != nullptr;
  }
  EXPECT_EQ(permute, 1);
  // tuple(y), tuple(p), the while operand and the body result can copy.
  EXPECT_EQ(copies, 4);
}

TEST(LayoutConstraintsTest, CustomCallConstraintsMustMatchOperands) {
  // The parser refuses such text; a module edited through the API still
  // reaches the pass, which refuses it too.
  auto m = ParseTestModule(R"(HloModule m
ENTRY e {
  p0 = f32[4,4] parameter(0)
  p1 = f32[2,3] parameter(1)
  ROOT c = f32[4] custom-call(p0, p1), custom_call_target="baz", operand_layout_constraints={f32[4,4]{0,1}, f32[2,3]{1,0}}
})");
  ASSERT_NE(m, nullptr);
  Shape transposed(F32, {3, 2});
  SetDefaultLayouts(transposed);
  (*m->entry()->root()->mutable_attributes().mutable_rare().operand_layout_constraints)[1] =
      transposed;
  absl::StatusOr<LayoutConstraints> c = Build(*m, "default");
  EXPECT_THAT(std::string(c.status().message()),
              HasSubstr("custom-call 'c': operand_layout_constraints gives "
                        "f32[3,2]{1,0} for operand 1 of shape f32[2,3]{1,0}"));
  auto ok = ParseTestModule(R"(HloModule m
ENTRY e {
  p0 = f32[4,4] parameter(0)
  ROOT c = f32[4] custom-call(p0), custom_call_target="baz", operand_layout_constraints={f32[4,4]{0,1}}
})");
  absl::StatusOr<LayoutConstraints> good = Build(*ok, "default");
  ASSERT_TRUE(good.ok());
  ASSERT_EQ(good->operand_layouts().size(), 1u);
  EXPECT_EQ(good->operand_layouts()[0].layout.ToString(), "{0,1}");
}

}  // namespace
}  // namespace xla_layout::layout_assignment
