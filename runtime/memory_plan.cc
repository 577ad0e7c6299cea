// When the interpreter drops a value, and what that makes the peak of a
// run: the bytes the executor checks against --max-memory before running.
#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "runtime/executor_internal.h"

namespace xla_layout::runtime {

bool CallsComputations(HloOpcode op) {
  switch (op) {
    case HloOpcode::kCall: case HloOpcode::kFusion: case HloOpcode::kWhile:
    case HloOpcode::kConditional: case HloOpcode::kAsyncStart:
      return true;
    default:
      return false;
  }
}

namespace {

// Instructions whose value holds its operands' buffers without a buffer of
// its own: the operands live as long as it does.
bool Holds(const HloInstruction& i, const Compiled& c) {
  return c.bytes == 0 && !CallsComputations(i.opcode()) &&
         i.opcode() != HloOpcode::kParameter;
}

// The last position that reads each position's value (its own position
// when none does; the root lives to the end).
std::vector<int> LastUses(const Program& p, const CompiledComputation& cc) {
  const int n = static_cast<int>(cc.order.size());
  std::vector<int> last(n);
  for (int k = 0; k < n; ++k) {
    last[k] = k;
    for (int j : p.compiled.at(cc.order[k]).operands) last[j] = std::max(last[j], k);
  }
  last[cc.root] = n;
  return last;
}

// The most bytes the callees of `i` have alive at once while it runs.
int64_t CalleePeak(const HloInstruction& i, const Compiled& c,
                   const absl::flat_hash_map<const HloComputation*, int64_t>& peaks) {
  if (!CallsComputations(i.opcode())) return 0;
  int64_t most = 0;
  for (const auto& called : i.called_computations()) {
    auto it = peaks.find(called.computation);
    if (it == peaks.end()) continue;
    // A while holds its state while the condition runs.
    const int64_t held = called.attribute == "condition" ? c.bytes : 0;
    most = std::max(most, it->second + held);
  }
  return most;
}

int64_t ComputationPeak(const Program& p, const CompiledComputation& cc,
                        const absl::flat_hash_map<const HloComputation*, int64_t>& peaks) {
  const int n = static_cast<int>(cc.order.size());
  std::vector<int> death = cc.last_use;
  for (int k = n - 1; k >= 0; --k) {
    const Compiled& c = p.compiled.at(cc.order[k]);
    if (!Holds(*cc.order[k], c)) continue;
    for (int j : c.operands) death[j] = std::max(death[j], death[k]);
  }
  std::vector<int64_t> freed(n + 1, 0);
  for (int k = 0; k < n; ++k) freed[death[k]] += p.compiled.at(cc.order[k]).bytes;
  int64_t live = 0, peak = 0;
  for (int k = 0; k < n; ++k) {
    const Compiled& c = p.compiled.at(cc.order[k]);
    peak = std::max(peak, live + c.bytes + CalleePeak(*cc.order[k], c, peaks));
    live += c.bytes - freed[k];
  }
  return peak;
}

}  // namespace

void PlanReleases(const Program& program, CompiledComputation& cc) {
  cc.last_use = LastUses(program, cc);
  cc.release.assign(cc.order.size(), {});
  for (size_t j = 0; j < cc.last_use.size(); ++j) {
    const int last = cc.last_use[j];
    if (last < static_cast<int>(cc.order.size())) cc.release[last].push_back(j);
  }
}

int64_t PeakBufferBytes(const Program& program) {
  const HloComputation* entry = program.module->entry();
  absl::flat_hash_map<const HloComputation*, int64_t> peaks;
  // Callees first, without recursion: a computation is expanded once, then
  // measured when it comes back to the top of the stack.
  std::vector<std::pair<const HloComputation*, bool>> stack = {{entry, false}};
  while (!stack.empty()) {
    auto [c, expanded] = stack.back();
    stack.pop_back();
    if (peaks.contains(c) || !program.computations.contains(c)) continue;
    if (expanded) {
      peaks[c] = ComputationPeak(program, program.Of(c), peaks);
      continue;
    }
    stack.push_back({c, true});
    for (const HloInstruction* i : program.Of(c).order) {
      if (!CallsComputations(i->opcode())) continue;
      for (const auto& called : i->called_computations()) {
        if (!peaks.contains(called.computation)) stack.push_back({called.computation, false});
      }
    }
  }
  return peaks[entry];
}

}  // namespace xla_layout::runtime
