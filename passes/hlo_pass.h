// Passes over HLO modules, their registry, pipelines, and plugins.
//
// A pass has a name, a one-line description and Run(), which returns whether
// it changed the module. Built-in passes register with
// XLA_LAYOUT_REGISTER_PASS; plugins (shared libraries) register through the
// C entry points declared at the end of this file.
#ifndef PASSES_HLO_PASS_H_
#define PASSES_HLO_PASS_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/hlo_module.h"

namespace xla_layout {

class HloPass {
 public:
  virtual ~HloPass() = default;
  virtual absl::string_view name() const = 0;
  virtual absl::string_view description() const = 0;
  // Returns whether the module changed.
  virtual absl::StatusOr<bool> Run(HloModule& module) = 0;
  // Sets a named option (`target=tpu`). Unimplemented when the pass has no
  // such option; any other error is about the value.
  virtual absl::Status SetOption(absl::string_view key, absl::string_view value);
  // What the last Run did, as text or JSON; empty when the pass keeps no
  // statistics.
  virtual std::string StatsReport(bool json) const { return ""; }
};

using PassFactory = std::function<std::unique_ptr<HloPass>()>;

// What a plugin sees of the registry: an interface, so a plugin does not
// depend on symbols of the program that loads it.
class PassRegistrar {
 public:
  virtual ~PassRegistrar() = default;
  // Fails when the name is taken.
  virtual absl::Status Register(std::string name, std::string description,
                                PassFactory factory) = 0;
};

class PassRegistry : public PassRegistrar {
 public:
  static PassRegistry& Global();

  absl::Status Register(std::string name, std::string description,
                        PassFactory factory) override;
  // Fails with the list of known passes when `name` is unknown.
  absl::StatusOr<std::unique_ptr<HloPass>> Create(absl::string_view name) const;
  struct Entry {
    std::string name;
    std::string description;
  };
  std::vector<Entry> List() const;  // sorted by name

 private:
  struct Registered {
    std::string description;
    PassFactory factory;
  };
  std::vector<std::pair<std::string, Registered>> passes_;
};

// Registers a default-constructible pass class at program start.
#define XLA_LAYOUT_REGISTER_PASS(PassClass)                              \
  static const bool xla_layout_registered_##PassClass = [] {             \
    PassClass probe;                                                     \
    absl::Status s = ::xla_layout::PassRegistry::Global().Register(      \
        std::string(probe.name()), std::string(probe.description()),     \
        [] { return std::make_unique<PassClass>(); });                   \
    return s.ok();                                                       \
  }()

struct PipelineOptions {
  // Run the verifier after every pass (on in debug builds by default).
#ifdef NDEBUG
  bool verify_each = false;
#else
  bool verify_each = true;
#endif
};

// Passes run in order; built from "a,b,c".
class PassPipeline {
 public:
  static absl::StatusOr<PassPipeline> Parse(
      absl::string_view spec, const PassRegistry& registry = PassRegistry::Global());
  // Returns whether any pass changed the module; stops at the first error,
  // naming the pass.
  absl::StatusOr<bool> Run(HloModule& module,
                           const PipelineOptions& options = {}) const;
  const std::vector<std::unique_ptr<HloPass>>& passes() const { return passes_; }

 private:
  std::vector<std::unique_ptr<HloPass>> passes_;
};

// The plugin API version this build speaks. A plugin exports
//   extern "C" int xla_layout_pass_plugin_api_version();
//   extern "C" void xla_layout_register_passes(PassRegistrar* registrar,
//                                              absl::Status* status);
// and is loaded only when its version equals this one.
inline constexpr int kPassPluginApiVersion = 1;

// dlopens `path`, checks the version, lets the plugin register its passes.
// The library stays loaded for the life of the program.
absl::Status LoadPassPlugin(const std::string& path,
                            PassRegistrar& registrar = PassRegistry::Global());

}  // namespace xla_layout

#endif  // PASSES_HLO_PASS_H_
