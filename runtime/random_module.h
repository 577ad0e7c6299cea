// Seeded random HLO modules for the executor's property tests (testonly):
// chains and DAGs of the ops the executor covers, on one element type per
// module (f32, bf16, f16, f64, s32, s8, s4, u4, u8, s64, u32) plus pred
// from compares, odd sizes that force padding under tiles, and (often) an
// entry_computation_layout with random tiles, repeated tiles, '*' and E(4).
#ifndef RUNTIME_RANDOM_MODULE_H_
#define RUNTIME_RANDOM_MODULE_H_

#include <cstdint>
#include <string>

namespace xla_layout::runtime {

// The module's text; the same seed gives the same text.
std::string RandomExecutorModule(uint64_t seed);

}  // namespace xla_layout::runtime

#endif  // RUNTIME_RANDOM_MODULE_H_
