#include "xla_layout/copy_reference.h"

#include <cstdint>
#include <cstring>
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

// The element (a, b) of a TransposeTiles destination, as the header states
// it for each move: a transpose, or whole lines in the tile's place.
uint32_t Expected(TileMove move, const std::vector<uint32_t>& src, int64_t ss, int64_t a,
                  int64_t b) {
  if (move != TileMove::kLines) return src[a + b * ss];
  const int64_t a0 = a / 16 * 16, b0 = b / 16 * 16, r = a % 16, c = b % 16;
  return src[a0 + c + (b0 + r) * ss];
}

// Every move the CPU has, strips of one tile and of several (the last one
// short), streaming and not, rows with slack in both strides: each
// destination element is what the header says and the slack is untouched.
TEST(CopyReferenceTest, TransposeTilesMovesWhatItPromises) {
  int moves = 0;
  for (TileMove move : {TileMove::kAvx2, TileMove::kAvx512, TileMove::kLines}) {
    if (!CanMoveTiles(move)) continue;
    ++moves;
    for (const auto& [na, nb] : {std::pair<int64_t, int64_t>{16, 16}, {48, 32}, {32, 80}}) {
      for (int64_t strip_rows : {16, 32}) {
        for (bool streaming : {false, true}) {
          const int64_t ss = na + 5, ds = nb + 16;  // elements per row; ds * 4 % 64 == 0
          std::vector<uint32_t> src(ss * nb);
          for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint32_t>(i * 2654435761u);
          std::vector<uint32_t> dst(ds * na + 16, 0xEEEEEEEE);
          uint32_t* d = dst.data();
          while (reinterpret_cast<uintptr_t>(d) % 64 != 0) ++d;
          ASSERT_TRUE(TransposeTiles(move, src.data(), d, na, nb, ss * 4, ds * 4, strip_rows,
                                     streaming));
          for (int64_t a = 0; a < na; ++a) {
            for (int64_t b = 0; b < ds; ++b) {
              const uint32_t want = b < nb ? Expected(move, src, ss, a, b) : 0xEEEEEEEE;
              ASSERT_EQ(d[a * ds + b], want)
                  << "move " << static_cast<int>(move) << " " << na << "x" << nb << " strips "
                  << strip_rows << (streaming ? " streaming" : "") << " at " << a << "," << b;
            }
          }
        }
      }
    }
  }
  if (moves == 0) GTEST_SKIP() << "no AVX2 here";
}

TEST(CopyReferenceTest, TransposeTilesRefusesWhatItCannotMove) {
  if (!CanMoveTiles(TileMove::kLines)) GTEST_SKIP() << "no AVX2 here";
  alignas(64) uint32_t src[32 * 32] = {}, dst[32 * 32 + 16];
  std::memset(dst, 0xEE, sizeof(dst));
  // Not whole tiles, a strip that is not, a strip of none, a misaligned
  // streaming destination, misaligned streaming rows.
  EXPECT_FALSE(TransposeTiles(TileMove::kLines, src, dst, 24, 32, 128, 128, 16, false));
  EXPECT_FALSE(TransposeTiles(TileMove::kLines, src, dst, 32, 20, 128, 128, 16, false));
  EXPECT_FALSE(TransposeTiles(TileMove::kLines, src, dst, 32, 32, 128, 128, 8, false));
  EXPECT_FALSE(TransposeTiles(TileMove::kLines, src, dst, 32, 32, 128, 128, 0, false));
  EXPECT_FALSE(TransposeTiles(TileMove::kLines, src, dst + 1, 32, 32, 128, 128, 16, true));
  EXPECT_FALSE(TransposeTiles(TileMove::kLines, src, dst, 32, 32, 128, 160, 16, true));
  for (uint32_t v : dst) ASSERT_EQ(v, 0xEEEEEEEE);
}

}  // namespace
}  // namespace xla_layout
