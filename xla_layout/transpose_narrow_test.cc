#include "xla_layout/transpose_narrow.h"

#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla_layout/memory.h"
#include "xla_layout/relayout.h"
#include "xla_layout/shape_text.h"
#include "xla_layout/test_util.h"
#include "xla_layout/tiled_layout.h"

namespace xla_layout {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

bool HasSimd() { return DetectIsa() == Isa::kAvx2 || DetectIsa() == Isa::kAvx512; }

// The kernel alone against an element loop: random column counts, rows,
// source strides, planes, and destination rows in a shuffled order with
// gaps between them, on every ISA path.
TEST(TransposeRows32Test, MatchesAnElementLoop) {
  std::mt19937_64 rng(31);
  for (int trial = 0; trial < 300; ++trial) {
    const int64_t ncols = 1 + rng() % 40, nb = 1 + rng() % 40, planes = 1 + rng() % 3;
    const int64_t ssb = 4 * (ncols + rng() % 5);
    const int64_t row_bytes = 4 * (nb + rng() % 9);
    std::vector<int64_t> order(ncols);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<int64_t> rows(ncols);
    for (int64_t c = 0; c < ncols; ++c) rows[c] = order[c] * row_bytes;
    const int64_t plane_src = ssb * nb, plane_dst = row_bytes * ncols;
    std::vector<uint8_t> src(plane_src * planes);
    FillRandomBytes(rng, absl::MakeSpan(src));
    std::vector<uint8_t> want(plane_dst * planes, 0xEE);
    for (int64_t p = 0; p < planes; ++p) {
      for (int64_t c = 0; c < ncols; ++c) {
        for (int64_t b = 0; b < nb; ++b) {
          std::memcpy(&want[p * plane_dst + rows[c] + b * 4], &src[p * plane_src + c * 4 + b * ssb],
                      4);
        }
      }
    }
    for (Isa isa : IsaPathsHere()) {
      std::vector<uint8_t> got(want.size(), 0xEE);
      internal::TransposeRows32(reinterpret_cast<const char*>(src.data()),
                                reinterpret_cast<char*>(got.data()), planes, plane_src,
                                plane_dst, ncols, nb, ssb, rows.data(), isa);
      ASSERT_EQ(got, want) << IsaName(isa) << " ncols=" << ncols << " nb=" << nb
                           << " ssb=" << ssb << " planes=" << planes;
    }
  }
}

// Relayouts src -> dst on `isa` from random bytes and checks every slot
// against the index math; returns the plan's description.
std::string RunAndCheck(const std::string& src_text, const std::string& dst_text, Isa isa) {
  const Shape src = ParseTestShape(src_text), dst = ParseTestShape(dst_text);
  RelayoutOptions options;
  options.isa = isa;
  options.threads = 1;
  options.padding_value = {0xC3};
  absl::StatusOr<RelayoutPlan> plan = RelayoutPlan::Create(src, dst, options);
  EXPECT_TRUE(plan.ok()) << plan.status();
  if (!plan.ok()) return "";
  std::mt19937_64 rng(TiledLayout::Create(src)->byte_size());
  absl::Status check = RunAndCheckRelayout(*plan, src, dst, options.padding_value, rng);
  EXPECT_TRUE(check.ok()) << src_text << " -> " << dst_text << " on " << IsaName(isa) << ": "
                          << check << "\n"
                          << plan->Describe();
  return plan->Describe();
}

// The weight layouts of convolutions, as the layout pass inserts them for
// MobileNet and ResNet: depthwise [C,1,3,3], dense [O,I,3,3] and
// [O,3,3,3], 1x1 [C,K,1,1], into plain and tiled destinations, with
// random channel counts (multiples of 8 and not, below 8 too).
TEST(TransposeNarrowTest, ConvolutionWeightsMatchTheIndexMath) {
  std::mt19937_64 rng(7);
  const std::vector<std::pair<const char*, const char*>> layouts = {
      {"{3,2,1,0}", "{0,1,3,2}"},
      {"{3,2,1,0}", "{0,1,3,2:T(1,128)}"},
      {"{3,2,1,0}", "{0,1,3,2:T(8,128)}"},
      {"{3,2,1,0}", "{1,3,2,0:T(1,128)}"},
      {"{1,0,2,3}", "{2,3,1,0}"},
      {"{3,2,1,0}", "{1,0,2,3}"},
  };
  int with_table = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const int64_t c = 1 + rng() % 70, k = 1 + rng() % 12;
    const int64_t h = 1 + rng() % 3, w = 1 + rng() % 3;
    const std::string dims = absl::StrCat("f32[", c, ",", k, ",", h, ",", w, "]");
    for (const auto& [from, to] : layouts) {
      for (Isa isa : IsaPathsHere()) {
        const std::string plan = RunAndCheck(dims + from, dims + to, isa);
        with_table += plan.find("(row table)") != std::string::npos;
        if (isa == Isa::kScalar) {
          EXPECT_THAT(plan, Not(HasSubstr("(row table)")));
        }
      }
    }
  }
  if (HasSimd()) {
    EXPECT_GT(with_table, 40);
  }
}

// The copies of the replayed-copies table this kernel is for, on every
// path, and the plan each gets on the SIMD paths: the columns a source row
// holds (27, 288, 24 tile rows, or 9 rows 4 KiB apart) in one table.
TEST(TransposeNarrowTest, ReplayedWeightCopiesUseOneRowTable) {
  struct Case {
    const char* src;
    const char* dst;
    const char* plan;  // a piece of Describe() on the SIMD paths
  };
  const std::vector<Case> cases = {
      {"f32[32,3,3,3]{3,2,1,0}", "f32[32,3,3,3]{0,1,3,2}", "1:0/0 27:4/0 32:108/4"},
      {"f32[32,32,3,3]{3,2,1,0}", "f32[32,32,3,3]{0,1,3,2}", "1:0/0 288:4/0 32:1152/4"},
      {"f32[960,1,3,3]{3,2,1,0}", "f32[960,1,3,3]{0,1,3,2:T(1,128)}", "9:4/0 960:36/4"},
      {"f32[144,24,1,1]{3,2,1,0}", "f32[144,24,1,1]{0,1,3,2:T(8,128)}", "24:4/0 128:96/4"},
  };
  for (const Case& c : cases) {
    for (Isa isa : IsaPathsHere()) {
      const std::string plan = RunAndCheck(c.src, c.dst, isa);
      if (isa != Isa::kScalar) {
        EXPECT_THAT(plan, HasSubstr(absl::StrCat("(row table) src+0 dst+0 loops(extent:src/dst "
                                                 "bytes) ")))
            << c.src;
        EXPECT_THAT(plan, HasSubstr(c.plan)) << c.src << " -> " << c.dst;
      }
    }
  }
}

// [C,9] rows that do not share L1 sets keep the planner's kernels (8x8
// blocks and a sweep of the 9th column, as fast as the table there).
TEST(TransposeNarrowTest, NineColumnsAlonePlanAsBefore) {
  for (const auto& [src, dst] :
       {std::pair{"f32[96,1,3,3]{3,2,1,0}", "f32[96,1,3,3]{0,1,3,2}"},
        std::pair{"f32[3,3,3,32]{1,0,2,3}", "f32[3,3,3,32]{2,3,1,0}"},
        std::pair{"f32[384,1,3,3]{3,2,1,0}", "f32[384,1,3,3]{0,1,3,2:T(1,128)}"}}) {
    for (Isa isa : IsaPathsHere()) {
      EXPECT_THAT(RunAndCheck(src, dst, isa), Not(HasSubstr("(row table)"))) << src;
    }
  }
}

// A dim split at a tile boundary whose tiles continue each other on both
// sides (T(1,128): 144 lanes as 128 and 16) is one task, not two.
TEST(TransposeNarrowTest, TasksThatContinueEachOtherAreMerged) {
  for (Isa isa : IsaPathsHere()) {
    const std::string plan =
        RunAndCheck("f32[24,144,1,1]{3,2,1,0}", "f32[24,144,1,1]{1,3,2,0:T(1,128)}", isa);
    EXPECT_THAT(plan, HasSubstr("copy src+0 dst+0 loops(extent:src/dst bytes) 24:576/1024 "
                                "144:4/4\nfill"));
  }
  // Tiles that are not contiguous (T(8,128): the second lane tile is a
  // whole tile further on) stay apart.
  const std::string plan = RunAndCheck("f32[144,24,1,1]{3,2,1,0}",
                                       "f32[144,24,1,1]{0,1,3,2:T(8,128)}", Isa::kScalar);
  EXPECT_THAT(plan, HasSubstr("src+12288 dst+4096"));
}

}  // namespace
}  // namespace xla_layout
