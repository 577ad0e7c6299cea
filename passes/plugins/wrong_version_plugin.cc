// A plugin built for another API version: loading it must fail cleanly.
#include "passes/hlo_pass.h"

extern "C" int xla_layout_pass_plugin_api_version() { return 999; }

extern "C" void xla_layout_register_passes(xla_layout::PassRegistrar*,
                                           absl::Status* status) {
  *status = absl::InternalError("must never be called");
}
