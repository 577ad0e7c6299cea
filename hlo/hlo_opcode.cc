#include "hlo/hlo_opcode.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace xla_layout {
namespace {

// The table's class bits, by the names the table uses.
constexpr unsigned kPreservesLayout = opcode_class::kPreservesLayout;
constexpr unsigned kSideEffect = opcode_class::kSideEffect;
constexpr unsigned kDataMovement = opcode_class::kDataMovement;
constexpr unsigned kDeliversLayout = opcode_class::kDeliversLayout;
constexpr unsigned kControlFlow = opcode_class::kControlFlow;
constexpr unsigned kForwardsLayout = opcode_class::kForwardsLayout;
constexpr int kX = 0, kE1 = 1, kE2 = 2, kE3 = 3;
#define X kX
#define E1 kE1
#define E2 kE2
#define E3 kE3

struct OpcodeInfo {
  HloOpcode opcode;
  absl::string_view name;
  int arity;
  unsigned classes;
};

constexpr OpcodeInfo kInfo[] = {
#define XLA_LAYOUT_OPCODE_INFO(e, text, arity, classes) \
  {HloOpcode::e, text, arity, classes},
    XLA_LAYOUT_HLO_OPCODES(XLA_LAYOUT_OPCODE_INFO)
#undef XLA_LAYOUT_OPCODE_INFO
};

#undef X
#undef E1
#undef E2
#undef E3

}  // namespace

absl::string_view HloOpcodeString(HloOpcode opcode) {
  return kInfo[static_cast<int>(opcode)].name;
}

absl::StatusOr<HloOpcode> StringToHloOpcode(absl::string_view name) {
  static const auto* by_name = [] {
    auto* map = new absl::flat_hash_map<absl::string_view, HloOpcode>();
    for (const OpcodeInfo& info : kInfo) (*map)[info.name] = info.opcode;
    return map;
  }();
  auto it = by_name->find(name);
  if (it == by_name->end()) {
    return absl::InvalidArgumentError(absl::StrCat("unknown opcode '", name, "'"));
  }
  return it->second;
}

bool IsElementwise(HloOpcode opcode) { return ElementwiseArity(opcode) > 0; }

int ElementwiseArity(HloOpcode opcode) {
  return kInfo[static_cast<int>(opcode)].arity;
}

namespace {
bool HasClass(HloOpcode opcode, unsigned bit) {
  return (kInfo[static_cast<int>(opcode)].classes & bit) != 0;
}
}  // namespace

bool PreservesLayout(HloOpcode opcode) {
  return HasClass(opcode, opcode_class::kPreservesLayout);
}
bool HasSideEffect(HloOpcode opcode) {
  return HasClass(opcode, opcode_class::kSideEffect);
}
bool IsDataMovement(HloOpcode opcode) {
  return HasClass(opcode, opcode_class::kDataMovement);
}
bool DeliversLayout(HloOpcode opcode) {
  return HasClass(opcode, opcode_class::kDeliversLayout);
}
bool IsControlFlow(HloOpcode opcode) {
  return HasClass(opcode, opcode_class::kControlFlow);
}
bool ForwardsLayout(HloOpcode opcode) {
  return HasClass(opcode, opcode_class::kForwardsLayout);
}

}  // namespace xla_layout
