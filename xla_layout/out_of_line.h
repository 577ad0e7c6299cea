// OutOfLine<T>: a T kept on the heap, allocated on the first write and
// copied deeply, that reads as a default T while absent. It holds the rare
// parts of small, often-copied values (a layout's sparse attributes, an
// instruction's dot numbers), so that the common value stays small.
#ifndef XLA_LAYOUT_OUT_OF_LINE_H_
#define XLA_LAYOUT_OUT_OF_LINE_H_

#include <memory>

namespace xla_layout {

template <typename T>
class OutOfLine {
 public:
  OutOfLine() = default;
  OutOfLine(const OutOfLine& other)
      : value_(other.value_ != nullptr ? std::make_unique<T>(*other.value_) : nullptr) {}
  OutOfLine& operator=(const OutOfLine& other) {
    if (this != &other) {
      value_ = other.value_ != nullptr ? std::make_unique<T>(*other.value_) : nullptr;
    }
    return *this;
  }
  OutOfLine(OutOfLine&&) noexcept = default;
  OutOfLine& operator=(OutOfLine&&) noexcept = default;
  ~OutOfLine() = default;

  bool has_value() const { return value_ != nullptr; }
  // The value, or a default T while none was written.
  const T& get() const {
    static const T* const kDefault = new T();
    return value_ != nullptr ? *value_ : *kDefault;
  }
  T& mutable_get() {
    if (value_ == nullptr) value_ = std::make_unique<T>();
    return *value_;
  }

 private:
  std::unique_ptr<T> value_;
};

}  // namespace xla_layout

#endif  // XLA_LAYOUT_OUT_OF_LINE_H_
