#include "passes/hlo_pass.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <algorithm>
#include <exception>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
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
  for (const auto& p : passes_) {
    std::unique_ptr<HloPass> probe = p.second.factory();
    out.push_back({p.first, p.second.description,
                   probe != nullptr ? probe->options() : std::vector<PassOption>()});
  }
  std::sort(out.begin(), out.end(),
            [](const Entry& a, const Entry& b) { return a.name < b.name; });
  return out;
}

absl::StatusOr<std::vector<PassOption>> PassRegistry::Options(
    absl::string_view name) const {
  absl::StatusOr<std::unique_ptr<HloPass>> pass = Create(name);
  if (!pass.ok()) return pass.status();
  return (*pass)->options();
}

std::optional<std::string> PassOptionValues::GetString(absl::string_view name) const {
  auto it = values_.find(name);
  if (it == values_.end() || !std::holds_alternative<std::string>(it->second)) {
    return std::nullopt;
  }
  return std::get<std::string>(it->second);
}

std::optional<int64_t> PassOptionValues::GetInt(absl::string_view name) const {
  auto it = values_.find(name);
  if (it == values_.end() || !std::holds_alternative<int64_t>(it->second)) {
    return std::nullopt;
  }
  return std::get<int64_t>(it->second);
}

std::optional<bool> PassOptionValues::GetBool(absl::string_view name) const {
  auto it = values_.find(name);
  if (it == values_.end() || !std::holds_alternative<bool>(it->second)) {
    return std::nullopt;
  }
  return std::get<bool>(it->second);
}

absl::StatusOr<PassOptionValues> CheckPassOptions(
    const HloPass& pass,
    const std::vector<std::pair<std::string, std::string>>& text) {
  const std::vector<PassOption> declared = pass.options();
  PassOptionValues values;
  for (const auto& [key, value] : text) {
    const PassOption* option = nullptr;
    for (const PassOption& o : declared) {
      if (o.name == key) option = &o;
    }
    if (option == nullptr) {
      std::vector<std::string> names;
      for (const PassOption& o : declared) names.push_back(o.name);
      return absl::InvalidArgumentError(absl::StrCat(
          "pass '", pass.name(), "' has no option '", key, "'; ",
          names.empty() ? std::string("it takes none")
                        : absl::StrCat("its options: ", absl::StrJoin(names, ", "))));
    }
    if (value.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "pass '", pass.name(), "': option '", key, "' needs a value"));
    }
    switch (option->type) {
      case PassOption::Type::kString:
      case PassOption::Type::kFile:
        values.Set(key, value);
        break;
      case PassOption::Type::kInt: {
        int64_t n;
        if (!absl::SimpleAtoi(value, &n)) {
          return absl::InvalidArgumentError(absl::StrCat(
              "pass '", pass.name(), "': option '", key,
              "' needs an integer, not '", value, "'"));
        }
        values.Set(key, n);
        break;
      }
      case PassOption::Type::kBool:
        if (value != "true" && value != "false") {
          return absl::InvalidArgumentError(absl::StrCat(
              "pass '", pass.name(), "': option '", key,
              "' is true or false, not '", value, "'"));
        }
        values.Set(key, value == "true");
        break;
      case PassOption::Type::kChoice:
        if (std::find(option->choices.begin(), option->choices.end(), value) ==
            option->choices.end()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "unknown ", key, " '", value, "'; known ", key, "s: ",
              absl::StrJoin(option->choices, ", ")));
        }
        values.Set(key, value);
        break;
    }
  }
  return values;
}

absl::StatusOr<PipelineSpec> PipelineSpec::Parse(absl::string_view text) {
  PipelineSpec spec;
  size_t pos = 0;
  while (true) {
    size_t end = text.find_first_of(",{", pos);
    if (end == absl::string_view::npos) end = text.size();
    absl::string_view name = absl::StripAsciiWhitespace(text.substr(pos, end - pos));
    if (name.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("empty pass name in '", text, "'"));
    }
    Element element{std::string(name), {}};
    pos = end;
    if (pos < text.size() && text[pos] == '{') {
      size_t close = text.find('}', pos);
      if (close == absl::string_view::npos) {
        return absl::InvalidArgumentError(absl::StrCat(
            "unclosed '{' after pass '", name, "' in '", text, "'"));
      }
      absl::string_view body = text.substr(pos + 1, close - pos - 1);
      for (absl::string_view item : absl::StrSplit(body, ',', absl::SkipWhitespace())) {
        std::pair<absl::string_view, absl::string_view> kv =
            absl::StrSplit(item, absl::MaxSplits('=', 1));
        absl::string_view key = absl::StripAsciiWhitespace(kv.first);
        if (key.empty() || item.find('=') == absl::string_view::npos) {
          return absl::InvalidArgumentError(absl::StrCat(
              "option '", absl::StripAsciiWhitespace(item), "' of pass '", name,
              "' needs the form key=value"));
        }
        element.options.push_back(
            {std::string(key), std::string(absl::StripAsciiWhitespace(kv.second))});
      }
      pos = close + 1;
      while (pos < text.size() && absl::ascii_isspace(text[pos])) ++pos;
    }
    spec.elements.push_back(std::move(element));
    if (pos >= text.size()) return spec;
    if (text[pos] != ',') {
      return absl::InvalidArgumentError(absl::StrCat(
          "expected ',' after pass '", name, "' in '", text, "'"));
    }
    ++pos;
  }
}

absl::StatusOr<PassPipeline> PassPipeline::Create(const PipelineSpec& spec,
                                                  const PassRegistry& registry) {
  PassPipeline pipeline;
  for (const PipelineSpec::Element& element : spec.elements) {
    absl::StatusOr<std::unique_ptr<HloPass>> pass = registry.Create(element.pass);
    if (!pass.ok()) return pass.status();
    absl::StatusOr<PassOptionValues> values = CheckPassOptions(**pass, element.options);
    if (!values.ok()) return values.status();
    pipeline.passes_.push_back(*std::move(pass));
    pipeline.options_.push_back(*std::move(values));
  }
  return pipeline;
}

absl::Status PassPipeline::Configure() {
  for (size_t k = 0; k < passes_.size(); ++k) {
    absl::Status s = passes_[k]->Configure(options_[k]);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::StatusOr<PassPipeline> PassPipeline::Parse(absl::string_view text,
                                                 const PassRegistry& registry) {
  absl::StatusOr<PipelineSpec> spec = PipelineSpec::Parse(text);
  if (!spec.ok()) return spec.status();
  absl::StatusOr<PassPipeline> pipeline = Create(*spec, registry);
  if (!pipeline.ok()) return pipeline.status();
  absl::Status configured = pipeline->Configure();
  if (!configured.ok()) return configured;
  return pipeline;
}

absl::StatusOr<bool> PassPipeline::Run(HloModule& module,
                                       const PipelineOptions& options) const {
  bool changed = false;
  for (const auto& pass : passes_) {
    pass->set_collect_stats(options.collect_stats);
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

namespace {

// The text of the exception in flight, for messages.
std::string CurrentExceptionText() {
  try {
    throw;
  } catch (const std::exception& e) {
    return absl::StrCat("exception: ", e.what());
  } catch (...) {
    return "an exception of unknown type";
  }
}

// A plugin's pass behind the boundary: an exception from any of its methods
// becomes an error that names the plugin, never std::terminate.
class PluginPass : public HloPass {
 public:
  PluginPass(std::unique_ptr<HloPass> inner, std::string name,
             std::string description, std::string plugin)
      : inner_(std::move(inner)), name_(std::move(name)),
        description_(std::move(description)), plugin_(std::move(plugin)) {}

  absl::string_view name() const override { return name_; }
  absl::string_view description() const override { return description_; }
  absl::StatusOr<bool> Run(HloModule& module) override {
    if (inner_ == nullptr) return Broken();
    inner_->set_collect_stats(collect_stats());
    try {
      return inner_->Run(module);
    } catch (...) {
      return Thrown("Run");
    }
  }
  std::vector<PassOption> options() const override {
    if (inner_ == nullptr) return {};
    try {
      return inner_->options();
    } catch (...) {
      return {};  // Configure reports it.
    }
  }
  absl::Status Configure(const PassOptionValues& values) override {
    if (inner_ == nullptr) return Broken();
    try {
      return inner_->Configure(values);
    } catch (...) {
      return Thrown("Configure");
    }
  }
  std::string StatsReport(bool json) const override {
    if (inner_ == nullptr) return "";
    try {
      return inner_->StatsReport(json);
    } catch (...) {
      return "";
    }
  }
  // A pass the plugin's factory failed to make: it reports that failure.
  void set_broken(std::string why) { broken_ = std::move(why); }

 private:
  absl::Status Broken() const {
    return absl::InternalError(absl::StrCat("pass plugin ", plugin_, ": ", broken_));
  }
  absl::Status Thrown(absl::string_view method) const {
    return absl::InternalError(absl::StrCat("pass plugin ", plugin_, ": ", method,
                                            "() threw ", CurrentExceptionText()));
  }
  std::unique_ptr<HloPass> inner_;
  std::string name_, description_, plugin_, broken_;
};

// Wraps every factory a plugin registers in the boundary above.
class PluginRegistrar : public PassRegistrar {
 public:
  PluginRegistrar(PassRegistrar& target, std::string plugin)
      : target_(target), plugin_(std::move(plugin)) {}
  absl::Status Register(std::string name, std::string description,
                        PassFactory factory) override {
    PassFactory guarded = [factory = std::move(factory), name, description,
                           plugin = plugin_]() -> std::unique_ptr<HloPass> {
      std::unique_ptr<HloPass> inner;
      std::string why;
      try {
        inner = factory();
      } catch (...) {
        why = absl::StrCat("its factory threw ", CurrentExceptionText());
      }
      if (inner == nullptr && why.empty()) why = "its factory returned no pass";
      auto pass = std::make_unique<PluginPass>(std::move(inner), name, description, plugin);
      if (!why.empty()) pass->set_broken(why);
      return pass;
    };
    return target_.Register(std::move(name), std::move(description), std::move(guarded));
  }

 private:
  PassRegistrar& target_;
  std::string plugin_;
};

// Wraps every kernel a plugin registers so that an exception from it becomes
// an error naming the plugin and the target.
class PluginKernelRegistrar : public CustomCallKernelRegistrar {
 public:
  PluginKernelRegistrar(CustomCallKernelRegistrar& target, std::string plugin)
      : target_(target), plugin_(std::move(plugin)) {}
  absl::Status Register(std::string name, CustomCallKernel kernel) override {
    if (!kernel) return target_.Register(std::move(name), std::move(kernel));
    CustomCallKernel guarded = [kernel = std::move(kernel), name, plugin = plugin_](
                                   absl::Span<const KernelArray> operands,
                                   absl::Span<KernelArray> results) -> absl::Status {
      try {
        return kernel(operands, results);
      } catch (...) {
        return absl::InternalError(absl::StrCat("pass plugin ", plugin, ": the kernel for ",
                                                name, " threw ", CurrentExceptionText()));
      }
    };
    return target_.Register(std::move(name), std::move(guarded));
  }

 private:
  CustomCallKernelRegistrar& target_;
  std::string plugin_;
};

// Whether `symbol` (found by dlsym) is a function: a data symbol of the
// right name would be called as code.
bool IsFunctionSymbol(void* symbol) {
  Dl_info info;
  ElfW(Sym)* entry = nullptr;
  if (dladdr1(symbol, &info, reinterpret_cast<void**>(&entry), RTLD_DL_SYMENT) == 0 ||
      entry == nullptr) {
    return false;
  }
  int type = ELF64_ST_TYPE(entry->st_info);
  return type == STT_FUNC || type == STT_GNU_IFUNC;
}

}  // namespace

absl::Status LoadPassPlugin(const std::string& path, PassRegistrar& registrar,
                            CustomCallKernelRegistrar& kernels) {
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
  using RegisterKernelsFn = void (*)(CustomCallKernelRegistrar*, absl::Status*);
  auto register_kernels = reinterpret_cast<RegisterKernelsFn>(
      dlsym(handle, "xla_layout_register_custom_call_kernels"));
  for (auto [symbol, name] :
       {std::pair{reinterpret_cast<void*>(version), "xla_layout_pass_plugin_api_version"},
        std::pair{reinterpret_cast<void*>(register_passes), "xla_layout_register_passes"},
        std::pair{reinterpret_cast<void*>(register_kernels),
                  "xla_layout_register_custom_call_kernels"}}) {
    if (symbol != nullptr && !IsFunctionSymbol(symbol)) {
      dlclose(handle);
      return absl::InvalidArgumentError(absl::StrCat(
          path, " is not a pass plugin: ", name, " must be a function, not data"));
    }
  }
  int v = 0;
  try {
    v = version();
  } catch (...) {
    return absl::InternalError(absl::StrCat("pass plugin ", path, ": its version function threw ",
                                            CurrentExceptionText()));
  }
  if (v != kPassPluginApiVersion) {
    dlclose(handle);
    return absl::FailedPreconditionError(absl::StrCat(
        "pass plugin ", path, " speaks plugin API version ", v,
        "; this hlo-layout needs version ", kPassPluginApiVersion));
  }
  absl::Status status;
  PluginRegistrar guarded(registrar, path);
  try {
    register_passes(&guarded, &status);
  } catch (...) {
    // Passes it registered before throwing stay; the library stays loaded.
    return absl::InternalError(absl::StrCat("pass plugin ", path,
                                            ": registration threw ",
                                            CurrentExceptionText()));
  }
  if (status.ok() && register_kernels != nullptr) {
    PluginKernelRegistrar guarded_kernels(kernels, path);
    try {
      register_kernels(&guarded_kernels, &status);
    } catch (...) {
      return absl::InternalError(absl::StrCat("pass plugin ", path,
                                              ": kernel registration threw ",
                                              CurrentExceptionText()));
    }
  }
  if (!status.ok()) {
    return absl::Status(status.code(), absl::StrCat("pass plugin ", path, ": ",
                                                    status.message()));
  }
  return absl::OkStatus();  // The handle stays open: its passes and kernels live on.
}

}  // namespace xla_layout
