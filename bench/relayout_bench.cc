// Packing-core throughput against references measured in the same run:
// glibc memcpy and a streaming (non-temporal) copy of the same bytes, a naive
// per-element loop over the index math, and oneDNN's reorder on the same
// conversion. GB/s counts bytes read plus written, without padding. At the
// end a table gives every ratio. Then the copies the layout pass inserts in
// real programs (examples/, tests/golden/ and the HLO corpus with real/, on
// every built-in target), each replayed with its plan built once on one
// thread against memcpy of the same bytes, batch for batch in the same run,
// summed per copy class (source plus destination within L2, within L3,
// larger) and in total. Between the two, what bounds a transpose: the
// core's plan beside the same tiles through register transposes and the
// same lines moved unshuffled (copy_reference.h), from L1 to DRAM. The
// one-thread table also gives, where a reference can move a case's lines
// or runs with nothing moved within them, what that traffic alone costs.
//
//   bazel run -c opt //bench:relayout_bench
//   bazel run -c opt //bench:relayout_bench -- --benchmark_filter=nchw
//   bazel run -c opt //bench:relayout_bench -- --benchmark_repetitions=5
//     (the table then uses medians: steadier on a shared machine)
//   bazel run -c opt //bench:relayout_bench -- --benchmark_filter=replay
//     (the replayed copies only)
//   bazel run -c opt //bench:relayout_bench -- --benchmark_filter='onethread|limit|replay'
//     (the three tables of issue 31's points)
#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/plan_traffic.h"
#include "bench/relayout_cases.h"
#include "bench/replay_summary.h"
#include "bench/replay_traffic.h"
#include "bench/replayed_copies.h"
#include "bench/bench_main.h"
#include "benchmark/benchmark.h"
#include "hlo/hlo_corpus.h"
#include "oneapi/dnnl/dnnl.hpp"
#include "xla_layout/copy_reference.h"
#include "xla_layout/relayout.h"
#include "tools/relayout_check.h"
#include "xla_layout/shape_text.h"
#include "xla_layout/tiled_layout.h"
#include "xla_layout/worker_pool.h"

namespace xla_layout {
namespace {

using bench::Case;
using bench::Cases;
using bench::DnnlDescs;
using bench::Mover;
using bench::ReplayMisses;
using bench::ReplaySummary;


struct Buffers {
  explicit Buffers(int64_t src_bytes, int64_t dst_bytes)
      : src(Alloc(src_bytes)), dst(Alloc(dst_bytes)) {}
  static std::unique_ptr<char, decltype(&std::free)> Alloc(int64_t bytes) {
    int64_t rounded = std::max<int64_t>(4096, (bytes + 4095) / 4096 * 4096);
    std::unique_ptr<char, decltype(&std::free)> p(
        static_cast<char*>(std::aligned_alloc(4096, rounded)), &std::free);
    std::memset(p.get(), 1, rounded);
    return p;
  }
  std::unique_ptr<char, decltype(&std::free)> src, dst;
};

struct Prepared {
  Shape src, dst;
  TiledLayout src_layout, dst_layout;
  int64_t element_bytes;
};

Prepared Prepare(const Case& c) {
  Shape src = *ParseShape(c.src), dst = *ParseShape(c.dst);
  TiledLayout s = *TiledLayout::Create(src), d = *TiledLayout::Create(dst);
  int64_t bytes = s.element_count() * s.element_size_in_bits() / 8;
  return Prepared{src, dst, s, d, bytes};
}

void SetMoved(benchmark::State& state, int64_t element_bytes) {
  state.SetBytesProcessed(state.iterations() * 2 * element_bytes);
}

void BM_Core(benchmark::State& state, Case c, int threads) {
  Prepared p = Prepare(c);
  RelayoutOptions options;
  options.threads = threads;
  RelayoutPlan plan = *RelayoutPlan::Create(p.src, p.dst, options);
  Buffers b(plan.src_bytes(), plan.dst_bytes());
  for (auto _ : state) {
    plan.Execute(b.src.get(), b.dst.get());
    benchmark::ClobberMemory();
  }
  SetMoved(state, p.element_bytes);
}

// Element by element through the index math: the obvious implementation.
void BM_Naive(benchmark::State& state, Case c) {
  Prepared p = Prepare(c);
  Buffers b(p.src_layout.byte_size(), p.dst_layout.byte_size());
  const int64_t es = p.src_layout.element_size_in_bits() / 8;
  for (auto _ : state) {
    IndexVector e(p.src_layout.rank(), 0);
    for (int64_t i = 0; i < p.src_layout.element_count(); ++i) {
      std::memcpy(b.dst.get() + p.dst_layout.LinearIndex(e) * es,
                  b.src.get() + p.src_layout.LinearIndex(e) * es, es);
      for (int d = p.src_layout.rank() - 1; d >= 0; --d) {
        if (++e[d] < p.src_layout.logical_dims()[d]) break;
        e[d] = 0;
      }
    }
    benchmark::ClobberMemory();
  }
  SetMoved(state, p.element_bytes);
}

void BM_Memcpy(benchmark::State& state, Case c) {
  Prepared p = Prepare(c);
  Buffers b(p.element_bytes, p.element_bytes);
  for (auto _ : state) {
    std::memcpy(b.dst.get(), b.src.get(), p.element_bytes);
    benchmark::ClobberMemory();
  }
  SetMoved(state, p.element_bytes);
}

// The ceiling of a multi-threaded relayout: the streaming copy, each thread
// on its own contiguous share, run on the same worker pool as the core.
// Where one thread of the core is already above 1/1.5 of this, two threads
// cannot reach 1.5x one.
void BM_StreamCopyThreads(benchmark::State& state, Case c, int threads) {
  Prepared p = Prepare(c);
  Buffers b(p.element_bytes, p.element_bytes);
  // Shares of whole 4 KiB pages keep every thread's stores aligned.
  const int64_t pages = (p.element_bytes + 4095) / 4096;
  auto share = [&](int t) {
    const int64_t begin = std::min(p.element_bytes, pages * t / threads * 4096);
    const int64_t end = std::min(p.element_bytes, pages * (t + 1) / threads * 4096);
    StreamingCopy(b.src.get() + begin, b.dst.get() + begin, end - begin);
  };
  for (auto _ : state) {
    WorkerPool::Shared().Run(threads, share);
    benchmark::ClobberMemory();
  }
  SetMoved(state, p.element_bytes);
}

// The practical ceiling: one streaming pass over the same bytes.
void BM_StreamCopy(benchmark::State& state, Case c) {
  BM_StreamCopyThreads(state, std::move(c), 1);
}

void BM_OneDnn(benchmark::State& state, Case c) {
  Prepared p = Prepare(c);
  try {
    dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    dnnl::stream stream(engine);
    DnnlDescs descs = c.dnnl();
    Buffers b(descs.first.get_size(), descs.second.get_size());
    dnnl::memory src(descs.first, engine, b.src.get());
    dnnl::memory dst(descs.second, engine, b.dst.get());
    dnnl::reorder reorder(src, dst);
    for (auto _ : state) {
      reorder.execute(stream, src, dst);
      stream.wait();
    }
  } catch (const dnnl::error& e) {
    state.SkipWithError(e.what());
    return;
  }
  SetMoved(state, p.element_bytes);
}

// ---------------------------------------------------------------------------
// The copies the layout pass inserts, replayed.

// Seconds per run of `fn` over one batch of `reps` runs.
template <typename Fn>
double BatchSeconds(int64_t reps, Fn fn) {
  auto start = std::chrono::steady_clock::now();
  for (int64_t r = 0; r < reps; ++r) {
    fn();
    benchmark::ClobberMemory();
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() /
         static_cast<double>(reps);
}

// Each function's best batch of `reps` runs, over five rounds in which
// every function runs one batch in turn: so a noisy machine slows every
// side alike, and a context switch costs one batch, not a side. Each batch
// follows `warm` untimed runs of its own function, so that its buffers are
// the ones last touched, and as warm as the references'. A copy near the
// L3's size runs one rep a batch, and this L3 keeps a buffer only after
// several passes over it: with one untimed run, the core read 0.44-0.52x
// of memcpy on f32[16,28,28,128] to {3,0,2,1} (12.8 MB), and 0.91-1.01x
// with eight, as `hlo-layout relayout --repeat=50` reads it.
std::vector<double> BestAlternating(int64_t reps, int64_t warm,
                                    const std::vector<std::function<void()>>& fns) {
  std::vector<double> best(fns.size(), 1e30);
  for (int round = 0; round < 5; ++round) {
    for (size_t k = 0; k < fns.size(); ++k) {
      for (int64_t w = 0; w < warm; ++w) fns[k]();
      best[k] = std::min(best[k], BatchSeconds(reps, fns[k]));
    }
  }
  return best;
}

// Untimed runs before a batch: about 64 MiB written (twice the largest L3
// the summary classes by), at most eight runs, at least one.
int64_t WarmRunsFor(int64_t bytes_written) {
  return std::clamp<int64_t>((int64_t{64} << 20) / std::max<int64_t>(bytes_written, 1), 1, 8);
}

// Runs of about 8 MiB written per batch, so a batch outlasts the clock's
// resolution.
int64_t RepsFor(int64_t bytes_written) {
  return std::clamp<int64_t>((int64_t{8} << 20) / std::max<int64_t>(bytes_written, 1), 1, 1 << 16);
}

// One side of an alternating measurement: a function of its own source
// and destination buffers, of these sizes.
struct Side {
  int64_t src_bytes, dst_bytes;
  std::function<void(const char* src, char* dst)> run;
};

// Each side's best batch (BestAlternating), every side on buffers of its
// own, warmed by its own runs alone: sides that share buffers warm each
// other's, and where the L3 keeps part of a 64 MiB buffer a reference that
// follows another on the same pair reads faster than the core on its own
// (docs/benchmarks.md, "On the Xeon of stop 46").
std::vector<double> BestOnOwnBuffers(int64_t reps, int64_t warm, const std::vector<Side>& sides) {
  std::vector<std::unique_ptr<Buffers>> buffers;
  std::vector<std::function<void()>> fns;
  for (const Side& side : sides) {
    buffers.push_back(std::make_unique<Buffers>(side.src_bytes, side.dst_bytes));
    const Buffers* own = buffers.back().get();
    fns.push_back([own, &side] { side.run(own->src.get(), own->dst.get()); });
  }
  return BestAlternating(reps, warm, fns);
}

// Whether the plan's stores are non-temporal, as its description says.
bool PlanStreams(const RelayoutPlan& plan) {
  return plan.Describe().find("streaming") != std::string::npos;
}

// The sides of line references (a case's, a replayed copy's) that run
// here, with the stores the core's plan uses: each is tried once first, and
// dropped if it cannot move the copy (an ISA missing, a row not aligned for
// streaming stores).
std::vector<Side> LinesSides(const std::vector<Mover>& lines, int64_t src_bytes,
                             int64_t dst_bytes, bool streaming) {
  std::vector<Side> sides;
  if (lines.empty()) return sides;
  Buffers probe(src_bytes, dst_bytes);
  for (const Mover& move : lines) {
    if (!move(probe.src.get(), probe.dst.get(), streaming)) continue;
    sides.push_back({src_bytes, dst_bytes,
                     [move, streaming](const char* s, char* d) { move(s, d, streaming); }});
  }
  return sides;
}

// One thread's time over all threads' while another thread of this process
// spins (the median of five alternating batches of at least 30 ms each):
// two threads against one where a core is not free, as on a machine that
// other jobs share. Only where the plan on all threads takes more than one.
void BusyRatio(benchmark::State& state, const Side& one, const Side& all, int threads_all,
               double one_seconds) {
  if (threads_all < 2) return;
  const int64_t reps = std::max<int64_t>(1, static_cast<int64_t>(0.03 / one_seconds));
  Buffers b1(one.src_bytes, one.dst_bytes), b_n(all.src_bytes, all.dst_bytes);
  std::atomic<bool> stop{false};
  std::thread spinner([&stop] {
    while (!stop.load(std::memory_order_relaxed)) {
    }
  });
  std::vector<double> t1, t_n;
  for (int round = 0; round < 5; ++round) {
    t1.push_back(BatchSeconds(reps, [&] { one.run(b1.src.get(), b1.dst.get()); }));
    t_n.push_back(BatchSeconds(reps, [&] { all.run(b_n.src.get(), b_n.dst.get()); }));
  }
  stop.store(true);
  spinner.join();
  std::sort(t1.begin(), t1.end());
  std::sort(t_n.begin(), t_n.end());
  state.counters["busy_n_over_1"] = t1[2] / t_n[2];
}

// A case of the table on one thread and on all, against memcpy and the
// streaming copy of the same bytes, in alternating batches: the one-thread
// ratios the summary prints survive a machine that other jobs share.
void BM_OneThread(benchmark::State& state, const Case& c) {
  Prepared p = Prepare(c);
  RelayoutOptions one, all;
  one.threads = 1;
  RelayoutPlan plan1 = *RelayoutPlan::Create(p.src, p.dst, one);
  RelayoutPlan plan_n = *RelayoutPlan::Create(p.src, p.dst, all);
  const int64_t src = plan1.src_bytes(), dst = plan1.dst_bytes(), bytes = p.element_bytes;
  std::vector<Side> sides = {
      {src, dst, [&](const char* s, char* d) { plan1.Execute(s, d); }},
      {src, dst, [&](const char* s, char* d) { plan_n.Execute(s, d); }},
      {bytes, bytes, [&](const char* s, char* d) { std::memcpy(d, s, bytes); }},
      {bytes, bytes, [&](const char* s, char* d) { StreamingCopy(s, d, bytes); }}};
  const size_t first_lines = sides.size();
  const std::vector<Side> lines = LinesSides(c.lines, src, dst, PlanStreams(plan1));
  sides.insert(sides.end(), lines.begin(), lines.end());
  std::vector<double> best;
  for (auto _ : state) best = BestOnOwnBuffers(RepsFor(dst), WarmRunsFor(dst), sides);
  state.counters["core1_s"] = best[0];
  state.counters["coreN_s"] = best[1];
  state.counters["memcpy_s"] = best[2];
  state.counters["stream_s"] = best[3];
  if (!lines.empty()) {
    state.counters["lines_s"] = *std::min_element(best.begin() + first_lines, best.end());
  }
  state.counters["threadsN"] = plan_n.threads();
  BusyRatio(state, sides[0], sides[1], plan_n.threads(), best[0]);
}

// Copies larger than this (source plus destination) are not replayed: the
// buffers would not fit beside other builds on a shared machine.
constexpr int64_t kMaxReplayBytes = int64_t{1} << 30;

// One inserted copy: its plan, built once on one thread, against memcpy of
// its element bytes, against the floor of any kernel (that memcpy plus a
// memset of the destination's padding) and against a plain vector copy of
// the element bytes (VectorCopy); where the copy reduces to one
// (replay_traffic.h), or its plan moves in 8x8 blocks (plan_traffic.h),
// against its own lines or runs moved with the plan's kind of stores; and,
// for the latter, against its blocks transposed by permutes alone. All in
// alternating batches. Counters give the sums the summary adds up.
void BM_Replay(benchmark::State& state, const bench::ReplayedCopy& c) {
  RelayoutOptions options;
  options.threads = 1;
  absl::StatusOr<RelayoutPlan> plan = RelayoutPlan::Create(c.src, c.dst, options);
  if (!plan.ok()) {
    state.SkipWithError(std::string(plan.status().message()).c_str());
    return;
  }
  const int64_t bytes = plan->element_bytes();
  const int64_t padding = std::max<int64_t>(0, plan->dst_bytes() - bytes);
  std::vector<Side> sides = {
      {plan->src_bytes(), plan->dst_bytes(),
       [&](const char* s, char* d) { plan->Execute(s, d); }},
      {bytes, bytes, [&](const char* s, char* d) { std::memcpy(d, s, bytes); }},
      {bytes, bytes + padding,
       [&](const char* s, char* d) {
         std::memcpy(d, s, bytes);
         std::memset(d + bytes, 0, padding);
       }},
      {bytes, bytes, [&](const char* s, char* d) { VectorCopy(s, d, bytes); }}};
  std::vector<bench::Mover> movers = bench::TrafficMovers(bench::ReduceForTraffic(c.src, c.dst));
  for (bench::Mover& lines : bench::PlanMovers(c.src, c.dst, bench::BlockMove::kLines)) {
    movers.push_back(std::move(lines));
  }
  const bool streams = PlanStreams(*plan);
  const std::vector<Side> traffic =
      LinesSides(movers, plan->src_bytes(), plan->dst_bytes(), streams);
  const std::vector<Side> permute =
      LinesSides(bench::PlanMovers(c.src, c.dst, bench::BlockMove::kPermute), plan->src_bytes(),
                 plan->dst_bytes(), streams);
  const size_t first_traffic = sides.size(), first_permute = first_traffic + traffic.size();
  sides.insert(sides.end(), traffic.begin(), traffic.end());
  sides.insert(sides.end(), permute.begin(), permute.end());
  std::vector<double> best;
  for (auto _ : state) {
    best = BestOnOwnBuffers(RepsFor(plan->dst_bytes()), WarmRunsFor(plan->dst_bytes()), sides);
  }
  if (!traffic.empty()) {
    state.counters["traffic_s"] =
        *std::min_element(best.begin() + first_traffic, best.begin() + first_permute);
  }
  if (!permute.empty()) state.counters["permute_s"] = best[first_permute];
  state.SetLabel(c.first_seen);
  state.counters["count"] = static_cast<double>(c.count);
  state.counters["element_bytes"] = static_cast<double>(bytes);
  state.counters["dst_bytes"] = static_cast<double>(plan->dst_bytes());
  state.counters["footprint"] = static_cast<double>(plan->src_bytes() + plan->dst_bytes());
  state.counters["core_s"] = best[0];
  state.counters["memcpy_s"] = best[1];
  state.counters["floor_s"] = best[2];
  state.counters["vcopy_s"] = best[3];
  const absl::StatusOr<CopyClass> copy_class = RelayoutPlan::Classify(c.src, c.dst);
  state.counters["copy_class"] = copy_class.ok() ? static_cast<double>(*copy_class) : -1;
}

// ---------------------------------------------------------------------------
// What bounds a transpose of 32-bit elements: the same 16x16 tiles moved by
// the fewest-shuffle register transposes (copy_reference.h), and the same
// 64-byte lines moved in the same order with no shuffle, beside the core's
// plan and the copy ceiling, in alternating batches. A copy in L1 is bound
// by its shuffles; one in L2 and beyond by how its lines scatter.

struct LimitCase {
  std::string name;
  int64_t rows, cols;  // the source, row-major; the destination is {0,1}
};

std::vector<LimitCase> LimitCases() {
  return {{"L1", 16, 128},    {"L2", 256, 256},     {"L2", 512, 256},
          {"L3", 1000, 1000}, {"L3", 1024, 1024}, {"DRAM", 4096, 4096}};
}

void BM_Limit(benchmark::State& state, const LimitCase& c) {
  const std::string f = absl::StrFormat("f32[%d,%d]", c.rows, c.cols);
  RelayoutOptions options;
  options.threads = 1;
  RelayoutPlan plan = *RelayoutPlan::Create(*ParseShape(f + "{1,0}"), *ParseShape(f + "{0,1}"),
                                            options);
  const bool stream = PlanStreams(plan);
  const int64_t bytes = plan.element_bytes(), ssb = c.cols * 4, dsa = c.rows * 4;
  std::vector<std::string> names = {"core", "memcpy", "stream"};
  std::vector<Side> sides = {
      {bytes, bytes, [&](const char* s, char* d) { plan.Execute(s, d); }},
      {bytes, bytes, [&](const char* s, char* d) { std::memcpy(d, s, bytes); }},
      {bytes, bytes, [&](const char* s, char* d) { StreamingCopy(s, d, bytes); }}};
  const std::pair<TileMove, const char*> moves[] = {
      {TileMove::kAvx2, "avx2"}, {TileMove::kAvx512, "avx512"}, {TileMove::kLines, "lines"}};
  for (const auto& [move, name] : moves) {
    if (!CanMoveTiles(move)) continue;
    for (int64_t strip_rows : {16, 256}) {
      // Nothing moves at size 0: this asks only whether these arguments
      // would be refused (streaming stores to rows not 64-byte aligned).
      if (!TransposeTiles(move, nullptr, nullptr, 0, 0, ssb, dsa, strip_rows, stream)) continue;
      names.push_back(absl::StrCat(name, strip_rows));
      sides.push_back({bytes, bytes, [&, move = move, strip_rows](const char* s, char* d) {
                         TransposeTiles(move, s, d, c.cols, c.rows, ssb, dsa, strip_rows, stream);
                       }});
    }
  }
  std::vector<double> best;
  for (auto _ : state) best = BestOnOwnBuffers(RepsFor(bytes), WarmRunsFor(bytes), sides);
  for (size_t i = 0; i < sides.size(); ++i) state.counters[names[i] + "_s"] = best[i];
  state.counters["bytes"] = static_cast<double>(bytes);
  state.counters["streaming"] = stream;
}

// The limits table: the ceiling (the better of memcpy and the streaming
// copy) over each side's time; for each reference, the better of its two
// strip heights, and which it was.
void LimitSummary(const std::vector<bench::Run>& runs, std::ostream& out) {
  bool header = false;
  for (const bench::Run& run : runs) {
    if (run.benchmark_name().rfind("limit/", 0) != 0) continue;
    const auto& k = run.counters;
    if (!header) {
      out << "\nWhat bounds a transpose (f32 {1,0} -> {0,1}, one thread): ceiling / time, "
             "alternating batches, best of five:\n"
          << absl::StrFormat("%-18s %9s %9s %7s %11s %11s %11s %7s\n", "case", "bytes",
                             "ceil us", "core", "avx2", "avx512", "lines", "stores");
      header = true;
    }
    const double ceiling = std::min(k.at("memcpy_s").value, k.at("stream_s").value);
    const std::string& name = run.benchmark_name();
    std::string row = absl::StrFormat(
        "%-18s %9d %9.2f %6.2fx", name.substr(6, name.find('/', 6) - 6),
        static_cast<int64_t>(k.at("bytes").value), ceiling * 1e6, ceiling / k.at("core_s").value);
    for (const char* side : {"avx2", "avx512", "lines"}) {
      double best = 0;
      int strip = 0;
      for (int rows : {16, 256}) {
        auto it = k.find(absl::StrCat(side, rows, "_s"));
        if (it != k.end() && ceiling / it->second.value > best) {
          best = ceiling / it->second.value;
          strip = rows;
        }
      }
      row += best > 0 ? absl::StrFormat(" %6.2fx/%-3d", best, strip)
                      : absl::StrFormat(" %11s", "-");
    }
    out << row << absl::StrFormat(" %7s\n", k.at("streaming").value > 0 ? "stream" : "cached");
  }
  if (header) {
    out << "avx2, avx512 = the same 16x16 tiles through each ISA's register transpose of fewest "
           "shuffles; lines = the same 64-byte lines, unshuffled (xla_layout/copy_reference.h); "
           "each in strips of 16 or 256 source rows, the better shown (/16, /256); stores = "
           "ordinary, or streaming where the core's plan streams.\n";
  }
}

void RegisterLimits() {
  for (const LimitCase& c : LimitCases()) {
    const std::string name =
        absl::StrFormat("limit/%s_f32[%d,%d]/", c.name, c.rows, c.cols);
    benchmark::RegisterBenchmark(name.c_str(), [c](benchmark::State& st) { BM_Limit(st, c); })
        ->Iterations(1)
        ->Unit(benchmark::kMicrosecond);
  }
}

void RegisterReplay() {
  const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  const std::string root = ws != nullptr ? ws : ".";
  std::optional<std::string> corpus = HloCorpusDir();
  const bench::ReplayedCopies found = bench::CollectReplayedCopies(
      {root + "/examples", root + "/tests/golden",
       corpus.value_or(root + "/../shared/hlo-corpus")});
  std::cerr << "replay: " << found.copies.size() << " distinct copies from "
            << found.modules << " module runs (" << found.modules_skipped
            << " skipped: not parsed, verified or laid out)\n";
  // Outside `bazel run` the folders are read from the current directory.
  for (const std::string& u : found.unreadable) {
    std::cerr << "replay: no modules read from " << u
              << " (run from the checkout or with bazel run)\n";
  }
  int i = 0;
  for (const bench::ReplayedCopy& c : found.copies) {
    absl::StatusOr<TiledLayout> s = TiledLayout::Create(c.src);
    absl::StatusOr<TiledLayout> d = TiledLayout::Create(c.dst);
    if (!s.ok() || !d.ok() || s->byte_size() + d->byte_size() > kMaxReplayBytes) {
      std::cerr << "replay: not replayed (over 1 GiB or no size): " << c.src.ToString()
                << " -> " << c.dst.ToString() << "\n";
      continue;
    }
    const std::string name = absl::StrFormat("replay/%03d/%s->%s", i++, c.src.ToString(),
                                             c.dst.ToString());
    benchmark::RegisterBenchmark(name.c_str(), [c](benchmark::State& st) { BM_Replay(st, c); })
        ->Iterations(1)
        ->Unit(benchmark::kMicrosecond);
  }
}

// XLA's TransposePlan on one thread, as ratios to memcpy: figures quoted
// from issue 31 (measured elsewhere, in the same process as the core; XLA
// is not built here), against which one thread of the core should reach
// 1.25x.
double QuotedXlaRatio(const std::string& name) {
  static const auto* quoted = new std::map<std::string, double>{
      {"f32_1000_transpose", 0.62}, {"f32_1000_to_T8x128", 0.83}, {"f32_4096_transpose", 0.27},
      {"f32_4096_to_T8x128", 0.90}, {"bf16_4096_to_T8x128_2x1", 0.38}};
  auto it = quoted->find(name);
  return it == quoted->end() ? 0 : it->second;
}

// The one-thread table from the alternating batches of BM_OneThread.
void OneThreadSummary(const std::vector<bench::Run>& runs, std::ostream& out) {
  bool header = false;
  for (const bench::Run& run : runs) {
    if (run.benchmark_name().rfind("onethread/", 0) != 0) continue;
    const auto& k = run.counters;
    if (!header) {
      out << "\nOne thread against the one-thread ceiling (the better of memcpy and the "
             "streaming copy), alternating batches, best of five:\n"
          << absl::StrFormat("%-30s %8s %8s %8s %8s %8s %8s %7s %7s %7s %7s %9s\n", "case",
                             "core1 us", "coreN us", "mcpy us", "strm us", "1/ceil", "N/1",
                             "N/1 bsy", "1/mcpy", "lines", "l/mcpy", "XLA quoted");
      header = true;
    }
    const double core1 = k.at("core1_s").value, core_n = k.at("coreN_s").value;
    const double memcpy = k.at("memcpy_s").value;
    const double ceiling = std::min(memcpy, k.at("stream_s").value);
    std::string name = run.benchmark_name().substr(10);
    name = name.substr(0, name.find('/'));
    const double xla = QuotedXlaRatio(name);
    auto lines = k.find("lines_s");
    const std::string lines_ratios =
        lines == k.end() ? absl::StrFormat("%7s %7s", "-", "-")
                         : absl::StrFormat("%6.2fx %6.2fx", ceiling / lines->second.value,
                                           memcpy / lines->second.value);
    auto busy = k.find("busy_n_over_1");
    const std::string busy_ratio = busy == k.end()
                                       ? absl::StrFormat("%7s", "-")
                                       : absl::StrFormat("%6.2fx", busy->second.value);
    out << absl::StrFormat(
        "%-30s %8.1f %8.1f %8.1f %8.1f %7.2fx %7.2fx %s %6.2fx %s %s\n", name, core1 * 1e6,
        core_n * 1e6, memcpy * 1e6, k.at("stream_s").value * 1e6, ceiling / core1,
        core1 / core_n, busy_ratio, memcpy / core1, lines_ratios,
        xla > 0 ? absl::StrFormat("%5.2fx %s", xla,
                                  memcpy / core1 >= 1.25 * xla ? ">=1.25x" : "<1.25x")
                : std::string(""));
  }
  if (header) {
    out << "N/1 = one thread's time over all threads' (the plan's own choice); N/1 bsy = the "
           "same, medians of five batches of 30 ms or more, while another thread spins (no "
           "core free for the second thread). 1/mcpy = one "
           "thread over memcpy; XLA quoted = TransposePlan's one-thread ratio to memcpy as "
           "issue 31 quotes it (measured elsewhere, not in this run), and whether 1/mcpy is at "
           "1.25x of it. lines = the ceiling, l/mcpy = memcpy, over the time of the same lines "
           "or runs moved with nothing moved within them, the core's kind of stores, the better "
           "strip (copy_reference.h: TransposeTiles' kLines, CopyTileRuns, PairLinesT8x128): "
           "what the conversion's traffic alone costs.\n";
  }
}

// A closing table of GB/s and ratios per case.
void Summary(const std::vector<bench::Run>& runs, std::ostream& out) {
  std::map<std::string, std::map<std::string, double>> gbps;
  for (const bench::Run& run : runs) {
    auto it = run.counters.find("bytes_per_second");
    if (it == run.counters.end()) continue;
    std::string name = run.benchmark_name();
    size_t slash = name.find('/');
    std::string variant = name.substr(0, slash);
    std::string rest = name.substr(slash + 1);
    rest = rest.substr(0, rest.find('/'));
    rest = rest.substr(0, rest.find("_median"));
    gbps[rest][variant] = it->second.value / 1e9;
  }
  out << "\nGB/s (read + write, no padding) and ratios, same run:\n";
  out << absl::StrFormat(
      "%-26s %7s %7s %7s %7s %7s %7s %7s | %7s %7s %7s %7s %7s %7s\n", "case",
      "core1", "coreN", "naive", "memcpy", "stream", "streamN", "onednn",
      "N/mcpy", "N/strm", "N/dnnl", "1/naiv", "coreN/1", "1/ceil");
  for (const auto& [name, v] : gbps) {
    auto get = [&](const char* k) {
      auto it = v.find(k);
      return it == v.end() ? 0.0 : it->second;
    };
    auto ratio = [](double a, double b) {
      return a > 0 && b > 0 ? absl::StrFormat("%6.2fx", a / b) : std::string("    n/a");
    };
    auto val = [](double a) {
      return a > 0 ? absl::StrFormat("%7.2f", a) : std::string("    n/a");
    };
    double best = std::max(get("core_1thread"), get("core_allthreads"));
    out << absl::StrFormat(
        "%-26s %s %s %s %s %s %s %s | %s %s %s %s %s %s\n", name,
        val(get("core_1thread")), val(get("core_allthreads")),
        val(get("naive")), val(get("memcpy")), val(get("streamcopy")),
        val(get("streamcopy_allthreads")), val(get("onednn")),
        ratio(best, get("memcpy")), ratio(best, get("streamcopy")),
        ratio(best, get("onednn")), ratio(get("core_1thread"), get("naive")),
        ratio(get("core_allthreads"), get("core_1thread")),
        ratio(get("core_1thread"), std::max(get("memcpy"), get("streamcopy"))));
  }
  out << "N = the better of core1 and coreN (all hardware threads: "
      << std::thread::hardware_concurrency()
      << "); streamN = the streaming copy on all of them, each on its own "
         "share.\n"
      << "1/ceil = core1 over the one-thread ceiling, the better of memcpy and stream.\n";
  OneThreadSummary(runs, out);
  LimitSummary(runs, out);
  ReplaySummary(runs, out);
  ReplayMisses(runs, out);
}

void RegisterAll() {
  int all = static_cast<int>(std::thread::hardware_concurrency());
  for (const Case& c : Cases()) {
    auto reg = [&](const std::string& variant, auto fn) {
      return benchmark::RegisterBenchmark((variant + "/" + c.name).c_str(), fn)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    };
    reg("core_1thread", [c](benchmark::State& s) { BM_Core(s, c, 1); });
    reg("core_allthreads", [c, all](benchmark::State& s) { BM_Core(s, c, all); });
    reg("naive", [c](benchmark::State& s) { BM_Naive(s, c); })->Iterations(1);
    reg("memcpy", [c](benchmark::State& s) { BM_Memcpy(s, c); });
    reg("streamcopy", [c](benchmark::State& s) { BM_StreamCopy(s, c); });
    reg("streamcopy_allthreads",
        [c, all](benchmark::State& s) { BM_StreamCopyThreads(s, c, all); });
    if (c.dnnl) reg("onednn", [c](benchmark::State& s) { BM_OneDnn(s, c); });
    reg("onethread", [c](benchmark::State& s) { BM_OneThread(s, c); })->Iterations(1);
  }
  RegisterLimits();
  RegisterReplay();
}

}  // namespace
}  // namespace xla_layout

int main(int argc, char** argv) {
  return xla_layout::bench::BenchmarkMain(argc, argv, xla_layout::RegisterAll,
                                          xla_layout::Summary);
}
