#include "passes/hlo_pass.h"

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
              HasSubstr("speaks plugin API version 999; this hlo-layout needs "
                        "version 1"));
  EXPECT_THAT(LoadPassPlugin("/no/such/plugin.so", registry).message(),
              HasSubstr("cannot load pass plugin /no/such/plugin.so"));
}

}  // namespace
}  // namespace xla_layout
