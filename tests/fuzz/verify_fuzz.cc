// Parse -> run -> layout assignment -> run, on every built-in target: when
// the executor runs a module, the module after the pass runs too (its copies
// on the packing core) and gives bit-identical outputs. Budgets keep every
// input to a fraction of a second.
#include <cstdint>
#include <random>
#include <string>

#include "hlo/hlo_parser.h"
#include "hlo/hlo_verifier.h"
#include "passes/hlo_pass.h"
#include "runtime/executor.h"
#include "runtime/logical.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using xla_layout::runtime::ExecutorOptions;
using xla_layout::runtime::LogicalArray;

// The logical outputs, or an error.
absl::StatusOr<std::vector<LogicalArray>> Run(const xla_layout::HloModule& m, bool strict) {
  ExecutorOptions options;
  options.max_bytes = 1 << 20;
  options.max_work = 1 << 22;
  options.strict_layouts = strict;
  std::mt19937_64 rng(1);
  std::vector<LogicalArray> inputs;
  for (const xla_layout::HloInstruction* p : m.entry()->parameters()) {
    if (p == nullptr || !p->shape().IsArray()) return absl::UnimplementedError("parameters");
    auto a = xla_layout::runtime::RandomLogicalArray(p->shape(), rng);
    if (!a.ok()) return a.status();
    inputs.push_back(*std::move(a));
  }
  return xla_layout::runtime::RunLogical(m, inputs, options);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 16 * 1024) return 0;
  std::string text(reinterpret_cast<const char*>(data), size);
  auto original = xla_layout::ParseHloModule(text, "fuzz");
  if (!original.ok() || !xla_layout::VerifyModule(**original).ok()) return 0;
  auto want = Run(**original, /*strict=*/false);
  if (!want.ok()) return 0;  // Not covered, or over a budget.
  for (const char* target : {"default", "tpu", "cpu-avx2", "cpu-avx512", "arm64"}) {
    auto module = xla_layout::ParseHloModule(text, "fuzz");
    auto pipeline = xla_layout::PassPipeline::Parse(
        std::string("layout-assignment{target=") + target + "}");
    FUZZ_CHECK(pipeline.ok(), pipeline.status().message());
    if (!pipeline->Run(**module).ok()) continue;  // A refusal is allowed.
    auto got = Run(**module, /*strict=*/true);
    const std::string printed = (*module)->ToString();
    // The pass may add copies (bytes) but no work.
    FUZZ_CHECK(got.ok() || absl::IsResourceExhausted(got.status()),
               std::string(target) + ": " + std::string(got.status().message()) + "\n" + printed);
    if (!got.ok()) continue;
    FUZZ_CHECK(got->size() == want->size(), std::string(target) + ": output count\n" + printed);
    for (size_t k = 0; k < got->size(); ++k) {
      FUZZ_CHECK(!xla_layout::runtime::FirstDifference((*want)[k], (*got)[k]).has_value(),
                 std::string(target) + ": output " + std::to_string(k) + " differs\n" + printed);
    }
  }
  return 0;
}
