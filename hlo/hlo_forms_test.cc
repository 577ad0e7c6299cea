// Forms of XLA's text that real dumps hold, read as XLA reads them: list of
// lists attributes, the in-place collective-permute, sparse dots, and the
// async shorthand printed back as written. Our own modules throughout.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
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
  if (again.ok()) {
    EXPECT_EQ((*again)->ToString(), printed);
  }
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

// --- Sparse dots: sparsity=L.1@2:4 stores the lhs compressed along dim 1,
// 2 of every 4 logical elements kept, so the stored dim is half the
// logical contracting size. The metadata (operand 2 on) is u16, one element
// per 8 stored ones along the sparse dim (2 bits of position each).

// A name list as XLA's parser reads one: each comma between two names.
TEST(NameListTest, EveryCommaSeparatesTwoNames) {
  EXPECT_THAT(ParseNameList("{}").value(), ::testing::IsEmpty());
  EXPECT_THAT(ParseNameList("{ }").value(), ::testing::IsEmpty());
  EXPECT_THAT(ParseNameList("{a, %b}").value(), ::testing::ElementsAre("a", "b"));
  for (const char* bad : {"{a,}", "{,a}", "{a,,b}", "{a, ,b}", "{,}"}) {
    absl::StatusOr<std::vector<std::string>> names = ParseNameList(bad);
    ASSERT_FALSE(names.ok()) << bad;
    EXPECT_THAT(std::string(names.status().message()), ::testing::HasSubstr("empty name"));
  }
}

TEST(SparseDotTest, DescriptorsParse) {
  absl::StatusOr<std::vector<SparsityDescriptor>> one = ParseSparsity("L.1@2:4");
  ASSERT_TRUE(one.ok()) << one.status();
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0].operand, 0);
  EXPECT_EQ((*one)[0].dimension, 1);
  EXPECT_EQ((*one)[0].n, 2);
  EXPECT_EQ((*one)[0].m, 4);
  absl::StatusOr<std::vector<SparsityDescriptor>> two = ParseSparsity("L.1@2:4_R.0@1:2");
  ASSERT_TRUE(two.ok()) << two.status();
  ASSERT_EQ(two->size(), 2u);
  EXPECT_EQ((*two)[1].operand, 1);
  EXPECT_EQ((*two)[1].dimension, 0);
  EXPECT_EQ((*two)[1].n, 1);
  EXPECT_EQ((*two)[1].m, 2);
  for (absl::string_view bad : {"X.1@2:4", "L1@2:4", "L.1@2", "L.1@2:4_", "L.-1@2:4",
                                "L.1@0:4", "L.1@4:2", "L.1@2:4_L.0@2:4"}) {
    EXPECT_FALSE(ParseSparsity(bad).ok()) << bad;
  }
}

TEST(SparseDotTest, SparseLhsReadsVerifiesAndPrints) {
  std::unique_ptr<HloModule> m = Accept(R"(HloModule m
ENTRY e {
  lhs = f16[10,16] parameter(0)
  rhs = f16[32,20] parameter(1)
  meta = u16[10,2] parameter(2)
  ROOT dot = f32[10,20] dot(lhs, rhs, meta), lhs_contracting_dims={1}, rhs_contracting_dims={0}, sparsity=L.1@2:4
})");
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(Find(*m, "dot")->attributes().dot().sparsity.size(), 1u);
  EXPECT_THAT(m->ToString(), HasSubstr("dot(f16[10,16]{1,0} %lhs, f16[32,20]{1,0} %rhs, "
                                       "u16[10,2]{1,0} %meta), lhs_contracting_dims={1}, "
                                       "rhs_contracting_dims={0}, sparsity=L.1@2:4"));
}

// Shapes worked by hand: the stored sparse dim times m/n is the logical
// contracting size; the result is the dense dot's.
TEST(SparseDotTest, ShapeLeftOutIsInferred) {
  std::unique_ptr<HloModule> m = Accept(R"(HloModule m
ENTRY e {
  lhs = f32[10,16] parameter(0)
  rhs = f32[32,20] parameter(1)
  meta = u16[10,2] parameter(2)
  a = dot(lhs, rhs, meta), lhs_contracting_dims={1}, rhs_contracting_dims={0}, sparsity=L.1@2:4
  blhs = f32[3,10,24] parameter(3)
  brhs = f32[3,48,5] parameter(4)
  bmeta = u16[3,10,3] parameter(5)
  b = dot(blhs, brhs, bmeta), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}, sparsity=L.2@2:4
  rlhs = f32[7,64] parameter(6)
  rrhs = f32[32,9] parameter(7)
  rmeta = u16[4,9] parameter(8)
  c = dot(rlhs, rrhs, rmeta), lhs_contracting_dims={1}, rhs_contracting_dims={0}, sparsity=R.0@2:4
  ROOT t = tuple(a, b, c)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Find(*m, "a")->shape().ToString(), "f32[10,20]{1,0}");
  EXPECT_EQ(Find(*m, "b")->shape().ToString(), "f32[3,10,5]{2,1,0}");
  EXPECT_EQ(Find(*m, "c")->shape().ToString(), "f32[7,9]{1,0}");
}

TEST(SparseDotTest, BothOperandsSparse) {
  std::unique_ptr<HloModule> m = Accept(R"(HloModule m
ENTRY e {
  a = f16[32,32] parameter(0)
  b = f16[32,32] parameter(1)
  a_meta = u16[32,4] parameter(2)
  b_meta = u16[4,32] parameter(3)
  ROOT dot = dot(a, b, a_meta, b_meta), lhs_contracting_dims={1}, rhs_contracting_dims={0}, sparsity=L.1@2:4_R.0@2:4
})");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Find(*m, "dot")->shape().ToString(), "f16[32,32]{1,0}");
  EXPECT_THAT(m->ToString(), HasSubstr("sparsity=L.1@2:4_R.0@2:4"));
}

TEST(SparseDotTest, OperandsThatDoNotFitAreRefused) {
  constexpr absl::string_view kDot = R"(HloModule m
ENTRY e {
  lhs = f32[10,%d] parameter(0)
  rhs = f32[32,20] parameter(1)
  meta = u16[%s] parameter(2)
  ROOT dot = f32[10,20] dot(%s), lhs_contracting_dims={1}, rhs_contracting_dims={0}, sparsity=%s
})";
  auto module = [&](int stored, const char* meta, const char* operands, const char* sparsity) {
    return absl::StrFormat(kDot, stored, meta, operands, sparsity);
  };
  EXPECT_THAT(Refuse(module(32, "10,4", "lhs, rhs, meta", "L.1@2:4")),
              HasSubstr("dot contracts lhs dim 1 (32 stored, 2:4 sparse) with rhs dim 0 (32)"));
  EXPECT_THAT(Refuse(module(16, "10,2", "lhs, rhs", "L.1@2:4")),
              HasSubstr("a dot with 1 sparsity descriptor takes 3 operands (lhs, rhs and a "
                        "metadata operand per descriptor), not 2"));
  EXPECT_THAT(Refuse(module(16, "10,4", "lhs, rhs, meta", "L.1@2:4")),
              HasSubstr("sparsity metadata (operand 2) is u16[10,4]{1,0}, but L.1@2:4 on "
                        "f32[10,16]{1,0} needs u16[10,2]"));
  EXPECT_THAT(Refuse(module(16, "10,2", "lhs, rhs, meta", "L.0@2:4")),
              HasSubstr("sparsity L.0@2:4: lhs dim 0 is not a contracting dim"));
  EXPECT_THAT(Refuse(module(16, "10,2", "lhs, rhs, meta", "X.1@2:4")),
              HasSubstr("t.hlo:6:98: error: sparsity: 'X.1@2:4' is not L.dim@n:m or "
                        "R.dim@n:m"));
}

// --- The async shorthand prints as XLA prints it: `add-start(a, b)` and
// its -update and -done, the wrapped op's attributes on the start, without
// the computation the parser wraps it in.

constexpr absl::string_view kAddStart = R"(HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  s = ((f32[4], f32[4]), f32[4]) add-start(a, b)
  u = ((f32[4], f32[4]), f32[4]) add-update(s)
  ROOT d = f32[4] add-done(u)
})";

TEST(AsyncShorthandTest, PrintsAsWrittenAndKeepsTheInstructionCount) {
  std::unique_ptr<HloModule> m = Accept(kAddStart);
  ASSERT_NE(m, nullptr);
  // The parser's wrapped computation: two parameters and the add.
  EXPECT_EQ(m->computation_count(), 2u);
  EXPECT_EQ(m->instruction_count(), 8);
  std::string out = m->ToString();
  EXPECT_THAT(out, HasSubstr("  %s = ((f32[4]{0}, f32[4]{0}), f32[4]{0}) add-start(f32[4]{0} "
                             "%a, f32[4]{0} %b)\n"));
  EXPECT_THAT(out, HasSubstr("  %u = ((f32[4]{0}, f32[4]{0}), f32[4]{0}) add-update(((f32[4]{0}, "
                             "f32[4]{0}), f32[4]{0}) %s)\n"));
  EXPECT_THAT(out, HasSubstr("  ROOT %d = f32[4]{0} add-done(((f32[4]{0}, f32[4]{0}), "
                             "f32[4]{0}) %u)\n"));
  EXPECT_THAT(out, Not(HasSubstr("async")));
  std::unique_ptr<HloModule> again = ParseTestModule(out);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->instruction_count(), 8);
  EXPECT_EQ(again->ToString(), out);
}

TEST(AsyncShorthandTest, WrappedAttributesAndThreadPrintOnTheStart) {
  std::unique_ptr<HloModule> m = Accept(R"(HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  s = ((f32[4]), f32[4], s32[]) custom-call-start(a), async_execution_thread="host", custom_call_target="foo"
  ROOT d = f32[4] custom-call-done(s)
})");
  ASSERT_NE(m, nullptr);
  std::string out = m->ToString();
  EXPECT_THAT(out, HasSubstr("custom-call-start(f32[4]{0} %a), custom_call_target=\"foo\", "
                             "async_execution_thread=\"host\"\n"));
  EXPECT_THAT(out, HasSubstr("ROOT %d = f32[4]{0} custom-call-done(((f32[4]{0}), f32[4]{0}, "
                             "s32[]) %s)\n"));
  EXPECT_THAT(out, Not(HasSubstr("async_wrapped")));
  // The wrapped computation runs on the start's thread, as in XLA.
  EXPECT_EQ(m->computations()[0]->execution_thread(), "host");
}

// A thread name with escapes: the wrapped computation gets its bytes, and
// the start still prints as the shorthand, the name as written.
TEST(AsyncShorthandTest, ThreadNamesWithEscapesStayShorthand) {
  std::unique_ptr<HloModule> m = Accept(R"(HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  s = ((f32[4]), f32[4], s32[]) custom-call-start(a), async_execution_thread="h\"t", custom_call_target="foo"
  ROOT d = f32[4] custom-call-done(s)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->computations()[0]->execution_thread(), "h\"t");
  std::string out = m->ToString();
  EXPECT_THAT(out, HasSubstr(R"(custom-call-start(f32[4]{0} %a), custom_call_target="foo", )"
                             R"(async_execution_thread="h\"t")"));
  EXPECT_THAT(out, Not(HasSubstr("async_wrapped")));
  std::unique_ptr<HloModule> again = ParseTestModule(out);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->ToString(), out);
}

// all-reduce-start, all-gather-start, collective-permute-start and
// copy-start are opcodes of their own, not the shorthand: nothing wraps them.
TEST(AsyncShorthandTest, StartOpcodesOfTheirOwnStayAsTheyAre) {
  std::unique_ptr<HloModule> m = Accept(R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p = f32[4] parameter(0)
  ars = f32[4] all-reduce-start(p), replica_groups={}, to_apply=add
  ard = f32[4] all-reduce-done(ars)
  cs = (f32[4], f32[4], u32[]) copy-start(ard)
  ROOT cd = f32[4] copy-done(cs)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->computation_count(), 2u);
  std::string out = m->ToString();
  EXPECT_THAT(out, HasSubstr("%ars = f32[4]{0} all-reduce-start(f32[4]{0} %p), "
                             "replica_groups={}, to_apply=%add\n"));
  EXPECT_THAT(out, HasSubstr("%cs = (f32[4]{0}, f32[4]{0}, u32[]) copy-start(f32[4]{0} %ard)\n"));
  EXPECT_THAT(out, Not(HasSubstr("async")));
}

constexpr absl::string_view kLongForm = R"(HloModule m
wrapped {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  %s
}
ENTRY e {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  s = ((f32[4], f32[4]), f32[4]) async-start(a, b), calls=wrapped
  ROOT d = f32[4] async-done(s)
})";

// As XLA prints it: a wrapped computation that is one op on its
// parameters prints as the shorthand.
TEST(AsyncShorthandTest, LongFormOfOneOpPrintsAsTheShorthand) {
  std::unique_ptr<HloModule> m =
      Accept(absl::StrFormat(kLongForm, "ROOT m = f32[4] multiply(p0, p1)"));
  ASSERT_NE(m, nullptr);
  std::string out = m->ToString();
  EXPECT_THAT(out, HasSubstr("%s = ((f32[4]{0}, f32[4]{0}), f32[4]{0}) multiply-start("));
  EXPECT_THAT(out, HasSubstr("ROOT %d = f32[4]{0} multiply-done("));
  EXPECT_THAT(out, Not(HasSubstr("%wrapped")));
  std::unique_ptr<HloModule> again = ParseTestModule(out);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->instruction_count(), m->instruction_count());
}

// Anything the shorthand cannot say keeps the long form: a computation of
// more than one op, one also called by other instructions.
TEST(AsyncShorthandTest, OtherLongFormsStayLong) {
  std::unique_ptr<HloModule> m = Accept(
      absl::StrFormat(kLongForm, "m = f32[4] multiply(p0, p1)\n  ROOT n = f32[4] negate(m)"));
  ASSERT_NE(m, nullptr);
  std::string out = m->ToString();
  EXPECT_THAT(out, HasSubstr("async-start(f32[4]{0} %a, f32[4]{0} %b), calls=%wrapped\n"));
  EXPECT_THAT(out, HasSubstr("%wrapped (p0: f32[4]{0}, p1: f32[4]{0}) -> f32[4]{0} {"));
  std::string shared(absl::StrFormat(kLongForm, "ROOT m = f32[4] multiply(p0, p1)"));
  const std::string kDone = "  ROOT d = f32[4] async-done(s)";
  shared.replace(shared.find(kDone), kDone.size(),
                 "  d = f32[4] async-done(s)\n  ROOT c = f32[4] call(a, d), to_apply=wrapped");
  m = Accept(shared);
  ASSERT_NE(m, nullptr);
  out = m->ToString();
  EXPECT_THAT(out, HasSubstr("async-start(f32[4]{0} %a, f32[4]{0} %b), calls=%wrapped\n"));
  EXPECT_THAT(out, HasSubstr("ROOT %m = f32[4]{0} multiply("));
}

// The shorthand's attributes are the wrapped op's, typed as that op's are:
// a convolution's dim_labels, a fusion's kind.
TEST(AsyncShorthandTest, AttributesAreTypedAsTheWrappedOps) {
  std::unique_ptr<HloModule> m = Accept(R"(HloModule m
f {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}
ENTRY e {
  i = f32[1,4,4,1] parameter(0)
  k = f32[1,1,1,1] parameter(1)
  cs = ((f32[1,4,4,1], f32[1,1,1,1]), f32[1,4,4,1]) convolution-start(i, k), window={size=1x1}, dim_labels=b01f_01io->b01f
  cd = f32[1,4,4,1] convolution-done(cs)
  a = f32[4] parameter(2)
  fs = ((f32[4]), f32[4]) fusion-start(a), kind=kLoop, calls=f
  fd = f32[4] fusion-done(fs)
  ROOT t = (f32[1,4,4,1], f32[4]) tuple(cd, fd)
})");
  ASSERT_NE(m, nullptr);
  const HloComputation* conv = Find(*m, "cs")->called_computation("calls");
  ASSERT_NE(conv, nullptr);
  EXPECT_TRUE(conv->root()->attributes().rare().dim_labels.has_value());
  const HloComputation* fusion = Find(*m, "fs")->called_computation("calls");
  ASSERT_NE(fusion, nullptr);
  EXPECT_EQ(fusion->root()->attributes().keywords().kind, "kLoop");
  EXPECT_THAT(m->ToString(), HasSubstr("convolution-start(f32[1,4,4,1]{3,2,1,0} %i, "
                                       "f32[1,1,1,1]{3,2,1,0} %k), window={size=1x1}, "
                                       "dim_labels=b01f_01io->b01f\n"));
}

}  // namespace
}  // namespace xla_layout
