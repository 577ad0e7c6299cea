// Structural checks of an HLO module, each failure with a message naming the
// computation and instruction, and starting with its `file:line:col`.
//
// Checked: the module has an entry; operands resolve within their own
// computation; instruction and computation names are unique; every
// computation has a root it owns; called computations belong to the module
// and calls form a DAG (no computation calls itself, directly or not);
// shapes and layouts are valid and, with require_layouts, every array has
// one; parameters are numbered 0..n-1 once each; elementwise ops have their
// arity and agree on dims (select's predicate and clamp's bounds may be
// scalars); tuple and get-tuple-element agree with their operands (layouts
// aside); an entry_computation_layout has the entry's parameter and result
// shapes.
//
// Not checked yet (accepted when wrong): the result shape of any other op
// (transpose, reshape, dot, slice, broadcast, reduce, convolution, ...);
// that callers and callees agree on parameter and result shapes (fusion,
// call, map, reduce, sort, while, conditional); a written computation
// signature against its parameters and root; constant literals against
// their shapes; input_output_alias and buffer_donor; cycles among
// instructions of one computation.
#ifndef HLO_HLO_VERIFIER_H_
#define HLO_HLO_VERIFIER_H_

#include "absl/status/status.h"
#include "hlo/hlo_module.h"
#include "hlo/source_text.h"

namespace xla_layout {

struct VerifierOptions {
  // Also require every array shape to carry a layout (true after parsing and
  // after layout assignment).
  bool require_layouts = true;
  // The text the module was parsed from: errors then show the line and a
  // caret. Without it an error still starts with `file:line:col: error: `
  // when the module came from a file and the instruction from its text.
  const SourceText* source = nullptr;
};

absl::Status VerifyModule(const HloModule& module,
                          const VerifierOptions& options = {});

// A signature written in the text (`(a: s32[7]) -> pred[]`) is what the
// parameters and the root are, layouts aside. The parser calls it and
// places the error at the computation.
absl::Status VerifySignature(const HloComputation& computation);

// The module's input_output_alias and buffer_donor name entry parameters and
// outputs that exist, alias buffers of equal shapes, and use each output
// and each parameter buffer once (a donated buffer is not also aliased).
absl::Status VerifyAliasing(const HloModule& module);

}  // namespace xla_layout

#endif  // HLO_HLO_VERIFIER_H_
