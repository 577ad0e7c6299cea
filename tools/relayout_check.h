// The documented source pattern of `hlo-layout relayout` and the check of a
// relayout result against the index math (`relayout --check`, the benchmark).
//
// Pattern: the element whose row-major logical index is i holds the bit
// pattern of the unsigned integer i, little-endian, cut to the element's byte
// width; for sub-byte types (s2, s4, u2, u4), i modulo 2^bits, sign-extended
// for signed types in a slot of whole bytes. Padding slots of a source hold
// 0xEE bytes.
#ifndef TOOLS_RELAYOUT_CHECK_H_
#define TOOLS_RELAYOUT_CHECK_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "xla_layout/tiled_layout.h"

namespace xla_layout {

// Writes the pattern into `buffer` (layout.byte_size() bytes).
void FillSourcePattern(const TiledLayout& layout, void* buffer);

// Checks every slot of `buffer`: element i holds the pattern of i, padding
// holds `fill` (element-size bytes). The error names the first mismatch.
absl::Status CheckDestination(const TiledLayout& layout, const void* buffer,
                              const std::vector<uint8_t>& fill);

}  // namespace xla_layout

#endif  // TOOLS_RELAYOUT_CHECK_H_
