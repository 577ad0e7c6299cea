#include "tools/explain_graph.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "xla_layout/file_io.h"
#include "xla_layout/shape_text.h"

extern char** environ;

namespace xla_layout::cli {
namespace {

using Link = LayoutExplanation::Link;

// Fill colours for layouts, in order of first appearance (then again).
constexpr const char* kPalette[] = {"#cfe2f3", "#d9ead3", "#fff2cc", "#ead1dc", "#d0e0e3",
                                    "#fce5cd", "#d9d2e9", "#e6f4ea", "#f4cccc", "#c9daf8",
                                    "#b6d7a8", "#ffe599"};

std::string DotQuote(absl::string_view text) {
  return absl::StrCat("\"", absl::StrReplaceAll(text, {{"\\", "\\\\"}, {"\"", "\\\""}, {"\n", "\\n"}}), "\"");
}

std::string HtmlEscape(absl::string_view text) {
  return absl::StrReplaceAll(
      text, {{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}, {"\"", "&quot;"}});
}

// The instructions drawn, each with its node id, and whether the module
// was cut to the copies and their chains.
struct GraphNodes {
  absl::flat_hash_map<const HloInstruction*, std::string> id;
  absl::flat_hash_map<std::string, std::string> id_by_name;  // first of a name
  int total = 0;
  bool reduced = false;
};

GraphNodes ChooseNodes(const ExplainReport& report) {
  GraphNodes nodes;
  absl::flat_hash_map<std::string, const HloInstruction*> by_name;
  std::vector<const HloInstruction*> all;
  for (HloComputation* c : report.rewritten->computations()) {
    for (HloInstruction* i : c->instruction_range()) {
      all.push_back(i);
      by_name.try_emplace(i->name(), i);
    }
  }
  nodes.total = static_cast<int>(all.size());
  absl::flat_hash_set<const HloInstruction*> keep;
  nodes.reduced = nodes.total > kMaxGraphNodes;
  if (nodes.reduced) {
    auto add = [&](const std::string& name) {
      auto it = by_name.find(name);
      if (it == by_name.end()) return;
      keep.insert(it->second);
      if (it->second->operand_count() > 0) keep.insert(it->second->operand(0));
    };
    for (const LayoutAssignmentStats::Copy& c : report.stats.copies) add(c.name);
    for (const LayoutExplanation::CopyChain& chain : report.explanation.copies) {
      for (const Link& link : chain.chain) add(link.instruction);
    }
  }
  for (const HloInstruction* i : all) {
    if (nodes.reduced && !keep.contains(i)) continue;
    std::string id = absl::StrCat("n", nodes.id.size());
    nodes.id_by_name.try_emplace(i->name(), id);
    nodes.id[i] = std::move(id);
  }
  return nodes;
}

// Whether the value's layout is fixed from outside: an entry parameter the
// header pins, an infeed, a custom-call result.
bool Pinned(const HloInstruction& i, const HloModule& module) {
  if (i.opcode() == HloOpcode::kInfeed || i.opcode() == HloOpcode::kCustomCall) return true;
  return i.opcode() == HloOpcode::kParameter && i.parent() == module.entry() &&
         module.entry_computation_layout().has_value();
}

std::string LayoutKey(const Shape& shape) {
  if (shape.IsArray() && shape.has_layout()) return PrintLayout(shape.layout());
  return shape.IsTuple() ? "(tuple)" : "";
}

std::string NodeLine(const HloInstruction& i, const std::string& id, const ExplainReport& report,
                     absl::flat_hash_map<std::string, int>& colours,
                     const absl::flat_hash_map<std::string, int64_t>& copy_bytes) {
  std::string label = absl::StrCat(i.name(), "\n", PrintShape(i.shape()));
  std::string style;
  auto copy = copy_bytes.find(i.name());
  if (i.opcode() == HloOpcode::kCopy && copy != copy_bytes.end()) {
    absl::StrAppend(&label, "\ninserted copy: ", copy->second, " bytes");
    style = "style=filled, fillcolor=\"#ff9999\", color=red, penwidth=2";
  } else {
    const std::string key = LayoutKey(i.shape());
    auto [it, added] = colours.try_emplace(key, static_cast<int>(colours.size()));
    style = absl::StrCat("style=filled, fillcolor=\"",
                         kPalette[it->second % (sizeof(kPalette) / sizeof(kPalette[0]))], "\"");
  }
  if (Pinned(i, *report.rewritten)) {
    absl::StrAppend(&label, "\npinned");
    absl::StrAppend(&style, ", peripheries=2");
  }
  return absl::StrCat("    ", id, " [id=", DotQuote(id), ", label=", DotQuote(label), ", ", style,
                      "];\n");
}

}  // namespace

std::string ExplainDot(const ExplainReport& report) {
  const GraphNodes nodes = ChooseNodes(report);
  absl::flat_hash_map<std::string, int64_t> copy_bytes;
  for (const LayoutAssignmentStats::Copy& c : report.stats.copies) copy_bytes[c.name] = c.bytes;
  std::string label = absl::StrCat(report.rewritten->name(), " on ", report.stats.target, ": ",
                                   report.stats.copies.size(), " copies, ",
                                   report.stats.CopyBytes(), " bytes per run");
  if (nodes.reduced) {
    absl::StrAppend(&label, "\nover ", kMaxGraphNodes, " instructions (", nodes.total,
                    "): only the copies, their chains and one operand each (", nodes.id.size(),
                    ")");
  }
  std::string out = absl::StrCat("digraph explain {\n  label=", DotQuote(label),
                                 ";\n  labelloc=t;\n  node [shape=box, fontsize=10];\n");
  absl::flat_hash_map<std::string, int> colours;
  int cluster = 0;
  for (HloComputation* c : report.rewritten->computations()) {
    std::string body;
    for (HloInstruction* i : c->instruction_range()) {
      auto it = nodes.id.find(i);
      if (it != nodes.id.end()) absl::StrAppend(&body, NodeLine(*i, it->second, report, colours, copy_bytes));
    }
    if (body.empty()) continue;
    absl::StrAppend(&out, "  subgraph cluster_", cluster++, " {\n    label=", DotQuote(c->name()),
                    ";\n", body, "  }\n");
  }
  for (HloComputation* c : report.rewritten->computations()) {
    for (HloInstruction* i : c->instruction_range()) {
      auto to = nodes.id.find(i);
      if (to == nodes.id.end()) continue;
      for (const HloInstruction* operand : i->operands()) {
        auto from = nodes.id.find(operand);
        if (from != nodes.id.end()) {
          absl::StrAppend(&out, "  ", from->second, " -> ", to->second, ";\n");
        }
      }
    }
  }
  absl::StrAppend(&out, "}\n");
  return out;
}

namespace {

// A temporary file in $TMPDIR (or /tmp) holding `contents`; empty on error.
std::string TempFile(const std::string& contents) {
  const char* dir = std::getenv("TMPDIR");
  std::string path = absl::StrCat(dir != nullptr && *dir ? dir : "/tmp", "/explain-XXXXXX");
  const int fd = mkstemp(path.data());
  if (fd < 0) return "";
  size_t done = 0;
  while (done < contents.size()) {
    const ssize_t n = write(fd, contents.data() + done, contents.size() - done);
    if (n <= 0 && errno != EINTR) break;
    if (n > 0) done += static_cast<size_t>(n);
  }
  close(fd);
  if (done != contents.size()) {
    unlink(path.c_str());
    return "";
  }
  return path;
}

}  // namespace

absl::StatusOr<std::string> RunGraphviz(const std::string& dot_text) {
  const std::string in = TempFile(dot_text);
  const std::string out = TempFile("");
  auto cleanup = [&] {
    if (!in.empty()) unlink(in.c_str());
    if (!out.empty()) unlink(out.c_str());
  };
  if (in.empty() || out.empty()) {
    cleanup();
    return absl::InternalError(absl::StrCat("cannot write a temporary file: ", std::strerror(errno)));
  }
  std::string out_flag = absl::StrCat("-o", out);
  char* argv[] = {const_cast<char*>("dot"), const_cast<char*>("-Tsvg"), out_flag.data(),
                  const_cast<char*>(in.c_str()), nullptr};
  pid_t pid;
  const int spawned = posix_spawnp(&pid, "dot", nullptr, nullptr, argv, environ);
  if (spawned != 0) {
    cleanup();
    return absl::FailedPreconditionError(absl::StrCat(
        "an .svg or .html graph needs Graphviz's 'dot', which cannot be run (",
        std::strerror(spawned),
        "): install Debian's graphviz package (scripts/install_deps.sh does), or write "
        "--graph=OUT.dot"));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  absl::StatusOr<std::string> svg = ReadFileBounded(out, "SVG from dot");
  cleanup();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return absl::InternalError("Graphviz's dot refused the graph (see its message above)");
  }
  return svg;
}

std::string ExplainHtml(const ExplainReport& report, const std::string& svg) {
  const GraphNodes nodes = ChooseNodes(report);
  // The SVG element only: the XML prolog and doctype may not stand in HTML.
  const size_t start = svg.find("<svg");
  std::string out = absl::StrCat(
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>explain: ",
      HtmlEscape(report.rewritten->name()), "</title>\n<style>\n"
      "body { font-family: sans-serif; } td, th { border: 1px solid #ccc; padding: 4px; "
      "vertical-align: top; }\ntable { border-collapse: collapse; } tr.copy { cursor: pointer; }\n"
      "tr.hl { background: #ffd; } g.hl polygon, g.hl ellipse { stroke: #f00; stroke-width: 5; }\n"
      "</style></head><body>\n<h1>", HtmlEscape(report.rewritten->name()), " on ",
      HtmlEscape(report.stats.target), ": ", report.stats.copies.size(), " copies, ",
      report.stats.CopyBytes(), " bytes per run</h1>\n");
  if (nodes.reduced) {
    absl::StrAppend(&out, "<p>The module has ", nodes.total, " instructions, over ",
                    kMaxGraphNodes, ": only the copies, their chains and one operand each are "
                    "drawn (", nodes.id.size(), ").</p>\n");
  }
  absl::StrAppend(&out, "<div id=\"graph\">", start == std::string::npos ? "" : svg.substr(start),
                  "</div>\n<table id=\"copies\">\n<tr><th>copy</th><th>value</th><th>layouts</th>"
                  "<th>bytes</th><th>chain</th></tr>\n");
  std::vector<const LayoutExplanation::CopyChain*> chains(report.stats.copies.size(), nullptr);
  for (const LayoutExplanation::CopyChain& c : report.explanation.copies) {
    if (c.copy < chains.size()) chains[c.copy] = &c;
  }
  for (size_t k = 0; k < report.stats.copies.size(); ++k) {
    const LayoutAssignmentStats::Copy& c = report.stats.copies[k];
    auto id = nodes.id_by_name.find(c.name);
    const std::string node = id == nodes.id_by_name.end() ? "" : id->second;
    absl::StrAppend(&out, "<tr class=\"copy\" data-node=\"", node, "\"><td><a href=\"#", node,
                    "\">", HtmlEscape(c.name), "</a></td><td>", HtmlEscape(c.operand),
                    "</td><td>", HtmlEscape(c.from), " &rarr; ", HtmlEscape(c.to), "</td><td>",
                    c.bytes, "</td><td><ol>");
    for (const Link& link : chains[k] != nullptr ? chains[k]->chain : std::vector<Link>{}) {
      absl::StrAppend(&out, "<li>", HtmlEscape(link.instruction), " ", HtmlEscape(link.layout),
                      ": <b>", HtmlEscape(link.rule), "</b> ", HtmlEscape(link.detail), "</li>");
    }
    absl::StrAppend(&out, "</ol></td></tr>\n");
  }
  absl::StrAppend(&out, "</table>\n<script>\n"
                  "for (const row of document.querySelectorAll('tr.copy')) {\n"
                  "  row.addEventListener('click', () => {\n"
                  "    for (const e of document.querySelectorAll('.hl')) e.classList.remove('hl');\n"
                  "    row.classList.add('hl');\n"
                  "    const node = document.getElementById(row.dataset.node);\n"
                  "    if (node) { node.classList.add('hl'); node.scrollIntoView({block: 'center'}); }\n"
                  "  });\n}\n</script>\n</body></html>\n");
  return out;
}

absl::Status WriteExplainGraph(const ExplainReport& report, const std::string& path) {
  std::string dot = ExplainDot(report);
  if (absl::EndsWith(path, ".dot")) return WriteFileSafely(path, dot);
  const bool html = absl::EndsWith(path, ".html");
  if (!html && !absl::EndsWith(path, ".svg")) {
    return absl::InvalidArgumentError(
        absl::StrCat("--graph=", path, ": the file must end in .dot, .svg or .html"));
  }
  absl::StatusOr<std::string> svg = RunGraphviz(dot);
  if (!svg.ok()) return svg.status();
  return WriteFileSafely(path, html ? ExplainHtml(report, *svg) : *svg);
}

}  // namespace xla_layout::cli
