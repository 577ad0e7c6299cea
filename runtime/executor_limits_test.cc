// The executor's bounds: bytes checked before anything is allocated, one
// work budget for the whole run, and no machine-stack recursion over
// computations.
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_verifier.h"
#include "runtime/executor.h"

namespace xla_layout::runtime {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

std::unique_ptr<HloModule> Parse(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text, "t.hlo");
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return nullptr;
  absl::Status v = VerifyModule(**m);
  EXPECT_TRUE(v.ok()) << v;
  return v.ok() ? *std::move(m) : nullptr;
}

std::string CreateError(const std::string& text, ExecutorOptions options) {
  std::unique_ptr<HloModule> m = Parse(text);
  if (m == nullptr) return "<parse error>";
  absl::StatusOr<std::unique_ptr<Executor>> e = Executor::Create(*m, options);
  return e.ok() ? "<created>" : std::string(e.status().message());
}

TEST(ExecutorLimitsTest, BuffersCountAgainstMaxBytes) {
  ExecutorOptions small;
  small.max_bytes = 1 << 20;
  EXPECT_THAT(CreateError("HloModule t\n\nENTRY e {\n  p = f32[1024,1024] parameter(0)\n"
                          "  ROOT r = f32[1024,1024] negate(p)\n}\n",
                          small),
              AllOf(HasSubstr("needs at least"), HasSubstr("over the executor's limit of 1048576"),
                    HasSubstr("--max-memory")));
}

// The index tables of s8[600000000] alone would be 4.8 GB: the limit is
// checked before they are built.
TEST(ExecutorLimitsTest, HugeArraysAreRefusedBeforeAllocating) {
  ExecutorOptions tiny;
  tiny.max_bytes = 1000;
  EXPECT_THAT(CreateError("HloModule t\n\nENTRY e {\n  ROOT i = s8[600000000] iota(), "
                          "iota_dimension=0\n}\n",
                          tiny),
              AllOf(HasSubstr("i (iota)"), HasSubstr("over the executor's limit of 1000")));
  EXPECT_THAT(CreateError("HloModule t\n\nENTRY e {\n  ROOT p = f32[200000000] parameter(0)\n}\n",
                          tiny),
              AllOf(HasSubstr("p (parameter)"), HasSubstr("inputs")));
}

TEST(ExecutorLimitsTest, TooLargeForTheMachineSaysSo) {
  ExecutorOptions unlimited;
  unlimited.max_bytes = int64_t{1} << 62;
  EXPECT_THAT(CreateError("HloModule t\n\nENTRY e {\n  ROOT i = s8[35184372088832] iota(), "
                          "iota_dimension=0\n}\n",
                          unlimited),
              AllOf(HasSubstr("too large for this machine"), HasSubstr("bytes")));
}

// Two nested loops of a million iterations each: each loop alone is under
// any per-loop limit; the run's budget stops them together.
TEST(ExecutorLimitsTest, NestedLoopsCountEveryIteration) {
  const std::string text = R"(HloModule t

inner_cond {
  p = s32[] parameter(0)
  n = s32[] constant(1000000)
  ROOT lt = pred[] compare(p, n), direction=LT
}

inner_body {
  p = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT next = s32[] add(p, one)
}

outer_cond {
  p = s32[] parameter(0)
  n = s32[] constant(1000000)
  ROOT lt = pred[] compare(p, n), direction=LT
}

outer_body {
  p = s32[] parameter(0)
  z = s32[] constant(0)
  w = s32[] while(z), condition=inner_cond, body=inner_body
  one = s32[] constant(1)
  ROOT next = s32[] add(p, one)
}

ENTRY e {
  z = s32[] constant(0)
  ROOT w = s32[] while(z), condition=outer_cond, body=outer_body
}
)";
  std::unique_ptr<HloModule> m = Parse(text);
  ASSERT_NE(m, nullptr);
  ExecutorOptions options;
  options.max_work = 100000;
  absl::StatusOr<std::unique_ptr<Executor>> e = Executor::Create(*m, options);
  ASSERT_TRUE(e.ok()) << e.status();
  absl::Status run = (*e)->Run({}).status();
  EXPECT_EQ(run.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(run.message()),
              AllOf(HasSubstr("work budget of 100000"), HasSubstr("--max-work")));
  EXPECT_GT((*e)->stats().work, 0);
}

// A dot in a loop body counts its multiply-adds on every iteration.
TEST(ExecutorLimitsTest, DotsInLoopsCountEveryIteration) {
  const std::string text = R"(HloModule t

cond {
  p = (s32[], f32[64,64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  p = (s32[], f32[64,64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[64,64] get-tuple-element(p), index=1
  d = f32[64,64] dot(x, x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  one = s32[] constant(1)
  next = s32[] add(i, one)
  ROOT t = (s32[], f32[64,64]) tuple(next, d)
}

ENTRY e {
  z = s32[] constant(0)
  zero = f32[] constant(0)
  x = f32[64,64] broadcast(zero), dimensions={}
  t = (s32[], f32[64,64]) tuple(z, x)
  ROOT w = (s32[], f32[64,64]) while(t), condition=cond, body=body
}
)";
  std::unique_ptr<HloModule> m = Parse(text);
  ASSERT_NE(m, nullptr);
  ExecutorOptions enough;
  absl::StatusOr<std::unique_ptr<Executor>> e = Executor::Create(*m, enough);
  ASSERT_TRUE(e.ok()) << e.status();
  ASSERT_TRUE((*e)->Run({}).ok());
  // 10 iterations x (64^3 multiply-adds + 64^2 elements written).
  EXPECT_GT((*e)->stats().work, 10 * (64 * 64 * 64 + 64 * 64));
  ExecutorOptions five_dots;
  five_dots.max_work = 5 * (64 * 64 * 64 + 2 * 64 * 64);
  e = Executor::Create(*m, five_dots);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ((*e)->Run({}).status().code(), absl::StatusCode::kResourceExhausted);
}

// 10,000 computations, each calling the next: the interpreter keeps its
// frames on the heap.
TEST(ExecutorLimitsTest, LongCallChainsRun) {
  const int kChain = 10000;
  std::string text = "HloModule t\n\nc0 {\n  p = s32[] parameter(0)\n  one = s32[] constant(1)\n"
                     "  ROOT r = s32[] add(p, one)\n}\n\n";
  for (int k = 1; k < kChain; ++k) {
    absl::StrAppend(&text, "c", k, " {\n  p = s32[] parameter(0)\n  ROOT r = s32[] call(p), to_apply=c",
                    k - 1, "\n}\n\n");
  }
  absl::StrAppend(&text, "ENTRY e {\n  z = s32[] constant(41)\n  ROOT r = s32[] call(z), to_apply=c",
                  kChain - 1, "\n}\n");
  std::unique_ptr<HloModule> m = Parse(text);
  ASSERT_NE(m, nullptr);
  absl::StatusOr<std::vector<LogicalArray>> out = RunLogical(*m, {});
  ASSERT_TRUE(out.ok()) << out.status();
  int32_t v;
  std::memcpy(&v, out->at(0).bytes.data(), 4);
  EXPECT_EQ(v, 42);
}

// The bytes checked are the run's peak: a value is dropped after its last
// reader, so a chain of 100 4 MB steps needs about three of them at once,
// not 100; a tuple holding its elements keeps them alive.
TEST(ExecutorLimitsTest, TheLimitIsOnThePeakNotTheSum) {
  std::string text = "HloModule t\n\nENTRY e {\n  v0 = f32[1048576] parameter(0)\n";
  for (int k = 1; k <= 100; ++k) {
    absl::StrAppend(&text, "  v", k, " = f32[1048576] negate(v", k - 1, ")\n");
  }
  absl::StrAppend(&text, "  ROOT r = f32[1048576] negate(v100)\n}\n");
  ExecutorOptions limit;
  limit.max_bytes = 40 << 20;
  EXPECT_EQ(CreateError(text, limit), "<created>");
  std::string held = text;
  held.replace(held.find("  ROOT r = f32[1048576] negate(v100)"), 36,
               "  ROOT r = (f32[1048576], f32[1048576], f32[1048576], f32[1048576], "
               "f32[1048576], f32[1048576], f32[1048576], f32[1048576], f32[1048576], "
               "f32[1048576]) tuple(v1, v11, v21, v31, v41, v51, v61, v71, v81, v91)");
  EXPECT_THAT(CreateError(held, limit), HasSubstr("buffers at their peak"));
  std::unique_ptr<HloModule> m = Parse(text);
  ASSERT_NE(m, nullptr);
  LogicalArray input{m->entry()->parameters()[0]->shape(), std::vector<uint8_t>(4 << 20)};
  absl::StatusOr<std::vector<LogicalArray>> out = RunLogical(*m, {input}, limit);
  ASSERT_TRUE(out.ok()) << out.status();
}

}  // namespace
}  // namespace xla_layout::runtime
