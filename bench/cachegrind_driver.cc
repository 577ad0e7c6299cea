// A driver for valgrind --tool=cachegrind: the same setup in every mode, then
// one relayout, one memcpy of the same bytes, or nothing. Subtracting the
// "none" run leaves the instructions and cache misses of the operation alone.
//
//   XLA_LAYOUT_ISA=avx2 valgrind --tool=cachegrind
//     bazel-bin/bench/cachegrind_driver relayout 'f32[1000,1000]{1,0}'
//     'f32[1000,1000]{1,0:T(8,128)}'
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "xla_layout/relayout.h"
#include "xla_layout/shape_text.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: cachegrind_driver relayout|memcpy|none SRC DST\n");
    return 2;
  }
  std::string mode = argv[1];
  auto src = xla_layout::ParseShape(argv[2]);
  auto dst = xla_layout::ParseShape(argv[3]);
  if (!src.ok() || !dst.ok()) {
    std::fprintf(stderr, "bad shape\n");
    return 1;
  }
  xla_layout::RelayoutOptions options;
  options.threads = 1;
  auto plan = xla_layout::RelayoutPlan::Create(*src, *dst, options);
  if (!plan.ok()) {
    std::fprintf(stderr, "%s\n", std::string(plan.status().message()).c_str());
    return 1;
  }
  std::vector<char> in(plan->src_bytes(), 1), out(plan->dst_bytes(), 2);
  std::vector<char> copy(plan->element_bytes(), 3);
  if (mode == "relayout") {
    plan->Execute(in.data(), out.data());
  } else if (mode == "memcpy") {
    std::memcpy(copy.data(), in.data(), plan->element_bytes());
  } else if (mode != "none") {
    std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
    return 2;
  }
  std::printf("%d %d\n", out[plan->dst_bytes() / 2], copy[0]);
  return 0;
}
