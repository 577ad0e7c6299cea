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

// How a command reads its HLO file: --verbose and --accept-old-dumps.
struct ModuleReadOptions {
  bool verbose = false;           // print the parser's warnings
  bool accept_old_dumps = false;  // see HloParseOptions
};

// The read options the flags of `args` ask for; a flag with a value other
// than a boolean is a usage error.
absl::StatusOr<ModuleReadOptions> ModuleReadOptionsFrom(const Args& args);

// Reads `path` ("-" is standard input), parses and verifies it. Warnings go
// to stderr when `verbose`; old forms read under accept_old_dumps are always
// reported there, with their count. The message of an error is ready to
// print (positioned errors show the line and a caret).
absl::StatusOr<std::unique_ptr<HloModule>> ReadVerifiedModule(const std::string& path,
                                                              const ModuleReadOptions& options,
                                                              CommandError* error);

// The pipeline --passes names (nullopt without --passes), configured, with
// --target/--target-file given to every pass that declares that option.
// Unknown passes and options are usage errors; a target file that does not
// parse is bad input.
absl::StatusOr<std::optional<PassPipeline>> PipelineFromArgs(const Args& args,
                                                            CommandError* error);

}  // namespace xla_layout::cli

#endif  // TOOLS_MODULE_ARGS_H_
