#include "passes/layout_assignment/layout_assignment.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest-spi.h"
#include "gtest/gtest.h"
#include "passes/flatten_call_graph.h"
#include "hlo/hlo_corpus.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_test_util.h"
#include "hlo/hlo_verifier.h"
#include "passes/layout_assignment/cost_model.h"
#include "hlo/random_module.h"
#include "xla_layout/layout_util.h"
#include "xla_layout/primitive_type.h"
#include "xla_layout/shape_text.h"
#include "xla_layout/test_util.h"
#include "xla_layout/tiled_layout.h"

namespace xla_layout {
namespace {

using ::testing::HasSubstr;


// A built-in target by name, or a table written inline (text starting
// with `name:`).
LayoutAssignment ForTarget(absl::string_view name) {
  if (absl::StartsWith(name, "name:")) {
    absl::StatusOr<TargetConfig> table = TargetConfig::FromTextProto(name, "inline");
    EXPECT_TRUE(table.ok()) << table.status();
    return LayoutAssignment(*table);
  }
  return LayoutAssignment(*TargetConfig::Builtin(name));
}

// The tpu table before tiles were required: 32-bit arrays of rank >= 2 in
// (8,128) tiles, refused above 1.5x padding.
constexpr char kOptionalTiles[] =
    "name: \"optional-tiles\" base_tilings { element_bits: 32 min_rank: 2 "
    "tiles { dimensions: [8, 128] } } cost_model { max_padding_ratio: 1.5 }";

// Runs the pass, checks the result verifies with every layout set, and that
// a second run changes nothing.
std::unique_ptr<HloModule> Assign(absl::string_view text, absl::string_view target,
                                  LayoutAssignmentStats* stats = nullptr,
                                  const HloParseOptions& parse_options = {}) {
  absl::StatusOr<std::unique_ptr<HloModule>> parsed =
      ParseHloModule(text, "t.hlo", nullptr, parse_options);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  if (!parsed.ok()) return nullptr;
  std::unique_ptr<HloModule> m = *std::move(parsed);
  LayoutAssignment pass = ForTarget(target);
  absl::StatusOr<bool> ran = pass.Run(*m);
  EXPECT_TRUE(ran.ok()) << ran.status();
  EXPECT_TRUE(VerifyModule(*m).ok()) << VerifyModule(*m) << "\n" << m->ToString();
  if (stats != nullptr) *stats = pass.stats();
  std::string once = m->ToString();
  LayoutAssignment again = ForTarget(target);
  absl::StatusOr<bool> changed = again.Run(*m);
  EXPECT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(changed.ok() && *changed) << "second run changed:\n" << once;
  EXPECT_EQ(m->ToString(), once);
  EXPECT_TRUE(again.stats().copies.empty());
  return m;
}

std::string LayoutOf(const HloModule& m, absl::string_view name) {
  for (HloComputation* c : m.computations()) {
    if (HloInstruction* i = c->FindInstruction(name)) {
      return i->shape().IsArray() ? PrintLayout(i->shape().layout())
                                  : PrintShape(i->shape());
    }
  }
  ADD_FAILURE() << "no instruction " << name;
  return "";
}

HloOpcode OpcodeOf(const HloModule& m, absl::string_view name) {
  for (HloComputation* c : m.computations()) {
    if (HloInstruction* i = c->FindInstruction(name)) return i->opcode();
  }
  ADD_FAILURE() << "no instruction " << name;
  return HloOpcode::kParameter;
}

// --- XLA's documented outcomes (hlo-corpus/SOURCES.md) ----------------------

TEST(LayoutAssignmentTest, WhileInfeedMismatchCopiesOutsideTheLoop) {
  constexpr char kText[] = R"(
HloModule TupleCopyOnLayoutMismatch
condition.1 {
  tup.1 = (s32[], token[], f32[512,1024]{0,1}) parameter(0)
  counter.1 = s32[] get-tuple-element(tup.1), index=0
  five = s32[] constant(5)
  ROOT lt = pred[] compare(counter.1, five), direction=LT
}
body.2 {
  tup.2 = (s32[], token[], f32[512,1024]{0,1}) parameter(0)
  counter.2 = s32[] get-tuple-element(tup.2), index=0
  tok.2 = token[] get-tuple-element(tup.2), index=1
  ifeed.2 = (f32[512,1024]{1,0}, token[]) infeed(tok.2)
  next_tok = token[] get-tuple-element(ifeed.2), index=1
  next_buf = f32[512,1024]{1,0} get-tuple-element(ifeed.2), index=0
  one = s32[] constant(1)
  next_counter = s32[] add(counter.2, one)
  ROOT tup = (s32[], token[], f32[512,1024]{0,1}) tuple(next_counter, next_tok, next_buf)
}
ENTRY main {
  start_tok = token[] after-all()
  ifeed.3 = (f32[512,1024]{0,1}, token[]) infeed(start_tok)
  itok = token[] get-tuple-element(ifeed.3), index=1
  ibuf = f32[512,1024]{0,1} get-tuple-element(ifeed.3), index=0
  zero = s32[] constant(0)
  itup = (s32[], token[], f32[512,1024]{0,1}) tuple(zero, itok, ibuf)
  loop = (s32[], token[], f32[512,1024]{0,1}) while(itup), condition=condition.1, body=body.2
  ROOT result = f32[512,1024]{0,1} get-tuple-element(loop), index=2
})";
  LayoutAssignmentStats stats;
  auto m = Assign(kText, "default", &stats);
  ASSERT_NE(m, nullptr);
  HloInstruction* loop = m->entry()->FindInstruction("loop");
  HloInstruction* element = loop->operand(0)->operand(2);
  EXPECT_EQ(element->opcode(), HloOpcode::kCopy);
  EXPECT_EQ(element->operand(0)->name(), "ibuf");
  EXPECT_EQ(LayoutOf(*m, "ibuf"), "{0,1}");
  EXPECT_EQ(PrintLayout(element->shape().layout()), "{1,0}");
  EXPECT_EQ(LayoutOf(*m, "next_buf"), "{1,0}");
  // The body's root keeps the infeed's layout: no copy runs per iteration.
  HloComputation* body = m->FindComputation("body.2");
  EXPECT_EQ(body->root()->name(), "tup");
  EXPECT_EQ(body->root()->operand(2)->name(), "next_buf");
  ASSERT_EQ(stats.copies.size(), 2u);
  for (const auto& c : stats.copies) EXPECT_FALSE(c.in_loop);
  EXPECT_EQ(stats.copies[0].bytes, 2 * 512 * 1024 * 4);
}

TEST(LayoutAssignmentTest, GatherReshapeLayoutsAsXla) {
  constexpr char kText[] = R"(
HloModule TensorFlowGather, entry_computation_layout={(f32[32,650]{1,0},s32[16,1,18]{0,1,2})->f32[16,1,18,32]{3,1,2,0}}
ENTRY %main (operand: f32[32,650], indices: s32[16,1,18]) -> f32[16,1,18,32] {
  %operand = f32[32,650]{1,0} parameter(0)
  %transpose = f32[650,32]{0,1} transpose(f32[32,650]{1,0} %operand), dimensions={1,0}
  %indices = s32[16,1,18]{0,1,2} parameter(1)
  %reshape.1 = s32[288,1]{1,0} reshape(s32[16,1,18]{0,1,2} %indices)
  %gather.1 = f32[288,1,32]{2,1,0} gather(f32[650,32]{0,1} %transpose, s32[288,1]{1,0} %reshape.1), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,32}
  ROOT %reshape.3 = f32[16,1,18,32]{3,2,1,0} reshape(f32[288,1,32]{2,1,0} %gather.1)
})";
  // (On tpu the header's untiled inputs are copied into tiles first.)
  for (const char* target : {"default", "cpu-avx2", kOptionalTiles}) {
    LayoutAssignmentStats stats;
    auto m = Assign(kText, target, &stats);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(LayoutOf(*m, "reshape.1"), "{1,0}") << target;
    EXPECT_EQ(LayoutOf(*m, "reshape.3"), "{3,1,2,0}") << target;
    EXPECT_EQ(LayoutOf(*m, "transpose"), "{0,1}") << target;
    EXPECT_EQ(stats.transposes_as_bitcast, 1);
    EXPECT_EQ(stats.reshapes_as_bitcast, 1);
    EXPECT_TRUE(stats.copies.empty());
  }
}

TEST(LayoutAssignmentTest, ResultLayoutPropagatesToOperandsAndCopiesParameter) {
  // XLA's PropagatingLayoutFromResultToOperand: the slice takes the result
  // layout and the parameter is copied.
  auto m = Assign(R"(
HloModule m, entry_computation_layout={(f32[4,5]{1,0})->f32[3,4]{0,1}}
ENTRY e {
  par0 = f32[4,5] parameter(0)
  ROOT slice0 = f32[3,4] slice(par0), slice={[1:4],[1:5]}
})",
                  "default");
  ASSERT_NE(m, nullptr);
  HloInstruction* root = m->entry()->root();
  EXPECT_EQ(root->name(), "slice0");
  EXPECT_EQ(root->operand(0)->opcode(), HloOpcode::kCopy);
  EXPECT_EQ(PrintShape(root->operand(0)->shape()), "f32[4,5]{0,1}");
}

int CopyCount(const HloModule& m) {
  int n = 0;
  for (HloComputation* c : m.computations()) {
    for (HloInstruction* i : c->instructions()) n += i->opcode() == HloOpcode::kCopy;
  }
  return n;
}

// The in-place collective-permute returns its output buffer (operand 1):
// the result takes that buffer's layout, and the input keeps its own.
TEST(LayoutAssignmentTest, InPlaceCollectivePermuteFollowsItsOutputBuffer) {
  auto m = Assign(R"(
HloModule m, entry_computation_layout={(f32[128,32]{0,1}, f32[128,128]{1,0})->f32[128,128]{1,0}}
ENTRY e {
  input = f32[128,32] parameter(0)
  output = f32[128,128] parameter(1)
  c0 = s32[] constant(0)
  at = (s32[], s32[]) tuple(c0, c0)
  ROOT cp = f32[128,128] collective-permute(input, output, at, at), source_target_pairs={{0,1},{1,0}}, slice_sizes={{128,32}}
})",
                  "default");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(CopyCount(*m), 0) << m->ToString();
  EXPECT_EQ(LayoutOf(*m, "cp"), "{1,0}");
  EXPECT_EQ(LayoutOf(*m, "input"), "{0,1}");
  EXPECT_TRUE(VerifyLayoutInvariants(*m).ok()) << VerifyLayoutInvariants(*m);
}

TEST(LayoutAssignmentTest, ReshapeOperandWithSeveralUsersCopiesNothing) {
  // XLA's ReshapeOperandHasMultipleUsers: the transpose's fixed result makes
  // the broadcast {0,1} (the transpose a bitcast); tanh reads the broadcast
  // and follows it, and broadcast2 reads tanh in any layout. No copy (the
  // pass made one before: tanh took broadcast2's wish first).
  auto m = Assign(R"(
HloModule m, entry_computation_layout={(f32[4]{0})->(f32[4,3]{1,0}, f32[2,3,4]{2,1,0})}
ENTRY e {
  param = f32[4] parameter(0)
  broadcast = f32[3,4] broadcast(param), dimensions={1}
  transpose = f32[4,3] transpose(broadcast), dimensions={1,0}
  tanh = f32[3,4] tanh(broadcast)
  broadcast2 = f32[2,3,4] broadcast(tanh), dimensions={1,2}
  ROOT tuple = (f32[4,3], f32[2,3,4]) tuple(transpose, broadcast2)
})",
                  "default");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(LayoutOf(*m, "broadcast"), "{0,1}");
  EXPECT_EQ(LayoutOf(*m, "transpose"), "{1,0}");
  EXPECT_EQ(LayoutOf(*m, "tanh"), "{0,1}");
  EXPECT_EQ(CopyCount(*m), 0);
}

TEST(LayoutAssignmentTest, ConcatenateFollowsItsLargestOperand) {
  // XLA propagates only the largest concatenate operand's layout: the small
  // operand is copied, whichever position it has.
  for (bool small_first : {true, false}) {
    const std::string a = small_first ? "f32[32,128]{1,0}" : "f32[96,128]{0,1}";
    const std::string b = small_first ? "f32[96,128]{0,1}" : "f32[32,128]{1,0}";
    auto m = Assign(absl::StrCat(
                        "HloModule m, entry_computation_layout={(", a, ", ", b,
                        ")->f32[128]{0}}\n"
                        "add { x = f32[] parameter(0)\n y = f32[] parameter(1)\n"
                        " ROOT s = f32[] add(x, y) }\n"
                        "ENTRY e {\n a = ", a.substr(0, a.find('{')), " parameter(0)\n b = ",
                        b.substr(0, b.find('{')),
                        " parameter(1)\n c = f32[128,128] concatenate(a, b), dimensions={0}\n"
                        " zero = f32[] constant(0)\n"
                        " ROOT r = f32[128] reduce(c, zero), dimensions={0}, to_apply=add\n}\n"),
                    "default");
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(LayoutOf(*m, "c"), "{0,1}") << small_first;
    ASSERT_EQ(CopyCount(*m), 1) << m->ToString();
    const HloInstruction* c = m->entry()->FindInstruction("c");
    const HloInstruction* copied = c->operand(small_first ? 0 : 1);
    EXPECT_EQ(copied->opcode(), HloOpcode::kCopy);
    EXPECT_EQ(PrintShape(copied->shape()), "f32[32,128]{0,1}");
  }
}

TEST(LayoutAssignmentTest, SlicesCopyTheOperandTheResultNeedsAsXla) {
  // A slice, dynamic-slice or pad keeps its operand's order; when the
  // result's layout is fixed otherwise, the operand is copied (XLA's
  // ChooseOperandLayoutFromOutputLayout for ops that cannot change layout).
  for (const char* op :
       {"f32[8,256] slice(a), slice={[0:8],[0:256]}",
        "f32[8,256] dynamic-slice(a, i, i), dynamic_slice_sizes={8,256}",
        "f32[8,256] pad(a, z), padding=0_0x0_0"}) {
    const bool pad = absl::StrContains(op, "pad(");
    const std::string in = pad ? "f32[8,256]" : "f32[512,256]";
    auto m = Assign(absl::StrCat("HloModule m, entry_computation_layout={(", in,
                                 "{1,0}, s32[])->f32[8,256]{0,1}}\n"
                                 "ENTRY e {\n a = ", in, " parameter(0)\n i = s32[] parameter(1)\n"
                                 " z = f32[] constant(0)\n ROOT r = ", op, "\n}\n"),
                    "default");
    ASSERT_NE(m, nullptr);
    const HloInstruction* root = m->entry()->root();
    EXPECT_EQ(root->operand(0)->opcode(), HloOpcode::kCopy) << op;
    EXPECT_EQ(CopyCount(*m), 1) << op;
  }
}

// --- Targets ----------------------------------------------------------------

constexpr char kMlp[] = R"(
HloModule mlp
ENTRY main {
  x = f32[64,256] parameter(0)
  w = f32[256,128] parameter(1)
  b = f32[128] parameter(2)
  d = f32[64,128] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[64,128] broadcast(b), dimensions={1}
  a = f32[64,128] add(d, bb)
  zero = f32[] constant(0)
  z = f32[64,128] broadcast(zero), dimensions={}
  ROOT r = f32[64,128] maximum(a, z)
})";

TEST(LayoutAssignmentTest, MlpDotIsPackedPerTarget) {
  struct Case {
    const char* target;
    const char* x;
    const char* w;
    const char* d;
  } cases[] = {
      {"default", "{1,0}", "{1,0}", "{1,0}"},
      {"tpu", "{1,0:T(8,128)}", "{1,0:T(8,128)}", "{1,0:T(8,128)}"},
      {"cpu-avx2", "{1,0:T(8,1)}", "{0,1:T(8,1)}", "{1,0:T(8,8)}"},
      {"cpu-avx512", "{1,0:T(16,1)}", "{0,1:T(16,1)}", "{1,0:T(16,16)}"},
      {"arm64", "{1,0:T(8,1)}", "{0,1:T(8,1)}", "{1,0:T(8,8)}"},
  };
  for (const Case& c : cases) {
    LayoutAssignmentStats stats;
    auto m = Assign(kMlp, c.target, &stats);
    ASSERT_NE(m, nullptr);
    // No entry layout: the parameters take the packed layouts, no copies.
    EXPECT_EQ(LayoutOf(*m, "x"), c.x) << c.target;
    EXPECT_EQ(LayoutOf(*m, "w"), c.w) << c.target;
    EXPECT_EQ(LayoutOf(*m, "d"), c.d) << c.target;
    EXPECT_EQ(LayoutOf(*m, "r"), c.d) << c.target;
    EXPECT_TRUE(stats.copies.empty()) << c.target;
    ASSERT_TRUE(m->entry_computation_layout().has_value());
    EXPECT_EQ(PrintShape(m->entry_computation_layout()->parameters[0]),
              absl::StrCat("f32[64,256]", c.x));
  }
}

// One attention head group: scores q.k^T over [b,h,s,d], then p.v.
constexpr char kAttention[] = R"(
HloModule attention
ENTRY main {
  q = f32[2,4,32,32] parameter(0)
  k = f32[2,4,32,32] parameter(1)
  v = f32[2,4,32,32] parameter(2)
  s = f32[2,4,32,32] dot(q, k), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, rhs_contracting_dims={3}
  c = f32[] constant(0.125)
  cb = f32[2,4,32,32] broadcast(c), dimensions={}
  sc = f32[2,4,32,32] multiply(s, cb)
  p = f32[2,4,32,32] exponential(sc)
  ROOT o = f32[2,4,32,32] dot(p, v), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, rhs_contracting_dims={2}
})";

TEST(LayoutAssignmentTest, BatchedDotsArePackedWithBatchDimsOutermost) {
  LayoutAssignmentStats stats;
  auto m = Assign(kAttention, "cpu-avx512", &stats);
  ASSERT_NE(m, nullptr);
  const HloInstruction* s = m->entry()->FindInstruction("s");
  const HloInstruction* o = m->entry()->FindInstruction("o");
  // Rows (s; t for k) tiled 16 per contracting index d, the batch dims
  // b, h major; v's free dim d is its rows, so d is tiled over t.
  EXPECT_EQ(PrintShape(s->operand(0)->shape()), "f32[2,4,32,32]{3,2,1,0:T(16,1)}");
  EXPECT_EQ(PrintShape(s->operand(1)->shape()), "f32[2,4,32,32]{3,2,1,0:T(16,1)}");
  EXPECT_EQ(PrintShape(s->shape()), "f32[2,4,32,32]{3,2,1,0:T(16,16)}");
  EXPECT_EQ(PrintShape(o->operand(0)->shape()), "f32[2,4,32,32]{3,2,1,0:T(16,1)}");
  EXPECT_EQ(PrintShape(o->operand(1)->shape()), "f32[2,4,32,32]{2,3,1,0:T(16,1)}");
  // Each operand is read once per 16-wide block of a 32-wide result: twice.
  ASSERT_EQ(stats.packing.size(), 4u);
  for (const auto& p : stats.packing) {
    EXPECT_TRUE(p.packed) << p.dot << " " << p.operand << ": " << p.why;
    EXPECT_EQ(p.reads, 2) << p.dot << " " << p.operand;
  }
}

TEST(LayoutAssignmentTest, BatchedMatrixVectorAndSingleReadsAreNotPacked) {
  // Per batch [1,64] x [64,32]: the rhs is a matrix-vector product's
  // matrix, read once; the lhs is read twice (32 columns, n0 = 16) but its
  // one row would pad to 16 (padding ratio 16 > 1.5).
  LayoutAssignmentStats stats;
  auto m = Assign(R"(
HloModule bmv
ENTRY main {
  x = f32[4,1,64] parameter(0)
  w = f32[4,64,32] parameter(1)
  ROOT y = f32[4,1,32] dot(x, w), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
})", "cpu-avx512", &stats);
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(stats.packing.size(), 2u);
  EXPECT_EQ(stats.packing[0].operand, "lhs");
  EXPECT_FALSE(stats.packing[0].packed);
  EXPECT_EQ(stats.packing[0].why, "the tiles would pad too much");
  EXPECT_EQ(stats.packing[1].operand, "rhs");
  EXPECT_FALSE(stats.packing[1].packed);
  EXPECT_EQ(stats.packing[1].why, "a matrix-vector product reads each element once");
  EXPECT_EQ(LayoutOf(*m, "w"), "{2,1,0}");
}

TEST(LayoutAssignmentTest, PinnedEntryLayoutPacksWithCopies) {
  std::string text = kMlp;
  text.replace(text.find("HloModule mlp"), 13,
               "HloModule mlp, entry_computation_layout={(f32[64,256]{1,0}, "
               "f32[256,128]{1,0}, f32[128]{0})->f32[64,128]{1,0}}");
  LayoutAssignmentStats stats;
  auto m = Assign(text, "cpu-avx2", &stats);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(LayoutOf(*m, "x"), "{1,0}");
  EXPECT_EQ(LayoutOf(*m, "d"), "{1,0:T(8,8)}");
  HloInstruction* d = m->entry()->FindInstruction("d");
  EXPECT_EQ(PrintShape(d->operand(0)->shape()), "f32[64,256]{1,0:T(8,1)}");
  EXPECT_EQ(PrintShape(d->operand(1)->shape()), "f32[256,128]{0,1:T(8,1)}");
  // Pack x, pack w, and unpack the result once, before the elementwise tail
  // that already computes in the result's layout.
  std::multiset<std::string> reasons;
  for (const auto& c : stats.copies) reasons.insert(c.reason);
  EXPECT_EQ(reasons, (std::multiset<std::string>{"dot operand packing",
                                                 "dot operand packing",
                                                 "elementwise operand"}));
  EXPECT_EQ(LayoutOf(*m, "a"), "{1,0}");
  EXPECT_EQ(PrintShape(m->entry()->root()->shape()), "f32[64,128]{1,0}");
}

TEST(LayoutAssignmentTest, PaddingRefusesTiling) {
  LayoutAssignmentStats stats;
  auto m = Assign(R"(
HloModule m
ENTRY e {
  p = u32[12582912,1] parameter(0)
  ROOT n = u32[12582912,1] not(p)
})",
                  kOptionalTiles, &stats);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(LayoutOf(*m, "n"), "{1,0}");
  ASSERT_FALSE(stats.tilings_refused.empty());
  EXPECT_NEAR(stats.tilings_refused[0].second, 128.0, 1e-9);
  EXPECT_EQ(stats.padded_bytes, stats.data_bytes);
}

TEST(LayoutAssignmentTest, SizeOneDimMovesMajorToKeepTiles) {
  auto m = Assign(R"(
HloModule m
ENTRY e {
  p = f32[1280,1,128] parameter(0)
  ROOT n = f32[1280,1,128] negate(p)
})",
                  kOptionalTiles);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(LayoutOf(*m, "n"), "{2,0,1:T(8,128)}");
}

// A variadic reduce's inputs share one layout. On a target that requires
// tiles, two pinned untiled inputs both get the tiled copy the tie asks for
// (the first input's order): the first may not take the least padded copy
// an unbound reader would get ({0,1:T(1,128)} for f32[1000,3]).
TEST(LayoutAssignmentTest, VariadicReduceInputsGetOneTiledLayout) {
  auto m = Assign(R"(
HloModule m, entry_computation_layout={(f32[1000,3]{1,0}, f32[1000,3]{1,0})->(f32[3]{0}, f32[3]{0})}
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = f32[] parameter(2)
  d = f32[] parameter(3)
  m0 = f32[] maximum(a, c)
  m1 = f32[] maximum(b, d)
  ROOT t = (f32[], f32[]) tuple(m0, m1)
}
ENTRY e {
  p0 = f32[1000,3]{1,0} parameter(0)
  p1 = f32[1000,3]{1,0} parameter(1)
  z = f32[] constant(0)
  ROOT r = (f32[3]{0}, f32[3]{0}) reduce(p0, p1, z, z), dimensions={0}, to_apply=max
})",
                  "tpu");
  ASSERT_NE(m, nullptr);
  const HloInstruction* r = m->entry()->root();
  EXPECT_EQ(PrintShape(r->operand(0)->shape()), "f32[1000,3]{1,0:T(8,128)}");
  EXPECT_EQ(PrintShape(r->operand(1)->shape()), "f32[1000,3]{1,0:T(8,128)}");
  // A single reader of the same input takes the least padded copy.
  auto single = Assign(R"(
HloModule m, entry_computation_layout={(f32[1000,3]{1,0})->f32[3]{0}}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p0 = f32[1000,3]{1,0} parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[3]{0} reduce(p0, z), dimensions={0}, to_apply=add
})",
                       "tpu");
  ASSERT_NE(single, nullptr);
  EXPECT_EQ(PrintShape(single->entry()->root()->operand(0)->shape()),
            "f32[1000,3]{0,1:T(1,128)}");
}

TEST(LayoutAssignmentTest, TransposeBecomesBitcast) {
  LayoutAssignmentStats stats;
  auto m = Assign(R"(
HloModule m, entry_computation_layout={(f32[32,650]{1,0})->f32[650,32]{0,1}}
ENTRY e {
  p = f32[32,650] parameter(0)
  t = f32[650,32] transpose(p), dimensions={1,0}
  ROOT n = f32[650,32] negate(t)
})",
                  "default", &stats);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(LayoutOf(*m, "t"), "{0,1}");
  EXPECT_EQ(OpcodeOf(*m, "t"), HloOpcode::kBitcast);
  EXPECT_EQ(stats.transposes_as_bitcast, 1);
  EXPECT_TRUE(stats.copies.empty());
}

// The benchmark chain, 300 links: each link's two transposes become
// bitcasts in place, one after another while the walk goes on (the second
// reads the first's bitcast), and so does the root. Every use must point at
// the instruction of its name in the computation, and every operand list
// agree with the users lists, or a replaced instruction is still referred to.
TEST(LayoutAssignmentTest, ChainOfTransposesBecomesBitcastsWithEveryUse) {
  constexpr int kLinks = 300;
  std::string text =
      "HloModule chain\nENTRY main {\n  x.0 = f32[64,256] parameter(0)\n"
      "  w = f32[256,256] parameter(1)\n";
  for (int k = 0; k < kLinks; ++k) {
    absl::StrAppend(&text, "  d.", k, " = f32[64,256] dot(x.", k,
                    ", w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n  t.", k,
                    " = f32[256,64] transpose(d.", k, "), dimensions={1,0}\n  u.", k,
                    " = f32[64,256] transpose(t.", k, "), dimensions={1,0}\n  x.", k + 1,
                    " = f32[64,256] add(u.", k, ", d.", k, ")\n");
  }
  absl::StrAppend(&text, "  ROOT out = f32[256,64] transpose(x.", kLinks,
                  "), dimensions={1,0}\n}\n");
  LayoutAssignmentStats stats;
  std::unique_ptr<HloModule> m = Assign(text, "tpu", &stats);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(stats.transposes_as_bitcast, 2 * kLinks + 1);
  HloComputation* e = m->entry();
  ASSERT_EQ(e->instruction_count(), 2 + 4 * kLinks + 1);
  EXPECT_EQ(e->root(), e->FindInstruction("out"));
  EXPECT_EQ(e->root()->opcode(), HloOpcode::kBitcast);
  auto named = [&](const std::string& name, int k) {
    return e->FindInstruction(absl::StrCat(name, ".", k));
  };
  for (int k = 0; k < kLinks; ++k) {
    SCOPED_TRACE(k);
    HloInstruction* t = named("t", k);
    HloInstruction* u = named("u", k);
    ASSERT_EQ(t->opcode(), HloOpcode::kBitcast);
    ASSERT_EQ(u->opcode(), HloOpcode::kBitcast);
    EXPECT_EQ(t->operand(0), named("d", k));
    EXPECT_EQ(u->operand(0), t);
    EXPECT_EQ(named("x", k + 1)->operand(0), u);
    ASSERT_EQ(u->users().size(), 1u);
    EXPECT_EQ(u->users()[0], named("x", k + 1));
  }
  EXPECT_EQ(e->root()->operand(0), named("x", kLinks));
  for (HloInstruction* i : e->instruction_range()) {
    EXPECT_EQ(i->parent(), e) << i->name();
    for (HloInstruction* op : i->operands()) {
      EXPECT_EQ(e->FindInstruction(op->name()), op) << i->name();
      EXPECT_NE(std::find(op->users().begin(), op->users().end(), i), op->users().end())
          << i->name() << " missing from the users of " << op->name();
    }
    for (HloInstruction* user : i->users()) {
      EXPECT_NE(std::find(user->operands().begin(), user->operands().end(), i),
                user->operands().end())
          << user->name() << " listed as a user of " << i->name();
    }
  }
}

// Attention's [b,s,h*d] -> [b,s,h,d] -> [b,h,s,d] and back: where the
// layouts make them move nothing, the reshapes and transposes are rewritten
// into bitcasts (XLA's algebraic simplifier after layout assignment). On the
// packed targets the transposes into the dots move data once, straight into
// the panels, instead of a bitcast and a packing copy.
TEST(LayoutAssignmentTest, AttentionHeadTransposesAndReshapesBecomeBitcasts) {
  constexpr char kText[] = R"(
HloModule heads, entry_computation_layout={(f32[2,128,512]{2,1,0}, f32[2,128,512]{2,1,0})->f32[2,128,512]{2,1,0}}
ENTRY main {
  xq = f32[2,128,512] parameter(0)
  xk = f32[2,128,512] parameter(1)
  rq = f32[2,128,8,64] reshape(xq)
  rk = f32[2,128,8,64] reshape(xk)
  q = f32[2,8,128,64] transpose(rq), dimensions={0,2,1,3}
  k = f32[2,8,128,64] transpose(rk), dimensions={0,2,1,3}
  s = f32[2,8,128,128] dot(q, k), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, rhs_contracting_dims={3}
  o = f32[2,8,128,64] dot(s, k), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, rhs_contracting_dims={2}
  ot = f32[2,128,8,64] transpose(o), dimensions={0,2,1,3}
  ROOT y = f32[2,128,512] reshape(ot)
})";
  for (const char* target : {"default", "cpu-avx2", "cpu-avx512", "arm64"}) {
    LayoutAssignmentStats stats;
    auto m = Assign(kText, target, &stats);
    ASSERT_NE(m, nullptr);
    for (const char* name : {"rq", "rk", "y"}) {
      EXPECT_EQ(OpcodeOf(*m, name), HloOpcode::kBitcast) << target << " " << name;
    }
    EXPECT_EQ(stats.reshapes_as_bitcast, 3) << target;
    const bool packed = std::string(target) != "default";
    const HloOpcode moved = packed ? HloOpcode::kTranspose : HloOpcode::kBitcast;
    for (const char* name : {"q", "k", "ot"}) {
      EXPECT_EQ(OpcodeOf(*m, name), moved) << target << " " << name;
    }
    EXPECT_EQ(stats.transposes_as_bitcast, packed ? 0 : 3) << target;
    if (!packed) {
      EXPECT_EQ(LayoutOf(*m, "q"), "{3,1,2,0}");
      EXPECT_TRUE(stats.copies.empty());
    }
  }
}

TEST(LayoutAssignmentTest, ConvolutionIsChannelsLastOnCpuAndTpu) {
  constexpr char kText[] = R"(
HloModule m
ENTRY e {
  x = f32[8,128,32,32]{1,0,3,2} parameter(0)
  k = f32[128,128,3,3] parameter(1)
  ROOT c = f32[8,128,32,32] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01
})";
  LayoutAssignmentStats stats;
  auto m = Assign(kText, "cpu-avx512", &stats);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(LayoutOf(*m, "c"), "{1,3,2,0}");  // feature minor, batch major
  EXPECT_EQ(LayoutOf(*m, "k"), "{0,1,3,2}");  // o, i, then spatial
  // x comes fixed in another layout: reading it so (factor 1 x 4 MiB) is
  // cheaper than a copy (8 MiB), so the convolution reads it as it is.
  EXPECT_TRUE(stats.copies.empty());
  ASSERT_EQ(stats.convolution_reads.size(), 1u);
  EXPECT_FALSE(stats.convolution_reads[0].copied);
  EXPECT_EQ(stats.convolution_reads[0].read_cost, 4194304);
  EXPECT_EQ(stats.convolution_reads[0].copy_bytes, 8388608);
  // Where reading a foreign layout costs more than a copy, x is copied.
  TargetLayoutConfig costly = TargetConfig::Builtin("cpu-avx512")->proto();
  costly.mutable_cost_model()->set_conv_mismatch_read_factor(3);
  LayoutAssignment pass(*TargetConfig::FromProto(costly));
  auto copied = ParseTestModule(kText);
  ASSERT_TRUE(pass.Run(*copied).ok());
  ASSERT_EQ(pass.stats().copies.size(), 1u);
  EXPECT_EQ(pass.stats().copies[0].reason, "convolution operand layout");
  EXPECT_TRUE(pass.stats().convolution_reads[0].copied);
  m = Assign(kText, "tpu", &stats);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(LayoutOf(*m, "c"), "{1,3,2,0:T(8,128)}");
  m = Assign(kText, "default", &stats);
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(stats.copies.empty());  // no rule: the convolution is free
}

// Read factors per convolution class: with the depthwise forward factor at
// 6 and the rest at 1, the depthwise convolution's NCHW input is copied
// channels-last and the dense one's is read as it comes.
TEST(LayoutAssignmentTest, ConvolutionReadFactorsApplyPerClass) {
  constexpr char kText[] = R"(
HloModule m, entry_computation_layout={(f32[8,64,28,28]{3,2,1,0}, f32[8,64,28,28]{3,2,1,0})->(f32[8,64,28,28], f32[8,64,28,28])}
ENTRY e {
  x = f32[8,64,28,28] parameter(0)
  y = f32[8,64,28,28] parameter(1)
  kd = f32[64,1,3,3] constant({...})
  k = f32[64,64,3,3] constant({...})
  d = f32[8,64,28,28] convolution(x, kd), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, feature_group_count=64
  c = f32[8,64,28,28] convolution(y, k), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01
  ROOT t = (f32[8,64,28,28], f32[8,64,28,28]) tuple(d, c)
})";
  LayoutAssignment pass(*TargetConfig::FromTextProto(
      "name: \"per-class\" conv_channels_last: true cost_model { conv_mismatch_read_factor: 1 "
      "conv_read_factors { kind: DEPTHWISE pass: FORWARD read: CHANNELS_FIRST_READ factor: 6 } }",
      "t"));
  auto m = ParseTestModule(kText);
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(pass.Run(*m).ok());
  std::map<std::string, const LayoutAssignmentStats::ConvolutionRead*> reads;
  for (const auto& r : pass.stats().convolution_reads) {
    if (r.operand == 0) reads[r.conv] = &r;
  }
  ASSERT_EQ(reads.size(), 2u);
  EXPECT_TRUE(reads["d"]->copied);
  EXPECT_EQ(reads["d"]->factor, 6);
  EXPECT_EQ(reads["d"]->conv_class, "depthwise forward, channels-first read");
  EXPECT_FALSE(reads["c"]->copied);
  EXPECT_EQ(reads["c"]->factor, 1);
  EXPECT_EQ(m->entry()->FindInstruction("d")->operand(0)->opcode(), HloOpcode::kCopy);
  EXPECT_EQ(m->entry()->FindInstruction("c")->operand(0)->opcode(), HloOpcode::kParameter);
}

TEST(LayoutAssignmentTest, FusionBodyTakesFusionLayouts) {
  auto m = Assign(R"(
HloModule m, entry_computation_layout={(f32[8,16]{0,1})->f32[8,16]{0,1}}
fused {
  a = f32[8,16] parameter(0)
  ROOT e = f32[8,16] exponential(a)
}
ENTRY main {
  p = f32[8,16] parameter(0)
  ROOT f = f32[8,16] fusion(p), kind=kLoop, calls=fused
})",
                  "default");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(LayoutOf(*m, "a"), "{0,1}");
  EXPECT_EQ(LayoutOf(*m, "e"), "{0,1}");
}

TEST(LayoutAssignmentTest, ConditionalBranchesMatchTheirCaller) {
  LayoutAssignmentStats stats;
  auto m = Assign(R"(
HloModule m, entry_computation_layout={(pred[], f32[4,8]{0,1}, f32[4,8]{1,0})->f32[4,8]{1,0}}
on_true {
  x = f32[4,8] parameter(0)
  ROOT nx = f32[4,8] negate(x)
}
on_false {
  y = f32[4,8] parameter(0)
  ROOT ay = f32[4,8] abs(y)
}
ENTRY main {
  c = pred[] parameter(0)
  t = f32[4,8] parameter(1)
  f = f32[4,8] parameter(2)
  ROOT r = f32[4,8] conditional(c, t, f), true_computation=on_true, false_computation=on_false
})",
                  "default", &stats);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(LayoutOf(*m, "x"), "{0,1}");
  EXPECT_EQ(LayoutOf(*m, "r"), "{1,0}");
  // One branch computes in the other order: one copy, inside that branch.
  ASSERT_EQ(stats.copies.size(), 1u);
  EXPECT_EQ(stats.copies[0].computation, "on_true");
}

TEST(LayoutAssignmentTest, SharedWhileBodyIsClonedPerLoop) {
  // Two loops share a body but carry different layouts: each gets its own.
  LayoutAssignmentStats stats;
  auto m = Assign(R"(
HloModule m, entry_computation_layout={(f32[4,8]{0,1}, f32[4,8]{1,0})->(f32[4,8]{0,1}, f32[4,8]{1,0})}
c { p = f32[4,8] parameter(0)
    ROOT t = pred[] constant(false) }
b { q = f32[4,8] parameter(0)
    ROOT n = f32[4,8] negate(q) }
ENTRY e {
  x = f32[4,8] parameter(0)
  y = f32[4,8] parameter(1)
  w1 = f32[4,8] while(x), condition=c, body=b
  w2 = f32[4,8] while(y), condition=c, body=b
  ROOT r = (f32[4,8], f32[4,8]) tuple(w1, w2)
})",
                  "default", &stats);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(stats.computations_cloned, 2);
  EXPECT_TRUE(stats.copies.empty());
  EXPECT_EQ(LayoutOf(*m, "n"), "{0,1}");
  EXPECT_EQ(LayoutOf(*m, "n.clone"), "{1,0}");
}

TEST(FlattenCallGraphTest, NestedSharingIsUndoneLevelByLevel) {
  std::unique_ptr<HloModule> m = ParseTestModule(R"(
HloModule m
inner { a = f32[4] parameter(0)
        ROOT e = f32[4] exponential(a) }
outer { o = f32[4] parameter(0)
        ROOT f = f32[4] fusion(o), kind=kLoop, calls=inner }
add { l = f32[] parameter(0)
      r = f32[] parameter(1)
      ROOT s = f32[] add(l, r) }
ENTRY e0 {
  x = f32[4] parameter(0)
  c1 = f32[4] call(x), to_apply=outer
  c2 = f32[4] call(c1), to_apply=outer
  z = f32[] constant(0)
  r1 = f32[] reduce(c1, z), dimensions={0}, to_apply=add
  ROOT r2 = f32[] reduce(c2, z), dimensions={0}, to_apply=add
})");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<int> cloned = FlattenCallGraph(*m);
  ASSERT_TRUE(cloned.ok()) << cloned.status();
  EXPECT_EQ(*cloned, 2);  // outer once, then inner once; `add` stays shared
  EXPECT_TRUE(VerifyModule(*m).ok()) << VerifyModule(*m);
  EXPECT_NE(m->FindComputation("outer.clone"), nullptr);
  EXPECT_NE(m->FindComputation("inner.clone"), nullptr);
  EXPECT_EQ(m->FindComputation("add.clone"), nullptr);
  absl::StatusOr<int> again = FlattenCallGraph(*m);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, 0);
}

TEST(FlattenCallGraphTest, ClonesTakeTheFirstFreeCloneNames) {
  // `outer.clone` is an instruction's name already, so the two clones of
  // `outer` are `.clone.1` and `.clone.2`; instructions in the clones are
  // renamed the same way.
  std::unique_ptr<HloModule> m = ParseTestModule(R"(
HloModule m
outer { o = f32[4] parameter(0)
        ROOT e = f32[4] exponential(o) }
ENTRY e0 {
  x = f32[4] parameter(0)
  outer.clone = f32[4] call(x), to_apply=outer
  c2 = f32[4] call(outer.clone), to_apply=outer
  ROOT c3 = f32[4] call(c2), to_apply=outer
})");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<int> cloned = FlattenCallGraph(*m);
  ASSERT_TRUE(cloned.ok()) << cloned.status();
  EXPECT_EQ(*cloned, 2);
  EXPECT_TRUE(VerifyModule(*m).ok()) << VerifyModule(*m);
  EXPECT_EQ(m->FindComputation("outer.clone"), nullptr);
  EXPECT_NE(m->FindComputation("outer.clone.1"), nullptr);
  EXPECT_NE(m->FindComputation("outer.clone.2"), nullptr);
  const std::string text = m->ToString();
  EXPECT_NE(text.find("o.clone = f32[4]"), std::string::npos) << text;
  EXPECT_NE(text.find("o.clone.1 = f32[4]"), std::string::npos) << text;
}

TEST(LayoutAssignmentTest, OptionsAndStats) {
  LayoutAssignment pass;
  absl::StatusOr<PassOptionValues> tpu = CheckPassOptions(pass, {{"target", "tpu"}});
  ASSERT_TRUE(tpu.ok()) << tpu.status();
  EXPECT_TRUE(pass.Configure(*tpu).ok());
  EXPECT_EQ(pass.target().name(), "tpu");
  EXPECT_THAT(std::string(CheckPassOptions(pass, {{"target", "gpu"}}).status().message()),
              HasSubstr("unknown target 'gpu'"));
  EXPECT_THAT(std::string(CheckPassOptions(pass, {{"colour", "red"}}).status().message()),
              HasSubstr("pass 'layout-assignment' has no option 'colour'; its "
                        "options: target, target-file"));
  absl::StatusOr<PassOptionValues> missing =
      CheckPassOptions(pass, {{"target-file", "/no/such/target.textproto"}});
  ASSERT_TRUE(missing.ok());
  EXPECT_THAT(std::string(pass.Configure(*missing).message()),
              HasSubstr("cannot open target file"));
  EXPECT_EQ(pass.target().name(), "tpu");  // a failed Configure keeps the target
  auto m = ParseTestModule(kMlp);
  ASSERT_TRUE(pass.Run(*m).ok());
  EXPECT_THAT(pass.StatsReport(false), HasSubstr("7  {1,0:T(8,128)}"));
  EXPECT_THAT(pass.StatsReport(true), HasSubstr("\"target\":\"tpu\""));
}

// --- Property: random modules -------------------------------------------------

// Random f32 modules of adds, negates, copies, transposes, reshapes,
// broadcasts, reductions, slices, dots and while loops (some sharing a
// body, which the pass clones), on dims that fill and overfill tiles, with
// dim orders written on a third of the values and sometimes an entry
// layout.
RandomModuleOptions PassModuleOptions() {
  RandomModuleOptions o;
  o.element_types = {"f32"};
  o.dim_sizes = {1, 2, 3, 8, 16, 128, 130};
  o.max_ops = 16;
  o.ops = {RandomOp::kBinary,  RandomOp::kBinary,    RandomOp::kTranspose,
           RandomOp::kReshape, RandomOp::kBroadcast, RandomOp::kReduce,
           RandomOp::kSlice,   RandomOp::kDot,       RandomOp::kCopy,
           RandomOp::kWhile,   RandomOp::kNegate};
  o.binary_ops = {"add"};
  o.dot_sizes = {1, 8, 16, 24, 128};
  o.broadcast_size = 8;
  o.reshape_inserts_unit_dim = true;
  o.written_layout_one_in = 3;
  o.parameters_write_layouts = true;
  o.entry_layout_one_in = 3;
  o.tiled_layouts = false;
  o.loops_share_bodies = true;
  return o;
}

bool SamePhysical(const Shape& a, const Shape& b) {
  if (a.IsTuple() != b.IsTuple()) return false;
  if (a.IsTuple()) {
    if (a.tuple_shapes().size() != b.tuple_shapes().size()) return false;
    for (size_t k = 0; k < a.tuple_shapes().size(); ++k) {
      if (!SamePhysical(a.tuple_shapes()[k], b.tuple_shapes()[k])) return false;
    }
    return true;
  }
  if (!a.IsArray() || a.rank() == 0) return Shape::Equal().IgnoreLayout()(a, b);
  return Shape::Equal().IgnoreLayout()(a, b) &&
         SamePhysicalLayout(a, a.layout(), b.layout());
}

// Checks the agreements the pass promises: elementwise operands match their
// result, tuple and while operands match the shapes they feed.
void ExpectConsistent(const HloModule& m) {
  for (HloComputation* c : m.computations()) {
    for (HloInstruction* i : c->instructions()) {
      auto expect_same = [&](const Shape& a, const Shape& b) {
        EXPECT_TRUE(SamePhysical(a, b)) << PrintShape(a) << " vs " << PrintShape(b)
                                        << " at " << i->name();
      };
      if (i->opcode() == HloOpcode::kAdd || i->opcode() == HloOpcode::kNegate) {
        for (HloInstruction* op : i->operands()) expect_same(op->shape(), i->shape());
      }
      if (i->opcode() == HloOpcode::kWhile) {
        expect_same(i->operand(0)->shape(), i->shape());
        expect_same(i->called_computation("body")->root()->shape(), i->shape());
      }
      if (i->opcode() == HloOpcode::kTuple) {
        for (int k = 0; k < i->operand_count(); ++k) {
          expect_same(i->operand(k)->shape(), i->shape().tuple_shapes()[k]);
        }
      }
    }
  }
  const auto& entry = m.entry_computation_layout();
  ASSERT_TRUE(entry.has_value());
  EXPECT_TRUE(SamePhysical(entry->result, m.entry()->root()->shape()));
}

// An oracle for laid-out modules, written apart from the pass and from
// VerifyLayoutInvariants (which the pass runs itself): the layout rules of
// docs/layout-assignment.md as a table by opcode name.
enum class LayoutRule {
  kElementwise,       // an array operand of the result's element width has its layout
  kTupleElements,     // element k of the result has operand k's layout
  kTupleElementRead,  // the result has the layout of the element it reads
  kLoopState,         // operand, result, body parameter and root, condition parameter
};

const std::map<std::string, LayoutRule>& LayoutRuleTable() {
  static const std::map<std::string, LayoutRule> kTable = {
      {"abs", LayoutRule::kElementwise},       {"add", LayoutRule::kElementwise},
      {"and", LayoutRule::kElementwise},       {"ceil", LayoutRule::kElementwise},
      {"clamp", LayoutRule::kElementwise},     {"divide", LayoutRule::kElementwise},
      {"exponential", LayoutRule::kElementwise}, {"floor", LayoutRule::kElementwise},
      {"log", LayoutRule::kElementwise},       {"maximum", LayoutRule::kElementwise},
      {"minimum", LayoutRule::kElementwise},   {"multiply", LayoutRule::kElementwise},
      {"negate", LayoutRule::kElementwise},    {"not", LayoutRule::kElementwise},
      {"or", LayoutRule::kElementwise},        {"power", LayoutRule::kElementwise},
      {"remainder", LayoutRule::kElementwise}, {"rsqrt", LayoutRule::kElementwise},
      {"select", LayoutRule::kElementwise},    {"sign", LayoutRule::kElementwise},
      {"sqrt", LayoutRule::kElementwise},      {"subtract", LayoutRule::kElementwise},
      {"tanh", LayoutRule::kElementwise},      {"xor", LayoutRule::kElementwise},
      {"tuple", LayoutRule::kTupleElements},
      {"get-tuple-element", LayoutRule::kTupleElementRead},
      {"while", LayoutRule::kLoopState},
  };
  return kTable;
}

// Checks every instruction of `m` against the rule table; returns how many
// rules were checked.
int ExpectLayoutsFollowTheRuleTable(const HloModule& m) {
  int checked = 0;
  auto expect_same = [&](const Shape& a, const Shape& b, const HloInstruction& at,
                         absl::string_view what) {
    EXPECT_TRUE(SamePhysical(a, b)) << at.name() << " (" << HloOpcodeString(at.opcode())
                                    << "), " << what << ": " << PrintShape(a) << " vs "
                                    << PrintShape(b);
    ++checked;
  };
  for (HloComputation* c : m.computations()) {
    for (HloInstruction* i : c->instructions()) {
      auto rule = LayoutRuleTable().find(std::string(HloOpcodeString(i->opcode())));
      if (rule == LayoutRuleTable().end()) continue;
      switch (rule->second) {
        case LayoutRule::kElementwise:
          for (const HloInstruction* op : i->operands()) {
            const Shape& s = op->shape();
            if (!s.IsArray() || s.rank() == 0 ||
                PrimitiveBitWidth(s.element_type()) !=
                    PrimitiveBitWidth(i->shape().element_type())) {
              continue;
            }
            expect_same(s, i->shape(), *i, "operand of equal width");
          }
          break;
        case LayoutRule::kTupleElements:
          for (int k = 0; k < i->operand_count(); ++k) {
            expect_same(i->operand(k)->shape(), i->shape().tuple_shapes()[k], *i, "element");
          }
          break;
        case LayoutRule::kTupleElementRead: {
          const Shape& tuple = i->operand(0)->shape();
          const int64_t index = *i->attributes().index();
          expect_same(tuple.tuple_shapes()[index], i->shape(), *i, "element read");
          break;
        }
        case LayoutRule::kLoopState: {
          const HloComputation* body = i->called_computation("body");
          const HloComputation* condition = i->called_computation("condition");
          expect_same(i->operand(0)->shape(), i->shape(), *i, "operand");
          expect_same(body->root()->shape(), i->shape(), *i, "body root");
          expect_same(body->parameters()[0]->shape(), i->shape(), *i, "body parameter");
          expect_same(condition->parameters()[0]->shape(), i->shape(), *i,
                      "condition parameter");
          break;
        }
      }
    }
  }
  return checked;
}

// The oracle itself catches a break: an elementwise operand in another
// layout than its result's, as no laid-out module has it.
HloModule* oracle_subject = nullptr;  // EXPECT_NONFATAL_FAILURE sees no locals

TEST(LayoutRuleTableTest, CatchesAnOperandInAnotherLayout) {
  std::unique_ptr<HloModule> m = ParseTestModule(R"(HloModule m
ENTRY e {
  p = f32[4,8]{0,1} parameter(0)
  ROOT n = f32[4,8]{1,0} negate(p)
})");
  ASSERT_NE(m, nullptr);
  oracle_subject = m.get();
  EXPECT_NONFATAL_FAILURE(ExpectLayoutsFollowTheRuleTable(*oracle_subject),
                          "operand of equal width");
  oracle_subject = nullptr;
}

// Every corpus module on every target: the pass succeeds (it checks the
// layout invariants itself), the result verifies with the invariants, a
// second run changes nothing, and the layouts follow the rule table above.
TEST(LayoutAssignmentTest, CorpusOnEveryTargetKeepsTheInvariants) {
  std::optional<std::string> dir = HloCorpusDir();
  if (!dir) GTEST_SKIP() << "no HLO corpus (XLA_LAYOUT_NO_CORPUS)";
  absl::StatusOr<std::vector<CorpusFile>> corpus = ReadHloCorpus(*dir);
  ASSERT_TRUE(corpus.ok()) << corpus.status();
  int checked = 0;
  for (const CorpusFile& file : *corpus) {
    for (const std::string& target : TargetConfig::BuiltinNames()) {
      SCOPED_TRACE(absl::StrCat(file.relative, " on ", target));
      std::unique_ptr<HloModule> m = Assign(file.text, target, nullptr, CorpusParseOptions(file));
      ASSERT_NE(m, nullptr);
      EXPECT_TRUE(VerifyLayoutInvariants(*m).ok()) << VerifyLayoutInvariants(*m);
      checked += ExpectLayoutsFollowTheRuleTable(*m);
    }
  }
  // The corpus reaches the rules (MobileNet alone has thousands of
  // elementwise ops).
  EXPECT_GT(checked, 1000);
}

TEST(LayoutAssignmentPropertyTest, RandomModulesVerifyAndAreIdempotent) {
  const RandomModuleOptions options = PassModuleOptions();
  int modules = 0, copies = 0, cloned = 0;
  for (uint64_t seed = 0; seed < 1000; ++seed) {
    std::string text = RandomHloModule(seed, options);
    absl::StatusOr<std::unique_ptr<HloModule>> parsed = ParseHloModule(text, "random.hlo");
    ASSERT_TRUE(parsed.ok()) << parsed.status() << "\n" << text;
    if (!VerifyModule(**parsed).ok()) continue;  // e.g. a pinned tuple mismatch
    ++modules;
    for (const char* target : {"default", "tpu", "cpu-avx2", "cpu-avx512"}) {
      SCOPED_TRACE(absl::StrCat("seed ", seed, " target ", target, "\n", text));
      LayoutAssignmentStats stats;
      std::unique_ptr<HloModule> m = Assign(text, target, &stats);
      ASSERT_NE(m, nullptr);
      ExpectConsistent(*m);
      copies += stats.copies.size();
      cloned += stats.computations_cloned;
      if (HasFailure()) return;
    }
  }
  EXPECT_GT(modules, 900);
  EXPECT_GT(copies, 50);  // the modules do exercise copy insertion
  EXPECT_GT(cloned, 20);  // and call-graph flattening
}

// At the target table's bounds (the slowest rate, the largest read factor)
// the largest byte count still costs a finite time, in microseconds too.
TEST(LayoutAssignmentTest, CostsAtTheTargetTableBoundsStayFinite) {
  const std::string rate = absl::StrCat(kMinCopyGbps);
  absl::StatusOr<TargetConfig> edge = TargetConfig::FromTextProto(
      absl::StrCat("name: \"edge\" cost_model { conv_mismatch_read_factor: ",
                   kMaxConvMismatchReadFactor, " copy_throughput { contiguous_gbps: ", rate,
                   " tile_gbps: ", rate, " transpose_gbps: ", rate, " subbyte_gbps: ", rate,
                   " } }"),
      "edge");
  ASSERT_TRUE(edge.ok()) << edge.status();
  layout_assignment::LayoutCostModel cost(*edge);
  for (CopyClass c : {CopyClass::kContiguous, CopyClass::kTile, CopyClass::kTranspose,
                      CopyClass::kSubByte}) {
    std::optional<double> seconds = cost.CopySeconds(INT64_MAX, c);
    ASSERT_TRUE(seconds.has_value());
    EXPECT_TRUE(std::isfinite(*seconds * 1e6)) << *seconds;
    EXPECT_TRUE(std::isfinite(cost.CopyCost(INT64_MAX, c) * 1e6));
  }
  EXPECT_TRUE(std::isfinite(cost.ReadCost(INT64_MAX, kMaxConvMismatchReadFactor) * 1e6));
}


// --- tpu: tiles are required ---------------------------------------------

// Whether every array of rank >= 1 outside fusion bodies has tiles.
std::vector<std::string> Untiled(const HloModule& m) {
  std::vector<std::string> out;
  std::set<const HloComputation*> fused;
  for (HloComputation* c : m.computations()) {
    for (HloInstruction* i : c->instructions()) {
      if (i->opcode() != HloOpcode::kFusion) continue;
      for (const auto& called : i->called_computations()) fused.insert(called.computation);
    }
  }
  for (HloComputation* c : m.computations()) {
    if (fused.count(c)) continue;
    for (HloInstruction* i : c->instructions()) {
      if (i->shape().IsArray() && i->shape().rank() > 0 &&
          i->shape().layout().tiles().empty()) {
        out.push_back(i->name());
      }
    }
  }
  return out;
}

// An optimizer step as frameworks write it (the shape of a BERT step): no
// entry layout, and an all-reduce of the gradients with
// constrain_layout=true written in the default layouts. On tpu those fix
// the order only; every array gets the target's tiles, and nothing is
// copied.
TEST(RequiredTilesTest, ConstrainedLayoutsWithoutTilesFixTheOrderOnly) {
  constexpr char kText[] = R"(
HloModule step
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  w = f32[30522,16]{1,0} parameter(0)
  g = f32[30522,16]{1,0} parameter(1)
  bias = f32[16]{0} parameter(2)
  gb = f32[16]{0} parameter(3)
  ar = (f32[30522,16]{1,0}, f32[16]{0}) all-reduce(g, gb), replica_groups={}, constrain_layout=true, to_apply=sum
  g0 = f32[30522,16]{1,0} get-tuple-element(ar), index=0
  g1 = f32[16]{0} get-tuple-element(ar), index=1
  w1 = f32[30522,16]{1,0} subtract(w, g0)
  b1 = f32[16]{0} subtract(bias, g1)
  ROOT t = (f32[30522,16]{1,0}, f32[16]{0}) tuple(w1, b1)
})";
  LayoutAssignmentStats stats;
  auto m = Assign(kText, "tpu", &stats);
  ASSERT_NE(m, nullptr);
  EXPECT_THAT(Untiled(*m), ::testing::IsEmpty());
  // 30522 rows are a multiple of 2, not of 8: (2,128) pads least.
  EXPECT_EQ(LayoutOf(*m, "g0"), "{1,0:T(2,128)}");
  EXPECT_EQ(LayoutOf(*m, "w1"), "{1,0:T(2,128)}");
  // 16 elements: the small 1-D tile pads least (256 slots, not 1024).
  EXPECT_EQ(LayoutOf(*m, "b1"), "{0:T(256)}");
  EXPECT_TRUE(stats.copies.empty());
  // A constraint written with tiles stays exact.
  std::string tiled = kText;
  absl::StrReplaceAll({{"ar = (f32[30522,16]{1,0}", "ar = (f32[30522,16]{1,0:T(4,128)}"}},
                      &tiled);
  auto exact = Assign(tiled, "tpu");
  ASSERT_NE(exact, nullptr);
  EXPECT_EQ(LayoutOf(*exact, "g0"), "{1,0:T(4,128)}");
}

// Free values take the order and tile variant that pad least, never none:
// f32[30522,16] row-major would pad 8x; u32[12582912,1] and f32[2,1000] fit
// a tile variant whose rows match.
TEST(RequiredTilesTest, FreeValuesTakeTheLeastPaddedOrderAndVariant) {
  LayoutAssignmentStats stats;
  auto m = Assign(R"(
HloModule m
ENTRY e {
  a = f32[30522,16] parameter(0)
  na = f32[30522,16] negate(a)
  b = u32[12582912,1] parameter(1)
  nb = u32[12582912,1] not(b)
  c = f32[2,1000] parameter(2)
  nc = f32[2,1000] negate(c)
  d = bf16[3] parameter(3)
  ROOT t = (f32[30522,16], u32[12582912,1], f32[2,1000], bf16[3]) tuple(na, nb, nc, d)
})",
                  "tpu", &stats);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(LayoutOf(*m, "na"), "{0,1:T(8,128)}");
  EXPECT_EQ(LayoutOf(*m, "nb"), "{0,1:T(1,128)}");
  EXPECT_EQ(LayoutOf(*m, "nc"), "{1,0:T(2,128)}");
  EXPECT_EQ(LayoutOf(*m, "d"), "{0:T(512)}");
  EXPECT_TRUE(stats.tilings_refused.empty());
  EXPECT_THAT(Untiled(*m), ::testing::IsEmpty());
}

// Inputs the pass may not change, untiled: the header's parameter, an
// infeed's data, a custom call's result. Each is copied into tiles once, at
// its first use, and the copies count as "tiling required"; a custom
// call's operand constraint written without tiles gets the target's.
TEST(RequiredTilesTest, PinnedUntiledInputsAreCopiedAtTheirFirstUse) {
  LayoutAssignmentStats stats;
  auto m = Assign(R"(
HloModule m, entry_computation_layout={(f32[64,256]{1,0})->(f32[64,256], f32[64,256], f32[8,128], f32[8,128])}
ENTRY e {
  p = f32[64,256] parameter(0)
  n = f32[64,256] negate(p)
  x = f32[64,256] exponential(p)
  tok = token[] after-all()
  in = (f32[8,128]{0,1}, token[]) infeed(tok)
  d = f32[8,128]{0,1} get-tuple-element(in), index=0
  nd = f32[8,128] negate(d)
  cc = f32[8,128]{0,1} custom-call(nd), custom_call_target="f", operand_layout_constraints={f32[8,128]{0,1}}
  ROOT t = (f32[64,256], f32[64,256], f32[8,128], f32[8,128]) tuple(n, x, nd, cc)
})",
                  "tpu", &stats);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(LayoutOf(*m, "p"), "{1,0}");
  EXPECT_EQ(LayoutOf(*m, "n"), "{1,0:T(8,128)}");
  HloInstruction* n = m->entry()->FindInstruction("n");
  HloInstruction* x = m->entry()->FindInstruction("x");
  ASSERT_EQ(n->operand(0)->opcode(), HloOpcode::kCopy);
  EXPECT_EQ(n->operand(0), x->operand(0));  // one copy, shared
  EXPECT_EQ(LayoutOf(*m, "d"), "{0,1}");
  EXPECT_EQ(LayoutOf(*m, "nd"), "{0,1:T(8,128)}");
  EXPECT_EQ(LayoutOf(*m, "cc"), "{0,1}");
  std::map<std::string, int> reasons;
  for (const auto& c : stats.copies) ++reasons[c.reason];
  EXPECT_EQ(reasons["tiling required"], 3);  // p, d and cc
  EXPECT_EQ(stats.copies.size(), 3u);
}

// A pinned NCHW image with 3 channels and a pinned OIHW 1x1 weight, as a
// training step hands them over: each is copied into tiles once, into the
// layout that pads least where its readers allow. Channels-last, the image
// would pad 3 channels to 128 lanes (42x); the weight, in its own order
// under T(1,128), 128x (its minor dims are 1 and 1).
TEST(RequiredTilesTest, PinnedConvolutionInputsAreCopiedOnceWithLeastPadding) {
  LayoutAssignmentStats stats;
  auto m = Assign(R"(
HloModule m, entry_computation_layout={(f32[16,3,64,64]{3,2,1,0}, f32[256,3,1,1]{3,2,1,0})->(f32[16,256,64,64], f32[1,1,3,256])}
ENTRY e {
  x = f32[16,3,64,64] parameter(0)
  w = f32[256,3,1,1] parameter(1)
  c = f32[16,256,64,64] convolution(x, w), window={size=1x1}, dim_labels=bf01_oi01->bf01
  t = f32[1,1,3,256] transpose(w), dimensions={2,3,1,0}
  ROOT r = (f32[16,256,64,64], f32[1,1,3,256]) tuple(c, t)
})",
                  "tpu", &stats);
  ASSERT_NE(m, nullptr);
  std::map<std::string, int> per_value;
  int64_t bytes = 0;
  for (const auto& copy : stats.copies) {
    if (copy.reason != "tiling required") continue;
    ++per_value[copy.operand];
    bytes += copy.bytes;
  }
  EXPECT_EQ(per_value["x"], 1);
  EXPECT_EQ(per_value["w"], 1);  // the transpose reads the convolution's copy
  HloInstruction* t = m->entry()->FindInstruction("t");
  HloInstruction* c = m->entry()->FindInstruction("c");
  EXPECT_EQ(t->operand(0), c->operand(1));
  // x: 786432 bytes, copied in NCHW order with (8,128) tiles (64 lanes of
  // 128: 2x, against 42x channels-last); w: 3072 bytes, copied to
  // {0,1,3,2:T(1,128)} (256 lanes, 3 rows: no padding).
  EXPECT_EQ(LayoutOf(*m, c->operand(0)->name()), "{3,2,1,0:T(8,128)}");
  EXPECT_EQ(LayoutOf(*m, "t"), "{1,0,2,3:T(1,128)}");
  EXPECT_EQ(bytes, 786432 + 2 * 786432 + 2 * 3072);
  ASSERT_EQ(stats.convolution_reads.size(), 2u);
  EXPECT_FALSE(stats.convolution_reads[0].copied);  // x: read in NCHW tiles
  EXPECT_TRUE(stats.convolution_reads[1].copied);   // w: copied as preferred
}

// --- XLA's outcomes, written as our own minimal modules -----------------

// XLA: a fusion's parameter and its get-tuple-elements take the operand's
// layouts, whatever they are; fused ops read them through the index math.
TEST(LayoutAssignmentTest, FusionTupleParameterTakesTheOperandsLayouts) {
  LayoutAssignmentStats stats;
  auto m = Assign(R"(
HloModule m, entry_computation_layout={((f32[2,2,2]{0,1,2}, (f32[2,2,2]{1,2,0}, f32[2,2,2]{2,0,1})))->f32[2,2,2]{2,1,0}}
fused {
  p = (f32[2,2,2], (f32[2,2,2], f32[2,2,2])) parameter(0)
  a = f32[2,2,2] get-tuple-element(p), index=0
  inner = (f32[2,2,2], f32[2,2,2]) get-tuple-element(p), index=1
  b = f32[2,2,2] get-tuple-element(inner), index=0
  c = f32[2,2,2] get-tuple-element(inner), index=1
  ab = f32[2,2,2] add(a, b)
  ROOT abc = f32[2,2,2] add(ab, c)
}
ENTRY e {
  t = (f32[2,2,2], (f32[2,2,2], f32[2,2,2])) parameter(0)
  ROOT f = f32[2,2,2] fusion(t), kind=kLoop, calls=fused
})",
                  "default", &stats);
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(stats.copies.empty());
  EXPECT_EQ(LayoutOf(*m, "p"),
            "(f32[2,2,2]{0,1,2}, (f32[2,2,2]{1,2,0}, f32[2,2,2]{2,0,1}))");
  EXPECT_EQ(LayoutOf(*m, "a"), "{0,1,2}");
  EXPECT_EQ(LayoutOf(*m, "inner"), "(f32[2,2,2]{1,2,0}, f32[2,2,2]{2,0,1})");
  EXPECT_EQ(LayoutOf(*m, "b"), "{1,2,0}");
  EXPECT_EQ(LayoutOf(*m, "c"), "{2,0,1}");
  EXPECT_EQ(LayoutOf(*m, "abc"), "{2,1,0}");
}

// A matrix-vector product reads each element of its matrix once: even a
// table that always packs (min_dot_operand_reads 0) leaves the parameter
// rhs of a constant f32[1,k] lhs where it is.
TEST(LayoutAssignmentTest, MatrixVectorWithConstantLhsPacksNothing) {
  constexpr char kAlwaysPack[] =
      "name: \"always-pack\" dot_tilings { element_type: F32 m0: 8 n0: 8 k0: 1 } "
      "cost_model { max_padding_ratio: 1.5 min_dot_operand_reads: 0 }";
  LayoutAssignmentStats stats;
  auto m = Assign(R"(
HloModule m, entry_computation_layout={(f32[64,32]{1,0})->f32[1,32]{1,0}}
ENTRY e {
  v = f32[1,64] constant({...})
  w = f32[64,32] parameter(0)
  ROOT y = f32[1,32] dot(v, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
                  kAlwaysPack, &stats);
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(stats.copies.empty());
  ASSERT_EQ(stats.packing.size(), 2u);
  EXPECT_FALSE(stats.packing[1].packed);
  EXPECT_EQ(stats.packing[1].why, "a matrix-vector product reads each element once");
  EXPECT_EQ(LayoutOf(*m, "w"), "{1,0}");
}

// Physically the same, written otherwise ({1,0} and {0,1} of f32[1,24]):
// XLA's layout-sensitive verifier compares a tuple's elements with its
// operands as written, so the pass writes them equal.
TEST(LayoutAssignmentTest, DegenerateTupleElementIsWrittenAsItsOperand) {
  auto m = Assign(R"(
HloModule m
ENTRY e {
  p = f32[1,24]{0,1} parameter(0)
  n = f32[1,24]{0,1} negate(p)
  ROOT t = (f32[1,24]{1,0}) tuple(n)
})",
                  "default");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(LayoutOf(*m, "n"), "{0,1}");
  EXPECT_EQ(LayoutOf(*m, "t"), "(f32[1,24]{0,1})");
}

// An async-start runs its wrapped computation like a call: the wrapped
// parameters take the operands' layouts, the start's result element the
// root's, and the done reads it. Before, the wrapped convolution's
// parameter was tiled otherwise than its operand on tpu.
TEST(LayoutAssignmentTest, AsyncWrappedComputationTakesItsOperandsLayouts) {
  auto m = Assign(R"(
HloModule m
ENTRY e {
  i = f32[1,4,4,1]{2,3,1,0} parameter(0)
  k = f32[1,1,1,1] parameter(1)
  vs = ((f32[1,4,4,1], f32[1,1,1,1]), f32[1,4,4,1]) convolution-start(i, k), window={size=1x1}, dim_labels=b01f_01io->b01f
  ROOT vd = f32[1,4,4,1] convolution-done(vs)
})",
                  "tpu");
  ASSERT_NE(m, nullptr);
  const HloInstruction* start = nullptr;
  for (HloInstruction* i : m->entry()->instructions()) {
    if (i->opcode() == HloOpcode::kAsyncStart) start = i;
  }
  ASSERT_NE(start, nullptr);
  const HloComputation* wrapped = start->called_computation("calls");
  ASSERT_NE(wrapped, nullptr);
  EXPECT_EQ(PrintShape(wrapped->parameters()[0]->shape()), PrintShape(start->operand(0)->shape()));
  EXPECT_EQ(PrintShape(start->shape().tuple_shapes()[1]), PrintShape(wrapped->root()->shape()));
}

}  // namespace
}  // namespace xla_layout
