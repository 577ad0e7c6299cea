// `hlo-layout relayout SRC DST`: runs the packing core on the documented
// source pattern, times it against memcpy of the same bytes, and checks it.
#ifndef TOOLS_RELAYOUT_COMMAND_H_
#define TOOLS_RELAYOUT_COMMAND_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "xla_layout/relayout.h"
#include "xla_layout/shape.h"

namespace xla_layout::cli {

inline constexpr int kMaxRepeat = 1000000;

struct RelayoutCommandOptions {
  int threads = 0;
  int repeat = 10;                // at most kMaxRepeat
  double budget_seconds = 10.0;   // timed runs stop once they pass this
  bool check = false;
  bool json = false;
  bool explain = false;
  Isa isa = Isa::kAuto;
  RelayoutOptions::Streaming streaming = RelayoutOptions::Streaming::kAuto;
  std::optional<std::string> dump;  // file for the raw destination buffer
};

struct RelayoutCommandResult {
  std::string output;
  bool check_failed = false;
};

// Times `src` -> `dst`; `output` is the text report or, with `json`, one
// JSON object on one line (src, dst, seconds_per_run, the rates in GB/s and
// their ratios, threads, isa, repeat, the byte counts and check).
absl::StatusOr<RelayoutCommandResult> RunRelayoutCommand(
    const Shape& src, const Shape& dst, const RelayoutCommandOptions& options);

}  // namespace xla_layout::cli

#endif  // TOOLS_RELAYOUT_COMMAND_H_
