#include "xla_layout/relayout.h"

#include <immintrin.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla_layout/kernel_tuning.h"
#include "xla_layout/primitive_type.h"
#include "xla_layout/relayout_kernels.h"
#include "xla_layout/relayout_planner.h"
#include "xla_layout/relayout_small.h"
#include "xla_layout/short_row_transposes.h"
#include "xla_layout/stream_order.h"
#include "xla_layout/strided_copy_kernels.h"
#include "xla_layout/tiled_layout.h"
#include "xla_layout/transpose_narrow.h"
#include "xla_layout/transpose_weights_tiled.h"
#include "xla_layout/memory.h"
#include "xla_layout/subbyte.h"
#include "xla_layout/worker_pool.h"

namespace xla_layout {

using internal::ClassOfTasks;
using internal::Kind;
using internal::KindName;
using internal::Loop;
using internal::PlanDigits;
using internal::Task;

namespace {


// A share of one task for one thread: the range [begin, end) of loops[0].
// Task kAllTasks stands for every task at once, interleaved along their
// shared outer loop.
struct WorkItem {
  int task;
  int64_t begin, end;
};
constexpr int kAllTasks = -1;

// The loops at the end of a task that its kernel takes in one call.
size_t KernelLoops(const Task& task) {
  if (task.kind == Kind::kTranspose) return task.grouped ? 3 : 2;
  return task.kind == Kind::kCopy && task.loops.size() >= 2 ? 2 : 1;
}


}  // namespace

struct RelayoutPlan::Impl {
  // Sub-byte sides (E(1), E(2), E(4)): the packed slots are unpacked to one
  // byte each, the byte plan `bytes` moves them, and they are packed again.
  // 0 where a side is not packed.
  int src_bits = 0, dst_bits = 0;
  int sign_bits = 0;  // the type's width for s2/s4 (sign-extended), else 0
  int64_t src_slots = 0, dst_slots = 0;
  std::unique_ptr<RelayoutPlan> bytes;

  int64_t es = 0;  // bytes per element slot
  int64_t src_bytes = 0, dst_bytes = 0, element_bytes = 0;
  std::vector<uint8_t> fill;  // es bytes
  bool fill_uniform = true;   // every byte of `fill` the same: a memset
  int threads = 1;
  Isa isa = Isa::kScalar;
  bool in_place = false;
  bool streaming = false;
  const internal::Kernels* kernels = nullptr;
  std::vector<Task> tasks;
  // Every task has an outer loop of the same extent (the tile rows of a
  // tiling with partial tiles, say): the tasks run one step of it each in
  // turn (interleave_step steps, see ShareWork), so the partial tiles and
  // padding of a step are written while its lines are still in cache, not
  // in passes of their own.
  bool interleaved = false;
  int64_t interleave_step = 1;  // steps of the outer loop per task per turn
  std::vector<std::vector<WorkItem>> work;  // per thread
  // Gather path: for each destination slot, the source slot or -1.
  std::vector<int64_t> gather;
  bool use_gather = false;
  CopyClass copy_class = CopyClass::kContiguous;
  // The compiled form of a small plan (relayout_small.h); Execute runs it
  // when present.
  std::unique_ptr<internal::SmallPlan> small;

  // Create's steps, in order: the options, the tasks (or the gather table),
  // then each thread's share.
  absl::Status Configure(const RelayoutOptions& options, int64_t cache_bytes);
  absl::Status PlanTasks(const TiledLayout& s, const TiledLayout& d);
  void ShareWork(int64_t total, bool in_cache);
  void SplitLoneTransposes();
  void ShareSteps(int64_t total);

  void RunTask(const Task& task, int64_t begin, int64_t end, const char* src,
               char* dst) const;
  void RunInterleaved(int64_t begin, int64_t end, const char* src,
                      char* dst) const;
  // Runs the loop just outside the kernel's (`planes` steps of it) in one
  // call of the kernel set's plane kernel; false when the task has none.
  bool RunPlanes(const Task& task, int64_t planes, const char* src, char* dst) const;
  // Runs task.loops[depth..] with `extent` steps of loops[depth].
  void RunLoops(const Task& task, size_t depth, int64_t extent, const char* src,
                char* dst) const;
  void FillRun(char* dst, int64_t elements) const;
  // n elements, src_stride and dst_stride bytes apart.
  void RunStrided(const char* src, char* dst, int64_t n, int64_t src_stride,
                  int64_t dst_stride) const;
  void RunGather(int64_t begin, int64_t end, const char* src,
                 char* dst) const;
  // Execute's path for every plan but a small one (kept out of Execute, so
  // that a small plan's run does not pay this path's register saves).
  void Run(const void* src_ptr, void* dst_ptr) const;
};

void RelayoutPlan::Impl::FillRun(char* dst, int64_t elements) const {
  if (fill_uniform) {
    std::memset(dst, fill[0], elements * es);
    return;
  }
  for (int64_t i = 0; i < elements; ++i) std::memcpy(dst + i * es, fill.data(), es);
}

void RelayoutPlan::Impl::RunLoops(const Task& task, size_t depth, int64_t extent,
                                  const char* src, char* dst) const {
  const std::vector<Loop>& loops = task.loops;
  // Transposes and row copies take the last two loops in one call.
  if (depth + KernelLoops(task) < loops.size()) {
    const Loop& l = loops[depth];
    if (depth + KernelLoops(task) + 1 == loops.size() && RunPlanes(task, extent, src, dst)) {
      return;
    }
    const int64_t inner = loops[depth + 1].extent;
    for (int64_t i = 0; i < extent; ++i) {
      RunLoops(task, depth + 1, inner, src + i * l.src, dst + i * l.dst);
    }
    return;
  }
  // The loops the kernel takes: the first of them may be the one a share
  // cut short (`extent`).
  const size_t n = loops.size();
  auto extent_of = [&](size_t i) { return i == depth ? extent : loops[i].extent; };
  const Loop& last = loops.back();
  switch (task.kind) {
    case Kind::kCopy:
      if (task.pad_bytes > 0) {
        return internal::CopyPaddedRows(src, dst, extent_of(n - 2), extent_of(n - 1) * es,
                                        task.pad_bytes, loops[n - 2].src, loops[n - 2].dst,
                                        fill[0], isa);
      }
      if (n >= 2) {
        const Loop& rows = loops[n - 2];
        kernels->copy(src, dst, extent_of(n - 2), extent_of(n - 1) * es, rows.src,
                      rows.dst, streaming);
      } else {
        kernels->copy(src, dst, 1, extent_of(n - 1) * es, 0, 0, streaming);
      }
      return;
    case Kind::kFill:
      FillRun(dst, extent_of(n - 1));
      return;
    case Kind::kTranspose: {
      const Loop& a = loops[n - 2];
      if (task.pad_bytes > 0) {
        return internal::TransposePaddedRows(src, dst, extent_of(n - 2), extent_of(n - 1),
                                             last.src, a.dst, task.pad_bytes, fill[0], isa);
      }
      if (!task.rows.empty()) {
        return internal::TransposeRows32(src, dst, 1, 0, 0, extent_of(n - 2), extent_of(n - 1),
                                         last.src, task.rows.data(), isa);
      }
      if (task.grouped) {
        const Loop& g = loops[n - 3];
        kernels->transpose_grouped(src, dst, extent_of(n - 3), extent_of(n - 2),
                                   extent_of(n - 1), last.src, a.dst, g.dst,
                                   static_cast<int>(es), streaming);
        return;
      }
      kernels->transpose(src, dst, extent_of(n - 2), extent_of(n - 1), last.src, a.dst,
                         static_cast<int>(es), streaming);
      return;
    }
    case Kind::kStrided:
      RunStrided(src, dst, extent_of(n - 1), last.src, last.dst);
      return;
  }
}

bool RelayoutPlan::Impl::RunPlanes(const Task& task, int64_t planes, const char* src,
                                   char* dst) const {
  const std::vector<Loop>& loops = task.loops;
  const size_t n = loops.size();
  if (task.kind == Kind::kCopy && n >= 3 && task.pad_bytes == 0) {
    const Loop &p = loops[n - 3], &rows = loops[n - 2];
    kernels->copy_planes(src, dst, planes, p.src, p.dst, rows.extent, loops[n - 1].extent * es,
                         rows.src, rows.dst, streaming);
    return true;
  }
  if (task.kind == Kind::kFill && fill_uniform && n >= 2) {
    kernels->fill_planes(dst, planes, loops[n - 2].dst, loops[n - 1].extent * es, fill[0],
                         streaming);
    return true;
  }
  if (!task.rows.empty() && n >= 3) {
    internal::TransposeRows32(src, dst, planes, loops[n - 3].src, loops[n - 3].dst,
                              loops[n - 2].extent, loops[n - 1].extent, loops[n - 1].src,
                              task.rows.data(), isa);
    return true;
  }
  if (task.kind == Kind::kTranspose && !task.grouped && task.pad_bytes == 0 && n >= 3) {
    const Loop &p = loops[n - 3], &a = loops[n - 2], &b = loops[n - 1];
    kernels->transpose_planes(src, dst, planes, p.src, p.dst, a.extent, b.extent, b.src, a.dst,
                              static_cast<int>(es), streaming);
    return true;
  }
  return false;
}

namespace {

// Element by element, each a move of kBytes the compiler knows (a call to
// memcpy per element costs more than the element).
template <int64_t kBytes>
void CopyElements(const char* src, char* dst, int64_t n, int64_t src_stride,
                  int64_t dst_stride) {
  for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * dst_stride, src + i * src_stride, kBytes);
}

}  // namespace

void RelayoutPlan::Impl::RunStrided(const char* src, char* dst, int64_t n, int64_t src_stride,
                                    int64_t dst_stride) const {
  switch (es) {
    case 1: return CopyElements<1>(src, dst, n, src_stride, dst_stride);
    case 2: return CopyElements<2>(src, dst, n, src_stride, dst_stride);
    case 4: return CopyElements<4>(src, dst, n, src_stride, dst_stride);
    case 8: return CopyElements<8>(src, dst, n, src_stride, dst_stride);
    case 16: return CopyElements<16>(src, dst, n, src_stride, dst_stride);
    default:
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * dst_stride, src + i * src_stride, es);
  }
}

void RelayoutPlan::Impl::RunTask(const Task& task, int64_t begin, int64_t end,
                                 const char* src, char* dst) const {
  // The share's steps of loops[0]; no copy of the loops, so that a small
  // copy pays no allocation per run.
  src += task.src_offset + begin * task.loops[0].src;
  dst += task.dst_offset + begin * task.loops[0].dst;
  RunLoops(task, 0, end - begin, src, dst);
}

void RelayoutPlan::Impl::RunInterleaved(int64_t begin, int64_t end,
                                        const char* src, char* dst) const {
  for (int64_t i = begin; i < end; i += interleave_step) {
    const int64_t next = std::min(end, i + interleave_step);
    for (const Task& t : tasks) RunTask(t, i, next, src, dst);
  }
}

void RelayoutPlan::Impl::RunGather(int64_t begin, int64_t end, const char* src,
                                   char* dst) const {
  for (int64_t i = begin; i < end; ++i) {
    int64_t from = gather[i];
    if (from < 0) {
      std::memcpy(dst + i * es, fill.data(), es);
    } else {
      std::memcpy(dst + i * es, src + from * es, es);
    }
  }
}

namespace {

absl::Status CheckSupported(const Shape& shape, absl::string_view side) {
  if (!shape.IsArray()) {
    return absl::InvalidArgumentError(absl::StrCat(
        side, " must be an array shape, not ", shape.ToString()));
  }
  if (!shape.has_layout()) return absl::OkStatus();
  const Layout& layout = shape.layout();
  auto unsupported = [&](absl::string_view what) {
    return absl::UnimplementedError(absl::StrCat(
        side, " layout ", layout.ToString(), ": ", what,
        " is not supported by the packing core"));
  };
  if (!layout.dim_level_types().empty() || layout.has_physical_shape() ||
      layout.index_primitive_type() != PRIMITIVE_TYPE_INVALID ||
      layout.pointer_primitive_type() != PRIMITIVE_TYPE_INVALID) {
    return unsupported("a sparse attribute (D, #, *, P)");
  }
  if (!layout.split_configs().empty()) return unsupported("SC (split configs)");
  if (layout.dynamic_shape_metadata_prefix_bytes() != 0) {
    return unsupported("M (dynamic-shape metadata)");
  }
  const int64_t bits = layout.element_size_in_bits();
  if (bits != 0 && bits % 8 != 0 && bits != 1 && bits != 2 && bits != 4) {
    return unsupported(absl::StrCat("an element size of E(", bits,
                                    ") (sub-byte sizes are 1, 2 or 4)"));
  }
  if (bits != 0 && bits < 8 && PrimitiveBitWidth(shape.element_type()) > bits) {
    return unsupported(absl::StrCat("E(", bits, ") for ",
                                    PrimitiveTypeName(shape.element_type()),
                                    ", which has ",
                                    PrimitiveBitWidth(shape.element_type()),
                                    " bits"));
  }
  return absl::OkStatus();
}


}  // namespace

absl::string_view CopyClassName(CopyClass c) {
  switch (c) {
    case CopyClass::kContiguous: return "contiguous";
    case CopyClass::kTile: return "tile";
    case CopyClass::kTranspose: return "transpose";
    case CopyClass::kSubByte: return "sub-byte";
  }
  return "?";
}

namespace {

// The index math of both sides of a pair Validate accepts.
absl::StatusOr<std::pair<TiledLayout, TiledLayout>> Sides(const Shape& src, const Shape& dst) {
  absl::Status valid = RelayoutPlan::Validate(src, dst);
  if (!valid.ok()) return valid;
  absl::StatusOr<TiledLayout> s = TiledLayout::Create(src);
  if (!s.ok()) return s.status();
  absl::StatusOr<TiledLayout> d = TiledLayout::Create(dst);
  if (!d.ok()) return d.status();
  return std::make_pair(*std::move(s), *std::move(d));
}

}  // namespace

absl::StatusOr<CopyClass> RelayoutPlan::Classify(const Shape& src, const Shape& dst) {
  absl::StatusOr<std::pair<TiledLayout, TiledLayout>> sides = Sides(src, dst);
  if (!sides.ok()) return sides.status();
  const TiledLayout* s = &sides->first;
  const TiledLayout* d = &sides->second;
  if (s->element_size_in_bits() < 8 || d->element_size_in_bits() < 8) {
    return CopyClass::kSubByte;
  }
  std::vector<Task> tasks;
  if (!s->digits().has_value() || !d->digits().has_value() ||
      !PlanDigits(*s, *d, s->element_size_in_bits() / 8, &tasks)) {
    return CopyClass::kTranspose;  // a gather table
  }
  return ClassOfTasks(tasks, s->element_size_in_bits() / 8);
}

RelayoutPlan::RelayoutPlan(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}
RelayoutPlan::RelayoutPlan(RelayoutPlan&&) noexcept = default;
RelayoutPlan& RelayoutPlan::operator=(RelayoutPlan&&) noexcept = default;
RelayoutPlan::~RelayoutPlan() = default;

absl::StatusOr<RelayoutPlan> RelayoutPlan::CreateSubByte(
    const Shape& src, const Shape& dst, const TiledLayout& s,
    const TiledLayout& d, RelayoutOptions options) {
  // The same layouts with one byte per slot.
  auto unpacked = [](Shape shape) {
    shape.mutable_layout()->set_element_size_in_bits(0);
    return shape;
  };
  auto impl = std::make_unique<Impl>();
  impl->src_bits = s.element_size_in_bits() < 8 ? s.element_size_in_bits() : 0;
  impl->dst_bits = d.element_size_in_bits() < 8 ? d.element_size_in_bits() : 0;
  impl->src_slots = s.slot_count();
  impl->dst_slots = d.slot_count();
  impl->src_bytes = s.byte_size();
  impl->dst_bytes = d.byte_size();
  const PrimitiveType type = src.element_type();
  impl->sign_bits = type == S4 || type == S2 ? static_cast<int>(PrimitiveBitWidth(type)) : 0;
  impl->element_bytes = PackedByteSize(
      s.element_count(), static_cast<int>(std::min(s.element_size_in_bits(),
                                                    d.element_size_in_bits())));
  for (int64_t scratch : {impl->src_bits ? impl->src_slots : 0,
                          impl->dst_bits ? impl->dst_slots : 0}) {
    absl::Status room = CheckAllocationSize(scratch, "the sub-byte relayout's scratch");
    if (!room.ok()) return room;
  }
  const bool in_place = options.allow_in_place;
  options.allow_in_place = false;  // the byte plan never runs in place
  absl::StatusOr<RelayoutPlan> bytes = Create(
      impl->src_bits ? unpacked(src) : src, impl->dst_bits ? unpacked(dst) : dst,
      std::move(options));
  if (!bytes.ok()) return bytes.status();
  if (in_place && impl->src_bytes != impl->dst_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "in-place relayout needs equal buffer sizes, not ", impl->src_bytes,
        " and ", impl->dst_bytes, " bytes"));
  }
  impl->in_place = in_place;
  impl->threads = bytes->threads();
  impl->isa = bytes->isa();
  impl->es = 1;
  impl->copy_class = CopyClass::kSubByte;
  impl->bytes = std::make_unique<RelayoutPlan>(*std::move(bytes));
  return RelayoutPlan(std::move(impl));
}

absl::Status RelayoutPlan::Validate(const Shape& src, const Shape& dst) {
  for (const auto& [shape, side] :
       {std::pair<const Shape*, absl::string_view>{&src, "source"},
        {&dst, "destination"}}) {
    absl::Status s = CheckSupported(*shape, side);
    if (!s.ok()) return s;
  }
  if (!Shape::Equal().IgnoreLayout().IgnoreDynamicDimensions()(src, dst)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "source ", src.ToString(), " and destination ", dst.ToString(),
        " are not the same logical array (element type and dims)"));
  }
  absl::StatusOr<TiledLayout> s = TiledLayout::Create(src);
  if (!s.ok()) return s.status();
  absl::StatusOr<TiledLayout> d = TiledLayout::Create(dst);
  if (!d.ok()) return d.status();
  if (s->element_size_in_bits() >= 8 && d->element_size_in_bits() >= 8 &&
      s->element_size_in_bits() != d->element_size_in_bits()) {
    return absl::UnimplementedError(absl::StrCat(
        "source and destination element sizes differ (",
        s->element_size_in_bits(), " and ", d->element_size_in_bits(),
        " bits); the packing core moves whole elements"));
  }
  return absl::OkStatus();
}

namespace {

// Streaming stores pay off only when the destination cannot stay cached.
// Some virtual machines report no or an inflated last-level cache (402 MB
// here for a 32 MB L3), so the threshold is capped.
int64_t LastLevelCacheBytes() {
  constexpr int64_t kMaxCache = 16 << 20;
  long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
  return llc > 0 ? std::min<int64_t>(llc, kMaxCache) : kMaxCache;
}

}  // namespace

absl::Status RelayoutPlan::Impl::Configure(const RelayoutOptions& options,
                                           int64_t cache_bytes) {
  if (options.padding_value.empty()) {
    fill.assign(es, 0);
  } else if (options.padding_value.size() == 1) {
    fill.assign(es, options.padding_value[0]);
  } else if (static_cast<int64_t>(options.padding_value.size()) == es) {
    fill = options.padding_value;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "the padding value has ", options.padding_value.size(),
        " bytes; give 1 or the element size, ", es));
  }
  for (uint8_t b : fill) fill_uniform &= b == fill[0];
  if (options.allow_in_place && src_bytes != dst_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "in-place relayout needs equal buffer sizes, not ", src_bytes,
        " and ", dst_bytes, " bytes"));
  }
  in_place = options.allow_in_place;
  isa = ResolveIsa(options.isa);
  kernels = &internal::KernelsFor(isa);
  int hw = std::max(1u, std::thread::hardware_concurrency());
  threads = options.threads > 0 ? options.threads : hw;
  streaming = options.streaming == RelayoutOptions::Streaming::kAuto
                  ? dst_bytes > cache_bytes
                  : options.streaming == RelayoutOptions::Streaming::kOn;
  return absl::OkStatus();
}

absl::Status RelayoutPlan::Impl::PlanTasks(const TiledLayout& s, const TiledLayout& d) {
  bool planned = s.digits().has_value() && d.digits().has_value() &&
                 PlanDigits(s, d, es, &tasks);
  if (planned) internal::MergeContinuingTasks(&tasks);
  copy_class = planned ? ClassOfTasks(tasks, es) : CopyClass::kTranspose;
  if (planned && streaming) internal::OrderLoopsForStreaming(&tasks, es);
  if (planned && streaming) internal::GroupLineRunsForStreaming(&tasks, es);
  if (planned) internal::UseRowTables(&tasks, es, isa);
  if (planned) internal::BlockNarrowTransposes(&tasks, es, isa);
  if (planned && streaming && fill_uniform) internal::FusePaddedTransposeRows(&tasks, es, isa);
  if (planned && !streaming && fill_uniform && dst_bytes > internal::kFusePaddedRowsBytes) {
    internal::FusePaddedRows(&tasks, es);
  }
  if (!planned) {
    tasks.clear();
    use_gather = true;
    absl::Status room = CheckAllocationSize(
        d.slot_count() * static_cast<int64_t>(sizeof(int64_t)),
        "the relayout's gather table");
    if (!room.ok()) return room;
    gather.resize(d.slot_count());
    for (int64_t slot = 0; slot < d.slot_count(); ++slot) {
      std::optional<IndexVector> e = d.LogicalIndex(slot);
      gather[slot] = e ? s.LinearIndex(*e) : -1;
    }
  } else if (d.slot_count() > d.tiled_slot_count()) {
    // L(n) tail padding.
    int64_t tail = d.slot_count() - d.tiled_slot_count();
    tasks.push_back(Task{Kind::kFill, 0, d.tiled_slot_count() * es, {Loop{tail, 0, es}}});
  }
  return absl::OkStatus();
}

// The plan weighs its own estimated time (`total` bytes moved) against the
// price of the threads (internal::ThreadsForCost); big tasks are then cut
// along their outer loop so every thread gets about the same bytes.
void RelayoutPlan::Impl::ShareWork(int64_t total, bool in_cache) {
  threads = internal::ThreadsForCost(copy_class, 2 * total, in_cache, threads);
  work.resize(threads);
  if (threads > 1) SplitLoneTransposes();
  // The blocks of a grouped transpose merge once the threads are known: in
  // cache with one, the outermost loop need not stay whole for sharing.
  if (!use_gather && (streaming || internal::TakesTallGroupedBlocksInCache())) {
    internal::TallerGroupedBlocks(&tasks, es, isa, streaming, !streaming && threads == 1);
  }
  if (!use_gather && tasks.size() > 1) {
    interleaved = true;
    bool outside = true;  // every task has a loop outside its kernel's
    int64_t step_bytes = 1;
    for (const Task& t : tasks) {
      interleaved &= t.loops[0].extent == tasks[0].loops[0].extent;
      outside &= t.loops.size() > KernelLoops(t);
      step_bytes = std::max(step_bytes, std::abs(t.loops[0].dst));
    }
    // A task whose outer loop is its kernel's own (a transpose's rows, the
    // elements of a strided run) takes a chunk of it per turn, about 16 KiB
    // of destination, when the destination streams: then the lines two
    // tasks share (an element and its tile's padding) are written while in
    // cache, not read from memory twice. In cache, whole passes call the
    // kernels less often and measured faster.
    constexpr int64_t kChunkBytes = 16 << 10;
    if (!outside && streaming) {
      interleave_step = std::max<int64_t>(1, kChunkBytes / step_bytes);
    } else if (!outside) {
      interleaved = false;
    }
  }
  if (interleaved) {
    const int64_t outer = tasks[0].loops[0].extent;
    for (int t = 0; t < threads; ++t) {
      const int64_t begin = outer * t / threads;
      const int64_t end = outer * (t + 1) / threads;
      if (begin < end) work[t].push_back(WorkItem{kAllTasks, begin, end});
    }
  } else if (!use_gather) {
    ShareSteps(total);
  }
}

// A lone transpose is shared by its source rows (the loop contiguous in the
// destination): each thread reads whole rows and writes its own column
// band, instead of every thread striding over every source row.
void RelayoutPlan::Impl::SplitLoneTransposes() {
  for (Task& t : tasks) {
    // A padded transpose keeps whole rows per thread: the padding follows
    // the row's last element.
    if (t.kind != Kind::kTranspose || t.loops.size() != 2 || t.pad_bytes > 0) continue;
    const Loop b = t.loops[1];
    const int64_t chunk = b.extent / threads;
    if (b.extent % threads != 0 || chunk % 16 != 0) continue;
    t.loops = {Loop{threads, b.src * chunk, b.dst * chunk}, t.loops[0],
               Loop{chunk, b.src, b.dst}};
  }
}

// Thread k takes the steps that start in its k-th of the bytes, rounded to
// whole steps (an outer loop of two steps gives each thread one).
void RelayoutPlan::Impl::ShareSteps(int64_t total) {
  int64_t filled = 0;
  for (int i = 0; i < static_cast<int>(tasks.size()); ++i) {
    const Task& t = tasks[i];
    const int64_t outer = t.loops[0].extent;
    const int64_t per_step = std::max<int64_t>(1, t.StepBytes(es));
    int64_t begin = 0;
    while (begin < outer) {
      const int thread = static_cast<int>(
          std::min<int64_t>(threads - 1, filled * threads / std::max<int64_t>(total, 1)));
      const int64_t share_end = total * (thread + 1) / threads;
      int64_t steps = std::max<int64_t>(1, (share_end - filled + per_step / 2) / per_step);
      if (thread == threads - 1) steps = outer - begin;
      const int64_t end = std::min(outer, begin + steps);
      work[thread].push_back(WorkItem{i, begin, end});
      filled += (end - begin) * per_step;
      begin = end;
    }
  }
}

absl::StatusOr<RelayoutPlan> RelayoutPlan::Create(const Shape& src,
                                                  const Shape& dst,
                                                  RelayoutOptions options) {
  absl::StatusOr<std::pair<TiledLayout, TiledLayout>> sides = Sides(src, dst);
  if (!sides.ok()) return sides.status();
  const TiledLayout* s = &sides->first;
  const TiledLayout* d = &sides->second;
  if (s->element_size_in_bits() < 8 || d->element_size_in_bits() < 8) {
    return CreateSubByte(src, dst, *s, *d, std::move(options));
  }
  auto impl = std::make_unique<Impl>();
  impl->es = s->element_size_in_bits() / 8;
  impl->src_bytes = s->byte_size();
  impl->dst_bytes = d->byte_size();
  impl->element_bytes = s->element_count() * impl->es;
  const int64_t cache_bytes = LastLevelCacheBytes();
  absl::Status configured = impl->Configure(options, cache_bytes);
  if (!configured.ok()) return configured;
  absl::Status planned = impl->PlanTasks(*s, *d);
  if (!planned.ok()) return planned;
  int64_t total = impl->use_gather ? d->slot_count() * impl->es : 0;
  for (const Task& t : impl->tasks) total += t.Elements() * impl->es;
  impl->ShareWork(total, impl->src_bytes + impl->dst_bytes <= cache_bytes);
  if (impl->threads == 1 && !impl->in_place && !impl->streaming && !impl->use_gather) {
    impl->small = internal::CompileWeightsTiling(*s, *d, impl->fill, impl->isa);
    if (impl->small == nullptr) {
      impl->small = internal::SmallPlan::Compile(impl->tasks, impl->es, impl->fill, impl->isa,
                                                 impl->src_bytes, impl->dst_bytes);
    }
  }
  return RelayoutPlan(std::move(impl));
}

void RelayoutPlan::Execute(const void* src_ptr, void* dst_ptr) const {
  const Impl& p = *impl_;
  if (p.small != nullptr) {
    return p.small->Run(static_cast<const char*>(src_ptr), static_cast<char*>(dst_ptr));
  }
  p.Run(src_ptr, dst_ptr);
}

__attribute__((noinline)) void RelayoutPlan::Impl::Run(const void* src_ptr,
                                                       void* dst_ptr) const {
  const Impl& p = *this;
  if (p.bytes != nullptr) {
    // Sub-byte: unpack, move bytes, pack (scratch sizes checked in Create).
    // Scratch kept per thread from one run to the next: fresh pages cost a
    // fault each, more than the unpacking itself.
    thread_local std::vector<uint8_t> in, out;
    const void* from = src_ptr;
    void* to = dst_ptr;
    if (p.src_bits != 0) {
      in.resize(p.src_slots);
      UnpackSlots(static_cast<const uint8_t*>(src_ptr), p.src_slots, p.src_bits,
                  p.sign_bits, in.data());
      from = in.data();
    } else if (p.in_place && src_ptr == dst_ptr) {
      in.assign(static_cast<const uint8_t*>(src_ptr),
                static_cast<const uint8_t*>(src_ptr) + p.src_bytes);
      from = in.data();
    }
    if (p.dst_bits != 0) {
      out.resize(p.dst_slots);
      to = out.data();
    }
    p.bytes->Execute(from, to);
    if (p.dst_bits != 0) {
      PackSlots(out.data(), p.dst_slots, p.dst_bits, static_cast<uint8_t*>(dst_ptr));
    }
    return;
  }
  const char* src = static_cast<const char*>(src_ptr);
  char* dst = static_cast<char*>(dst_ptr);
  std::vector<char> scratch;  // allocates only in place
  if (p.in_place && src == dst) {
    scratch.assign(src, src + p.src_bytes);
    src = scratch.data();
  }
  auto run = [&](int thread) {
    if (p.use_gather) {
      int64_t n = static_cast<int64_t>(p.gather.size());
      int64_t per = (n + p.threads - 1) / p.threads;
      p.RunGather(std::min(n, thread * per), std::min(n, (thread + 1) * per),
                  src, dst);
    } else {
      for (const WorkItem& w : p.work[thread]) {
        if (w.task == kAllTasks) {
          p.RunInterleaved(w.begin, w.end, src, dst);
        } else {
          p.RunTask(p.tasks[w.task], w.begin, w.end, src, dst);
        }
      }
    }
    if (p.streaming) _mm_sfence();
  };
  if (p.threads == 1) {
    run(0);  // no hand-off: a small copy costs its kernels' calls and no more
    return;
  }
  // Claimed, not one share per thread: a worker kept from running (another
  // process on its core) leaves its share to this thread instead of holding
  // up the copy until it runs.
  WorkerPool::Shared().RunClaimed(p.threads, p.threads, run);
}

int64_t RelayoutPlan::src_bytes() const { return impl_->src_bytes; }
int64_t RelayoutPlan::dst_bytes() const { return impl_->dst_bytes; }
int64_t RelayoutPlan::element_bytes() const { return impl_->element_bytes; }
int RelayoutPlan::threads() const { return impl_->threads; }
Isa RelayoutPlan::isa() const { return impl_->isa; }
CopyClass RelayoutPlan::copy_class() const { return impl_->copy_class; }

std::string RelayoutPlan::Describe() const {
  const Impl& p = *impl_;
  if (p.bytes != nullptr) {
    return absl::StrCat(
        p.src_bits ? absl::StrCat("unpack source E(", p.src_bits, ") to bytes\n") : "",
        p.bytes->Describe(),
        p.dst_bits ? absl::StrCat("pack destination bytes to E(", p.dst_bits, ")\n") : "");
  }
  std::string out = absl::StrCat("isa=", IsaName(p.isa), " threads=", p.threads,
                                 " element_bytes=", p.es,
                                 p.streaming ? " streaming" : "",
                                 p.interleaved ? " interleaved" : "", "\n");
  if (p.use_gather) {
    return absl::StrCat(out, "gather table of ", p.gather.size(), " slots\n");
  }
  if (p.threads > 1) {
    // The bytes each thread moves, so that a lopsided split shows.
    std::vector<int64_t> shares;
    for (const std::vector<WorkItem>& items : p.work) {
      int64_t bytes = 0;
      for (const WorkItem& w : items) {
        for (int i = 0; i < static_cast<int>(p.tasks.size()); ++i) {
          if (w.task != kAllTasks && w.task != i) continue;
          bytes += (w.end - w.begin) * p.tasks[i].StepBytes(p.es);
        }
      }
      shares.push_back(bytes);
    }
    absl::StrAppend(&out, "bytes per thread ", absl::StrJoin(shares, " "), "\n");
  }
  for (const Task& t : p.tasks) {
    std::vector<std::string> loops;
    for (const Loop& l : t.loops) {
      loops.push_back(absl::StrCat(l.extent, ":", l.src, "/", l.dst));
    }
    absl::StrAppend(&out, KindName(t.kind), t.grouped ? " (tiles grouped)" : "",
                    t.rows.empty() ? "" : " (row table)",
                    t.pad_bytes > 0 ? absl::StrCat(t.kind == Kind::kCopy ? " (runs" : " (rows",
                                                    " padded by ", t.pad_bytes, " bytes)")
                                    : "",
                    " src+", t.src_offset, " dst+",
                    t.dst_offset, " loops(extent:src/dst bytes) ",
                    absl::StrJoin(loops, " "), "\n");
  }
  if (p.small != nullptr) absl::StrAppend(&out, p.small->Describe());
  return out;
}

}  // namespace xla_layout
