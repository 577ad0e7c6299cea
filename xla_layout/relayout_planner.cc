#include "xla_layout/relayout_planner.h"

#include <algorithm>
#include <functional>

#include "xla_layout/relayout_kernels.h"
#include "xla_layout/short_row_transposes.h"

namespace xla_layout::internal {

absl::string_view KindName(Kind kind) {
  switch (kind) {
    case Kind::kCopy:
      return "copy";
    case Kind::kTranspose:
      return "transpose";
    case Kind::kStrided:
      return "strided";
    case Kind::kFill:
      return "fill";
  }
  return "?";
}

namespace {

// Drops size-1 loops, orders loops by destination stride (writes advance
// through memory), and fuses neighbours that are contiguous on both sides.
std::vector<Loop> Simplify(std::vector<Loop> loops) {
  loops.erase(std::remove_if(loops.begin(), loops.end(),
                             [](const Loop& l) { return l.extent == 1; }),
              loops.end());
  std::stable_sort(loops.begin(), loops.end(), [](const Loop& a, const Loop& b) {
    if (a.dst != b.dst) return a.dst > b.dst;
    return a.src > b.src;
  });
  std::vector<Loop> fused;
  for (const Loop& l : loops) {
    if (!fused.empty()) {
      Loop& outer = fused.back();
      if (outer.dst == l.dst * l.extent && outer.src == l.src * l.extent) {
        outer = Loop{outer.extent * l.extent, l.src, l.dst};
        continue;
      }
    }
    fused.push_back(l);
  }
  return fused;
}

// Orders loops [begin, end) by source stride, largest first (the source is
// then read in order); equal strides keep their order.
void OrderBySourceStride(std::vector<Loop>::iterator begin,
                         std::vector<Loop>::iterator end) {
  std::stable_sort(begin, end, [](const Loop& x, const Loop& y) { return x.src > y.src; });
}

// Cuts `l` into an inner loop of `inner` steps, left in `l`, and returns the
// outer loop over those pieces (l.extent must be a multiple of `inner`).
Loop SplitOffOuter(Loop& l, int64_t inner) {
  const Loop outer{l.extent / inner, l.src * inner, l.dst * inner};
  l.extent = inner;
  return outer;
}

constexpr int64_t kCacheLineBytes = 64;

// Writes stay efficient as long as the innermost loops fill whole pages of
// the destination; past that, the outer loops are ordered by source stride
// so that the source is read in long runs too (loop interchange, the
// blocking of the loop-tiling document at page granularity). Without it,
// e.g. a 32x32 panel pack walks every page of the source once per panel.
constexpr int64_t kContiguousDestinationBytes = 4096;

void OrderOuterLoopsForSource(std::vector<Loop>& loops, int64_t es) {
  int64_t block = es;
  size_t inner = loops.size();  // loops[inner..] fill `block` bytes
  while (inner > 0 && loops[inner - 1].dst == block &&
         block < kContiguousDestinationBytes) {
    Loop& l = loops[inner - 1];
    int64_t need = (kContiguousDestinationBytes + block - 1) / block;
    // (A lone loop is one run already: nothing outside it to reorder.)
    if (inner > 1 && l.extent > need && l.extent % need == 0) {
      // Split so the inner part just fills the block; the rest is outer.
      const Loop outer = SplitOffOuter(l, need);
      loops.insert(loops.begin() + (inner - 1), outer);
      ++inner;
    }
    block *= loops[inner - 1].extent;
    --inner;
  }
  if (block < kContiguousDestinationBytes) return;
  OrderBySourceStride(loops.begin(), loops.begin() + inner);
}

// Picks the kernel for a copy task and puts its loops in kernel order.
Task MakeCopyTask(int64_t src_offset, int64_t dst_offset,
                  std::vector<Loop> loops, int64_t es) {
  Task task{Kind::kStrided, src_offset, dst_offset, Simplify(std::move(loops))};
  std::vector<Loop>& l = task.loops;
  if (l.empty()) {
    l.push_back(Loop{1, es, es});
    task.kind = Kind::kCopy;
    return task;
  }
  if (l.back().dst == es && l.back().src == es) {
    task.kind = Kind::kCopy;
    OrderOuterLoopsForSource(l, es);
  } else if (l.back().dst == es) {
    for (size_t k = 0; k + 1 < l.size(); ++k) {
      if (l[k].src == es) {
        Loop a = l[k];
        l.erase(l.begin() + k);
        l.insert(l.end() - 1, a);
        task.kind = Kind::kTranspose;
        // When the transposed block fills whole pages of the destination
        // (a 32x32 f32 tile is 4 KiB), the loops outside it follow the
        // source, as for copies: otherwise each block reads a narrow
        // column strip across every row of the source, a page per row.
        const Loop& inner = l.back();
        if (a.dst == inner.extent * es &&
            a.extent * inner.extent * es >= kContiguousDestinationBytes) {
          OrderBySourceStride(l.begin(), l.end() - 2);
        }
        break;
      }
    }
  }
  return task;
}

// The ranges of one logical dim's digits that cover [lo_value, d) or [0, d):
// the mixed-radix boxes of SPEC's partial tiles.
struct DigitRange {
  int digit;  // index into the digit list of the caller
  int64_t begin, end;
};
using Box = std::vector<DigitRange>;

// `digits` are the digits of one logical dim, least significant first, with
// `divisor[i]` and `extent[i]` (the last is the top). Writes the boxes that
// partition [0, d) into `valid`, and those that partition [d, top) into
// `padding`.
void DimBoxes(const std::vector<int>& ids, const std::vector<int64_t>& divisor,
              const std::vector<int64_t>& extent, int64_t d,
              std::vector<Box>* valid, std::vector<Box>* padding) {
  const int m = static_cast<int>(ids.size()) - 1;
  std::vector<int64_t> q(m + 1);
  for (int i = 0; i <= m; ++i) {
    q[i] = i == m ? d / divisor[i] : (d / divisor[i]) % extent[i];
  }
  auto box = [&](int i, int64_t begin, int64_t end) {
    Box b;
    for (int k = 0; k <= m; ++k) {
      if (k > i) b.push_back({ids[k], q[k], q[k] + 1});
      if (k == i) b.push_back({ids[k], begin, end});
      if (k < i) b.push_back({ids[k], 0, extent[k]});
    }
    return b;
  };
  for (int i = m; i >= 0; --i) {
    // Digits above i hold d's digits; past the top extent no slot exists.
    bool reachable = true;
    for (int k = i + 1; k <= m; ++k) reachable &= q[k] < extent[k];
    if (!reachable) continue;
    if (valid != nullptr && q[i] > 0) valid->push_back(box(i, 0, q[i]));
    if (padding != nullptr && q[i] + 1 < extent[i]) {
      padding->push_back(box(i, q[i] + 1, extent[i]));
    }
  }
  if (padding != nullptr) {
    bool inside = true;
    for (int k = 0; k <= m; ++k) inside &= q[k] < extent[k];
    if (inside) padding->push_back(box(-1, 0, 0));  // the element e == d
  }
}

// Calls `fn` with every combination of one box per group.
void ForEachProduct(const std::vector<std::vector<Box>>& groups,
                    const std::function<void(const Box&)>& fn) {
  Box current;
  std::function<void(size_t)> rec = [&](size_t g) {
    if (g == groups.size()) {
      fn(current);
      return;
    }
    for (const Box& b : groups[g]) {
      size_t mark = current.size();
      current.insert(current.end(), b.begin(), b.end());
      rec(g + 1);
      current.resize(mark);
    }
  };
  rec(0);
}

// Padding boxes that continue each other along the last loop (the 1 and 23
// padding elements of a row, split at a digit boundary) become one fill.
void MergeAdjacentFills(std::vector<Task>* tasks, int64_t es) {
  auto same_outer = [](const Task& a, const Task& b) {
    if (a.loops.size() != b.loops.size()) return false;
    for (size_t k = 0; k + 1 < a.loops.size(); ++k) {
      const Loop &x = a.loops[k], &y = b.loops[k];
      if (x.extent != y.extent || x.src != y.src || x.dst != y.dst) return false;
    }
    return true;
  };
  for (bool merged = true; merged;) {
    merged = false;
    for (size_t i = 0; i < tasks->size() && !merged; ++i) {
      Task& a = (*tasks)[i];
      if (a.kind != Kind::kFill || a.loops.back().dst != es) continue;
      for (size_t j = 0; j < tasks->size(); ++j) {
        const Task& b = (*tasks)[j];
        if (j == i || b.kind != Kind::kFill || b.loops.back().dst != es ||
            !same_outer(a, b) ||
            b.dst_offset != a.dst_offset + a.loops.back().extent * es) {
          continue;
        }
        a.loops.back().extent += b.loops.back().extent;
        tasks->erase(tasks->begin() + j);
        merged = true;
        break;
      }
    }
  }
}

// A digit of both sides at once: every divisor boundary of either side's
// digits of logical dim `dim`, with its strides (bytes) in each.
struct Refined {
  int dim;
  int64_t divisor, extent, src_stride, dst_stride;
};

// The stride (slots) of `divisor` of `dim` among `digits`: the digit holding
// it is the one with the largest divisor <= it.
int64_t StrideIn(const std::vector<TiledLayout::Digit>& digits, int dim, int64_t divisor) {
  const TiledLayout::Digit* best = nullptr;
  for (const TiledLayout::Digit& d : digits) {
    if (d.logical_dim == dim && d.divisor <= divisor &&
        (best == nullptr || d.divisor > best->divisor)) {
      best = &d;
    }
  }
  return best->stride * (divisor / best->divisor);
}

// The refined digits of every logical dim, and per dim their indices into
// `refined`, least significant first. False when the two sides' boundaries
// of a dim do not divide each other.
bool RefineDigits(const TiledLayout& src, const TiledLayout& dst, int64_t es,
                  std::vector<Refined>* refined, std::vector<std::vector<int>>* per_dim) {
  const auto& sd = *src.digits();
  const auto& dd = *dst.digits();
  for (int dim = 0; dim < src.rank(); ++dim) {
    int64_t size = src.logical_dims()[dim];
    if (size <= 1) continue;
    std::vector<int64_t> bounds;
    for (const auto* digits : {&sd, &dd}) {
      int64_t top = 0;
      for (const TiledLayout::Digit& d : *digits) {
        if (d.logical_dim == dim) top = std::max(top, d.divisor);
      }
      for (const TiledLayout::Digit& d : *digits) {
        if (d.logical_dim != dim) continue;
        bounds.push_back(d.divisor);
        if (d.divisor != top) bounds.push_back(d.divisor * d.extent);
      }
    }
    std::sort(bounds.begin(), bounds.end());
    bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
    for (size_t i = 0; i + 1 < bounds.size(); ++i) {
      if (bounds[i + 1] % bounds[i] != 0) return false;
    }
    for (size_t i = 0; i < bounds.size(); ++i) {
      int64_t extent = i + 1 < bounds.size()
                           ? bounds[i + 1] / bounds[i]
                           : (size + bounds[i] - 1) / bounds[i];
      (*per_dim)[dim].push_back(static_cast<int>(refined->size()));
      refined->push_back(Refined{dim, bounds[i], extent,
                                 StrideIn(sd, dim, bounds[i]) * es,
                                 StrideIn(dd, dim, bounds[i]) * es});
    }
  }
  return true;
}

// Copies the valid elements, one box per combination of partial tiles.
void AddCopyTasks(const TiledLayout& src, const std::vector<Refined>& refined,
                  const std::vector<std::vector<int>>& per_dim, int64_t es,
                  std::vector<Task>* tasks) {
  std::vector<std::vector<Box>> groups;
  for (int dim = 0; dim < src.rank(); ++dim) {
    if (per_dim[dim].empty()) continue;
    std::vector<int64_t> divisor, extent;
    for (int id : per_dim[dim]) {
      divisor.push_back(refined[id].divisor);
      extent.push_back(refined[id].extent);
    }
    std::vector<Box> valid;
    DimBoxes(per_dim[dim], divisor, extent, src.logical_dims()[dim], &valid, nullptr);
    groups.push_back(std::move(valid));
  }
  ForEachProduct(groups, [&](const Box& box) {
    int64_t so = 0, d_o = 0;
    std::vector<Loop> loops;
    for (const DigitRange& r : box) {
      const Refined& f = refined[r.digit];
      so += r.begin * f.src_stride;
      d_o += r.begin * f.dst_stride;
      loops.push_back(Loop{r.end - r.begin, f.src_stride, f.dst_stride});
    }
    tasks->push_back(MakeCopyTask(so, d_o, std::move(loops), es));
  });
}

// The conditions an element of `dst` may fail: each logical dim, and each
// dim whose only valid coordinate is 0. For each, the boxes of the
// destination's digits where it holds (`valid_of`) and fails (`padding_of`).
void FillConditions(const TiledLayout& dst, std::vector<std::vector<Box>>* valid_of,
                    std::vector<std::vector<Box>>* padding_of) {
  const auto& dd = *dst.digits();
  for (int i = 0; i < static_cast<int>(dd.size()); ++i) {
    if (dd[i].logical_dim < 0 && dd[i].extent > 1) {
      valid_of->push_back({Box{{i, 0, 1}}});
      padding_of->push_back({Box{{i, 1, dd[i].extent}}});
    }
  }
  for (int dim = 0; dim < dst.rank(); ++dim) {
    std::vector<int> ids;
    for (int i = 0; i < static_cast<int>(dd.size()); ++i) {
      if (dd[i].logical_dim == dim) ids.push_back(i);
    }
    if (ids.empty()) continue;
    std::sort(ids.begin(), ids.end(),
              [&](int a, int b) { return dd[a].divisor < dd[b].divisor; });
    std::vector<int64_t> divisor, extent;
    for (int id : ids) {
      divisor.push_back(dd[id].divisor);
      extent.push_back(dd[id].extent);
    }
    std::vector<Box> valid, padding;
    DimBoxes(ids, divisor, extent, dst.logical_dims()[dim], &valid, &padding);
    valid_of->push_back(std::move(valid));
    padding_of->push_back(std::move(padding));
  }
}

// Fills the destination's padding: for each condition, the boxes where it
// is the first to fail.
void AddFillTasks(const TiledLayout& dst, int64_t es, std::vector<Task>* tasks) {
  const auto& dd = *dst.digits();
  std::vector<std::vector<Box>> valid_of, padding_of;
  FillConditions(dst, &valid_of, &padding_of);
  for (size_t c = 0; c < padding_of.size(); ++c) {
    std::vector<std::vector<Box>> groups(valid_of.begin(), valid_of.begin() + c);
    groups.push_back(padding_of[c]);
    ForEachProduct(groups, [&](const Box& box) {
      std::vector<bool> ranged(dd.size(), false);
      int64_t d_o = 0;
      std::vector<Loop> loops;
      for (const DigitRange& r : box) {
        ranged[r.digit] = true;
        d_o += r.begin * dd[r.digit].stride * es;
        loops.push_back(Loop{r.end - r.begin, 0, dd[r.digit].stride * es});
      }
      for (size_t i = 0; i < dd.size(); ++i) {
        if (!ranged[i]) loops.push_back(Loop{dd[i].extent, 0, dd[i].stride * es});
      }
      for (const Loop& l : loops) {
        if (l.extent == 0) return;
      }
      Task task{Kind::kFill, 0, d_o, Simplify(std::move(loops))};
      if (task.loops.empty() || task.loops.back().dst != es) {
        task.loops.push_back(Loop{1, 0, es});
      }
      tasks->push_back(std::move(task));
    });
  }
}

}  // namespace

bool PlanDigits(const TiledLayout& src, const TiledLayout& dst, int64_t es,
                std::vector<Task>* tasks) {
  std::vector<Refined> refined;
  std::vector<std::vector<int>> per_dim(src.rank());
  if (!RefineDigits(src, dst, es, &refined, &per_dim)) return false;
  if (src.element_count() > 0) AddCopyTasks(src, refined, per_dim, es, tasks);
  AddFillTasks(dst, es, tasks);
  MergeAdjacentFills(tasks, es);
  return true;
}

bool FillPadsRuns(const Task& fill, const Task& task, int64_t es) {
  const size_t n = task.loops.size();
  if (fill.kind != Kind::kFill || (task.kind != Kind::kCopy && task.kind != Kind::kTranspose) ||
      task.pad_bytes != 0 || n < 2 || fill.loops.size() != n) {
    return false;
  }
  for (size_t i = 0; i + 1 < n; ++i) {
    if (fill.loops[i].extent != task.loops[i].extent || fill.loops[i].dst != task.loops[i].dst) {
      return false;
    }
  }
  const Loop& run = task.loops[n - 1];
  return (task.kind != Kind::kCopy || run.src == es) && run.dst == es &&
         fill.loops[n - 1].dst == es && fill.dst_offset == task.dst_offset + run.extent * es;
}

void FusePaddedTransposeRows(std::vector<Task>* tasks, int64_t es, Isa isa) {
  if (tasks->size() != 2) return;
  const int k = (*tasks)[0].kind == Kind::kTranspose ? 0 : 1;
  Task& t = (*tasks)[k];
  const Task& fill = (*tasks)[1 - k];
  if (t.kind != Kind::kTranspose || t.grouped || !t.rows.empty() || t.loops.size() != 2 ||
      !FillPadsRuns(fill, t, es)) {
    return;
  }
  // The kernel's rows (a) contiguous in the source, and the padding ending
  // each destination row.
  const Loop &a = t.loops[0], &b = t.loops[1];
  const int64_t pad = fill.loops[1].extent * es;
  if (a.src != es || b.extent * es + pad != a.dst ||
      !FusesPaddedTransposeRows(a.extent, b.extent, a.dst, static_cast<int>(es), isa)) {
    return;
  }
  t.pad_bytes = pad;
  Task fused = std::move(t);
  tasks->assign(1, std::move(fused));
}

void OrderLoopsForStreaming(std::vector<Task>* tasks, int64_t es) {
  for (Task& t : *tasks) {
    // The loops the kernel takes stay; a copy's kernel writes runs of the
    // last loop, a transpose's rows of it.
    const size_t kernel = t.kind == Kind::kTranspose ? 2 : 1;
    if ((t.kind != Kind::kCopy && t.kind != Kind::kTranspose) ||
        t.loops.size() <= kernel) {
      continue;
    }
    // An interleave of two rows (a (2,1) tile: bf16 T(8,128)(2,1)) keeps
    // destination order: each tile is written front to back while its
    // eight source rows stream in together. Read in source order, two rows
    // at a time, every tile would be written in pieces, a pair of rows each
    // pass.
    const Loop& b = t.loops.back();
    if (t.kind == Kind::kTranspose && b.dst == es &&
        IsRowPairInterleave(b.extent, t.loops[t.loops.size() - 2].dst,
                            static_cast<int>(es))) {
      continue;
    }
    // The bytes the kernel writes in one piece: a run, or a transpose's
    // destination row, or all its rows when they are adjacent.
    int64_t run = t.loops.back().extent * es;
    if (t.kind == Kind::kTranspose && t.loops[t.loops.size() - 2].dst == run) {
      run *= t.loops[t.loops.size() - 2].extent;
    }
    if (run % kCacheLineBytes != 0 || run >= kContiguousRunBytes) continue;
    OrderBySourceStride(t.loops.begin(), t.loops.end() - kernel);
  }
}

namespace {

// Whether `rows` source lines `stride` bytes apart overfill a set of a
// 32 KiB, 8-way L1 with 64-byte lines (the L1 data cache of current x86 cores).
// More than 512 rows always do, so at most 513 are counted.
bool RowsCollideInL1(int64_t stride, int64_t rows) {
  constexpr uint64_t kSets = 64, kWays = 8, kLine = kCacheLineBytes;
  int64_t count[kSets] = {};
  for (uint64_t r = 0; r < static_cast<uint64_t>(std::max<int64_t>(rows, 0)); ++r) {
    // Unsigned, so that any stride indexes a set.
    if (++count[r * static_cast<uint64_t>(stride) / kLine % kSets] > kWays) return true;
  }
  return false;
}

}  // namespace

void BlockNarrowTransposes(std::vector<Task>* tasks, int64_t es, Isa isa) {
  // A transpose into narrow tiles reads less than a line of each source row
  // per call (T(4,128) f32: 16 bytes of each of 128 rows) and comes back for
  // the rest of the line one tile later. Rows a power-of-two stride apart
  // share cache sets (at 4 KiB or 16 KiB, all 128 fall in one set of an
  // 8-way L1), so the lines did not last until then. The loops outside the
  // kernel then follow the source, which puts the loop over the tiles along
  // the row (it continues the kernel's source lines) innermost, and the
  // kernel takes one destination line of rows (16 for f32) at a time, and
  // the tiles along the row too (Task::grouped): one call sweeps whole
  // source lines. Where a grouped kernel exists this wins whatever the
  // stride; elsewhere only rows that collide are reordered, since calls of
  // 16 rows cost more calls than calls of a whole tile on rows that do not
  // collide. One destination line of rows is the block: it is what one call
  // writes whole.
  const int64_t line_rows = kCacheLineBytes / es;
  for (Task& t : *tasks) {
    if (t.kind != Kind::kTranspose || t.loops.size() < 3 || !t.rows.empty()) continue;
    const Loop a = t.loops[t.loops.size() - 2];
    if (a.extent * es >= kCacheLineBytes) continue;
    std::vector<Loop> loops = t.loops;
    OrderBySourceStride(loops.begin(), loops.end() - 2);
    const Loop next = loops[loops.size() - 3];
    Loop& rows = loops.back();
    const bool grouped = next.src == a.extent * es && rows.extent > line_rows &&
                         rows.extent % line_rows == 0;
    if (!RowsCollideInL1(rows.src, rows.extent) &&
        !(grouped && HasGroupedTransposeKernel(isa, a.extent, es))) {
      continue;
    }
    if (grouped) {
      const Loop block = SplitOffOuter(rows, line_rows);
      loops.insert(loops.end() - 3, block);
    }
    t.loops = std::move(loops);
    t.grouped = grouped;
  }
}

CopyClass ClassOfTasks(const std::vector<Task>& tasks, int64_t es) {
  int64_t bytes[3] = {0, 0, 0};  // contiguous, tile, transpose
  for (const Task& t : tasks) {
    if (t.kind == Kind::kFill) continue;
    int k = 2;
    if (t.kind == Kind::kCopy) {
      k = t.loops.empty() || t.loops.back().extent * es >= kContiguousRunBytes ? 0 : 1;
    }
    bytes[k] += t.Elements() * es;
  }
  const int best = static_cast<int>(std::max_element(bytes, bytes + 3) - bytes);
  return best == 0 ? CopyClass::kContiguous
                   : best == 1 ? CopyClass::kTile : CopyClass::kTranspose;
}

double OneThreadBytesPerSecond(CopyClass copy_class, bool in_cache) {
  // Bytes read plus written per second by one thread of the packing core,
  // per kernel class: rough rates of relayout_bench's 1000^2 f32 cases (in
  // cache) and 4096^2 ones (from memory). Only their size against the
  // thread cost below decides anything.
  switch (copy_class) {
    case CopyClass::kContiguous:
      return in_cache ? 80e9 : 20e9;
    case CopyClass::kTile:
      return in_cache ? 55e9 : 16e9;
    case CopyClass::kTranspose:
      return in_cache ? 45e9 : 16e9;
    case CopyClass::kSubByte:
      return 1.8e9;
  }
  return 16e9;
}

int ThreadsForCost(CopyClass copy_class, int64_t bytes_moved, bool in_cache,
                   int max_threads) {
  // Handing a share to a worker of the pool (WorkerPool) and waiting for it:
  // the cost of a worker that must be woken, the dearer case (one that still
  // spins from the last call is far cheaper), since the gain below is an
  // upper bound.
  constexpr double kThreadSeconds = 20e-6;
  // Threads share memory bandwidth: from memory, all of them together move
  // at most about what two move (the streaming copy's ceiling); in cache
  // each core brings its own.
  constexpr double kMemoryBytesPerSecond = 30e9;
  const double bytes = static_cast<double>(bytes_moved);
  const double rate = OneThreadBytesPerSecond(copy_class, in_cache);
  int best = 1;
  double best_seconds = bytes / rate;
  for (int t = 2; t <= max_threads; ++t) {
    double moving = bytes / (rate * t);
    if (!in_cache) moving = std::max(moving, bytes / kMemoryBytesPerSecond);
    const double seconds = moving + (t - 1) * kThreadSeconds;
    if (seconds < best_seconds) {
      best = t;
      best_seconds = seconds;
    }
  }
  return best;
}

}  // namespace xla_layout::internal
