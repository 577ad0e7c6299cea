#include "xla_layout/interleave_kernels.h"

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace xla_layout::internal {
namespace {

// Planes of every length (whole 32- and 16-pair steps and tails), gaps
// between the planes and between the two rows, destinations aligned for
// streaming stores or not, against a plain loop; the bytes between the
// planes stay as they were.
TEST(InterleaveKernelsTest, RowPairsMatchAPlainLoop) {
  std::vector<bool> paths;
  if (__builtin_cpu_supports("avx2")) paths.push_back(false);
  if (__builtin_cpu_supports("avx512bw")) paths.push_back(true);
  if (paths.empty()) GTEST_SKIP() << "no AVX2 here";
  std::mt19937_64 rng(53);
  for (bool avx512 : paths) {
    for (int trial = 0; trial < 400; ++trial) {
      const int64_t planes = 1 + rng() % 4, na = rng() % 100;
      const int64_t ssb = 2 * na + 2 * (rng() % 5);
      const int64_t plane_src = 2 * ssb + 2 * (rng() % 5);
      // Every other trial a plane stride and offset streaming stores accept.
      const bool aligned = trial % 2 == 0;
      const int64_t plane_dst =
          aligned ? (4 * na + 63) / 64 * 64 + 64 * (rng() % 2) : 4 * na + 2 * (rng() % 9);
      const int64_t offset = aligned ? 0 : 2 * (rng() % 32);
      const bool streaming = rng() % 2 == 0;
      std::vector<uint16_t> src(planes * plane_src / 2 + 1);
      for (uint16_t& e : src) e = static_cast<uint16_t>(rng());
      alignas(64) static uint8_t out[8192], want[8192];
      ASSERT_LE(offset + planes * plane_dst, static_cast<int64_t>(sizeof(out)));
      std::memset(out, 0x5A, sizeof(out));
      std::memset(want, 0x5A, sizeof(want));
      const char* s = reinterpret_cast<const char*>(src.data());
      for (int64_t p = 0; p < planes; ++p) {
        for (int64_t a = 0; a < na; ++a) {
          for (int64_t k = 0; k < 2; ++k) {
            std::memcpy(want + offset + p * plane_dst + a * 4 + k * 2,
                        s + p * plane_src + k * ssb + a * 2, 2);
          }
        }
      }
      InterleaveRowPairs(s, reinterpret_cast<char*>(out) + offset, planes, plane_src,
                         plane_dst, na, ssb, streaming, avx512);
      ASSERT_EQ(0, std::memcmp(out, want, sizeof(out)))
          << (avx512 ? "avx512" : "avx2") << " planes " << planes << " x " << na
          << " pairs, ssb " << ssb << ", plane strides " << plane_src << "/" << plane_dst
          << ", offset " << offset << (streaming ? ", streaming" : "");
    }
  }
}

}  // namespace
}  // namespace xla_layout::internal
