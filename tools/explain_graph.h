// `hlo-layout explain --graph=OUT.dot|OUT.svg|OUT.html`: the rewritten
// module as a picture of its layouts. Instructions are nodes labelled with
// their shape and layout, one fill colour per distinct layout; inserted
// copies are red, with their bytes; pinned values (entry parameters under a
// header, infeed, custom-call results) are double-bordered and say so; each
// computation (fusions and called computations too) is a cluster.
//
// Over kMaxGraphNodes instructions only the copies, the instructions their
// chains name and one operand of each are drawn, and the graph's label says
// so. `.svg` runs Graphviz's `dot` (Debian's graphviz package) and fails,
// saying so, when it is missing; `.html` is one self-contained page: the
// SVG, then the table of copies with their chains, each row linking to its
// copy's node (a click highlights it).
#ifndef TOOLS_EXPLAIN_GRAPH_H_
#define TOOLS_EXPLAIN_GRAPH_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tools/explain_command.h"

namespace xla_layout::cli {

inline constexpr int kMaxGraphNodes = 2000;

// The Graphviz text of `report`'s rewritten module. Each node has the id
// GraphNodeId gives its instruction, so the SVG's <g> elements carry it.
std::string ExplainDot(const ExplainReport& report);

// `dot` run on `dot_text`: the SVG. Fails, naming the package, when `dot`
// is not on the PATH, and with its message when it refuses the text.
absl::StatusOr<std::string> RunGraphviz(const std::string& dot_text);

// The self-contained page for `report`, around `svg`.
std::string ExplainHtml(const ExplainReport& report, const std::string& svg);

// Writes the picture to `path` (safely: temporary file, then rename), the
// format by its extension (.dot, .svg, .html).
absl::Status WriteExplainGraph(const ExplainReport& report, const std::string& path);

}  // namespace xla_layout::cli

#endif  // TOOLS_EXPLAIN_GRAPH_H_
