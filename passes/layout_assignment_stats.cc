// Text and JSON forms of LayoutAssignmentStats (hlo-layout --stats).
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "passes/layout_assignment.h"
#include "xla_layout/json.h"

namespace xla_layout {

std::string LayoutAssignmentStats::ToText() const {
  std::string out = absl::StrCat("layout-assignment statistics (target ", target, ")\n");
  int64_t copy_bytes = 0;
  std::map<std::string, int> by_reason;
  for (const Copy& c : copies) {
    copy_bytes += c.bytes;
    ++by_reason[c.reason];
  }
  absl::StrAppend(&out, "  copies inserted: ", copies.size(), " (", copy_bytes,
                  " bytes moved per run)\n");
  for (const auto& [reason, n] : by_reason) {
    absl::StrAppend(&out, "    ", n, " for ", reason, "\n");
  }
  for (const Copy& c : copies) {
    absl::StrAppend(&out, "    ", c.name, " in ", c.computation, ": ", c.operand,
                    " ", c.from, " -> ", c.to, ", ", c.bytes, " bytes",
                    c.in_loop ? " per loop iteration" : "", " (", c.reason, ")\n");
  }
  if (computations_cloned > 0) {
    absl::StrAppend(&out, "  computations cloned to give each caller its own: ",
                    computations_cloned, "\n");
  }
  absl::StrAppend(&out, "  buffers: ", data_bytes, " data bytes, ",
                  padded_bytes - data_bytes, " padding bytes added by tiles\n");
  for (const auto& [name, ratio] : tilings_refused) {
    absl::StrAppend(&out, "  tiling refused for ", name,
                    ratio < 0 ? ": its size is unbounded (dynamic dims)"
                              : absl::StrFormat(": padding would be %.2fx", ratio),
                    "\n");
  }
  absl::StrAppend(&out, "  transposes that are bitcasts: ", transposes_as_bitcast,
                  "\n  reshapes that are bitcasts: ", reshapes_as_bitcast,
                  "\n  instructions per layout:\n");
  for (const auto& [layout, n] : instructions_per_layout) {
    absl::StrAppend(&out, absl::StrFormat("    %6d  %s\n", n, layout));
  }
  return out;
}


std::string LayoutAssignmentStats::ToJson() const {
  std::vector<std::string> copy_items;
  int64_t copy_bytes = 0;
  std::map<std::string, int> by_reason;
  for (const Copy& c : copies) {
    copy_bytes += c.bytes;
    ++by_reason[c.reason];
    copy_items.push_back(absl::StrCat(
        "{\"name\":", JsonString(c.name), ",\"computation\":", JsonString(c.computation),
        ",\"operand\":", JsonString(c.operand), ",\"reason\":", JsonString(c.reason),
        ",\"from\":", JsonString(c.from), ",\"to\":", JsonString(c.to),
        ",\"bytes\":", c.bytes, ",\"in_loop\":", c.in_loop ? "true" : "false", "}"));
  }
  std::vector<std::string> reasons, refused, layouts;
  for (const auto& [r, n] : by_reason) reasons.push_back(absl::StrCat(JsonString(r), ":", n));
  for (const auto& [name, ratio] : tilings_refused) {
    refused.push_back(absl::StrCat(
        "{\"value\":", JsonString(name), ",\"padding_ratio\":",
        ratio < 0 ? std::string("null") : absl::StrFormat("%.4f", ratio), "}"));
  }
  for (const auto& [l, n] : instructions_per_layout) {
    layouts.push_back(absl::StrCat(JsonString(l), ":", n));
  }
  return absl::StrCat(
      "{\"pass\":\"layout-assignment\",\"target\":", JsonString(target),
      ",\"copies_inserted\":", copies.size(), ",\"copy_bytes_per_run\":", copy_bytes,
      ",\"copies_by_reason\":{", absl::StrJoin(reasons, ","), "}",
      ",\"copies\":[", absl::StrJoin(copy_items, ","), "]",
      ",\"computations_cloned\":", computations_cloned,
      ",\"data_bytes\":", data_bytes, ",\"padding_bytes\":", padded_bytes - data_bytes,
      ",\"tilings_refused\":[", absl::StrJoin(refused, ","), "]",
      ",\"transposes_as_bitcast\":", transposes_as_bitcast,
      ",\"reshapes_as_bitcast\":", reshapes_as_bitcast,
      ",\"instructions_per_layout\":{", absl::StrJoin(layouts, ","), "}}\n");
}

}  // namespace xla_layout
