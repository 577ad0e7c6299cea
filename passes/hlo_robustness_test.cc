// Bad input never crashes: random mutations of valid HLO and shape text
// must give a module or an error, never a crash or a hang; what parses must
// verify or fail cleanly and print, and what verifies must go through layout
// assignment (or get an error) and still verify. Run under ASan with
// --config=asan.
#include <random>
#include <string>

#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_verifier.h"
#include "passes/layout_assignment/layout_assignment.h"
#include "xla_layout/shape_text.h"
#include "xla_layout/tiled_layout.h"

namespace xla_layout {
namespace {

constexpr char kSeed[] = R"(HloModule seed, entry_computation_layout={(f32[4,8]{0,1}, s32[])->(f32[8,4]{1,0}, s32[])}

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY %main (p: f32[4,8], i: s32[]) -> (f32[8,4], s32[]) {
  %p = f32[4,8]{0,1:T(2,4)} parameter(0)
  i = s32[] parameter(1)
  t = f32[8,4] transpose(f32[4,8]{0,1:T(2,4)} %p), dimensions={1,0}, metadata={op_name="t"}
  z = f32[] constant(0)
  r = f32[8] reduce(t, z), dimensions={1}, to_apply=add
  b = f32[8,4] broadcast(r), dimensions={0}
  sl = f32[2,4] slice(b), slice={[0:4:2], [0:4]}
  c = (f32[8,4], /*index=1*/s32[]) tuple(b, i)
  ROOT g = (f32[8,4], s32[]) tuple(b, i)
}
)";

// The forms the parity issue added: no header line, inline operands, async
// shorthand, shapes left out, literals of several kinds, aliasing, threads.
constexpr char kSeedNewForms[] = R"(host {
  a = f32[] parameter(0)
  ROOT n = negate(a)
}, execution_thread="host"

ENTRY e {
  p = f32[4,8] parameter(0)
  q = f32[8,2] parameter(1)
  d = dot(p, q), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = transpose(d), dimensions={1,0}
  k = f32[2,2] constant({ {1, 2.5}, {-inf, nan(0x1)} })
  w = bf16[3] constant({1, -2, 0.5})
  s = ((f32[4,2], f32[4,2]), f32[4,2]) add-start(d, f32[4,2] multiply(d, d))
  r = f32[4,2] add-done(s)
  one = f32[] constant(1)
  c = f32[] call(one), to_apply=host, control-predecessors={k}
  ROOT out = tuple(r, t, c, w)
}
)";

std::string Mutate(std::string text, std::mt19937_64& rng) {
  static const std::string kAlphabet =
      "{}()[]<>,:=%*-_.0123456789 \nfsuT(8,128)ROOTENTRYabcdez\"/";
  int edits = 1 + rng() % 4;
  for (int e = 0; e < edits && !text.empty(); ++e) {
    size_t at = rng() % text.size();
    switch (rng() % 5) {
      case 0:  // replace a byte
        text[at] = kAlphabet[rng() % kAlphabet.size()];
        break;
      case 1:  // delete a run
        text.erase(at, 1 + rng() % 8);
        break;
      case 2:  // insert a byte
        text.insert(at, 1, kAlphabet[rng() % kAlphabet.size()]);
        break;
      case 3:  // truncate
        text.resize(at);
        break;
      case 4: {  // duplicate a run elsewhere
        std::string run = text.substr(at, 1 + rng() % 16);
        text.insert(rng() % text.size(), run);
        break;
      }
    }
  }
  return text;
}

TEST(HloRobustnessTest, MutatedModulesNeverCrash) {
  for (const char* seed : {kSeed, kSeedNewForms}) {
    absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(seed);
    ASSERT_TRUE(m.ok()) << m.status();
    ASSERT_TRUE(VerifyModule(**m).ok()) << VerifyModule(**m);
  }
  std::mt19937_64 rng(42);
  int parsed = 0, verified = 0, assigned = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text = Mutate(i % 2 ? kSeed : kSeedNewForms, rng);
    absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text, "fuzz");
    if (!m.ok()) {
      ASSERT_FALSE(m.status().message().empty());
      continue;
    }
    ++parsed;
    std::string printed = (*m)->ToString();
    ASSERT_FALSE(printed.empty());
    if (!VerifyModule(**m).ok()) continue;
    ++verified;
    // What verifies prints a canonical form that reads back as itself.
    absl::StatusOr<std::unique_ptr<HloModule>> again = ParseHloModule(printed, "printed");
    ASSERT_TRUE(again.ok()) << again.status() << "\nfrom:\n" << text;
    ASSERT_EQ((*again)->ToString(), printed) << "from:\n" << text;
    LayoutAssignment pass(*TargetConfig::Builtin(i % 2 ? "tpu" : "cpu-avx2"));
    absl::StatusOr<bool> ran = pass.Run(**m);
    if (!ran.ok()) {
      ASSERT_FALSE(ran.status().message().empty());
      continue;
    }
    ++assigned;
    absl::Status after = VerifyModule(**m);
    ASSERT_TRUE(after.ok()) << after << "\n" << text;
  }
  // Both outcomes must occur, or the mutations test nothing.
  EXPECT_GT(parsed, 100);
  EXPECT_LT(parsed, 20000);
  EXPECT_GT(verified, 50);
  EXPECT_GT(assigned, 50);
}

TEST(ShapeRobustnessTest, MutatedShapesNeverCrash) {
  const std::string seeds[] = {
      "f32[3,5]{1,0:T(2,2)}", "bf16[8,256]{1,0:T(8,128)(2,1)}",
      "(f32[2]{0}, s32[], token[])", "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}",
      "f32[10,10]{1,0:D(D,C+~)#(u8)P(s32[100]{0})}", "F32[3,5]<1,0:T(2,2)>"};
  std::mt19937_64 rng(7);
  int ok = 0, indexed = 0, last_slot_holds_element = 0;
  for (int i = 0; i < 30000; ++i) {
    std::string text = Mutate(seeds[i % 6], rng);
    absl::StatusOr<Shape> shape = ParseShape(text);
    if (!shape.ok()) continue;
    ++ok;
    ASSERT_EQ(*ParseShape(PrintShape(*shape)), *shape) << text;
    if (shape->IsArray()) {
      // The index math must fail cleanly or work on whatever parsed: the
      // last slot is padding or holds an element that maps back to it, and
      // the last element lies inside the buffer.
      absl::StatusOr<TiledLayout> t = TiledLayout::Create(*shape);
      if (t.ok() && t->slot_count() < 100000 && t->element_count() > 0) {
        const int64_t last_slot = t->slot_count() - 1;
        if (std::optional<IndexVector> e = t->LogicalIndex(last_slot)) {
          ASSERT_EQ(t->LinearIndex(*e), last_slot) << text;
          ++last_slot_holds_element;
        }
        IndexVector last_element;
        for (int d = 0; d < shape->rank(); ++d) last_element.push_back(shape->dimensions(d) - 1);
        const int64_t slot = t->LinearIndex(last_element);
        ASSERT_GE(slot, 0) << text;
        ASSERT_LT(slot, t->slot_count()) << text;
        ASSERT_EQ(t->LogicalIndex(slot), last_element) << text;
        ++indexed;
      }
    }
  }
  EXPECT_GT(ok, 500);
  EXPECT_GT(indexed, 200);
  EXPECT_GT(last_slot_holds_element, 20);
}

}  // namespace
}  // namespace xla_layout
