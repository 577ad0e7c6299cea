// Placeholder until the collective semantics land: no op is a collective
// and every module runs on one device.
#include "runtime/collectives.h"

namespace xla_layout::runtime {

bool IsCollective(HloOpcode) { return false; }

absl::Status CheckCollective(const HloInstruction& collective) {
  return absl::UnimplementedError(collective.name());
}

absl::StatusOr<std::vector<int64_t>> ParticipatingDevices(const HloInstruction& collective,
                                                          const DeviceGrid&, int64_t) {
  return absl::UnimplementedError(collective.name());
}

absl::StatusOr<PermutePeers> CollectivePermutePeers(const HloInstruction& permute,
                                                    const DeviceGrid&, int64_t) {
  return absl::UnimplementedError(permute.name());
}

absl::StatusOr<Value> CollectiveResult(const HloInstruction& collective,
                                       absl::Span<const std::vector<const Value*>>, int64_t,
                                       absl::Span<const Info>, const ScalarProgram*) {
  return absl::UnimplementedError(collective.name());
}

absl::StatusOr<Value> CollectivePermuteResult(const HloInstruction& permute,
                                              const std::vector<const Value*>*,
                                              const std::vector<const Value*>&,
                                              absl::Span<const Info>) {
  return absl::UnimplementedError(permute.name());
}

absl::StatusOr<DeviceGrid> InferDeviceGrid(const HloModule&) { return DeviceGrid(); }

}  // namespace xla_layout::runtime
