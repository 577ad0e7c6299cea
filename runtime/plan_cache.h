// Relayout plans shared by every copy of a loaded module that moves the
// same pair of shapes, and by every run: the executor builds each plan once
// (at load for copies and transposes, at the first run for values it
// conforms to a written layout) and counts how often a plan was found
// already built, which `hlo-layout run --stats` prints.
#ifndef RUNTIME_PLAN_CACHE_H_
#define RUNTIME_PLAN_CACHE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "xla_layout/relayout.h"
#include "xla_layout/shape.h"

namespace xla_layout::runtime {

class PlanCache {
 public:
  // The plan from `src` to `dst` (shapes with their layouts): the one built
  // for an earlier lookup of the same two shapes, or a new one (default
  // options). Create's error when the packing core refuses the pair; a
  // refused pair is not kept. The plan lives as long as the cache. Safe to
  // call from several threads (the devices of a run).
  absl::StatusOr<const RelayoutPlan*> Get(const Shape& src, const Shape& dst);

  struct Counts {
    int64_t lookups = 0;  // calls of Get
    int64_t hits = 0;     // that found the plan built
    int64_t plans = 0;    // plans built and kept
  };
  Counts counts() const;

 private:
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::unique_ptr<RelayoutPlan>> plans_ ABSL_GUARDED_BY(mu_);
  int64_t lookups_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t hits_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace xla_layout::runtime

#endif  // RUNTIME_PLAN_CACHE_H_
