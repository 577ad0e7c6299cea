// `flatten-call-graph`: gives every while body and condition, conditional
// branch, call and fusion computation exactly one caller, cloning a
// computation for each further caller (as XLA's FlattenCallGraph does).
// Computations applied by reduce, map, sort, ... (to_apply) stay shared.
#ifndef PASSES_FLATTEN_CALL_GRAPH_H_
#define PASSES_FLATTEN_CALL_GRAPH_H_

#include "absl/status/statusor.h"
#include "hlo/hlo_module.h"

namespace xla_layout {

// Returns how many computations were cloned.
absl::StatusOr<int> FlattenCallGraph(HloModule& module);

}  // namespace xla_layout

#endif  // PASSES_FLATTEN_CALL_GRAPH_H_
