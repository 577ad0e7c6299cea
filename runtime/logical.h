// Logical arrays at the executor's edges: seeded random inputs, .npy files,
// bit-exact comparison, and the text `hlo-layout run` prints.
//
// .npy files hold C-order little-endian arrays: pred as numpy bool, s4/u4
// one element per byte (int8/uint8), bf16 as its raw bits in uint16, the
// other types as their numpy type.
#ifndef RUNTIME_LOGICAL_H_
#define RUNTIME_LOGICAL_H_

#include <cstdint>
#include <optional>
#include <random>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/buffer.h"

namespace xla_layout::runtime {

// An array of `shape`'s type and dims (layout ignored), filled in logical
// row-major order from `rng`: floats uniform in [-1, 1) rounded to the type,
// signed integers in [-8, 8), unsigned in [0, 16), pred 0 or 1.
absl::StatusOr<LogicalArray> RandomLogicalArray(const Shape& shape, std::mt19937_64& rng);

// Element `k` (row-major) as a number of the array's type.
Num ElementAt(const LogicalArray& array, int64_t k);
// Its value as text ("1.5", "-3", "true"); floats also with their bits when
// `with_bits` ("nan (0x7fc00000)").
std::string FormatElement(const LogicalArray& array, int64_t k, bool with_bits = false);

// The first element (row-major) whose bits differ, or nullopt when the two
// arrays hold the same type, dims and bits.
std::optional<int64_t> FirstDifference(const LogicalArray& a, const LogicalArray& b);

// What `run` prints for one output: every element of a small array; the
// shape, min, max, mean and an FNV-1a checksum of the bytes of a large one.
std::string DescribeArray(const LogicalArray& array, int64_t max_elements = 64);

std::string EncodeNpy(const LogicalArray& array);
// Reads a .npy file's bytes as an array of `shape`'s type and dims; `name`
// names the file in errors. The header is read as the Python dict literal it
// is, with exactly numpy's keys (descr, fortran_order, shape), each once; an
// s4, u4 or pred byte outside its type's range is refused, naming the
// element.
absl::StatusOr<LogicalArray> DecodeNpy(const std::string& bytes, const Shape& shape,
                                       const std::string& name);

}  // namespace xla_layout::runtime

#endif  // RUNTIME_LOGICAL_H_
