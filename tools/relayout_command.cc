#include "tools/relayout_command.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/relayout_check.h"
#include "xla_layout/copy_reference.h"
#include "xla_layout/file_io.h"
#include "xla_layout/json.h"
#include "xla_layout/memory.h"
#include "xla_layout/tiled_layout.h"

namespace xla_layout::cli {
namespace {

// Runs `fn` once to warm up, then up to `repeat` times, stopping early once
// the timed runs pass `budget_seconds`; `*runs` gets the count actually timed.
template <typename Fn>
double SecondsPerRun(int repeat, double budget_seconds, int* runs, Fn fn) {
  fn();
  auto start = std::chrono::steady_clock::now();
  std::chrono::duration<double> elapsed{0};
  int i = 0;
  while (i < repeat) {
    fn();
    ++i;
    elapsed = std::chrono::steady_clock::now() - start;
    if (elapsed.count() > budget_seconds) break;
  }
  *runs = i;
  return elapsed.count() / i;
}

// The buffers of one run: the plan's source and destination, and the two
// of the memcpy and streaming-copy references.
struct RelayoutBuffers {
  AlignedBuffer src, dst, copy_src, copy_dst;
};

absl::StatusOr<RelayoutBuffers> AllocateBuffers(const RelayoutPlan& plan) {
  // Four buffers live at once: check their sum before allocating any.
  absl::Status room = CheckAllocationSize(
      plan.src_bytes() + plan.dst_bytes() + 2 * plan.element_bytes(),
      "the source, destination and memcpy buffers");
  if (!room.ok()) return room;
  absl::StatusOr<AlignedBuffer> src = AllocateAligned(plan.src_bytes(), "the source");
  if (!src.ok()) return src.status();
  absl::StatusOr<AlignedBuffer> dst = AllocateAligned(plan.dst_bytes(), "the destination");
  if (!dst.ok()) return dst.status();
  absl::StatusOr<AlignedBuffer> copy_src =
      AllocateAligned(plan.element_bytes(), "the memcpy reference");
  if (!copy_src.ok()) return copy_src.status();
  absl::StatusOr<AlignedBuffer> copy_dst =
      AllocateAligned(plan.element_bytes(), "the memcpy reference");
  if (!copy_dst.ok()) return copy_dst.status();
  return RelayoutBuffers{*std::move(src), *std::move(dst), *std::move(copy_src),
                         *std::move(copy_dst)};
}

// What the timed runs measured: the plan's time per run, and the rates of
// it and of the references over the same bytes.
struct Timing {
  int runs = 0;  // of the plan, timed
  double seconds = 0;
  double gbps = 0;
  double memcpy_gbps = 0;
  double ratio = 0;  // to memcpy
  double stream_gbps = 0;
  // The ceiling: the better of memcpy and a streaming-store copy.
  double ceiling_gbps = 0;
  double ceiling_ratio = 0;
};

// Times the plan on `buffers`, then memcpy and the streaming copy of its
// element bytes, each as many times as the plan ran.
Timing TimeRuns(const RelayoutPlan& plan, const RelayoutBuffers& buffers,
                const RelayoutCommandOptions& options) {
  Timing t;
  int memcpy_runs = 0;
  t.seconds = SecondsPerRun(options.repeat, options.budget_seconds, &t.runs, [&] {
    plan.Execute(buffers.src.get(), buffers.dst.get());
  });
  double memcpy_seconds = SecondsPerRun(t.runs, options.budget_seconds, &memcpy_runs, [&] {
    std::memcpy(buffers.copy_dst.get(), buffers.copy_src.get(), plan.element_bytes());
  });
  int stream_runs = 0;
  double stream_seconds = SecondsPerRun(t.runs, options.budget_seconds, &stream_runs, [&] {
    StreamingCopy(buffers.copy_src.get(), buffers.copy_dst.get(), plan.element_bytes());
  });
  // Bytes read plus bytes written, without padding.
  double moved = 2.0 * static_cast<double>(plan.element_bytes());
  t.gbps = t.seconds > 0 ? moved / t.seconds / 1e9 : 0;
  t.memcpy_gbps = memcpy_seconds > 0 ? moved / memcpy_seconds / 1e9 : 0;
  t.ratio = t.memcpy_gbps > 0 ? t.gbps / t.memcpy_gbps : 0;
  t.stream_gbps = stream_seconds > 0 ? moved / stream_seconds / 1e9 : 0;
  t.ceiling_gbps = std::max(t.memcpy_gbps, t.stream_gbps);
  t.ceiling_ratio = t.ceiling_gbps > 0 ? t.gbps / t.ceiling_gbps : 0;
  return t;
}

std::string JsonReport(const Shape& src_shape, const Shape& dst_shape, const RelayoutPlan& plan,
                       const Timing& t, const std::string& check) {
  OrderedJson report = {{"src", src_shape.ToString()},
                        {"dst", dst_shape.ToString()},
                        {"seconds_per_run", RoundToDecimals(t.seconds, 9)},
                        {"gbps", RoundToDecimals(t.gbps, 3)},
                        {"memcpy_gbps", RoundToDecimals(t.memcpy_gbps, 3)},
                        {"ratio_to_memcpy", RoundToDecimals(t.ratio, 3)},
                        {"stream_gbps", RoundToDecimals(t.stream_gbps, 3)},
                        {"ceiling_gbps", RoundToDecimals(t.ceiling_gbps, 3)},
                        {"ratio_to_ceiling", RoundToDecimals(t.ceiling_ratio, 3)},
                        {"threads", plan.threads()},
                        {"isa", std::string(IsaName(plan.isa()))},
                        {"repeat", t.runs},
                        {"element_bytes", plan.element_bytes()},
                        {"src_bytes", plan.src_bytes()},
                        {"dst_bytes", plan.dst_bytes()},
                        {"check", check}};
  return JsonLine(report);
}

std::string TextReport(const Shape& src_shape, const Shape& dst_shape, const RelayoutPlan& plan,
                       const Timing& t, const std::string& check, int repeat) {
  return absl::StrCat(
      src_shape.ToString(), " -> ", dst_shape.ToString(), "\n",
      absl::StrFormat("time per run:    %.3f ms (%d runs%s)\n", t.seconds * 1e3,
                      t.runs, t.runs < repeat ? ", stopped at the time budget" : ""),
      absl::StrFormat("throughput:      %.2f GB/s (read + write, %d bytes "
                      "of elements each way)\n",
                      t.gbps, plan.element_bytes()),
      absl::StrFormat("memcpy:          %.2f GB/s (same bytes, same run)\n",
                      t.memcpy_gbps),
      absl::StrFormat("ratio to memcpy: %.2fx\n", t.ratio),
      absl::StrFormat("streaming copy:  %.2f GB/s (same bytes, same run)\n", t.stream_gbps),
      absl::StrFormat("ratio to ceiling: %.2fx (the better of memcpy and the streaming copy)\n",
                      t.ceiling_ratio),
      "threads:         ", plan.threads(), ", isa ", IsaName(plan.isa()),
      "\n", "check:           ", check, "\n");
}

}  // namespace

absl::StatusOr<RelayoutCommandResult> RunRelayoutCommand(
    const Shape& src_shape, const Shape& dst_shape,
    const RelayoutCommandOptions& options) {
  RelayoutOptions ro;
  ro.threads = options.threads;
  ro.isa = options.isa;
  ro.streaming = options.streaming;
  absl::StatusOr<RelayoutPlan> plan =
      RelayoutPlan::Create(src_shape, dst_shape, ro);
  if (!plan.ok()) return plan.status();
  absl::StatusOr<TiledLayout> src_layout = TiledLayout::Create(src_shape);
  absl::StatusOr<TiledLayout> dst_layout = TiledLayout::Create(dst_shape);
  if (!src_layout.ok()) return src_layout.status();
  if (!dst_layout.ok()) return dst_layout.status();
  absl::StatusOr<RelayoutBuffers> buffers = AllocateBuffers(*plan);
  if (!buffers.ok()) return buffers.status();
  FillSourcePattern(*src_layout, buffers->src.get());
  const Timing timing = TimeRuns(*plan, *buffers, options);

  RelayoutCommandResult result;
  std::string check = "not run";
  if (options.check) {
    absl::Status s = CheckDestination(*dst_layout, buffers->dst.get(), {});
    check = s.ok() ? "ok" : std::string(s.message());
    result.check_failed = !s.ok();
  }
  if (options.dump) {
    absl::Status s = WriteFileSafely(
        *options.dump, absl::string_view(buffers->dst.get(), plan->dst_bytes()));
    if (!s.ok()) return s;
  }
  result.output = options.json
                      ? JsonReport(src_shape, dst_shape, *plan, timing, check)
                      : TextReport(src_shape, dst_shape, *plan, timing, check, options.repeat);
  if (options.explain) result.output += plan->Describe();
  return result;
}

}  // namespace xla_layout::cli
