// Parse -> layout assignment -> print -> parse, on every built-in target: the
// pass never crashes on a module the verifier accepts; when it succeeds, the
// result keeps the layout invariants, verifies, and round-trips through text.
#include <cstdint>
#include <string>

#include "hlo/hlo_parser.h"
#include "hlo/hlo_verifier.h"
#include "passes/hlo_pass.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 16 * 1024) return 0;
  std::string text(reinterpret_cast<const char*>(data), size);
  for (const char* target : {"default", "tpu", "cpu-avx2", "cpu-avx512", "arm64"}) {
    absl::StatusOr<std::unique_ptr<xla_layout::HloModule>> module =
        xla_layout::ParseHloModule(text, "fuzz");
    if (!module.ok() || !xla_layout::VerifyModule(**module).ok()) return 0;
    absl::StatusOr<xla_layout::PassPipeline> pipeline = xla_layout::PassPipeline::Parse(
        std::string("layout-assignment{target=") + target + "}");
    FUZZ_CHECK(pipeline.ok(), pipeline.status().message());
    if (!pipeline->Run(**module).ok()) continue;  // A refusal is allowed.
    absl::Status invariants = xla_layout::VerifyLayoutInvariants(**module);
    std::string printed = (*module)->ToString();
    FUZZ_CHECK(invariants.ok(), std::string(target) + ": " +
                                    std::string(invariants.message()) + "\n" + printed);
    absl::Status verified = xla_layout::VerifyModule(**module);
    FUZZ_CHECK(verified.ok(), std::string(target) + ": " + std::string(verified.message()));
    absl::StatusOr<std::unique_ptr<xla_layout::HloModule>> again =
        xla_layout::ParseHloModule(printed, "printed");
    FUZZ_CHECK(again.ok(), std::string(target) + ": " +
                               std::string(again.status().message()) + "\n" + printed);
    FUZZ_CHECK((*again)->ToString() == printed, printed);
  }
  return 0;
}
