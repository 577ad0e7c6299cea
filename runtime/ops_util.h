// Helpers shared by the files that implement the executor's array ops
// (internal to runtime/): reading an element at a logical index and filling
// a new buffer index by index.
#ifndef RUNTIME_OPS_UTIL_H_
#define RUNTIME_OPS_UTIL_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "runtime/buffer.h"

namespace xla_layout::runtime {

using Info = std::shared_ptr<const ArrayInfo>;

// The slot of `index` in `v`; a scalar operand of a wider op is read at its
// one slot (select's predicate, clamp's bounds).
inline int64_t SlotOf(const ArrayInfo& a, absl::Span<const int64_t> index) {
  return a.rank() == 0 ? a.Slot({}) : a.Slot(index);
}
inline Num At(const Value& v, absl::Span<const int64_t> index) {
  return v.info->Load(v.data(), SlotOf(*v.info, index));
}
inline uint64_t BitsAt(const Value& v, absl::Span<const int64_t> index) {
  return v.info->LoadBits(v.data(), SlotOf(*v.info, index));
}

// Fills every element of a new buffer from `fn(index)`: a Num, or raw
// bits when `kBits`.
template <bool kBits, typename Fn>
absl::StatusOr<Value> Generate(const Info& out, Fn&& fn) {
  absl::StatusOr<Value> v = Value::Allocate(out);
  if (!v.ok()) return v;
  uint8_t* data = v->mutable_data();
  const ArrayInfo& info = *out;
  ForEachIndex(info.dims(), [&](const IndexVector& index) {
    if constexpr (kBits) {
      info.StoreBits(data, info.Slot(index), fn(index));
    } else {
      info.Store(data, info.Slot(index), fn(index));
    }
  });
  return v;
}

inline std::vector<int64_t> Attr(const std::optional<std::vector<int64_t>>& a) {
  return a.value_or(std::vector<int64_t>{});
}

}  // namespace xla_layout::runtime

#endif  // RUNTIME_OPS_UTIL_H_
