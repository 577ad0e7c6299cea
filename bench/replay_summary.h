// The replayed-copies tables of relayout_bench: the copies the layout pass
// inserts, timed one by one (BM_Replay), summed per cache class against
// memcpy, the floor and a plain vector copy, and the copies below their
// class's goal sorted by what explains it.
#ifndef BENCH_REPLAY_SUMMARY_H_
#define BENCH_REPLAY_SUMMARY_H_

#include <ostream>
#include <vector>

#include "bench/bench_main.h"

namespace xla_layout::bench {

// The replayed copies summed per class and in total: bytes moved (read +
// written, count included), seconds in the core, in memcpy of the same
// bytes, and in the floor (memcpy plus a memset of the padding), with the
// ratios; then the copies that lose the most time against memcpy. Copies
// whose destination is over twice their elements (padding) are a class of
// their own: memcpy of the elements is no measure of them.
void ReplaySummary(const std::vector<Run>& runs, std::ostream& out);

// Why the replayed copies of L2 and L3 miss their goals: each such copy
// counted under the first reference that misses the goal too. The floor
// (memcpy and the padding's memset) and the plain vector copy (vector
// stores, against memcpy's `rep movsb`) bound every kernel that writes the
// same bytes with vector stores. The copy's own lines or runs moved alone
// (replay_traffic.h, plan_traffic.h), and its plan's blocks transposed by
// permutes alone (plan_traffic.h), bound nothing: a kernel may order or
// combine them better, and the counts of copies whose core beats its
// reference say how often it does. So these two explain a miss only where
// the core is at most a tenth faster than them. What no reference
// explains is open, and listed with the references it has.
// Prints nothing without replay runs.
void ReplayMisses(const std::vector<Run>& runs, std::ostream& out);

}  // namespace xla_layout::bench

#endif  // BENCH_REPLAY_SUMMARY_H_
