// An example pass plugin: `strip-metadata` removes the metadata= attribute
// of every instruction. Build: bazel build //passes/plugins:strip_metadata;
// use: hlo-layout m.hlo --load-pass-plugin=PATH.so --passes=strip-metadata
//
// It also gives the executor a reference kernel for the custom-call target
// AwsNeuronGelu (torch-neuronx's GELU, GeluForwardImpl in the dumps). It
// takes the erf form, torch's default (not the tanh approximation):
// gelu(x) = x/2 * (1 + erf(x/sqrt(2))), computed in double and
// rounded once to the element type (f32 or f64; others are an error).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "passes/hlo_pass.h"

namespace {

class StripMetadataPass : public xla_layout::HloPass {
 public:
  absl::string_view name() const override { return "strip-metadata"; }
  absl::string_view description() const override {
    return "(plugin) removes metadata={...} from every instruction";
  }
  absl::StatusOr<bool> Run(xla_layout::HloModule& module) override {
    bool changed = false;
    for (xla_layout::HloComputation* c : module.computations()) {
      for (xla_layout::HloInstruction* i : c->instructions()) {
        auto& attrs = i->mutable_raw_attributes();
        size_t before = attrs.size();
        attrs.erase(std::remove_if(attrs.begin(), attrs.end(),
                                   [](const xla_layout::HloAttribute& a) {
                                     return a.name == "metadata";
                                   }),
                    attrs.end());
        changed |= attrs.size() != before;
      }
    }
    return changed;
  }
};

double Gelu(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }

// Element k of a logical f32 or f64 array.
double Read(const xla_layout::KernelArray& a, size_t k) {
  if (a.type == xla_layout::F64) {
    double d;
    std::memcpy(&d, a.bytes.data() + 8 * k, 8);
    return d;
  }
  float f;
  std::memcpy(&f, a.bytes.data() + 4 * k, 4);
  return f;
}

void Write(xla_layout::KernelArray& a, size_t k, double value) {
  if (a.type == xla_layout::F64) {
    std::memcpy(a.bytes.data() + 8 * k, &value, 8);
    return;
  }
  const float f = static_cast<float>(value);
  std::memcpy(a.bytes.data() + 4 * k, &f, 4);
}

absl::Status GeluKernel(absl::Span<const xla_layout::KernelArray> operands,
                        absl::Span<xla_layout::KernelArray> results) {
  if (operands.size() != 1 || results.size() != 1) {
    return absl::InvalidArgumentError("AwsNeuronGelu takes one array and returns one");
  }
  const xla_layout::KernelArray& x = operands[0];
  xla_layout::KernelArray& y = results[0];
  if (x.type != y.type || x.dims != y.dims ||
      (x.type != xla_layout::F32 && x.type != xla_layout::F64)) {
    return absl::InvalidArgumentError(
        "the reference AwsNeuronGelu takes f32 or f64 and returns the same shape");
  }
  const size_t width = x.type == xla_layout::F64 ? 8 : 4;
  const size_t n = x.bytes.size() / width;
  for (size_t k = 0; k < n; ++k) Write(y, k, Gelu(Read(x, k)));
  return absl::OkStatus();
}

}  // namespace

extern "C" int xla_layout_pass_plugin_api_version() {
  return xla_layout::kPassPluginApiVersion;
}

extern "C" void xla_layout_register_passes(xla_layout::PassRegistrar* registrar,
                                           absl::Status* status) {
  *status = registrar->Register(
      "strip-metadata", "(plugin) removes metadata={...} from every instruction",
      [] { return std::make_unique<StripMetadataPass>(); });
}

extern "C" void xla_layout_register_custom_call_kernels(
    xla_layout::CustomCallKernelRegistrar* registrar, absl::Status* status) {
  *status = registrar->Register("AwsNeuronGelu", GeluKernel);
}
