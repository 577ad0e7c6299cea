#include "tools/relayout_check.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

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

}  // namespace

void FillSourcePattern(const TiledLayout& layout, void* buffer) {
  const int64_t es = layout.element_size_in_bits() / 8;
  uint8_t* out = static_cast<uint8_t*>(buffer);
  std::memset(out, 0xEE, layout.byte_size());
  if (layout.element_count() == 0) return;
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
