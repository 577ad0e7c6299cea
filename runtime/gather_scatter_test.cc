// Gather and scatter (runtime/gather_scatter.h), run through the executor.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_verifier.h"
#include "runtime/executor.h"
#include "runtime/logical.h"

namespace xla_layout::runtime {
namespace {

using ::testing::HasSubstr;

// The text of every output of a module without parameters (its entry is
// `body`, after the computations in `extra`), or the error.
std::string Eval(const std::string& body, const std::string& extra = "") {
  const std::string text = absl::StrCat("HloModule t\n\n", extra, "ENTRY e {\n", body, "}\n");
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text, "t.hlo");
  if (!m.ok()) return absl::StrCat("parse: ", m.status().message());
  absl::Status v = VerifyModule(**m);
  if (!v.ok()) return absl::StrCat("verify: ", v.message());
  absl::StatusOr<std::vector<LogicalArray>> out = RunLogical(**m, {});
  if (!out.ok()) return std::string(out.status().message());
  std::string all;
  for (const LogicalArray& a : *out) absl::StrAppend(&all, all.empty() ? "" : "; ", DescribeArray(a));
  return all;
}

const char kMatrix[] = "  a = s32[3,3]{1,0} constant({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}})\n";

// --- gather ------------------------------------------------------------------

TEST(GatherTest, RowsAndColumnsAsInXlasTensorFlowGatherTests) {
  // index_vector_dim equal to the indices' rank: a trailing index vector of 1.
  EXPECT_EQ(Eval(absl::StrCat(kMatrix, "  i = s32[2] constant({0, 2})\n"
                              "  ROOT g = s32[2,3] gather(a, i), offset_dims={1}, "
                              "collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, "
                              "slice_sizes={1,3}, indices_are_sorted=true\n")),
            "s32[2,3] {1, 2, 3, 7, 8, 9}");
  EXPECT_EQ(Eval(absl::StrCat(kMatrix, "  i = s32[2] constant({0, 2})\n"
                              "  ROOT g = s32[3,2] gather(a, i), offset_dims={0}, "
                              "collapsed_slice_dims={1}, start_index_map={1}, index_vector_dim=1, "
                              "slice_sizes={3,1}\n")),
            "s32[3,2] {1, 3, 4, 6, 7, 9}");
}

TEST(GatherTest, IndexVectorDimPicksWhichDimHoldsTheVectors) {
  const std::string gather =
      "  ROOT g = s32[2] gather(a, i), offset_dims={}, collapsed_slice_dims={0,1}, "
      "start_index_map={0,1}, slice_sizes={1,1}, index_vector_dim=";
  const std::string i = "  i = s32[2,2] constant({{0, 1}, {2, 1}})\n";
  // Rows (0,1), (2,1): tf.gather_nd.
  EXPECT_EQ(Eval(absl::StrCat(kMatrix, i, gather, "1\n")), "s32[2] {2, 8}");
  // Columns (0,2), (1,1).
  EXPECT_EQ(Eval(absl::StrCat(kMatrix, i, gather, "0\n")), "s32[2] {3, 5}");
  // start_index_map swaps the vector's places: (0,1) reads a[1][0], (2,1) a[1][2].
  EXPECT_EQ(Eval(absl::StrCat(kMatrix, i,
                              absl::StrReplaceAll(gather, {{"map={0,1}", "map={1,0}"}}), "1\n")),
            "s32[2] {4, 6}");
}

TEST(GatherTest, StartsAreClampedSoTheSliceFits) {
  // (2,2) becomes (1,1), (-1,1) becomes (0,1): every slice is 2x2 in bounds.
  EXPECT_EQ(Eval(absl::StrCat(kMatrix, "  i = s32[2,2] constant({{2, 2}, {-1, 1}})\n"
                              "  ROOT g = s32[2,2,2] gather(a, i), offset_dims={1,2}, "
                              "collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=1, "
                              "slice_sizes={2,2}\n")),
            "s32[2,2,2] {5, 6, 8, 9, 2, 3, 5, 6}");
  // Any integer type: u64's largest value lies past every dim, s8's
  // negative before it.
  EXPECT_EQ(Eval(absl::StrCat(kMatrix, "  i = u64[2] constant({18446744073709551615, 1})\n"
                              "  ROOT g = s32[2,3] gather(a, i), offset_dims={1}, "
                              "collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, "
                              "slice_sizes={1,3}\n")),
            "s32[2,3] {7, 8, 9, 4, 5, 6}");
  EXPECT_EQ(Eval(absl::StrCat(kMatrix, "  i = s8[1] constant({-128})\n"
                              "  ROOT g = s32[1,3] gather(a, i), offset_dims={1}, "
                              "collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, "
                              "slice_sizes={1,3}\n")),
            "s32[1,3] {1, 2, 3}");
}

TEST(GatherTest, BatchingDimsPairOperandAndIndices) {
  // Batch b reads a[b][i[b]].
  EXPECT_EQ(Eval("  a = s32[2,3] constant({{1, 2, 3}, {4, 5, 6}})\n"
                 "  i = s32[2,1] constant({{2}, {0}})\n"
                 "  ROOT g = s32[2] gather(a, i), offset_dims={}, collapsed_slice_dims={1}, "
                 "start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, "
                 "index_vector_dim=1, slice_sizes={1,1}\n"),
            "s32[2] {3, 4}");
}

TEST(GatherTest, LayoutsDoNotChangeTheResult) {
  const std::string gather =
      "  ROOT g = s32[2,2,2]{0,2,1:T(2,2)} gather(a, i), offset_dims={1,2}, "
      "collapsed_slice_dims={}, start_index_map={1,0}, index_vector_dim=0, slice_sizes={2,2}\n";
  // Vectors (2,0) and (0,1) through start_index_map: starts (0,2) -> (0,1)
  // and (1,0).
  EXPECT_EQ(Eval(absl::StrCat("  a = s32[3,3]{0,1} constant({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}})\n"
                              "  i = s32[2,2]{0,1} constant({{2, 0}, {0, 1}})\n", gather)),
            "s32[2,2,2] {2, 3, 5, 6, 4, 5, 7, 8}");
}

TEST(GatherTest, RefusesInconsistentDimensionNumbers) {
  EXPECT_THAT(Eval(absl::StrCat(kMatrix, "  i = f32[2] constant({0, 2})\n"
                                "  ROOT g = s32[2,3] gather(a, i), offset_dims={1}, "
                                "collapsed_slice_dims={0}, start_index_map={0}, "
                                "index_vector_dim=1, slice_sizes={1,3}\n")),
              HasSubstr("are not integers"));
  EXPECT_THAT(Eval(absl::StrCat(kMatrix, "  i = s32[2] constant({0, 2})\n"
                                "  ROOT g = s32[2,3] gather(a, i), offset_dims={1}, "
                                "collapsed_slice_dims={0}, start_index_map={3}, "
                                "index_vector_dim=1, slice_sizes={1,3}\n")),
              HasSubstr("g (gather)"));
}

// --- scatter -----------------------------------------------------------------

const char kCombiners[] =
    "add {\n  p = s32[] parameter(0)\n  q = s32[] parameter(1)\n  ROOT r = s32[] add(p, q)\n}\n\n"
    "replace {\n  p = s32[] parameter(0)\n  ROOT q = s32[] parameter(1)\n}\n\n"
    "addf {\n  p = f32[] parameter(0)\n  q = f32[] parameter(1)\n  ROOT r = f32[] add(p, q)\n}\n\n";

TEST(ScatterTest, ReplacesRowsAsInXlasTensorFlowScatterTests) {
  EXPECT_EQ(Eval(absl::StrCat(kMatrix, "  i = s32[2] constant({0, 2})\n"
                              "  u = s32[2,3] constant({{10, 20, 30}, {70, 80, 90}})\n"
                              "  ROOT s = s32[3,3] scatter(a, i, u), update_window_dims={1}, "
                              "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
                              "index_vector_dim=1, indices_are_sorted=true, "
                              "unique_indices=true, to_apply=replace\n"),
                 kCombiners),
            "s32[3,3] {10, 20, 30, 4, 5, 6, 70, 80, 90}");
}

TEST(ScatterTest, AddCombinesRepeatedIndicesInUpdateOrder) {
  EXPECT_EQ(Eval(absl::StrCat(kMatrix, "  i = s32[3] constant({1, 1, 0})\n"
                              "  u = s32[3,3] constant({{1, 1, 1}, {2, 2, 2}, {3, 3, 3}})\n"
                              "  ROOT s = s32[3,3] scatter(a, i, u), update_window_dims={1}, "
                              "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
                              "index_vector_dim=1, to_apply=add\n"),
                 kCombiners),
            "s32[3,3] {4, 5, 6, 7, 8, 9, 7, 8, 9}");
  // In f32, ((0 + 1) + 1e8) + -1e8 is 0 (1e8 + 1 rounds to 1e8); another
  // order would give 1.
  EXPECT_EQ(Eval("  a = f32[1] constant({0})\n  i = s32[3] constant({0, 0, 0})\n"
                 "  u = f32[3] constant({1, 1e8, -1e8})\n"
                 "  ROOT s = f32[1] scatter(a, i, u), update_window_dims={}, "
                 "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
                 "index_vector_dim=1, to_apply=addf\n",
                 kCombiners),
            "f32[1] {0}");
  // With a replace, the last update of a repeated index wins, even where
  // the indices are wrongly promised unique.
  EXPECT_EQ(Eval("  a = s32[2] constant({0, 0})\n  i = s32[3] constant({1, 0, 1})\n"
                 "  u = s32[3] constant({5, 6, 7})\n"
                 "  ROOT s = s32[2] scatter(a, i, u), update_window_dims={}, "
                 "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
                 "index_vector_dim=1, unique_indices=true, to_apply=replace\n",
                 kCombiners),
            "s32[2] {6, 7}");
}

TEST(ScatterTest, WindowsAreAppliedOneScatterPositionAtATime) {
  // updates[w][s]: window dim 0, scatter dim 1. Position 0 (start 0) writes
  // a[0], a[1]; position 1 (start 1) then writes a[1], a[2]. Row-major over
  // the whole update index would leave a[1] = 3 instead.
  EXPECT_EQ(Eval("  a = s32[3] constant({0, 0, 0})\n  i = s32[2] constant({0, 1})\n"
                 "  u = s32[2,2] constant({{1, 2}, {3, 4}})\n"
                 "  ROOT s = s32[3] scatter(a, i, u), update_window_dims={0}, "
                 "inserted_window_dims={}, scatter_dims_to_operand_dims={0}, "
                 "index_vector_dim=1, to_apply=replace\n",
                 kCombiners),
            "s32[3] {1, 2, 4}");
}

TEST(ScatterTest, OutOfBoundWindowsAreDroppedNotClamped) {
  // 2x2 windows at (1,1) (inside), (2,0) (rows 2..3: outside) and (-1,0).
  EXPECT_EQ(Eval(absl::StrCat(kMatrix, "  i = s32[3,2] constant({{1, 1}, {2, 0}, {-1, 0}})\n"
                              "  u = s32[3,2,2] constant({{{10, 20}, {30, 40}}, {{1, 1}, {1, 1}}, "
                              "{{2, 2}, {2, 2}}})\n"
                              "  ROOT s = s32[3,3] scatter(a, i, u), update_window_dims={1,2}, "
                              "inserted_window_dims={}, scatter_dims_to_operand_dims={0,1}, "
                              "index_vector_dim=1, to_apply=add\n"),
                 kCombiners),
            "s32[3,3] {1, 2, 3, 4, 15, 26, 7, 38, 49}");
  // An index past int64's range, as u64, is out of bounds too.
  EXPECT_EQ(Eval("  a = s32[2] constant({0, 0})\n"
                 "  i = u64[2] constant({18446744073709551615, 1})\n"
                 "  u = s32[2] constant({5, 6})\n"
                 "  ROOT s = s32[2] scatter(a, i, u), update_window_dims={}, "
                 "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
                 "index_vector_dim=1, to_apply=add\n",
                 kCombiners),
            "s32[2] {0, 6}");
}

TEST(ScatterTest, VariadicScatterCombinesEveryOperandAtOnce) {
  // Keeps the larger key and its value; a key is compared to the current
  // one, so the combiner needs both operands' values at each index.
  const std::string combiner =
      "maxkey {\n  k = s32[] parameter(0)\n  v = f32[] parameter(1)\n"
      "  uk = s32[] parameter(2)\n  uv = f32[] parameter(3)\n"
      "  gt = pred[] compare(uk, k), direction=GT\n"
      "  nk = s32[] select(gt, uk, k)\n  nv = f32[] select(gt, uv, v)\n"
      "  ROOT t = (s32[], f32[]) tuple(nk, nv)\n}\n\n";
  EXPECT_EQ(Eval("  k = s32[3] constant({5, 5, 5})\n  v = f32[3] constant({0, 0, 0})\n"
                 "  i = s32[3] constant({0, 2, 0})\n"
                 "  uk = s32[3] constant({7, 1, 9})\n  uv = f32[3] constant({1.5, 2.5, 3.5})\n"
                 "  ROOT s = (s32[3], f32[3]) scatter(k, v, i, uk, uv), update_window_dims={}, "
                 "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
                 "index_vector_dim=1, to_apply=maxkey\n",
                 combiner),
            "s32[3] {9, 5, 5}; f32[3] {3.5, 0, 0}");
}

TEST(ScatterTest, BatchingDimsPairOperandAndIndices) {
  EXPECT_EQ(Eval("  a = s32[2,3] constant({{0, 0, 0}, {0, 0, 0}})\n"
                 "  i = s32[2,1] constant({{2}, {0}})\n  u = s32[2] constant({7, 9})\n"
                 "  ROOT s = s32[2,3] scatter(a, i, u), update_window_dims={}, "
                 "inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, "
                 "input_batching_dims={0}, scatter_indices_batching_dims={0}, "
                 "index_vector_dim=1, to_apply=add\n",
                 kCombiners),
            "s32[2,3] {0, 0, 7, 9, 0, 0}");
}

TEST(ScatterTest, LayoutsDoNotChangeTheResult) {
  EXPECT_EQ(Eval("  a = s32[3,3]{0,1} constant({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}})\n"
                 "  i = s32[2]{0} constant({0, 2})\n"
                 "  u = s32[2,3]{0,1:T(2,2)} constant({{10, 20, 30}, {70, 80, 90}})\n"
                 "  ROOT s = s32[3,3]{1,0:T(2,2)} scatter(a, i, u), update_window_dims={1}, "
                 "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
                 "index_vector_dim=1, to_apply=add\n",
                 kCombiners),
            "s32[3,3] {11, 22, 33, 4, 5, 6, 77, 88, 99}");
}

TEST(ScatterTest, RefusesACombinerOfTheWrongArity) {
  const std::string three =
      "three {\n  p = s32[] parameter(0)\n  q = s32[] parameter(1)\n  r = s32[] parameter(2)\n"
      "  ROOT s = s32[] add(p, q)\n}\n\n";
  EXPECT_THAT(Eval(absl::StrCat(kMatrix, "  i = s32[2] constant({0, 2})\n"
                                "  u = s32[2,3] constant({{10, 20, 30}, {70, 80, 90}})\n"
                                "  ROOT s = s32[3,3] scatter(a, i, u), update_window_dims={1}, "
                                "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
                                "index_vector_dim=1, to_apply=three\n"),
                   three),
              HasSubstr("to_apply three must take 2 scalars"));
}

}  // namespace
}  // namespace xla_layout::runtime
