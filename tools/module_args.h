// What the module commands share: reading and verifying an HLO file, and the
// pipeline of --passes with the --target/--target-file shorthands.
#ifndef TOOLS_MODULE_ARGS_H_
#define TOOLS_MODULE_ARGS_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "hlo/hlo_module.h"
#include "passes/hlo_pass.h"
#include "tools/cli_util.h"

namespace xla_layout::cli {

// A failure and the exit code it calls for; `message` is printed as is.
struct CommandError {
  int exit_code;
  std::string message;
};

// Reads `path` ("-" is standard input), parses and verifies it. Warnings go
// to stderr when `verbose`. The message of an error is ready to print
// (positioned errors show the line and a caret).
absl::StatusOr<std::unique_ptr<HloModule>> ReadVerifiedModule(const std::string& path,
                                                              bool verbose,
                                                              CommandError* error);

// The pipeline --passes names (nullopt without --passes), configured, with
// --target/--target-file given to every pass that declares that option.
// Unknown passes and options are usage errors; a target file that does not
// parse is bad input.
absl::StatusOr<std::optional<PassPipeline>> PipelineFromArgs(const Args& args,
                                                            CommandError* error);

}  // namespace xla_layout::cli

#endif  // TOOLS_MODULE_ARGS_H_
