// A cursor over the small bracketed values of HLO attributes (`{...}`,
// `(...)`, integers, words), shared by the attribute readers of
// hlo_attributes.cc and attribute_values.cc. Not a public API.
#ifndef HLO_ATTRIBUTE_CURSOR_H_
#define HLO_ATTRIBUTE_CURSOR_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace xla_layout::attribute_internal {

inline absl::Status Error(absl::string_view message) {
  return absl::InvalidArgumentError(message);
}

// A cursor over a small bracketed value: `{...}`, `(...)`, integers, words.
class Cursor {
 public:
  explicit Cursor(absl::string_view text) : text_(text) {}
  void Skip() {
    while (pos_ < text_.size() && absl::ascii_isspace(text_[pos_])) ++pos_;
  }
  bool Consume(char c) {
    Skip();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool Integer(int64_t& out) {
    Skip();
    size_t start = pos_;
    while (pos_ < text_.size() && absl::ascii_isdigit(text_[pos_])) ++pos_;
    return pos_ > start && absl::SimpleAtoi(text_.substr(start, pos_ - start), &out);
  }
  // `{}` or `{1,2}`.
  bool Index(std::vector<int64_t>& out) {
    if (!Consume('{')) return false;
    if (Consume('}')) return true;
    do {
      int64_t k;
      if (!Integer(k)) return false;
      out.push_back(k);
    } while (Consume(','));
    return Consume('}');
  }
  absl::string_view Word() {
    Skip();
    size_t start = pos_;
    while (pos_ < text_.size() && (absl::ascii_isalnum(text_[pos_]) || text_[pos_] == '-')) ++pos_;
    return text_.substr(start, pos_ - start);
  }
  bool AtEnd() {
    Skip();
    return pos_ == text_.size();
  }
  // The next character after spaces, or '\0' at the end.
  char Peek() {
    Skip();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  // `"..."`, with backslash escapes.
  bool QuotedString() {
    if (!Consume('"')) return false;
    while (pos_ < text_.size() && text_[pos_] != '"') pos_ += text_[pos_] == '\\' ? 2 : 1;
    if (pos_ >= text_.size()) return false;
    ++pos_;
    return true;
  }
  // The characters a number is written with: digits, signs, '.', letters
  // (exponents, inf).
  absl::string_view NumberText() {
    Skip();
    size_t start = pos_;
    while (pos_ < text_.size() && (absl::ascii_isalnum(text_[pos_]) || text_[pos_] == '.' ||
                                   text_[pos_] == '+' || text_[pos_] == '-')) {
      ++pos_;
    }
    return text_.substr(start, pos_ - start);
  }
  bool ConsumeText(absl::string_view word) {
    Skip();
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  size_t pos() const { return pos_; }
  absl::Status Error(absl::string_view what, absl::string_view form) const {
    return absl::InvalidArgumentError(absl::StrCat("expected ", what, " at offset ", pos_,
                                                   " of '", text_, "' (the form is ", form,
                                                   ")"));
  }

 private:
  absl::string_view text_;
  size_t pos_ = 0;
};

// `{ item, item, ... }`, each read by `item`.
template <typename T, typename ReadItem>
absl::StatusOr<std::vector<T>> ParseBracedList(absl::string_view text, absl::string_view form,
                                               ReadItem item) {
  Cursor c(text);
  std::vector<T> out;
  if (!c.Consume('{')) return c.Error("'{'", form);
  if (c.Consume('}')) return out;
  do {
    T value;
    absl::Status s = item(c, value);
    if (!s.ok()) return s;
    out.push_back(std::move(value));
  } while (c.Consume(','));
  if (!c.Consume('}')) return c.Error("',' or '}'", form);
  if (!c.AtEnd()) return c.Error("the end", form);
  return out;
}

}  // namespace xla_layout::attribute_internal

#endif  // HLO_ATTRIBUTE_CURSOR_H_
