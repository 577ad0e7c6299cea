#include "passes/hlo_pass.h"

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"

namespace xla_layout {
namespace {

using ::testing::HasSubstr;

constexpr char kModule[] = R"(HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  dead = f32[4] abs(p), metadata={op_name="x"}
  ROOT n = f32[4] negate(p), metadata={op_name="y"}
})";

class CountingPass : public HloPass {
 public:
  absl::string_view name() const override { return "counting"; }
  absl::string_view description() const override { return "test pass"; }
  absl::StatusOr<bool> Run(HloModule&) override { return false; }
};

TEST(PassRegistryTest, RegisterListCreate) {
  PassRegistry registry;
  ASSERT_TRUE(registry.Register("counting", "test pass",
                                [] { return std::make_unique<CountingPass>(); })
                  .ok());
  EXPECT_THAT(registry.Register("counting", "again", nullptr).message(),
              HasSubstr("pass 'counting' is already registered"));
  EXPECT_EQ(registry.List().size(), 1u);
  EXPECT_TRUE(registry.Create("counting").ok());
  EXPECT_THAT(registry.Create("nope").status().message(),
              HasSubstr("unknown pass 'nope'; known passes: counting"));
}

TEST(PassPipelineTest, BuiltinDceRunsAndVerifies) {
  EXPECT_FALSE(PassRegistry::Global().List().empty());
  absl::StatusOr<PassPipeline> pipeline = PassPipeline::Parse("dce");
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  std::unique_ptr<HloModule> m = *ParseHloModule(kModule);
  PipelineOptions options;
  options.verify_each = true;
  EXPECT_EQ(*pipeline->Run(*m, options), true);
  EXPECT_EQ(m->entry()->FindInstruction("dead"), nullptr);
  EXPECT_EQ(*pipeline->Run(*m, options), false);  // idempotent
  EXPECT_THAT(PassPipeline::Parse("dce,,dce").status().message(),
              HasSubstr("empty pass name"));
}

class OptionsPass : public HloPass {
 public:
  absl::string_view name() const override { return "opts"; }
  absl::string_view description() const override { return "takes options"; }
  absl::StatusOr<bool> Run(HloModule&) override { return false; }
  std::vector<PassOption> options() const override {
    return {{"n", PassOption::Type::kInt, "N", "a count", {}},
            {"fast", PassOption::Type::kBool, "BOOL", "a switch", {}},
            {"mode", PassOption::Type::kChoice, "MODE", "a choice", {"a", "b"}}};
  }
  absl::Status Configure(const PassOptionValues& values) override {
    if (values.GetInt("n") == 13) return absl::NotFoundError("13 names nothing");
    seen = values;
    return absl::OkStatus();
  }
  PassOptionValues seen;
};

TEST(PipelineSpecTest, NamesAndOptions) {
  absl::StatusOr<PipelineSpec> spec =
      PipelineSpec::Parse("dce, opts{n=3, fast=true} ,flatten-call-graph{}");
  ASSERT_TRUE(spec.ok()) << spec.status();
  ASSERT_EQ(spec->elements.size(), 3u);
  EXPECT_EQ(spec->elements[1].pass, "opts");
  ASSERT_EQ(spec->elements[1].options.size(), 2u);
  EXPECT_EQ(spec->elements[1].options[0],
            (std::pair<std::string, std::string>("n", "3")));
  EXPECT_EQ(spec->elements[1].options[1].second, "true");
  EXPECT_TRUE(spec->elements[2].options.empty());
  EXPECT_THAT(PipelineSpec::Parse("opts{n=3").status().message(),
              HasSubstr("unclosed '{' after pass 'opts'"));
  EXPECT_THAT(PipelineSpec::Parse("opts{n}").status().message(),
              HasSubstr("option 'n' of pass 'opts' needs the form key=value"));
  EXPECT_THAT(PipelineSpec::Parse("opts{n=1}dce").status().message(),
              HasSubstr("expected ',' after pass 'opts'"));
  EXPECT_THAT(PipelineSpec::Parse("").status().message(), HasSubstr("empty pass name"));
}

TEST(PassOptionsTest, CheckedAgainstTheDeclaration) {
  OptionsPass pass;
  absl::StatusOr<PassOptionValues> v =
      CheckPassOptions(pass, {{"n", "-7"}, {"fast", "false"}, {"mode", "b"}});
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->GetInt("n"), -7);
  EXPECT_EQ(v->GetBool("fast"), false);
  EXPECT_EQ(v->GetString("mode"), "b");
  EXPECT_EQ(v->GetString("n"), std::nullopt);  // typed: an int is no string
  EXPECT_THAT(CheckPassOptions(pass, {{"colour", "red"}}).status().message(),
              HasSubstr("pass 'opts' has no option 'colour'; its options: n, fast, mode"));
  EXPECT_THAT(CheckPassOptions(pass, {{"n", "three"}}).status().message(),
              HasSubstr("pass 'opts': option 'n' needs an integer, not 'three'"));
  EXPECT_THAT(CheckPassOptions(pass, {{"fast", "no"}}).status().message(),
              HasSubstr("option 'fast' is true or false, not 'no'"));
  EXPECT_THAT(CheckPassOptions(pass, {{"mode", "c"}}).status().message(),
              HasSubstr("unknown mode 'c'; known modes: a, b"));
  EXPECT_THAT(CheckPassOptions(pass, {{"n", ""}}).status().message(),
              HasSubstr("option 'n' needs a value"));
  CountingPass plain;
  EXPECT_THAT(CheckPassOptions(plain, {{"n", "1"}}).status().message(),
              HasSubstr("pass 'counting' has no option 'n'; it takes none"));
}

TEST(PassPipelineTest, CreateChecksUsageAndConfigureChecksInput) {
  PassRegistry registry;
  ASSERT_TRUE(registry.Register("opts", "takes options", [] {
    return std::make_unique<OptionsPass>();
  }).ok());
  absl::StatusOr<std::vector<PassOption>> declared = registry.Options("opts");
  ASSERT_TRUE(declared.ok());
  EXPECT_EQ(declared->size(), 3u);
  EXPECT_EQ(registry.List()[0].options.size(), 3u);
  absl::StatusOr<PassPipeline> bad =
      PassPipeline::Create(*PipelineSpec::Parse("opts{n=x}"), registry);
  EXPECT_THAT(bad.status().message(), HasSubstr("needs an integer"));
  absl::StatusOr<PassPipeline> p =
      PassPipeline::Create(*PipelineSpec::Parse("opts{n=13}"), registry);
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(absl::IsNotFound(p->Configure()));
  absl::StatusOr<PassPipeline> good = PassPipeline::Parse("opts{mode=a}", registry);
  ASSERT_TRUE(good.ok()) << good.status();
  const auto* pass = static_cast<const OptionsPass*>(good->passes()[0].get());
  EXPECT_EQ(pass->seen.GetString("mode"), "a");
}

TEST(PassPluginTest, LoadsRegistersAndRejects) {
  PassRegistry registry;
  std::string dir = "passes/plugins/";
  ASSERT_TRUE(LoadPassPlugin(dir + "strip_metadata_plugin.so", registry).ok());
  absl::StatusOr<std::unique_ptr<HloPass>> pass = registry.Create("strip-metadata");
  ASSERT_TRUE(pass.ok());
  std::unique_ptr<HloModule> m = *ParseHloModule(kModule);
  EXPECT_TRUE(*(*pass)->Run(*m));
  EXPECT_THAT(m->ToString(), ::testing::Not(HasSubstr("metadata")));
  EXPECT_THAT(LoadPassPlugin(dir + "strip_metadata_plugin.so", registry).message(),
              HasSubstr("pass 'strip-metadata' is already registered"));
  EXPECT_THAT(LoadPassPlugin(dir + "wrong_version_plugin.so", registry).message(),
              HasSubstr(absl::StrCat("speaks plugin API version 999; this "
                                     "hlo-layout needs version ",
                                     kPassPluginApiVersion)));
  EXPECT_THAT(LoadPassPlugin("/no/such/plugin.so", registry).message(),
              HasSubstr("cannot load pass plugin /no/such/plugin.so"));
}

// A pipeline tells each pass whether its statistics will be read, and a
// plugin's pass hears it across the boundary: the layout pass built as a
// plugin skips its census when nothing will print it, and keeps the rest.
TEST(PassPluginTest, PipelineForwardsWhetherStatsAreCollected) {
  PassRegistry registry;
  ASSERT_TRUE(LoadPassPlugin("passes/layout_assignment/layout_assignment_plugin.so",
                             registry)
                  .ok());
  for (bool collect : {true, false}) {
    absl::StatusOr<PassPipeline> pipeline =
        PassPipeline::Parse("layout-assignment-plugin{target=tpu}", registry);
    ASSERT_TRUE(pipeline.ok()) << pipeline.status();
    std::unique_ptr<HloModule> m = *ParseHloModule(R"(HloModule m
ENTRY e {
  p = f32[16,128] parameter(0)
  ROOT t = f32[128,16] transpose(p), dimensions={1,0}
})");
    PipelineOptions options;
    options.collect_stats = collect;
    ASSERT_TRUE(pipeline->Run(*m, options).ok());
    EXPECT_EQ(pipeline->passes()[0]->collect_stats(), collect);
    const std::string report = pipeline->passes()[0]->StatsReport(/*json=*/true);
    EXPECT_THAT(report, HasSubstr("\"target\":\"tpu\""));
    EXPECT_THAT(report, HasSubstr(collect ? "\"data_bytes\":16384" : "\"data_bytes\":0,"));
  }
}

// Exceptions stop at the plugin boundary: each becomes an error naming the
// plugin (before, each of these ended in std::terminate or a call into data).
TEST(PassPluginTest, ExceptionsAndDataSymbolsStopAtTheBoundary) {
  std::string dir = "passes/plugins/";
  {
    PassRegistry registry;
    CustomCallKernelRegistry kernels;
    std::string lib = dir + "bad_throw_in_pass_plugin.so";
    ASSERT_TRUE(LoadPassPlugin(lib, registry, kernels).ok());
    std::shared_ptr<const CustomCallKernel> kernel = kernels.Find("Throwing");
    ASSERT_NE(kernel, nullptr);
    EXPECT_THAT((*kernel)({}, {}).message(),
                HasSubstr("pass plugin " + lib +
                          ": the kernel for Throwing threw exception: thrown from the kernel"));
    absl::StatusOr<std::unique_ptr<HloPass>> pass = registry.Create("throwing");
    ASSERT_TRUE(pass.ok());
    std::unique_ptr<HloModule> m = *ParseHloModule(kModule);
    absl::StatusOr<bool> ran = (*pass)->Run(*m);
    ASSERT_FALSE(ran.ok());
    EXPECT_THAT(ran.status().message(),
                HasSubstr("pass plugin " + lib + ": Run() threw exception: thrown from the pass"));
  }
  {
    PassRegistry registry;
    std::string lib = dir + "bad_throw_in_register_plugin.so";
    EXPECT_THAT(LoadPassPlugin(lib, registry).message(),
                HasSubstr("registration threw exception: thrown from registration"));
  }
  {
    PassRegistry registry;
    std::string lib = dir + "bad_data_version_plugin.so";
    EXPECT_THAT(LoadPassPlugin(lib, registry).message(),
                HasSubstr("xla_layout_pass_plugin_api_version must be a function, not data"));
  }
}

}  // namespace
}  // namespace xla_layout
