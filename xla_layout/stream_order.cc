#include "xla_layout/stream_order.h"

#include <algorithm>

#include "xla_layout/relayout_kernels.h"

namespace xla_layout::internal {

void GroupLineRunsForStreaming(std::vector<Task>* tasks, int64_t es) {
  constexpr int64_t kLine = 64;
  for (Task& t : *tasks) {
    if (t.kind != Kind::kCopy || t.loops.size() < 2) continue;
    const int64_t run = t.loops.back().extent * es;
    if (t.loops.back().dst != es || run % kLine != 0 || run >= kStreamPieceBytes) continue;
    const int64_t group = kStreamPieceRuns;
    // The loop that continues the runs in the destination, outside the run.
    for (size_t k = 0; k + 1 < t.loops.size(); ++k) {
      Loop& l = t.loops[k];
      if (l.dst != run || l.extent < group || l.extent % group != 0) continue;
      const Loop inner{group, l.src, l.dst};
      l = Loop{l.extent / group, l.src * group, l.dst * group};
      t.loops.insert(t.loops.end() - 1, inner);
      break;
    }
  }
}

void TallerGroupedBlocks(std::vector<Task>* tasks, int64_t es, Isa isa, bool streaming,
                         bool outermost_too) {
  for (Task& t : *tasks) {
    const size_t n = t.loops.size();
    // The block loop outermost (n == 4) is the one threads share: kept,
    // unless the plan has one thread.
    if (t.kind != Kind::kTranspose || !t.grouped || n < (outermost_too ? 4u : 5u) ||
        !HasGroupedTransposeKernel(isa, t.loops[n - 2].extent, es)) {
      continue;
    }
    Loop& block = t.loops[n - 4];
    Loop& rows = t.loops[n - 1];
    if (block.src != rows.extent * rows.src || block.dst != rows.extent * rows.dst) continue;
    const int64_t most = streaming                 ? kGroupedStreamRows
                         : rows.src % 4096 == 0 ? kGroupedCollidingRows
                                                : kGroupedCacheRows;
    int64_t k = most / std::max<int64_t>(rows.extent, 1);
    while (k > 1 && block.extent % k != 0) --k;
    if (k < 2) continue;
    rows.extent *= k;
    // Left in place at extent 1: a grouped task keeps a loop outside its kernel's.
    block = Loop{block.extent / k, block.src * k, block.dst * k};
  }
}

}  // namespace xla_layout::internal
