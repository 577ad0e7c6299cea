// Structural checks of an HLO module, each failure with a message naming the
// computation and instruction, and starting with its `file:line:col`.
//
// Checked: the module has an entry; operands resolve within their own
// computation and form no cycle; instruction and computation names are
// unique; every computation has a root it owns; called computations belong
// to the module and calls form a DAG; shapes and layouts are valid and, with
// require_layouts, every array has one; parameters are numbered 0..n-1 once
// each; every written shape equals what shape inference gives
// (shape_inference.h: elementwise ops, dot, convolution, reduce, gather,
// scatter, slices, pads, ...; reshape keeps the element count, bitcast the
// byte size), and what it refuses is refused here (reverse dims outside the
// rank or repeated, clamp bounds of another type, compare directions XLA
// does not have, floating-point start indices, pad and window sizes that
// overflow int64); callers and callees agree (call, fusion, while,
// conditional, map, reduce, reduce-window, sort, all-reduce, async-start);
// the entry layout, input_output_alias and buffer_donor fit the entry.
//
// Not checked: layouts against layout-sensitive rules (the layout pass's
// invariants), the semantics of collectives and channels, sharding, and
// the ops shape inference does not cover (custom-call, fft, triangular
// solve, batch-norm, rng, ...: taken as written).
#ifndef HLO_HLO_VERIFIER_H_
#define HLO_HLO_VERIFIER_H_

#include <functional>
#include <optional>

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

// The layout rules a laid-out module keeps (XLA's layout-sensitive checks),
// array leaf by array leaf, layouts compared physically (size-1 dims may sit
// anywhere): a bitcast's operand and result are the same bytes; buffers one
// op aliases (custom-call output_to_operand_aliasing, the module's
// input_output_alias) have equal layouts; ops that move data without
// changing its layout (all-reduce, all-to-all, collective-permute, sort,
// all-gather, reduce-scatter) give their results their operands' layouts
// (the in-place collective-permute its output buffer's, operand 1);
// a send's data is its operand's, a recv-done's data its recv's; a tuple's
// elements have its operands' layouts. Layout assignment runs it after
// every run.
//
// With `requires_tiles` (a target's rule: which arrays of rank >= 1 it
// keeps in tiles only), every such array has tiles, outside fusion bodies
// (not buffers of their own) and except where the value is another's or
// comes from outside as written: get-tuple-element and tuple leaves (their
// operands' buffers, checked there), parameters of other computations than
// the entry (their callers' values), recv-done (its recv's buffer),
// bitcasts and the values they read (bytes as written), infeed and custom-call results (delivered
// as the producer writes them), and entry parameters the header pins
// untiled: `pinned_entry` when given (the header a pass started from, before
// it wrote its own), else the module's, and the entry outputs
// input_output_alias makes one buffer with them.
using RequiresTiles = std::function<bool(const Shape& array)>;
absl::Status VerifyLayoutInvariants(
    const HloModule& module, const RequiresTiles& requires_tiles = nullptr,
    const std::optional<ComputationLayout>* pinned_entry = nullptr);

}  // namespace xla_layout

#endif  // HLO_HLO_VERIFIER_H_
