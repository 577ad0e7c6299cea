#include "tools/relayout_command.h"

#include <chrono>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/cli_util.h"
#include "tools/relayout_check.h"
#include "xla_layout/tiled_layout.h"

namespace xla_layout::cli {
namespace {

// Page-aligned buffers, touched once so that timing excludes page faults.
struct Buffer {
  explicit Buffer(int64_t bytes)
      : data(static_cast<char*>(std::aligned_alloc(
                 4096, std::max<int64_t>(4096, (bytes + 4095) / 4096 * 4096))),
             &std::free),
        size(bytes) {
    std::memset(data.get(), 0, size);
  }
  std::unique_ptr<char, decltype(&std::free)> data;
  int64_t size;
};

template <typename Fn>
double SecondsPerRun(int repeat, Fn fn) {
  fn();  // warm-up
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < repeat; ++i) fn();
  std::chrono::duration<double> elapsed =
      std::chrono::steady_clock::now() - start;
  return elapsed.count() / repeat;
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

  Buffer src(plan->src_bytes()), dst(plan->dst_bytes());
  Buffer copy_src(plan->element_bytes()), copy_dst(plan->element_bytes());
  FillSourcePattern(*src_layout, src.data.get());
  double seconds = SecondsPerRun(options.repeat, [&] {
    plan->Execute(src.data.get(), dst.data.get());
  });
  double memcpy_seconds = SecondsPerRun(options.repeat, [&] {
    std::memcpy(copy_dst.data.get(), copy_src.data.get(), copy_src.size);
  });
  // Bytes read plus bytes written, without padding.
  double moved = 2.0 * static_cast<double>(plan->element_bytes());
  double gbps = seconds > 0 ? moved / seconds / 1e9 : 0;
  double memcpy_gbps = memcpy_seconds > 0 ? moved / memcpy_seconds / 1e9 : 0;
  double ratio = memcpy_gbps > 0 ? gbps / memcpy_gbps : 0;

  RelayoutCommandResult result;
  std::string check = "not run";
  if (options.check) {
    absl::Status s = CheckDestination(*dst_layout, dst.data.get(), {});
    check = s.ok() ? "ok" : std::string(s.message());
    result.check_failed = !s.ok();
  }
  if (options.dump) {
    absl::Status s = WriteFileAtomically(
        *options.dump, absl::string_view(dst.data.get(), dst.size));
    if (!s.ok()) return s;
  }
  if (options.json) {
    result.output = absl::StrCat(
        "{\"src\":", JsonString(src_shape.ToString()),
        ",\"dst\":", JsonString(dst_shape.ToString()),
        ",\"seconds_per_run\":", absl::StrFormat("%.9f", seconds),
        ",\"gbps\":", absl::StrFormat("%.3f", gbps),
        ",\"memcpy_gbps\":", absl::StrFormat("%.3f", memcpy_gbps),
        ",\"ratio_to_memcpy\":", absl::StrFormat("%.3f", ratio),
        ",\"threads\":", plan->threads(), ",\"isa\":",
        JsonString(IsaName(plan->isa())), ",\"repeat\":", options.repeat,
        ",\"element_bytes\":", plan->element_bytes(),
        ",\"src_bytes\":", plan->src_bytes(),
        ",\"dst_bytes\":", plan->dst_bytes(), ",\"check\":",
        JsonString(check), "}\n");
  } else {
    result.output = absl::StrCat(
        src_shape.ToString(), " -> ", dst_shape.ToString(), "\n",
        absl::StrFormat("time per run:    %.3f ms (%d runs)\n", seconds * 1e3,
                        options.repeat),
        absl::StrFormat("throughput:      %.2f GB/s (read + write, %d bytes "
                        "of elements each way)\n",
                        gbps, plan->element_bytes()),
        absl::StrFormat("memcpy:          %.2f GB/s (same bytes, same run)\n",
                        memcpy_gbps),
        absl::StrFormat("ratio to memcpy: %.2fx\n", ratio),
        "threads:         ", plan->threads(), ", isa ", IsaName(plan->isa()),
        "\n", "check:           ", check, "\n");
  }
  if (options.explain) result.output += plan->Describe();
  return result;
}

}  // namespace xla_layout::cli
