// Forms of XLA's text that real dumps hold, read as XLA reads them: list of
// lists attributes, the in-place collective-permute, sparse dots, and the
// async shorthand printed back as written. Our own modules throughout.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/hlo_attributes.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_test_util.h"
#include "hlo/hlo_verifier.h"

namespace xla_layout {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

using IntLists = std::vector<std::vector<int64_t>>;

// Parses and verifies; returns the module (null on failure). Its print
// re-parses to the same text.
std::unique_ptr<HloModule> Accept(absl::string_view text) {
  std::unique_ptr<HloModule> m = ParseTestModule(text);
  if (m == nullptr) return nullptr;
  absl::Status v = VerifyModule(*m);
  EXPECT_TRUE(v.ok()) << v;
  std::string printed = m->ToString();
  absl::StatusOr<std::unique_ptr<HloModule>> again = ParseHloModule(printed, "again.hlo");
  EXPECT_TRUE(again.ok()) << again.status() << "\n" << printed;
  if (again.ok()) EXPECT_EQ((*again)->ToString(), printed);
  return v.ok() ? std::move(m) : nullptr;
}

// The parse or verifier error (empty when the module is accepted).
std::string Refuse(absl::string_view text) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text, "t.hlo");
  if (!m.ok()) return std::string(m.status().message());
  absl::Status v = VerifyModule(**m);
  EXPECT_FALSE(v.ok()) << "accepted:\n" << (*m)->ToString();
  return std::string(v.message());
}

const HloInstruction* Find(const HloModule& m, absl::string_view name) {
  for (HloComputation* c : m.computations()) {
    if (HloInstruction* i = c->FindInstruction(name)) return i;
  }
  ADD_FAILURE() << "no instruction " << name;
  return nullptr;
}

TEST(ListOfListsTest, ParsesNestedBracesWithOrWithoutSpaces) {
  EXPECT_EQ(*ParseIntListList("{{0,1},{1,2}}"), (IntLists{{0, 1}, {1, 2}}));
  EXPECT_EQ(*ParseIntListList(" { {0, 1} , {} ,{7}} "), (IntLists{{0, 1}, {}, {7}}));
  EXPECT_EQ(*ParseIntListList("{}"), IntLists{});
  EXPECT_THAT(ParseIntListList("{{0,1}").status().message(),
              HasSubstr("expected ',' or '}' at offset 6 of '{{0,1}'"));
  EXPECT_THAT(ParseIntListList("{0,1}").status().message(),
              HasSubstr("expected '{' at offset 1 of '{0,1}'"));
}

constexpr absl::string_view kInPlacePermute = R"(HloModule m
ENTRY e {
  input = f32[128,32]{0,1} parameter(0)
  zero = f32[] constant(0)
  output = f32[128,128]{0,1} broadcast(zero), dimensions={}
  c0 = s32[] constant(0)
  c64 = s32[] constant(64)
  from = (s32[], s32[]) tuple(c0, c0)
  to = (s32[], s32[]) tuple(c0, c64)
  ROOT cp = f32[128,128]{0,1} collective-permute(input, output, from, to), source_target_pairs={{0,1},{1,2},{2,3}}, slice_sizes={{128,32}}
})";

// The in-place form: input, output buffer, and where each slice starts in
// each; the result is the output buffer.
TEST(ListOfListsTest, InPlaceCollectivePermuteReadsAndVerifies) {
  std::unique_ptr<HloModule> m = Accept(kInPlacePermute);
  ASSERT_NE(m, nullptr);
  const HloInstruction* cp = Find(*m, "cp");
  EXPECT_EQ(cp->attributes().rare().source_target_pairs, (IntLists{{0, 1}, {1, 2}, {2, 3}}));
  EXPECT_EQ(cp->attributes().rare().slice_sizes_list, (IntLists{{128, 32}}));
  EXPECT_THAT(m->ToString(),
              HasSubstr("source_target_pairs={{0,1},{1,2},{2,3}}, slice_sizes={{128,32}}"));
  EXPECT_TRUE(VerifyLayoutInvariants(*m).ok()) << VerifyLayoutInvariants(*m);
}

TEST(ListOfListsTest, InPlaceCollectivePermuteShapeIsTheOutputBuffer) {
  std::string text(kInPlacePermute);
  text.replace(text.find("ROOT cp = f32[128,128]{0,1} "), 28, "ROOT cp = ");
  std::unique_ptr<HloModule> m = Accept(text);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Find(*m, "cp")->shape().ToString(), "f32[128,128]{1,0}");
  std::string wrong(kInPlacePermute);
  wrong.replace(wrong.find("ROOT cp = f32[128,128]"), 22, "ROOT cp = f32[128,32]");
  EXPECT_THAT(Refuse(wrong), HasSubstr("but its operands make it f32[128,128]"));
}

// The output buffer gives the result its layout, not the input.
TEST(ListOfListsTest, InPlaceCollectivePermuteKeepsTheOutputLayout) {
  std::string text(kInPlacePermute);
  text.replace(text.find("input = f32[128,32]{0,1}"), 24, "input = f32[128,32]{1,0}");
  std::unique_ptr<HloModule> m = Accept(text);
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(VerifyLayoutInvariants(*m).ok()) << VerifyLayoutInvariants(*m);
  std::string bad(kInPlacePermute);
  bad.replace(bad.find("output = f32[128,128]{0,1}"), 26, "output = f32[128,128]{1,0}");
  m = Accept(bad);
  ASSERT_NE(m, nullptr);
  EXPECT_THAT(VerifyLayoutInvariants(*m).message(),
              HasSubstr("collective-permute result 0 is f32[128,128]{0,1} but operand 1 is "
                        "f32[128,128]{1,0}"));
}

TEST(ListOfListsTest, CollectivePermuteStartAndDone) {
  std::unique_ptr<HloModule> m = Accept(R"(HloModule m
ENTRY e {
  input = f32[128,32] parameter(0)
  output = f32[128,128] parameter(1)
  c0 = s32[] constant(0)
  from = (s32[], s32[]) tuple(c0, c0)
  start = (f32[128,32], f32[128,128], u32[], u32[]) collective-permute-start(input, output, from, from), channel_id=1, source_target_pairs={{0,1},{1,0}}, slice_sizes={{64,32},{64,32}}
  ROOT done = collective-permute-done(start)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Find(*m, "start")->attributes().rare().slice_sizes_list,
            (IntLists{{64, 32}, {64, 32}}));
  EXPECT_EQ(Find(*m, "done")->shape().ToString(), "f32[128,128]{1,0}");
}

TEST(ListOfListsTest, ReplicaGroupsListFormIsTypedAndIotaFormKept) {
  std::unique_ptr<HloModule> m = Accept(R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p = f32[8] parameter(0)
  a = f32[8] all-reduce(p), replica_groups={ {0,1}, {2,3} }, to_apply=add
  b = f32[8] all-reduce(a), replica_groups={}, to_apply=add
  ROOT c = f32[8] all-reduce(b), replica_groups=[2,2]<=[4], to_apply=add
})");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Find(*m, "a")->attributes().rare().replica_groups, (IntLists{{0, 1}, {2, 3}}));
  EXPECT_EQ(Find(*m, "b")->attributes().rare().replica_groups, IntLists{});
  EXPECT_FALSE(Find(*m, "c")->attributes().rare().replica_groups.has_value());
  std::string out = m->ToString();
  EXPECT_THAT(out, HasSubstr("replica_groups={{0,1},{2,3}}, to_apply=%add"));
  EXPECT_THAT(out, HasSubstr("replica_groups=[2,2]<=[4], to_apply=%add"));
}

TEST(ListOfListsTest, BadListsArePositioned) {
  EXPECT_THAT(Refuse(R"(HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  ROOT cp = f32[4] collective-permute(p), source_target_pairs={{0,1,2}}
})"),
              HasSubstr("t.hlo:4:43: error: source_target_pairs: {0,1,2} is not a pair "
                        "(source, target)"));
  EXPECT_THAT(Refuse(R"(HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  ROOT cp = f32[4] collective-permute(p), source_target_pairs={{0,1},{1,x}}
})"),
              HasSubstr("t.hlo:4:43: error: source_target_pairs: expected an integer"));
  // gather's slice_sizes stay one list.
  EXPECT_THAT(Refuse(R"(HloModule m
ENTRY e {
  t = f32[8,64] parameter(0)
  i = s32[5,1] parameter(1)
  ROOT g = f32[5,64] gather(t, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={{1,64}}
})"),
              HasSubstr("slice_sizes: '{1' is not an integer"));
}

}  // namespace
}  // namespace xla_layout
