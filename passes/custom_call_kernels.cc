#include "passes/custom_call_kernels.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace xla_layout {

CustomCallKernelRegistry& CustomCallKernelRegistry::Global() {
  static CustomCallKernelRegistry* registry = new CustomCallKernelRegistry();
  return *registry;
}

absl::Status CustomCallKernelRegistry::Register(std::string target, CustomCallKernel kernel) {
  if (target.empty()) return absl::InvalidArgumentError("a custom-call kernel needs a target name");
  if (!kernel) {
    return absl::InvalidArgumentError(
        absl::StrCat("the kernel for custom-call target '", target, "' is empty"));
  }
  for (const auto& k : kernels_) {
    if (k.first == target) {
      return absl::AlreadyExistsError(
          absl::StrCat("custom-call target '", target, "' already has a kernel"));
    }
  }
  kernels_.emplace_back(std::move(target),
                        std::make_shared<const CustomCallKernel>(std::move(kernel)));
  return absl::OkStatus();
}

std::shared_ptr<const CustomCallKernel> CustomCallKernelRegistry::Find(
    absl::string_view target) const {
  for (const auto& k : kernels_) {
    if (k.first == target) return k.second;
  }
  return nullptr;
}

std::vector<std::string> CustomCallKernelRegistry::Targets() const {
  std::vector<std::string> out;
  for (const auto& k : kernels_) out.push_back(k.first);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace xla_layout
