#include "xla_layout/stream_order.h"

namespace xla_layout::internal {

void GroupLineRunsForStreaming(std::vector<Task>* tasks, int64_t es) {
  constexpr int64_t kLine = 64;
  for (Task& t : *tasks) {
    if (t.kind != Kind::kCopy || t.loops.size() < 2) continue;
    const int64_t run = t.loops.back().extent * es;
    if (t.loops.back().dst != es || run % kLine != 0 || run >= kStreamPieceBytes) continue;
    const int64_t group = kStreamPieceBytes / run;
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

}  // namespace xla_layout::internal
