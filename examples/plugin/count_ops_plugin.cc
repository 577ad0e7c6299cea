// An out-of-tree pass plugin: `count-ops` changes nothing and reports, with
// --stats, how many instructions of each opcode the module has (only those
// of one opcode with `opcode=NAME`). It includes the project's headers and
// links nothing of it: the IR and the registry come from hlo-layout at load
// time. Build it from the repository root, after `bazel build //tools:hlo-layout`
// (which generates proto/layout.pb.h under bazel-bin):
//
//   g++ -std=c++17 -O2 -shared -fPIC -I. -Ibazel-bin examples/plugin/count_ops_plugin.cc -o count_ops.so
//
// and run it:
//
//   bazel-bin/tools/hlo-layout examples/mlp.hlo --load-pass-plugin=./count_ops.so \
//       --passes=count-ops --stats
#include <map>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include <nlohmann/json.hpp>
#include "passes/hlo_pass.h"

namespace {

class CountOpsPass : public xla_layout::HloPass {
 public:
  absl::string_view name() const override { return "count-ops"; }
  absl::string_view description() const override {
    return "(example plugin) counts instructions by opcode; changes nothing";
  }
  std::vector<xla_layout::PassOption> options() const override {
    xla_layout::PassOption only;
    only.name = "opcode";
    only.metavar = "NAME";
    only.help = "count only this opcode";
    return {only};
  }
  absl::Status Configure(const xla_layout::PassOptionValues& values) override {
    only_ = values.GetString("opcode").value_or("");
    return absl::OkStatus();
  }
  absl::StatusOr<bool> Run(xla_layout::HloModule& module) override {
    counts_.clear();
    for (xla_layout::HloComputation* c : module.computations()) {
      for (xla_layout::HloInstruction* i : c->instructions()) {
        std::string op(xla_layout::HloOpcodeString(i->opcode()));
        if (only_.empty() || op == only_) ++counts_[op];
      }
    }
    return false;
  }
  std::string StatsReport(bool json) const override {
    if (json) {
      // Built as a value, so the report is JSON whatever the names hold
      // (Debian's nlohmann-json3-dev; `replace` keeps dump from throwing).
      nlohmann::ordered_json counts = nlohmann::ordered_json::object();
      for (const auto& [op, n] : counts_) counts[op] = n;
      return counts.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) +
             "\n";
    }
    std::string out = "count-ops:\n";
    for (const auto& [op, n] : counts_) absl::StrAppend(&out, "  ", op, ": ", n, "\n");
    return out;
  }

 private:
  std::string only_;
  std::map<std::string, int> counts_;  // sorted: stable output
};

}  // namespace

extern "C" int xla_layout_pass_plugin_api_version() {
  return xla_layout::kPassPluginApiVersion;
}

extern "C" void xla_layout_register_passes(xla_layout::PassRegistrar* registrar,
                                           absl::Status* status) {
  *status = registrar->Register(
      "count-ops", "(example plugin) counts instructions by opcode; changes nothing",
      [] { return std::make_unique<CountOpsPass>(); });
}
