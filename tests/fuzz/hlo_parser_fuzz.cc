// HLO text and its binary proto form: parsing and verifying never crash; a
// module that parses and verifies prints to text that parses and verifies
// again and prints the same. The input is also read as a binary proto
// (HloSnapshot, HloProto or HloModuleProto) and, when it is HLO text, its
// module is written as HloModuleProto and read back: a module written
// without warnings reads back, and writes the same bytes again.
#include <cstdint>
#include <string>

#include "hlo/hlo_parser.h"
#include "hlo/hlo_proto_convert.h"
#include "hlo/hlo_proto_io.h"
#include "hlo/hlo_verifier.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

// `module` to proto bytes and back: the bytes are a fixed point.
void CheckProtoRoundTrip(const xla_layout::HloModule& module) {
  std::vector<std::string> warnings;
  absl::StatusOr<xla::HloModuleProto> proto = xla_layout::HloModuleToProto(module, &warnings);
  if (!proto.ok() || !warnings.empty()) return;
  const std::string bytes = xla_layout::EncodeProto(*proto, /*text_format=*/false);
  absl::StatusOr<xla_layout::ModuleProtoFile> file =
      xla_layout::DecodeModuleProto(bytes, /*text_format=*/false);
  FUZZ_CHECK(file.ok(), std::string(file.status().message()));
  absl::StatusOr<std::unique_ptr<xla_layout::HloModule>> back =
      xla_layout::HloModuleFromProto(file->module, "proto", nullptr);
  FUZZ_CHECK(back.ok(), std::string(back.status().message()) + "\n" + module.ToString());
  absl::StatusOr<xla::HloModuleProto> again = xla_layout::HloModuleToProto(**back, nullptr);
  FUZZ_CHECK(again.ok() && xla_layout::EncodeProto(*again, false) == bytes,
             "the proto read back writes other bytes\n" + module.ToString());
}

// The input as a binary proto: any error, never a crash.
void ReadAsProto(const std::string& bytes) {
  absl::StatusOr<xla_layout::ModuleProtoFile> file =
      xla_layout::DecodeModuleProto(bytes, /*text_format=*/false);
  if (!file.ok()) return;
  std::vector<std::string> warnings;
  absl::StatusOr<std::unique_ptr<xla_layout::HloModule>> module =
      xla_layout::HloModuleFromProto(file->module, "fuzz.pb", &warnings);
  if (module.ok() && xla_layout::VerifyModule(**module).ok()) CheckProtoRoundTrip(**module);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 64 * 1024) return 0;
  std::string text(reinterpret_cast<const char*>(data), size);
  ReadAsProto(text);
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
  CheckProtoRoundTrip(**module);
  return 0;
}
