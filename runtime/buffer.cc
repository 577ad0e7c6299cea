#include "runtime/buffer.h"

#include <cstring>
#include <map>

#include "absl/synchronization/mutex.h"

#include "absl/strings/str_cat.h"
#include "xla_layout/memory.h"
#include "xla_layout/subbyte.h"

namespace xla_layout::runtime {

absl::StatusOr<std::shared_ptr<const ArrayInfo>> ArrayInfo::Create(const Shape& shape) {
  if (!shape.IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the executor needs an array shape, not ", shape.ToString()));
  }
  absl::Status type = CheckStorableType(shape.element_type());
  if (!type.ok()) return type;
  absl::StatusOr<TiledLayout> tiled = TiledLayout::Create(shape);
  if (!tiled.ok()) return tiled.status();
  const Layout& layout = tiled->shape().layout();
  // A memory space does not move elements; these do, and are not modelled.
  if (!layout.split_configs().empty() || !layout.dim_level_types().empty() ||
      layout.dynamic_shape_metadata_prefix_bytes() != 0) {
    return absl::UnimplementedError(absl::StrCat(
        "layout ", layout.ToString(), " (sparse, SC or M) is not supported by the executor"));
  }
  auto info = std::make_shared<ArrayInfo>(Key(), *std::move(tiled));
  const TiledLayout& t = info->tiled_;
  info->slot_bits_ = static_cast<int>(t.element_size_in_bits());
  if (info->slot_bits_ != 1 && info->slot_bits_ != 2 && info->slot_bits_ != 4 &&
      info->slot_bits_ % 8 != 0) {
    return absl::UnimplementedError(
        absl::StrCat("E(", info->slot_bits_, ") is not supported by the executor"));
  }
  if (info->slot_bits_ > 64) {
    return absl::UnimplementedError(
        absl::StrCat("E(", info->slot_bits_, ") is wider than the executor's 64-bit elements"));
  }
  // pred is one byte of 0 or 1; a slot wider than a signed sub-byte type
  // holds the value sign-extended, as the packing core unpacks it.
  info->type_bits_ = shape.element_type() == PRED ? 8 : TypeBits(shape.element_type());
  info->sign_extend_ = DomainOf(shape.element_type()) == Domain::kSigned &&
                       info->type_bits_ < info->slot_bits_;
  const int rank = t.rank();
  IndexVector zero(rank, 0);
  info->origin_ = t.element_count() > 0 ? t.LinearIndex(zero) : 0;
  if (t.digits().has_value() && t.element_count() > 0 && rank > 0) {
    info->offsets_.resize(rank);
    for (int d = 0; d < rank; ++d) {
      IndexVector e(rank, 0);
      auto& table = info->offsets_[d];
      table.resize(t.logical_dims()[d]);
      for (int64_t x = 0; x < t.logical_dims()[d]; ++x) {
        e[d] = x;
        table[x] = t.LinearIndex(e) - info->origin_;
      }
    }
  }
  // Row-major dense: no padding and the last-to-first strides of row-major.
  if (t.slot_count() == t.element_count() && info->separable()) {
    bool dense = true;
    int64_t stride = 1;
    for (int d = rank - 1; d >= 0 && dense; --d) {
      const int64_t n = t.logical_dims()[d];
      if (n > 1 && info->offsets_[d][1] != stride) dense = false;
      stride *= n;
    }
    info->row_major_dense_ = dense && info->origin_ == 0;
  }
  return std::shared_ptr<const ArrayInfo>(std::move(info));
}

int64_t ArrayInfo::Slot(absl::Span<const int64_t> index) const {
  if (offsets_.empty()) return rank() == 0 ? origin_ : tiled_.LinearIndex(index);
  int64_t slot = origin_;
  for (size_t d = 0; d < index.size(); ++d) slot += offsets_[d][index[d]];
  return slot;
}

uint64_t ArrayInfo::LoadBits(const uint8_t* data, int64_t slot) const {
  uint64_t bits = 0;
  if (slot_bits_ < 8) {
    bits = LoadPacked(data, slot, slot_bits_);
  } else {
    std::memcpy(&bits, data + slot * (slot_bits_ / 8), slot_bits_ / 8);
  }
  return type_bits_ < 64 ? bits & ((uint64_t{1} << type_bits_) - 1) : bits;
}

void ArrayInfo::StoreBits(uint8_t* data, int64_t slot, uint64_t bits) const {
  if (sign_extend_) bits = static_cast<uint64_t>(SignExtend(bits, type_bits_));
  if (slot_bits_ < 8) {
    StorePacked(data, slot, slot_bits_, static_cast<uint8_t>(bits));
    return;
  }
  std::memcpy(data + slot * (slot_bits_ / 8), &bits, slot_bits_ / 8);
}

Num ArrayInfo::Load(const uint8_t* data, int64_t slot) const {
  return FromBits(LoadBits(data, slot), type());
}

void ArrayInfo::Store(uint8_t* data, int64_t slot, Num value) const {
  StoreBits(data, slot, ToBits(value, type()));
}

Value Value::Tuple(std::vector<Value> elements) {
  Value v;
  v.kind = Kind::kTuple;
  v.elements = std::move(elements);
  return v;
}

struct BufferReuseScope::Pool {
  absl::Mutex mu;
  int64_t held = 0;
  std::multimap<size_t, std::unique_ptr<std::vector<uint8_t>>> free;

  // Keeps `buffer` for a later allocation, or deletes it.
  void Return(std::vector<uint8_t>* buffer) {
    std::unique_ptr<std::vector<uint8_t>> owned(buffer);
    absl::MutexLock lock(&mu);
    const auto size = static_cast<int64_t>(owned->size());
    if (held + size > kMaxPooledBytes) return;
    held += size;
    free.emplace(owned->size(), std::move(owned));
  }
  std::unique_ptr<std::vector<uint8_t>> Take(size_t size) {
    absl::MutexLock lock(&mu);
    auto it = free.find(size);
    if (it == free.end()) return nullptr;
    std::unique_ptr<std::vector<uint8_t>> buffer = std::move(it->second);
    free.erase(it);
    held -= static_cast<int64_t>(size);
    return buffer;
  }
};

namespace {
// Never destroyed: buffers may go back to it during static destruction.
const std::shared_ptr<BufferReuseScope::Pool>& ProcessPool() {
  static auto* pool = new std::shared_ptr<BufferReuseScope::Pool>(
      std::make_shared<BufferReuseScope::Pool>());
  return *pool;
}
thread_local std::shared_ptr<BufferReuseScope::Pool> current_pool;
}  // namespace

BufferReuseScope::BufferReuseScope() : outermost_(current_pool == nullptr) {
  if (outermost_) current_pool = ProcessPool();
}

BufferReuseScope::~BufferReuseScope() {
  if (outermost_) current_pool = nullptr;
}

int64_t BufferReuseScope::PooledBytesForTesting() {
  absl::MutexLock lock(&ProcessPool()->mu);
  return ProcessPool()->held;
}

absl::StatusOr<Value> Value::Allocate(std::shared_ptr<const ArrayInfo> info) {
  const int64_t size = info->byte_size();
  absl::Status room = CheckAllocationSize(size, "an executor buffer");
  if (!room.ok()) return room;
  Value v;
  v.info = std::move(info);
  std::shared_ptr<BufferReuseScope::Pool> pool = current_pool;
  if (pool == nullptr) {
    v.bytes = std::make_shared<std::vector<uint8_t>>(size, 0);
    return v;
  }
  std::unique_ptr<std::vector<uint8_t>> buffer = pool->Take(static_cast<size_t>(size));
  if (buffer != nullptr) {
    std::memset(buffer->data(), 0, buffer->size());
  } else {
    buffer = std::make_unique<std::vector<uint8_t>>(size, 0);
  }
  v.bytes = std::shared_ptr<std::vector<uint8_t>>(
      buffer.release(), [pool](std::vector<uint8_t>* b) { pool->Return(b); });
  return v;
}

}  // namespace xla_layout::runtime
