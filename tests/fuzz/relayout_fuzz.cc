// The packing core on layout pairs derived from the input: a random shape
// (rank 1-3, small dims, 1-8 byte elements) and two random layouts (any
// dimension order, up to two tile levels with '*' and 1s, element size in
// bits). The plan either refuses the pair or moves every element to the slot
// the index math names and fills the padding.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tests/fuzz/fuzz_check.h"
#include "tools/relayout_check.h"
#include "xla_layout/memory.h"
#include "xla_layout/relayout.h"
#include "xla_layout/shape_text.h"
#include "xla_layout/tiled_layout.h"

namespace {

class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  int Next(int n) { return n <= 1 ? 0 : (pos_ < size_ ? data_[pos_++] : 0) % n; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

std::string RandomLayout(Bytes& in, int rank) {
  std::vector<int> order(rank);
  for (int i = 0; i < rank; ++i) order[i] = i;
  for (int i = rank - 1; i > 0; --i) std::swap(order[i], order[in.Next(i + 1)]);
  std::string text = absl::StrCat("{", absl::StrJoin(order, ","));
  int levels = in.Next(3);
  if (levels > 0) {
    text += ":T";
    for (int l = 0; l < levels; ++l) {
      int tile_rank = 1 + in.Next(l == 0 ? rank : 2);
      std::vector<std::string> dims;
      for (int d = 0; d < tile_rank; ++d) {
        int pick = in.Next(8);
        dims.push_back(pick == 0 ? "*" : std::to_string(1 + in.Next(9)));
      }
      absl::StrAppend(&text, "(", absl::StrJoin(dims, ","), ")");
    }
  }
  return text + "}";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes in(data, size);
  static const char* kTypes[] = {"u8", "s16", "f32", "f64", "bf16", "s32"};
  std::string type = kTypes[in.Next(6)];
  int rank = 1 + in.Next(3);
  std::vector<int64_t> dims;
  for (int d = 0; d < rank; ++d) dims.push_back(1 + in.Next(24));
  std::string base = absl::StrCat(type, "[", absl::StrJoin(dims, ","), "]");
  std::string src_text = base + RandomLayout(in, rank);
  std::string dst_text = base + RandomLayout(in, rank);
  absl::StatusOr<xla_layout::Shape> src = xla_layout::ParseShape(src_text);
  absl::StatusOr<xla_layout::Shape> dst = xla_layout::ParseShape(dst_text);
  if (!src.ok() || !dst.ok()) return 0;
  xla_layout::RelayoutOptions options;
  options.threads = 1 + in.Next(2);
  static const xla_layout::Isa kIsas[] = {xla_layout::Isa::kAuto, xla_layout::Isa::kScalar,
                                          xla_layout::Isa::kAvx2, xla_layout::Isa::kAvx512};
  options.isa = kIsas[in.Next(4)];
  absl::StatusOr<xla_layout::RelayoutPlan> plan =
      xla_layout::RelayoutPlan::Create(*src, *dst, options);
  if (!plan.ok()) return 0;
  absl::StatusOr<xla_layout::TiledLayout> s = xla_layout::TiledLayout::Create(*src);
  absl::StatusOr<xla_layout::TiledLayout> d = xla_layout::TiledLayout::Create(*dst);
  FUZZ_CHECK(s.ok() && d.ok(), src_text + " -> " + dst_text);
  absl::StatusOr<xla_layout::AlignedBuffer> src_buf = xla_layout::AllocateAligned(plan->src_bytes(), "src");
  absl::StatusOr<xla_layout::AlignedBuffer> dst_buf = xla_layout::AllocateAligned(plan->dst_bytes(), "dst");
  FUZZ_CHECK(src_buf.ok() && dst_buf.ok(), "allocation");
  xla_layout::FillSourcePattern(*s, src_buf->get());
  plan->Execute(src_buf->get(), dst_buf->get());
  absl::Status checked = xla_layout::CheckDestination(*d, dst_buf->get(), {});
  FUZZ_CHECK(checked.ok(), src_text + " -> " + dst_text + ": " + std::string(checked.message()));
  return 0;
}
