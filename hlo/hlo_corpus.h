// The shared HLO corpus that tests and benchmarks read: XLA's own test
// modules and, under real/, modules that frameworks dumped while training.
#ifndef HLO_HLO_CORPUS_H_
#define HLO_HLO_CORPUS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/hlo_parser.h"

namespace xla_layout {

struct CorpusFile {
  std::string path;      // as found, for messages
  std::string relative;  // below the corpus folder: "real/gpt2_tp1.hlo"
  std::string text;
};

// The corpus folder. Under `bazel test`, a test that lists the corpus
// (@hlo_corpus//:files and @hlo_corpus//:state.txt, see
// third_party/hlo_corpus.bzl) in its data reads that declared input: its
// folder in the runfiles; nullopt when the caller declined a corpus
// (XLA_LAYOUT_NO_CORPUS=1), so the test skips; and the missing folder's path
// when there is none, so that reading it fails. Elsewhere (`bazel run` of a
// benchmark): $HLO_CORPUS_DIR, else ../shared/hlo-corpus beside the
// workspace, when either is set; nullopt otherwise.
std::optional<std::string> HloCorpusDir();

// Every `*.hlo` below `dir`, subfolders included, sorted by relative path,
// each read with the project's bounded reader. A folder that cannot be read
// (or does not exist), or holds no module, is an error.
absl::StatusOr<std::vector<CorpusFile>> ReadHloCorpus(const std::string& dir);

// How the corpus file is meant to be parsed: the framework dumps under real/
// come from older XLA versions, so they are read with accept_old_dumps.
HloParseOptions CorpusParseOptions(const CorpusFile& file);

}  // namespace xla_layout

#endif  // HLO_HLO_CORPUS_H_
