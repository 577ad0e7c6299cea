#include "hlo/source_text.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace xla_layout {

SourceText::SourceText(absl::string_view text, absl::string_view filename)
    : text_(text), filename_(filename) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') line_starts_.push_back(i + 1);
  }
}

SourceLocation SourceText::LocationOf(size_t offset) const {
  offset = std::min(offset, text_.size());
  // At the end of a file that ends in a newline, point after the last line.
  if (offset == text_.size() && offset > 0 && text_[offset - 1] == '\n') --offset;
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  size_t line = static_cast<size_t>(it - line_starts_.begin());  // 1-based
  size_t start = line_starts_[line - 1];
  return {static_cast<int32_t>(line), static_cast<int32_t>(offset - start + 1)};
}

std::string SourceText::Diagnostic(SourceLocation where, absl::string_view severity,
                                   absl::string_view message) const {
  std::string out = absl::StrCat(LocationPrefix(filename_, where), severity, ": ",
                                 message);
  if (!where.known() || where.line > static_cast<int32_t>(line_starts_.size())) {
    return out;
  }
  size_t start = line_starts_[where.line - 1];
  size_t end = text_.find('\n', start);
  if (end == absl::string_view::npos) end = text_.size();
  absl::string_view line = text_.substr(start, end - start);
  std::string caret(std::max(where.column - 1, 0), ' ');
  for (size_t i = 0; i < caret.size() && i < line.size(); ++i) {
    if (line[i] == '\t') caret[i] = '\t';
  }
  absl::StrAppend(&out, "\n", line, "\n", caret, "^");
  return out;
}

std::string LocationPrefix(absl::string_view filename, SourceLocation where) {
  if (!where.known()) return absl::StrCat(filename, ": ");
  return absl::StrCat(filename, ":", where.line, ":", where.column, ": ");
}

}  // namespace xla_layout
