// Small helpers shared by the hlo-layout subcommands: argument splitting
// and checked standard output.
#ifndef TOOLS_CLI_UTIL_H_
#define TOOLS_CLI_UTIL_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

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
  // The value of the last `--name=value`; nullopt when absent or when the
  // last one is a bare `--name`.
  std::optional<std::string> Value(absl::string_view name) const;
  // A boolean flag: absent is false; `--name` and `--name=true` are true,
  // `--name=false` is false; any other value is an error.
  absl::StatusOr<bool> Bool(absl::string_view name) const;
};
Args SplitArgs(int argc, char** argv, int first);

// Parses "2,3" (spaces allowed) into integers.
absl::StatusOr<std::vector<int64_t>> ParseIntList(absl::string_view text);

// Print "hlo-layout: error: MESSAGE" (a usage error adds the --help hint)
// on stderr and return kExitUsage / kExitBadInput.
int UsageError(absl::string_view message);
int InputError(absl::string_view message);

// Flushes and checks standard output: a write error (full device, closed
// descriptor) turns a successful exit code into kExitBadInput with a message.
int FinishStdout(int exit_code);

}  // namespace xla_layout::cli

#endif  // TOOLS_CLI_UTIL_H_
