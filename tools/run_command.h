// `hlo-layout run` and `hlo-layout verify`: execute a module on the CPU with
// every value in its physical layout, and check that a rewrite (a pass
// pipeline, or another module) computes bit-identical outputs.
#ifndef TOOLS_RUN_COMMAND_H_
#define TOOLS_RUN_COMMAND_H_

#include "tools/cli_util.h"

namespace xla_layout::cli {

int RunRunCommand(const Args& args);
int RunVerifyCommand(const Args& args);

}  // namespace xla_layout::cli

#endif  // TOOLS_RUN_COMMAND_H_
