// The one main() of the benchmarks: Google Benchmark's console output, then
// a summary table each benchmark writes from the runs it measured (ratios to
// the references measured in the same run, scaling between sizes).
#ifndef BENCH_BENCH_MAIN_H_
#define BENCH_BENCH_MAIN_H_

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"

namespace xla_layout::bench {

using Run = benchmark::BenchmarkReporter::Run;

// "2.10x the time for 10.0x the instructions": how a figure grew between two
// sizes.
std::string ScalingNote(double prev_n, double prev_seconds, double n,
                        double seconds);

// Registers the benchmarks with `register_all`, runs the ones the command
// line selects, and after the console output calls `summary` with every
// measurement: each plain run, or with --benchmark_repetitions the medians
// (which come after, so a summary keyed by case keeps the median).
int BenchmarkMain(
    int argc, char** argv, const std::function<void()>& register_all,
    const std::function<void(const std::vector<Run>&, std::ostream&)>& summary);

}  // namespace xla_layout::bench

#endif  // BENCH_BENCH_MAIN_H_
