// The example pass plugin registers a reference GELU for AwsNeuronGelu; once
// it is loaded, the executor runs that kernel instead of the stand-in. (A
// test binary of its own: the kernel registry is global.)
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_verifier.h"
#include "passes/hlo_pass.h"
#include "runtime/executor.h"
#include "xla_layout/shape_text.h"

namespace xla_layout::runtime {
namespace {

constexpr char kGelu[] = R"(HloModule g, entry_computation_layout={(f32[2,3]{L})->f32[2,3]{L}}

ENTRY e {
  p = f32[2,3]{L} parameter(0)
  ROOT c = f32[2,3]{L} custom-call(p), custom_call_target="AwsNeuronGelu", api_version=API_VERSION_ORIGINAL
}
)";

std::unique_ptr<HloModule> GeluModule(const std::string& layout) {
  std::string text = kGelu;
  for (size_t at; (at = text.find("{L}")) != std::string::npos;) text.replace(at, 3, layout);
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text, "gelu.hlo");
  EXPECT_TRUE(m.ok()) << m.status();
  EXPECT_TRUE(VerifyModule(**m).ok());
  return *std::move(m);
}

std::vector<float> RunGelu(const HloModule& m, const std::vector<float>& x, ExecutionStats& stats) {
  LogicalArray in;
  in.shape = *ParseShape("f32[2,3]");
  in.bytes.resize(x.size() * 4);
  std::memcpy(in.bytes.data(), x.data(), in.bytes.size());
  absl::StatusOr<std::vector<LogicalArray>> out = RunLogical(m, {in}, {}, &stats);
  EXPECT_TRUE(out.ok()) << out.status();
  std::vector<float> y(x.size());
  if (out.ok()) std::memcpy(y.data(), out->at(0).bytes.data(), y.size() * 4);
  return y;
}

TEST(CustomCallPluginTest, PluginGeluReplacesTheStandIn) {
  const std::vector<float> x = {-2, -1, 0, 1, 2, 0.5};
  std::unique_ptr<HloModule> m = GeluModule("{1,0}");
  ExecutionStats stats;
  const std::vector<float> stand_in = RunGelu(*m, x, stats);
  EXPECT_EQ(stats.stand_in_calls, 1);
  EXPECT_TRUE(RunsAsStandIn(*m->entry()->root()));

  PassRegistry passes;
  absl::Status loaded = LoadPassPlugin("passes/plugins/strip_metadata_plugin.so", passes);
  ASSERT_TRUE(loaded.ok()) << loaded;
  EXPECT_FALSE(RunsAsStandIn(*m->entry()->root()));
  // x/2 (1 + erf(x / sqrt 2)) = x Phi(x), Phi the standard normal CDF:
  // Phi(1) = 0.841344746068543, Phi(2) = 0.977249868051821,
  // Phi(0.5) = 0.691462461274013.
  const double want[] = {-2 * (1 - 0.977249868051821), -(1 - 0.841344746068543), 0,
                         0.841344746068543, 2 * 0.977249868051821, 0.5 * 0.691462461274013};
  for (const std::string layout : {"{1,0}", "{0,1}", "{1,0:T(2,2)}"}) {
    std::unique_ptr<HloModule> laid_out = GeluModule(layout);
    const std::vector<float> y = RunGelu(*laid_out, x, stats);
    EXPECT_EQ(stats.stand_in_calls, 0);
    for (size_t k = 0; k < x.size(); ++k) {
      EXPECT_FLOAT_EQ(y[k], static_cast<float>(want[k])) << layout << " " << k;
    }
    EXPECT_NE(y, stand_in);
  }
}

}  // namespace
}  // namespace xla_layout::runtime
