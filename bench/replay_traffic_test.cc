#include "bench/replay_traffic.h"

#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "xla_layout/copy_reference.h"
#include "xla_layout/relayout.h"
#include "xla_layout/shape_text.h"

namespace xla_layout::bench {
namespace {

using Kind = TrafficReduction::Kind;

TrafficReduction Reduce(const std::string& src, const std::string& dst) {
  return ReduceForTraffic(*ParseShape(src), *ParseShape(dst));
}

// The core's bytes for the copy, and the reduction's with its moves made
// real (a transpose transposed, not its lines moved), from the same source,
// on destinations filled alike.
void ExpectSameBytes(const std::string& src_text, const std::string& dst_text) {
  SCOPED_TRACE(src_text + " -> " + dst_text);
  const TrafficReduction r = Reduce(src_text, dst_text);
  ASSERT_NE(r.kind, Kind::kNone);
  absl::StatusOr<RelayoutPlan> plan = RelayoutPlan::Create(*ParseShape(src_text),
                                                           *ParseShape(dst_text));
  ASSERT_TRUE(plan.ok()) << plan.status();
  std::vector<char> src(plan->src_bytes());
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<char>(i * 7 + i / 251);
  std::vector<char> core(plan->dst_bytes(), '\xCD'), reference(core);
  plan->Execute(src.data(), core.data());
  if (r.kind == Kind::kTranspose) {
    ASSERT_TRUE(TransposeTiles(TileMove::kAvx2, src.data(), reference.data(), r.na, r.nb,
                               4 * r.na, r.dsa, 16, false));
    if (r.pad_bytes > 0) {
      ASSERT_TRUE(ZeroRowTails(reference.data() + 4 * r.nb, r.na, r.dsa, r.pad_bytes, false));
    }
  } else {
    ASSERT_TRUE(EachOfBatch(r, src.data(), reference.data(), [&](const char* s, char* d) {
      return CopyTileRuns(s, d, r.rows, r.cols, r.tile_rows, r.tile_cols, r.element_bytes,
                          r.to_tiles, false);
    }));
  }
  EXPECT_EQ(core, reference);
  for (const Mover& move : TrafficMovers(r)) EXPECT_TRUE(move(src.data(), reference.data(), false));
}

TEST(ReplayTrafficTest, TransposesWhoseDimsRotate) {
  if (!CanMoveTiles(TileMove::kAvx2)) GTEST_SKIP() << "no AVX2";
  const TrafficReduction r = Reduce("f32[96,1,3,3]{3,2,1,0}", "f32[96,1,3,3]{0,1,3,2}");
  EXPECT_EQ(r.kind, Kind::kTranspose);
  EXPECT_EQ(r.nb, 96);
  EXPECT_EQ(r.na, 9);
  EXPECT_EQ(TrafficMovers(r).size(), 2u);  // strips of 16 and of 256
  ExpectSameBytes("f32[96,1,3,3]{3,2,1,0}", "f32[96,1,3,3]{0,1,3,2}");
  ExpectSameBytes("f32[512,1024]{0,1}", "f32[512,1024]{1,0}");
  ExpectSameBytes("s32[3,5,7]{2,1,0}", "s32[3,5,7]{0,2,1}");
  ExpectSameBytes("f32[3,5,7]{2,1,0}", "f32[3,5,7]{1,0,2}");
}

// Into tiles that only pad each row: the 1x1 and 3x3 weights of MobileNet
// v2 on the TPU target, and its batch of images to batch-minor.
TEST(ReplayTrafficTest, TransposesIntoPaddedRows) {
  if (!CanMoveTiles(TileMove::kAvx2)) GTEST_SKIP() << "no AVX2";
  const TrafficReduction r =
      Reduce("f32[96,3,224,224]{3,2,1,0}", "f32[96,3,224,224]{0,3,2,1:T(8,128)}");
  EXPECT_EQ(r.kind, Kind::kTranspose);
  EXPECT_EQ(r.na, 3 * 224 * 224);
  EXPECT_EQ(r.nb, 96);
  EXPECT_EQ(r.dsa, 512);
  EXPECT_EQ(r.pad_bytes, 128);
  ExpectSameBytes("f32[96,16,1,1]{3,2,1,0}", "f32[96,16,1,1]{0,1,3,2:T(8,128)}");
  ExpectSameBytes("f32[96,1,3,3]{3,2,1,0}", "f32[96,1,3,3]{0,1,3,2:T(1,128)}");
  ExpectSameBytes("f32[96,4,8,8]{3,2,1,0}", "f32[96,4,8,8]{0,3,2,1:T(8,128)}");
  ExpectSameBytes("f32[128,16]{1,0}", "f32[128,16]{0,1:T(8,128)}");  // no padding
  // More columns than a tile's, a second-minor dim not a multiple of r, and
  // the source's major dim not the destination's minor one.
  EXPECT_EQ(Reduce("f32[192,32,1,1]{3,2,1,0}", "f32[192,32,1,1]{0,1,3,2:T(8,128)}").kind,
            Kind::kNone);
  EXPECT_EQ(Reduce("f32[96,12]{1,0}", "f32[96,12]{0,1:T(8,128)}").kind, Kind::kNone);
  EXPECT_EQ(Reduce("f32[4,96,8]{2,1,0}", "f32[4,96,8]{1,0,2:T(8,128)}").kind, Kind::kNone);
}

// Row-major to panels of t columns and back: the dot operands of the CPU
// targets.
TEST(ReplayTrafficTest, PanelsAreTilesOfWholeColumns) {
  if (!CanMoveTiles(TileMove::kAvx2)) GTEST_SKIP() << "no AVX2";
  const TrafficReduction r = Reduce("f32[256,128]{1,0}", "f32[256,128]{0,1:T(8,1)}");
  EXPECT_EQ(r.kind, Kind::kTileRuns);
  EXPECT_EQ(r.rows, 256);
  EXPECT_EQ(r.cols, 128);
  EXPECT_EQ(r.tile_rows, 256);
  EXPECT_EQ(r.tile_cols, 8);
  ExpectSameBytes("f32[256,128]{1,0}", "f32[256,128]{0,1:T(8,1)}");
  ExpectSameBytes("f32[256,128]{1,0}", "f32[256,128]{0,1:T(16,1)}");
  ExpectSameBytes("f32[16,36]{1,0}", "f32[16,36]{0,1:T(8,1)}");  // the last panel padded
  ExpectSameBytes("f32[256,128]{0,1:T(8,1)}", "f32[256,128]{1,0}");
  ExpectSameBytes("f32[1,64,1,40]{3,2,1,0}", "f32[1,64,1,40]{1,3,2,0:T(8,1)}");
  // Dims before the panels' two repeat the conversion, padding and all.
  const TrafficReduction b = Reduce("f32[8,256,64]{2,1,0}", "f32[8,256,64]{1,2,0:T(8,1)}");
  EXPECT_EQ(b.kind, Kind::kTileRuns);
  EXPECT_EQ(b.batch, 8);
  EXPECT_EQ(b.rows, 256);
  ExpectSameBytes("f32[8,256,64]{2,1,0}", "f32[8,256,64]{1,2,0:T(8,1)}");
  ExpectSameBytes("f32[3,20,36]{2,1,0}", "f32[3,20,36]{1,2,0:T(8,1)}");
  ExpectSameBytes("f32[3,20,36]{1,2,0:T(16,1)}", "f32[3,20,36]{2,1,0}");
  // Not when the dims before them are ordered otherwise on the two sides.
  EXPECT_EQ(Reduce("f32[4,8,256,64]{3,2,1,0}", "f32[4,8,256,64]{2,3,0,1:T(8,1)}").kind,
            Kind::kNone);
}

TEST(ReplayTrafficTest, TileConversionsOnTheMinorDims) {
  if (!CanMoveTiles(TileMove::kAvx2)) GTEST_SKIP() << "no AVX2";
  const TrafficReduction r = Reduce("f32[2,4,32,32]{3,2,1,0}", "f32[2,4,32,32]{3,2,1,0:T(8,128)}");
  EXPECT_EQ(r.kind, Kind::kTileRuns);
  EXPECT_EQ(r.rows, 256);
  EXPECT_EQ(r.cols, 32);
  EXPECT_TRUE(r.to_tiles);
  ExpectSameBytes("f32[64,128]{1,0:T(8,8)}", "f32[64,128]{1,0}");
  ExpectSameBytes("f32[2,4,32,32]{3,2,1,0}", "f32[2,4,32,32]{3,2,1,0:T(8,128)}");
  ExpectSameBytes("f32[32,650]{1,0}", "f32[32,650]{1,0:T(8,128)}");   // columns padded
  ExpectSameBytes("f32[12,650]{1,0}", "f32[12,650]{1,0:T(8,128)}");   // rows padded too
  ExpectSameBytes("f32[12,650]{1,0:T(8,128)}", "f32[12,650]{1,0}");
  ExpectSameBytes("bf16[16,256]{0,1}", "bf16[16,256]{0,1:T(8,128)}");
  // Runs of 32 and 64 bytes also in lines as the core moves them, where
  // AVX-512F is.
  const size_t lines = CanMoveTiles(TileMove::kAvx512) ? 2 : 1;
  EXPECT_EQ(TrafficMovers(Reduce("f32[64,128]{1,0:T(8,8)}", "f32[64,128]{1,0}")).size(), lines);
  EXPECT_EQ(TrafficMovers(Reduce("f32[64,128]{1,0:T(16,16)}", "f32[64,128]{1,0}")).size(), lines);
  EXPECT_EQ(TrafficMovers(Reduce("f32[256,128]{1,0}", "f32[256,128]{0,1:T(8,1)}")).size(), lines);
  EXPECT_EQ(TrafficMovers(Reduce("f32[32,650]{1,0}", "f32[32,650]{1,0:T(8,128)}")).size(), 1u);
}

TEST(ReplayTrafficTest, OtherCopiesHaveNoReduction) {
  // Tiles that would straddle the outer dims' boundaries.
  EXPECT_EQ(Reduce("f32[3,5,8]{2,1,0}", "f32[3,5,8]{2,1,0:T(2,128)}").kind, Kind::kNone);
  // A permutation that is no rotation.
  EXPECT_EQ(Reduce("f32[16,28,28,128]{3,2,1,0}", "f32[16,28,28,128]{3,0,2,1}").kind, Kind::kNone);
  // 16-bit elements transposed; the same order; tiles on both sides;
  // tiles with a different order of dims.
  EXPECT_EQ(Reduce("bf16[64,64]{1,0}", "bf16[64,64]{0,1}").kind, Kind::kNone);
  EXPECT_EQ(Reduce("f32[8,4]{1,0}", "f32[8,4]{1,0}").kind, Kind::kNone);
  EXPECT_EQ(Reduce("f32[64,128]{1,0:T(8,8)}", "f32[64,128]{1,0:T(8,128)}").kind, Kind::kNone);
  // Runs of one element: a kernel transposes them in registers.
  EXPECT_EQ(Reduce("f32[8,256,64]{2,1,0}", "f32[8,256,64]{2,1,0:T(8,1)}").kind, Kind::kNone);
  EXPECT_EQ(Reduce("f32[64,64]{1,0}", "f32[64,64]{0,1:T(4,1)}").kind, Kind::kNone);
  EXPECT_TRUE(TrafficMovers(TrafficReduction()).empty());
}

}  // namespace
}  // namespace xla_layout::bench
