// What an instruction holds in line and out of line: the size a million of
// them cost, and that the rare parts kept out of line (called computations,
// a parameter's number, a constant's literal) read, clone and stay apart as
// fields would.
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "hlo/hlo_literal.h"
#include "hlo/hlo_module.h"
#include "hlo/hlo_test_util.h"

namespace xla_layout {
namespace {

// glibc rounds a block up to 16 bytes with 8 of header: 344 bytes fill a
// 352-byte block, 345 a 368-byte one. The chain module of 1M instructions
// holds a million of them. (376, a 384-byte block, until the shape held one
// inline tile, not two, and one pointer for its rare parts, not two.)
TEST(HloInstructionMemoryTest, FitsA352ByteHeapBlock) {
  EXPECT_LE(sizeof(HloInstruction), 344u);
  EXPECT_EQ(sizeof(HloOpcode), 1u);
}

// What nearly every walk reads shares the object's first 64 bytes: on a
// module far larger than the caches a walk then fetches one line of each
// instruction (the opcode beside them, the shape after them).
TEST(HloInstructionMemoryTest, WalkedFieldsShareTheFirstLine) {
  HloInstruction i("i", HloOpcode::kAdd, Shape(F32, {2}));
  const char* base = reinterpret_cast<const char*>(&i);
  auto end_of = [&](const auto& member) {
    return reinterpret_cast<const char*>(&member) + sizeof(member) - base;
  };
  EXPECT_LE(end_of(i.operands()), 64);
  EXPECT_LE(end_of(i.users()), 64);
  EXPECT_GE(reinterpret_cast<const char*>(&i.shape()) - base, 64);
}

// get-tuple-element's index is kept out of line: absent elsewhere, set,
// printed back, and copied deeply with the attributes.
TEST(HloInstructionMemoryTest, TupleIndexIsKeptOutOfLine) {
  std::unique_ptr<HloModule> m = ParseTestModule(R"(
HloModule m
ENTRY main {
  p = (f32[2], s32[]) parameter(0)
  ROOT g = s32[] get-tuple-element(p), index=1
})");
  ASSERT_NE(m, nullptr);
  HloInstruction* g = m->entry()->root();
  EXPECT_EQ(g->attributes().index(), 1);
  EXPECT_EQ(m->entry()->FindInstruction("p")->attributes().index(), std::nullopt);
  EXPECT_NE(g->ToString().find(", index=1"), std::string::npos);
  HloInstruction::Attributes copy = g->attributes();
  g->mutable_attributes().set_index(0);
  EXPECT_EQ(copy.index(), 1);
  EXPECT_EQ(g->attributes().index(), 0);
}

// iota_dimension is kept out of line with the attributes of few opcodes,
// and prints back as written.
TEST(HloInstructionMemoryTest, IotaDimensionIsARareAttribute) {
  std::unique_ptr<HloModule> m = ParseTestModule(R"(
HloModule m
ENTRY main {
  ROOT i = s32[2,3] iota(), iota_dimension=1
})");
  ASSERT_NE(m, nullptr);
  const HloInstruction* iota = m->entry()->root();
  EXPECT_EQ(iota->attributes().rare().iota_dimension, 1);
  EXPECT_NE(iota->ToString().find(", iota_dimension=1"), std::string::npos);
  HloInstruction add("a", HloOpcode::kAdd, Shape(F32, {2}));
  EXPECT_EQ(add.attributes().rare().iota_dimension, std::nullopt);
}

TEST(HloInstructionMemoryTest, RarePartsReadAsDefaultsWhenAbsent) {
  HloInstruction add("a", HloOpcode::kAdd, Shape(F32, {2}));
  EXPECT_EQ(add.parameter_number(), -1);
  EXPECT_TRUE(add.called_computations().empty());
  EXPECT_EQ(add.called_computation("to_apply"), nullptr);
  EXPECT_EQ(add.literal(), "");
  EXPECT_EQ(add.literal_value(), nullptr);
}

TEST(HloInstructionMemoryTest, RarePartsAreKeptSideBySide) {
  HloComputation callee("f");
  HloInstruction i("i", HloOpcode::kCall, Shape(F32, {}));
  i.set_parameter_number(3);
  i.AddCalledComputation("to_apply", &callee);
  i.set_literal("{1, 2}");
  EXPECT_EQ(i.parameter_number(), 3);
  EXPECT_EQ(i.called_computation("to_apply"), &callee);
  EXPECT_EQ(i.literal(), "{1, 2}");
  i.set_called_computation(0, nullptr);
  EXPECT_EQ(i.parameter_number(), 3);
  EXPECT_EQ(i.literal(), "{1, 2}");
}

// A clone carries the parameter numbers, the literal (its value shared) and
// the called computations; changing the clone leaves the original as it was.
TEST(HloInstructionMemoryTest, CloneCopiesTheRarePartsDeeply) {
  std::unique_ptr<HloModule> m = ParseTestModule(R"(
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY main {
  p = f32[2] parameter(0)
  q = f32[2] parameter(1)
  c = f32[2] constant({1, 2})
  ROOT r = f32[] reduce(p, c), dimensions={0}, to_apply=add
})");
  ASSERT_NE(m, nullptr);
  const HloComputation* entry = m->entry();
  std::unique_ptr<HloComputation> clone =
      entry->Clone("main.clone", [](absl::string_view n) { return std::string(n) + ".1"; });
  const HloInstruction* q = clone->FindInstruction("q.1");
  const HloInstruction* c = clone->FindInstruction("c.1");
  HloInstruction* r = clone->FindInstruction("r.1");
  ASSERT_NE(q, nullptr);
  ASSERT_NE(c, nullptr);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(q->parameter_number(), 1);
  EXPECT_EQ(c->literal(), "{1, 2}");
  EXPECT_EQ(c->literal_value(), entry->FindInstruction("c")->literal_value());
  ASSERT_NE(c->literal_value(), nullptr);
  EXPECT_EQ(r->called_computation("to_apply"), m->FindComputation("add"));
  r->set_called_computation(0, nullptr);
  EXPECT_EQ(entry->FindInstruction("r")->called_computation("to_apply"),
            m->FindComputation("add"));
}

}  // namespace
}  // namespace xla_layout
