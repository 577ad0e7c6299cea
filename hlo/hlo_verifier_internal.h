// The verifier's helpers, shared by its two files: hlo_verifier.cc (the
// module's structure, aliasing and layout invariants) and
// hlo_verifier_callees.cc (callers against the computations they call).
// Not a public API: use hlo_verifier.h.
#ifndef HLO_HLO_VERIFIER_INTERNAL_H_
#define HLO_HLO_VERIFIER_INTERNAL_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "hlo/hlo_module.h"
#include "hlo/hlo_verifier.h"
#include "hlo/source_text.h"

namespace xla_layout::hlo_verifier_internal {

struct Context {
  const HloModule& module;
  const VerifierOptions& options;
};

// `body` at `where`: with the line and a caret when the source is at hand,
// with file:line:col when the module came from a file, bare otherwise.
absl::Status Positioned(const Context& ctx, SourceLocation where, const std::string& body);

// `message` about instruction `i` of `c` (or about `c` when `i` is null),
// prefixed with both names and placed as Positioned places it.
absl::Status Fail(const Context& ctx, const HloComputation& c, const HloInstruction* i,
                  absl::string_view message);

// A called computation agrees with its caller: parameters of the shapes the
// caller passes, a result of the shape it expects (layouts aside). Checked
// for call, fusion, async-start, while, conditional, map, reduce,
// reduce-window, all-reduce(-start), reduce-scatter and sort; other
// opcodes pass.
absl::Status VerifyCallees(const Context& ctx, const HloComputation& c, const HloInstruction& i);

}  // namespace xla_layout::hlo_verifier_internal

#endif  // HLO_HLO_VERIFIER_INTERNAL_H_
