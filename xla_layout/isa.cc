#include "xla_layout/isa.h"

#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace xla_layout {

Isa DetectIsa() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return Isa::kAvx512;
  if (__builtin_cpu_supports("avx2")) return Isa::kAvx2;
  return Isa::kScalar;
}

absl::string_view IsaName(Isa isa) {
  switch (isa) {
    case Isa::kAuto:
      return "auto";
    case Isa::kScalar:
      return "scalar";
    case Isa::kAvx2:
      return "avx2";
    case Isa::kAvx512:
      return "avx512";
  }
  return "?";
}

absl::StatusOr<Isa> ParseIsa(absl::string_view name) {
  for (Isa isa : {Isa::kAuto, Isa::kScalar, Isa::kAvx2, Isa::kAvx512}) {
    if (absl::AsciiStrToLower(name) == IsaName(isa)) return isa;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown instruction set '", name, "'; use auto, scalar, avx2 or avx512"));
}

Isa ResolveIsa(Isa requested) {
  if (requested == Isa::kAuto) {
    const char* env = std::getenv("XLA_LAYOUT_ISA");
    absl::StatusOr<Isa> parsed =
        env != nullptr ? ParseIsa(env) : absl::StatusOr<Isa>(Isa::kAuto);
    requested = parsed.ok() ? *parsed : Isa::kAuto;
  }
  Isa best = DetectIsa();
  if (requested == Isa::kAuto) return best;
  return static_cast<int>(requested) <= static_cast<int>(best) ? requested
                                                               : best;
}

}  // namespace xla_layout
