#include "hlo/hlo_corpus.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "xla_layout/file_io.h"

namespace xla_layout {

namespace {

// The state line third_party/hlo_corpus.bzl writes ("present N",
// "declined" or "missing PATH") in a test's runfiles; nullopt outside a
// test or when the test does not list the corpus.
std::optional<std::string> DeclaredCorpusState(std::string* runfiles_dir) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  if (srcdir == nullptr) return std::nullopt;
  *runfiles_dir = absl::StrCat(srcdir, "/hlo_corpus");
  absl::StatusOr<std::string> state =
      ReadFileBounded(*runfiles_dir + "/state.txt", "corpus state");
  if (!state.ok()) return std::nullopt;
  return std::string(absl::StripTrailingAsciiWhitespace(*state));
}

}  // namespace

std::optional<std::string> HloCorpusDir() {
  std::string runfiles_dir;
  if (std::optional<std::string> state = DeclaredCorpusState(&runfiles_dir)) {
    if (*state == "declined") return std::nullopt;
    if (absl::StartsWith(*state, "missing ")) return state->substr(8);
    return runfiles_dir + "/corpus";
  }
  if (const char* env = std::getenv("HLO_CORPUS_DIR")) return std::string(env);
  if (const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY")) {
    return absl::StrCat(ws, "/../shared/hlo-corpus");
  }
  return std::nullopt;
}

absl::StatusOr<std::vector<CorpusFile>> ReadHloCorpus(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<CorpusFile> files;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() != ".hlo") continue;
    CorpusFile file;
    file.path = it->path().string();
    file.relative = it->path().lexically_relative(dir).generic_string();
    absl::StatusOr<std::string> text = ReadFileBounded(file.path, "corpus module");
    if (!text.ok()) return text.status();
    file.text = *std::move(text);
    files.push_back(std::move(file));
  }
  if (ec) {
    return absl::NotFoundError(absl::StrCat(
        "cannot read the HLO corpus at ", dir, ": ", ec.message(),
        " (set XLA_LAYOUT_NO_CORPUS=1 to build and test without a corpus)"));
  }
  if (files.empty()) return absl::NotFoundError(absl::StrCat("no .hlo file below ", dir));
  std::sort(files.begin(), files.end(),
            [](const CorpusFile& a, const CorpusFile& b) { return a.relative < b.relative; });
  return files;
}

HloParseOptions CorpusParseOptions(const CorpusFile& file) {
  HloParseOptions options;
  options.accept_old_dumps = absl::StartsWith(file.relative, "real/");
  return options;
}

}  // namespace xla_layout
