#include "passes/hlo_pass.h"

#include <dlfcn.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "hlo/hlo_verifier.h"

namespace xla_layout {

PassRegistry& PassRegistry::Global() {
  static PassRegistry* registry = new PassRegistry();
  return *registry;
}

absl::Status PassRegistry::Register(std::string name, std::string description,
                                    PassFactory factory) {
  if (name.empty()) return absl::InvalidArgumentError("a pass needs a name");
  for (const auto& p : passes_) {
    if (p.first == name) {
      return absl::AlreadyExistsError(
          absl::StrCat("pass '", name, "' is already registered"));
    }
  }
  passes_.push_back({std::move(name), {std::move(description), std::move(factory)}});
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<HloPass>> PassRegistry::Create(
    absl::string_view name) const {
  for (const auto& p : passes_) {
    if (p.first == name) return p.second.factory();
  }
  std::vector<std::string> names;
  for (const Entry& e : List()) names.push_back(e.name);
  return absl::NotFoundError(absl::StrCat(
      "unknown pass '", name, "'; known passes: ",
      names.empty() ? std::string("(none)") : absl::StrJoin(names, ", ")));
}

std::vector<PassRegistry::Entry> PassRegistry::List() const {
  std::vector<Entry> out;
  for (const auto& p : passes_) out.push_back({p.first, p.second.description});
  std::sort(out.begin(), out.end(),
            [](const Entry& a, const Entry& b) { return a.name < b.name; });
  return out;
}

absl::Status HloPass::SetOption(absl::string_view key, absl::string_view value) {
  return absl::UnimplementedError(
      absl::StrCat("pass '", name(), "' has no option '", key, "'"));
}

absl::StatusOr<PassPipeline> PassPipeline::Parse(absl::string_view spec,
                                                 const PassRegistry& registry) {
  PassPipeline pipeline;
  for (absl::string_view part : absl::StrSplit(spec, ',')) {
    part = absl::StripAsciiWhitespace(part);
    if (part.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("empty pass name in '", spec, "'"));
    }
    absl::StatusOr<std::unique_ptr<HloPass>> pass = registry.Create(part);
    if (!pass.ok()) return pass.status();
    pipeline.passes_.push_back(*std::move(pass));
  }
  return pipeline;
}

absl::StatusOr<bool> PassPipeline::Run(HloModule& module,
                                       const PipelineOptions& options) const {
  bool changed = false;
  for (const auto& pass : passes_) {
    absl::StatusOr<bool> c = pass->Run(module);
    if (!c.ok()) {
      return absl::Status(c.status().code(), absl::StrCat("pass '", pass->name(),
                                                          "': ", c.status().message()));
    }
    changed |= *c;
    if (options.verify_each) {
      absl::Status v = VerifyModule(module);
      if (!v.ok()) {
        return absl::InternalError(absl::StrCat(
            "after pass '", pass->name(), "': ", v.message()));
      }
    }
  }
  return changed;
}

absl::Status LoadPassPlugin(const std::string& path, PassRegistrar& registrar) {
  // A bare file name would make dlopen search the library path; a plugin is
  // always a file the user names.
  std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot load pass plugin ", path, ": ", dlerror()));
  }
  using VersionFn = int (*)();
  using RegisterFn = void (*)(PassRegistrar*, absl::Status*);
  auto version = reinterpret_cast<VersionFn>(
      dlsym(handle, "xla_layout_pass_plugin_api_version"));
  auto register_passes =
      reinterpret_cast<RegisterFn>(dlsym(handle, "xla_layout_register_passes"));
  if (version == nullptr || register_passes == nullptr) {
    dlclose(handle);
    return absl::InvalidArgumentError(absl::StrCat(
        path, " is not a pass plugin: it must export "
              "xla_layout_pass_plugin_api_version and xla_layout_register_passes"));
  }
  if (version() != kPassPluginApiVersion) {
    int v = version();
    dlclose(handle);
    return absl::FailedPreconditionError(absl::StrCat(
        "pass plugin ", path, " speaks plugin API version ", v,
        "; this hlo-layout needs version ", kPassPluginApiVersion));
  }
  absl::Status status;
  register_passes(&registrar, &status);
  if (!status.ok()) {
    return absl::Status(status.code(), absl::StrCat("pass plugin ", path, ": ",
                                                    status.message()));
  }
  return absl::OkStatus();  // The handle stays open: its passes live on.
}

}  // namespace xla_layout
