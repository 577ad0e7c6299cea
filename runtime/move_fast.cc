// Broadcast without the logical-index path: slot offsets per dim instead of
// Slot() per element, and whole-byte slots moved as they are.
#include <cstring>
#include <vector>

#include "runtime/elementwise_fast.h"
#include "runtime/fast_element.h"

namespace xla_layout::runtime {
namespace {

// Moves one element of `bytes` bytes: the slot's bits, which are the
// element's when slots are natural (what LoadBits/StoreBits would carry).
template <int kBytes>
void WalkInto(const ArrayInfo& out, const std::vector<const int64_t*>& in_offsets,
              int64_t in_origin, const uint8_t* in, uint8_t* data) {
  const int rank = out.rank();
  const int64_t inner = out.dims()[rank - 1];
  std::vector<int64_t> out_inner(inner), in_inner(inner);
  for (int64_t i = 0; i < inner; ++i) {
    out_inner[i] = out.DimOffset(rank - 1, i);
    in_inner[i] = in_offsets[rank - 1] != nullptr ? in_offsets[rank - 1][i] : 0;
  }
  std::vector<int64_t> index(rank, 0);
  for (;;) {
    int64_t o = out.origin(), s = in_origin;
    for (int d = 0; d + 1 < rank; ++d) {
      o += out.DimOffset(d, index[d]);
      if (in_offsets[d] != nullptr) s += in_offsets[d][index[d]];
    }
    for (int64_t i = 0; i < inner; ++i) {
      std::memcpy(data + (o + out_inner[i]) * kBytes, in + (s + in_inner[i]) * kBytes, kBytes);
    }
    int d = rank - 2;
    for (; d >= 0; --d) {
      if (++index[d] < out.dims()[d]) break;
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

}  // namespace

std::optional<absl::StatusOr<Value>> BroadcastFast(absl::Span<const int64_t> dims,
                                                   const Value& operand,
                                                   const std::shared_ptr<const ArrayInfo>& out) {
  const ArrayInfo& a = *operand.info;
  if (!FastPathsEnabled() || out->rank() == 0 || out->element_count() == 0 ||
      !out->separable() || !a.separable() || a.type() != out->type() ||
      ClassOf(a.type()) == TypeClass::kNone || !NaturalSlots(a) || !NaturalSlots(*out) ||
      static_cast<int>(dims.size()) != a.rank()) {
    return std::nullopt;
  }
  // Per result dim, the operand's offsets along the dim it maps to (none for
  // a new dim).
  std::vector<std::vector<int64_t>> tables(out->rank());
  std::vector<const int64_t*> in_offsets(out->rank(), nullptr);
  for (int k = 0; k < a.rank(); ++k) {
    const int64_t d = dims[k];
    if (d < 0 || d >= out->rank() || a.dims()[k] != out->dims()[d]) return std::nullopt;
    for (int64_t i = 0; i < a.dims()[k]; ++i) tables[d].push_back(a.DimOffset(k, i));
    in_offsets[d] = tables[d].data();
  }
  CountFastPath(FastPath::kBroadcast);
  absl::StatusOr<Value> v = Value::Allocate(out);
  if (!v.ok()) return v;
  const uint8_t* in = operand.data();
  uint8_t* data = v->mutable_data();
  switch (out->slot_bits()) {
    case 8: WalkInto<1>(*out, in_offsets, a.origin(), in, data); break;
    case 16: WalkInto<2>(*out, in_offsets, a.origin(), in, data); break;
    case 32: WalkInto<4>(*out, in_offsets, a.origin(), in, data); break;
    default: WalkInto<8>(*out, in_offsets, a.origin(), in, data); break;
  }
  return v;
}

}  // namespace xla_layout::runtime
