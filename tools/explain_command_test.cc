// `hlo-layout explain` on every module of the corpus (real/ included), the
// goldens and the examples, on every built-in target: every copy has a
// chain of at least two links, each link is true of the rewritten module
// (printed and parsed again), a header pin is the header's layout, and each
// advice, written into the header of the module as read, gives exactly the
// copies and copy_bytes_per_run (of --stats=json) it promised.
#include "tools/explain_command.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/hlo_corpus.h"
#include "hlo/hlo_verifier.h"
#include "passes/layout_assignment/constraints.h"
#include "passes/layout_assignment/target_config.h"
#include "xla_layout/json.h"
#include "xla_layout/layout_util.h"
#include "xla_layout/shape_text.h"

namespace xla_layout::cli {
namespace {

using Link = LayoutExplanation::Link;
using layout_assignment::LaidOutLeaves;

HloParseOptions OldDumpsAccepted() {
  HloParseOptions options;
  options.accept_old_dumps = true;
  return options;
}

// The module `text` parses and verifies to, or null.
std::unique_ptr<HloModule> Read(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> m =
      ParseHloModule(text, "t.hlo", nullptr, OldDumpsAccepted());
  if (!m.ok() || !VerifyModule(**m).ok()) return nullptr;
  return *std::move(m);
}

PassPipeline Pipeline(const std::string& target) {
  absl::StatusOr<PassPipeline> p =
      PassPipeline::Parse(absl::StrCat("layout-assignment{target=", target, "}"));
  EXPECT_TRUE(p.ok()) << p.status();
  return *std::move(p);
}

// Empty when `layout` is the layout of leaf `leaf` of `shape`; else why not.
std::string Holds(Shape shape, int leaf, const std::string& layout) {
  absl::StatusOr<Layout> parsed = ParseLayout(layout);
  if (!parsed.ok()) return absl::StrCat("layout ", layout, " does not parse");
  layout_assignment::LeafShapes ls = LaidOutLeaves(shape);
  if (leaf < 0 || leaf >= static_cast<int>(ls.size())) return absl::StrCat("no leaf ", leaf);
  if (!ls[leaf]->has_layout() || !SamePhysicalLayout(*ls[leaf], *parsed, ls[leaf]->layout())) {
    return absl::StrCat("has ", PrintShape(*ls[leaf]), ", not ", layout);
  }
  return "";
}

// Empty when `link` is true of `module`; else why not.
std::string Check(const Link& link, const HloModule& module,
                  const absl::flat_hash_map<std::string, const HloInstruction*>& by_name) {
  auto it = by_name.find(link.instruction);
  if (it == by_name.end()) return "no such instruction";
  const HloInstruction* i = it->second;
  if (link.operand >= i->operand_count()) return "no such operand";
  if (link.operand >= 0) i = i->operand(link.operand);
  std::string problem = Holds(i->shape(), link.leaf, link.layout);
  const auto& header = module.entry_computation_layout();
  if (problem.empty() && link.parameter >= 0) {
    problem = header && link.parameter < static_cast<int>(header->parameters.size())
                  ? Holds(header->parameters[link.parameter], link.leaf, link.layout)
                  : "no header parameter";
  }
  if (problem.empty() && link.result_leaf >= 0) {
    problem = header ? Holds(header->result, link.result_leaf, link.layout) : "no header";
  }
  return problem;
}

// Checks every chain and value of `report` against its rewritten module,
// printed and parsed again; returns the links checked.
int CheckLinks(const ExplainReport& report) {
  std::unique_ptr<HloModule> printed = Read(report.rewritten->ToString());
  EXPECT_NE(printed, nullptr);
  if (printed == nullptr) return 0;
  absl::flat_hash_map<std::string, const HloInstruction*> by_name;
  for (HloComputation* c : printed->computations()) {
    for (HloInstruction* i : c->instruction_range()) by_name[i->name()] = i;
  }
  EXPECT_EQ(report.explanation.copies.size(), report.stats.copies.size());
  int links = 0;
  auto check = [&](const Link& link, const std::string& what) {
    ++links;
    std::string problem = Check(link, *printed, by_name);
    EXPECT_EQ(problem, "") << what << ": " << link.instruction << " " << link.layout << " ("
                           << link.rule << ")";
  };
  for (const LayoutExplanation::CopyChain& chain : report.explanation.copies) {
    const std::string copy = report.stats.copies[chain.copy].name;
    EXPECT_GE(chain.chain.size(), 2u) << copy;
    for (const Link& link : chain.chain) check(link, copy);
  }
  for (const Link& value : report.explanation.values) check(value, "values");
  return links;
}

// Applies `advice` to the module as read and runs a pipeline of its own:
// the copies and copy_bytes_per_run must be the promised ones.
void CheckAdvice(const std::string& text, const std::string& target,
                 const ExplainAdvice& advice) {
  SCOPED_TRACE(absl::StrCat(advice.result ? "result" : "parameter ", advice.index, " leaf ",
                            advice.leaf, " ", advice.suggested));
  EXPECT_LT(advice.bytes_after, advice.bytes_before);
  std::unique_ptr<HloModule> m = Read(text);
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(ApplyAdvice(advice, *m).ok());
  PassPipeline pipeline = Pipeline(target);
  ASSERT_TRUE(pipeline.Run(*m).ok());
  const OrderedJson stats = OrderedJson::parse(pipeline.passes().back()->StatsReport(true));
  EXPECT_EQ(stats["copies_inserted"].get<int64_t>(), advice.copies_after);
  EXPECT_EQ(stats["copy_bytes_per_run"].get<int64_t>(), advice.bytes_after);
}

// Every module below each folder, on every target; under a sanitizer
// (XLA_LAYOUT_SANITIZER) on one target each, the next module on the next,
// which still reaches every target in a fifth of the time.
TEST(ExplainCommandTest, ChainsAreTrueAndAdviceKeepsItsPromiseOnEveryModule) {
  std::optional<std::string> corpus = HloCorpusDir();
  if (!corpus) GTEST_SKIP() << "no HLO corpus (XLA_LAYOUT_NO_CORPUS)";
  const char* sanitizer = std::getenv("XLA_LAYOUT_SANITIZER");
  const bool every_target = sanitizer == nullptr || *sanitizer == '\0';
  const std::vector<std::string> targets = TargetConfig::BuiltinNames();
  int modules = 0, copies = 0, links = 0, advice = 0;
  for (const std::string& dir : {*corpus, std::string("tests/golden"), std::string("examples")}) {
    absl::StatusOr<std::vector<CorpusFile>> files = ReadHloCorpus(dir);
    ASSERT_TRUE(files.ok()) << files.status();
    for (const CorpusFile& file : *files) {
      if (Read(file.text) == nullptr) continue;  // the error goldens
      ++modules;
      for (size_t t = 0; t < targets.size(); ++t) {
        if (!every_target && t != modules % targets.size()) continue;
        const std::string& target = targets[t];
        SCOPED_TRACE(absl::StrCat(file.path, " on ", target));
        PassPipeline pipeline = Pipeline(target);
        absl::StatusOr<ExplainReport> report =
            ExplainModule(Read(file.text), pipeline, /*values=*/true);
        if (!report.ok()) continue;  // the pass refuses it (goldens of errors)
        copies += report->stats.copies.size();
        links += CheckLinks(*report);
        for (const ExplainAdvice& a : report->advice) {
          CheckAdvice(file.text, target, a);
          ++advice;
        }
      }
    }
  }
  // The corpus reaches the rules: MobileNet alone copies hundreds of values
  // on tpu, and its weights are pinned. One target per module (MobileNet
  // not on tpu) finds about a tenth of the copies.
  EXPECT_GT(modules, 40);
  EXPECT_GT(copies, every_target ? 300 : 30);
  EXPECT_GT(links, every_target ? 1000 : 300);
  EXPECT_GT(advice, every_target ? 60 : 30);
  std::cout << modules << " modules, " << copies << " copies, " << links << " links, " << advice
            << " advice checked\n";
}

}  // namespace
}  // namespace xla_layout::cli
