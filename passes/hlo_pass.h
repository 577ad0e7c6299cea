// Passes over HLO modules, their registry, pipelines, and plugins.
//
// A pass has a name, a one-line description, the options it declares, and
// Run(), which returns whether it changed the module. Options are typed: the
// registry checks every value against the pass's declaration before the pass
// sees it, so a pass never parses strings and an unknown option is an error
// that names the pass. Built-in passes register with XLA_LAYOUT_REGISTER_PASS;
// plugins (shared libraries) register through the C entry points declared at
// the end of this file.
//
// A pipeline is written "a,b{key=value,key=value},c" (MLIR's spelling).
// Option values cannot contain ',' or '}'.
#ifndef PASSES_HLO_PASS_H_
#define PASSES_HLO_PASS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/hlo_module.h"
#include "passes/custom_call_kernels.h"

namespace xla_layout {

// One option a pass declares.
struct PassOption {
  enum class Type {
    kString,  // any non-empty text
    kInt,     // a decimal int64
    kBool,    // true or false
    kChoice,  // one of `choices`
    kFile,    // a path (the pass reads it in Configure)
  };
  std::string name;
  Type type = Type::kString;
  std::string metavar;  // how --list-passes shows the value: NAME, FILE, N
  std::string help;
  std::vector<std::string> choices;  // kChoice only
};

// The checked values of the options a pipeline gives one pass.
class PassOptionValues {
 public:
  using Value = std::variant<std::string, int64_t, bool>;
  void Set(std::string name, Value value) { values_[std::move(name)] = std::move(value); }
  bool Has(absl::string_view name) const { return values_.contains(name); }
  // kString, kChoice and kFile options.
  std::optional<std::string> GetString(absl::string_view name) const;
  std::optional<int64_t> GetInt(absl::string_view name) const;
  std::optional<bool> GetBool(absl::string_view name) const;
  bool empty() const { return values_.empty(); }

 private:
  absl::flat_hash_map<std::string, Value> values_;
};

class HloPass {
 public:
  virtual ~HloPass() = default;
  virtual absl::string_view name() const = 0;
  virtual absl::string_view description() const = 0;
  // Returns whether the module changed.
  virtual absl::StatusOr<bool> Run(HloModule& module) = 0;
  // The options this pass takes.
  virtual std::vector<PassOption> options() const { return {}; }
  // Receives the checked values of the options a pipeline gave (declared
  // ones only, each of its declared type). An error is about what a value
  // names (a file that does not parse), never about its spelling.
  virtual absl::Status Configure(const PassOptionValues& values) {
    return absl::OkStatus();
  }
  // What the last Run did, as text or JSON; empty when the pass keeps no
  // statistics.
  virtual std::string StatsReport(bool json) const { return ""; }

  // Whether Run keeps everything StatsReport prints: on unless a driver that
  // prints no report turns it off, so that the pass can skip the counting
  // only the report reads.
  void set_collect_stats(bool collect) { collect_stats_ = collect; }
  bool collect_stats() const { return collect_stats_; }

 private:
  bool collect_stats_ = true;
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
    std::vector<PassOption> options;
  };
  std::vector<Entry> List() const;  // sorted by name
  // The options pass `name` declares (fails as Create does).
  absl::StatusOr<std::vector<PassOption>> Options(absl::string_view name) const;

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
  // Passed to every pass's set_collect_stats before it runs.
  bool collect_stats = true;
};

// Checks `text` for `option` of pass `pass`: an unknown option, an empty
// value, or a value not of the option's type, is an error that names the
// pass.
absl::StatusOr<PassOptionValues> CheckPassOptions(
    const HloPass& pass,
    const std::vector<std::pair<std::string, std::string>>& text);

// "dce,layout-assignment{target=tpu}" as data.
struct PipelineSpec {
  struct Element {
    std::string pass;
    std::vector<std::pair<std::string, std::string>> options;
  };
  std::vector<Element> elements;

  // Fails on an empty pass name, an unclosed '{', an option without '=' or
  // with an empty key, and anything but ',' after a pass's options.
  static absl::StatusOr<PipelineSpec> Parse(absl::string_view text);
};

// Passes run in order.
class PassPipeline {
 public:
  // Creates the passes and checks their options. Every error is one of
  // usage: an unknown pass, an unknown option, a value of the wrong type.
  static absl::StatusOr<PassPipeline> Create(
      const PipelineSpec& spec,
      const PassRegistry& registry = PassRegistry::Global());
  // Hands every pass its checked options. Errors are about what the values
  // name (a target file that cannot be read).
  absl::Status Configure();
  // Create from text, then Configure.
  static absl::StatusOr<PassPipeline> Parse(
      absl::string_view spec, const PassRegistry& registry = PassRegistry::Global());
  // Returns whether any pass changed the module; stops at the first error,
  // naming the pass.
  absl::StatusOr<bool> Run(HloModule& module,
                           const PipelineOptions& options = {}) const;
  const std::vector<std::unique_ptr<HloPass>>& passes() const { return passes_; }

 private:
  std::vector<std::unique_ptr<HloPass>> passes_;
  std::vector<PassOptionValues> options_;  // one per pass
};

// The plugin API version this build speaks. A plugin exports
//   extern "C" int xla_layout_pass_plugin_api_version();
//   extern "C" void xla_layout_register_passes(PassRegistrar* registrar,
//                                              absl::Status* status);
// and is loaded only when its version equals this one. It may also export
//   extern "C" void xla_layout_register_custom_call_kernels(
//       CustomCallKernelRegistrar* registrar, absl::Status* status);
// to give the executor reference kernels for custom-call targets
// (custom_call_kernels.h); a plugin without it registers none, so adding it
// changed no version.
// Version 2: passes declare typed options (options()/Configure()).
// Version 3: HloPass holds whether to collect statistics (set_collect_stats).
// Version 4: HloInstruction and Shape changed their member layout (the rare
// parts out of line, a one-byte opcode), so a plugin compiled against
// version 3's headers would read the wrong fields.
// Version 5: Shape and Layout changed their member layout again (one inline
// tile, the dynamic flags and tuple elements in one block out of line).
inline constexpr int kPassPluginApiVersion = 5;

// dlopens `path` (a bare file name is taken from the working directory, not
// searched on the library path), checks that both entry points (and the
// kernel entry point, when exported) are functions and the version, lets the
// plugin register its passes into `registrar` and its custom-call kernels
// into `kernels`. A kernel that throws returns an error naming the plugin.
// The library stays loaded for the life of the program.
absl::Status LoadPassPlugin(
    const std::string& path, PassRegistrar& registrar = PassRegistry::Global(),
    CustomCallKernelRegistrar& kernels = CustomCallKernelRegistry::Global());

}  // namespace xla_layout

#endif  // PASSES_HLO_PASS_H_
