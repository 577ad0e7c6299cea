// `layout-assignment`: gives every array in a module a layout (dimension
// order and tiles) for a target, and inserts `copy` instructions wherever a
// value's layout differs from the one a use needs. After Run every array
// has a layout, the module verifies, the entry layout is in the header, and
// a second Run changes nothing. README "Layout assignment" describes the
// rules and the figures the cost model uses.
#ifndef PASSES_LAYOUT_ASSIGNMENT_H_
#define PASSES_LAYOUT_ASSIGNMENT_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "passes/hlo_pass.h"
#include "passes/target_config.h"
#include "xla_layout/layout_util.h"  // IWYU pragma: export
#include "xla_layout/shape.h"

namespace xla_layout {

// What one run of the pass did.
struct LayoutAssignmentStats {
  std::string target;
  struct Copy {
    std::string name;         // the inserted copy
    std::string computation;  // where it runs
    std::string operand;      // the value it copies
    std::string reason;       // e.g. "dot operand packing"
    std::string from;         // layouts, as printed
    std::string to;
    int64_t bytes = 0;  // read + written by one execution of the copy
    bool in_loop = false;  // runs once per iteration of a while loop
  };
  std::vector<Copy> copies;
  // Control-flow computations cloned so that each has one caller.
  int computations_cloned = 0;
  // Over every buffer the pass laid out (views counted once).
  int64_t data_bytes = 0;
  int64_t padded_bytes = 0;  // with the padding of their tiles
  // Values whose target tiling the cost model refused, with the padding
  // ratio (negative when the size is unbounded).
  std::vector<std::pair<std::string, double>> tilings_refused;
  int transposes_as_bitcast = 0;  // operand layout == result layout permuted
  int reshapes_as_bitcast = 0;
  std::map<std::string, int64_t> instructions_per_layout;

  std::string ToText() const;
  std::string ToJson() const;
};

class LayoutAssignment : public HloPass {
 public:
  LayoutAssignment();  // the `default` target
  explicit LayoutAssignment(TargetConfig target);

  absl::string_view name() const override { return "layout-assignment"; }
  absl::string_view description() const override {
    return "chooses dimension order and tiles per target; inserts copies "
           "(options: target=NAME, target-file=FILE)";
  }
  absl::StatusOr<bool> Run(HloModule& module) override;
  // target=tpu|cpu-avx2|cpu-avx512|arm64|default, target-file=PATH.
  absl::Status SetOption(absl::string_view key, absl::string_view value) override;
  std::string StatsReport(bool json) const override;

  const TargetConfig& target() const { return target_; }
  const LayoutAssignmentStats& stats() const { return stats_; }

 private:
  TargetConfig target_;
  LayoutAssignmentStats stats_;
};

}  // namespace xla_layout

#endif  // PASSES_LAYOUT_ASSIGNMENT_H_
