// How collectives name their participants (internal to runtime/): XLA's
// collective op group modes and the two forms of replica_groups, shared by
// the group rules and the load-time checks of collectives.cc.
// collectives.h states the rules.
#ifndef RUNTIME_COLLECTIVE_GROUPS_H_
#define RUNTIME_COLLECTIVE_GROUPS_H_

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/hlo_module.h"

namespace xla_layout::runtime::collectives_internal {

// Ids above this are refused: a grid inferred from them could not run, and
// products of counts stay far from overflow.
constexpr int64_t kMaxId = std::numeric_limits<int32_t>::max();

using Groups = std::vector<std::vector<int64_t>>;

enum class GroupMode { kCrossReplica, kCrossPartition, kCrossReplicaAndPartition, kFlattenedId };

// "name (opcode)", and errors that start so.
std::string Where(const HloInstruction& i);
absl::Status Invalid(const HloInstruction& i, absl::string_view why);
absl::Status Unsupported(const HloInstruction& i, absl::string_view why);

bool IsPermute(HloOpcode op);    // collective-permute and its -start
bool IsReduction(HloOpcode op);  // all-reduce, its -start, reduce-scatter
bool IsGather(HloOpcode op);     // all-gather and its -start

// The group mode of a collective that is not a collective-permute.
absl::StatusOr<GroupMode> ModeOf(const HloInstruction& i);
// replica_groups in either form; empty when none is written (or `{}`).
absl::StatusOr<Groups> ReplicaGroups(const HloInstruction& i);
// Every id within [0, bound) (bound < 0: up to kMaxId) and in one group at
// most; `what` names the ids in the error ("replica").
absl::Status CheckIds(const HloInstruction& i, const Groups& groups, int64_t bound,
                      absl::string_view what);

}  // namespace xla_layout::runtime::collectives_internal

#endif  // RUNTIME_COLLECTIVE_GROUPS_H_
