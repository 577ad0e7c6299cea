#ifndef XLA_LAYOUT_TOOLS_PROCESS_HEAP_H_
#define XLA_LAYOUT_TOOLS_PROCESS_HEAP_H_

// The heap policy of a one-shot run of the CLI: read one module, run passes,
// write it out, exit. Nothing here changes what a run computes or prints.

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"

namespace xla_layout::cli {

// Keeps freed memory in the process's heap for reuse, instead of handing
// it back to the kernel, for the rest of the process. Call it first, before
// any other thread starts.
void KeepFreedMemory();

// The address range a helper thread populates; empty when there is none.
// [begin, floor_end) is populated at once; [floor_end, end) a step at a time,
// as the heap's use reaches it.
struct HeapPopulation {
  uintptr_t begin = 0;
  uintptr_t floor_end = 0;
  uintptr_t end = 0;
  size_t size() const { return end - begin; }
};

// When KeepFreedMemory() ran and `text` is large, reserves the part of the
// heap that parsing `text` will fill and populates its pages on a second
// thread, so that the parse finds them mapped instead of taking a page fault
// per fresh page: a floor of kHeapBytesPerLine per non-empty line of text
// (and at most kMaxHeapBytesPerTextByte per byte) at once, and
// up to kReservedPerFloor times that as the parse gets there. The range's
// whole 2 MiB spans are asked for as transparent huge pages, and the floor
// ends on such a span's edge. Returns the range; empty when it does nothing
// (small text, another allocator, no thread).
HeapPopulation PopulateHeapForParse(absl::string_view text);

// Whether the helper thread of the last PopulateHeapForParse has finished
// (true when none was started).
bool HeapPopulationDone();

// A floor for the heap a line of HLO text grows by when parsed: an
// instruction object takes a 352-byte block, and its operands, attributes
// and name take more (518 bytes a line on the chain module of 1M
// instructions; 550 when this was 512, before the object shrank from 384).
inline constexpr size_t kHeapBytesPerLine = 480;
// And at most this per byte of text: the shortest instruction line is about
// 15 bytes (`a=f32[]add(b,c)`), so a text of short junk lines, which fails
// to parse, populates no more than its instructions could use.
inline constexpr size_t kMaxHeapBytesPerTextByte = 32;
inline constexpr size_t kReservedPerFloor = 2;
// Past the floor, populated in steps of this: at most one step unused.
inline constexpr size_t kPopulationStepBytes = size_t{8} << 20;
// Below this the page faults cost less than starting a thread.
inline constexpr size_t kMinPopulatedBytes = size_t{32} << 20;

}  // namespace xla_layout::cli

#endif  // XLA_LAYOUT_TOOLS_PROCESS_HEAP_H_
