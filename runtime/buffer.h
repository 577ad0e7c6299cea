// Values of the executor: arrays live in buffers in their physical layout
// (tiled, padded, sub-byte packed), tuples hold values. ArrayInfo compiles a
// shape's index math once (it asks TiledLayout, which owns the formulas) into
// the form the ops use: the slot of a logical index.
#ifndef RUNTIME_BUFFER_H_
#define RUNTIME_BUFFER_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "runtime/element.h"
#include "xla_layout/shape.h"
#include "xla_layout/tiled_layout.h"

namespace xla_layout::runtime {

class ArrayInfo {
 public:
  // `shape` is an array of a supported type with a layout (bounded dynamic
  // dims are taken at their bound).
  static absl::StatusOr<std::shared_ptr<const ArrayInfo>> Create(const Shape& shape);

  const Shape& shape() const { return tiled_.shape(); }
  PrimitiveType type() const { return shape().element_type(); }
  const TiledLayout& tiled() const { return tiled_; }
  int rank() const { return tiled_.rank(); }
  absl::Span<const int64_t> dims() const { return tiled_.logical_dims(); }
  int64_t element_count() const { return tiled_.element_count(); }
  int64_t byte_size() const { return tiled_.byte_size(); }
  // Whether slot k holds the element of row-major index k (no padding, no
  // reordering): ops can then walk the buffer linearly.
  bool row_major_dense() const { return row_major_dense_; }

  // The slot of a logical index. When every tiled dim is a digit of one
  // logical dim the slot is a sum of one offset per dim (DimOffset), read
  // from tables built with TiledLayout::LinearIndex; otherwise it asks
  // LinearIndex itself.
  int64_t Slot(absl::Span<const int64_t> index) const;
  bool separable() const { return !offsets_.empty() || rank() == 0; }
  // Only when separable(): Slot(index) == origin() + sum of DimOffset(d, index[d]).
  int64_t DimOffset(int dim, int64_t coordinate) const { return offsets_[dim][coordinate]; }
  int64_t origin() const { return origin_; }
  int slot_bits() const { return slot_bits_; }

  Num Load(const uint8_t* data, int64_t slot) const;
  void Store(uint8_t* data, int64_t slot, Num value) const;
  // An element's bits as its type has them (the slot's unused high bits
  // dropped), and back (sign-extended into a wider slot for s4): bit-exact
  // moves that keep NaN payloads, for the data-movement ops.
  uint64_t LoadBits(const uint8_t* data, int64_t slot) const;
  void StoreBits(uint8_t* data, int64_t slot, uint64_t bits) const;

  // Only Create makes one (the key is private); public for std::make_shared.
  class Key {
    friend class ArrayInfo;
    explicit Key() = default;
  };
  ArrayInfo(Key, TiledLayout tiled) : tiled_(std::move(tiled)) {}

 private:
  TiledLayout tiled_;
  int slot_bits_ = 8;
  int type_bits_ = 8;
  bool sign_extend_ = false;  // a signed type narrower than its slot
  bool row_major_dense_ = false;
  int64_t origin_ = 0;
  std::vector<std::vector<int64_t>> offsets_;
};

// An array (info + bytes, bytes shared by bitcasts), a tuple, or a token
// (the ordering value of infeed, outfeed and after-all; it holds nothing).
struct Value {
  std::shared_ptr<const ArrayInfo> info;
  std::shared_ptr<std::vector<uint8_t>> bytes;
  std::vector<Value> elements;
  enum class Kind { kArray, kTuple, kToken } kind = Kind::kArray;

  static Value Tuple(std::vector<Value> elements);
  static Value Token() {
    Value v;
    v.kind = Kind::kToken;
    return v;
  }
  // A zeroed buffer (padding slots are zero and stay so).
  static absl::StatusOr<Value> Allocate(std::shared_ptr<const ArrayInfo> info);

  bool is_array() const { return kind == Kind::kArray; }
  const uint8_t* data() const { return bytes->data(); }
  uint8_t* mutable_data() { return bytes->data(); }
};

// While a scope lives on a thread, the buffers Value::Allocate hands out on
// that thread go back to the process's pool when their last Value goes, and
// allocations of the same byte size take them (zeroed again) instead of
// fresh memory: a fresh buffer of megabytes costs a page fault per 4 KiB, a
// reused one a memset. So a run reuses what its dead values held, and the
// next run of the same module what the last one left. The pool holds at
// most kMaxPooledBytes (what does not fit is freed); values may cross
// threads, the pool takes a lock. Contents never carry over: every buffer
// handed out is zeroed.
class BufferReuseScope {
 public:
  static constexpr int64_t kMaxPooledBytes = int64_t{128} << 20;
  BufferReuseScope();
  ~BufferReuseScope();
  BufferReuseScope(const BufferReuseScope&) = delete;
  BufferReuseScope& operator=(const BufferReuseScope&) = delete;

  struct Pool;
  // Test-only: the bytes the pool holds now.
  static int64_t PooledBytesForTesting();

 private:
  bool outermost_;
};

// A logical array: row-major, the natural element size (one byte for pred,
// s4 and u4, sign-extended for s4), little-endian; what .npy files hold and
// what verify compares.
struct LogicalArray {
  Shape shape;  // default layout
  std::vector<uint8_t> bytes;
};

// Calls `fn(index)` for every index of `dims` in row-major order.
template <typename Fn>
void ForEachIndex(absl::Span<const int64_t> dims, Fn&& fn) {
  const int rank = static_cast<int>(dims.size());
  for (int64_t d : dims) {
    if (d == 0) return;
  }
  IndexVector index(rank, 0);
  while (true) {
    fn(static_cast<const IndexVector&>(index));
    int d = rank - 1;
    for (; d >= 0; --d) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

}  // namespace xla_layout::runtime

#endif  // RUNTIME_BUFFER_H_
