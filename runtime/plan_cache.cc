#include "runtime/plan_cache.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace xla_layout::runtime {

absl::StatusOr<const RelayoutPlan*> PlanCache::Get(const Shape& src, const Shape& dst) {
  // The printed shapes name everything a plan depends on: type, dims,
  // layout with its tiles and element size.
  std::string key = absl::StrCat(src.ToString(), " -> ", dst.ToString());
  absl::MutexLock lock(&mu_);
  ++lookups_;
  auto it = plans_.find(key);
  if (it != plans_.end()) {
    ++hits_;
    return it->second.get();
  }
  absl::StatusOr<RelayoutPlan> plan = RelayoutPlan::Create(src, dst);
  if (!plan.ok()) return plan.status();
  auto kept = std::make_unique<RelayoutPlan>(*std::move(plan));
  const RelayoutPlan* out = kept.get();
  plans_.emplace(std::move(key), std::move(kept));
  return out;
}

PlanCache::Counts PlanCache::counts() const {
  absl::MutexLock lock(&mu_);
  return Counts{lookups_, hits_, static_cast<int64_t>(plans_.size())};
}

}  // namespace xla_layout::runtime
