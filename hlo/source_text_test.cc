#include "hlo/source_text.h"

#include <random>
#include <string>

#include "gtest/gtest.h"

namespace xla_layout {
namespace {

// Line and column by counting, for comparison.
SourceLocation Counted(const std::string& text, size_t offset) {
  SourceLocation at{1, 1};
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++at.line;
      at.column = 1;
    } else {
      ++at.column;
    }
  }
  return at;
}

TEST(SourceTextTest, HintedLocationsMatchTheSearchAndTheCount) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::string text;
    const int size = static_cast<int>(rng() % 300);
    for (int i = 0; i < size; ++i) text += rng() % 4 == 0 ? '\n' : 'x';
    const SourceText source(text, "t.hlo");
    size_t hint = 0;
    for (int ask = 0; ask < 50; ++ask) {
      // Mostly forward, as a parser asks; sometimes back, or past the end.
      size_t offset = rng() % (text.size() + 2);
      SCOPED_TRACE(::testing::Message() << "text size " << text.size()
                                        << ", offset " << offset << ", hint " << hint);
      const SourceLocation plain = source.LocationOf(offset);
      const SourceLocation hinted = source.LocationOf(offset, &hint);
      EXPECT_EQ(hinted.line, plain.line);
      EXPECT_EQ(hinted.column, plain.column);
      if (offset < text.size()) {
        const SourceLocation counted = Counted(text, offset);
        EXPECT_EQ(plain.line, counted.line);
        EXPECT_EQ(plain.column, counted.column);
      }
      EXPECT_EQ(hint + 1, static_cast<size_t>(hinted.line));
    }
  }
}

TEST(SourceTextTest, LocationsAskedInOrderWalkForward) {
  std::string text;
  for (int line = 0; line < 100000; ++line) text += "  x = f32[] parameter(0)\n";
  const SourceText source(text, "t.hlo");
  size_t hint = 0;
  for (size_t line = 0; line < 100000; line += 7) {
    const SourceLocation at = source.LocationOf(line * 25 + 2, &hint);
    ASSERT_EQ(at.line, static_cast<int32_t>(line + 1));
    ASSERT_EQ(at.column, 3);
  }
}

TEST(SourceTextTest, CountLinesAheadCountsNonEmptyLinesAfterANewline) {
  EXPECT_EQ(CountLinesAhead("", 100), 0u);
  EXPECT_EQ(CountLinesAhead("a", 100), 0u) << "the first line follows no newline";
  EXPECT_EQ(CountLinesAhead("{\n  a\n  b\n", 100), 2u);
  EXPECT_EQ(CountLinesAhead("{\n  a\n\n\n  b\n\n", 100), 2u) << "blank lines";
  EXPECT_EQ(CountLinesAhead("{\n  a\n  b\n}\n\nc {\n  d\n}\n", 100, '}'), 2u);
  EXPECT_EQ(CountLinesAhead("{\n  a\n  b\n}\n\nc {\n  d\n}\n", 100), 6u);
  EXPECT_EQ(CountLinesAhead("{\n  a\n  {b}\n}", 100, '}'), 2u) << "only at a line's start";
  EXPECT_EQ(CountLinesAhead("{\n  a\n  b\n  c\n", 2), 2u);
}

}  // namespace
}  // namespace xla_layout
