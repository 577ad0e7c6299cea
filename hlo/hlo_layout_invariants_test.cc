// VerifyLayoutInvariants, rule by rule: a module that keeps it and one that
// breaks it.
#include <string>

#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/hlo_test_util.h"
#include "hlo/hlo_verifier.h"

namespace xla_layout {
namespace {

using ::testing::HasSubstr;

std::string Check(absl::string_view text) {
  std::unique_ptr<HloModule> m = ParseTestModule(text);
  if (m == nullptr) return "parse failed";
  return std::string(VerifyLayoutInvariants(*m).message());
}

TEST(LayoutInvariantsTest, Bitcast) {
  EXPECT_EQ(Check("HloModule m\nENTRY e {\n  p = f32[4,8]{1,0} parameter(0)\n"
                  "  ROOT b = f32[32]{0} bitcast(p)\n}\n"), "");
  // Tiles pad the operand: not the same bytes as the untiled result.
  EXPECT_THAT(Check("HloModule m\nENTRY e {\n  p = f32[4,8]{1,0:T(8,128)} parameter(0)\n"
                    "  ROOT b = f32[32]{0} bitcast(p)\n}\n"),
              HasSubstr("bitcast of f32[4,8]{1,0:T(8,128)} is not the same bytes"));
}

// Byte sizes are remembered by the whole shape, layout included: a tiled
// operand after an untiled one of the same dims is still caught.
TEST(LayoutInvariantsTest, BitcastSizesByWholeShape) {
  EXPECT_THAT(Check("HloModule m\nENTRY e {\n  p = f32[4,8]{1,0} parameter(0)\n"
                    "  b = f32[32]{0} bitcast(p)\n"
                    "  q = f32[4,8]{1,0:T(8,128)} parameter(1)\n"
                    "  c = f32[32]{0} bitcast(q)\n"
                    "  ROOT t = (f32[32]{0}, f32[32]{0}) tuple(b, c)\n}\n"),
              HasSubstr("instruction 'c': bitcast of f32[4,8]{1,0:T(8,128)} is not the same bytes"));
}

// A target's rule: f32 arrays of rank >= 1 need tiles.
std::string CheckTiles(absl::string_view text) {
  std::unique_ptr<HloModule> m = ParseTestModule(text);
  if (m == nullptr) return "parse failed";
  return std::string(
      VerifyLayoutInvariants(*m, [](const Shape& s) { return s.element_type() == F32; })
          .message());
}

// A value a bitcast reads keeps the bytes as written: exempt from the
// tiles, in the entry and in a called computation alike (each computation
// marks its own bitcasts' operands), but only the bitcast's operand.
TEST(LayoutInvariantsTest, BitcastOperandsNeedNoTiles) {
  EXPECT_EQ(CheckTiles("HloModule m\n"
                       "f {\n  a = f32[8]{0:T(256)} parameter(0)\n"
                       "  n = f32[8]{0} negate(a)\n"
                       "  b = f32[8]{0} bitcast(n)\n"
                       "  ROOT r = f32[8]{0:T(256)} negate(a)\n}\n"
                       "ENTRY e {\n  p = f32[8]{0:T(256)} parameter(0)\n"
                       "  m = f32[8]{0} negate(p)\n"
                       "  b = f32[8]{0} bitcast(m)\n"
                       "  ROOT c = f32[8]{0:T(256)} call(p), to_apply=f\n}\n"),
            "");
  EXPECT_THAT(CheckTiles("HloModule m\nENTRY e {\n  p = f32[8]{0:T(256)} parameter(0)\n"
                         "  m = f32[8]{0} negate(p)\n"
                         "  k = f32[8]{0} negate(m)\n"
                         "  ROOT b = f32[8]{0} bitcast(k)\n}\n"),
              HasSubstr("instruction 'm': array 0 is f32[8]{0}"));
}

TEST(LayoutInvariantsTest, RequiredTiles) {
  // Tiled everywhere; the s32 array is not the rule's.
  EXPECT_EQ(CheckTiles("HloModule m\nENTRY e {\n  p = f32[8]{0:T(256)} parameter(0)\n"
                       "  i = s32[8]{0} parameter(1)\n"
                       "  ROOT n = f32[8]{0:T(256)} negate(p)\n}\n"),
            "");
  EXPECT_THAT(CheckTiles("HloModule m\nENTRY e {\n  p = f32[8]{0:T(256)} parameter(0)\n"
                         "  ROOT n = f32[8]{0} negate(p)\n}\n"),
              HasSubstr("instruction 'n': array 0 is f32[8]{0}, without the tiles the target "
                        "requires"));
  // A parameter is exempt only where the header pins it untiled; what reads
  // it must be tiled.
  EXPECT_EQ(CheckTiles("HloModule m, entry_computation_layout={(f32[8]{0})->f32[8]{0:T(256)}}\n"
                       "ENTRY e {\n  p = f32[8]{0} parameter(0)\n"
                       "  c = f32[8]{0:T(256)} copy(p)\n"
                       "  ROOT n = f32[8]{0:T(256)} negate(c)\n}\n"),
            "");
  EXPECT_THAT(CheckTiles("HloModule m\nENTRY e {\n  p = f32[8]{0} parameter(0)\n"
                         "  ROOT n = f32[8]{0:T(256)} negate(p)\n}\n"),
              HasSubstr("instruction 'p': array 0 is f32[8]{0}"));
  // Fusion bodies are not buffers; views and delivered values are exempt.
  EXPECT_EQ(CheckTiles(R"(HloModule m
fused {
  a = f32[8]{0} parameter(0)
  ROOT n = f32[8]{0} negate(a)
}
ENTRY e {
  tok = token[] after-all()
  in = (f32[8]{0}, token[]) infeed(tok)
  d = f32[8]{0} get-tuple-element(in), index=0
  c = f32[8]{0:T(256)} copy(d)
  ROOT f = f32[8]{0:T(256)} fusion(c), kind=kLoop, calls=fused
}
)"),
            "");
}

TEST(LayoutInvariantsTest, TupleElements) {
  EXPECT_EQ(Check("HloModule m\nENTRY e {\n  p = f32[4,8]{0,1} parameter(0)\n"
                  "  ROOT t = (f32[4,8]{0,1}) tuple(p)\n}\n"), "");
  EXPECT_THAT(Check("HloModule m\nENTRY e {\n  p = f32[4,8]{0,1} parameter(0)\n"
                    "  ROOT t = (f32[4,8]{1,0}) tuple(p)\n}\n"),
              HasSubstr("tuple element 0 is f32[4,8]{1,0} but its operand is f32[4,8]{0,1}"));
}

TEST(LayoutInvariantsTest, LayoutForwardingOps) {
  constexpr char text[] = R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[4,8]{0,1} parameter(0)
  ROOT r = f32[4,8]{%s} all-reduce(p), replica_groups={}, to_apply=add
})";
  EXPECT_EQ(Check(absl::StrFormat(text, "0,1")), "");
  EXPECT_THAT(Check(absl::StrFormat(text, "1,0")),
              HasSubstr("all-reduce result 0 is f32[4,8]{1,0} but operand 0 is f32[4,8]{0,1}"));
  // all-gather changes a size, not the order.
  EXPECT_EQ(Check("HloModule m\nENTRY e {\n  p = f32[4,8]{0,1} parameter(0)\n"
                  "  ROOT g = f32[8,8]{0,1} all-gather(p), dimensions={0}\n}\n"), "");
}

TEST(LayoutInvariantsTest, SendAndRecvData) {
  constexpr char text[] = R"(HloModule m
ENTRY e {
  p = f32[4,8]{0,1} parameter(0)
  t = token[] after-all()
  s = (f32[4,8]{%s}, u32[], token[]) send(p, t), channel_id=1
  ROOT d = token[] send-done(s), channel_id=1
})";
  EXPECT_EQ(Check(absl::StrFormat(text, "0,1")), "");
  EXPECT_THAT(Check(absl::StrFormat(text, "1,0")),
              HasSubstr("a send's data layout differs from its operand's"));
  EXPECT_THAT(Check(R"(HloModule m
ENTRY e {
  t = token[] after-all()
  r = (f32[4,8]{0,1}, u32[], token[]) recv(t), channel_id=1
  ROOT d = (f32[4,8]{1,0}, token[]) recv-done(r), channel_id=1
})"),
              HasSubstr("a recv-done's data layout differs from its recv's"));
}

TEST(LayoutInvariantsTest, Aliasing) {
  constexpr char call[] = R"(HloModule m
ENTRY e {
  p = f32[4,8]{0,1} parameter(0)
  ROOT c = f32[4,8]{%s} custom-call(p), custom_call_target="f", output_to_operand_aliasing={{}: (0, {})}
})";
  EXPECT_EQ(Check(absl::StrFormat(call, "0,1")), "");
  EXPECT_THAT(Check(absl::StrFormat(call, "1,0")), HasSubstr("output {} aliases operand 0"));
  constexpr char io[] = R"(HloModule m, input_output_alias={ {}: (0, {}) }
ENTRY e {
  p = f32[4,8]{0,1} parameter(0)
  ROOT n = f32[4,8]{%s} negate(p)
})";
  EXPECT_EQ(Check(absl::StrFormat(io, "0,1")), "");
  EXPECT_THAT(Check(absl::StrFormat(io, "1,0")),
              HasSubstr("input_output_alias: output {} is laid out f32[4,8]{1,0} but "
                        "parameter 0 {} f32[4,8]{0,1}"));
}

}  // namespace
}  // namespace xla_layout
