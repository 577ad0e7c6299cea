// Custom calls in the executor (internal to runtime/). A custom call names a
// kernel outside XLA (`AwsNeuronGelu`, a cuDNN or TPU routine). When the
// registry of passes/custom_call_kernels.h has a kernel for its target, the
// call runs that kernel on its operands' logical arrays. Otherwise it runs
// as a stand-in: its results are a fixed function of the target name and of
// every operand element's bits, read in row-major logical order, so a run is
// repeatable and a layout change around the call cannot hide (the stand-in
// sees the same logical values, or the results differ), but the values are
// not the kernel's.
#ifndef RUNTIME_CUSTOM_CALL_H_
#define RUNTIME_CUSTOM_CALL_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/hlo_module.h"
#include "passes/custom_call_kernels.h"
#include "runtime/buffer.h"

namespace xla_layout::runtime {

using Info = std::shared_ptr<const ArrayInfo>;

// The custom call's custom_call_target, unquoted and unescaped ("" when
// absent).
std::string CustomCallTarget(const HloInstruction& call);

// The stand-in's results: a generator seeded with a hash of the target name
// and of every operand leaf's type, dims and element bits (row-major logical
// order) fills every array leaf of the result in order, each in row-major
// logical order: floats k/256 - 1 for k in [0, 512) (in [-1, 1), exact in
// every float type), signed integers in [-8, 8), unsigned in [0, 16), pred 0
// or 1. `out` holds one ArrayInfo per array leaf of the result.
absl::StatusOr<Value> StandInCustomCall(const HloInstruction& call,
                                        absl::Span<const Value* const> operands,
                                        absl::Span<const Info> out);

// Runs `kernel` on the operands' array leaves as logical arrays and lays its
// results out in `out`'s layouts. An error from the kernel, or results it
// resized, is an error naming the call.
absl::StatusOr<Value> KernelCustomCall(const HloInstruction& call,
                                       absl::Span<const Value* const> operands,
                                       absl::Span<const Info> out,
                                       const CustomCallKernel& kernel);

}  // namespace xla_layout::runtime

#endif  // RUNTIME_CUSTOM_CALL_H_
