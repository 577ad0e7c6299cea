#include "runtime/rendezvous.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace xla_layout::runtime {

Rendezvous::Rendezvous(int64_t device_count) : device_count_(device_count) {}

absl::Status Rendezvous::failure() const {
  absl::MutexLock lock(&mu_);
  return failure_;
}

void Rendezvous::Fail(int64_t device, const absl::Status& status) {
  absl::MutexLock lock(&mu_);
  // A device stopped by another's failure adds nothing; of the devices that
  // failed on their own, the lowest is reported, whatever the timing.
  const bool derived = status.code() == absl::StatusCode::kAborted && !failure_.ok();
  if (!derived && (failure_.ok() || device < failing_device_)) {
    failing_device_ = device;
    failure_ = device_count_ == 1
                   ? status
                   : absl::Status(status.code(),
                                  absl::StrCat("device ", device, ": ", status.message()));
  }
  changed_.SignalAll();
}

void Rendezvous::Finish(int64_t device) {
  (void)device;
  absl::MutexLock lock(&mu_);
  ++finished_;
  if (waiting_ > 0 && waiting_ + finished_ == device_count_ && failure_.ok()) {
    failure_ = absl::FailedPreconditionError(
        "a device finished its program while others wait for it at a collective");
    failing_device_ = device_count_;
  }
  changed_.SignalAll();
}

void Rendezvous::CheckProgressLocked(const HloInstruction& collective) {
  if (!failure_.ok() || waiting_ + finished_ < device_count_) return;
  failure_ = absl::FailedPreconditionError(absl::StrCat(
      "the devices can no longer meet: ", waiting_, " wait at collectives (one at ",
      collective.name(), ") that devices which finished or wait elsewhere never reach"));
  failing_device_ = device_count_;
  changed_.SignalAll();
}

absl::StatusOr<std::vector<std::vector<Value>>> Rendezvous::Exchange(
    const HloInstruction& collective, int64_t occurrence, absl::Span<const int64_t> group,
    int64_t device, std::vector<Value> mine) {
  const auto at = std::find(group.begin(), group.end(), device);
  if (at == group.end() || group.empty()) {
    return absl::InternalError(absl::StrCat(collective.name(), ": device ", device,
                                            " is not in its own group"));
  }
  const size_t rank = static_cast<size_t>(at - group.begin());
  const size_t size = group.size();
  const Key key{&collective, occurrence, *std::min_element(group.begin(), group.end())};
  absl::MutexLock lock(&mu_);
  Meeting& meeting = meetings_[key];
  if (meeting.deposits.empty()) meeting.deposits.resize(size);
  if (meeting.deposits.size() != size || meeting.deposits[rank].has_value()) {
    failure_ = absl::InternalError(absl::StrCat(
        collective.name(), ": devices disagree on the group of occurrence ", occurrence));
    failing_device_ = device;
    changed_.SignalAll();
    return failure_;
  }
  meeting.deposits[rank] = std::move(mine);
  if (++meeting.arrived == static_cast<int64_t>(size)) {
    waiting_ -= static_cast<int64_t>(size) - 1;
    changed_.SignalAll();
  } else {
    ++waiting_;
    CheckProgressLocked(collective);
    while (meeting.arrived < static_cast<int64_t>(size) && failure_.ok()) changed_.Wait(&mu_);
  }
  if (!failure_.ok()) {
    return absl::AbortedError(absl::StrCat(collective.name(), ": the run failed elsewhere"));
  }
  std::vector<std::vector<Value>> all;
  all.reserve(size);
  for (const auto& d : meeting.deposits) all.push_back(*d);
  if (++meeting.collected == static_cast<int64_t>(size)) meetings_.erase(key);
  return all;
}

}  // namespace xla_layout::runtime
