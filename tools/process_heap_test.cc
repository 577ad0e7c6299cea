#include "tools/process_heap.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/config.h"
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

// The VmFlags of the mapping that holds `address` (/proc/self/smaps), or
// "" when the kernel does not say.
std::string VmFlagsAt(uintptr_t address) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t begin = 0, end = 0;
    if (std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR " ", &begin, &end) == 2 &&
        line.find(':') > line.find(' ')) {
      inside = begin <= address && address < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line.substr(8);
    }
  }
  return "";
}

// Polls `done` for up to 20 s.
template <typename Done>
bool Eventually(Done done) {
  for (int i = 0; i < 4000; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return done();
}

// One test: KeepFreedMemory is for the whole process, and the order of the
// steps matters.
TEST(ProcessHeapTest, PopulatesTheHeapTheParseWillFill) {
#ifdef ABSL_HAVE_ADDRESS_SANITIZER
  GTEST_SKIP() << "the sanitizer's allocator does not reuse the block";
#endif
  const size_t page = sysconf(_SC_PAGESIZE);
  constexpr size_t kFloor = size_t{80} << 20;
  const std::string large = Lines(kFloor / kHeapBytesPerLine);
  // glibc would hand a freed block back to the kernel.
  EXPECT_EQ(PopulateHeapForParse(large).size(), 0u);

  KeepFreedMemory();
  EXPECT_EQ(PopulateHeapForParse(Lines(1000)).size(), 0u) << "too small to pay";
  // Blank lines hold no instructions; nor can lines of 2 bytes.
  EXPECT_EQ(PopulateHeapForParse(std::string(size_t{1} << 20, '\n')).size(), 0u);
  std::string junk;
  for (int i = 0; i < 200000; ++i) junk += "x\n";  // 102 MB by lines, 12.8 by bytes
  EXPECT_EQ(PopulateHeapForParse(junk).size(), 0u);

  const HeapPopulation range = PopulateHeapForParse(large);
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  ASSERT_GE(range.floor_end - range.begin, kFloor - kHuge);  // ends on a huge page's edge
  ASSERT_GE(range.end - range.floor_end, kFloor - page);
  const size_t floor_pages = (range.floor_end - range.begin) / page;
  // Asked for huge pages, with the floor on a huge page's edge so that the
  // last one populated does not reach into the next step (checked below:
  // nothing past that step is populated).
  EXPECT_EQ(range.floor_end % kHuge, 0u);
  const std::string flags = VmFlagsAt((range.begin + 2 * kHuge - 1) & ~(kHuge - 1));
  if (flags.empty() || madvise(nullptr, 0, MADV_HUGEPAGE) != 0) {
    std::cerr << "no transparent huge pages here: their hint is not checked\n";
  } else {
    EXPECT_NE(flags.find(" hg"), std::string::npos) << flags;
  }
  EXPECT_TRUE(Eventually(
      [&] { return ResidentPages(range.begin, range.floor_end) == floor_pages; }));

  // The next allocation comes from the range; once its end is used, past
  // the floor, the next step is populated too, and no more.
  const size_t bytes = range.floor_end - range.begin + (size_t{4} << 20);
  char* volatile next = static_cast<char*>(std::malloc(bytes));
  const uintptr_t at = reinterpret_cast<uintptr_t>(next);
  EXPECT_GE(at, range.begin - page);
  EXPECT_LE(at + bytes, range.end);
  next[bytes - 1] = 1;
  const uintptr_t step_end = range.floor_end + kPopulationStepBytes;
  EXPECT_TRUE(Eventually([&] {
    return ResidentPages(range.floor_end, step_end) == (step_end - range.floor_end) / page;
  }));
  EXPECT_TRUE(Eventually(HeapPopulationDone));
  const uintptr_t beyond = step_end + kPopulationStepBytes;
  ASSERT_LT(beyond, range.end);
  EXPECT_EQ(ResidentPages(beyond, range.end), 0u);
  std::free(next);
}

// After KeepFreedMemory (the test above), a freed small block is never
// held in a fast bin: past the per-thread cache it joins its neighbours.
TEST(ProcessHeapTest, KeepsNoFreedBlockInAFastBin) {
#ifdef ABSL_HAVE_ADDRESS_SANITIZER
  GTEST_SKIP() << "the sanitizer has its own allocator";
#endif
  KeepFreedMemory();
  std::vector<void*> blocks;
  for (int i = 0; i < 1000; ++i) blocks.push_back(std::malloc(48));
  for (void* b : blocks) std::free(b);
  EXPECT_EQ(mallinfo2().fsmblks, 0u);
}

}  // namespace
}  // namespace xla_layout::cli
