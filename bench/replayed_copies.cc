#include "bench/replayed_copies.h"

#include <map>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hlo/hlo_corpus.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_verifier.h"
#include "passes/layout_assignment/layout_assignment.h"
#include "passes/layout_assignment/target_config.h"

namespace xla_layout::bench {
namespace {

// Appends the copies one run of the pass inserted into `module`.
void AddInsertedCopies(const HloModule& module, const LayoutAssignmentStats& stats,
                       const std::string& where,
                       std::map<std::pair<std::string, std::string>, size_t>& index,
                       ReplayedCopies& out) {
  for (const LayoutAssignmentStats::Copy& c : stats.copies) {
    const HloComputation* computation = module.FindComputation(c.computation);
    const HloInstruction* copy =
        computation == nullptr ? nullptr : computation->FindInstruction(c.name);
    if (copy == nullptr || copy->operands().size() != 1) continue;
    const Shape& src = copy->operand(0)->shape();
    const Shape& dst = copy->shape();
    if (!src.IsArray() || !dst.IsArray()) continue;
    auto key = std::make_pair(src.ToString(), dst.ToString());
    auto [it, added] = index.emplace(key, out.copies.size());
    if (added) out.copies.push_back(ReplayedCopy{src, dst, 0, absl::StrCat(where, ": ", c.name)});
    ++out.copies[it->second].count;
  }
}

}  // namespace

ReplayedCopies CollectReplayedCopies(const std::vector<std::string>& folders) {
  ReplayedCopies out;
  std::map<std::pair<std::string, std::string>, size_t> index;
  for (const std::string& folder : folders) {
    absl::StatusOr<std::vector<CorpusFile>> files = ReadHloCorpus(folder);
    if (!files.ok()) {
      out.unreadable.push_back(folder);
      continue;
    }
    for (const CorpusFile& file : *files) {
      for (const std::string& target : TargetConfig::BuiltinNames()) {
        absl::StatusOr<std::unique_ptr<HloModule>> module =
            ParseHloModule(file.text, file.relative, nullptr, CorpusParseOptions(file));
        absl::StatusOr<TargetConfig> config = TargetConfig::Builtin(target);
        if (!module.ok() || !config.ok() || !VerifyModule(**module).ok()) {
          ++out.modules_skipped;
          continue;
        }
        LayoutAssignment pass(*std::move(config));
        if (!pass.Run(**module).ok()) {
          ++out.modules_skipped;
          continue;
        }
        ++out.modules;
        AddInsertedCopies(**module, pass.stats(), absl::StrCat(file.relative, " on ", target),
                          index, out);
      }
    }
  }
  return out;
}

}  // namespace xla_layout::bench
