#include "xla_layout/json.h"

#include <cmath>
#include <limits>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xla_layout {
namespace {

// Parsed by a real parser, without exceptions: discarded means not JSON.
bool IsJson(const std::string& text) {
  return !nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false).is_discarded();
}

TEST(JsonTest, KeysKeepTheirOrderAndTheLineEnds) {
  OrderedJson o;
  o["zeta"] = 1;
  o["alpha"] = OrderedJson::array({1, 2});
  o["mid"] = OrderedJson::object();
  o["big"] = INT64_MAX;
  EXPECT_EQ(JsonLine(o), "{\"zeta\":1,\"alpha\":[1,2],\"mid\":{},\"big\":9223372036854775807}\n");
}

TEST(JsonTest, NeverThrowsAndStaysJson) {
  OrderedJson o;
  o["bad_utf8"] = std::string("a\xff\xfe" "b");
  o["control"] = std::string("q\"\\\n\x01", 5);
  o["inf"] = std::numeric_limits<double>::infinity();
  o["nan"] = std::nan("");
  std::string line;
  ASSERT_NO_THROW(line = JsonLine(o));
  EXPECT_TRUE(IsJson(line)) << line;
  EXPECT_EQ(line,
            "{\"bad_utf8\":\"a\xef\xbf\xbd\xef\xbf\xbd" "b\",\"control\":\"q\\\"\\\\\\n\\u0001\","
            "\"inf\":null,\"nan\":null}\n");
}

TEST(JsonTest, RoundingKeepsThePrintedPrecision) {
  auto line = [](double v) { return JsonLine(OrderedJson(v)); };
  EXPECT_EQ(line(RoundToDecimals(100.0 / 3, 2)), "33.33\n");
  EXPECT_EQ(line(RoundToDecimals(60, 2)), "60.0\n");
  EXPECT_EQ(line(RoundToDecimals(1.23456, 3)), "1.235\n");
  EXPECT_EQ(line(RoundToSignificantDigits(0.000110733241234567, 9)), "0.000110733241\n");
  EXPECT_EQ(line(RoundToSignificantDigits(1e-6 / 3, 3)), "3.33e-07\n");
  EXPECT_TRUE(std::isinf(RoundToDecimals(std::numeric_limits<double>::infinity(), 3)));
  EXPECT_TRUE(std::isnan(RoundToSignificantDigits(std::nan(""), 9)));
}

}  // namespace
}  // namespace xla_layout
