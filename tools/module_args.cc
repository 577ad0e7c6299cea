#include "tools/module_args.h"

#include <unistd.h>

#include <iostream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_proto_convert.h"
#include "hlo/hlo_verifier.h"
#include "hlo/source_text.h"
#include "tools/process_heap.h"
#include "xla_layout/file_io.h"

namespace xla_layout::cli {
namespace {

absl::Status Fail(CommandError* error, int code, std::string message) {
  *error = {code, std::move(message)};
  return absl::InvalidArgumentError("see error");
}
absl::Status Usage(CommandError* error, absl::string_view message) {
  return Fail(error, kExitUsage,
              absl::StrCat("hlo-layout: error: ", message,
                           "\nRun 'hlo-layout --help' for usage.\n"));
}
absl::Status Input(CommandError* error, absl::string_view message) {
  return Fail(error, kExitBadInput, absl::StrCat("hlo-layout: error: ", message, "\n"));
}

}  // namespace

absl::StatusOr<ModuleReadOptions> ModuleReadOptionsFrom(const Args& args) {
  ModuleReadOptions options;
  for (auto [name, field] : {std::pair{"verbose", &options.verbose},
                             std::pair{"accept-old-dumps", &options.accept_old_dumps}}) {
    absl::StatusOr<bool> on = args.Bool(name);
    if (!on.ok()) return on.status();
    *field = *on;
  }
  if (args.Has("input-format")) {
    absl::StatusOr<HloFileFormat> f =
        HloFileFormatFromName(args.Value("input-format").value_or(""));
    if (!f.ok()) return absl::InvalidArgumentError(absl::StrCat("--input-format: ", f.status().message()));
    options.input_format = *f;
  }
  return options;
}

namespace {

// The HLO text of the proto in `bytes`: the module's, as XLA prints it.
absl::StatusOr<std::string> ProtoAsText(const std::string& bytes, HloFileFormat format,
                                        const std::string& display,
                                        std::optional<xla::HloSnapshot>* snapshot) {
  absl::StatusOr<ModuleProtoFile> file =
      DecodeModuleProto(bytes, format == HloFileFormat::kProtoText);
  if (!file.ok()) return file.status();
  if (snapshot != nullptr) *snapshot = std::move(file->snapshot);
  std::vector<std::string> warnings;
  absl::StatusOr<std::string> text = HloModuleProtoToText(file->module, &warnings);
  for (const std::string& w : warnings) std::cerr << display << ": warning: " << w << "\n";
  return text;
}

}  // namespace

absl::StatusOr<std::unique_ptr<HloModule>> ReadVerifiedModule(
    const std::string& path, const ModuleReadOptions& options, CommandError* error,
    std::optional<xla::HloSnapshot>* snapshot) {
  if (path == "-" && isatty(STDIN_FILENO)) {
    // Waiting silently on a terminal looks like a hang.
    std::cerr << "hlo-layout: reading an HLO module from standard input "
                 "(Ctrl-D ends it; --help for usage)\n";
  }
  absl::StatusOr<std::string> text = ReadFileBounded(path, "HLO file");
  if (!text.ok()) return Input(error, text.status().message());
  const std::string file = path == "-" ? "<stdin>" : path;
  const HloFileFormat format = options.input_format.value_or(
      path == "-" ? HloFileFormat::kText : HloFileFormatOfPath(path));
  std::string display = file;
  if (format != HloFileFormat::kText) {
    text = ProtoAsText(*text, format, file, snapshot);
    if (!text.ok()) return Input(error, absl::StrCat(file, ": ", text.status().message()));
    display = absl::StrCat(file, " (as HLO text)");
  }
  PopulateHeapForParse(*text);
  std::vector<std::string> warnings, upgrades;
  HloParseOptions parse_options;
  parse_options.accept_old_dumps = options.accept_old_dumps;
  parse_options.upgrades = &upgrades;
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(*text, display, &warnings, parse_options);
  if (!module.ok()) {
    return Fail(error, kExitBadInput, absl::StrCat(module.status().message(), "\n"));
  }
  for (const std::string& w : upgrades) std::cerr << w << "\n";
  if (options.verbose) {
    for (const std::string& w : warnings) std::cerr << w << "\n";
  }
  absl::Status verified = VerifyModule(**module);
  if (!verified.ok()) {
    // Only a failure needs the line index of the text, to place its message:
    // the verifier runs again with it (it is deterministic).
    const SourceText source(*text, display);
    VerifierOptions verifier_options;
    verifier_options.source = &source;
    verified = VerifyModule(**module, verifier_options);
  }
  if (!verified.ok()) {
    // Positioned errors already name the file.
    const bool positioned = absl::StartsWith(verified.message(), display + ":");
    return Fail(error, kExitBadInput,
                absl::StrCat(positioned ? "" : absl::StrCat(display, ": error: "),
                             verified.message(), "\n"));
  }
  return module;
}

absl::StatusOr<std::optional<PassPipeline>> PipelineFromArgs(const Args& args,
                                                            CommandError* error) {
  PipelineSpec spec;
  if (args.Has("passes")) {
    absl::StatusOr<PipelineSpec> s = PipelineSpec::Parse(args.Value("passes").value_or(""));
    if (!s.ok()) return Usage(error, s.status().message());
    spec = *std::move(s);
  }
  // --target and --target-file are shorthands for the option of that name
  // of every pass in the pipeline that declares it.
  for (absl::string_view key : {"target", "target-file"}) {
    if (!args.Has(key)) continue;
    std::optional<std::string> value = args.Value(key);
    if (!value || value->empty()) {
      return Usage(error, absl::StrCat("--", key, " needs a value"));
    }
    if (args.Has("target") && args.Has("target-file")) {
      return Usage(error, "give --target or --target-file, not both");
    }
    int taken = 0;
    for (PipelineSpec::Element& element : spec.elements) {
      absl::StatusOr<std::vector<PassOption>> declared =
          PassRegistry::Global().Options(element.pass);
      if (!declared.ok()) return Usage(error, declared.status().message());
      for (const PassOption& o : *declared) {
        if (o.name != key) continue;
        element.options.push_back({std::string(key), *value});
        ++taken;
      }
    }
    if (taken == 0) {
      std::vector<std::string> owners;
      for (const PassRegistry::Entry& e : PassRegistry::Global().List()) {
        for (const PassOption& o : e.options) {
          if (o.name == key) owners.push_back(e.name);
        }
      }
      return Usage(error, absl::StrCat(
          "--", key, " is an option of ",
          owners.empty() ? std::string("no registered pass") : absl::StrJoin(owners, ", "),
          owners.empty() ? "" : absl::StrCat("; add --passes=", owners[0])));
    }
  }
  if (!args.Has("passes")) return std::optional<PassPipeline>();
  absl::StatusOr<PassPipeline> p = PassPipeline::Create(spec);
  if (!p.ok()) return Usage(error, p.status().message());
  absl::Status configured = p->Configure();
  if (!configured.ok()) {
    if (absl::StrContains(configured.message(), ": error: ")) {
      // Already file:line:col.
      return Fail(error, kExitBadInput, absl::StrCat(configured.message(), "\n"));
    }
    return Input(error, configured.message());
  }
  return std::optional<PassPipeline>(*std::move(p));
}

}  // namespace xla_layout::cli
