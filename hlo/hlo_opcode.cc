#include "hlo/hlo_opcode.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace xla_layout {
namespace {

constexpr int kX = 0, kE1 = 1, kE2 = 2, kE3 = 3;
#define X kX
#define E1 kE1
#define E2 kE2
#define E3 kE3

struct OpcodeInfo {
  HloOpcode opcode;
  absl::string_view name;
  int arity;
};

constexpr OpcodeInfo kInfo[] = {
#define XLA_LAYOUT_OPCODE_INFO(e, text, kind) {HloOpcode::e, text, kind},
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

bool IsControlFlow(HloOpcode opcode) {
  return opcode == HloOpcode::kWhile || opcode == HloOpcode::kConditional ||
         opcode == HloOpcode::kCall || opcode == HloOpcode::kFusion;
}

}  // namespace xla_layout
