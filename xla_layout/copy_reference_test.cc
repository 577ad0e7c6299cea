#include "xla_layout/copy_reference.h"

#include <algorithm>
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
uint32_t Expected(TileMove move, const std::vector<uint32_t>& src, int64_t ss, int64_t na,
                  int64_t nb, int64_t a, int64_t b) {
  const bool edge = a >= na / 16 * 16 || b >= nb / 16 * 16;
  if (move != TileMove::kLines || edge) return src[a + b * ss];
  const int64_t a0 = a / 16 * 16, b0 = b / 16 * 16, r = a % 16, c = b % 16;
  return src[a0 + c + (b0 + r) * ss];
}

// Every move the CPU has, strips of one tile and of several (the last one
// short), streaming and not, rows with slack in both strides, sizes of
// whole tiles and not (with no whole tile, too): each destination element
// is what the header says and the slack is untouched.
TEST(CopyReferenceTest, TransposeTilesMovesWhatItPromises) {
  int moves = 0;
  for (TileMove move : {TileMove::kAvx2, TileMove::kAvx512, TileMove::kLines}) {
    if (!CanMoveTiles(move)) continue;
    ++moves;
    for (const auto& [na, nb] : {std::pair<int64_t, int64_t>{16, 16}, {48, 32}, {32, 80}, {40, 23}, {9, 35}, {5, 7}}) {
      for (int64_t strip_rows : {16, 32}) {
        for (bool streaming : {false, true}) {
          // Elements per row; ds * 4 % 64 == 0.
          const int64_t ss = na + 5, ds = (nb + 15) / 16 * 16 + 16;
          std::vector<uint32_t> src(ss * nb);
          for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint32_t>(i * 2654435761u);
          std::vector<uint32_t> dst(ds * na + 16, 0xEEEEEEEE);
          uint32_t* d = dst.data();
          while (reinterpret_cast<uintptr_t>(d) % 64 != 0) ++d;
          ASSERT_TRUE(TransposeTiles(move, src.data(), d, na, nb, ss * 4, ds * 4, strip_rows,
                                     streaming));
          for (int64_t a = 0; a < na; ++a) {
            for (int64_t b = 0; b < ds; ++b) {
              const uint32_t want =
                  b < nb ? Expected(move, src, ss, na, nb, a, b) : 0xEEEEEEEE;
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
  // A negative size, a strip that is not whole tiles, a strip of none, a
  // misaligned streaming destination, misaligned streaming rows.
  EXPECT_FALSE(TransposeTiles(TileMove::kLines, src, dst, -16, 32, 128, 128, 16, false));
  EXPECT_FALSE(TransposeTiles(TileMove::kLines, src, dst, 32, -1, 128, 128, 16, false));
  EXPECT_FALSE(TransposeTiles(TileMove::kLines, src, dst, 32, 32, 128, 128, 8, false));
  EXPECT_FALSE(TransposeTiles(TileMove::kLines, src, dst, 32, 32, 128, 128, 0, false));
  EXPECT_FALSE(TransposeTiles(TileMove::kLines, src, dst + 1, 32, 32, 128, 128, 16, true));
  EXPECT_FALSE(TransposeTiles(TileMove::kLines, src, dst, 32, 32, 128, 160, 16, true));
  for (uint32_t v : dst) ASSERT_EQ(v, 0xEEEEEEEE);
}

std::vector<uint8_t> Pattern(int64_t bytes) {
  std::vector<uint8_t> v(bytes);
  for (int64_t i = 0; i < bytes; ++i) v[i] = static_cast<uint8_t>(i * 131 + i / 251);
  return v;
}

// The lines of a 32- or 64-byte-run conversion fill every line of the
// other side once, with the side's bytes (only their order within the
// lines differs), both ways; sizes they do not fit are refused.
TEST(CopyReferenceTest, TileRunLinesFillEveryLineOnce) {
  if (!CanMoveTiles(TileMove::kAvx512)) GTEST_SKIP() << "no AVX-512F here";
  const int64_t rows = 32, cols = 64;
  std::vector<uint32_t> src(rows * cols), dst(rows * cols);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint32_t>(i);
  for (int64_t tile : {8, 16}) {
    for (bool to_tiles : {true, false}) {
      std::fill(dst.begin(), dst.end(), 0xEEEEEEEEu);
      ASSERT_TRUE(TileRunLines(src.data(), dst.data(), rows, cols, tile, tile, 4, to_tiles));
      std::vector<uint32_t> sorted = dst;
      std::sort(sorted.begin(), sorted.end());
      EXPECT_EQ(sorted, src) << tile << (to_tiles ? " to tiles" : " from tiles");
    }
  }
  // From T(8,8): line 0 of tiles 0 and 1 (rows 0-1 of each) go to dense
  // rows 0 and 1 across those tiles.
  ASSERT_TRUE(TileRunLines(src.data(), dst.data(), rows, cols, 8, 8, 4, false));
  for (int k = 0; k < 16; ++k) EXPECT_EQ(dst[k], src[k]) << k;
  EXPECT_EQ(dst[cols], src[8 * 8]);
  // From T(16,16): tile 1's row 0 is dense row 0's second line.
  ASSERT_TRUE(TileRunLines(src.data(), dst.data(), rows, cols, 16, 16, 4, false));
  EXPECT_EQ(dst[16], src[16 * 16]);
  EXPECT_FALSE(TileRunLines(src.data(), dst.data(), rows, cols, 8, 32, 4, false));  // 128 B runs
  EXPECT_FALSE(TileRunLines(src.data(), dst.data(), rows, cols - 8, 8, 8, 4, false));
  EXPECT_FALSE(TileRunLines(src.data(), dst.data(), rows - 8, cols, 16, 16, 4, false));
}

// To tiles and back, sizes that fill the tiles and sizes that leave padding
// in both dimensions, streaming and not: each element lands where
// {1,0:T(tile_rows,tile_cols)} puts it, the padding is zero, and the way
// back restores the array.
TEST(CopyReferenceTest, CopyTileRunsMovesEveryElementToItsTile) {
  if (!CanMoveTiles(TileMove::kAvx2)) GTEST_SKIP() << "no AVX2 here";
  struct Size { int64_t rows, cols, tile_rows, tile_cols, element_bytes; };
  for (const Size& z : {Size{16, 256, 8, 128, 4}, Size{13, 200, 8, 128, 4},
                        Size{9, 70, 4, 32, 2}, Size{3, 5, 2, 8, 4}}) {
    for (bool streaming : {false, true}) {
      const int64_t down = (z.rows + z.tile_rows - 1) / z.tile_rows;
      const int64_t across = (z.cols + z.tile_cols - 1) / z.tile_cols;
      const int64_t e = z.element_bytes, dense_bytes = z.rows * z.cols * e;
      const std::vector<uint8_t> src = Pattern(dense_bytes);
      alignas(64) static uint8_t tiled[1 << 16], back[1 << 16];
      std::memset(tiled, 0xEE, sizeof(tiled));
      std::memset(back, 0xEE, sizeof(back));
      const bool aligned_rows = z.cols * e % 32 == 0 && z.tile_cols * e % 32 == 0;
      const bool to = CopyTileRuns(src.data(), tiled, z.rows, z.cols, z.tile_rows, z.tile_cols,
                                   e, true, streaming);
      ASSERT_EQ(to, !streaming || z.tile_cols * e % 32 == 0) << z.rows << "x" << z.cols;
      if (!to) continue;
      for (int64_t i = 0; i < down * z.tile_rows; ++i) {
        for (int64_t j = 0; j < across * z.tile_cols; ++j) {
          const int64_t at = (((i / z.tile_rows) * across + j / z.tile_cols) * z.tile_rows +
                              i % z.tile_rows) * z.tile_cols + j % z.tile_cols;
          for (int64_t b = 0; b < e; ++b) {
            const uint8_t want = i < z.rows && j < z.cols ? src[(i * z.cols + j) * e + b] : 0;
            ASSERT_EQ(tiled[at * e + b], want) << z.rows << "x" << z.cols << " at " << i << ","
                                               << j << (streaming ? " streaming" : "");
          }
        }
      }
      ASSERT_EQ(tiled[down * across * z.tile_rows * z.tile_cols * e], 0xEE);
      ASSERT_EQ(CopyTileRuns(tiled, back, z.rows, z.cols, z.tile_rows, z.tile_cols, e, false,
                             streaming),
                !streaming || aligned_rows);
      if (streaming && !aligned_rows) continue;
      ASSERT_EQ(std::memcmp(back, src.data(), dense_bytes), 0) << z.rows << "x" << z.cols;
      ASSERT_EQ(back[dense_bytes], 0xEE);
    }
  }
  alignas(64) uint8_t a[64] = {}, b[64];
  EXPECT_FALSE(CopyTileRuns(a, b, 0, 8, 8, 8, 1, true, false));
  EXPECT_FALSE(CopyTileRuns(a, b, 8, 8, 8, 0, 1, true, false));
  EXPECT_FALSE(CopyTileRuns(a, b + 1, 2, 32, 2, 32, 1, true, true));
}

// Each 64-byte line holds the 16 bf16 columns of the even row, then of the
// odd row, lines in T(8,128)(2,1)'s order; the sizes it cannot move are
// refused with nothing written.
TEST(CopyReferenceTest, PairLinesKeepsTheInterleavesLinesUnshuffled) {
  if (!CanMoveTiles(TileMove::kAvx2)) GTEST_SKIP() << "no AVX2 here";
  const int64_t rows = 16, cols = 256, bytes = rows * cols * 2;
  const std::vector<uint8_t> src = Pattern(bytes);
  for (bool streaming : {false, true}) {
    alignas(64) static uint8_t dst[16 * 256 * 2 + 64];
    std::memset(dst, 0xEE, sizeof(dst));
    ASSERT_TRUE(PairLinesT8x128(src.data(), dst, rows, cols, streaming));
    int64_t line = 0;
    for (int64_t ti = 0; ti < rows / 8; ++ti) {
      for (int64_t tj = 0; tj < cols / 128; ++tj) {
        for (int64_t k = 0; k < 4; ++k) {
          for (int64_t c = 0; c < 8; ++c, ++line) {
            for (int64_t half = 0; half < 2; ++half) {
              const int64_t row = ti * 8 + 2 * k + half;
              const uint8_t* want = src.data() + row * cols * 2 + tj * 256 + c * 32;
              ASSERT_EQ(std::memcmp(dst + line * 64 + half * 32, want, 32), 0)
                  << "line " << line << " half " << half;
            }
          }
        }
      }
    }
    ASSERT_EQ(dst[bytes], 0xEE);
  }
  alignas(64) uint8_t dst[64];
  std::memset(dst, 0xEE, sizeof(dst));
  EXPECT_FALSE(PairLinesT8x128(src.data(), dst, 12, 256, false));
  EXPECT_FALSE(PairLinesT8x128(src.data(), dst, 8, 100, false));
  EXPECT_FALSE(PairLinesT8x128(src.data(), dst + 1, 8, 128, true));
  for (uint8_t v : dst) ASSERT_EQ(v, 0xEE);
}

// Exactly the tails, streaming and not, and nothing where it refuses.
TEST(CopyReferenceTest, ZeroRowTailsWritesOnlyTheTails) {
  if (!CanMoveTiles(TileMove::kAvx2)) GTEST_SKIP() << "no AVX2 here";
  for (bool streaming : {false, true}) {
    alignas(64) uint8_t dst[5 * 96 + 64];
    std::memset(dst, 0xEE, sizeof(dst));
    ASSERT_TRUE(ZeroRowTails(dst + 32, 5, 96, 64, streaming));
    for (int64_t i = 0; i < static_cast<int64_t>(sizeof(dst)); ++i) {
      const int64_t k = i - 32;
      const bool tail = k >= 0 && k / 96 < 5 && k % 96 < 64;
      ASSERT_EQ(dst[i], tail ? 0 : 0xEE) << "byte " << i << (streaming ? " streaming" : "");
    }
  }
  alignas(64) uint8_t dst[256];
  std::memset(dst, 0xEE, sizeof(dst));
  EXPECT_FALSE(ZeroRowTails(dst, 2, 96, 48, false));
  EXPECT_FALSE(ZeroRowTails(dst, -1, 96, 32, false));
  EXPECT_FALSE(ZeroRowTails(dst + 8, 2, 96, 32, true));
  EXPECT_FALSE(ZeroRowTails(dst, 2, 100, 32, true));
  for (uint8_t v : dst) ASSERT_EQ(v, 0xEE);
}

}  // namespace
}  // namespace xla_layout
