#include "tools/calibrate_command.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/timing.h"
#include "xla_layout/memory.h"
#include "xla_layout/relayout.h"
#include "xla_layout/shape_text.h"

namespace xla_layout::cli {
namespace {

struct Case {
  CopyClass copy_class;
  std::string src, dst;
};

// The channels-first read factors of a CPU table whose convolutions prefer
// channels-last: one entry per class,
// replacing those the table had; the single factor stays for other reads.
absl::Status CalibrateConvolutions(const ConvCalibrationOptions& options,
                                   TargetLayoutConfig& table, CalibrateResult& result) {
  bool requires_tiles = false;
  for (const BaseTiling& rule : table.base_tilings()) requires_tiles |= rule.required();
  if (!table.conv_channels_last() || requires_tiles) {
    absl::StrAppend(&result.report, "convolution read factors: kept (",
                    requires_tiles ? "a target that requires tiles: this machine's convolutions "
                                     "say nothing about its own"
                                   : "the target's convolutions take any layout",
                    ")\n");
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<ConvClassTiming>> timings =
      MeasureConvolutions(options);
  if (!timings.ok()) return timings.status();
  CostModel* cost = table.mutable_cost_model();
  cost->clear_conv_read_factors();
  for (const ConvClassTiming& t : *timings) {
    ConvReadFactor* f = cost->add_conv_read_factors();
    f->set_kind(t.kind);
    f->set_pass(t.pass);
    f->set_read(CHANNELS_FIRST_READ);
    // Three significant digits: the figures move by more between runs.
    double rounded = t.factor;
    if (!absl::SimpleAtod(absl::StrFormat("%.3g", t.factor), &rounded)) rounded = t.factor;
    f->set_factor(rounded);
  }
  absl::StrAppend(&result.report, ConvTimingReport(*timings));
  result.conv = *std::move(timings);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CalibrateResult> RunCalibrate(TargetLayoutConfig base,
                                             const CalibrateOptions& options) {
  // Rows of 4096 f32 (16 KiB); the sub-byte case moves as many bytes of s4.
  const int64_t rows = std::max<int64_t>(16, options.bytes / (4096 * 4) / 16 * 16);
  const std::string f32 = absl::StrCat("f32[", rows, ",4096]");
  const std::string s4 = absl::StrCat("s4[", 2 * rows, ",4096]");
  const Case cases[] = {
      {CopyClass::kContiguous, f32 + "{1,0}", f32 + "{1,0:T(2,4096)}"},
      {CopyClass::kTile, f32 + "{1,0}", f32 + "{1,0:T(8,128)}"},
      {CopyClass::kTranspose, f32 + "{1,0}", f32 + "{0,1}"},
      {CopyClass::kSubByte, s4 + "{1,0:E(4)}", s4 + "{0,1:E(4)}"},
  };
  CalibrateResult result;
  result.samples = options.repeat;
  std::string lines;
  const auto start = std::chrono::steady_clock::now();
  int case_index = 0;
  CopyThroughput* rates = base.mutable_cost_model()->mutable_copy_throughput();
  for (const Case& c : cases) {
    absl::StatusOr<Shape> src = ParseShape(c.src);
    if (!src.ok()) return src.status();
    absl::StatusOr<Shape> dst = ParseShape(c.dst);
    if (!dst.ok()) return dst.status();
    RelayoutOptions ro;
    ro.threads = options.threads;
    absl::StatusOr<RelayoutPlan> plan = RelayoutPlan::Create(*src, *dst, ro);
    if (!plan.ok()) return plan.status();
    if (plan->copy_class() != c.copy_class) {
      return absl::InternalError(absl::StrCat("calibration case ", c.src, " -> ", c.dst,
                                              " plans as ", CopyClassName(plan->copy_class()),
                                              ", not ", CopyClassName(c.copy_class)));
    }
    absl::StatusOr<AlignedBuffer> in = AllocateAligned(plan->src_bytes(), "calibration source");
    if (!in.ok()) return in.status();
    absl::StatusOr<AlignedBuffer> out = AllocateAligned(plan->dst_bytes(), "calibration destination");
    if (!out.ok()) return out.status();
    std::memset(in->get(), 0x5a, plan->src_bytes());
    std::memset(out->get(), 0, plan->dst_bytes());
    std::vector<double> core, copy;
    // This case's share of the budget ends at this point of the whole run.
    const double share_end =
        options.budget_seconds * ++case_index / (sizeof(cases) / sizeof(cases[0]));
    for (int k = 0; k < options.repeat; ++k) {
      if (k > 0 && SecondsSince(start) > share_end) break;
      core.push_back(Time([&] { plan->Execute(in->get(), out->get()); }));
      copy.push_back(Time([&] {
        std::memcpy(out->get(), in->get(), std::min(plan->src_bytes(), plan->dst_bytes()));
      }));
    }
    const double moved = static_cast<double>(plan->src_bytes() + plan->dst_bytes());
    const double gbps = moved / Median(core) / 1e9;
    const double memcpy_gbps =
        2.0 * static_cast<double>(std::min(plan->src_bytes(), plan->dst_bytes())) /
        Median(copy) / 1e9;
    switch (c.copy_class) {
      case CopyClass::kContiguous: rates->set_contiguous_gbps(gbps); break;
      case CopyClass::kTile: rates->set_tile_gbps(gbps); break;
      case CopyClass::kTranspose: rates->set_transpose_gbps(gbps); break;
      case CopyClass::kSubByte: rates->set_subbyte_gbps(gbps); break;
    }
    result.samples = std::min(result.samples, static_cast<int>(core.size()));
    absl::StrAppend(&lines,
                    absl::StrFormat("  %-11s %-44s %8.2f %8.2f %5.2fx\n",
                                    CopyClassName(c.copy_class),
                                    absl::StrCat(c.src, " -> ", c.dst.substr(c.dst.find('{'))),
                                    gbps, memcpy_gbps, gbps / memcpy_gbps));
  }
  result.report = absl::StrCat(
      absl::StrFormat("copy throughput on this machine: %d MiB a side, median of %d samples%s, "
                      "GB/s of bytes read plus written\n  %-11s %-44s %8s %8s %6s\n",
                      rows * 4096 * 4 >> 20, result.samples,
                      result.samples < options.repeat ? " (stopped at the time budget)" : "",
                      "class", "relayout", "GB/s", "memcpy", "ratio"),
      lines);
  absl::Status conv = CalibrateConvolutions(options.conv, base, result);
  if (!conv.ok()) return conv;
  result.table = std::move(base);
  return result;
}

}  // namespace xla_layout::cli
