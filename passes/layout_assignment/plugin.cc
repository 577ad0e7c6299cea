// The layout-assignment pass as a loadable plugin: the same sources as the
// built-in pass, compiled into a shared library with hidden visibility, so the
// pass's code is the plugin's own while the IR, the pass framework and the
// target tables bind to the host's one copy. It registers as
// `layout-assignment-plugin` (a built-in name cannot be registered twice):
//   hlo-layout m.hlo --load-pass-plugin=PATH/layout_assignment_plugin.so
//       --passes=layout-assignment-plugin --target=tpu
#include <memory>

#include "passes/hlo_pass.h"
#include "passes/layout_assignment/layout_assignment.h"

#define XLA_LAYOUT_PLUGIN_EXPORT extern "C" __attribute__((visibility("default")))

XLA_LAYOUT_PLUGIN_EXPORT int xla_layout_pass_plugin_api_version() {
  return xla_layout::kPassPluginApiVersion;
}

XLA_LAYOUT_PLUGIN_EXPORT void xla_layout_register_passes(
    xla_layout::PassRegistrar* registrar, absl::Status* status) {
  xla_layout::LayoutAssignment probe;
  *status = registrar->Register(
      "layout-assignment-plugin",
      "(plugin) " + std::string(probe.description()),
      [] { return std::make_unique<xla_layout::LayoutAssignment>(); });
}
