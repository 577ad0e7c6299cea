#include "bench/bench_main.h"

#include "absl/strings/str_format.h"

namespace xla_layout::bench {
namespace {

class SummaryReporter : public benchmark::ConsoleReporter {
 public:
  explicit SummaryReporter(
      const std::function<void(const std::vector<Run>&, std::ostream&)>& summary)
      : summary_(summary) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
      if (run.error_occurred || (run.run_type != Run::RT_Iteration && !median)) continue;
      measured_.push_back(run);
    }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    summary_(measured_, GetOutputStream());
  }

 private:
  const std::function<void(const std::vector<Run>&, std::ostream&)>& summary_;
  std::vector<Run> measured_;
};

}  // namespace

std::string ScalingNote(double prev_n, double prev_seconds, double n,
                        double seconds) {
  return absl::StrFormat("%.2fx the time for %.1fx the instructions",
                         seconds / prev_seconds, n / prev_n);
}

int BenchmarkMain(
    int argc, char** argv, const std::function<void()>& register_all,
    const std::function<void(const std::vector<Run>&, std::ostream&)>& summary) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  register_all();
  SummaryReporter reporter(summary);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}

}  // namespace xla_layout::bench
