#include "xla_layout/memory.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"

namespace xla_layout {

absl::Status CheckAllocationSize(int64_t bytes, absl::string_view what) {
  if (bytes < 0) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot allocate ", what, ": its size overflows 64 bits"));
  }
  int64_t limit = std::numeric_limits<int64_t>::max();
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0 &&
      pages < std::numeric_limits<int64_t>::max() / page) {
    limit = static_cast<int64_t>(pages) * page;
  }
  struct rlimit rl;
  if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
      rl.rlim_cur < static_cast<rlim_t>(limit)) {
    limit = static_cast<int64_t>(rl.rlim_cur);
  }
  if (bytes > limit) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "cannot allocate ", bytes, " bytes for ", what,
        ": more than the ", limit, " bytes of memory available"));
  }
  return absl::OkStatus();
}

absl::StatusOr<AlignedBuffer> AllocateAligned(int64_t bytes,
                                              absl::string_view what) {
  absl::Status s = CheckAllocationSize(bytes, what);
  if (!s.ok()) return s;
  constexpr int64_t kPage = 4096;
  int64_t rounded = std::max<int64_t>(kPage, (bytes + kPage - 1) / kPage * kPage);
  AlignedBuffer buffer(static_cast<char*>(std::aligned_alloc(kPage, rounded)));
  if (buffer == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot allocate ", bytes, " bytes for ", what));
  }
  std::memset(buffer.get(), 0, rounded);  // Touched once: no page faults later.
  return buffer;
}

}  // namespace xla_layout
