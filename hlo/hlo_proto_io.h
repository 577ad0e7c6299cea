// HLO module files in XLA's three forms: HLO text (.hlo, .txt, anything
// else), binary protobuf (.pb) and text protobuf (.pbtxt). A proto file
// holds an HloSnapshot, an HloProto or an HloModuleProto; like XLA's module
// loader, DecodeModuleProto tries them in that order and takes the first
// that parses with a module of at least one computation (and, binary, with
// no field the message does not define, but HloProto's buffer assignment).
#ifndef HLO_HLO_PROTO_IO_H_
#define HLO_HLO_PROTO_IO_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"
#include "proto/hlo.pb.h"

namespace xla_layout {

enum class HloFileFormat { kText, kProto, kProtoText };

// "hlo", "pb" or "pbtxt"; anything else is an error that lists them.
absl::StatusOr<HloFileFormat> HloFileFormatFromName(absl::string_view name);
// By extension: .pb and .pbtxt, text otherwise.
HloFileFormat HloFileFormatOfPath(absl::string_view path);

struct ModuleProtoFile {
  xla::HloModuleProto module;
  std::string message_type;                  // the message it was read as
  std::optional<xla::HloSnapshot> snapshot;  // its arguments and result, for a snapshot
};

// `bytes` (text format when `text_format`) as one of the three messages.
// The error says what each try found.
absl::StatusOr<ModuleProtoFile> DecodeModuleProto(absl::string_view bytes, bool text_format);

// `message` in binary (map entries sorted, so that equal messages give equal
// bytes) or text format.
std::string EncodeProto(const google::protobuf::Message& message, bool text_format);

}  // namespace xla_layout

#endif  // HLO_HLO_PROTO_IO_H_
