// Checked allocation for buffers sized from input: a size the machine cannot
// hold is an error that gives the byte count, never a crash.
#ifndef XLA_LAYOUT_MEMORY_H_
#define XLA_LAYOUT_MEMORY_H_

#include <cstdint>
#include <cstdlib>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xla_layout {

// OK when `bytes` (>= 0) fits in physical memory and under RLIMIT_AS;
// otherwise ResourceExhausted naming `what` and the byte count.
absl::Status CheckAllocationSize(int64_t bytes, absl::string_view what);

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using AlignedBuffer = std::unique_ptr<char, FreeDeleter>;

// A page-aligned, zeroed buffer of `bytes` (at least one page), after
// CheckAllocationSize; a failed allocation is an error too.
absl::StatusOr<AlignedBuffer> AllocateAligned(int64_t bytes,
                                              absl::string_view what);

}  // namespace xla_layout

#endif  // XLA_LAYOUT_MEMORY_H_
