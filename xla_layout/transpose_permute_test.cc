#include "xla_layout/transpose_permute.h"

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "absl/types/span.h"
#include "gtest/gtest.h"
#include "xla_layout/isa.h"
#include "xla_layout/test_util.h"

namespace xla_layout {
namespace {

bool HasAvx512() { return ResolveIsa(Isa::kAuto) == Isa::kAvx512; }

// dst[p * pds + a * dsa + b * 4] = src[p * pss + a * 4 + b * ssb], element
// by element, into a copy of `dst`.
std::vector<uint8_t> Transposed(const std::vector<uint8_t>& src, std::vector<uint8_t> dst,
                                int64_t planes, int64_t pss, int64_t pds, int64_t na,
                                int64_t nb, int64_t ssb, int64_t dsa) {
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t a = 0; a < na; ++a) {
      for (int64_t b = 0; b < nb; ++b) {
        std::memcpy(&dst[p * pds + a * dsa + b * 4], &src[p * pss + a * 4 + b * ssb], 4);
      }
    }
  }
  return dst;
}

// The planes kernel alone against an element loop: planes of 8x8 blocks
// with rows back to back on either side (64-byte loads or stores), on
// both, or on neither, nb 8 or 16; bytes it does not own keep their value,
// and nothing is read past the last source element.
TEST(TransposePlanes8x8Test, MatchesAnElementLoop) {
  if (!HasAvx512()) GTEST_SKIP() << "no AVX-512 here";
  std::mt19937_64 rng(39);
  for (int trial = 0; trial < 400; ++trial) {
    // trial % 4: 0 rows back to back on both sides, 1 in the source only
    // (nb 16), 2 in the destination only, 3 on neither.
    const bool src_rows = trial % 4 < 2, dst_rows = trial % 2 == 0;
    const int64_t nb = dst_rows ? 8 : 16, na = src_rows ? 8 : 8 * (1 + rng() % 6);
    const int64_t planes = 1 + rng() % 4;
    const int64_t ssb = src_rows ? 32 : 4 * (na + rng() % 9);
    const int64_t dsa = dst_rows ? 32 : 4 * (nb + rng() % 9);
    const int64_t pss = (nb - 1) * ssb + na * 4 + 4 * (rng() % 5);
    const int64_t pds = (na - 1) * dsa + nb * 4 + 4 * (rng() % 5);
    ASSERT_TRUE(internal::TakesTransposePlanes8x8(4, na, nb, Isa::kAvx512));
    std::vector<uint8_t> src((planes - 1) * pss + (nb - 1) * ssb + na * 4);
    FillRandomBytes(rng, absl::MakeSpan(src));
    std::vector<uint8_t> got((planes - 1) * pds + (na - 1) * dsa + nb * 4, 0xEE);
    const std::vector<uint8_t> want = Transposed(src, got, planes, pss, pds, na, nb, ssb, dsa);
    internal::TransposePlanes8x8(reinterpret_cast<const char*>(src.data()),
                                 reinterpret_cast<char*>(got.data()), planes, pss, pds, na, nb,
                                 ssb, dsa);
    ASSERT_EQ(got, want) << "planes=" << planes << " na=" << na << " nb=" << nb
                         << " ssb=" << ssb << " dsa=" << dsa;
  }
}

TEST(TransposePlanes8x8Test, TakesBlocksOf8Or16RowsOfFloatsOnAvx512) {
  EXPECT_TRUE(internal::TakesTransposePlanes8x8(4, 8, 8, Isa::kAvx512));
  EXPECT_TRUE(internal::TakesTransposePlanes8x8(4, 64, 16, Isa::kAvx512));
  EXPECT_FALSE(internal::TakesTransposePlanes8x8(4, 12, 8, Isa::kAvx512));
  EXPECT_FALSE(internal::TakesTransposePlanes8x8(4, 8, 24, Isa::kAvx512));
  EXPECT_FALSE(internal::TakesTransposePlanes8x8(4, 8, 4, Isa::kAvx512));
  EXPECT_FALSE(internal::TakesTransposePlanes8x8(2, 8, 8, Isa::kAvx512));
  EXPECT_FALSE(internal::TakesTransposePlanes8x8(4, 8, 8, Isa::kAvx2));
}

// Whole tiles in strips against an element loop: strips of 16 to 64 rows,
// the last one short, rows with gaps on both sides; bytes outside the
// tiles keep their value, nothing is read past the last source element.
TEST(TransposeStripsPermuteTest, MatchesAnElementLoop) {
  if (!HasAvx512()) GTEST_SKIP() << "no AVX-512 here";
  std::mt19937_64 rng(40);
  for (int trial = 0; trial < 300; ++trial) {
    const int64_t na = 16 * (1 + rng() % 5), nb = 16 * (1 + rng() % 7);
    const int64_t strip_rows = 16 * (1 + rng() % 4);
    const int64_t ssb = 4 * (na + rng() % 9), dsa = 4 * (nb + rng() % 9);
    std::vector<uint8_t> src((nb - 1) * ssb + na * 4);
    FillRandomBytes(rng, absl::MakeSpan(src));
    std::vector<uint8_t> got((na - 1) * dsa + nb * 4, 0xEE);
    const std::vector<uint8_t> want = Transposed(src, got, 1, 0, 0, na, nb, ssb, dsa);
    internal::TransposeStripsPermute(reinterpret_cast<const char*>(src.data()),
                                     reinterpret_cast<char*>(got.data()), na, nb, ssb, dsa,
                                     strip_rows);
    ASSERT_EQ(got, want) << "na=" << na << " nb=" << nb << " ssb=" << ssb << " dsa=" << dsa
                         << " strips of " << strip_rows;
  }
}

}  // namespace
}  // namespace xla_layout
