// Synthetic HLO modules for the benchmarks: MLP-like chains of layers with
// realistic shapes, attributes and metadata.
#ifndef BENCH_SYNTHETIC_HLO_H_
#define BENCH_SYNTHETIC_HLO_H_

#include <cstdint>
#include <string>

namespace xla_layout {

// A module of about `n` instructions: layers of a dot, bias broadcast, add,
// maximum, a transpose/reshape pair and a reduce. Without `layouts` no
// instruction writes a layout, as a front end hands a module to layout
// assignment.
std::string SyntheticModule(int64_t n, bool layouts = true);

// A chain of about `n` instructions, four per link: dot, transpose,
// transpose back, add, on f32[64,256], no layouts written (the pipeline
// benchmark's module: parse, layout assignment for tpu, print).
std::string ChainModule(int64_t n);

}  // namespace xla_layout

#endif  // BENCH_SYNTHETIC_HLO_H_
