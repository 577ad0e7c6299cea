// The fixed cost of running a small plan (relayout_small.h): copies of a
// few bytes, where what a run costs besides moving its bytes decides the
// ratio to memcpy. Each case runs its plan (built once, one thread) and
// memcpy of the same bytes in alternating batches, best of five, and
// prints nanoseconds per run of each.
//
//   bazel run -c opt //bench:small_plan_bench [SOURCE-SHAPE-PART]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "xla_layout/relayout.h"
#include "xla_layout/shape_text.h"

namespace xla_layout {
namespace {

// Seconds per call of `fn` over one batch of `reps` calls.
double BatchSeconds(int64_t reps, const std::function<void()>& fn) {
  const auto start = std::chrono::steady_clock::now();
  for (int64_t r = 0; r < reps; ++r) {
    fn();
    benchmark::ClobberMemory();
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() /
         static_cast<double>(reps);
}

// Runs the cases whose source shape contains `only` (all when empty).
int Run(const std::string& only) {
  const char* cases[][2] = {
      {"f32[16]{0}", "f32[16]{0}"},  // 64 bytes: the fixed cost
      {"f32[64]{0}", "f32[64]{0}"},
      {"f32[256]{0}", "f32[256]{0}"},
      {"f32[4,4]{1,0}", "f32[4,4]{0,1}"},
      {"f32[8,16]{0,1}", "f32[8,16]{1,0}"},
      {"f32[128]{0}", "f32[128]{0:T(256)}"},
      {"f32[16,16]{1,0}", "f32[16,16]{1,0:T(8,1)}"},
      {"f32[16,16]{1,0}", "f32[16,16]{1,0:T(16,1)}"},
      {"f32[16,32]{0,1}", "f32[16,32]{1,0}"},
      {"f32[8,128]{0,1}", "f32[8,128]{1,0}"},
      {"f32[32,128]{1,0}", "f32[32,128]{0,1}"},
      {"f32[32,1,3,3]{3,2,1,0}", "f32[32,1,3,3]{0,1,3,2}"},  // [C,9] weights
      {"f32[96,1,3,3]{3,2,1,0}", "f32[96,1,3,3]{0,1,3,2}"},
      {"f32[96,16,1,1]{3,2,1,0}", "f32[96,16,1,1]{0,1,3,2:T(8,128)}"},
  };
  std::printf("%-44s %10s %10s %7s\n", "copy", "plan ns", "memcpy ns", "ratio");
  for (const auto& c : cases) {
    if (std::string(c[0]).find(only) == std::string::npos) continue;
    absl::StatusOr<Shape> src = ParseShape(c[0]), dst = ParseShape(c[1]);
    if (!src.ok() || !dst.ok()) return 1;
    RelayoutOptions options;
    options.threads = 1;
    absl::StatusOr<RelayoutPlan> plan = RelayoutPlan::Create(*src, *dst, options);
    if (!plan.ok()) return 1;
    const int64_t bytes = plan->element_bytes();
    std::vector<char> s(plan->src_bytes() + 64), d(plan->dst_bytes() + 64);
    std::vector<char> ms(bytes + 64), md(bytes + 64);
    const std::function<void()> fns[2] = {
        [&] { plan->Execute(s.data(), d.data()); },
        [&] { std::memcpy(md.data(), ms.data(), bytes); }};
    double best[2] = {1e30, 1e30};
    constexpr int64_t kReps = 200000;
    for (int round = 0; round < 7; ++round) {
      for (int k = 0; k < 2; ++k) best[k] = std::min(best[k], BatchSeconds(kReps, fns[k]));
    }
    const std::string name = std::string(c[0]) + " -> " + c[1];
    std::printf("%-44s %10.2f %10.2f %6.2fx\n", name.c_str(), best[0] * 1e9, best[1] * 1e9,
                best[1] / best[0]);
  }
  return 0;
}

}  // namespace
}  // namespace xla_layout

int main(int argc, char** argv) { return xla_layout::Run(argc > 1 ? argv[1] : ""); }
