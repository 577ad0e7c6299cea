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
#include "bench/bench_main.h"
#include "benchmark/benchmark.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_verifier.h"
#include "bench/synthetic_hlo.h"

namespace xla_layout {
namespace {

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

// Seconds of parse+verify+print per size, and how they scale.
void Summary(const std::vector<bench::Run>& runs, std::ostream& out) {
  std::map<int64_t, double> seconds;
  for (const bench::Run& run : runs) {
    if (run.benchmark_name().rfind("all/", 0) != 0) continue;
    int64_t n = run.counters.at("instructions").value;
    seconds[n] = run.GetAdjustedRealTime() / 1e3;  // unit is ms
  }
  out << "\nparse+verify+print, seconds per module:\n";
  double prev_n = 0, prev_s = 0;
  for (const auto& [n, s] : seconds) {
    out << absl::StrFormat("  %8d instructions: %.3f s", n, s);
    if (prev_n > 0) {
      out << absl::StrFormat("  (%s; linear would be %.3f s)",
                             bench::ScalingNote(prev_n, prev_s, n, s),
                             prev_s * (n / prev_n));
    }
    out << "\n";
    prev_n = n;
    prev_s = s;
  }
}

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
  return xla_layout::bench::BenchmarkMain(argc, argv, xla_layout::RegisterAll,
                                          xla_layout::Summary);
}
