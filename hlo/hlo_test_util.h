// Test helpers for HLO text (testonly).
#ifndef HLO_HLO_TEST_UTIL_H_
#define HLO_HLO_TEST_UTIL_H_

#include <memory>

#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"

namespace xla_layout {

// Parses HLO text the test knows is valid (file name "t.hlo"); a parse
// error fails the test and yields null.
inline std::unique_ptr<HloModule> ParseTestModule(absl::string_view text) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text, "t.hlo");
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *std::move(m) : nullptr;
}

}  // namespace xla_layout

#endif  // HLO_HLO_TEST_UTIL_H_
