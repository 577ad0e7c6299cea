#include "passes/flatten_call_graph.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hlo/name_uniquer.h"
#include "passes/hlo_pass.h"

namespace xla_layout {
namespace {

struct Site {
  HloInstruction* caller;
  size_t index;  // into caller->called_computations()
};

}  // namespace

absl::StatusOr<int> FlattenCallGraph(HloModule& module) {
  // One namespace for computations and instructions, as XLA names clones:
  // `base.clone`, then `base.clone.N`, gathered at the first clone (most
  // modules need none). The pass removes nothing, so the uniquer's views of
  // the existing names stay valid.
  NameUniquer names([&module](NameUniquer& taken) {
    for (HloComputation* c : module.computations()) {
      taken.Take(c->name());
      for (HloInstruction* i : c->instruction_range()) taken.Take(i->name());
    }
  });
  int64_t instructions = 0;
  for (HloComputation* c : module.computations()) instructions += c->instruction_count();
  auto unique = [&names](absl::string_view base) {
    return names.Unique(absl::StrCat(base, ".clone"));
  };
  int cloned = 0;
  // Each round gives every shared control-flow computation one caller; a
  // clone's own callees gain callers, so rounds repeat until none is shared
  // (at most the depth of the call graph, which has no cycles).
  // A DAG can still double at every level: the pass gives up once the
  // instructions it cloned exceed a budget linear in the module's size.
  const int64_t budget = 16 * instructions + 100000;
  int64_t cloned_instructions = 0;
  for (bool changed = true; changed;) {
    changed = false;
    absl::flat_hash_map<const HloComputation*, std::vector<Site>> sites;
    absl::flat_hash_set<const HloComputation*> control;
    for (HloComputation* c : module.computations()) {
      for (HloInstruction* i : c->CallingInstructions()) {
        const auto& called = i->called_computations();
        for (size_t k = 0; k < called.size(); ++k) {
          sites[called[k].computation].push_back({i, k});
          if (IsControlFlow(i->opcode())) control.insert(called[k].computation);
        }
      }
    }
    std::vector<std::pair<const HloComputation*, std::unique_ptr<HloComputation>>> batch;
    for (HloComputation* callee : module.computations()) {
      auto it = sites.find(callee);
      if (!control.contains(callee) || it == sites.end()) continue;
      for (size_t s = 1; s < it->second.size(); ++s) {
        cloned_instructions += callee->instruction_count();
        if (cloned_instructions > budget) {
          return absl::FailedPreconditionError(absl::StrCat(
              "flattening the call graph would clone more than ", budget,
              " instructions (16 per instruction of the module, plus 100000)"));
        }
        std::unique_ptr<HloComputation> clone = callee->Clone(unique(callee->name()), unique);
        it->second[s].caller->set_called_computation(it->second[s].index, clone.get());
        batch.emplace_back(callee, std::move(clone));
        ++cloned;
        changed = true;
      }
    }
    module.AddComputationsAfter(std::move(batch));
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
