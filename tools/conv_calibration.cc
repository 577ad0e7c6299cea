#include "tools/conv_calibration.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "oneapi/dnnl/dnnl.h"
#include "tools/timing.h"
#include "xla_layout/memory.h"
#include "xla_layout/relayout.h"
#include "xla_layout/shape_text.h"

// oneDNN's threads are OpenMP's (Debian builds it so): the calibration runs
// it on one thread. Declared here, as <omp.h> declares it, to link against
// the library oneDNN loads without compiling this file for OpenMP.
extern "C" {
void omp_set_num_threads(int);
int omp_get_max_threads(void);
}

namespace xla_layout::cli {
namespace {

template <typename T>
using Owned = std::unique_ptr<std::remove_pointer_t<T>, dnnl_status_t (*)(T)>;

absl::Status Check(dnnl_status_t s, const char* what) {
  if (s == dnnl_success) return absl::OkStatus();
  return absl::InternalError(absl::StrCat("oneDNN: ", what, " failed (dnnl_status_t ",
                                          static_cast<int>(s), ")"));
}

// One representative convolution: batch, channels (in = out), spatial size.
struct Size {
  int64_t n, c, hw;
};
// An early and a late MobileNet/ResNet stage, at batch 8.
constexpr Size kSizes[] = {{8, 64, 56}, {8, 128, 28}};

// One primitive of one class at one size and activation layout, with its
// memory, ready to run.
class ConvRun {
 public:
  static absl::StatusOr<std::unique_ptr<ConvRun>> Create(dnnl_engine_t engine, ConvKind kind,
                                                         ConvPass pass, Size size,
                                                         dnnl_format_tag_t tag);
  absl::Status Run(dnnl_stream_t stream) const {
    absl::Status s = Check(dnnl_primitive_execute(primitive_.get(), stream,
                                                  static_cast<int>(args_.size()), args_.data()),
                           "execute");
    return s.ok() ? Check(dnnl_stream_wait(stream), "stream wait") : s;
  }
  int64_t bytes_read() const { return bytes_read_; }

 private:
  absl::Status AddArg(int arg, dnnl_query_t what, dnnl_engine_t engine, bool read);

  Owned<dnnl_primitive_desc_t> fwd_{nullptr, dnnl_primitive_desc_destroy};
  Owned<dnnl_primitive_desc_t> pd_{nullptr, dnnl_primitive_desc_destroy};
  Owned<dnnl_primitive_t> primitive_{nullptr, dnnl_primitive_destroy};
  std::vector<Owned<dnnl_memory_t>> memory_;
  std::vector<dnnl_exec_arg_t> args_;
  int64_t bytes_read_ = 0;
};

absl::Status ConvRun::AddArg(int arg, dnnl_query_t what, dnnl_engine_t engine, bool read) {
  const dnnl_memory_desc_t* md = dnnl_primitive_desc_query_md(pd_.get(), what, 0);
  if (md == nullptr) return absl::InternalError("oneDNN: a convolution argument has no layout");
  dnnl_memory_t m = nullptr;
  absl::Status s = Check(dnnl_memory_create(&m, md, engine, DNNL_MEMORY_ALLOCATE), "memory");
  if (!s.ok()) return s;
  memory_.emplace_back(m, dnnl_memory_destroy);
  void* data = nullptr;
  s = Check(dnnl_memory_get_data_handle(m, &data), "memory handle");
  if (!s.ok()) return s;
  // Small normal numbers: no denormal slows either layout down.
  const size_t bytes = dnnl_memory_desc_get_size(md);
  std::fill_n(static_cast<float*>(data), bytes / sizeof(float), 0.25f);
  if (read) bytes_read_ += static_cast<int64_t>(bytes);
  args_.push_back({arg, m});
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<ConvRun>> ConvRun::Create(dnnl_engine_t engine, ConvKind kind,
                                                         ConvPass pass, Size size,
                                                         dnnl_format_tag_t tag) {
  auto run = std::make_unique<ConvRun>();
  const int64_t k = kind == POINTWISE ? 1 : 3, pad = k / 2;
  const dnnl_dims_t act = {size.n, size.c, size.hw, size.hw};
  const dnnl_dims_t dense = {size.c, size.c, k, k};
  const dnnl_dims_t grouped = {size.c, 1, 1, k, k};
  const dnnl_dims_t strides = {1, 1}, padding = {pad, pad};
  dnnl_memory_desc_t src, dst, weights;
  absl::Status s = Check(dnnl_memory_desc_init_by_tag(&src, 4, act, dnnl_f32, tag), "src");
  if (s.ok()) s = Check(dnnl_memory_desc_init_by_tag(&dst, 4, act, dnnl_f32, tag), "dst");
  if (s.ok()) {
    s = Check(kind == DEPTHWISE
                  ? dnnl_memory_desc_init_by_tag(&weights, 5, grouped, dnnl_f32, dnnl_format_tag_any)
                  : dnnl_memory_desc_init_by_tag(&weights, 4, dense, dnnl_f32, dnnl_format_tag_any),
              "weights");
  }
  dnnl_convolution_desc_t fwd, desc;
  if (s.ok()) {
    s = Check(dnnl_convolution_forward_desc_init(&fwd, dnnl_forward_training,
                                                 dnnl_convolution_direct, &src, &weights,
                                                 nullptr, &dst, strides, padding, padding),
              "forward descriptor");
  }
  dnnl_primitive_desc_t pd = nullptr;
  if (s.ok()) s = Check(dnnl_primitive_desc_create(&pd, &fwd, nullptr, engine, nullptr), "forward");
  if (!s.ok()) return s;
  run->fwd_.reset(pd);
  if (pass == FORWARD) {
    run->pd_.swap(run->fwd_);
  } else {
    s = Check(pass == INPUT_GRADIENT
                  ? dnnl_convolution_backward_data_desc_init(&desc, dnnl_convolution_direct, &src,
                                                             &weights, &dst, strides, padding,
                                                             padding)
                  : dnnl_convolution_backward_weights_desc_init(
                        &desc, dnnl_convolution_direct, &src, &weights, nullptr, &dst, strides,
                        padding, padding),
              "backward descriptor");
    if (s.ok()) {
      s = Check(dnnl_primitive_desc_create(&pd, &desc, nullptr, engine, run->fwd_.get()),
                "backward");
    }
    if (!s.ok()) return s;
    run->pd_.reset(pd);
  }
  if (pass == FORWARD) {
    s = run->AddArg(DNNL_ARG_SRC, dnnl_query_src_md, engine, true);
    if (s.ok()) s = run->AddArg(DNNL_ARG_WEIGHTS, dnnl_query_weights_md, engine, false);
    if (s.ok()) s = run->AddArg(DNNL_ARG_DST, dnnl_query_dst_md, engine, false);
  } else if (pass == INPUT_GRADIENT) {
    s = run->AddArg(DNNL_ARG_DIFF_DST, dnnl_query_diff_dst_md, engine, true);
    if (s.ok()) s = run->AddArg(DNNL_ARG_WEIGHTS, dnnl_query_weights_md, engine, false);
    if (s.ok()) s = run->AddArg(DNNL_ARG_DIFF_SRC, dnnl_query_diff_src_md, engine, false);
  } else {
    s = run->AddArg(DNNL_ARG_SRC, dnnl_query_src_md, engine, true);
    if (s.ok()) s = run->AddArg(DNNL_ARG_DIFF_DST, dnnl_query_diff_dst_md, engine, true);
    if (s.ok()) s = run->AddArg(DNNL_ARG_DIFF_WEIGHTS, dnnl_query_diff_weights_md, engine, false);
  }
  dnnl_primitive_t primitive = nullptr;
  if (s.ok()) s = Check(dnnl_primitive_create(&primitive, run->pd_.get()), "primitive");
  if (!s.ok()) return s;
  run->primitive_.reset(primitive);
  return run;
}

// The packing core's contiguous rate on one thread (GB/s of bytes read
// plus written), the median of `repeat` runs over 8 MiB a side.
absl::StatusOr<double> OneThreadContiguousGbps(int repeat) {
  absl::StatusOr<Shape> src = ParseShape("f32[512,4096]{1,0}");
  absl::StatusOr<Shape> dst = ParseShape("f32[512,4096]{1,0:T(2,4096)}");
  if (!src.ok() || !dst.ok()) return absl::InternalError("calibration shapes do not parse");
  RelayoutOptions one;
  one.threads = 1;
  absl::StatusOr<RelayoutPlan> plan = RelayoutPlan::Create(*src, *dst, one);
  if (!plan.ok()) return plan.status();
  absl::StatusOr<AlignedBuffer> in = AllocateAligned(plan->src_bytes(), "calibration source");
  if (!in.ok()) return in.status();
  absl::StatusOr<AlignedBuffer> out = AllocateAligned(plan->dst_bytes(), "calibration copy");
  if (!out.ok()) return out.status();
  std::memset(in->get(), 0x5a, plan->src_bytes());
  std::vector<double> seconds;
  for (int k = 0; k < std::max(1, repeat); ++k) {
    seconds.push_back(Time([&] { plan->Execute(in->get(), out->get()); }));
  }
  return static_cast<double>(plan->src_bytes() + plan->dst_bytes()) / Median(seconds) / 1e9;
}

// The classes on one thread: OpenMP's barriers stall whenever another
// process takes a core of a busy machine, which moved the two-thread
// figures by 10x between runs; one thread's move far less.
class OneOpenMpThread {
 public:
  OneOpenMpThread() : threads_(omp_get_max_threads()) { omp_set_num_threads(1); }
  ~OneOpenMpThread() { omp_set_num_threads(threads_); }
  OneOpenMpThread(const OneOpenMpThread&) = delete;
  OneOpenMpThread& operator=(const OneOpenMpThread&) = delete;

 private:
  int threads_;
};

}  // namespace

absl::StatusOr<std::vector<ConvClassTiming>> MeasureConvolutions(
    const ConvCalibrationOptions& options) {
  OneOpenMpThread one_thread;
  absl::StatusOr<double> contiguous_gbps = OneThreadContiguousGbps(options.repeat);
  if (!contiguous_gbps.ok()) return contiguous_gbps.status();
  dnnl_engine_t raw_engine = nullptr;
  absl::Status s = Check(dnnl_engine_create(&raw_engine, dnnl_cpu, 0), "engine");
  if (!s.ok()) return s;
  Owned<dnnl_engine_t> engine(raw_engine, dnnl_engine_destroy);
  dnnl_stream_t raw_stream = nullptr;
  s = Check(dnnl_stream_create(&raw_stream, engine.get(), dnnl_stream_default_flags), "stream");
  if (!s.ok()) return s;
  Owned<dnnl_stream_t> stream(raw_stream, dnnl_stream_destroy);
  const auto start = std::chrono::steady_clock::now();
  std::vector<ConvClassTiming> timings;
  const int classes = 9;
  for (ConvPass pass : {FORWARD, INPUT_GRADIENT, WEIGHT_GRADIENT}) {
    for (ConvKind kind : {POINTWISE, DEPTHWISE, DENSE}) {
      ConvClassTiming t{kind, pass};
      t.contiguous_gbps = *contiguous_gbps;
      t.samples = options.repeat;
      const double share_end =
          options.budget_seconds * static_cast<double>(timings.size() + 1) / classes;
      for (Size size : kSizes) {
        const int64_t shrink = std::max(1, options.shrink);
        size = {size.n, std::max<int64_t>(1, size.c / shrink),
                std::max<int64_t>(3, size.hw / shrink)};
        absl::StatusOr<std::unique_ptr<ConvRun>> nchw =
            ConvRun::Create(engine.get(), kind, pass, size, dnnl_nchw);
        if (!nchw.ok()) return nchw.status();
        absl::StatusOr<std::unique_ptr<ConvRun>> nhwc =
            ConvRun::Create(engine.get(), kind, pass, size, dnnl_nhwc);
        if (!nhwc.ok()) return nhwc.status();
        std::vector<double> first, last, extra;
        for (int k = 0; k < options.repeat; ++k) {
          if (k > 0 && SecondsSince(start) > share_end) break;
          // Interleaved: a slow moment of a shared machine hits both runs of
          // a pair, and the median of the pairs' differences leaves it out.
          first.push_back(Time([&] { s.Update((*nchw)->Run(stream.get())); }));
          last.push_back(Time([&] { s.Update((*nhwc)->Run(stream.get())); }));
          extra.push_back(first.back() - last.back());
          if (!s.ok()) return s;
        }
        t.nchw_seconds += Median(first);
        t.nhwc_seconds += Median(last);
        t.extra_seconds += Median(extra);
        t.bytes_read += (*nchw)->bytes_read();
        t.samples = std::min(t.samples, static_cast<int>(first.size()));
      }
      const double extra = std::max(0.0, t.extra_seconds);
      t.factor = std::max(kMinMeasuredReadFactor, extra * *contiguous_gbps * 1e9 /
                                                      static_cast<double>(t.bytes_read));
      timings.push_back(t);
    }
  }
  return timings;
}

std::string ConvTimingReport(const std::vector<ConvClassTiming>& timings) {
  std::string out = absl::StrFormat(
      "convolution reads on this machine (oneDNN on one thread, activations NCHW against "
      "NHWC, sizes 8x64x56x56 and 8x128x28x28 summed, medians; factor: extra time at the "
      "one-thread contiguous copy rate, %.2f GB/s):\n  %-10s %-16s %10s %10s %6s %9s %8s\n",
      timings.empty() ? 0.0 : timings[0].contiguous_gbps, "kind", "pass", "NCHW ms", "NHWC ms",
      "ratio", "extra ms", "factor");
  for (const ConvClassTiming& t : timings) {
    const char* kind = t.kind == POINTWISE ? "1x1" : t.kind == DEPTHWISE ? "depthwise" : "dense 3x3";
    const char* pass = t.pass == FORWARD          ? "forward"
                       : t.pass == INPUT_GRADIENT ? "input gradient"
                                                  : "weight gradient";
    absl::StrAppend(&out, absl::StrFormat("  %-10s %-16s %10.3f %10.3f %5.2fx %9.3f %8.3g\n",
                                          kind, pass, t.nchw_seconds * 1e3,
                                          t.nhwc_seconds * 1e3, t.nchw_seconds / t.nhwc_seconds,
                                          t.extra_seconds * 1e3, t.factor));
  }
  return out;
}

}  // namespace xla_layout::cli
