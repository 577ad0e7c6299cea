#include "xla_layout/copy_reference.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace xla_layout {
namespace {

// Every size from 0 to 300 bytes (the 128-byte blocks and every tail) and
// every source and destination offset in a line: exactly the bytes, and
// none around them.
TEST(CopyReferenceTest, BothCopiesMoveExactlyTheBytes) {
  for (auto copy : {&StreamingCopy, &VectorCopy}) {
    for (int64_t bytes = 0; bytes <= 300; ++bytes) {
      for (int offset : {0, 1, 31, 32}) {
        std::vector<uint8_t> src(bytes + 64), dst(bytes + 128, 0xEE);
        for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 7 + 3);
        copy(src.data() + offset, dst.data() + 32 + offset, bytes);
        for (int64_t i = 0; i < static_cast<int64_t>(dst.size()); ++i) {
          const int64_t k = i - 32 - offset;
          const uint8_t want = k >= 0 && k < bytes ? src[offset + k] : 0xEE;
          ASSERT_EQ(dst[i], want) << "byte " << i << " of a copy of " << bytes << " at +" << offset;
        }
      }
    }
  }
}

}  // namespace
}  // namespace xla_layout
