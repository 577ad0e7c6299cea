// What the executor prepares at load time and the state of one device's run
// (internal to runtime/): executor.cc compiles a module into a Program; the
// interpreter (interpreter.cc) runs it with an explicit stack of frames, so
// that however deeply computations call each other the machine stack does
// not grow.
#ifndef RUNTIME_EXECUTOR_INTERNAL_H_
#define RUNTIME_EXECUTOR_INTERNAL_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "hlo/hlo_module.h"
#include "passes/custom_call_kernels.h"
#include "runtime/buffer.h"
#include "runtime/collectives.h"
#include "runtime/custom_call.h"
#include "runtime/executor.h"
#include "runtime/ops.h"
#include "runtime/plan_cache.h"
#include "runtime/rendezvous.h"
#include "runtime/scalar_program.h"
#include "xla_layout/relayout.h"

namespace xla_layout::runtime {

// What the executor prepared for one instruction.
struct Compiled {
  std::vector<Info> out;                    // array leaves it allocates
  std::vector<const RelayoutPlan*> plans;   // copy: one per array leaf (in plan_cache)
  bool moves_data = true;  // transpose, reshape: false when a bitcast
  std::vector<ScalarProgram> programs;      // an array op's called computations
  const ScalarProgram* to_apply() const { return programs.empty() ? nullptr : programs.data(); }
  int position = 0;                         // in its computation's order
  std::vector<int> operands;                // the operands' positions
  int64_t work = 0;                         // steps it counts per execution
  // Buffer bytes of its result that it allocates, or that a callee made and
  // it hands back (an entry parameter's: the laid-out argument).
  int64_t bytes = 0;
  // A custom call's registered kernel; null when it runs as a stand-in.
  std::shared_ptr<const CustomCallKernel> kernel;
};

// A computation's instructions in the order they run (a post order).
struct CompiledComputation {
  const HloComputation* computation = nullptr;
  std::vector<const HloInstruction*> order;
  int root = 0;  // position of the root
  // last_use[k]: the last position that reads position k's value (k when
  // none does; the root's is past the end). release[k]: the positions whose
  // value the frame drops after position k ran.
  std::vector<int> last_use;
  std::vector<std::vector<int>> release;
};

struct Program {
  const HloModule* module = nullptr;
  ExecutorOptions options;
  DeviceGrid grid;
  absl::flat_hash_map<const HloInstruction*, Compiled> compiled;
  absl::flat_hash_map<const HloComputation*, CompiledComputation> computations;
  std::vector<const HloInstruction*> stand_ins;  // custom calls, in the order compiled
  // Every relayout plan of the module, shared by identical copies and runs
  // (behind a pointer: a const Program still looks plans up).
  std::unique_ptr<PlanCache> plan_cache = std::make_unique<PlanCache>();

  const CompiledComputation& Of(const HloComputation* c) const { return computations.at(c); }
};

// One device's run: who it is, what it has counted, whom it meets.
struct DeviceRun {
  int64_t device = 0;
  ExecutionStats stats;
  // Work counted by every device of the run together, against
  // options.max_work.
  std::atomic<int64_t>* work = nullptr;
  Rendezvous* rendezvous = nullptr;  // null with one device
  // How often this device has reached each collective: with the
  // instruction, the key of a meeting.
  absl::flat_hash_map<const HloInstruction*, int64_t> occurrences;
  std::vector<LogicalArray> outfeed;  // what its outfeeds sent
};

// Builds a value of `shape` (arrays and tuples) from logical arrays taken
// in order from `inputs` at `next`, laid out with the packing core.
absl::StatusOr<Value> Assemble(const Shape& shape, absl::Span<const LogicalArray> inputs,
                               size_t& next);
// Appends the logical array of every array leaf of `v`.
absl::Status Flatten(const Value& v, std::vector<LogicalArray>& out);

// Whether `op` runs computations the interpreter pushes frames for.
bool CallsComputations(HloOpcode op);

// Fills `cc.last_use` and `cc.release` (memory_plan.cc); the compiled instructions of `cc`
// must be in `program`.
void PlanReleases(const Program& program, CompiledComputation& cc);

// The most buffer bytes alive at once on one device while the entry runs:
// each computation's values live from their instruction to their last use
// (or to the last use of a tuple, get-tuple-element or bitcast that holds
// them), and a callee's peak adds while it runs.
int64_t PeakBufferBytes(const Program& program);

// Runs `entry` on `arguments` as device `run.device`.
absl::StatusOr<Value> Interpret(const Program& program, const HloComputation& entry,
                                std::vector<Value> arguments, DeviceRun& run);

// `v` where `declared` is written: as is when the layouts agree; else an
// error (strict_layouts) or moved into the declared layout.
absl::StatusOr<Value> Conform(const Program& program, Value v, const Shape& declared,
                              absl::string_view where, ExecutionStats& stats);

std::string Where(const HloInstruction& i);
// The shape of a value, with its layouts.
Shape ShapeOf(const Value& v);

}  // namespace xla_layout::runtime

#endif  // RUNTIME_EXECUTOR_INTERNAL_H_
