// Instruction names clear of every name already taken, as XLA renames: a
// taken base gets the first free ".N" suffix. Counting on from the last
// suffix handed out for a base keeps a run of renames linear.
#ifndef HLO_NAME_UNIQUER_H_
#define HLO_NAME_UNIQUER_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"

namespace xla_layout {

class NameUniquer {
 public:
  NameUniquer() = default;
  // Takes the names in use lazily: `gather` (which calls Take) runs at the
  // first Unique(), so a pass that names nothing never walks a module's
  // names (a million random inserts at 1M instructions).
  explicit NameUniquer(std::function<void(NameUniquer&)> gather)
      : gather_(std::move(gather)) {}

  // Marks `name` taken; false when it already was. The uniquer keeps the
  // view, so the text must outlive it unchanged (an instruction's own name).
  bool Take(absl::string_view name) { return taken_.insert(name).second; }
  void Reserve(int64_t names) { taken_.reserve(static_cast<size_t>(names)); }

  // `base` when it is free, else the first free `base.N`; either way the
  // name is taken from then on (the uniquer owns its text).
  std::string Unique(absl::string_view base);

 private:
  std::function<void(NameUniquer&)> gather_;  // until the first Unique()
  absl::flat_hash_set<absl::string_view> taken_;
  std::deque<std::string> owned_;  // names handed out, viewed by taken_
  absl::flat_hash_map<std::string, int64_t> next_suffix_;
};

}  // namespace xla_layout

#endif  // HLO_NAME_UNIQUER_H_
