#include "passes/flatten_call_graph.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "passes/hlo_pass.h"

namespace xla_layout {
namespace {

struct Site {
  HloInstruction* caller;
  size_t index;  // into caller->called_computations()
};

}  // namespace

absl::StatusOr<int> FlattenCallGraph(HloModule& module) {
  absl::flat_hash_set<std::string> names;
  for (HloComputation* c : module.computations()) {
    names.insert(c->name());
    for (HloInstruction* i : c->instructions()) names.insert(i->name());
  }
  auto unique = [&names](absl::string_view base) {
    std::string name = absl::StrCat(base, ".clone");
    for (int n = 1; names.contains(name); ++n) name = absl::StrCat(base, ".clone.", n);
    names.insert(name);
    return name;
  };
  int cloned = 0;
  // Each round gives every shared control-flow computation one caller; a
  // clone's own callees gain callers, so rounds repeat until none is shared
  // (at most the depth of the call graph, which has no cycles).
  // A DAG can still double at every level; past this many clones (or on a
  // cyclic graph, which the verifier rejects) the pass gives up.
  const int64_t limit = 64 * static_cast<int64_t>(module.computations().size()) + 1024;
  for (bool changed = true; changed;) {
    if (cloned > limit) {
      return absl::FailedPreconditionError(absl::StrCat(
          "flattening the call graph would clone more than ", limit,
          " computations"));
    }
    changed = false;
    absl::flat_hash_map<const HloComputation*, std::vector<Site>> sites;
    absl::flat_hash_set<const HloComputation*> control;
    for (HloComputation* c : module.computations()) {
      for (HloInstruction* i : c->instructions()) {
        const auto& called = i->called_computations();
        for (size_t k = 0; k < called.size(); ++k) {
          sites[called[k].computation].push_back({i, k});
          if (IsControlFlow(i->opcode())) control.insert(called[k].computation);
        }
      }
    }
    for (HloComputation* callee : module.computations()) {
      auto it = sites.find(callee);
      if (!control.contains(callee) || it == sites.end()) continue;
      for (size_t s = 1; s < it->second.size(); ++s) {
        HloComputation* clone = module.AddComputation(
            callee->Clone(unique(callee->name()), unique), callee);
        it->second[s].caller->set_called_computation(it->second[s].index, clone);
        ++cloned;
        changed = true;
      }
    }
  }
  return cloned;
}

namespace {

class FlattenCallGraphPass : public HloPass {
 public:
  absl::string_view name() const override { return "flatten-call-graph"; }
  absl::string_view description() const override {
    return "clones control-flow computations so each has one caller";
  }
  absl::StatusOr<bool> Run(HloModule& module) override {
    absl::StatusOr<int> n = FlattenCallGraph(module);
    if (!n.ok()) return n.status();
    return *n > 0;
  }
};

XLA_LAYOUT_REGISTER_PASS(FlattenCallGraphPass);

}  // namespace
}  // namespace xla_layout
