// `hlo-layout explain FILE --passes=... --target=T [--json] [--all]
// [--graph=OUT]`: runs the pipeline as the main command does and prints,
// instead of the module, every copy layout assignment inserted with its
// chain of reasons (LayoutExplanation), advice on the entry layout, and with
// --all the rule behind every value off the target's default.
//
// Advice is measured, never estimated: for each entry parameter (or result
// leaf) that a copy's chain reaches as a header pin, the pipeline runs again
// on the module as read with that layout set in entry_computation_layout, one
// candidate at a time (the layouts the copies of that value move it to, or
// for a result, from); the one that moves fewest bytes is advised when it
// moves fewer than the module as it is. Each try costs a run of the
// pipeline, so only the `advice_pins` pins whose copies move most bytes
// are tried (every pin with 0); the report counts the others.
#ifndef TOOLS_EXPLAIN_COMMAND_H_
#define TOOLS_EXPLAIN_COMMAND_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/hlo_module.h"
#include "passes/hlo_pass.h"
#include "passes/layout_assignment/provenance.h"
#include "passes/layout_assignment/stats.h"
#include "tools/cli_util.h"

namespace xla_layout::cli {

struct ExplainAdvice {
  bool result = false;  // the entry result (else a parameter)
  int index = 0;        // the parameter number (for a result: 0)
  int leaf = 0;         // the array leaf of the parameter or result
  std::string name;     // the parameter's name, or "result"
  std::string shape;    // without layout, e.g. f32[256,128]
  std::string current, suggested;  // layouts, as entry_computation_layout writes them
  int64_t copies_before = 0, copies_after = 0;
  int64_t bytes_before = 0, bytes_after = 0;  // copy_bytes_per_run
  int64_t pinned_bytes = 0;  // of the copies whose chains reach this pin
};

// Pins tried for advice unless told otherwise (--advice-pins): each try
// runs the pipeline again.
inline constexpr size_t kDefaultAdvicePins = 64;

struct ExplainReport {
  LayoutAssignmentStats stats;  // of the last layout-assignment in the pipeline
  LayoutExplanation explanation;
  std::vector<ExplainAdvice> advice;  // most bytes saved first
  size_t advice_pins = 0;  // the most pins tried (0: every pin)
  int advice_untried = 0;  // pins past advice_pins, not tried
  std::unique_ptr<HloModule> rewritten;
};

// Runs `pipeline` (which must hold layout-assignment) on `module`, explains
// the last layout-assignment's copies, and finds the advice by running the
// pipeline again on edited copies of the module. `values`: also the rule of
// every value off the target's default. `advice_pins`: at most that many
// pins are tried for advice, those whose copies move most bytes (0: all).
// Fails when the pipeline does or holds no layout-assignment.
absl::StatusOr<ExplainReport> ExplainModule(std::unique_ptr<HloModule> module,
                                            PassPipeline& pipeline, bool values,
                                            size_t advice_pins = kDefaultAdvicePins);

// Writes `advice.suggested` into `module`'s entry_computation_layout (the
// module must have one), as a user would edit the header.
absl::Status ApplyAdvice(const ExplainAdvice& advice, HloModule& module);

std::string ExplainText(const ExplainReport& report, bool values);
// One JSON object on one line: copies (with chains), advice, and with
// `values` the values.
std::string ExplainJson(const ExplainReport& report, bool values);

int RunExplainCommand(const Args& args);

}  // namespace xla_layout::cli

#endif  // TOOLS_EXPLAIN_COMMAND_H_
