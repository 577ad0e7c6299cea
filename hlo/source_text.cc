#include "hlo/source_text.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace xla_layout {

SourceText::SourceText(absl::string_view text, absl::string_view filename)
    : text_(text), filename_(filename) {
  // Counted first, so that the index is allocated once at its size. Both
  // walks jump from newline to newline with memchr, which scans many bytes
  // per step, instead of testing every byte: every module is indexed.
  const char* const begin = text.data();
  const char* const end = begin + text.size();
  auto each_newline = [begin, end](auto&& f) {
    for (const char* p = begin; p < end; ++p) {
      p = static_cast<const char*>(std::memchr(p, '\n', end - p));
      if (p == nullptr) break;
      f(p);
    }
  };
  size_t lines = 0;
  each_newline([&lines](const char*) { ++lines; });
  line_starts_.reserve(lines + 1);
  line_starts_.push_back(0);
  each_newline([&](const char* p) { line_starts_.push_back(p + 1 - begin); });
}

SourceLocation SourceText::LocationOf(size_t offset) const {
  size_t from_start = 0;
  return LocationOf(offset, &from_start);
}

SourceLocation SourceText::LocationOf(size_t offset, size_t* line_hint) const {
  offset = std::min(offset, text_.size());
  // At the end of a file that ends in a newline, point after the last line.
  if (offset == text_.size() && offset > 0 && text_[offset - 1] == '\n') --offset;
  // The line is the last start <= offset; it lies in [lo, hi).
  const size_t n = line_starts_.size();
  size_t lo = std::min(*line_hint, n - 1), hi = n;
  if (line_starts_[lo] > offset) {
    lo = 0;  // behind the hint: the whole index
  } else {
    size_t step = 1;
    while (lo + step < n && line_starts_[lo + step] <= offset) {
      lo += step;
      step *= 2;
    }
    hi = std::min(n, lo + step);
  }
  auto it = std::upper_bound(line_starts_.begin() + lo, line_starts_.begin() + hi, offset);
  const size_t line = static_cast<size_t>(it - line_starts_.begin()) - 1;  // 0-based
  *line_hint = line;
  return {static_cast<int32_t>(line + 1),
          static_cast<int32_t>(offset - line_starts_[line] + 1)};
}

std::string SourceText::Diagnostic(SourceLocation where, absl::string_view severity,
                                   absl::string_view message) const {
  // A message that quotes a hostile token stays short too.
  constexpr size_t kMaxMessage = 1000;
  // Bytes a terminal would act on are shown as \xNN.
  std::string clean;
  for (char ch : message.substr(0, kMaxMessage)) {
    unsigned char u = static_cast<unsigned char>(ch);
    if (u < 0x20 || u >= 0x7f) {
      absl::StrAppend(&clean, "\\x", absl::Hex(u, absl::kZeroPad2));
    } else {
      clean += ch;
    }
  }
  std::string out = absl::StrCat(LocationPrefix(filename_, where), severity, ": ",
                                 clean, message.size() > kMaxMessage ? "..." : "");
  if (!where.known() || where.line > static_cast<int32_t>(line_starts_.size())) {
    return out;
  }
  size_t start = line_starts_[where.line - 1];
  size_t end = text_.find('\n', start);
  if (end == absl::string_view::npos) end = text_.size();
  absl::string_view line = text_.substr(start, end - start);
  // A long line shows a window around the column, so that a 100 MB line
  // gives a 200-byte message; "..." marks what was cut.
  constexpr size_t kWindow = 160;
  size_t column = static_cast<size_t>(std::max(where.column - 1, 0));
  std::string shown;
  size_t caret_at = column;
  if (line.size() > kWindow) {
    size_t from = column > kWindow / 2 ? column - kWindow / 2 : 0;
    size_t to = std::min(line.size(), from + kWindow);
    if (from > 0) shown = "...";
    caret_at = shown.size() + (column - from);
    shown.append(line.data() + from, to - from);
    if (to < line.size()) shown += "...";
  } else {
    shown = std::string(line);
  }
  // Control bytes and bytes outside ASCII (NULs, escape sequences, invalid
  // UTF-8) never reach the terminal; one '?' per byte keeps the caret aligned.
  std::string caret(caret_at, ' ');
  for (size_t i = 0; i < shown.size(); ++i) {
    unsigned char ch = static_cast<unsigned char>(shown[i]);
    if (ch == '\t') {
      if (i < caret.size()) caret[i] = '\t';
    } else if (ch < 0x20 || ch >= 0x7f) {
      shown[i] = '?';
    }
  }
  absl::StrAppend(&out, "\n", shown, "\n", caret, "^");
  return out;
}

std::string LocationPrefix(absl::string_view filename, SourceLocation where) {
  if (!where.known()) return absl::StrCat(filename, ": ");
  return absl::StrCat(filename, ":", where.line, ":", where.column, ": ");
}

size_t CountLinesAhead(absl::string_view text, size_t at_most, char stop) {
  size_t lines = 0;
  const char* p = text.data();
  const char* end = p + text.size();
  while (lines < at_most &&
         (p = static_cast<const char*>(std::memchr(p, '\n', end - p))) != nullptr) {
    if (++p == end || (stop != 0 && *p == stop)) break;
    if (*p != '\n') ++lines;
  }
  return lines;
}

}  // namespace xla_layout
