// `dce`: removes instructions whose values nothing uses (never parameters,
// roots or side-effecting ops).
#include "passes/hlo_pass.h"

namespace xla_layout {
namespace {

class DeadCodeElimination : public HloPass {
 public:
  absl::string_view name() const override { return "dce"; }
  absl::string_view description() const override {
    return "removes instructions whose results are unused";
  }
  absl::StatusOr<bool> Run(HloModule& module) override {
    int removed = 0;
    for (HloComputation* c : module.computations()) {
      removed += c->RemoveDeadInstructions();
    }
    return removed > 0;
  }
};

XLA_LAYOUT_REGISTER_PASS(DeadCodeElimination);

}  // namespace
}  // namespace xla_layout
