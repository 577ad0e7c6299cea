// Plugins that break the rules, for the tests of the plugin boundary. One
// source, three builds (see BUILD): BAD_PLUGIN_THROW_IN_PASS throws from
// Run() (and registers a custom-call kernel, for target Throwing, that
// throws), BAD_PLUGIN_THROW_IN_REGISTER throws from registration, and
// BAD_PLUGIN_DATA_VERSION exports its version symbol as an int, not a function.
#include <stdexcept>

#include "passes/hlo_pass.h"

namespace {

class ThrowingPass : public xla_layout::HloPass {
 public:
  absl::string_view name() const override { return "throwing"; }
  absl::string_view description() const override {
    return "(plugin) throws from Run()";
  }
  absl::StatusOr<bool> Run(xla_layout::HloModule&) override {
    throw std::runtime_error("thrown from the pass");
  }
};

}  // namespace

#ifdef BAD_PLUGIN_DATA_VERSION
extern "C" {
__attribute__((visibility("default"))) int xla_layout_pass_plugin_api_version =
    xla_layout::kPassPluginApiVersion;
}
#else
extern "C" int xla_layout_pass_plugin_api_version() {
  return xla_layout::kPassPluginApiVersion;
}
#endif

extern "C" void xla_layout_register_passes(xla_layout::PassRegistrar* registrar,
                                           absl::Status* status) {
#ifdef BAD_PLUGIN_THROW_IN_REGISTER
  throw std::logic_error("thrown from registration");
#endif
  *status = registrar->Register("throwing", "(plugin) throws from Run()",
                                [] { return std::make_unique<ThrowingPass>(); });
}

#ifdef BAD_PLUGIN_THROW_IN_PASS
extern "C" void xla_layout_register_custom_call_kernels(
    xla_layout::CustomCallKernelRegistrar* registrar, absl::Status* status) {
  *status = registrar->Register(
      "Throwing", [](absl::Span<const xla_layout::KernelArray>,
                     absl::Span<xla_layout::KernelArray>) -> absl::Status {
        throw std::runtime_error("thrown from the kernel");
      });
}
#endif
