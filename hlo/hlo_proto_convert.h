// HLO modules between the IR and XLA's HloModuleProto (proto/hlo.proto).
//
// To the proto: every computation (callees before callers) and instruction
// with ids (module-wide, from 1), operand_ids, called_computation_ids and
// control_predecessor_ids; names, opcodes and shapes (with the layout only
// where the text wrote one: XLA's own protos always have layouts);
// parameter numbers and constants' literals; each attribute in its field
// (hlo_proto_attributes.h); the entry, host_program_shape (the entry
// layout, or the entry computation's own shapes), input_output_alias,
// buffer_donor and the module's frontend_attributes. What has no field (an
// attribute, a header attribute such as replica_count, a `{...}` literal's
// values) is dropped with a warning naming it.
//
// From the proto: the module is written as HLO text in XLA's attribute
// order and read by the HLO parser (hlo_parser.h), so that a module read
// from a proto is checked by every rule that checks one read from text.
// Before that, the proto's structure is checked: ids that name nothing,
// cycles through operand, control-predecessor or called-computation ids, a
// computation or instruction id used twice, names that are not HLO names,
// unknown opcode strings. Fields that are set but not carried give one
// warning per field (with the count of instructions that set it).
#ifndef HLO_HLO_PROTO_CONVERT_H_
#define HLO_HLO_PROTO_CONVERT_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/hlo_module.h"
#include "hlo/hlo_parser.h"
#include "proto/hlo.pb.h"

namespace xla_layout {

// `module` as XLA's HloModuleProto. What has no field is named in
// `warnings` (when given) and left out. Fails when a string that goes into
// a proto string field (a name, metadata, an attribute) is not UTF-8: proto3
// would refuse to read such a message back.
absl::StatusOr<xla::HloModuleProto> HloModuleToProto(const HloModule& module,
                                                     std::vector<std::string>* warnings);

// The HLO text of `proto`, as XLA would print it (attributes in XLA's
// order; operands by name).
absl::StatusOr<std::string> HloModuleProtoToText(const xla::HloModuleProto& proto,
                                                 std::vector<std::string>* warnings);

// HloModuleProtoToText, parsed; errors and warnings name `filename`.
absl::StatusOr<std::unique_ptr<HloModule>> HloModuleFromProto(
    const xla::HloModuleProto& proto, absl::string_view filename,
    std::vector<std::string>* warnings, const HloParseOptions& options = {});

}  // namespace xla_layout

#endif  // HLO_HLO_PROTO_CONVERT_H_
