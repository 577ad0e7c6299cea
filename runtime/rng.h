// Random numbers in the executor (internal to runtime/): rng-bit-generator
// and rng.
//
// rng-bit-generator is a pure function of its state operand and gives XLA's
// bit streams, as XLA's RngBitGeneratorExpander builds them on CPU and GPU:
// rng_philox is Philox-4x32-10 (key state[0]; the 128-bit counter is
// (state[1], state[2]) for a u64[3] state, (state[1], state[0]) for a
// u64[2]; 32-bit outputs round-robin over the four words of each block,
// 64-bit ones pair words 0-1 and 2-3; the counter advances by the blocks
// used), rng_three_fry is Threefry-2x32-20 (key state[0]; counter state[1]
// plus the element's row-major index, over half the shape for outputs of at
// most 32 bits, whose two words fill neighbouring elements of the split
// dim), and rng_default is Philox, as on XLA's CPU and GPU backends (a TPU
// or a Neuron device has its own default, so their dumps' streams differ).
// Outputs narrower than 32 bits keep the low bits of a 32-bit output.
//
// rng has no state: XLA draws from a per-run seed. RngOp takes the seed and
// draws from a Philox stream keyed by it (counter 0), then maps the bits as
// XLA's distributions do: uniform floats take the top mantissa-width bits as
// u in [0, 1) and give a + u * (b - a) (computed in double, rounded once; a
// rounding up to b gives the largest value below b), uniform integers a +
// bits mod (b - a) (a when b <= a), normal floats mu + sigma * z with z from
// Box-Muller on two uniforms (the first at least 1e-7).
#ifndef RUNTIME_RNG_H_
#define RUNTIME_RNG_H_

#include <array>
#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/hlo_module.h"
#include "runtime/buffer.h"

namespace xla_layout::runtime {

using Info = std::shared_ptr<const ArrayInfo>;

// The block functions (Salmon et al., "Parallel random numbers: as easy as
// 1, 2, 3"): counter words low first, key words low first.
std::array<uint32_t, 4> Philox4x32(std::array<uint32_t, 4> counter,
                                   std::array<uint32_t, 2> key);
std::array<uint32_t, 2> ThreeFry2x32(std::array<uint32_t, 2> counter,
                                     std::array<uint32_t, 2> key);

// What RngBitGenerator and RngOp need of the instruction (the algorithm or
// distribution, the state's shape, the element types), checked at load time.
absl::Status CheckRng(const HloInstruction& instruction);

// `out` holds the result's two ArrayInfos: the new state, the bits.
absl::StatusOr<Value> RngBitGenerator(const HloInstruction& instruction,
                                      absl::Span<const Value* const> operands,
                                      absl::Span<const Info> out);

// rng: operands (a, b) for distribution=rng_uniform, (mu, sigma) for
// rng_normal, scalars of the result's type.
absl::StatusOr<Value> RngOp(const HloInstruction& instruction,
                            absl::Span<const Value* const> operands, const Info& out,
                            uint64_t seed);

// A seed from the instruction's name (FNV-1a), until runs pass their own:
// the same module gives the same draws, and a pass that keeps names keeps
// them.
uint64_t InstructionSeed(const HloInstruction& instruction);

}  // namespace xla_layout::runtime

#endif  // RUNTIME_RNG_H_
