// How shapes and layouts print: XLA's `f32[3,5]{1,0:T(2,2)}` or the angle
// form `F32[3,5]<1,0:T(2,2)>`, with or without layouts. Shared by the model's
// Print routines and the text layer above them.
#ifndef XLA_LAYOUT_PRINT_OPTIONS_H_
#define XLA_LAYOUT_PRINT_OPTIONS_H_

#include <cstdint>
#include <string>

#include "absl/strings/numbers.h"

namespace xla_layout {

// Appends the decimal digits of `value`: the printers' one way to write an
// integer, without the temporary strings StrCat and StrJoin build.
inline void AppendInt(std::string* out, int64_t value) {
  char buffer[absl::numbers_internal::kFastToBufferSize];
  char* end = absl::numbers_internal::FastIntToBuffer(value, buffer);
  out->append(buffer, end - buffer);
}

// Collects small pieces of text in a local buffer and appends them to a
// string in few calls (on Flush, when full, and when it goes out of
// scope): the shape printers write a module's millions of shapes so.
class TextAppender {
 public:
  explicit TextAppender(std::string* out) : out_(out) {}
  TextAppender(const TextAppender&) = delete;
  TextAppender& operator=(const TextAppender&) = delete;
  ~TextAppender() { Flush(); }

  void Char(char c) {
    if (size_ == sizeof(buffer_)) Flush();
    buffer_[size_++] = c;
  }
  void Int(int64_t value) {
    if (size_ + absl::numbers_internal::kFastToBufferSize > sizeof(buffer_)) Flush();
    size_ = absl::numbers_internal::FastIntToBuffer(value, buffer_ + size_) - buffer_;
  }
  void Text(const char* text, size_t n) {
    if (size_ + n > sizeof(buffer_)) {
      Flush();
      out_->append(text, n);
      return;
    }
    for (size_t k = 0; k < n; ++k) buffer_[size_ + k] = text[k];
    size_ += n;
  }
  void Flush() {
    out_->append(buffer_, size_);
    size_ = 0;
  }

 private:
  std::string* out_;
  size_t size_ = 0;
  char buffer_[240];
};

enum class ShapeSyntax {
  kXla,    // lower-case types, {} layouts: what XLA prints (the default).
  kAngle,  // upper-case types, <> layouts: the project brief's form.
};

struct PrintOptions {
  ShapeSyntax syntax = ShapeSyntax::kXla;
  // When false, arrays print without their layouts (`f32[3,5]`).
  bool print_layout = true;
};

}  // namespace xla_layout

#endif  // XLA_LAYOUT_PRINT_OPTIONS_H_
