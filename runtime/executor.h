// Runs an HLO module on the CPU with every value in its assigned physical
// layout. At load time (Create) the executor checks every op and type it
// will meet, compiles the index math of every array result (ArrayInfo) and
// builds one packing-core plan per copy and per transpose that moves data;
// Run executes the entry computation.
//
// Arithmetic follows logical indices in a fixed order (a dot adds its
// products in increasing contracting index, a reduce walks the reduced dims
// in row-major order, a window its positions in row-major order, a sort
// reads each row in increasing index), so a module gives bit-identical
// results whatever its layouts: that is what `hlo-layout verify` checks
// after a pass. A NaN result of a dot or convolution carries the NaN
// runtime/nan_rule.h gives it, whichever kernel ran.
//
// Covered: parameter, constant, iota, copy, bitcast, transpose, reshape,
// dynamic-reshape (static result sizes), broadcast, slice, dynamic-slice,
// dynamic-update-slice, concatenate, pad, reverse, convert, bitcast-convert
// (equal and different widths; not pred), reduce-precision, the elementwise
// unary and binary ops of element.h, compare, select, clamp, map, dot
// (dense only: not a sparse one), convolution (any dim_labels, window and
// feature_group_count and batch_group_count), reduce (variadic, any
// scalar to_apply), reduce-window (variadic), select-and-scatter, sort (one
// or several operands, any comparator; always stable), topk, cholesky,
// triangular-solve, get-dimension-size (static dims), gather, scatter
// (variadic, any scalar to_apply), batch-norm-training,
// batch-norm-inference, batch-norm-grad, tuple, get-tuple-element,
// opt-barrier, domain, while, conditional, call, fusion,
// async-start/-update/-done (the wrapped computation runs at the start),
// after-all, add-dependency, infeed, outfeed (tokens hold nothing),
// replica-id, partition-id, the collectives of collectives.h (all-reduce,
// all-gather, reduce-scatter, all-to-all, collective-permute,
// collective-broadcast, their -start/-done forms) over the grid's devices,
// rng-bit-generator (XLA's Philox and Threefry streams; rng_default is
// Philox), rng (uniform and normal, from a seed; see rng.h), custom-call
// (the kernel registered for its target in passes/custom_call_kernels.h,
// else a stand-in: see custom_call.h and StandInCalls), fft (fft.h; c64
// values are computed on only there and otherwise only moved). Refused by
// Create, with an error naming the instruction: any other op, a dot or convolution with pred operands, a tuple
// constant, a constant whose values were left out (`{...}`), a called
// computation of the wrong arity or types, opaque values, and element types
// element.h does not run; the executor never guesses.
#ifndef RUNTIME_EXECUTOR_H_
#define RUNTIME_EXECUTOR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/hlo_module.h"
#include "runtime/buffer.h"
#include "runtime/collectives.h"

namespace xla_layout::runtime {

// The most devices a run may have (one thread each).
inline constexpr int64_t kMaxDevices = 256;

struct ExecutorOptions {
  // Refuse a module whose run could need more bytes, on all devices
  // together: every buffer (the sum of every array result, a bound on the
  // peak since no computation is active twice), the index tables and the
  // inputs. Checked before anything is allocated.
  int64_t max_bytes = int64_t{4} << 30;
  // The work budget of a whole run, all devices and every loop iteration
  // counted: each element an instruction writes, each multiply-add of a dot
  // or convolution, each element a reduce reads and each while iteration is
  // one step. A run that goes over stops with an error, not a run of hours;
  // the default stops within about a minute on a small machine.
  int64_t max_work = int64_t{8} << 30;
  // A laid-out module (what layout assignment produces) hands every value
  // to a parameter, a callee's caller or the entry's result in the layout
  // written there; a value that arrives in another layout is an error
  // naming both. A module nobody laid out yet (the original `verify`
  // compares against) may disagree: with strict_layouts off the executor
  // moves such a value into the written layout with the packing core.
  bool strict_layouts = true;
  // Devices: 0 takes the module header's replica_count / num_partitions,
  // else the smallest counts its collectives allow (InferDeviceGrid).
  int64_t replicas = 0;
  int64_t partitions = 0;
  // The seed of `rng` (stateless in HLO): each execution draws from a
  // stream seeded by this, the device, the instruction's name and how often
  // the device has run it, so a run is the same before and after a pass.
  uint64_t rng_seed = 0;
  // Where infeed data comes from: called for each array leaf an infeed
  // reads, in the order the device runs its infeeds (so the same before
  // and after a pass); without it an infeed is an error.
  std::function<absl::StatusOr<LogicalArray>(int64_t device, const Shape& shape)> infeed;
};

struct ExecutionStats {
  int64_t copies = 0;       // copies and data-moving transposes run
  int64_t copy_bytes = 0;   // bytes they read plus wrote
  int64_t conformed = 0;    // values moved into a written layout (not strict)
  double copy_seconds = 0;  // wall time in those copies
  double dot_seconds = 0;   // wall time in dots and convolutions
  int64_t work = 0;         // steps counted against max_work
  // Custom calls run as stand-ins (no kernel registered for the target):
  // their results are not the vendor kernel's. Counts runs, so a call in a
  // loop body counts once per iteration.
  int64_t stand_in_calls = 0;
  // The module's relayout plans since it was loaded, each built once and
  // shared by identical copies and by runs: lookups (one per copy leaf and
  // data-moving transpose at load, one per value conformed at a run), those
  // that found the plan built, and the plans built.
  int64_t plan_lookups = 0;
  int64_t plan_hits = 0;
  int64_t plans_built = 0;
};

// A module loaded for running: Create checks every op and type, the device
// grid, the bytes and the least work of a run; Run and RunDevices run it.
// With several devices (replicas x partitions), each device runs the entry
// on its own thread with its own arguments, and the devices meet at every
// collective; reductions combine in device order, so results never depend
// on timing.
class Executor {
 public:
  // Keeps a pointer to `module`, which must outlive the executor.
  static absl::StatusOr<std::unique_ptr<Executor>> Create(const HloModule& module,
                                                          ExecutorOptions options = {});
  ~Executor();

  const DeviceGrid& grid() const;
  // Runs a one-device module's entry on arguments in the entry parameters'
  // layouts (MakeArgument lays logical arrays out so).
  absl::StatusOr<Value> Run(std::vector<Value> arguments);
  // Runs every device (grid().device_count() argument lists, device id =
  // replica * partitions + partition) and returns each device's result.
  absl::StatusOr<std::vector<Value>> RunDevices(std::vector<std::vector<Value>> arguments);
  // The last run's, summed over devices.
  const ExecutionStats& stats() const { return stats_; }
  // What each device's outfeeds sent in the last run, array leaf by leaf in
  // the order they ran.
  const std::vector<std::vector<LogicalArray>>& outfeeds() const { return outfeeds_; }

  // The entry computation's parameter shapes, with their layouts.
  std::vector<Shape> ParameterShapes() const;
  // The custom calls that run as stand-ins, decided by Create (no kernel
  // registered for their target then), in the order it compiled them.
  std::vector<const HloInstruction*> StandInCalls() const;

  struct Impl;  // opaque: defined in executor.cc
  // Only Create makes one (the key is private); public for std::make_unique.
  class Key {
    friend class Executor;
    explicit Key() = default;
  };
  Executor(Key, std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
  ExecutionStats stats_;
  std::vector<std::vector<LogicalArray>> outfeeds_;
};

// Runs every device of `executor` on logical inputs (inputs[d]: one array
// per array leaf of the parameters, in order, tuple parameters leaf by
// leaf) and returns each device's logical outputs, one per array leaf of the
// result in order.
absl::StatusOr<std::vector<std::vector<LogicalArray>>> RunLogicalOnDevices(
    Executor& executor, absl::Span<const std::vector<LogicalArray>> inputs);

// Runs `module`'s entry on logical inputs, one per array leaf of its
// parameters in order (tuple parameters leaf by leaf), and returns the
// logical outputs, one per array leaf of the result in order. The inputs are
// laid out, and the outputs read back, with the packing core. For
// one-device modules.
absl::StatusOr<std::vector<LogicalArray>> RunLogical(const HloModule& module,
                                                     absl::Span<const LogicalArray> inputs,
                                                     const ExecutorOptions& options = {},
                                                     ExecutionStats* stats = nullptr);

// Whether `instruction` is a custom call that runs as a stand-in: no kernel
// is registered for its target in CustomCallKernelRegistry::Global()
// (passes/custom_call_kernels.h). Executor::Create decides the same way.
bool RunsAsStandIn(const HloInstruction& instruction);

// Lays a logical array out in `shape`'s layout (with the packing core).
absl::StatusOr<Value> MakeArgument(const Shape& shape, const LogicalArray& array);
// The logical array of an array value (with the packing core).
absl::StatusOr<LogicalArray> ToLogical(const Value& value);

}  // namespace xla_layout::runtime

#endif  // RUNTIME_EXECUTOR_H_
