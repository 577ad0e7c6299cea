// Every JSON report hlo-layout prints, read back by a real JSON parser
// (nlohmann's, exceptions off): the layout pass's --stats=json, relayout
// --json, and shape --json (an array with its grid, a nested tuple with an
// unbounded leaf), index --json and its --slot form. Keys come in their
// documented order and numbers are JSON numbers.
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"
#include "passes/layout_assignment/layout_assignment.h"
#include "passes/layout_assignment/stats.h"
#include "passes/layout_assignment/target_config.h"
#include "tools/relayout_command.h"
#include "tools/shape_report.h"
#include "xla_layout/json.h"
#include "xla_layout/shape_text.h"

namespace xla_layout {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::IsEmpty;
using ::testing::Not;

// The report parsed in order; a discarded value (not JSON) fails the test.
OrderedJson Parse(const std::string& text) {
  OrderedJson j = OrderedJson::parse(text, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(j.is_discarded()) << "not JSON: " << text;
  EXPECT_TRUE(j.is_object()) << text;
  return j;
}

std::vector<std::string> Keys(const OrderedJson& object) {
  std::vector<std::string> keys;
  for (const auto& item : object.items()) keys.push_back(item.key());
  return keys;
}

Shape ParseOrDie(absl::string_view text) {
  absl::StatusOr<Shape> shape = ParseShape(text);
  EXPECT_TRUE(shape.ok()) << shape.status();
  return shape.ok() ? *shape : Shape();
}

const std::vector<std::string> kStatsKeys = {
    "pass",          "target",          "copies_inserted",       "copy_bytes_per_run",
    "copies_by_reason", "copies",       "computations_cloned",   "data_bytes",
    "padding_bytes", "tilings_refused", "dot_packing",           "convolution_reads",
    "free_orders",   "transposes_as_bitcast", "reshapes_as_bitcast",
    "instructions_per_layout"};

// A dot, a convolution and a batched dot. Pinned by the entry layout, the
// dot's operands are copied to be packed and the convolution reads a
// foreign layout; left free, the batched dot's operands are searched
// (free_orders), and tpu refuses to tile them (tilings_refused).
constexpr char kBody[] = R"(
ENTRY main {
  x = f32[64,256] parameter(0)
  w = f32[256,128] parameter(1)
  d = f32[64,128] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  i = f32[8,128,32,32] parameter(2)
  k = f32[128,128,3,3] parameter(3)
  c = f32[8,128,32,32] convolution(i, k), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01
  a = bf16[4,32,64] parameter(4)
  b = bf16[4,64,16] parameter(5)
  bd = bf16[4,32,16] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
  ROOT t = (f32[64,128], f32[8,128,32,32], bf16[4,32,16]) tuple(d, c, bd)
})";
constexpr char kPinned[] =
    "HloModule pinned, entry_computation_layout={(f32[64,256]{1,0}, f32[256,128]{1,0}, "
    "f32[8,128,32,32]{1,0,3,2}, f32[128,128,3,3]{3,2,1,0}, bf16[4,32,64]{2,1,0}, "
    "bf16[4,64,16]{2,1,0})->(f32[64,128]{1,0}, f32[8,128,32,32]{3,2,1,0}, bf16[4,32,16]{2,1,0})}";
constexpr char kFree[] = "HloModule free";

// A target whose tiles are optional: a value they would pad too much is
// left untiled and reported (tpu requires its tiles, so refuses none).
constexpr char kOptionalTiles[] =
    "name: \"optional-tiles\" base_tilings { element_bits: 16 min_rank: 2 "
    "tiles { dimensions: [ 8, 128 ] } tiles { dimensions: [ 2, 1 ] } } "
    "cost_model { max_padding_ratio: 1.5 }";

OrderedJson StatsAfterRun(absl::string_view header, absl::string_view target) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(absl::StrCat(header, kBody));
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return nullptr;
  absl::StatusOr<TargetConfig> config =
      target == "optional-tiles" ? TargetConfig::FromTextProto(kOptionalTiles, "optional.textproto")
                                 : TargetConfig::Builtin(target);
  EXPECT_TRUE(config.ok()) << config.status();
  if (!config.ok()) return nullptr;
  LayoutAssignment pass(*config);
  absl::StatusOr<bool> ran = pass.Run(**m);
  EXPECT_TRUE(ran.ok()) << ran.status();
  return Parse(pass.StatsReport(/*json=*/true));
}

TEST(JsonReportsTest, LayoutStatsOfARun) {
  OrderedJson pinned = StatsAfterRun(kPinned, "cpu-avx512");
  EXPECT_THAT(Keys(pinned), ElementsAreArray(kStatsKeys));
  EXPECT_EQ(pinned["target"], "cpu-avx512");
  ASSERT_THAT(pinned["copies"], Not(IsEmpty()));
  EXPECT_THAT(Keys(pinned["copies"][0]),
              ElementsAre("name", "computation", "operand", "reason", "from", "to", "bytes",
                          "in_loop", "kernel_class", "estimated_seconds"));
  EXPECT_TRUE(pinned["copies"][0]["estimated_seconds"].is_number_float());
  EXPECT_TRUE(pinned["copies"][0]["bytes"].is_number_integer());
  // The convolution's OIHW kernel is copied: a dense 3x3 forward reads it
  // channels-first at the measured factor, dearer than the copy.
  EXPECT_THAT(Keys(pinned["copies_by_reason"]),
              ElementsAre("convolution operand layout", "dot operand packing", "tuple element"));
  ASSERT_THAT(pinned["dot_packing"], Not(IsEmpty()));
  EXPECT_THAT(Keys(pinned["dot_packing"][0]),
              ElementsAre("dot", "operand", "reads", "bytes", "packed", "why"));
  ASSERT_THAT(pinned["convolution_reads"], Not(IsEmpty()));
  EXPECT_THAT(Keys(pinned["convolution_reads"][0]),
              ElementsAre("conv", "operand", "have", "want", "class", "factor", "read_cost",
                          "copy_bytes", "copy_class", "read_seconds", "copy_seconds", "copied"));
  EXPECT_TRUE(pinned["convolution_reads"][0]["read_seconds"].is_number_float());
  EXPECT_TRUE(pinned["instructions_per_layout"].is_object());

  OrderedJson free = StatsAfterRun(kFree, "cpu-avx512");
  EXPECT_THAT(Keys(free), ElementsAreArray(kStatsKeys));
  ASSERT_THAT(free["free_orders"], Not(IsEmpty()));
  EXPECT_THAT(Keys(free["free_orders"][0]),
              ElementsAre("value", "chosen", "score", "runner_up", "runner_up_score"));
  EXPECT_TRUE(free["free_orders"][0]["score"].is_number());

  OrderedJson optional = StatsAfterRun(kFree, "optional-tiles");
  EXPECT_THAT(Keys(optional), ElementsAreArray(kStatsKeys));
  ASSERT_THAT(optional["tilings_refused"], Not(IsEmpty()));
  EXPECT_THAT(Keys(optional["tilings_refused"][0]), ElementsAre("value", "padding_ratio"));
  EXPECT_TRUE(optional["tilings_refused"][0]["padding_ratio"].is_number());
}

// Whatever the fields hold, the report parses: a time that is not finite
// (the target table refuses what would make one) prints as null, bytes
// that are not UTF-8 as U+FFFD. Before, these printed `inf` and raw bytes.
TEST(JsonReportsTest, LayoutStatsStayJsonWhateverTheyHold) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  LayoutAssignmentStats stats;
  stats.target = "odd\xff\"\n";
  LayoutAssignmentStats::Copy copy;
  copy.name = std::string("copy\x01\0", 6);
  copy.seconds = kInf;
  stats.copies.push_back(copy);
  LayoutAssignmentStats::ConvolutionRead read;
  read.timed = true;
  read.read_seconds = kInf;
  read.copy_seconds = std::nan("");
  stats.convolution_reads.push_back(read);
  stats.free_orders.push_back({"v", "{1,0}", "", std::nan(""), -kInf});
  stats.tilings_refused.push_back({"big", kInf});
  OrderedJson j = Parse(stats.ToJson());
  EXPECT_EQ(j["target"], "odd\xef\xbf\xbd\"\n");
  EXPECT_EQ(j["copies"][0]["name"], std::string("copy\x01\0", 6));
  EXPECT_TRUE(j["copies"][0]["estimated_seconds"].is_null());
  EXPECT_TRUE(j["convolution_reads"][0]["read_seconds"].is_null());
  EXPECT_TRUE(j["convolution_reads"][0]["copy_seconds"].is_null());
  EXPECT_TRUE(j["free_orders"][0]["score"].is_null());
  EXPECT_TRUE(j["free_orders"][0]["runner_up"].is_null());
  EXPECT_TRUE(j["tilings_refused"][0]["padding_ratio"].is_null());
  EXPECT_EQ(j["copies_by_reason"], OrderedJson::object({{"", 1}}));
}

TEST(JsonReportsTest, Relayout) {
  cli::RelayoutCommandOptions options;
  options.repeat = 1;
  options.budget_seconds = 1;
  options.check = true;
  options.json = true;
  absl::StatusOr<cli::RelayoutCommandResult> r = cli::RunRelayoutCommand(
      ParseOrDie("f32[19,137]{1,0}"), ParseOrDie("f32[19,137]{0,1:T(8,128)}"), options);
  ASSERT_TRUE(r.ok()) << r.status();
  OrderedJson j = Parse(r->output);
  EXPECT_THAT(Keys(j), ElementsAre("src", "dst", "seconds_per_run", "gbps", "memcpy_gbps",
                                   "ratio_to_memcpy", "stream_gbps", "ceiling_gbps",
                                   "ratio_to_ceiling", "threads", "isa", "repeat",
                                   "element_bytes", "src_bytes", "dst_bytes", "check"));
  EXPECT_EQ(j["src"], "f32[19,137]{1,0}");
  EXPECT_EQ(j["check"], "ok");
  for (const char* number : {"seconds_per_run", "gbps", "memcpy_gbps", "ratio_to_memcpy",
                             "stream_gbps", "ceiling_gbps", "ratio_to_ceiling"}) {
    EXPECT_TRUE(j[number].is_number()) << number;
  }
  EXPECT_EQ(j["element_bytes"], 19 * 137 * 4);
  EXPECT_EQ(r->output.back(), '\n');
}

TEST(JsonReportsTest, ShapeOfAnArrayWithItsGrid) {
  cli::ShapeReportOptions options;
  options.json = true;
  options.grid = true;
  absl::StatusOr<std::string> r = cli::ShapeReport(ParseOrDie("f32[3,5]{1,0:T(2,2)}"), options);
  ASSERT_TRUE(r.ok()) << r.status();
  OrderedJson j = Parse(*r);
  EXPECT_THAT(Keys(j), ElementsAre("canonical", "physical_dims", "tiled_dims",
                                   "logical_elements", "elements", "bytes", "padding_percent",
                                   "grid"));
  EXPECT_EQ(j["tiled_dims"], OrderedJson({2, 3, 2, 2}));
  EXPECT_EQ(j["padding_percent"], 60.0);
  ASSERT_EQ(j["grid"].size(), 3u);
  EXPECT_EQ(j["grid"][0], OrderedJson({0, 1, 4, 5, 8}));
}

TEST(JsonReportsTest, ShapeOfANestedTuple) {
  cli::ShapeReportOptions options;
  options.json = true;
  absl::StatusOr<std::string> r = cli::ShapeReport(
      ParseOrDie("(f32[3,5]{1,0:T(2,2)}, (s4[8]{0:E(4)}, f32[?]{0}))"), options);
  ASSERT_TRUE(r.ok()) << r.status();
  OrderedJson j = Parse(*r);
  EXPECT_THAT(Keys(j), ElementsAre("canonical", "leaves"));
  ASSERT_EQ(j["leaves"].size(), 3u);
  EXPECT_THAT(Keys(j["leaves"][0]),
              ElementsAre("index", "canonical", "physical_dims", "tiled_dims",
                          "logical_elements", "elements", "bytes", "padding_percent"));
  EXPECT_EQ(j["leaves"][1]["index"], OrderedJson({1, 0}));
  EXPECT_THAT(Keys(j["leaves"][2]),
              ElementsAre("index", "canonical", "size_known", "unbounded_dims"));
  EXPECT_EQ(j["leaves"][2]["size_known"], false);
}

TEST(JsonReportsTest, IndexAndSlot) {
  Shape shape = ParseOrDie("f32[3,5]{1,0:T(2,2)}");
  absl::StatusOr<std::string> index = cli::IndexReport(shape, {2, 3}, /*json=*/true);
  ASSERT_TRUE(index.ok()) << index.status();
  EXPECT_EQ(*index, "{\"slot\":17}\n");
  EXPECT_EQ(Parse(*index)["slot"], 17);
  absl::StatusOr<std::string> slot = cli::SlotReport(shape, 17, /*json=*/true);
  ASSERT_TRUE(slot.ok()) << slot.status();
  EXPECT_EQ(Parse(*slot)["index"], OrderedJson({2, 3}));
  absl::StatusOr<std::string> padding = cli::SlotReport(shape, 23, /*json=*/true);
  ASSERT_TRUE(padding.ok()) << padding.status();
  EXPECT_THAT(Keys(Parse(*padding)), ElementsAre("slot", "index"));
  EXPECT_TRUE(Parse(*padding)["index"].is_null());
}

}  // namespace
}  // namespace xla_layout
