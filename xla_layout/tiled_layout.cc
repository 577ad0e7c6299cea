#include "xla_layout/tiled_layout.h"

#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "xla_layout/primitive_type.h"

namespace xla_layout {
namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

int64_t CeilOfRatio(int64_t a, int64_t b) { return a / b + (a % b != 0); }

bool MulOverflows(int64_t a, int64_t b, int64_t* out) {
  return __builtin_mul_overflow(a, b, out);
}

}  // namespace

absl::StatusOr<TiledLayout> TiledLayout::Create(const Shape& shape) {
  if (!shape.IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat("only array shapes have an index map, not ",
                     shape.ToString()));
  }
  absl::Status valid = shape.Validate();
  if (!valid.ok()) return valid;

  TiledLayout t;
  t.shape_ = shape;
  if (!t.shape_.has_layout()) {
    t.shape_.set_layout(DefaultLayoutForRank(shape.rank()));
  }
  const Layout& layout = t.shape_.layout();
  for (int i = 0; i < shape.rank(); ++i) {
    if (shape.is_unbounded_dynamic_dimension(i)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "dimension ", i, " of ", shape.ToString(),
          " is unbounded ('?'); its layout has no static size"));
    }
    t.logical_dims_.push_back(shape.dimensions(i));
  }
  t.minor_to_major_.assign(layout.minor_to_major().begin(),
                           layout.minor_to_major().end());

  absl::StatusOr<int64_t> count = shape.ElementCount();
  if (!count.ok()) return count.status();
  t.element_count_ = *count;

  Level physical;
  for (int i = shape.rank() - 1; i >= 0; --i) {
    physical.dims.push_back(t.logical_dims_[t.minor_to_major_[i]]);
  }
  if (shape.rank() == 0 && !layout.tiles().empty()) {
    t.scalar_tiled_ = true;
    physical.dims.push_back(1);
  }
  t.levels_.push_back(std::move(physical));
  for (const Tile& tile : layout.tiles()) {
    absl::Status tiled = t.AddLevel(tile, shape);
    if (!tiled.ok()) return tiled;
  }
  absl::Status sized = t.ComputeSizes(shape);
  if (!sized.ok()) return sized;
  t.ComputeDigits();
  return t;
}

absl::Status TiledLayout::AddLevel(const Tile& tile, const Shape& shape) {
  Level& level = levels_.back();
  const int n = static_cast<int>(level.dims.size());
  const int k = tile.rank();
  level.lead = n - k;
  Level next;
  next.dims.assign(level.dims.begin(), level.dims.begin() + level.lead);
  int begin = level.lead;
  for (int i = 0; i < k; ++i) {
    if (tile.dimension(i) == kCombineDimension) continue;
    int end = level.lead + i + 1;
    int64_t size = 1;
    for (int d = begin; d < end; ++d) {
      if (MulOverflows(size, level.dims[d], &size)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "folding dims with '*' in ", shape.ToString(), " overflows int64"));
      }
    }
    level.group_begin.push_back(begin);
    level.group_end.push_back(end);
    level.group_size.push_back(size);
    level.tile.push_back(tile.dimension(i));
    begin = end;
  }
  for (size_t g = 0; g < level.tile.size(); ++g) {
    next.dims.push_back(CeilOfRatio(level.group_size[g], level.tile[g]));
  }
  for (int64_t size : level.tile) next.dims.push_back(size);
  levels_.push_back(std::move(next));
  return absl::OkStatus();
}

absl::Status TiledLayout::ComputeSizes(const Shape& shape) {
  const Layout& layout = shape_.layout();
  const std::vector<int64_t>& final_dims = levels_.back().dims;
  final_strides_.assign(final_dims.size(), 1);
  int64_t slots = 1;
  for (int i = static_cast<int>(final_dims.size()) - 1; i >= 0; --i) {
    final_strides_[i] = slots;
    if (MulOverflows(slots, final_dims[i], &slots)) {
      return absl::InvalidArgumentError(
          absl::StrCat("the tiled size of ", shape.ToString(), " overflows int64"));
    }
  }
  tiled_slot_count_ = slots;
  int64_t align = layout.tail_padding_alignment_in_elements();
  if (slots > kInt64Max - align) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the padded size of ", shape.ToString(), " overflows int64"));
  }
  slot_count_ = CeilOfRatio(slots, align) * align;

  element_bits_ = layout.element_size_in_bits() != 0
                      ? layout.element_size_in_bits()
                      : PrimitiveByteSize(shape.element_type()) * 8;
  int64_t bits;
  if (MulOverflows(slot_count_, element_bits_, &bits)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the byte size of ", shape.ToString(), " overflows int64"));
  }
  byte_size_ = CeilOfRatio(bits, 8);
  return absl::OkStatus();
}

IndexVector TiledLayout::PhysicalIndex(absl::Span<const int64_t> index) const {
  IndexVector p;
  if (scalar_tiled_) {
    p.push_back(0);
    return p;
  }
  const int r = rank();
  p.resize(r);
  for (int i = 0; i < r; ++i) p[r - 1 - i] = index[minor_to_major_[i]];
  return p;
}

int64_t TiledLayout::LinearIndex(absl::Span<const int64_t> index) const {
  IndexVector cur = PhysicalIndex(index);
  IndexVector next;
  for (size_t l = 0; l + 1 < levels_.size(); ++l) {
    const Level& level = levels_[l];
    const size_t groups = level.tile.size();
    next.assign(cur.begin(), cur.begin() + level.lead);
    next.resize(level.lead + 2 * groups);
    for (size_t g = 0; g < groups; ++g) {
      int64_t c = 0;
      for (int d = level.group_begin[g]; d < level.group_end[g]; ++d) {
        c = c * level.dims[d] + cur[d];
      }
      next[level.lead + g] = c / level.tile[g];
      next[level.lead + groups + g] = c % level.tile[g];
    }
    std::swap(cur, next);
  }
  int64_t linear = 0;
  for (size_t i = 0; i < cur.size(); ++i) linear += cur[i] * final_strides_[i];
  return linear;
}

absl::StatusOr<int64_t> TiledLayout::CheckedLinearIndex(
    absl::Span<const int64_t> index) const {
  if (static_cast<int>(index.size()) != rank()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "index has ", index.size(), " entries but ", shape_.ToString(),
        " has rank ", rank()));
  }
  for (int i = 0; i < rank(); ++i) {
    if (index[i] < 0 || index[i] >= logical_dims_[i]) {
      return absl::OutOfRangeError(absl::StrCat(
          "index ", index[i], " is out of range for dimension ", i,
          " of size ", logical_dims_[i]));
    }
  }
  return LinearIndex(index);
}

std::optional<IndexVector> TiledLayout::LogicalIndex(int64_t slot) const {
  const std::vector<int64_t>& final_dims = levels_.back().dims;
  // Slots past the tiled array are L(n) tail padding.
  if (slot < 0 || slot >= tiled_slot_count_) return std::nullopt;
  IndexVector cur(final_dims.size());
  for (size_t i = 0; i < final_dims.size(); ++i) {
    cur[i] = slot / final_strides_[i];
    slot %= final_strides_[i];
  }
  IndexVector prev;
  for (int l = static_cast<int>(levels_.size()) - 2; l >= 0; --l) {
    const Level& level = levels_[l];
    const size_t groups = level.tile.size();
    prev.assign(cur.begin(), cur.begin() + level.lead);
    prev.resize(level.dims.size());
    for (size_t g = 0; g < groups; ++g) {
      int64_t c = cur[level.lead + g] * level.tile[g] +
                  cur[level.lead + groups + g];
      if (c >= level.group_size[g]) return std::nullopt;  // padding
      for (int d = level.group_end[g] - 1; d >= level.group_begin[g]; --d) {
        prev[d] = c % level.dims[d];
        c /= level.dims[d];
      }
    }
    std::swap(cur, prev);
  }
  IndexVector logical(rank());
  const int r = rank();
  for (int i = 0; i < r; ++i) logical[minor_to_major_[i]] = cur[r - 1 - i];
  return logical;
}

std::optional<IndexVector> TiledLayout::UntiledStrides() const {
  if (levels_.size() != 1) return std::nullopt;
  IndexVector strides(rank());
  const int r = rank();
  for (int i = 0; i < r; ++i) strides[minor_to_major_[i]] = final_strides_[r - 1 - i];
  return strides;
}

void TiledLayout::ComputeDigits() {
  struct D {
    int dim;  // -1: only coordinate 0 is valid
    int64_t divisor;
    int64_t extent;
  };
  auto constant = [](int64_t extent) { return D{-1, 1, extent}; };
  std::vector<D> cur;
  const int r = rank();
  if (scalar_tiled_) {
    cur.push_back(constant(1));
  } else {
    for (int i = r - 1; i >= 0; --i) {
      int dim = static_cast<int>(minor_to_major_[i]);
      int64_t size = logical_dims_[dim];
      cur.push_back(size == 1 ? constant(1) : D{dim, 1, size});
    }
  }
  // True when no other digit of `d.dim` is more significant: its coordinate is
  // then the whole quotient, and any tile size may split it.
  auto is_top = [&cur](const D& d, int skip_begin, int skip_end) {
    for (int i = 0; i < static_cast<int>(cur.size()); ++i) {
      if (i >= skip_begin && i < skip_end) continue;
      if (cur[i].dim == d.dim && cur[i].divisor > d.divisor) return false;
    }
    return true;
  };
  for (size_t l = 0; l + 1 < levels_.size(); ++l) {
    const Level& level = levels_[l];
    const size_t groups = level.tile.size();
    std::vector<D> next(cur.begin(), cur.begin() + level.lead);
    next.resize(level.lead + 2 * groups);
    for (size_t g = 0; g < groups; ++g) {
      D merged = cur[level.group_begin[g]];
      for (int i = level.group_begin[g] + 1; i < level.group_end[g]; ++i) {
        const D& minor = cur[i];
        if (merged.extent == 1 && merged.dim == -1) {
          merged = minor;
        } else if (minor.extent == 1 && minor.dim == -1) {
          // merged keeps its value: v * 1 + 0.
        } else if (merged.dim == minor.dim && merged.dim >= 0 &&
                   merged.divisor == minor.divisor * minor.extent) {
          merged = D{minor.dim, minor.divisor, merged.extent * minor.extent};
        } else {
          return;  // The fold mixes two logical dims: no digit form.
        }
      }
      int64_t t = level.tile[g];
      bool top = merged.dim < 0 ||
                 is_top(merged, level.group_begin[g], level.group_end[g]);
      if (merged.extent % t != 0 && !top) return;
      int64_t grid_extent = CeilOfRatio(merged.extent, t);
      if (merged.dim < 0) {
        // Only coordinate 0 is valid in a constant digit, so its grid is too.
        next[level.lead + g] = constant(grid_extent);
        next[level.lead + groups + g] = constant(t);
        continue;
      }
      // A digit of extent 1 is always 0; marking it constant keeps the
      // divisors of each logical dim distinct.
      next[level.lead + g] = grid_extent == 1
                                 ? constant(1)
                                 : D{merged.dim, merged.divisor * t, grid_extent};
      next[level.lead + groups + g] =
          t == 1 ? constant(1) : D{merged.dim, merged.divisor, t};
    }
    cur = std::move(next);
  }
  std::vector<Digit> digits;
  for (size_t i = 0; i < cur.size(); ++i) {
    digits.push_back(
        Digit{cur[i].dim, cur[i].divisor, cur[i].extent, final_strides_[i]});
  }
  digits_ = std::move(digits);
}

absl::Status CheckShapeSizes(const Shape& shape) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) {
      absl::Status st = CheckShapeSizes(s);
      if (!st.ok()) return st;
    }
    return absl::OkStatus();
  }
  if (!shape.IsArray()) return absl::OkStatus();
  for (int d = 0; d < shape.rank(); ++d) {
    if (shape.is_unbounded_dynamic_dimension(d)) return absl::OkStatus();
  }
  if (shape.has_layout() && !shape.layout().tiles().empty()) {
    return TiledLayout::Create(shape).status();
  }
  absl::StatusOr<int64_t> count = shape.ElementCount();
  if (!count.ok()) return count.status();
  // Sized in bits, as the index math sizes buffers.
  const int64_t element_bits =
      shape.has_layout() && shape.layout().element_size_in_bits() != 0
          ? shape.layout().element_size_in_bits()
          : PrimitiveByteSize(shape.element_type()) * 8;
  int64_t bits;
  if (MulOverflows(*count, element_bits, &bits)) {
    return absl::InvalidArgumentError(
        absl::StrCat("the byte size of ", shape.ToString(), " overflows int64"));
  }
  return absl::OkStatus();
}

}  // namespace xla_layout
