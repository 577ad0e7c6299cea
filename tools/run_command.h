// `hlo-layout run` and `hlo-layout verify`: execute a module on the CPU with
// every value in its physical layout, and check that a rewrite (a pass
// pipeline, or another module) computes bit-identical outputs.
#ifndef TOOLS_RUN_COMMAND_H_
#define TOOLS_RUN_COMMAND_H_

#include <optional>
#include <string>

#include "tools/cli_util.h"

namespace xla_layout::cli {

// `out_path`: -o, where --output-format=snapshot writes the run's
// HloSnapshot (standard output without it).
int RunRunCommand(const Args& args, const std::optional<std::string>& out_path = std::nullopt);
int RunVerifyCommand(const Args& args);

}  // namespace xla_layout::cli

#endif  // TOOLS_RUN_COMMAND_H_
