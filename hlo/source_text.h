// Where a thing stands in HLO text, and the diagnostics that point at it:
// `file:line:col: error: message`, then the line and a caret under the
// column, as LLVM prints them. Lines and columns count from 1; a tab in the
// line is kept in the caret line so the caret lines up.
#ifndef HLO_SOURCE_TEXT_H_
#define HLO_SOURCE_TEXT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace xla_layout {

struct SourceLocation {
  int32_t line = 0;  // 0: unknown (made by a pass, not read from text)
  int32_t column = 0;
  bool known() const { return line > 0; }
};

// The non-empty lines of `text` that follow a newline, counted up to
// `at_most`, and only up to the first that starts with `stop` (0: no stop).
// A fast estimate of how many instructions a text holds, to size tables
// ahead of a parse; nothing is indexed.
size_t CountLinesAhead(absl::string_view text, size_t at_most, char stop = 0);

// A text with its line starts indexed once (linear), so that a location is
// a binary search. Keeps a view: the text must outlive it.
class SourceText {
 public:
  SourceText(absl::string_view text, absl::string_view filename);

  absl::string_view filename() const { return filename_; }
  // The location of byte `offset` (clamped to the text). At the end of a
  // text that ends in a newline, the location is just after the last line.
  SourceLocation LocationOf(size_t offset) const;
  // The same, searching from the line `*line_hint` (0-based) that an
  // earlier call left there, forward by doubling steps: a reader asking in
  // text order pays for the lines between two asks, not a search of the
  // whole index (at a million lines, a miss per ask).
  SourceLocation LocationOf(size_t offset, size_t* line_hint) const;
  // "file:line:col: SEVERITY: message\n<line>\n<caret>".
  std::string Diagnostic(SourceLocation where, absl::string_view severity,
                         absl::string_view message) const;

 private:
  absl::string_view text_;
  std::string filename_;
  std::vector<size_t> line_starts_;
};

// "file:line:col: " for a known location, "file: " otherwise.
std::string LocationPrefix(absl::string_view filename, SourceLocation where);

}  // namespace xla_layout

#endif  // HLO_SOURCE_TEXT_H_
