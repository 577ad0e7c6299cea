#include "xla_layout/test_util.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "xla_layout/primitive_type.h"
#include "xla_layout/shape_text.h"
#include "xla_layout/tiled_layout.h"

namespace xla_layout {
namespace {

int64_t Uniform(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

Layout TryRandomLayout(std::mt19937_64& rng, const Shape& shape,
                       const RandomShapeOptions& options) {
  int rank = shape.rank();
  std::vector<int64_t> m2m(rank);
  std::iota(m2m.begin(), m2m.end(), 0);
  std::shuffle(m2m.begin(), m2m.end(), rng);
  Layout layout(m2m);
  int levels = static_cast<int>(Uniform(rng, 0, options.max_tile_levels));
  int current_rank = rank == 0 ? 1 : rank;
  for (int l = 0; l < levels; ++l) {
    int k = static_cast<int>(Uniform(rng, 1, current_rank));
    std::vector<int64_t> tile(k);
    int stars = 0;
    for (int i = 0; i < k; ++i) {
      bool star = options.allow_combine && i < k - 1 && Uniform(rng, 0, 3) == 0;
      tile[i] = star ? kCombineDimension : Uniform(rng, 1, options.max_tile);
      stars += star;
    }
    layout.add_tile(Tile(tile));
    current_rank += k - 2 * stars;
  }
  if (options.allow_attributes) {
    if (Uniform(rng, 0, 5) == 0) layout.set_memory_space(Uniform(rng, 1, 3));
    if (Uniform(rng, 0, 5) == 0) {
      layout.set_tail_padding_alignment_in_elements(Uniform(rng, 2, 16));
    }
    int64_t bits = PrimitiveBitWidth(shape.element_type());
    if (bits < 8 && Uniform(rng, 0, 1) == 0) {
      layout.set_element_size_in_bits(bits);
    } else if (Uniform(rng, 0, 7) == 0) {
      layout.set_element_size_in_bits(std::max<int64_t>(bits, 8) * 2);
    }
  }
  return layout;
}

}  // namespace



Layout RandomLayoutFor(std::mt19937_64& rng, const Shape& shape,
                       const RandomShapeOptions& options) {
  // With more elements than max_slots no layout fits, and the search would
  // never end: the first untiled one is taken.
  absl::StatusOr<int64_t> count = shape.ElementCount();
  const bool fits = count.ok() && *count <= options.max_slots;
  for (int attempt = 0;; ++attempt) {
    Layout layout = TryRandomLayout(rng, shape, options);
    if (attempt >= 100 || !fits) layout.clear_tiles();  // Tiles pad too much here.
    Shape with_layout = shape;
    with_layout.set_layout(layout);
    absl::StatusOr<TiledLayout> tiled = TiledLayout::Create(with_layout);
    if (tiled.ok() && (tiled->slot_count() <= options.max_slots || !fits)) return layout;
  }
}

Shape ParseTestShape(absl::string_view text) {
  absl::StatusOr<Shape> shape = ParseShape(text);
  EXPECT_TRUE(shape.ok()) << text << ": " << shape.status();
  return shape.ok() ? *std::move(shape) : Shape();
}

Shape RandomArrayShape(std::mt19937_64& rng,
                       const RandomShapeOptions& options) {
  static const PrimitiveType kDefaultTypes[] = {PRED, S4,  U4,  S8,  U8,
                                                BF16, F16, S32, F32, U32,
                                                F64,  S64, C64, C128};
  PrimitiveType type;
  if (options.types.empty()) {
    type = kDefaultTypes[Uniform(rng, 0, std::size(kDefaultTypes) - 1)];
  } else {
    type = options.types[Uniform(rng, 0, options.types.size() - 1)];
  }
  int rank = static_cast<int>(Uniform(rng, 0, options.max_rank));
  std::vector<int64_t> dims(rank);
  // Leave room for tiles to pad: the untiled array takes at most 1/8.
  int64_t product;
  do {
    product = 1;
    for (int64_t& d : dims) product *= d = Uniform(rng, 1, options.max_dim);
  } while (product * 8 > options.max_slots);
  Shape shape(type, dims);
  shape.set_layout(RandomLayoutFor(rng, shape, options));
  return shape;
}

GuardedBytes::GuardedBytes(size_t bytes, Side side) : bytes_(bytes) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_ = (bytes + page - 1) / page * page + page;
  void* p = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    ADD_FAILURE() << "mmap of " << size_ << " bytes failed";
    size_ = 0;
    return;
  }
  base_ = static_cast<uint8_t*>(p);
  uint8_t* guard = side == kBeforeGuard ? base_ + size_ - page : base_;
  EXPECT_EQ(mprotect(guard, page, PROT_NONE), 0);
  data_ = side == kBeforeGuard ? guard - bytes : base_ + page;
}

GuardedBytes::~GuardedBytes() {
  if (base_ != nullptr) munmap(base_, size_);
}

void FillRandomBytes(std::mt19937_64& rng, absl::Span<uint8_t> bytes) {
  for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
}

absl::Status CheckRelayout(const TiledLayout& src, const uint8_t* in,
                           const TiledLayout& dst, const uint8_t* out,
                           absl::Span<const uint8_t> fill) {
  const int64_t es = dst.element_size_in_bits() / 8;
  for (int64_t slot = 0; slot < dst.slot_count(); ++slot) {
    std::optional<IndexVector> e = dst.LogicalIndex(slot);
    for (int64_t b = 0; b < es; ++b) {
      uint8_t want = e ? in[src.LinearIndex(*e) * es + b]
                       : (fill.empty() ? 0 : fill[b % fill.size()]);
      if (out[slot * es + b] != want) {
        return absl::DataLossError(absl::StrCat(
            "slot ", slot, " (",
            e ? absl::StrCat("element ", absl::StrJoin(*e, ","))
              : std::string("padding"),
            "), byte ", b, ": 0x", absl::Hex(out[slot * es + b], absl::kZeroPad2),
            ", expected 0x", absl::Hex(want, absl::kZeroPad2)));
      }
    }
  }
  return absl::OkStatus();
}

std::vector<Isa> SimdPathsHere() {
  std::vector<Isa> paths;
  if (DetectIsa() == Isa::kAvx2 || DetectIsa() == Isa::kAvx512) paths.push_back(Isa::kAvx2);
  if (DetectIsa() == Isa::kAvx512) paths.push_back(Isa::kAvx512);
  return paths;
}

std::vector<Isa> IsaPathsHere() {
  std::vector<Isa> paths = {Isa::kScalar};
  for (Isa isa : SimdPathsHere()) paths.push_back(isa);
  return paths;
}

absl::Status RunAndCheckRelayout(const RelayoutPlan& plan, const Shape& src, const Shape& dst,
                                 absl::Span<const uint8_t> fill, std::mt19937_64& rng) {
  absl::StatusOr<TiledLayout> s = TiledLayout::Create(src);
  if (!s.ok()) return s.status();
  absl::StatusOr<TiledLayout> d = TiledLayout::Create(dst);
  if (!d.ok()) return d.status();
  std::vector<uint8_t> in(s->byte_size()), out(d->byte_size(), 0x5A);
  FillRandomBytes(rng, absl::MakeSpan(in));
  plan.Execute(in.data(), out.data());
  return CheckRelayout(*s, in.data(), *d, out.data(), fill);
}

absl::StatusOr<RelayoutPlan> OneThreadPlan(const Shape& src, const Shape& dst, Isa isa,
                                           absl::Span<const uint8_t> fill,
                                           RelayoutOptions::Streaming streaming) {
  RelayoutOptions options;
  options.isa = isa;
  options.threads = 1;
  options.padding_value.assign(fill.begin(), fill.end());
  options.streaming = streaming;
  return RelayoutPlan::Create(src, dst, options);
}

absl::Status CheckOneThreadRelayout(absl::string_view src, absl::string_view dst, Isa isa,
                                    absl::Span<const uint8_t> fill, std::mt19937_64& rng,
                                    std::string* describe) {
  const Shape src_shape = ParseTestShape(src), dst_shape = ParseTestShape(dst);
  absl::StatusOr<RelayoutPlan> plan = OneThreadPlan(src_shape, dst_shape, isa, fill);
  const std::string where = absl::StrCat(src, " -> ", dst, " on ", IsaName(isa), ": ");
  if (!plan.ok()) return absl::Status(plan.status().code(), where + plan.status().ToString());
  if (describe != nullptr) *describe = plan->Describe();
  absl::Status check = RunAndCheckRelayout(*plan, src_shape, dst_shape, fill, rng);
  if (!check.ok()) return absl::Status(check.code(), where + check.ToString());
  return absl::OkStatus();
}

}  // namespace xla_layout
