// The layout assignment pass on the corpus's MobileNet v2 training step
// (copies, bytes, pass time per target), and on synthetic MLP-like modules
// of 10k, 100k and 1M instructions that write no layouts, after parsing, per target. Each
// row also times, in the same run, two references over the same module: a
// parse of its text and a post-order walk of every computation (the
// cheapest pass conceivable), so the pass's cost reads as a ratio that
// survives a noisy machine. The table at the end checks linear scaling.
//
//   bazel run -c opt //bench:layout_assignment_bench
#include <chrono>
#include <map>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "bench/synthetic_hlo.h"
#include "bench/bench_main.h"
#include "benchmark/benchmark.h"
#include "hlo/hlo_corpus.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_verifier.h"
#include "passes/layout_assignment/layout_assignment.h"
#include "xla_layout/file_io.h"

namespace xla_layout {
namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since)
      .count();
}

void BM_LayoutAssignment(benchmark::State& state, const char* target) {
  const int64_t n = state.range(0);
  const std::string text = SyntheticModule(n, /*layouts=*/false);
  double parse_s = 0, walk_s = 0;
  int64_t instructions = 0, copies = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto t0 = std::chrono::steady_clock::now();
    std::unique_ptr<HloModule> m = *ParseHloModule(text);
    parse_s += Seconds(t0);
    t0 = std::chrono::steady_clock::now();
    int64_t visited = 0;
    for (HloComputation* c : m->computations()) visited += c->MakePostOrder().size();
    benchmark::DoNotOptimize(visited);
    walk_s += Seconds(t0);
    instructions = m->instruction_count();
    LayoutAssignment pass(*TargetConfig::Builtin(target));
    state.ResumeTiming();
    absl::StatusOr<bool> ran = pass.Run(*m);
    state.PauseTiming();
    if (!ran.ok()) state.SkipWithError(std::string(ran.status().message()).c_str());
    copies = pass.stats().copies.size();
    m.reset();  // freeing a large module is not the pass's cost
    state.ResumeTiming();
  }
  double iterations = static_cast<double>(state.iterations());
  state.counters["instructions"] = static_cast<double>(instructions);
  state.counters["copies"] = static_cast<double>(copies);
  state.counters["parse_s"] = parse_s / iterations;
  state.counters["walk_s"] = walk_s / iterations;
  state.counters["instructions/s"] = benchmark::Counter(
      static_cast<double>(instructions) * iterations, benchmark::Counter::kIsRate);
}

// Seconds per size with the references, and how the pass scales.
void Summary(const std::vector<bench::Run>& runs, std::ostream& out) {
  struct Row {
    double pass = 0, parse = 0, walk = 0;
  };
  std::map<std::string, std::map<int64_t, Row>> rows;
  for (const bench::Run& run : runs) {
    if (run.counters.find("walk_s") == run.counters.end()) continue;
    Row row;
    row.pass = run.GetAdjustedRealTime() / 1e3;  // unit is ms
    row.parse = run.counters.at("parse_s").value;
    row.walk = run.counters.at("walk_s").value;
    std::string name = run.benchmark_name();
    rows[name.substr(0, name.find('/'))]
        [static_cast<int64_t>(run.counters.at("instructions").value)] = row;
  }
  for (const auto& [target, sizes] : rows) {
    out << "\n" << target << ": seconds per module (pass / parse / walk)\n";
    double prev_n = 0, prev_s = 0;
    for (const auto& [n, row] : sizes) {
      out << absl::StrFormat(
          "  %8d instructions: pass %.3f s, parse %.3f s (pass/parse %.2fx), "
          "walk %.4f s",
          n, row.pass, row.parse, row.pass / row.parse, row.walk);
      if (prev_n > 0) out << "; " << bench::ScalingNote(prev_n, prev_s, n, row.pass);
      out << "\n";
      prev_n = n;
      prev_s = row.pass;
    }
  }
  // The chain pipeline: phases per size, and the scaling the issue bounds,
  // beside the touch reference's.
  double prev_n = 0, prev_s = 0, prev_touch = 0;
  for (const bench::Run& run : runs) {
    if (run.benchmark_name().rfind("chain_pipeline", 0) != 0) continue;
    const auto& c = run.counters;
    double n = c.at("instructions").value, s = run.GetAdjustedRealTime() / 1e3;
    const double touch = c.at("touch_s").value;
    if (prev_n == 0) out << "\nchain pipeline (tpu): seconds per module\n";
    out << absl::StrFormat(
        "  %8.0f instructions: %.3f s = parse %.3f + verify %.3f + pass %.3f + "
        "print %.3f + free %.3f; touch %.4f s",
        n, s, c.at("parse_s").value, c.at("verify_s").value, c.at("pass_s").value,
        c.at("print_s").value, c.at("free_s").value, touch);
    if (prev_n > 0) {
      out << "; " << bench::ScalingNote(prev_n, prev_s, n, s)
          << absl::StrFormat(", touch %.2fx", touch / prev_touch);
    }
    out << "\n";
    prev_n = n;
    prev_s = s;
    prev_touch = touch;
  }
  if (prev_n > 0) {
    out << "touch = one read of every instruction's opcode, operand count and shape rank, in "
           "order (outside the row's time): how the machine's caches make any walk over the "
           "module grow with its size.\n";
  }
}

// One read of every instruction's opcode, operand count and shape rank, in
// order: the least any walk over the module reads.
// How its time grows with the module is how the machine's caches make any
// such walk grow, whatever the walk computes.
int64_t TouchEveryInstruction(const HloModule& m) {
  int64_t sum = 0;
  for (HloComputation* c : m.computations()) {
    for (const HloInstruction* i : c->instruction_range()) {
      sum += i->operand_count() + i->shape().rank() + static_cast<int>(i->opcode());
    }
  }
  return sum;
}

// The pipeline module (ChainModule: dot, transpose, transpose back,
// add on f32[64,256], no layouts written) through what `hlo-layout FILE
// --passes=layout-assignment --target=tpu` does: parse, verify, the pass,
// print, and freeing the module. The row's time is the whole; the counters
// split it by phase (seconds per module). A reference outside the row's
// time: one touch of every instruction (TouchEveryInstruction), after the
// verifier, so that the machine's own growth from 100k to 1M reads beside
// the pipeline's.
void BM_ChainPipeline(benchmark::State& state) {
  const std::string text = ChainModule(state.range(0));
  double parse_s = 0, verify_s = 0, pass_s = 0, print_s = 0, free_s = 0, touch_s = 0;
  int64_t instructions = 0, bytes_out = 0;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    std::unique_ptr<HloModule> m = *ParseHloModule(text);
    parse_s += Seconds(t0);
    t0 = std::chrono::steady_clock::now();
    if (!VerifyModule(*m).ok()) state.SkipWithError("verify failed");
    verify_s += Seconds(t0);
    state.PauseTiming();
    t0 = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(TouchEveryInstruction(*m));
    touch_s += Seconds(t0);
    state.ResumeTiming();
    instructions = m->instruction_count();
    t0 = std::chrono::steady_clock::now();
    LayoutAssignment pass(*TargetConfig::Builtin("tpu"));
    absl::StatusOr<bool> ran = pass.Run(*m);
    if (!ran.ok()) state.SkipWithError(std::string(ran.status().message()).c_str());
    pass_s += Seconds(t0);
    t0 = std::chrono::steady_clock::now();
    std::string out = m->ToString();
    bytes_out = static_cast<int64_t>(out.size());
    benchmark::DoNotOptimize(out);
    print_s += Seconds(t0);
    t0 = std::chrono::steady_clock::now();
    m.reset();
    free_s += Seconds(t0);
  }
  double iterations = static_cast<double>(state.iterations());
  state.counters["instructions"] = static_cast<double>(instructions);
  state.counters["parse_s"] = parse_s / iterations;
  state.counters["verify_s"] = verify_s / iterations;
  state.counters["pass_s"] = pass_s / iterations;
  state.counters["print_s"] = print_s / iterations;
  state.counters["free_s"] = free_s / iterations;
  state.counters["touch_s"] = touch_s / iterations;
  state.counters["bytes_out"] = static_cast<double>(bytes_out);
}

// The corpus's models: MobileNet v2's training step and the framework dumps
// under real/ (../shared/hlo-corpus beside the repository, or
// $HLO_CORPUS_DIR): per target, the pass's time, its copies, the bytes they
// move per step and the padding of the layouts it chose.
void BM_CorpusModel(benchmark::State& state, const CorpusFile& file, const char* target) {
  int64_t copies = 0, copy_bytes = 0, padding = 0;
  for (auto _ : state) {
    state.PauseTiming();
    absl::StatusOr<std::unique_ptr<HloModule>> m =
        ParseHloModule(file.text, file.relative, nullptr, CorpusParseOptions(file));
    if (!m.ok()) {
      state.SkipWithError(std::string(m.status().message()).c_str());
      return;
    }
    LayoutAssignment pass(*TargetConfig::Builtin(target));
    state.ResumeTiming();
    absl::StatusOr<bool> ran = pass.Run(**m);
    state.PauseTiming();
    if (!ran.ok()) state.SkipWithError(std::string(ran.status().message()).c_str());
    copies = pass.stats().copies.size();
    copy_bytes = 0;
    for (const auto& c : pass.stats().copies) copy_bytes += c.bytes;
    padding = pass.stats().padded_bytes - pass.stats().data_bytes;
    m->reset();
    state.ResumeTiming();
  }
  state.counters["copies"] = static_cast<double>(copies);
  state.counters["copy_MB"] = static_cast<double>(copy_bytes) / 1e6;
  state.counters["padding_MB"] = static_cast<double>(padding) / 1e6;
}

// MobileNet v2 and every module under real/, when the corpus is there.
std::vector<CorpusFile> CorpusModels() {
  std::optional<std::string> dir = HloCorpusDir();
  if (!dir) dir = "../shared/hlo-corpus";
  absl::StatusOr<std::vector<CorpusFile>> files = ReadHloCorpus(*dir);
  std::vector<CorpusFile> models;
  if (!files.ok()) return models;
  for (CorpusFile& f : *files) {
    if (f.relative == "mobilenet_v2_train_step.hlo" ||
        absl::StartsWith(f.relative, "real/")) {
      models.push_back(std::move(f));
    }
  }
  return models;
}

void RegisterAll() {
  static const std::vector<CorpusFile> models = CorpusModels();
  for (const CorpusFile& model : models) {
    for (const char* target : {"default", "tpu", "cpu-avx2", "cpu-avx512", "arm64"}) {
      benchmark::RegisterBenchmark(
          absl::StrFormat("model/%s/%s", model.relative, target).c_str(),
          [&model, target](benchmark::State& s) { BM_CorpusModel(s, model, target); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime()
          ->Iterations(3);
    }
  }
  benchmark::RegisterBenchmark("chain_pipeline_tpu", BM_ChainPipeline)
      ->Arg(100000)
      ->Arg(1000000)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime()
      ->Iterations(3);
  for (const char* target : {"tpu", "cpu-avx2"}) {
    std::string name = absl::StrFormat("layout_assignment_%s", target);
    benchmark::RegisterBenchmark(name.c_str(), [target](benchmark::State& s) {
      BM_LayoutAssignment(s, target);
    })
        ->Arg(10000)
        ->Arg(100000)
        ->Arg(1000000)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->Iterations(3);
  }
}

}  // namespace
}  // namespace xla_layout

int main(int argc, char** argv) {
  return xla_layout::bench::BenchmarkMain(argc, argv, xla_layout::RegisterAll,
                                          xla_layout::Summary);
}
