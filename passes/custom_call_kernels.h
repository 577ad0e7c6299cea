// Reference kernels for custom calls, by target name. A custom call names a
// vendor kernel (`AwsNeuronGelu`, a cuDNN or TPU routine) that no program
// here can know; the executor runs such a call as a stand-in (a fixed
// function of the target and the operands' values) unless a kernel for its
// target is registered here, by a pass plugin (see LoadPassPlugin) or by the
// program itself. The registry sits in passes/ so that a plugin, built
// against the pass API's headers only, and the executor above it both reach
// it; a kernel sees plain logical arrays, never the executor's buffers.
#ifndef PASSES_CUSTOM_CALL_KERNELS_H_
#define PASSES_CUSTOM_CALL_KERNELS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "proto/layout.pb.h"

namespace xla_layout {

// A logical array as a kernel sees it: row-major, little-endian, each
// element in its natural size (one byte for pred, s4 and u4, s4
// sign-extended; two bytes for f16 and bf16), no padding. The executor's
// LogicalArray and .npy files hold the same bytes.
struct KernelArray {
  PrimitiveType type = PRIMITIVE_TYPE_INVALID;
  std::vector<int64_t> dims;
  std::vector<uint8_t> bytes;
};

// Computes a custom call's results from its operands (the array leaves of
// its operands in order, tuple operands leaf by leaf). `results` holds one
// array per array leaf of the call's result, its type and dims set and its
// bytes zeroed at their final size: the kernel overwrites the bytes and must
// not resize them. An error names what the kernel cannot do (a type it does
// not take); the executor adds the instruction.
using CustomCallKernel = std::function<absl::Status(absl::Span<const KernelArray> operands,
                                                    absl::Span<KernelArray> results)>;

// What a plugin sees of the kernel registry: an interface, as PassRegistrar
// is for passes.
class CustomCallKernelRegistrar {
 public:
  virtual ~CustomCallKernelRegistrar() = default;
  // Fails when `target` is empty or already has a kernel.
  virtual absl::Status Register(std::string target, CustomCallKernel kernel) = 0;
};

class CustomCallKernelRegistry : public CustomCallKernelRegistrar {
 public:
  // The registry the executor consults.
  static CustomCallKernelRegistry& Global();

  absl::Status Register(std::string target, CustomCallKernel kernel) override;
  // The kernel registered for `target`, or null; shared, so that an
  // executor can hold it from load time to run time.
  std::shared_ptr<const CustomCallKernel> Find(absl::string_view target) const;
  std::vector<std::string> Targets() const;  // sorted

 private:
  std::vector<std::pair<std::string, std::shared_ptr<const CustomCallKernel>>> kernels_;
};

}  // namespace xla_layout

#endif  // PASSES_CUSTOM_CALL_KERNELS_H_
