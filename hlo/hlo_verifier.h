// Structural checks of an HLO module, each failure with a message naming the
// computation and instruction.
#ifndef HLO_HLO_VERIFIER_H_
#define HLO_HLO_VERIFIER_H_

#include "absl/status/status.h"
#include "hlo/hlo_module.h"

namespace xla_layout {

struct VerifierOptions {
  // Also require every array shape to carry a layout (true after parsing and
  // after layout assignment).
  bool require_layouts = true;
};

// Checks: operands resolve within their computation; instruction and
// computation names are unique; every computation has a root it owns; called
// computations belong to the module and no computation calls itself; shapes
// and layouts are valid; parameters are numbered 0..n-1 once each;
// elementwise ops agree on dims; tuples and get-tuple-element agree with
// their operands (layouts aside).
absl::Status VerifyModule(const HloModule& module,
                          const VerifierOptions& options = {});

}  // namespace xla_layout

#endif  // HLO_HLO_VERIFIER_H_
