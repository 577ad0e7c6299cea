#include "tools/process_heap.h"

#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace xla_layout::cli {
namespace {

std::string Lines(size_t n) {
  std::string text;
  for (size_t i = 0; i < n; ++i) text += "  add.1 = f32[2] add(a, b)\n";
  return text;
}

// How many pages of [begin, end) are resident.
size_t ResidentPages(uintptr_t begin, uintptr_t end) {
  const size_t page = sysconf(_SC_PAGESIZE);
  std::vector<unsigned char> in_core((end - begin + page - 1) / page);
  if (mincore(reinterpret_cast<void*>(begin), end - begin, in_core.data()) != 0) {
    return 0;
  }
  size_t resident = 0;
  for (unsigned char c : in_core) resident += c & 1;
  return resident;
}

// One test: KeepFreedMemory is for the whole process, and the order of the
// steps matters.
TEST(ProcessHeapTest, PopulatesTheHeapTheParseWillFill) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "the sanitizer's allocator does not reuse the block";
#endif
  const std::string large = Lines(kMinPopulatedBytes / kHeapBytesPerLine + 1000);
  // glibc would hand a freed block back to the kernel.
  EXPECT_EQ(PopulateHeapForParse(large).size(), 0u);

  KeepFreedMemory();
  EXPECT_EQ(PopulateHeapForParse(Lines(1000)).size(), 0u) << "too small to pay";

  const HeapPopulation range = PopulateHeapForParse(large);
  ASSERT_GE(range.size(), kMinPopulatedBytes);
  for (int i = 0; i < 2000 && !HeapPopulationDone(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_TRUE(HeapPopulationDone());
  const size_t pages = range.size() / sysconf(_SC_PAGESIZE);
  EXPECT_EQ(ResidentPages(range.begin, range.end), pages);

  // What is allocated next comes from the populated range.
  void* volatile next = std::malloc(1 << 20);
  const uintptr_t at = reinterpret_cast<uintptr_t>(next);
  EXPECT_GE(at, range.begin - 4096);
  EXPECT_LE(at + (1 << 20), range.end);
  std::free(next);
}

}  // namespace
}  // namespace xla_layout::cli
