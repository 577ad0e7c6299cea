// What the module commands share: reading and verifying an HLO file, and the
// pipeline of --passes with the --target/--target-file shorthands.
#ifndef TOOLS_MODULE_ARGS_H_
#define TOOLS_MODULE_ARGS_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "hlo/hlo_module.h"
#include "hlo/hlo_proto_io.h"
#include "passes/hlo_pass.h"
#include "tools/cli_util.h"

namespace xla_layout::cli {

// A failure and the exit code it calls for; `message` is printed as is.
struct CommandError {
  int exit_code;
  std::string message;
};

// How a command reads its HLO file: --verbose, --accept-old-dumps and
// --input-format.
struct ModuleReadOptions {
  bool verbose = false;           // print the parser's warnings
  bool accept_old_dumps = false;  // see HloParseOptions
  // hlo, pb or pbtxt; by the file's extension when not given (text for
  // standard input).
  std::optional<HloFileFormat> input_format;
};

// The read options the flags of `args` ask for; a flag with a value other
// than a boolean is a usage error.
absl::StatusOr<ModuleReadOptions> ModuleReadOptionsFrom(const Args& args);

// Reads `path` ("-" is standard input), parses and verifies it. Warnings go
// to stderr when `verbose`; old forms read under accept_old_dumps, and
// fields of a proto that are not carried, are always reported there. A
// proto file (hlo_proto_io.h) is read as XLA's text for its module, which
// positioned errors point into (`FILE (as HLO text):line:col`). The message
// of an error is ready to print (positioned errors show the line and a
// caret). A snapshot's arguments and result go to `snapshot` when given.
absl::StatusOr<std::unique_ptr<HloModule>> ReadVerifiedModule(
    const std::string& path, const ModuleReadOptions& options, CommandError* error,
    std::optional<xla::HloSnapshot>* snapshot = nullptr);

// The pipeline --passes names (nullopt without --passes), configured, with
// --target/--target-file given to every pass that declares that option.
// Unknown passes and options are usage errors; a target file that does not
// parse is bad input.
absl::StatusOr<std::optional<PassPipeline>> PipelineFromArgs(const Args& args,
                                                            CommandError* error);

}  // namespace xla_layout::cli

#endif  // TOOLS_MODULE_ARGS_H_
