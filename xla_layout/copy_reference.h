// References for copy throughput, measured beside the packing core in the
// same run: glibc's memcpy, and a copy with streaming (non-temporal) stores.
// Which is faster depends on the size and the machine (glibc switches to
// non-temporal stores only past a large threshold), so the ceiling a
// relayout is held against is the better of the two.
#ifndef XLA_LAYOUT_COPY_REFERENCE_H_
#define XLA_LAYOUT_COPY_REFERENCE_H_

#include <cstdint>

namespace xla_layout {

// Copies `bytes` from `src` to `dst` (no overlap) with 256-bit streaming
// stores where the CPU has AVX2 and `dst` is 32-byte aligned; else memcpy.
void StreamingCopy(const void* src, void* dst, int64_t bytes);

}  // namespace xla_layout

#endif  // XLA_LAYOUT_COPY_REFERENCE_H_
