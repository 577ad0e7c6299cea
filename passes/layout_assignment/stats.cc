#include "passes/layout_assignment/stats.h"

#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "passes/layout_assignment/constraints.h"
#include "passes/layout_assignment/propagation.h"
#include "xla_layout/json.h"
#include "xla_layout/layout_util.h"
#include "xla_layout/primitive_type.h"
#include "xla_layout/shape_text.h"
#include "xla_layout/tiled_layout.h"

namespace xla_layout {

std::string LayoutAssignmentStats::ToText() const {
  std::string out = absl::StrCat("layout-assignment statistics (target ", target, ")\n");
  const int64_t copy_bytes = CopyBytes();
  std::map<std::string, int> by_reason;
  for (const Copy& c : copies) ++by_reason[c.reason];
  absl::StrAppend(&out, "  copies inserted: ", copies.size(), " (", copy_bytes,
                  " bytes moved per run)\n");
  for (const auto& [reason, n] : by_reason) {
    absl::StrAppend(&out, "    ", n, " for ", reason, "\n");
  }
  for (const Copy& c : copies) {
    absl::StrAppend(&out, "    ", c.name, " in ", c.computation, ": ", c.operand,
                    " ", c.from, " -> ", c.to, ", ", c.bytes, " bytes",
                    c.in_loop ? " per loop iteration" : "", " (", c.reason, "); ",
                    c.kernel_class, " kernel",
                    c.seconds ? absl::StrFormat(", est. %.3g us", *c.seconds * 1e6) : "",
                    "\n");
  }
  if (computations_cloned > 0) {
    absl::StrAppend(&out, "  computations cloned to give each caller its own: ",
                    computations_cloned, "\n");
  }
  int read_as_is = 0;
  for (const ConvolutionRead& r : convolution_reads) read_as_is += !r.copied;
  if (!convolution_reads.empty()) {
    absl::StrAppend(&out, "  convolution operands in another layout than preferred: ",
                    convolution_reads.size(), " (", read_as_is, " read as they are, ",
                    convolution_reads.size() - read_as_is, " copied)\n");
  }
  // The extra time of the read next to the copy's, whichever was chosen
  // (bytes where the table has no rates).
  for (const ConvolutionRead& r : convolution_reads) {
    absl::StrAppend(
        &out, "    ", r.conv, " operand ", r.operand, " (", r.conv_class,
        absl::StrFormat(", factor %.3g", r.factor), "): ", r.have, " instead of ", r.want,
        ": reading it so costs an estimated ",
        r.timed ? absl::StrFormat("%.3g us", r.read_seconds * 1e6)
                : absl::StrCat(r.read_cost, " bytes"),
        " more, a copy (", r.copy_class, " kernel) ",
        r.timed ? absl::StrFormat("%.3g us", r.copy_seconds * 1e6)
                : absl::StrCat(r.copy_bytes, " bytes"),
        ": ", r.copied ? "copied" : "read as it is", "\n");
  }
  for (const FreeOrder& f : free_orders) {
    absl::StrAppend(&out, absl::StrFormat("  free value %s: %s (score %.3f)", f.value, f.chosen,
                                          f.score));
    if (!f.runner_up.empty()) {
      absl::StrAppend(&out, absl::StrFormat(", runner-up %s (score %.3f)", f.runner_up,
                                            f.runner_up_score));
    }
    out += "\n";
  }
  for (const Packing& p : packing) {
    absl::StrAppend(&out, "  dot ", p.dot, " ", p.operand, ": read ", p.reads, "x, ",
                    p.bytes, " bytes: ", p.packed ? "packed" : "not packed", " (", p.why,
                    ")\n");
  }
  absl::StrAppend(&out, "  buffers: ", data_bytes, " data bytes, ",
                  padded_bytes - data_bytes, " padding bytes added by tiles\n");
  absl::StrAppend(&out, absl::StrFormat("  copies move %d bytes per run against %d bytes of "
                                        "buffers (%.2f%%)\n",
                                        copy_bytes, padded_bytes,
                                        padded_bytes > 0 ? 100.0 * copy_bytes / padded_bytes
                                                         : 0.0));
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


namespace {

// The JSON report's numbers keep the precision the text report means:
// seconds to 9 significant digits, scores to 3 decimals, ratios to 4.
OrderedJson Seconds(double seconds) { return RoundToSignificantDigits(seconds, 9); }

OrderedJson CopyJson(const LayoutAssignmentStats::Copy& c) {
  return {{"name", c.name},
          {"computation", c.computation},
          {"operand", c.operand},
          {"reason", c.reason},
          {"from", c.from},
          {"to", c.to},
          {"bytes", c.bytes},
          {"in_loop", c.in_loop},
          {"kernel_class", c.kernel_class},
          {"estimated_seconds", c.seconds ? Seconds(*c.seconds) : OrderedJson(nullptr)}};
}

OrderedJson PackingJson(const LayoutAssignmentStats::Packing& p) {
  return {{"dot", p.dot},     {"operand", p.operand}, {"reads", p.reads},
          {"bytes", p.bytes}, {"packed", p.packed},   {"why", p.why}};
}

OrderedJson ConvolutionReadJson(const LayoutAssignmentStats::ConvolutionRead& r) {
  return {{"conv", r.conv},
          {"operand", r.operand},
          {"have", r.have},
          {"want", r.want},
          {"class", r.conv_class},
          {"factor", RoundToDecimals(r.factor, 6)},
          {"read_cost", r.read_cost},
          {"copy_bytes", r.copy_bytes},
          {"copy_class", r.copy_class},
          {"read_seconds", r.timed ? Seconds(r.read_seconds) : OrderedJson(nullptr)},
          {"copy_seconds", r.timed ? Seconds(r.copy_seconds) : OrderedJson(nullptr)},
          {"copied", r.copied}};
}

OrderedJson FreeOrderJson(const LayoutAssignmentStats::FreeOrder& f) {
  return {{"value", f.value},
          {"chosen", f.chosen},
          {"score", RoundToDecimals(f.score, 3)},
          {"runner_up", f.runner_up.empty() ? OrderedJson(nullptr) : OrderedJson(f.runner_up)},
          {"runner_up_score", RoundToDecimals(f.runner_up_score, 3)}};
}

// A negative ratio stands for an unbounded size: no ratio.
OrderedJson RefusedTilingJson(const std::string& value, double ratio) {
  OrderedJson padding = ratio < 0 ? OrderedJson(nullptr) : OrderedJson(RoundToDecimals(ratio, 4));
  return {{"value", value}, {"padding_ratio", std::move(padding)}};
}

// Each element of `items` as `to_json` makes it, in order.
template <typename T, typename Fn>
OrderedJson ArrayOf(const std::vector<T>& items, Fn to_json) {
  OrderedJson out = OrderedJson::array();
  for (const T& item : items) out.push_back(to_json(item));
  return out;
}

}  // namespace

std::string LayoutAssignmentStats::ToJson() const {
  const int64_t copy_bytes = CopyBytes();
  OrderedJson by_reason = OrderedJson::object();
  std::map<std::string, int> reasons;  // sorted, as the text report
  for (const Copy& c : copies) ++reasons[c.reason];
  for (const auto& [reason, n] : reasons) by_reason[reason] = n;
  OrderedJson refused = OrderedJson::array();
  for (const auto& [name, ratio] : tilings_refused) {
    refused.push_back(RefusedTilingJson(name, ratio));
  }
  OrderedJson per_layout = OrderedJson::object();
  for (const auto& [layout, n] : instructions_per_layout) per_layout[layout] = n;
  OrderedJson out = {{"pass", "layout-assignment"},
                     {"target", target},
                     {"copies_inserted", copies.size()},
                     {"copy_bytes_per_run", copy_bytes},
                     {"copies_by_reason", std::move(by_reason)},
                     {"copies", ArrayOf(copies, CopyJson)},
                     {"computations_cloned", computations_cloned},
                     {"data_bytes", data_bytes},
                     {"padding_bytes", padded_bytes - data_bytes},
                     {"tilings_refused", std::move(refused)},
                     {"dot_packing", ArrayOf(packing, PackingJson)},
                     {"convolution_reads", ArrayOf(convolution_reads, ConvolutionReadJson)},
                     {"free_orders", ArrayOf(free_orders, FreeOrderJson)},
                     {"transposes_as_bitcast", transposes_as_bitcast},
                     {"reshapes_as_bitcast", reshapes_as_bitcast},
                     {"instructions_per_layout", std::move(per_layout)}};
  return JsonLine(out);
}

namespace layout_assignment {

int64_t ByteSize(const Shape& shape) {
  absl::StatusOr<TiledLayout> t = TiledLayout::Create(shape);
  return t.ok() ? t->byte_size() : 0;
}

namespace {

int64_t DataBytes(const Shape& shape) {
  absl::StatusOr<int64_t> n = shape.ElementCount();
  if (!n.ok()) return 0;
  return (*n * PrimitiveBitWidth(shape.element_type()) + 7) / 8;
}

// Instructions per distinct layout: modules use few, so each is printed
// once, when the counts are handed over.
class LayoutCounts {
 public:
  void Add(const Layout& layout) { ++counts_[layout]; }
  void AddTo(std::map<std::string, int64_t>& by_text) const {
    for (const auto& [layout, n] : counts_) by_text[PrintLayout(layout)] += n;
  }

 private:
  absl::flat_hash_map<Layout, int64_t> counts_;
};

}  // namespace

void CollectStats(const HloModule& module, const LayoutConstraints& constraints,
                  LayoutPropagation& propagation, LayoutAssignmentStats& stats) {
  stats.packing = constraints.packing();
  const std::vector<Slot>& slots = constraints.slots();
  // A fusion's parameters are views of its operands, not buffers.
  const absl::flat_hash_set<const HloComputation*> fused = FusedComputations(module);
  // Groups are named by their root slot: one bit per slot, not a hash set
  // probed at random (a million slots at 1M instructions).
  std::vector<bool> counted(slots.size(), false);
  // The padded size of each distinct shape, computed once.
  absl::flat_hash_map<Shape, int64_t> sizes;
  auto byte_size = [&sizes](const Shape& shape) {
    auto [it, inserted] = sizes.try_emplace(shape, 0);
    if (inserted) it->second = ByteSize(shape);
    return it->second;
  };
  for (size_t s = 0; s < slots.size(); ++s) {
    const HloInstruction* owner = slots[s].instruction;
    if (owner->opcode() == HloOpcode::kParameter && fused.contains(owner->parent())) continue;
    const int group = propagation.Find(static_cast<int>(s));
    if (counted[group]) continue;
    counted[group] = true;
    stats.data_bytes = SaturatingAdd(stats.data_bytes, DataBytes(*slots[s].shape));
    stats.padded_bytes = SaturatingAdd(stats.padded_bytes, byte_size(*slots[s].shape));
  }
  LayoutCounts per_layout;
  for (HloComputation* c : module.computations()) {
    for (HloInstruction* i : c->instructions()) {
      LeafShapes ls = LaidOutLeaves(*i->mutable_shape());
      for (Shape* s : ls) per_layout.Add(s->layout());
      if (i->opcode() == HloOpcode::kCopy && !constraints.Covers(i) && !ls.empty()) {
        stats.data_bytes = SaturatingAdd(stats.data_bytes, DataBytes(*ls[0]));
        stats.padded_bytes = SaturatingAdd(stats.padded_bytes, byte_size(*ls[0]));
      }
    }
  }
  per_layout.AddTo(stats.instructions_per_layout);
}

}  // namespace layout_assignment
}  // namespace xla_layout
