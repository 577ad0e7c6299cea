#include "hlo/hlo_proto_io.h"

#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/text_format.h"

namespace xla_layout {
namespace {

// Collects the text-format parser's first error instead of logging it.
class FirstError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    if (error_.empty()) error_ = absl::StrCat("line ", line + 1, ":", column + 1, ": ", message);
  }
  void AddWarning(int, int, const std::string&) override {}
  const std::string& error() const { return error_; }

 private:
  std::string error_;
};

// Why `m` is not a message of its type in `bytes` (empty when it is).
std::string Parse(absl::string_view bytes, bool text_format, google::protobuf::Message& m) {
  if (text_format) {
    google::protobuf::TextFormat::Parser parser;
    FirstError errors;
    parser.RecordErrorsTo(&errors);
    if (!parser.ParseFromString(std::string(bytes), &m)) {
      return errors.error().empty() ? "does not parse" : errors.error();
    }
    return "";
  }
  if (bytes.size() > static_cast<size_t>(INT32_MAX)) return "over 2 GiB";
  if (!m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return "does not parse (truncated, or another message)";
  }
  return "";
}

// Fields the binary form carries that `m` does not define; `allowed` is a
// field number that may be (HloProto's buffer assignment).
std::string Unknown(const google::protobuf::Message& m, int allowed = 0) {
  const auto& unknown = m.GetReflection()->GetUnknownFields(m);
  for (int k = 0; k < unknown.field_count(); ++k) {
    if (unknown.field(k).number() != allowed) {
      return absl::StrCat("has field ", unknown.field(k).number(), ", which ",
                          m.GetDescriptor()->name(), " does not define");
    }
  }
  return "";
}

std::string NoModule(const xla::HloModuleProto& m) {
  return m.computations_size() == 0 ? "holds no module with a computation" : "";
}

}  // namespace

absl::StatusOr<HloFileFormat> HloFileFormatFromName(absl::string_view name) {
  if (name == "hlo") return HloFileFormat::kText;
  if (name == "pb") return HloFileFormat::kProto;
  if (name == "pbtxt") return HloFileFormat::kProtoText;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown format '", name, "' (hlo, pb or pbtxt)"));
}

HloFileFormat HloFileFormatOfPath(absl::string_view path) {
  if (absl::EndsWith(path, ".pb")) return HloFileFormat::kProto;
  if (absl::EndsWith(path, ".pbtxt")) return HloFileFormat::kProtoText;
  return HloFileFormat::kText;
}

absl::StatusOr<ModuleProtoFile> DecodeModuleProto(absl::string_view bytes, bool text_format) {
  std::vector<std::string> tried;
  {
    xla::HloSnapshot s;
    std::string why = Parse(bytes, text_format, s);
    if (why.empty() && !text_format) why = Unknown(s);
    if (why.empty() && !text_format) why = Unknown(s.hlo(), 3);
    if (why.empty()) why = NoModule(s.hlo().hlo_module());
    if (why.empty()) {
      ModuleProtoFile f{s.hlo().hlo_module(), "HloSnapshot", std::nullopt};
      f.snapshot = std::move(s);
      return f;
    }
    tried.push_back(absl::StrCat("as HloSnapshot: ", why));
  }
  {
    xla::HloProto p;
    std::string why = Parse(bytes, text_format, p);
    if (why.empty() && !text_format) why = Unknown(p, 3);
    if (why.empty()) why = NoModule(p.hlo_module());
    if (why.empty()) return ModuleProtoFile{p.hlo_module(), "HloProto", std::nullopt};
    tried.push_back(absl::StrCat("as HloProto: ", why));
  }
  xla::HloModuleProto m;
  std::string why = Parse(bytes, text_format, m);
  if (why.empty()) why = NoModule(m);
  if (why.empty()) return ModuleProtoFile{std::move(m), "HloModuleProto", std::nullopt};
  tried.push_back(absl::StrCat("as HloModuleProto: ", why));
  return absl::InvalidArgumentError(absl::StrCat(
      "not an HloSnapshot, HloProto or HloModuleProto in ", text_format ? "text" : "binary",
      " protobuf form (", absl::StrJoin(tried, "; "), ")"));
}

std::string EncodeProto(const google::protobuf::Message& message, bool text_format) {
  std::string out;
  if (text_format) {
    google::protobuf::TextFormat::PrintToString(message, &out);
    return out;
  }
  google::protobuf::io::StringOutputStream stream(&out);
  {
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
  }
  return out;
}

}  // namespace xla_layout
