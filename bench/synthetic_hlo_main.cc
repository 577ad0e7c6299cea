// Writes a benchmark module to standard output, for whole-process
// measurements (time, peak memory) of hlo-layout on it:
//
//   bazel-bin/bench/synthetic_hlo_main chain 100000 > chain_100k.hlo
//   /usr/bin/time -v bazel-bin/tools/hlo-layout chain_100k.hlo
//       --passes=layout-assignment --target=tpu -o /dev/null
#include <iostream>
#include <string>

#include "absl/strings/numbers.h"
#include "bench/synthetic_hlo.h"

int main(int argc, char** argv) {
  int64_t n = 0;
  const std::string kind = argc == 3 ? argv[1] : "";
  if ((kind != "chain" && kind != "mlp") || !absl::SimpleAtoi(argv[2], &n) || n <= 0) {
    std::cerr << "usage: synthetic_hlo chain|mlp N  (a module of about N instructions)\n";
    return 2;
  }
  std::cout << (kind == "chain" ? xla_layout::ChainModule(n)
                                : xla_layout::SyntheticModule(n, /*layouts=*/false));
  return std::cout.good() ? 0 : 1;
}
