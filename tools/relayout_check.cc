#include "tools/relayout_check.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla_layout/primitive_type.h"
#include "xla_layout/subbyte.h"

namespace xla_layout {
namespace {

void PatternOf(int64_t i, int64_t es, uint8_t* out) {
  for (int64_t b = 0; b < es; ++b) {
    out[b] = b < 8 ? static_cast<uint8_t>(static_cast<uint64_t>(i) >> (8 * b))
                   : 0;
  }
}

// Row-major rank of a logical index.
int64_t RowMajor(const TiledLayout& layout, const IndexVector& e) {
  int64_t i = 0;
  for (int d = 0; d < layout.rank(); ++d) i = i * layout.logical_dims()[d] + e[d];
  return i;
}

std::string Hex(const uint8_t* p, int64_t n) {
  std::string s;
  for (int64_t i = n - 1; i >= 0; --i) absl::StrAppend(&s, absl::Hex(p[i], absl::kZeroPad2));
  return s;
}

// Sub-byte types (s2, s4, u2, u4): element i holds i modulo 2^bits, in the
// low bits of a packed slot, or sign-extended (signed types) in a whole byte.
struct SubByte {
  int type_bits = 0;  // 0: not a sub-byte type
  int slot_bits = 8;
  bool is_signed = false;

  explicit SubByte(const TiledLayout& layout) {
    const PrimitiveType t = layout.shape().element_type();
    const int64_t width = PrimitiveBitWidth(t);
    if (t == PRED || width >= 8) return;
    type_bits = static_cast<int>(width);
    slot_bits = static_cast<int>(layout.element_size_in_bits());
    is_signed = t == S2 || t == S4;
  }
  uint8_t Value(int64_t i) const {
    const uint64_t v = static_cast<uint64_t>(i) & ((1u << type_bits) - 1);
    const uint8_t wide = is_signed ? static_cast<uint8_t>(SignExtend(v, type_bits))
                                   : static_cast<uint8_t>(v);
    return slot_bits < 8 ? wide & ((1u << slot_bits) - 1) : wide;
  }
  uint8_t Load(const uint8_t* data, int64_t slot) const {
    return slot_bits < 8 ? LoadPacked(data, slot, slot_bits) : data[slot];
  }
};

absl::Status CheckSubByte(const TiledLayout& layout, const SubByte& sub, const uint8_t* in,
                          const std::vector<uint8_t>& fill) {
  for (int64_t slot = 0; slot < layout.slot_count(); ++slot) {
    std::optional<IndexVector> e = layout.LogicalIndex(slot);
    uint8_t want = e ? sub.Value(RowMajor(layout, *e)) : (fill.empty() ? 0 : fill[0]);
    if (sub.slot_bits < 8) want &= (1u << sub.slot_bits) - 1;
    if (sub.Load(in, slot) != want) {
      return absl::DataLossError(absl::StrCat(
          "slot ", slot, " (",
          e ? absl::StrCat("element ", absl::StrJoin(*e, ",")) : std::string("padding"),
          ") holds 0x", absl::Hex(sub.Load(in, slot)), ", expected 0x", absl::Hex(want)));
    }
  }
  return absl::OkStatus();
}

}  // namespace

void FillSourcePattern(const TiledLayout& layout, void* buffer) {
  const int64_t es = layout.element_size_in_bits() / 8;
  uint8_t* out = static_cast<uint8_t*>(buffer);
  std::memset(out, 0xEE, layout.byte_size());
  if (layout.element_count() == 0) return;
  const SubByte sub(layout);
  if (sub.type_bits != 0) {
    IndexVector e(layout.rank(), 0);
    for (int64_t i = 0; i < layout.element_count(); ++i) {
      const int64_t slot = layout.LinearIndex(e);
      if (sub.slot_bits < 8) {
        StorePacked(out, slot, sub.slot_bits, sub.Value(i));
      } else {
        out[slot] = sub.Value(i);
      }
      for (int d = layout.rank() - 1; d >= 0; --d) {
        if (++e[d] < layout.logical_dims()[d]) break;
        e[d] = 0;
      }
    }
    return;
  }
  IndexVector e(layout.rank(), 0);
  for (int64_t i = 0; i < layout.element_count(); ++i) {
    PatternOf(i, es, out + layout.LinearIndex(e) * es);
    for (int d = layout.rank() - 1; d >= 0; --d) {
      if (++e[d] < layout.logical_dims()[d]) break;
      e[d] = 0;
    }
  }
}

absl::Status CheckDestination(const TiledLayout& layout, const void* buffer,
                              const std::vector<uint8_t>& fill) {
  const int64_t es = layout.element_size_in_bits() / 8;
  const uint8_t* in = static_cast<const uint8_t*>(buffer);
  const SubByte sub(layout);
  if (sub.type_bits != 0) return CheckSubByte(layout, sub, in, fill);
  std::vector<uint8_t> want(es);
  for (int64_t slot = 0; slot < layout.slot_count(); ++slot) {
    std::optional<IndexVector> e = layout.LogicalIndex(slot);
    if (e) {
      PatternOf(RowMajor(layout, *e), es, want.data());
    } else {
      for (int64_t b = 0; b < es; ++b) want[b] = fill.empty() ? 0 : fill[b % fill.size()];
    }
    if (std::memcmp(in + slot * es, want.data(), es) != 0) {
      return absl::DataLossError(absl::StrCat(
          "slot ", slot, " (",
          e ? absl::StrCat("element ", absl::StrJoin(*e, ","))
            : std::string("padding"),
          ") holds 0x", Hex(in + slot * es, es), ", expected 0x",
          Hex(want.data(), es)));
    }
  }
  return absl::OkStatus();
}

}  // namespace xla_layout
