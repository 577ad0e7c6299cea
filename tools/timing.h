// Wall-clock helpers of the calibration: a call timed over at least a
// millisecond, the time since a start, the median of samples.
#ifndef TOOLS_TIMING_H_
#define TOOLS_TIMING_H_

#include <algorithm>
#include <chrono>
#include <vector>

namespace xla_layout::cli {

// Seconds per call of `fn`: enough calls to pass a millisecond, after one
// warm-up call.
template <typename Fn>
double Time(Fn&& fn) {
  fn();
  int calls = 0;
  auto start = std::chrono::steady_clock::now();
  std::chrono::duration<double> elapsed{0};
  do {
    fn();
    ++calls;
    elapsed = std::chrono::steady_clock::now() - start;
  } while (elapsed.count() < 1e-3);
  return elapsed.count() / calls;
}

inline double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The middle sample (the upper one of an even count); `v` is not empty.
inline double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace xla_layout::cli

#endif  // TOOLS_TIMING_H_
