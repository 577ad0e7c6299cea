// Small helpers shared by the hlo-layout subcommands: argument splitting,
// JSON text, and writing an output file atomically.
#ifndef TOOLS_CLI_UTIL_H_
#define TOOLS_CLI_UTIL_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla_layout/json.h"

namespace xla_layout::cli {

// Exit codes of every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;
inline constexpr int kExitUsage = 2;

// Command-line arguments split into --flags and positional words. A flag is
// `--name` or `--name=value`; `--` ends the flags; a lone `-` is positional.
struct Args {
  std::vector<std::pair<std::string, std::optional<std::string>>> flags;
  std::vector<std::string> positional;

  // Fails on any flag not in `known`.
  absl::Status CheckKnown(const std::vector<absl::string_view>& known) const;
  bool Has(absl::string_view name) const;
  std::optional<std::string> Value(absl::string_view name) const;
};
Args SplitArgs(int argc, char** argv, int first);

using ::xla_layout::JsonString;

// Parses "2,3" (spaces allowed) into integers.
absl::StatusOr<std::vector<int64_t>> ParseIntList(absl::string_view text);

// Writes `contents` to a temporary file beside `path`, then renames it into
// place: a failure never leaves a partial file.
absl::Status WriteFileAtomically(const std::string& path,
                                 absl::string_view contents);

// Reads a file, or standard input for "-".
absl::StatusOr<std::string> ReadFileOrStdin(const std::string& path);

}  // namespace xla_layout::cli

#endif  // TOOLS_CLI_UTIL_H_
