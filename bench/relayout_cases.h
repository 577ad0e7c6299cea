// The conversions relayout_bench times, each with oneDNN's descriptors of
// it where oneDNN can express it, and references that move its lines or
// runs with nothing moved within them (xla_layout/copy_reference.h).
#ifndef BENCH_RELAYOUT_CASES_H_
#define BENCH_RELAYOUT_CASES_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "oneapi/dnnl/dnnl.hpp"

namespace xla_layout::bench {

using DnnlDescs = std::pair<dnnl::memory::desc, dnnl::memory::desc>;

// Moves a case's bytes from its source buffer to its destination buffer
// with ordinary or streaming stores; false where it cannot.
using Mover = std::function<bool(const char* src, char* dst, bool streaming)>;

struct Case {
  std::string name;
  std::string src, dst;
  // oneDNN descriptors of the same conversion, when oneDNN can express it.
  std::function<DnnlDescs()> dnnl;
  // The conversion's lines with nothing moved within them, in the variants
  // worth trying (copy_reference.h): what its traffic alone costs.
  std::vector<Mover> lines;
};

// A transpose's 64-byte lines in 16x16 tiles (TileMove::kLines), in strips
// of 16 and of 256 source rows: dst[a * dsa] gets src[a * 4] for a < na,
// from nb rows ssb apart, once for each of `blocks`, src_step and dst_step
// bytes apart.
std::vector<Mover> TransposeLines(int64_t na, int64_t nb, int64_t ssb, int64_t dsa,
                                  int64_t blocks = 1, int64_t src_step = 0,
                                  int64_t dst_step = 0);

// Every case, in the order the tables print them.
std::vector<Case> Cases();

}  // namespace xla_layout::bench

#endif  // BENCH_RELAYOUT_CASES_H_
