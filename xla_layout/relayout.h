// The packing core: moves an array from one layout to another. A plan is
// built once (all validation and loop planning happen in Create) and executed
// many times; Execute cannot fail.
//
// Supported: any two dense layouts of the same logical array (type and dims)
// with any minor_to_major, any number of tiling levels, '*' combined dims,
// L(n) tail padding, and elements of any whole number of bytes (the natural
// sizes, or E(n) of whole bytes such as E(48), equal on both sides). Padding
// slots of the destination are always written with the fill value, so the
// output is deterministic.
//
// Sub-byte elements (E(1), E(2), E(4), on either side or both; xla_layout/
// subbyte.h says where a packed slot lives) are unpacked to one byte per slot
// (sign-extended for s2/s4), moved by the byte plan, and packed again.
//
// Not supported, with an error from Create: shapes that are not arrays or
// not the same logical array, sparse layouts (D, #, *, P), split configs
// (SC) and dynamic-shape metadata (M), E(n) that is neither 1, 2, 4 nor
// whole bytes, a sub-byte E(n) narrower than the element type, different
// whole-byte E(n) on the two sides, and unbounded dims. Options are refused
// too: a padding_value of neither 1 byte nor the element's size, and
// allow_in_place when the two buffers differ in size.
//
// How: each layout's tiled dims are digits of the logical indices
// (TiledLayout::digits). The planner refines both sides' digits into one loop
// nest with a source and destination stride per loop, splits the valid region
// and the padding into boxes at the partial tiles, drops size-1 loops, fuses
// loops contiguous on both sides, and runs each box with a kernel: contiguous
// runs (memcpy or streaming stores), 2-D block transposes (SIMD), or a
// strided loop. Layouts with no digit form use a gather table built from the
// same index math.
#ifndef XLA_LAYOUT_RELAYOUT_H_
#define XLA_LAYOUT_RELAYOUT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla_layout/isa.h"  // IWYU pragma: export
#include "xla_layout/shape.h"
#include "xla_layout/tiled_layout.h"

namespace xla_layout {

struct RelayoutOptions {
  // Bytes written into every padding slot: empty means zeros; one byte is
  // repeated; otherwise exactly the element's byte size.
  std::vector<uint8_t> padding_value;
  // The most threads the plan may use; 0 means every hardware thread. The
  // plan takes fewer when its estimated time says more would not pay for
  // handing them their shares (internal::ThreadsForCost). The threads are
  // the calling thread and workers of WorkerPool::Shared(), started once
  // per process; a share that a worker has not started when the calling
  // thread is done with its own, the calling thread takes
  // (WorkerPool::RunClaimed).
  int threads = 0;
  // Lets Execute take src == dst (same buffer, same byte size). The plan then
  // keeps a scratch copy of the source.
  bool allow_in_place = false;
  Isa isa = Isa::kAuto;
  // Non-temporal stores: kAuto uses them when the destination is larger
  // than the cache (16 MiB, or the L3 size if smaller).
  enum class Streaming { kAuto, kOn, kOff };
  Streaming streaming = Streaming::kAuto;
};

// What kind of kernel moves most of a relayout's bytes; the layout pass
// prices a copy at its class's throughput (TargetLayoutConfig's
// copy_throughput, measured by `hlo-layout calibrate`).
enum class CopyClass {
  kContiguous,  // runs of at least kContiguousRunBytes on both sides
  kTile,        // shorter runs: 2-D tiles copied line by line
  kTranspose,   // element transposes, strided loops and gather tables
  kSubByte,     // E(1|2|4) elements, unpacked and packed around a byte plan
};
inline constexpr int64_t kContiguousRunBytes = 4096;
absl::string_view CopyClassName(CopyClass c);  // "contiguous", "tile", ...

namespace internal {
// One thread's estimated throughput (bytes read plus written per second) on
// a copy of `copy_class`, from cache or from memory, on the host that runs
// the plan: it decides thread counts only. A target's copy_throughput
// (TargetLayoutConfig, `hlo-layout calibrate`) is the other table of rates:
// what the layout pass charges a copy on the machine it compiles for.
double OneThreadBytesPerSecond(CopyClass copy_class, bool in_cache);
// The thread count (1..max_threads) that a plan moving `bytes_moved` bytes
// takes: the one whose estimated time, the hand-off to each worker included,
// is lowest (the fewest on a tie). Small copies, and copies that memory
// bandwidth already limits, stay on fewer threads; more bytes never mean
// fewer threads.
int ThreadsForCost(CopyClass copy_class, int64_t bytes_moved, bool in_cache,
                   int max_threads);
}  // namespace internal

class RelayoutPlan {
 public:
  static absl::StatusOr<RelayoutPlan> Create(const Shape& src,
                                             const Shape& dst,
                                             RelayoutOptions options = {});
  // OK when Create would accept the pair (it checks no more than this and
  // plans nothing): what a pass asks before it inserts a copy.
  static absl::Status Validate(const Shape& src, const Shape& dst);
  // The class of the plan Create would build, without building it (no
  // gather table, no buffers): what a pass asks to price a copy.
  static absl::StatusOr<CopyClass> Classify(const Shape& src, const Shape& dst);
  RelayoutPlan(RelayoutPlan&&) noexcept;
  RelayoutPlan& operator=(RelayoutPlan&&) noexcept;
  ~RelayoutPlan();

  // Reads src_bytes() from `src`, writes dst_bytes() to `dst`. The buffers
  // must not overlap, except src == dst when allow_in_place was set.
  void Execute(const void* src, void* dst) const;

  int64_t src_bytes() const;
  int64_t dst_bytes() const;
  // Bytes of logical elements (no padding): what one run reads, and writes.
  int64_t element_bytes() const;
  int threads() const;
  Isa isa() const;
  CopyClass copy_class() const;
  // One line per step of the plan, for --explain and tests.
  std::string Describe() const;

 private:
  struct Impl;
  explicit RelayoutPlan(std::unique_ptr<Impl> impl);
  static absl::StatusOr<RelayoutPlan> CreateSubByte(const Shape& src,
                                                    const Shape& dst,
                                                    const TiledLayout& s,
                                                    const TiledLayout& d,
                                                    RelayoutOptions options);
  std::unique_ptr<Impl> impl_;
};

}  // namespace xla_layout

#endif  // XLA_LAYOUT_RELAYOUT_H_
