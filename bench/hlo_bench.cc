// Parse, verify and print of synthetic HLO modules of 10k, 100k and 1M
// instructions with realistic shapes and attributes. Reports MB/s of text
// and instructions per second; the table at the end checks linear scaling.
//
//   bazel run -c opt //bench:hlo_bench
#include <cstdio>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "benchmark/benchmark.h"
#include "passes/hlo_parser.h"
#include "passes/hlo_verifier.h"

namespace xla_layout {
namespace {

// A module of about `n` instructions: an MLP-like chain of layers, each a
// dot, bias broadcast, add, maximum, a transpose/reshape pair and a reduce,
// with metadata on most instructions.
std::string SyntheticModule(int64_t n) {
  std::string text =
      "HloModule synthetic, replica_count=1\n\n"
      "add_f32 {\n  sa = f32[] parameter(0)\n  sb = f32[] parameter(1)\n"
      "  ROOT ss = f32[] add(sa, sb)\n}\n\n"
      "ENTRY main {\n"
      "  x.0 = f32[128,256]{1,0} parameter(0)\n"
      "  w = f32[256,256]{1,0} parameter(1)\n"
      "  b = f32[256]{0} parameter(2)\n"
      "  zero = f32[] constant(0)\n";
  int64_t count = 7;
  int64_t layer = 0;
  while (count + 9 <= n) {
    std::string l = absl::StrCat(layer);
    std::string meta = absl::StrCat(
        ", metadata={op_type=\"Dense\" op_name=\"model/layer_", l,
        "/MatMul\" source_file=\"model.py\" source_line=", 10 + layer % 90, "}");
    absl::StrAppend(
        &text, "  d.", l, " = f32[128,256]{1,0} dot(f32[128,256]{1,0} x.", l,
        ", f32[256,256]{1,0} w), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
        meta, "\n", "  bb.", l,
        " = f32[128,256]{1,0} broadcast(b), dimensions={1}\n", "  a.", l,
        " = f32[128,256]{1,0} add(d.", l, ", bb.", l, ")", meta, "\n", "  zb.", l,
        " = f32[128,256]{1,0} broadcast(zero), dimensions={}\n", "  r.", l,
        " = f32[128,256]{1,0} maximum(a.", l, ", zb.", l, ")\n", "  t.", l,
        " = f32[256,128]{0,1} transpose(r.", l, "), dimensions={1,0}\n",
        "  rs.", l, " = f32[256,2,64]{2,1,0} reshape(t.", l, ")\n", "  s.", l,
        " = f32[256]{0} reduce(rs.", l, ", zero), dimensions={1,2}, to_apply=add_f32\n");
    absl::StrAppend(&text, "  x.", layer + 1, " = f32[128,256]{1,0} negate(r.", l,
                    ")", meta, "\n");
    count += 9;
    ++layer;
  }
  absl::StrAppend(&text, "  ROOT out = f32[128,256]{1,0} copy(x.", layer, ")\n}\n");
  return text;
}

enum class Phase { kParse, kVerify, kPrint, kAll };

void BM_Hlo(benchmark::State& state, Phase phase) {
  const int64_t n = state.range(0);
  std::string text = SyntheticModule(n);
  std::unique_ptr<HloModule> parsed = *ParseHloModule(text);
  const int64_t instructions = parsed->instruction_count();
  for (auto _ : state) {
    switch (phase) {
      case Phase::kParse:
        benchmark::DoNotOptimize(ParseHloModule(text));
        break;
      case Phase::kVerify:
        benchmark::DoNotOptimize(VerifyModule(*parsed));
        break;
      case Phase::kPrint:
        benchmark::DoNotOptimize(parsed->ToString());
        break;
      case Phase::kAll: {
        std::unique_ptr<HloModule> m = *ParseHloModule(text);
        if (!VerifyModule(*m).ok()) state.SkipWithError("verify failed");
        benchmark::DoNotOptimize(m->ToString());
        break;
      }
    }
  }
  state.SetBytesProcessed(state.iterations() * text.size());
  state.counters["instructions/s"] = benchmark::Counter(
      static_cast<double>(instructions * state.iterations()),
      benchmark::Counter::kIsRate);
  state.counters["instructions"] = static_cast<double>(instructions);
}

// Prints seconds of parse+verify+print per size and the doubling ratios.
class ScalingReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred || run.run_type != Run::RT_Iteration) continue;
      std::string name = run.benchmark_name();
      if (name.rfind("all/", 0) != 0) continue;
      int64_t n = run.counters.at("instructions").value;
      seconds_[n] = run.GetAdjustedRealTime() / 1e3;  // unit is ms
    }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    auto& out = GetOutputStream();
    out << "\nparse+verify+print, seconds per module:\n";
    double prev_n = 0, prev_s = 0;
    for (const auto& [n, s] : seconds_) {
      out << absl::StrFormat("  %8d instructions: %.3f s", n, s);
      if (prev_n > 0) {
        double expected = prev_s * (n / prev_n);
        out << absl::StrFormat("  (%.2fx the time for %.1fx the instructions; "
                               "linear would be %.3f s)",
                               s / prev_s, n / prev_n, expected);
      }
      out << "\n";
      prev_n = n;
      prev_s = s;
    }
  }

 private:
  std::map<int64_t, double> seconds_;
};

void RegisterAll() {
  for (auto [name, phase] :
       {std::pair<const char*, Phase>{"parse", Phase::kParse},
        {"verify", Phase::kVerify},
        {"print", Phase::kPrint},
        {"all", Phase::kAll}}) {
    benchmark::RegisterBenchmark(name, [phase = phase](benchmark::State& s) {
      BM_Hlo(s, phase);
    })
        ->Arg(10000)
        ->Arg(100000)
        ->Arg(200000)
        ->Arg(400000)
        ->Arg(1000000)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
}

}  // namespace
}  // namespace xla_layout

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  xla_layout::RegisterAll();
  xla_layout::ScalingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
