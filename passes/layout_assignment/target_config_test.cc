#include "passes/layout_assignment/target_config.h"

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla_layout/shape_text.h"

namespace xla_layout {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Shape Parse(absl::string_view text) { return *ParseShape(text); }

std::string TilesOf(const TargetConfig& t, absl::string_view shape) {
  std::string out;
  for (const Tile& tile : t.BaseTiles(Parse(shape))) out += tile.ToString();
  return out;
}

TEST(TargetConfigTest, BuiltinTablesFollowTheSpec) {
  EXPECT_THAT(TargetConfig::BuiltinNames(),
              ElementsAre("default", "tpu", "cpu-avx2", "cpu-avx512", "arm64"));
  TargetConfig tpu = *TargetConfig::Builtin("tpu");
  EXPECT_EQ(TilesOf(tpu, "f32[256,256]"), "(8,128)");
  EXPECT_EQ(TilesOf(tpu, "u32[4,4,4]"), "(8,128)");
  EXPECT_EQ(TilesOf(tpu, "bf16[256,256]"), "(8,128)(2,1)");
  EXPECT_EQ(TilesOf(tpu, "s8[256,256]"), "(8,128)(4,1)");
  EXPECT_EQ(TilesOf(tpu, "f32[256]"), "(1024)");  // rank 1: one 4 KiB tile
  EXPECT_EQ(TilesOf(tpu, "bf16[256]"), "(2048)");
  EXPECT_EQ(TilesOf(tpu, "f64[64,64]"), "(8,128)");
  EXPECT_EQ(TilesOf(tpu, "s4[64,64]"), "");  // no sub-byte rule
  EXPECT_FALSE(tpu.DotTilingFor(F32).has_value());
  // Every array of rank >= 1 of 8 to 64 bits must be tiled on tpu.
  for (const char* s : {"f32[3]", "pred[2,2]", "bf16[1,1,1]", "s64[5]", "u8[7,9]"}) {
    EXPECT_TRUE(tpu.RequiresTiles(Parse(s))) << s;
  }
  EXPECT_FALSE(tpu.RequiresTiles(Parse("f32[]")));
  EXPECT_FALSE(tpu.RequiresTiles(Parse("s4[8,8]")));
  EXPECT_FALSE(tpu.RequiresTiles(Parse("f32[?,128]")));  // nothing to tile
  // The variants, in table order: 32-bit rank 2 has four row counts.
  std::vector<std::string> variants;
  for (const std::vector<Tile>& v : tpu.TileVariants(Parse("f32[4,4]"))) {
    std::string text;
    for (const Tile& t : v) text += t.ToString();
    variants.push_back(text);
  }
  EXPECT_THAT(variants, ElementsAre("(8,128)", "(4,128)", "(2,128)", "(1,128)"));
  EXPECT_EQ(tpu.TileVariants(Parse("f32[9]")).size(), 2u);

  TargetConfig avx2 = *TargetConfig::Builtin("cpu-avx2");
  EXPECT_EQ(TilesOf(avx2, "f32[256,256]"), "");
  ASSERT_TRUE(avx2.DotTilingFor(F32).has_value());
  EXPECT_EQ(avx2.DotTilingFor(F32)->m0(), 8);
  EXPECT_EQ(TargetConfig::Builtin("cpu-avx512")->DotTilingFor(F32)->n0(), 16);
  EXPECT_FALSE(avx2.RequiresTiles(Parse("f32[256,256]")));
  EXPECT_EQ(TargetConfig::Builtin("arm64")->DotTilingFor(F32)->k0(), 1);
  EXPECT_TRUE(TargetConfig::Builtin("default")->proto().base_tilings().empty());
  EXPECT_THAT(TargetConfig::Builtin("gpu").status().message(),
              HasSubstr("unknown target 'gpu'; known targets: default, tpu"));
}

TEST(TargetConfigTest, CostModelRefusesWastefulPadding) {
  TargetConfig tpu = *TargetConfig::Builtin("tpu");
  // 128x its data: refused.
  EXPECT_DOUBLE_EQ(*TargetConfig::PaddingRatio(
                       Parse("u32[12582912,1]{1,0:T(8,128)}")),
                   128.0);
  EXPECT_FALSE(*tpu.PaddingAcceptable(Parse("u32[12582912,1]{1,0:T(8,128)}")));
  // 100x200 -> 104x256: 1.33x, accepted under 1.5.
  EXPECT_TRUE(*tpu.PaddingAcceptable(Parse("f32[100,200]{1,0:T(8,128)}")));
  EXPECT_TRUE(*TargetConfig::Builtin("default")->PaddingAcceptable(
      Parse("u32[1000,1]{1,0:T(8,128)}")));  // no limit
}

// A rule not required is the first match alone; max_rank bounds a rule.
TEST(TargetConfigTest, RequiredRulesAndMaxRank) {
  absl::StatusOr<TargetConfig> t = TargetConfig::FromTextProto(R"pb(
    name: "t"
    base_tilings { element_bits: 32 min_rank: 1 max_rank: 1 tiles { dimensions: [ 64 ] } }
    base_tilings { element_bits: 32 min_rank: 2 tiles { dimensions: [ 4, 4 ] } }
    base_tilings { element_bits: 32 min_rank: 2 tiles { dimensions: [ 2, 2 ] } }
  )pb", "t");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(TilesOf(*t, "f32[8]"), "(64)");
  EXPECT_EQ(TilesOf(*t, "f32[8,8]"), "(4,4)");
  EXPECT_FALSE(t->RequiresTiles(Parse("f32[8,8]")));
  EXPECT_EQ(t->TileVariants(Parse("f32[8,8]")).size(), 1u);
  EXPECT_THAT(TargetConfig::FromTextProto(
                  "name: \"t\" base_tilings { min_rank: 2 max_rank: 1 tiles { dimensions: [ 4 ] } }",
                  "t")
                  .status()
                  .message(),
              HasSubstr("base_tilings[0].max_rank is 1; use 0 (no limit) or at least min_rank"));
  EXPECT_THAT(TargetConfig::FromTextProto("name: \"t\" base_tilings { required: true }", "t")
                  .status()
                  .message(),
              HasSubstr("base_tilings[0] is required but has no tiles"));
}

TEST(TargetConfigTest, ExampleFileLoads) {
  absl::StatusOr<TargetConfig> t =
      TargetConfig::FromFile("examples/targets/my_target.textproto");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->name(), "my-accelerator");
  EXPECT_EQ(TilesOf(*t, "f32[64,64]"), "(4,64)");
  EXPECT_EQ(TilesOf(*t, "f16[64,64]"), "(4,64)(2,1)");
  EXPECT_EQ(t->DotTilingFor(F32)->n0(), 16);
  EXPECT_EQ(t->ConvReadFactorFor(DEPTHWISE, FORWARD, CHANNELS_FIRST_READ), 6);
  EXPECT_EQ(t->ConvReadFactorFor(DENSE, FORWARD, CHANNELS_FIRST_READ), 1);
}

// The first entry that matches a convolution's class applies; a table with
// none (every table written before they existed) reads the single factor.
TEST(TargetConfigTest, ConvReadFactorsPerClassWithTheOldFactorBehind) {
  absl::StatusOr<TargetConfig> t = TargetConfig::FromTextProto(
      "name: \"x\" cost_model { conv_mismatch_read_factor: 1.5 "
      "conv_read_factors { kind: DEPTHWISE pass: FORWARD read: CHANNELS_FIRST_READ factor: 40 } "
      "conv_read_factors { kind: DEPTHWISE factor: 20 } "
      "conv_read_factors { pass: WEIGHT_GRADIENT factor: 3 } }",
      "t");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->ConvReadFactorFor(DEPTHWISE, FORWARD, CHANNELS_FIRST_READ), 40);
  EXPECT_EQ(t->ConvReadFactorFor(DEPTHWISE, FORWARD, CHANNELS_LAST_READ), 20);
  EXPECT_EQ(t->ConvReadFactorFor(DEPTHWISE, WEIGHT_GRADIENT, ANY_READ), 20);
  EXPECT_EQ(t->ConvReadFactorFor(DENSE, WEIGHT_GRADIENT, CHANNELS_FIRST_READ), 3);
  EXPECT_EQ(t->ConvReadFactorFor(DENSE, FORWARD, CHANNELS_FIRST_READ), 1.5);
  absl::StatusOr<TargetConfig> old = TargetConfig::FromTextProto(
      "name: \"old\" cost_model { conv_mismatch_read_factor: 2 }", "t");
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_EQ(old->ConvReadFactorFor(POINTWISE, INPUT_GRADIENT, CHANNELS_FIRST_READ), 2);
}

TEST(TargetConfigTest, Errors) {
  auto error = [](absl::string_view text) {
    return std::string(
        TargetConfig::FromTextProto(text, "t.textproto").status().message());
  };
  EXPECT_EQ(error("name: \"x\"\nbase_tilings { element_bit: 32 }\n"),
            "t.textproto:2:27: error: Message type \"xla_layout.BaseTiling\" has "
            "no field named \"element_bit\".");
  EXPECT_THAT(error("description: \"no name\""),
              HasSubstr("t.textproto: error: a target table needs a name"));
  EXPECT_THAT(error("name: \"x\" base_tilings { element_bits: 12 }"),
              HasSubstr("base_tilings[0].element_bits is 12"));
  EXPECT_THAT(error("name: \"x\" base_tilings { element_bits: 32 min_rank: 2 "
                    "tiles { dimensions: [8, -1] } }"),
              HasSubstr("base_tilings[0].tiles[0]: tile (8,*): '*' cannot be "
                        "the most minor entry"));
  EXPECT_THAT(error("name: \"x\" base_tilings { min_rank: 1 tiles { "
                    "dimensions: [8, 128] } }"),
              HasSubstr("has rank 2 but min_rank is 1"));
  EXPECT_THAT(error("name: \"x\" dot_tilings { element_type: F32 m0: 0 n0: 1 k0: 1 }"),
              HasSubstr("m0, n0 and k0 must be positive"));
  EXPECT_THAT(error("name: \"x\" cost_model { max_padding_ratio: 0.5 }"),
              HasSubstr("max_padding_ratio is 0.5"));
  EXPECT_THAT(error("name: \"x\" cost_model { copy_throughput { tile_gbps: -2 } }"),
              HasSubstr("cost_model.copy_throughput.tile_gbps must be a finite, non-negative rate"));
  EXPECT_THAT(error("name: \"x\" cost_model { copy_throughput { subbyte_gbps: nan } }"),
              HasSubstr("copy_throughput.subbyte_gbps must be"));
  EXPECT_THAT(TargetConfig::FromFile("/no/such.textproto").status().message(),
              HasSubstr("cannot open target file /no/such.textproto"));
}

// A time is bytes over a rate: a number that would make one infinite (or
// NaN) is refused where it enters, naming its field, not printed as `inf`
// by the statistics later.
TEST(TargetConfigTest, CostModelNumbersThatMakeTimesInfiniteAreRefused) {
  auto error = [](absl::string_view cost_model) {
    return std::string(TargetConfig::FromTextProto(
                           absl::StrCat("name: \"x\" cost_model { ", cost_model, " }"), "t")
                           .status()
                           .message());
  };
  EXPECT_EQ(error("copy_throughput { tile_gbps: 1e-300 }"),
            "t: error: target 'x': cost_model.copy_throughput.tile_gbps is 1e-300 GB/s, too "
            "slow to time a copy at; use 0 (not measured) or at least 1e-06 GB/s");
  EXPECT_THAT(error("copy_throughput { contiguous_gbps: 9e-7 }"),
              HasSubstr("cost_model.copy_throughput.contiguous_gbps is 9e-07 GB/s"));
  EXPECT_THAT(error("copy_throughput { transpose_gbps: inf }"),
              HasSubstr("copy_throughput.transpose_gbps must be a finite, non-negative rate"));
  EXPECT_THAT(error("copy_throughput { subbyte_gbps: -0.5 }"),
              HasSubstr("copy_throughput.subbyte_gbps must be a finite, non-negative rate"));
  EXPECT_THAT(error("conv_mismatch_read_factor: inf"),
              HasSubstr("cost_model.conv_mismatch_read_factor is inf; use at most 1000000"));
  EXPECT_THAT(error("conv_mismatch_read_factor: nan"),
              HasSubstr("cost_model.conv_mismatch_read_factor is nan"));
  EXPECT_THAT(error("conv_mismatch_read_factor: 1e300"),
              HasSubstr("cost_model.conv_mismatch_read_factor is 1e+300"));
  EXPECT_THAT(error("conv_read_factors { kind: DENSE factor: 2 } "
                    "conv_read_factors { factor: -1 }"),
              HasSubstr("cost_model.conv_read_factors[1].factor must not be negative"));
  EXPECT_THAT(error("conv_read_factors { factor: inf }"),
              HasSubstr("cost_model.conv_read_factors[0].factor is inf"));
  EXPECT_THAT(error("max_padding_ratio: nan"),
              HasSubstr("cost_model.max_padding_ratio is nan; use 0 (no limit) or a finite"));
  EXPECT_THAT(error("max_padding_ratio: inf"), HasSubstr("cost_model.max_padding_ratio is inf"));
  EXPECT_THAT(error("min_dot_operand_reads: nan"),
              HasSubstr("cost_model.min_dot_operand_reads must be a finite, non-negative"));
  EXPECT_THAT(error("min_dot_operand_reads: inf"),
              HasSubstr("cost_model.min_dot_operand_reads must be a finite"));
  // The bounds themselves, and 0 (not measured), are accepted.
  EXPECT_TRUE(TargetConfig::FromTextProto(
                  "name: \"x\" cost_model { conv_mismatch_read_factor: 1e6 copy_throughput { "
                  "contiguous_gbps: 1e-6 tile_gbps: 0 transpose_gbps: 1e9 } }",
                  "t")
                  .ok());
}

}  // namespace
}  // namespace xla_layout
