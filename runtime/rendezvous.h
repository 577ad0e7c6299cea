// Where the devices of a multi-device run meet at a collective (internal to
// runtime/). Each device runs its program on its own thread; at a
// collective it deposits its operands and waits until every device of its
// group has deposited for the same collective and occurrence, then receives
// all of them in rank order. A run whose devices can no longer meet (one
// failed, one finished without coming, or every device waits at a
// different collective) ends with an error instead of a hang.
#ifndef RUNTIME_RENDEZVOUS_H_
#define RUNTIME_RENDEZVOUS_H_

#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include "absl/container/node_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "hlo/hlo_module.h"
#include "runtime/buffer.h"

namespace xla_layout::runtime {

class Rendezvous {
 public:
  explicit Rendezvous(int64_t device_count);

  // Deposits `mine` (the device's operands) for `collective`'s
  // `occurrence`-th execution among `group` (device ids in rank order,
  // `device` among them) and returns every member's operands in rank order.
  // Values share their bytes, which no one writes once made.
  absl::StatusOr<std::vector<std::vector<Value>>> Exchange(const HloInstruction& collective,
                                                           int64_t occurrence,
                                                           absl::Span<const int64_t> group,
                                                           int64_t device,
                                                           std::vector<Value> mine);

  // `device` stopped with `status`: every waiting device stops too (its
  // Exchange returns Aborted). The run's failure is that of the lowest
  // device that failed on its own (an Aborted status is a consequence).
  void Fail(int64_t device, const absl::Status& status);
  // `device` finished its program.
  void Finish(int64_t device);

  // The first failure (OK when none).
  absl::Status failure() const;

 private:
  // (collective, occurrence, lowest device of the group). A node map: a
  // waiting device holds a reference to its meeting while others insert.
  using Key = std::tuple<const HloInstruction*, int64_t, int64_t>;
  struct Meeting {
    std::vector<std::optional<std::vector<Value>>> deposits;  // by rank
    int64_t arrived = 0;
    int64_t collected = 0;
  };
  // With mu_ held: fails the run when no device can make progress.
  void CheckProgressLocked(const HloInstruction& collective) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const int64_t device_count_;
  mutable absl::Mutex mu_;
  absl::CondVar changed_;
  absl::node_hash_map<Key, Meeting> meetings_ ABSL_GUARDED_BY(mu_);
  int64_t waiting_ ABSL_GUARDED_BY(mu_) = 0;  // devices in meetings not yet complete
  int64_t finished_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Status failure_ ABSL_GUARDED_BY(mu_);
  int64_t failing_device_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace xla_layout::runtime

#endif  // RUNTIME_RENDEZVOUS_H_
