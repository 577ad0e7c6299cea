#include "runtime/custom_call.h"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_verifier.h"
#include "passes/custom_call_kernels.h"
#include "runtime/executor.h"
#include "runtime/logical.h"
#include "xla_layout/shape_text.h"

namespace xla_layout::runtime {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<HloModule> Parse(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text, "t.hlo");
  EXPECT_TRUE(m.ok()) << m.status() << "\n" << text;
  if (!m.ok()) return nullptr;
  absl::Status v = VerifyModule(**m);
  EXPECT_TRUE(v.ok()) << v << "\n" << text;
  return v.ok() ? *std::move(m) : nullptr;
}

// f32[4,6] in row-major order: 0, 0.5, 1, ...
LogicalArray Ramp(const std::string& shape = "f32[4,6]") {
  LogicalArray a;
  a.shape = *ParseShape(shape);
  std::vector<float> v(a.shape.dimensions(0) * a.shape.dimensions(1));
  for (size_t k = 0; k < v.size(); ++k) v[k] = 0.5f * k;
  a.bytes.resize(v.size() * 4);
  std::memcpy(a.bytes.data(), v.data(), a.bytes.size());
  return a;
}

std::vector<float> Floats(const LogicalArray& a) {
  std::vector<float> out(a.bytes.size() / 4);
  std::memcpy(out.data(), a.bytes.data(), a.bytes.size());
  return out;
}

// One custom call of `target` on a parameter in layout `in`, its result in
// layout `out`.
std::string CallModule(const std::string& target, const std::string& in = "{1,0}",
                       const std::string& out = "{1,0}", const std::string& result = "f32[4,6]") {
  return absl::StrCat("HloModule t, entry_computation_layout={(f32[4,6]", in, ")->", result, out,
                      "}\n\nENTRY e {\n  p = f32[4,6]", in, " parameter(0)\n  ROOT c = ", result,
                      out, " custom-call(p), custom_call_target=\"", target, "\"\n}\n");
}

struct Outcome {
  std::vector<LogicalArray> outputs;
  ExecutionStats stats;
};
Outcome RunWith(const std::string& text, const LogicalArray& input) {
  std::unique_ptr<HloModule> m = Parse(text);
  Outcome o;
  if (m == nullptr) return o;
  absl::StatusOr<std::vector<LogicalArray>> out = RunLogical(*m, {input}, {}, &o.stats);
  EXPECT_TRUE(out.ok()) << out.status();
  if (out.ok()) o.outputs = *std::move(out);
  return o;
}

TEST(CustomCallTest, StandInIsRepeatableAndInRange) {
  Outcome a = RunWith(CallModule("VendorKernel"), Ramp());
  Outcome b = RunWith(CallModule("VendorKernel"), Ramp());
  ASSERT_EQ(a.outputs.size(), 1u);
  EXPECT_EQ(a.outputs[0].bytes, b.outputs[0].bytes);
  EXPECT_EQ(a.stats.stand_in_calls, 1);
  int distinct = 0;
  std::vector<float> v = Floats(a.outputs[0]);
  for (size_t k = 0; k < v.size(); ++k) {
    EXPECT_GE(v[k], -1.0f);
    EXPECT_LT(v[k], 1.0f);
    EXPECT_EQ(v[k] * 256, std::floor(v[k] * 256));  // k/256 - 1
    distinct += k > 0 && v[k] != v[k - 1];
  }
  EXPECT_GT(distinct, 10);
}

// The stand-in reads logical values: the layouts of its operand and result
// change nothing, a different value or target changes the results.
TEST(CustomCallTest, StandInSeesLogicalValuesOnly) {
  const std::vector<uint8_t> want = RunWith(CallModule("VendorKernel"), Ramp()).outputs[0].bytes;
  for (const auto& [in, out] : {std::pair<std::string, std::string>{"{0,1}", "{1,0}"},
                                {"{1,0}", "{0,1}"},
                                {"{1,0:T(2,4)}", "{0,1:T(4,2)}"}}) {
    EXPECT_EQ(RunWith(CallModule("VendorKernel", in, out), Ramp()).outputs[0].bytes, want)
        << in << " " << out;
  }
  LogicalArray changed = Ramp();
  changed.bytes[4 * 23] ^= 1;  // the last element's lowest bit
  EXPECT_NE(RunWith(CallModule("VendorKernel"), changed).outputs[0].bytes, want);
  EXPECT_NE(RunWith(CallModule("OtherKernel"), Ramp()).outputs[0].bytes, want);
}

TEST(CustomCallTest, StandInFillsEveryLeafOfATuple) {
  Outcome o = RunWith(CallModule("Multi", "{1,0}", "", "(f32[2,3]{0,1}, s32[5], u8[3], pred[4])"),
                      Ramp());
  ASSERT_EQ(o.outputs.size(), 4u);
  std::vector<int32_t> s(5);
  std::memcpy(s.data(), o.outputs[1].bytes.data(), 20);
  for (int32_t x : s) {
    EXPECT_GE(x, -8);
    EXPECT_LT(x, 8);
  }
  for (uint8_t x : o.outputs[2].bytes) EXPECT_LT(x, 16);
  for (uint8_t x : o.outputs[3].bytes) EXPECT_LE(x, 1);
}

TEST(CustomCallTest, ExecutorNamesItsStandIns) {
  std::unique_ptr<HloModule> m = Parse(CallModule("VendorKernel"));
  ASSERT_NE(m, nullptr);
  absl::StatusOr<std::unique_ptr<Executor>> e = Executor::Create(*m);
  ASSERT_TRUE(e.ok()) << e.status();
  ASSERT_EQ((*e)->StandInCalls().size(), 1u);
  EXPECT_EQ((*e)->StandInCalls()[0]->name(), "c");
  EXPECT_TRUE(RunsAsStandIn(*m->entry()->root()));
  EXPECT_EQ(CustomCallTarget(*m->entry()->root()), "VendorKernel");
}

// A kernel registered for the target runs instead of the stand-in, on
// logical arrays, whatever the layouts.
TEST(CustomCallTest, RegisteredKernelTakesPrecedence) {
  CustomCallKernelRegistry& registry = CustomCallKernelRegistry::Global();
  ASSERT_TRUE(registry
                  .Register("TestNegate",
                            [](absl::Span<const KernelArray> in, absl::Span<KernelArray> out) {
                              for (size_t k = 0; k < in[0].bytes.size(); k += 4) {
                                out[0].bytes[k] = in[0].bytes[k];
                                out[0].bytes[k + 1] = in[0].bytes[k + 1];
                                out[0].bytes[k + 2] = in[0].bytes[k + 2];
                                out[0].bytes[k + 3] = in[0].bytes[k + 3] ^ 0x80;
                              }
                              return absl::OkStatus();
                            })
                  .ok());
  EXPECT_THAT(registry.Register("TestNegate", [](auto, auto) { return absl::OkStatus(); })
                  .message(),
              HasSubstr("custom-call target 'TestNegate' already has a kernel"));
  for (const auto& [in, out] : {std::pair<std::string, std::string>{"{1,0}", "{1,0}"},
                                {"{0,1}", "{1,0:T(2,4)}"}}) {
    Outcome o = RunWith(CallModule("TestNegate", in, out), Ramp());
    ASSERT_EQ(o.outputs.size(), 1u);
    EXPECT_EQ(o.stats.stand_in_calls, 0);
    std::vector<float> v = Floats(o.outputs[0]);
    EXPECT_EQ(v[0], -0.0f);
    EXPECT_TRUE(std::signbit(v[0]));
    EXPECT_EQ(v[7], -3.5f);
    EXPECT_EQ(v[23], -11.5f);
  }
  std::unique_ptr<HloModule> m = Parse(CallModule("TestNegate"));
  EXPECT_FALSE(RunsAsStandIn(*m->entry()->root()));
}

TEST(CustomCallTest, KernelErrorsNameTheCall) {
  CustomCallKernelRegistry& registry = CustomCallKernelRegistry::Global();
  ASSERT_TRUE(registry
                  .Register("TestFails",
                            [](auto, auto) { return absl::InvalidArgumentError("no f32"); })
                  .ok());
  ASSERT_TRUE(registry
                  .Register("TestResizes",
                            [](absl::Span<const KernelArray>, absl::Span<KernelArray> out) {
                              out[0].bytes.resize(3);
                              return absl::OkStatus();
                            })
                  .ok());
  EXPECT_THAT(registry.Register("", [](auto, auto) { return absl::OkStatus(); }).message(),
              HasSubstr("needs a target name"));
  for (const auto& [target, message] :
       {std::pair<std::string, std::string>{"TestFails", "c (custom-call TestFails): no f32"},
        {"TestResizes", "c (custom-call TestResizes): the kernel returned 3 bytes for result 0"}}) {
    std::unique_ptr<HloModule> m = Parse(CallModule(target));
    absl::StatusOr<std::vector<LogicalArray>> out = RunLogical(*m, {Ramp()});
    EXPECT_THAT(out.status().message(), HasSubstr(message));
  }
}

}  // namespace
}  // namespace xla_layout::runtime
