#include "tools/shape_report.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla_layout/shape_text.h"

namespace xla_layout::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string Report(absl::string_view text, bool json) {
  absl::StatusOr<Shape> shape = ParseShape(text);
  EXPECT_TRUE(shape.ok()) << shape.status();
  if (!shape.ok()) return "";
  ShapeReportOptions options;
  options.json = json;
  absl::StatusOr<std::string> report = ShapeReport(*shape, options);
  EXPECT_TRUE(report.ok()) << report.status();
  return report.ok() ? *report : std::string(report.status().message());
}

// A token or opaque leaf is named, and the array leaves after it are
// still reported.
TEST(ShapeReportTest, TupleWithTokenAndOpaqueLeaves) {
  std::string out = Report("(f32[2], token[], (opaque[], s32[3]))", false);
  EXPECT_THAT(out, HasSubstr("(f32[2]{0}, token[], (opaque[], s32[3]{0}))\n"
                             "tuple of 3 elements, 4 leaves\n"));
  EXPECT_THAT(out, HasSubstr("leaf {0}: f32[2]{0}\nphysical dims:   [2]\n"));
  EXPECT_THAT(out, HasSubstr("leaf {1}: token[]: no index map (not an array)\n"));
  EXPECT_THAT(out, HasSubstr("leaf {2,0}: opaque[]: no index map (not an array)\n"));
  EXPECT_THAT(out, HasSubstr("leaf {2,1}: s32[3]{0}\nphysical dims:   [3]\n"));
}

TEST(ShapeReportTest, TupleWithTokenLeafAsJson) {
  std::string out = Report("(token[], f32[2])", true);
  EXPECT_THAT(out, HasSubstr("{\"index\":[0],\"canonical\":\"token[]\",\"index_map\":false}"));
  EXPECT_THAT(out, HasSubstr("{\"index\":[1],\"canonical\":\"f32[2]{0}\",\"physical_dims\":[2]"));
  EXPECT_THAT(out, Not(HasSubstr("error")));
}

// A lone token is still refused: it has nothing to report.
TEST(ShapeReportTest, LoneTokenIsRefused) {
  absl::StatusOr<Shape> shape = ParseShape("token[]");
  ASSERT_TRUE(shape.ok());
  absl::StatusOr<std::string> report = ShapeReport(*shape, {});
  EXPECT_FALSE(report.ok());
}

}  // namespace
}  // namespace xla_layout::cli
