// The semantics of XLA's collectives over several devices (internal to
// runtime/): which devices take part with which, and what each device's
// result is given every participant's operands. The executor runs one
// program per device and meets the participants of a collective at a
// rendezvous; what it hands over there is computed here, as pure functions
// of the values, so that the rules can be tested without threads.
//
// Devices are numbered as XLA numbers global device ids:
// id = replica * partition_count + partition.
//
// replica_groups are read as XLA's collective op group modes define, from
// channel_id and use_global_device_ids (all-reduce, all-gather,
// reduce-scatter and their -start forms have that flag, false when not
// written; all-to-all, collective-broadcast and collective-permute do not):
//   no channel_id                      cross-replica: the groups hold replica
//                                      ids; each partition runs its own groups
//   channel_id, no flag                cross-partition: partition ids; each
//                                      replica runs its own groups
//   channel_id, flag false             cross-replica-and-partition: replica
//                                      ids; a group takes every partition of
//                                      its replicas, replica by replica
//   channel_id, flag true              flattened ids: the groups hold global
//                                      device ids and may not be empty
// use_global_device_ids=true without a channel_id is an error, as in XLA.
// Groups come in the list form ({{0,1},{2,3}}) or the iota form
// ([G,S]<=[dims] or [G,S]<=[dims]T(perm): G groups of S ids, read row-major
// from an iota over `dims` transposed by `perm`). No groups, or `{}`, is
// one group of every replica (or partition) in id order.
#ifndef RUNTIME_COLLECTIVES_H_
#define RUNTIME_COLLECTIVES_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/hlo_module.h"
#include "runtime/buffer.h"
#include "runtime/ops_util.h"
#include "runtime/scalar_program.h"

namespace xla_layout::runtime {

using Info = std::shared_ptr<const ArrayInfo>;

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
// arity, types), naming the instruction. A reduction's to_apply takes two
// scalars of its operands' element type and returns one. Forms the
// executor does not run are Unimplemented errors: a variadic reduction
// over operands of different types, a tuple operand (but the in-place
// permute's), and an in-place collective-permute whose offsets are not one
// tuple of integer scalars per buffer with one slice_sizes list per buffer
// (XLA's several-offsets-per-buffer form). A collective-permute's pairs
// may name a target once and (but in the in-place form) a source once, as
// XLA's verifier requires.
absl::Status CheckCollective(const HloInstruction& collective);

// The devices that take part with `device` in `collective` (not a
// collective-permute), in rank order (the order their data is combined and
// concatenated), `device` among them; from replica_groups (list or iota
// form, empty meaning all), channel_id and use_global_device_ids as XLA's
// collective op group modes define. An error when a group names a device
// outside the grid, an id is in two groups, or `device` is in no group.
absl::StatusOr<std::vector<int64_t>> ParticipatingDevices(const HloInstruction& collective,
                                                          const DeviceGrid& grid,
                                                          int64_t device);

// A collective-permute's peers of `device`: the device it receives from
// (none: its result is zeros, or the in-place output buffer's data) and the
// devices it sends to; from source_target_pairs, over replicas without a
// channel_id and over partitions with one. An error when a pair names an id
// outside the grid or `device` is the target of two pairs.
struct PermutePeers {
  std::optional<int64_t> source;
  std::vector<int64_t> targets;
};
absl::StatusOr<PermutePeers> CollectivePermutePeers(const HloInstruction& permute,
                                                    const DeviceGrid& grid, int64_t device);

// The result on the device of rank `rank` in its group, given every
// participant's operands (participants[r] holds rank r's operand values, in
// operand order), in the result leaves' layouts `out` (one Info per array
// leaf of the result, depth first, as the executor compiled them).
// `to_apply` is the compiled reduction of all-reduce and reduce-scatter
// (null otherwise; unused when the group is one device). Reductions combine
// in rank order, ((x0 op x1) op x2)..., so a result never depends on timing
// or layouts; everything else moves bits.
//
//   all-reduce         each operand reduced elementwise over the group
//   all-gather         each operand concatenated in rank order along
//                      dimensions[0]
//   reduce-scatter     each operand reduced, then block `rank` of
//                      dimensions[0] (cut in group-size equal blocks)
//   all-to-all         with dimensions={d}: block j of d goes to rank j, and
//                      rank r concatenates along d the block r of every
//                      rank in rank order; without: one operand per rank,
//                      and result element j is rank j's operand `rank`
//   collective-broadcast  rank 0's operands
//
// A -start op returns its whole result, from which the matching -done reads
// (as XLA's shapes have it): all-reduce-start the all-reduce's result
// (all-reduce-done returns it as it is); all-gather-start the tuple
// (operands, gathered) (a tuple of each when variadic; all-gather-done reads
// element 1). Torch-XLA writes variadic all-gathers and reduce-scatters with
// a scalar operand (XLA's verifier refuses it): over a group of one device
// it is passed through, over more it is an error.
absl::StatusOr<Value> CollectiveResult(const HloInstruction& collective,
                                       absl::Span<const std::vector<const Value*>> participants,
                                       int64_t rank, absl::Span<const Info> out,
                                       const ScalarProgram* to_apply);

// A collective-permute's result on a device that receives `source` (the
// sender's operands; null when nothing is sent to it) and holds `own`
// (its own operands). Each operand is sent whole (several operands: a tuple
// of results); a device that receives nothing gets zeros, as XLA. The
// in-place form (input, output buffer, input offsets, output offsets;
// slice_sizes) returns the receiver's output buffer with the sender's input
// slice at the sender's input offsets, of slice_sizes, written at the
// receiver's output offsets (buffer by buffer when they are tuples); the
// buffer unchanged when nothing is received; a slice out of bounds is an
// error. collective-permute-start returns its tuple (input, result,
// context...) whose element 1 collective-permute-done reads; contexts
// (XLA's u32[] scalars) are zeros.
absl::StatusOr<Value> CollectivePermuteResult(const HloInstruction& permute,
                                              const std::vector<const Value*>* source,
                                              const std::vector<const Value*>& own,
                                              absl::Span<const Info> out);

// The grid the module runs on. A count the header writes (replica_count=,
// num_partitions=) is taken as written; frameworks often leave them out,
// and then each is the smallest the module's collectives allow: one more
// than the largest id that the groups and pairs name in its space, by each
// collective's group mode (cross-replica and cross-replica-and-partition
// groups and pairs without a channel_id name replicas; cross-partition
// groups and pairs with a channel_id name partitions); 1 when none does.
// Flattened ids name devices: when the grid is still smaller than the
// largest such id, the missing devices become partitions (XLA's SPMD
// partitioner writes flattened ids with one replica), or replicas when the
// header fixes num_partitions alone. `{{0,1,2,3},{4,5,6,7}}` without a
// channel_id needs 8 replicas; `{}` names none.
absl::StatusOr<DeviceGrid> InferDeviceGrid(const HloModule& module);

}  // namespace xla_layout::runtime

#endif  // RUNTIME_COLLECTIVES_H_
