// HLO text: parsing and verifying never crash; a module that parses and
// verifies prints to text that parses and verifies again and prints the same.
#include <cstdint>
#include <string>

#include "hlo/hlo_parser.h"
#include "hlo/hlo_verifier.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 64 * 1024) return 0;
  std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<std::unique_ptr<xla_layout::HloModule>> module =
      xla_layout::ParseHloModule(text, "fuzz");
  if (!module.ok()) return 0;
  if (!xla_layout::VerifyModule(**module).ok()) return 0;
  std::string printed = (*module)->ToString();
  absl::StatusOr<std::unique_ptr<xla_layout::HloModule>> again =
      xla_layout::ParseHloModule(printed, "printed");
  FUZZ_CHECK(again.ok(), std::string(again.status().message()) + "\n" + printed);
  absl::Status verified = xla_layout::VerifyModule(**again);
  FUZZ_CHECK(verified.ok(), std::string(verified.message()) + "\n" + printed);
  FUZZ_CHECK((*again)->ToString() == printed, printed);
  return 0;
}
