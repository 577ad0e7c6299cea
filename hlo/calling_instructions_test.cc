// HloComputation::CallingInstructions is kept as the computation changes,
// without a walk: it must always equal a walk's answer, in order.
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/hlo_module.h"
#include "hlo/hlo_test_util.h"

namespace xla_layout {
namespace {

std::vector<HloInstruction*> ByWalk(const HloComputation& c) {
  std::vector<HloInstruction*> calling;
  for (HloInstruction* i : c.instruction_range()) {
    if (!i->called_computations().empty()) calling.push_back(i);
  }
  return calling;
}

TEST(CallingInstructionsTest, ParsedModulesListTheirCallersInOrder) {
  std::unique_ptr<HloModule> m = ParseTestModule(R"(
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
body {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  v = f32[4] get-tuple-element(p), index=1
  z = f32[] constant(0)
  r = f32[] reduce(v, z), dimensions={0}, to_apply=add
  b = f32[4] broadcast(r), dimensions={}
  ROOT t = (s32[], f32[4]) tuple(i, b)
}
cond {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY main {
  x = f32[4] parameter(0)
  z = f32[] constant(0)
  r = f32[] reduce(x, z), dimensions={0}, to_apply=add
  c = s32[] constant(0)
  t = (s32[], f32[4]) tuple(c, x)
  w = (s32[], f32[4]) while(t), condition=cond, body=body
  s = ((f32[4], f32[4]), f32[4]) add-start(x, x)
  d = f32[4] add-done(s)
  ROOT o = (f32[], (s32[], f32[4]), f32[4]) tuple(r, w, d)
})");
  ASSERT_NE(m, nullptr);
  for (HloComputation* c : m->computations()) {
    EXPECT_EQ(c->CallingInstructions(), ByWalk(*c)) << c->name();
  }
  EXPECT_EQ(m->entry()->CallingInstructions().size(), 3u);  // reduce, while, add-start
}

// One random step on `c`: an instruction added at the end or before another,
// with or without a call (before it is added, or after), one replaced in
// place or in a batch, a batch inserted, or dead ones removed.
void RandomStep(std::mt19937& rng, HloComputation& c, HloComputation& callee, int& names) {
  auto make = [&](bool calls) {
    auto i = std::make_unique<HloInstruction>("i" + std::to_string(names++),
                                              calls ? HloOpcode::kCall : HloOpcode::kNegate,
                                              Shape(F32, {2}));
    if (calls) i->AddCalledComputation("to_apply", &callee);
    return i;
  };
  const std::vector<HloInstruction*> all = c.instructions();
  HloInstruction* some = all.empty() ? nullptr : all[rng() % all.size()];
  const bool calls = rng() % 3 == 0;
  switch (rng() % 7) {
    case 0:
      c.AddInstruction(make(calls));
      break;
    case 1:
      c.AddInstruction(make(calls), some);
      break;
    case 2: {
      HloInstruction* added = c.AddInstruction(make(false), rng() % 2 ? some : nullptr);
      if (calls) added->AddCalledComputation("to_apply", &callee);
      break;
    }
    case 3:
      if (!all.empty()) c.ReplaceInstructionAt(rng() % all.size(), make(calls));
      break;
    case 4:
      if (some != nullptr && some->opcode() != HloOpcode::kParameter) {
        std::vector<std::pair<HloInstruction*, std::unique_ptr<HloInstruction>>> batch;
        batch.emplace_back(some, make(calls));
        c.ReplaceInstructions(std::move(batch));
      }
      break;
    case 5: {
      std::vector<std::pair<HloInstruction*, std::unique_ptr<HloInstruction>>> batch;
      batch.emplace_back(some, make(calls));
      batch.emplace_back(nullptr, make(rng() % 2 == 0));
      c.InsertInstructions(std::move(batch));
      break;
    }
    default:
      if (!all.empty()) c.set_root(all[rng() % all.size()]);
      c.RemoveDeadInstructions();
      break;
  }
}

TEST(CallingInstructionsPropertyTest, RandomEditsKeepTheListRight) {
  std::mt19937 rng(31);
  for (int trial = 0; trial < 200; ++trial) {
    HloComputation callee("f");
    HloComputation c("c");
    int names = 0;
    for (int step = 0; step < 40; ++step) {
      RandomStep(rng, c, callee, names);
      ASSERT_EQ(c.CallingInstructions(), ByWalk(c)) << "trial " << trial << " step " << step;
    }
  }
}

}  // namespace
}  // namespace xla_layout
