// The attributes of one instruction between HLO text (HloAttribute, the
// value as XLA writes it) and the fields of XLA's HloInstructionProto: the
// half of hlo_proto_convert.h that knows attribute by attribute. Called
// computations, control predecessors, operands, names, shapes, parameter
// numbers and constants' literals are the caller's.
#ifndef HLO_HLO_PROTO_ATTRIBUTES_H_
#define HLO_HLO_PROTO_ATTRIBUTES_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hlo/hlo_module.h"
#include "proto/hlo.pb.h"

namespace xla_layout {

// Sets the fields attribute `a` of `instr` stands for (typed values where
// the IR keeps them). NotFoundError when the proto has no field for it;
// another error when its text is not what XLA writes.
absl::Status AttributeToProto(const HloInstruction& instr, const HloAttribute& a,
                              xla::HloInstructionProto& proto);

// The attributes the fields of `proto` (an instruction of `opcode`) stand
// for, as XLA's text writes them, in XLA's order (AttributeRank). The names
// of the fields read go to `read`.
absl::StatusOr<std::vector<HloAttribute>> AttributesFromProto(
    const xla::HloInstructionProto& proto, HloOpcode opcode,
    absl::flat_hash_set<std::string>& read);

// Where XLA's printer puts attribute `name` among an instruction's
// attributes: opcode-specific ones first, then called computations,
// sharding, frontend_attributes, control-predecessors, metadata,
// backend_config. Names it does not know rank last.
int AttributeRank(absl::string_view name);

// Orders every instruction's attributes by AttributeRank (stably): the
// text of `module` as a module read from a proto prints it.
void OrderAttributesAsXla(HloModule& module);

// The attribute names that name called computations of `opcode`, one per
// entry of called_computation_ids (the last repeats for longer lists):
// to_apply, calls, {condition, body}, {select, scatter},
// branch_computations, called_computations.
std::vector<std::string> CalledComputationAttributes(HloOpcode opcode, int64_t count,
                                                     bool pred_branch);

}  // namespace xla_layout

#endif  // HLO_HLO_PROTO_ATTRIBUTES_H_
