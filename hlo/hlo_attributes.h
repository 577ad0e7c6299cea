// The typed attributes of HLO instructions: how the value of each typed
// attribute parses into HloInstruction::Attributes. Errors are messages
// without a position; the parser places them at the attribute.
#ifndef HLO_HLO_ATTRIBUTES_H_
#define HLO_HLO_ATTRIBUTES_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hlo/hlo_module.h"

namespace xla_layout {

// Parses `attribute` into `instr`'s typed attributes when its name is a
// typed one; the names of computations it calls are appended to `callees`,
// to be resolved once the module is read. Also refuses a result_accuracy
// that is not a ResultAccuracy (CheckResultAccuracy) and a conditional's
// branches named both ways (true_computation/false_computation after
// branch_computations, or the reverse). Other names are left alone.
// `opcode` is the op the attribute belongs to: instr's own, or for the
// async shorthand (`convolution-start`) the wrapped op's, which some names
// depend on (dim_labels, kind, padding, slice_sizes).
absl::Status ParseTypedAttribute(HloInstruction& instr, HloOpcode opcode,
                                 const HloAttribute& attribute,
                                 std::vector<std::string>& callees);

// OK when instructions of `opcode` take an attribute called `name`: those of
// its opcode in XLA's parser, or one that every instruction takes
// (metadata, sharding, frontend_attributes, backend_config, statistics,
// parameter_replication, control-predecessors, original_value and its
// later name origin). Opcodes without a table entry (the newest:
// scaled-dot, scan, shuffle, collective-reduce) take any name.
absl::Status CheckAttributeName(HloOpcode opcode, absl::string_view name);
// The same answer as a bool, without building the error (passes ask it of
// every attribute they carry over).
bool TakesAttribute(HloOpcode opcode, absl::string_view name);

// Checks XLA's ResultAccuracy: `{mode=default}` or `{mode=highest}` (XLA's
// lowercase names), or `{tolerance={atol=1e-5,rtol=0,ulps=1}}` with any of
// the three fields, each a number.
absl::Status CheckResultAccuracy(absl::string_view text);

// Checks XLA's original_value (or its later name, origin) of an instruction
// of `shape`, `name` being the attribute's: `{tree}` with a tree shaped as
// `shape` (`{"x"}`, `{"x" {1}}` or `{}` for an array or token, `(tree,
// ...)` with one tree per element for a tuple), or `{[synthetic_call]}`.
// On an error, where in `text` it is goes to `error_offset`.
absl::Status CheckOriginalValue(absl::string_view name, absl::string_view text,
                                const Shape& shape, size_t* error_offset);

// `{{0,1},{1,2}}` (spaces anywhere, `{}` for none): a list of integer lists,
// as XLA writes source_target_pairs, replica_groups and collective-permute's
// slice_sizes. Non-negative integers only: these are ids and sizes.
absl::StatusOr<std::vector<std::vector<int64_t>>> ParseIntListList(absl::string_view text);

// `{0,1}` (or `{}`, spaces allowed) as the value of attribute `name` (named
// in the error).
absl::StatusOr<std::vector<int64_t>> ParseIntegerList(absl::string_view name,
                                                      absl::string_view value);

// A dot's `L.1@2:4` or `L.1@2:4_R.0@2:4` (SparsityDescriptor): each operand
// at most once, 0 < n <= m.
absl::StatusOr<std::vector<SparsityDescriptor>> ParseSparsity(absl::string_view text);

// `{a, %b}` as names.
absl::StatusOr<std::vector<std::string>> ParseNameList(absl::string_view text);

// Attributes whose value names called computations (to_apply, calls, body,
// condition, branch_computations, ...).
bool IsCalledComputationAttribute(absl::string_view name);

// `{size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=1x1 rhs_dilate=1x1
// rhs_reversal=0x0}`, fields in any order, all but size optional. `{}` is a
// window of no dims (a scalar reduce-window).
absl::StatusOr<std::vector<WindowDimension>> ParseWindow(absl::string_view text);

// `{ {1}: (0, {}), ... }`: output shape index -> (operand, its shape index).
absl::StatusOr<std::vector<OutputOperandAlias>> ParseOutputOperandAliasing(
    absl::string_view text);

// The module header's `input_output_alias={ {0}: (1, {}, may-alias), ... }`
// (the kind is optional; may-alias by default) and
// `buffer_donor={ (0, {}), ... }`.
absl::StatusOr<std::vector<InputOutputAlias>> ParseInputOutputAlias(absl::string_view text);
absl::StatusOr<std::vector<BufferDonor>> ParseBufferDonor(absl::string_view text);

// The subshape of `shape` at tuple index `index`, or null when there is none.
const Shape* ShapeAtIndex(const Shape& shape, absl::Span<const int64_t> index);

}  // namespace xla_layout

#endif  // HLO_HLO_ATTRIBUTES_H_
