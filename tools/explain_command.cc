#include "tools/explain_command.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hlo/hlo_parser.h"
#include "passes/layout_assignment/constraints.h"
#include "passes/layout_assignment/layout_assignment.h"
#include "tools/explain_graph.h"
#include "tools/module_args.h"
#include "xla_layout/json.h"
#include "xla_layout/shape_text.h"

namespace xla_layout::cli {
namespace {

using Link = LayoutExplanation::Link;

LayoutAssignment* LastLayoutAssignment(PassPipeline& pipeline) {
  LayoutAssignment* last = nullptr;
  for (const auto& pass : pipeline.passes()) {
    if (auto* la = dynamic_cast<LayoutAssignment*>(pass.get())) last = la;
  }
  return last;
}

// The array leaf `leaf` of parameter `index` (or of the result) in `header`.
Shape* HeaderLeaf(ComputationLayout& header, bool result, int index, int leaf) {
  if (!result && (index < 0 || index >= static_cast<int>(header.parameters.size()))) {
    return nullptr;
  }
  layout_assignment::LeafShapes ls =
      layout_assignment::LaidOutLeaves(result ? header.result : header.parameters[index]);
  return leaf >= 0 && leaf < static_cast<int>(ls.size()) ? ls[leaf] : nullptr;
}

std::string WithoutLayout(Shape shape) {
  shape.clear_layout();
  return PrintShape(shape);
}

// The pipeline on a fresh parse of `text` with `advice` applied: the copies
// and bytes it leaves.
absl::StatusOr<std::pair<int64_t, int64_t>> Measure(const std::string& text,
                                                    const ExplainAdvice& advice,
                                                    PassPipeline& pipeline,
                                                    const LayoutAssignment& la) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text, "<explain>");
  if (!module.ok()) return module.status();
  absl::Status applied = ApplyAdvice(advice, **module);
  if (!applied.ok()) return applied;
  PipelineOptions options;
  options.collect_stats = false;
  absl::StatusOr<bool> ran = pipeline.Run(**module, options);
  if (!ran.ok()) return ran.status();
  return std::make_pair(static_cast<int64_t>(la.stats().copies.size()), la.stats().CopyBytes());
}

// An entry parameter leaf or result leaf whose header pin a chain reaches,
// the layouts to try for it and the bytes of the copies it causes.
struct Candidate {
  ExplainAdvice advice;
  std::vector<std::string> layouts;
  int64_t bytes = 0;
};

// The pins the chains reach, each with the layouts of the copies they cause
// (a copy of a value shaped as the pinned leaf: its target for a parameter,
// its source for the result).
std::vector<Candidate> Candidates(const ExplainReport& report, const ComputationLayout& header) {
  absl::flat_hash_map<std::string, const HloInstruction*> by_name;
  for (HloComputation* c : report.rewritten->computations()) {
    for (HloInstruction* i : c->instruction_range()) by_name[i->name()] = i;
  }
  std::map<std::tuple<bool, int, int>, Candidate> found;
  for (const LayoutExplanation::CopyChain& chain : report.explanation.copies) {
    const LayoutAssignmentStats::Copy& copy = report.stats.copies[chain.copy];
    std::vector<std::tuple<bool, int, int>> counted;
    for (const Link& link : chain.chain) {
      if (link.parameter < 0 && link.result_leaf < 0) continue;
      const bool result = link.result_leaf >= 0;
      const std::tuple<bool, int, int> key(result, result ? 0 : link.parameter,
                                           result ? link.result_leaf : link.leaf);
      ComputationLayout edited = header;
      const Shape* pinned = HeaderLeaf(edited, result, std::get<1>(key), std::get<2>(key));
      auto it = by_name.find(copy.name);
      if (pinned == nullptr || !pinned->has_layout() || it == by_name.end()) continue;
      Candidate& c = found[key];
      c.advice.result = result;
      c.advice.index = std::get<1>(key);
      c.advice.leaf = std::get<2>(key);
      c.advice.shape = WithoutLayout(*pinned);
      c.advice.current = PrintLayout(pinned->layout());
      if (std::find(counted.begin(), counted.end(), key) == counted.end()) {
        counted.push_back(key);
        c.bytes = SaturatingAdd(c.bytes, copy.bytes);
      }
      const Shape& value = it->second->shape();
      const std::string layout = result ? copy.from : copy.to;
      if (value.dimensions() == pinned->dimensions() &&
          value.element_type() == pinned->element_type() && layout != c.advice.current &&
          std::find(c.layouts.begin(), c.layouts.end(), layout) == c.layouts.end()) {
        c.layouts.push_back(layout);
      }
    }
  }
  std::vector<Candidate> out;
  for (auto& [key, c] : found) out.push_back(std::move(c));
  return out;
}

// Tries each candidate layout (at most kTries per pin, of the `max_pins`
// pins whose copies move most bytes, 0 for all; `untried` counts the others) and
// keeps, per pin, the one that leaves fewest copy bytes, when fewer than now.
std::vector<ExplainAdvice> FindAdvice(const ExplainReport& report, const std::string& text,
                                      const ComputationLayout& header, PassPipeline& pipeline,
                                      const LayoutAssignment& la, size_t max_pins,
                                      int* untried) {
  constexpr size_t kTries = 4;
  const int64_t copies = static_cast<int64_t>(report.stats.copies.size());
  const int64_t bytes = report.stats.CopyBytes();
  std::vector<ExplainAdvice> advice;
  std::vector<Candidate> candidates = Candidates(report, header);
  // The pins whose copies move most bytes are tried first, at most max_pins.
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.bytes > b.bytes; });
  if (max_pins > 0 && candidates.size() > max_pins) {
    *untried = static_cast<int>(candidates.size() - max_pins);
    candidates.resize(max_pins);
  }
  for (Candidate& c : candidates) {
    std::optional<ExplainAdvice> best;
    for (size_t k = 0; k < c.layouts.size() && k < kTries; ++k) {
      ExplainAdvice a = c.advice;
      a.suggested = c.layouts[k];
      absl::StatusOr<std::pair<int64_t, int64_t>> after = Measure(text, a, pipeline, la);
      if (!after.ok()) continue;
      std::tie(a.copies_after, a.bytes_after) = *after;
      if (a.bytes_after < bytes &&
          (!best || std::tie(a.bytes_after, a.copies_after) <
                        std::tie(best->bytes_after, best->copies_after))) {
        best = a;
      }
    }
    if (!best) continue;
    best->copies_before = copies;
    best->bytes_before = bytes;
    best->pinned_bytes = c.bytes;
    advice.push_back(*std::move(best));
  }
  std::stable_sort(advice.begin(), advice.end(), [](const ExplainAdvice& a, const ExplainAdvice& b) {
    return a.bytes_before - a.bytes_after > b.bytes_before - b.bytes_after;
  });
  return advice;
}


std::string CopyLine(const LayoutAssignmentStats::Copy& c, const HloModule& rewritten) {
  std::string shape;
  for (HloComputation* comp : rewritten.computations()) {
    HloInstruction* i = comp->FindInstruction(c.name);
    if (i != nullptr && i->operand_count() == 1) shape = WithoutLayout(i->operand(0)->shape());
  }
  return absl::StrCat(c.name, ": ", c.operand, " ", shape, " ", c.from, " -> ", c.to, ", ",
                      c.bytes, " bytes", c.in_loop ? " per loop iteration" : "", ", ",
                      c.kernel_class, " kernel",
                      c.seconds ? absl::StrFormat(", est. %.3g us", *c.seconds * 1e6) : "",
                      "\n");
}

std::string LinkText(const Link& link) {
  return absl::StrCat(link.instruction,
                      link.operand >= 0 ? absl::StrCat(" operand ", link.operand) : "",
                      link.leaf > 0 ? absl::StrCat(" leaf ", link.leaf) : "", " ", link.layout,
                      ": ", link.rule, link.detail.empty() ? "" : ": ", link.detail);
}

std::string PinName(const ExplainAdvice& a) {
  return absl::StrCat(a.result ? "result" : absl::StrCat("parameter ", a.index),
                      a.leaf > 0 ? absl::StrCat(" leaf ", a.leaf) : "");
}

// "1 copy", "3 copies".
std::string CopyCount(size_t n) { return absl::StrCat(n, n == 1 ? " copy" : " copies"); }

std::string AdviceText(const ExplainAdvice& a) {
  return absl::StrCat(
      "advice: ", PinName(a), " (", a.result ? "" : absl::StrCat(a.name, ", "), a.shape,
      ") pinned ", a.current, " is copied every run (", a.pinned_bytes, " bytes).\n",
      "        With ", a.suggested, " in entry_computation_layout: ",
      CopyCount(a.copies_after), ", ", a.bytes_after, " bytes per run (was ", a.copies_before, ", ",
      a.bytes_before, ").\n");
}

OrderedJson LinkJson(const Link& link) {
  OrderedJson out = {{"instruction", link.instruction}};
  if (link.operand >= 0) out["operand"] = link.operand;
  out["leaf"] = link.leaf;
  out["layout"] = link.layout;
  out["rule"] = link.rule;
  out["detail"] = link.detail;
  if (link.parameter >= 0) out["parameter"] = link.parameter;
  if (link.result_leaf >= 0) out["result_leaf"] = link.result_leaf;
  return out;
}

OrderedJson AdviceJson(const ExplainAdvice& a) {
  OrderedJson out = OrderedJson::object();
  if (a.result) {
    out["result"] = a.leaf;
  } else {
    out["parameter"] = a.index;
    out["leaf"] = a.leaf;
    out["name"] = a.name;
  }
  out["shape"] = a.shape;
  out["current"] = a.current;
  out["suggested"] = a.suggested;
  out["copies_before"] = a.copies_before;
  out["copies_after"] = a.copies_after;
  out["bytes_before"] = a.bytes_before;
  out["bytes_after"] = a.bytes_after;
  return out;
}

// Each copy with its chain, in the order the pass made them.
std::vector<const LayoutExplanation::CopyChain*> ChainsByCopy(const ExplainReport& report) {
  std::vector<const LayoutExplanation::CopyChain*> chains(report.stats.copies.size(), nullptr);
  for (const LayoutExplanation::CopyChain& c : report.explanation.copies) {
    if (c.copy < chains.size() && chains[c.copy] == nullptr) chains[c.copy] = &c;
  }
  return chains;
}

}  // namespace

absl::Status ApplyAdvice(const ExplainAdvice& advice, HloModule& module) {
  if (!module.entry_computation_layout()) {
    return absl::FailedPreconditionError("the module has no entry_computation_layout");
  }
  ComputationLayout header = *module.entry_computation_layout();
  Shape* leaf = HeaderLeaf(header, advice.result, advice.index, advice.leaf);
  if (leaf == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "entry_computation_layout has no ", advice.result ? "result" : "parameter ",
        advice.result ? "" : absl::StrCat(advice.index), " leaf ", advice.leaf));
  }
  absl::StatusOr<Layout> layout = ParseLayout(advice.suggested);
  if (!layout.ok()) return layout.status();
  leaf->set_layout(*layout);
  module.set_entry_computation_layout(std::move(header));
  return absl::OkStatus();
}

absl::StatusOr<ExplainReport> ExplainModule(std::unique_ptr<HloModule> module,
                                            PassPipeline& pipeline, bool values,
                                            size_t advice_pins) {
  LayoutAssignment* la = LastLayoutAssignment(pipeline);
  if (la == nullptr) {
    return absl::InvalidArgumentError(
        "explain explains layout-assignment: add it to --passes");
  }
  // The module as read, for the runs with an edited header.
  const std::string text = module->ToString();
  const std::optional<ComputationLayout> header = module->entry_computation_layout();
  PipelineOptions options;
  options.collect_stats = false;
  la->set_explain(true, values);
  absl::StatusOr<bool> ran = pipeline.Run(*module, options);
  la->set_explain(false);
  if (!ran.ok()) return ran.status();
  ExplainReport report;
  report.advice_pins = advice_pins;
  report.stats = la->stats();
  report.explanation = la->explanation();
  report.rewritten = std::move(module);
  // Parameter names, for the advice.
  std::vector<HloInstruction*> params = report.rewritten->entry()->parameters();
  if (header) {
    report.advice =
        FindAdvice(report, text, *header, pipeline, *la, advice_pins, &report.advice_untried);
  }
  for (ExplainAdvice& a : report.advice) {
    const bool named = !a.result && a.index < static_cast<int>(params.size()) &&
                       params[a.index] != nullptr;
    a.name = a.result ? "result" : named ? params[a.index]->name() : "?";
  }
  return report;
}

std::string ExplainText(const ExplainReport& report, bool values) {
  const LayoutAssignmentStats& stats = report.stats;
  std::string out = absl::StrCat("layout-assignment on ", stats.target, ": ",
                                 CopyCount(stats.copies.size()), ", ", stats.CopyBytes(),
                                 " bytes per run\n");
  std::vector<const LayoutExplanation::CopyChain*> chains = ChainsByCopy(report);
  for (size_t k = 0; k < stats.copies.size(); ++k) {
    absl::StrAppend(&out, CopyLine(stats.copies[k], *report.rewritten));
    if (chains[k] == nullptr) continue;
    for (size_t l = 0; l < chains[k]->chain.size(); ++l) {
      absl::StrAppend(&out, l == 0 ? "  needed by  " : "  because    ",
                      LinkText(chains[k]->chain[l]), "\n");
    }
  }
  for (const ExplainAdvice& a : report.advice) absl::StrAppend(&out, AdviceText(a));
  if (report.advice.empty()) {
    absl::StrAppend(&out, "advice: no entry layout change removes copy bytes\n");
  }
  if (report.advice_untried > 0) {
    absl::StrAppend(&out, "advice: ", report.advice_untried,
                    " more pinned values cause copies; not tried (the ", report.advice_pins,
                    " whose copies move most bytes are; --advice-pins=all tries every one)\n");
  }
  if (values) {
    absl::StrAppend(&out, "values off the target's default: ",
                    report.explanation.values.size(), "\n");
    for (const Link& v : report.explanation.values) {
      absl::StrAppend(&out, "  ", LinkText(v), "\n");
    }
  }
  return out;
}

std::string ExplainJson(const ExplainReport& report, bool values) {
  const LayoutAssignmentStats& stats = report.stats;
  std::vector<const LayoutExplanation::CopyChain*> chains = ChainsByCopy(report);
  OrderedJson copies = OrderedJson::array();
  for (size_t k = 0; k < stats.copies.size(); ++k) {
    const LayoutAssignmentStats::Copy& c = stats.copies[k];
    OrderedJson chain = OrderedJson::array();
    if (chains[k] != nullptr) {
      for (const Link& link : chains[k]->chain) chain.push_back(LinkJson(link));
    }
    copies.push_back({{"name", c.name},
                      {"computation", c.computation},
                      {"value", c.operand},
                      {"from", c.from},
                      {"to", c.to},
                      {"bytes", c.bytes},
                      {"in_loop", c.in_loop},
                      {"kernel_class", c.kernel_class},
                      {"estimated_seconds",
                       c.seconds ? OrderedJson(RoundToSignificantDigits(*c.seconds, 9))
                                 : OrderedJson(nullptr)},
                      {"chain", std::move(chain)}});
  }
  OrderedJson advice = OrderedJson::array();
  for (const ExplainAdvice& a : report.advice) advice.push_back(AdviceJson(a));
  OrderedJson out = {{"target", stats.target},
                     {"copies_inserted", stats.copies.size()},
                     {"copy_bytes_per_run", stats.CopyBytes()},
                     {"copies", std::move(copies)},
                     {"advice", std::move(advice)},
                     {"advice_not_tried", report.advice_untried}};
  if (values) {
    OrderedJson list = OrderedJson::array();
    for (const Link& v : report.explanation.values) list.push_back(LinkJson(v));
    out["values"] = std::move(list);
  }
  return JsonLine(out);
}

namespace {

// --advice-pins=N|all: how many pins to try for advice (0 for all).
absl::StatusOr<size_t> AdvicePins(const Args& args) {
  const std::optional<std::string> value = args.Value("advice-pins");
  if (!args.Has("advice-pins")) return kDefaultAdvicePins;
  if (value == "all") return 0;
  size_t n = 0;
  if (!value || !absl::SimpleAtoi(*value, &n) || n == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--advice-pins takes a positive number or 'all', not '", value.value_or(""), "'"));
  }
  return n;
}

}  // namespace

int RunExplainCommand(const Args& args) {
  absl::Status known = args.CheckKnown({"passes", "target", "target-file", "json", "all",
                                        "graph", "advice-pins", "verbose", "accept-old-dumps",
                                        "input-format", "help"});
  if (!known.ok()) return UsageError(known.message());
  if (args.positional.size() > 1) return UsageError("explain takes one HLO file (or -)");
  if (!args.Has("passes")) return UsageError("explain needs --passes=...,layout-assignment");
  absl::StatusOr<bool> json = args.Bool("json");
  if (!json.ok()) return UsageError(json.status().message());
  absl::StatusOr<bool> all = args.Bool("all");
  if (!all.ok()) return UsageError(all.status().message());
  absl::StatusOr<size_t> advice_pins = AdvicePins(args);
  if (!advice_pins.ok()) return UsageError(advice_pins.status().message());
  // --graph may be repeated: one picture per file.
  std::vector<std::string> graphs;
  for (const auto& [flag, value] : args.flags) {
    if (flag != "graph") continue;
    if (!value || !(absl::EndsWith(*value, ".dot") || absl::EndsWith(*value, ".svg") ||
                    absl::EndsWith(*value, ".html"))) {
      return UsageError("--graph needs a file ending in .dot, .svg or .html");
    }
    graphs.push_back(*value);
  }
  absl::StatusOr<ModuleReadOptions> read = ModuleReadOptionsFrom(args);
  if (!read.ok()) return UsageError(read.status().message());
  CommandError error;
  absl::StatusOr<std::optional<PassPipeline>> pipeline = PipelineFromArgs(args, &error);
  if (!pipeline.ok()) {
    std::cerr << error.message;
    return error.exit_code;
  }
  if (LastLayoutAssignment(**pipeline) == nullptr) {
    return UsageError("explain explains layout-assignment: add it to --passes");
  }
  const std::string path = args.positional.empty() ? "-" : args.positional[0];
  absl::StatusOr<std::unique_ptr<HloModule>> module = ReadVerifiedModule(path, *read, &error);
  if (!module.ok()) {
    std::cerr << error.message;
    return error.exit_code;
  }
  absl::StatusOr<ExplainReport> report = ExplainModule(*std::move(module), **pipeline, *all, *advice_pins);
  if (!report.ok()) {
    std::cerr << (path == "-" ? "<stdin>" : path) << ": error: " << report.status().message()
              << "\n";
    return kExitBadInput;
  }
  for (const std::string& graph : graphs) {
    absl::Status written = WriteExplainGraph(*report, graph);
    if (!written.ok()) return InputError(written.message());
  }
  std::cout << (*json ? ExplainJson(*report, *all) : ExplainText(*report, *all));
  return kExitOk;
}

}  // namespace xla_layout::cli
