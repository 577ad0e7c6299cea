// The semantics of XLA's collectives over several devices (internal to
// runtime/): which devices take part with which, and what each device's
// result is given every participant's operands. The executor runs one
// program per device and meets the participants of a collective at a
// rendezvous; what it hands over there is computed here, as pure functions
// of the values, so that the rules can be tested without threads.
//
// Devices are numbered as XLA numbers global device ids:
// id = replica * partition_count + partition.
#ifndef RUNTIME_COLLECTIVES_H_
#define RUNTIME_COLLECTIVES_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/hlo_module.h"
#include "runtime/buffer.h"
#include "runtime/ops_util.h"
#include "runtime/scalar_program.h"

namespace xla_layout::runtime {

struct DeviceGrid {
  int64_t replica_count = 1;
  int64_t partition_count = 1;
  int64_t device_count() const { return replica_count * partition_count; }
};

// Whether the executor runs `opcode` at a rendezvous: all-reduce,
// all-gather, reduce-scatter, all-to-all, collective-permute,
// collective-broadcast and their -start forms (a -done is local).
bool IsCollective(HloOpcode opcode);

// Checks at load time what the collective needs (attributes, to_apply's
// arity, types), naming the instruction.
absl::Status CheckCollective(const HloInstruction& collective);

// The devices that take part with `device` in `collective` (not a
// collective-permute), in rank order (the order their data is combined and
// concatenated), `device` among them; from replica_groups (list or iota
// form, empty meaning all), channel_id and use_global_device_ids as XLA's
// collective op group modes define. An error when a group names a device
// outside the grid or `device` is in no group.
absl::StatusOr<std::vector<int64_t>> ParticipatingDevices(const HloInstruction& collective,
                                                          const DeviceGrid& grid,
                                                          int64_t device);

// A collective-permute's peers of `device`: the device it receives from
// (none: its result is zeros, or the in-place output buffer's data) and the
// devices it sends to; from source_target_pairs, over replicas without a
// channel_id and over partitions with one.
struct PermutePeers {
  std::optional<int64_t> source;
  std::vector<int64_t> targets;
};
absl::StatusOr<PermutePeers> CollectivePermutePeers(const HloInstruction& permute,
                                                    const DeviceGrid& grid, int64_t device);

// The result on the device of rank `rank` in its group, given every
// participant's operands (participants[r] holds rank r's operand values, in
// operand order), in the result leaves' layouts `out` (one Info per array
// leaf of the result, as the executor compiled them). `to_apply` is the
// compiled reduction of all-reduce and reduce-scatter (null otherwise).
// Reductions combine in rank order, so a result never depends on timing or
// layouts. For a -start op, the value the matching -done will read.
absl::StatusOr<Value> CollectiveResult(const HloInstruction& collective,
                                       absl::Span<const std::vector<const Value*>> participants,
                                       int64_t rank, absl::Span<const Info> out,
                                       const ScalarProgram* to_apply);

// A collective-permute's result on a device that receives `source` (the
// sender's operands; null when nothing is sent to it) and holds `own`
// (its own operands: the in-place form's output buffer keeps what no one
// overwrote).
absl::StatusOr<Value> CollectivePermuteResult(const HloInstruction& permute,
                                              const std::vector<const Value*>* source,
                                              const std::vector<const Value*>& own,
                                              absl::Span<const Info> out);

// The smallest grid the module's collectives allow when the header does not
// give replica_count or num_partitions (frameworks often leave them out):
// each count is one more than the largest id its groups and pairs name (1
// when none does); a count the header writes is taken as written.
absl::StatusOr<DeviceGrid> InferDeviceGrid(const HloModule& module);

}  // namespace xla_layout::runtime

#endif  // RUNTIME_COLLECTIVES_H_
