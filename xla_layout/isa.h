// The instruction-set paths of the packing core's kernels, how the CPU and
// the XLA_LAYOUT_ISA override choose one, and their names on the command line.
#ifndef XLA_LAYOUT_ISA_H_
#define XLA_LAYOUT_ISA_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xla_layout {

// Instruction-set paths of the kernels. kAuto picks the best the CPU has,
// unless XLA_LAYOUT_ISA=scalar|avx2|avx512 says otherwise.
enum class Isa { kAuto, kScalar, kAvx2, kAvx512 };

// The best path this CPU runs (CPUID), before any override.
Isa DetectIsa();
// kAuto resolved: the XLA_LAYOUT_ISA override if set and supported, else
// DetectIsa(). An explicit request the CPU lacks falls back to the best it has.
Isa ResolveIsa(Isa requested);
absl::string_view IsaName(Isa isa);
absl::StatusOr<Isa> ParseIsa(absl::string_view name);

}  // namespace xla_layout

#endif  // XLA_LAYOUT_ISA_H_
