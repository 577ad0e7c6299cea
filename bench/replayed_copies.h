// The copies the layout pass inserts into real programs, gathered for
// replay: every module of some folders (examples/, tests/golden/, the HLO
// corpus with real/) through the pass on every built-in target, each
// inserted copy as its source and destination shape.
#ifndef BENCH_REPLAYED_COPIES_H_
#define BENCH_REPLAYED_COPIES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "xla_layout/shape.h"

namespace xla_layout::bench {

// One distinct copy: the shapes (with layouts) on both sides, how many
// times the pass inserted it over every module and target, and where first.
struct ReplayedCopy {
  Shape src, dst;
  int64_t count = 0;
  std::string first_seen;  // "real/gpt2_tp1.hlo on tpu: copy.3"
};

struct ReplayedCopies {
  std::vector<ReplayedCopy> copies;  // in the order first seen
  int modules = 0;                   // parsed, verified and laid out
  int modules_skipped = 0;           // did not parse, verify or pass
  // Folders that could not be read (missing, unreadable or without a module).
  std::vector<std::string> unreadable;
};

// Runs the layout pass on every `*.hlo` below each folder (a folder that
// cannot be read is named in `unreadable` and skipped) for every built-in target, and collects the
// copies it inserts, merged by their two shapes. Files under a `real/`
// folder are read with accept_old_dumps, as the corpus reader says.
ReplayedCopies CollectReplayedCopies(const std::vector<std::string>& folders);

}  // namespace xla_layout::bench

#endif  // BENCH_REPLAYED_COPIES_H_
