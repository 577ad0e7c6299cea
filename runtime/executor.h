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
// after a pass.
//
// Covered: parameter, constant, iota, copy, bitcast, transpose, reshape,
// dynamic-reshape (static result sizes), broadcast, slice, dynamic-slice,
// dynamic-update-slice, concatenate, pad, reverse, convert, bitcast-convert
// (equal and different widths; not pred), reduce-precision, the elementwise
// unary and binary ops of element.h, compare, select, clamp, map, dot
// (dense only: not a sparse one), convolution (any dim_labels, window and
// feature_group_count; batch_group_count 1 only), reduce (variadic, any
// scalar to_apply), reduce-window (variadic), select-and-scatter, sort (one
// or several operands, any comparator; always stable), topk, cholesky,
// triangular-solve, get-dimension-size (static dims), tuple,
// get-tuple-element, opt-barrier, domain, while, conditional, call,
// fusion, async-start/-update/-done (the wrapped computation runs at the
// start; a wrapped op the executor refuses is refused). Refused by Create, with an error naming the instruction: any
// other op (fft with the reason: its complex numbers), a dot or
// convolution with pred operands, a tuple constant, a constant whose values
// were left out (`{...}`), a called computation of the wrong arity or
// types, token and opaque values, and element types element.h does not
// run; the executor never guesses.
#ifndef RUNTIME_EXECUTOR_H_
#define RUNTIME_EXECUTOR_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/hlo_module.h"
#include "runtime/buffer.h"

namespace xla_layout::runtime {

struct ExecutorOptions {
  // Refuse a module whose buffers could need more (the sum of every array
  // result's bytes, a bound on the peak since no computation is active twice).
  int64_t max_bytes = int64_t{4} << 30;
  // Refuse a module whose dots, convolutions and reduces need more
  // multiply-adds (or reduction steps) in one pass over the entry (loop
  // bodies counted once): an error, not a run of hours.
  int64_t max_operations = int64_t{1} << 40;
  // A while loop that runs longer is an error, not a hang.
  int64_t max_while_iterations = 1000000;
  // A laid-out module (what layout assignment produces) hands every value
  // to a parameter, a callee's caller or the entry's result in the layout
  // written there; a value that arrives in another layout is an error
  // naming both. A module nobody laid out yet (the original `verify`
  // compares against) may disagree: with strict_layouts off the executor
  // moves such a value into the written layout with the packing core.
  bool strict_layouts = true;
};

struct ExecutionStats {
  int64_t copies = 0;       // copies and data-moving transposes run
  int64_t copy_bytes = 0;   // bytes they read plus wrote
  int64_t conformed = 0;    // values moved into a written layout (not strict)
  double copy_seconds = 0;  // wall time in those copies
  double dot_seconds = 0;   // wall time in dots and convolutions
};

class Executor {
 public:
  // Keeps a pointer to `module`, which must outlive the executor.
  static absl::StatusOr<std::unique_ptr<Executor>> Create(const HloModule& module,
                                                          ExecutorOptions options = {});
  ~Executor();

  // Runs the entry computation on arguments in the entry parameters'
  // layouts (MakeArgument lays logical arrays out so).
  absl::StatusOr<Value> Run(std::vector<Value> arguments);
  const ExecutionStats& stats() const { return stats_; }

  // The entry computation's parameter shapes, with their layouts.
  std::vector<Shape> ParameterShapes() const;

 private:
  struct Impl;
  explicit Executor(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  ExecutionStats stats_;
};

// Runs `module`'s entry on logical inputs, one per array leaf of its
// parameters in order (tuple parameters leaf by leaf), and returns the
// logical outputs, one per array leaf of the result in order. The inputs are
// laid out, and the outputs read back, with the packing core.
absl::StatusOr<std::vector<LogicalArray>> RunLogical(const HloModule& module,
                                                     absl::Span<const LogicalArray> inputs,
                                                     const ExecutorOptions& options = {},
                                                     ExecutionStats* stats = nullptr);

// Lays a logical array out in `shape`'s layout (with the packing core).
absl::StatusOr<Value> MakeArgument(const Shape& shape, const LogicalArray& array);
// The logical array of an array value (with the packing core).
absl::StatusOr<LogicalArray> ToLogical(const Value& value);

}  // namespace xla_layout::runtime

#endif  // RUNTIME_EXECUTOR_H_
