#include "tools/process_heap.h"

#include <malloc.h>
#include <pthread.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <limits>

#include "absl/base/config.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "hlo/source_text.h"

namespace xla_layout::cli {
namespace {

// Set once, by KeepFreedMemory, before other threads exist.
bool keeps_freed_memory = false;
// One helper at a time; it reads `populating` before it reports done. The
// helper allocates nothing: a malloc there could open a second arena.
std::atomic<bool> population_done{true};
HeapPopulation populating;

#ifdef ABSL_HAVE_ADDRESS_SANITIZER
constexpr bool kGlibcAllocator = false;
#else
constexpr bool kGlibcAllocator = true;
#endif

constexpr uintptr_t kPage = 4096;
constexpr uintptr_t kHugePage = uintptr_t{2} << 20;
static_assert(kPopulationStepBytes % kHugePage == 0, "steps end on huge pages' edges");
static_assert(kMinPopulatedBytes >= 2 * kHugePage, "a floor spans a huge page");
// Populated in steps, front first: the parse fills the range in order.
constexpr uintptr_t kStep = uintptr_t{2} << 20;
// Beyond the floor, given up when the heap's use has not reached the next
// step (kPopulationStepBytes) for this long.
constexpr absl::Duration kPatience = absl::Seconds(1);

bool Populate(uintptr_t begin, uintptr_t end) {
  for (uintptr_t p = begin; p < end; p += kStep) {
    // MADV_POPULATE_WRITE faults pages in without writing to them, so it is
    // safe on memory the parse may already be using. A kernel without it
    // (before Linux 5.14) says EINVAL; the parse then faults as before.
    if (madvise(reinterpret_cast<void*>(p), std::min(kStep, end - p),
                MADV_POPULATE_WRITE) != 0) {
      return false;
    }
  }
  return true;
}

// The module the parse builds here is walked a dozen times by the verifier
// and the passes, in an order that the page table, not the data, makes
// costly once the module outgrows what the TLB maps with 4 KiB pages: with
// 2 MiB pages a walk over 600 MB takes 300 entries, not 150,000. A hint:
// where transparent huge pages are off, or none is free, pages stay small.
// Only whole 2 MiB spans inside the range are asked for, so that no page
// outside it grows.
void AskForHugePages(const HeapPopulation& range) {
  const uintptr_t begin = (range.begin + kHugePage - 1) & ~(kHugePage - 1);
  const uintptr_t end = range.end & ~(kHugePage - 1);
  if (begin < end) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

// Whether the heap's use has reached the step at `at`: a page of it is
// mapped. (A large block's header may be all that is written of it.)
bool Reached(uintptr_t at, uintptr_t end) {
  unsigned char in_core[kPopulationStepBytes / kPage];
  const uintptr_t length = std::min<uintptr_t>(kPopulationStepBytes, end - at);
  if (mincore(reinterpret_cast<void*>(at), length, in_core) != 0) return false;
  for (uintptr_t i = 0; i < length / kPage; ++i) {
    if (in_core[i] & 1) return true;
  }
  return false;
}

void* Run(void*) {
  const HeapPopulation range = populating;
  // The floor at once; beyond it, one step at a time, each once the heap's
  // use has reached it, so that no more than a step is populated unused.
  uintptr_t done = range.floor_end;
  bool ok = Populate(range.begin, done);
  absl::Time last_progress = absl::Now();
  while (ok && done < range.end && absl::Now() - last_progress < kPatience) {
    if (!Reached(done, range.end)) {
      absl::SleepFor(absl::Milliseconds(1));
      continue;
    }
    const uintptr_t next = std::min<uintptr_t>(range.end, done + kPopulationStepBytes);
    ok = Populate(done, next);
    done = next;
    last_progress = absl::Now();
  }
  population_done.store(true, std::memory_order_release);
  return nullptr;
}

}  // namespace

// By default glibc serves blocks over 32 MiB with fresh mappings and hands
// a freed heap top back to the kernel, so on a module of 1M instructions the
// pass's and the verifier's large temporaries are faulted in anew each
// time: 282k page faults, 231k with this. The process is short-lived.
// Without fast bins a freed small block joins its free neighbours at once,
// where a fast bin keeps it apart until a large request consolidates them:
// the parser's and the pass's freed attribute lists then make larger holes
// that the pass's temporaries reuse (11,000 KiB less peak on the chain
// module of 1M instructions), and no consolidation walks them later.
void KeepFreedMemory() {
  mallopt(M_MXFAST, 0);
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
  keeps_freed_memory = true;
}

HeapPopulation PopulateHeapForParse(absl::string_view text) {
  if (!kGlibcAllocator || !keeps_freed_memory || !HeapPopulationDone()) return {};
  constexpr size_t kMaxFloor = (size_t{8} << 30) / kReservedPerFloor;
  const size_t lines = CountLinesAhead(text, kMaxFloor / kHeapBytesPerLine);
  const size_t floor = std::min(lines * kHeapBytesPerLine, text.size() * kMaxHeapBytesPerTextByte);
  if (floor >= kMaxFloor) return {};
  if (floor < kMinPopulatedBytes) return {};
  const size_t bytes = kReservedPerFloor * floor;
  // With no mmap'd blocks, this comes from the top of the heap, and freed it
  // joins the top again (nothing is trimmed): the parse's allocations are
  // then carved from this range, in order. Only what is populated costs
  // memory. The pointer is volatile so that the compiler keeps the pair.
  void* volatile block = std::malloc(bytes);
  if (block == nullptr) return {};
  const uintptr_t at = reinterpret_cast<uintptr_t>(block);
  std::free(block);
  const uintptr_t begin = (at + kPage - 1) & ~(kPage - 1);
  // The floor ends on a huge page's edge (the floor is at least 32 MiB), as
  // then does every step after it: a huge page faulted in by one step must
  // not reach into the next, or the helper would take the next as reached,
  // and so on to the end of the range.
  populating = {begin, (at + floor) & ~(kHugePage - 1), (at + bytes) & ~(kPage - 1)};
  AskForHugePages(populating);
  population_done.store(false, std::memory_order_relaxed);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_t thread;
  const int started = pthread_create(&thread, &attr, &Run, nullptr);
  pthread_attr_destroy(&attr);
  if (started != 0) {
    population_done.store(true, std::memory_order_relaxed);
    return {};
  }
  return populating;
}

bool HeapPopulationDone() { return population_done.load(std::memory_order_acquire); }

}  // namespace xla_layout::cli
