// An example pass plugin: `strip-metadata` removes the metadata= attribute
// of every instruction. Build: bazel build //passes/plugins:strip_metadata;
// use: hlo-layout m.hlo --load-pass-plugin=PATH.so --passes=strip-metadata
#include <algorithm>

#include "passes/hlo_pass.h"

namespace {

class StripMetadataPass : public xla_layout::HloPass {
 public:
  absl::string_view name() const override { return "strip-metadata"; }
  absl::string_view description() const override {
    return "(plugin) removes metadata={...} from every instruction";
  }
  absl::StatusOr<bool> Run(xla_layout::HloModule& module) override {
    bool changed = false;
    for (xla_layout::HloComputation* c : module.computations()) {
      for (xla_layout::HloInstruction* i : c->instructions()) {
        auto& attrs = i->mutable_raw_attributes();
        size_t before = attrs.size();
        attrs.erase(std::remove_if(attrs.begin(), attrs.end(),
                                   [](const xla_layout::HloAttribute& a) {
                                     return a.name == "metadata";
                                   }),
                    attrs.end());
        changed |= attrs.size() != before;
      }
    }
    return changed;
  }
};

}  // namespace

extern "C" int xla_layout_pass_plugin_api_version() {
  return xla_layout::kPassPluginApiVersion;
}

extern "C" void xla_layout_register_passes(xla_layout::PassRegistrar* registrar,
                                           absl::Status* status) {
  *status = registrar->Register(
      "strip-metadata", "(plugin) removes metadata={...} from every instruction",
      [] { return std::make_unique<StripMetadataPass>(); });
}
