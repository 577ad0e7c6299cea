// Small plans (internal to xla_layout/): a relayout whose destination is at
// most kSmallPlanBytes, run on one thread in cache, is compiled at plan time
// into a short list of ops that RelayoutPlan::Execute runs in one loop.
//
// Why: through the general path a tiny copy pays for the work items, the
// loop recursion and the kernel set's switches from AVX-512 to AVX2 to the
// scalar transpose on every run, several times what memcpy of its bytes
// costs (docs/packing-core.md, "Small plans", has the figures).
// An op is one task of the plan with its kernel chosen once, for its sizes
// (rows of 4 to 512 bytes as fixed-size moves, a byte interleave of four
// rows, transposes of short 32-bit source rows (transpose_weights.h), the
// kernel set's plane kernels), and its loops' strides bound; a run
// costs one indirect call per op. On AVX-512 with VBMI, a copy whose source
// is at most 128 bytes and destination at most 256 is one op: one byte
// permute of the source per 64 bytes of destination, the padding merged in.
// On AVX-512, rows of 32 bytes written back to back (T(8,8) and T(8,1)
// tiles to and from row-major) go two per 64-byte store, and when the
// source rows continue (row-major into panels) each source line is read
// once, whole, its halves stored to the two panels.
//
// What a small plan keeps from its plan: the bytes (every ISA path writes the
// same bytes as the general path: the padding value, any element size), the
// ISA path. Plans that run in place, on several threads, with streaming
// stores, through a gather table or with a row-table transpose
// (transpose_narrow.h) are not compiled (Compile returns null), nor plans
// whose tasks' loops beyond the four an op takes would unroll into more
// than kMaxOps ops.
#ifndef XLA_LAYOUT_RELAYOUT_SMALL_H_
#define XLA_LAYOUT_RELAYOUT_SMALL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "xla_layout/isa.h"
#include "xla_layout/relayout_kernels.h"
#include "xla_layout/relayout_planner.h"

namespace xla_layout::internal {

// The largest destination (bytes) a small plan takes: an L2 (1 MiB here),
// where the copy runs in cache on one thread and the ops' own kernels (rows
// of 32 bytes in pairs) beat the general path's; below about 16 KiB the
// general path's overhead alone kept copies under 0.7x memcpy, and from 256
// KiB to 1 MiB its work items and separate fill passes were slower than the
// ops (the 1x1 weights [96,576] and [160,576] into T(8,128);
// docs/benchmarks.md).
inline constexpr int64_t kSmallPlanBytes = 1 << 20;
// Destinations over this many bytes get their padded rows fused on the
// general path (FusePaddedRows): plans the small plans do not take there
// (several threads, row tables) keep the threshold they had when small
// plans stopped at it.
inline constexpr int64_t kFusePaddedRowsBytes = 256 << 10;

struct SmallOp;
using SmallKernel = void (*)(const SmallOp& op, const char* src, char* dst);

// One task with its kernel: loops[0..2] run outside the kernel's innermost
// work (unused outer loops have extent 1); what loops[3] means depends on
// the kernel (a run of bytes, a transpose's b, ...).
struct SmallOp {
  SmallKernel kernel;
  int64_t src_offset = 0, dst_offset = 0;
  Loop loops[4];
  int64_t es = 0;
  const Kernels* kernels = nullptr;  // for kernels that call the plane kernels
  const uint8_t* fill = nullptr;     // es bytes of padding value (fills)
  const void* table = nullptr;       // the permute op's tables
  int64_t fill_offset = 0;           // copy-then-fill op: where the fill starts
  const SmallOp* ops = nullptr;      // a plan's op that runs the others: them,
  int64_t op_count = 0;              // op_count of them
};

class SmallPlan {
 public:
  // The compiled form of `tasks` (the plan's, after all its loop ordering),
  // or null when the plan does not qualify: a destination over
  // kSmallPlanBytes, or a task the ops do not cover (one with a row
  // table). `fill` is the padding value (es bytes); `isa` resolved.
  static std::unique_ptr<SmallPlan> Compile(const std::vector<Task>& tasks, int64_t es,
                                            const std::vector<uint8_t>& fill, Isa isa,
                                            int64_t src_bytes, int64_t dst_bytes);

  // Reads the plan's source bytes at `src`, writes its destination at `dst`.
  // One call: a plan of one op is its op, kept here (no load of a vector's
  // data before the kernel's own loads), and a plan of more ops runs them
  // from a first op of its own.
  void Run(const char* src, char* dst) const { head_.kernel(head_, src, dst); }

  // One line: "small: ..." with the ops and their kernels.
  std::string Describe() const;

  // The permute op's tables: per 64-byte destination chunk, the source
  // byte index (0..127) of each destination byte, the padding bytes, and the
  // masks (bytes from the source; bytes inside the destination).
  struct PermuteTables;

  // Only Compile makes plans: the key is private, the constructor public so
  // that std::make_unique can call it.
  class Key {
    friend class SmallPlan;
    explicit Key() = default;
  };
  explicit SmallPlan(Key) {}
  // Not copied: the first op points into the plan's own ops.
  SmallPlan(const SmallPlan&) = delete;
  SmallPlan& operator=(const SmallPlan&) = delete;

  // A plan of the one op `op`, named `name` in Describe, that keeps `table`
  // (what op.table points into) alive: a whole copy that a kernel of its
  // own takes (transpose_weights_tiled.h).
  static std::unique_ptr<SmallPlan> OfOp(const SmallOp& op, std::string name,
                                         std::shared_ptr<const void> table);

 private:
  // Ops a plan may have: a task's loops beyond the four an op takes are
  // unrolled into ops, up to this many in all.
  static constexpr size_t kMaxOps = 64;

  bool AddTask(const Task& task, int64_t es, Isa isa);
  bool CompileCopyThenFill(const std::vector<Task>& tasks, int64_t es, Isa isa);
  void SetHead();
  bool CompilePermute(const std::vector<Task>& tasks, int64_t es, int64_t src_bytes,
                      int64_t dst_bytes);

  SmallOp head_{};  // what Run calls
  std::vector<SmallOp> ops_;
  std::vector<std::string> names_;  // per op, for Describe
  std::vector<uint8_t> fill_;
  std::shared_ptr<PermuteTables> permute_;
  std::shared_ptr<const void> table_;  // OfOp's
};

}  // namespace xla_layout::internal

#endif  // XLA_LAYOUT_RELAYOUT_SMALL_H_
