// References for copy throughput, measured beside the packing core in the
// same run: glibc's memcpy, a copy with streaming (non-temporal) stores, and
// a plain vector copy. Which is faster depends on the size and the machine
// (glibc switches to non-temporal stores only past a large threshold), so
// the ceiling a relayout is held against is the better of the first two.
// The vector copy is what any kernel of vector loads and stores reaches at
// best: where glibc's memcpy runs as `rep movsb` and beats it (16-256 KiB
// in L2 on AMD Zen 5), the gap between the two is no kernel's to close.
#ifndef XLA_LAYOUT_COPY_REFERENCE_H_
#define XLA_LAYOUT_COPY_REFERENCE_H_

#include <cstdint>

namespace xla_layout {

// Copies `bytes` from `src` to `dst` (no overlap) with 256-bit streaming
// stores where the CPU has AVX2 and `dst` is 32-byte aligned; else memcpy.
void StreamingCopy(const void* src, void* dst, int64_t bytes);

// Copies `bytes` from `src` to `dst` (no overlap) with 256-bit loads and
// stores, 128 bytes a step, in address order, where the CPU has AVX2; the
// last bytes (and every byte elsewhere) by memcpy.
void VectorCopy(const void* src, void* dst, int64_t bytes);

}  // namespace xla_layout

#endif  // XLA_LAYOUT_COPY_REFERENCE_H_
