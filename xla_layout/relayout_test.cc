#include "xla_layout/relayout.h"
#include "xla_layout/primitive_type.h"
#include "xla_layout/subbyte.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <random>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla_layout/kernel_tuning.h"
#include "xla_layout/shape_text.h"
#include "xla_layout/short_row_transposes.h"
#include "xla_layout/memory.h"
#include "xla_layout/test_util.h"
#include "xla_layout/tiled_layout.h"

namespace xla_layout {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Shape Parse(absl::string_view text) { return ParseTestShape(text); }

// Relayouts src -> dst from random bytes (source padding included) and
// checks every destination slot; returns the destination bytes.
std::vector<uint8_t> RunAndCheck(const Shape& src, const Shape& dst,
                                 RelayoutOptions options = {}) {
  absl::StatusOr<RelayoutPlan> plan = RelayoutPlan::Create(src, dst, options);
  EXPECT_TRUE(plan.ok()) << plan.status();
  if (!plan.ok()) return {};
  absl::StatusOr<TiledLayout> s = TiledLayout::Create(src);
  absl::StatusOr<TiledLayout> d = TiledLayout::Create(dst);
  std::vector<uint8_t> in(s->byte_size());
  std::mt19937_64 rng(in.size());
  FillRandomBytes(rng, absl::MakeSpan(in));
  // A page-aligned destination, so that the aligned (streaming) kernels run.
  absl::StatusOr<AlignedBuffer> aligned = AllocateAligned(d->byte_size(), "test");
  EXPECT_TRUE(aligned.ok()) << aligned.status();
  if (!aligned.ok()) return {};
  uint8_t* out_bytes = reinterpret_cast<uint8_t*>(aligned->get());
  std::memset(out_bytes, 0x5A, d->byte_size());
  plan->Execute(in.data(), out_bytes);
  std::vector<uint8_t> out(out_bytes, out_bytes + d->byte_size());
  absl::Status check =
      CheckRelayout(*s, in.data(), *d, out.data(), options.padding_value);
  EXPECT_TRUE(check.ok()) << src << " -> " << dst << ": " << check << "\n"
                          << plan->Describe();
  return out;
}

struct LayoutGroup {
  const char* dims;  // element type and dims, e.g. "f32[19,137]"
  std::vector<const char*> layouts;
};

// 34 layouts in groups of one rank; every pair within a group is checked.
// The dims are odd so that every tile has partial tiles.
const std::vector<LayoutGroup>& Groups() {
  static const auto* groups = new std::vector<LayoutGroup>{
      {"[37]", {"{0}", "{0:T(8)}", "{0:T(16)(4)}", "{0:T(4)L(64)}",
                "{0:T(128)}"}},
      {"[19,137]",
       {"{1,0}", "{0,1}", "{1,0:T(8,128)}", "{0,1:T(8,128)}",
        "{1,0:T(8,128)(2,1)}", "{1,0:T(2,4)(2,1)}", "{1,0:T(32,32)}",
        "{0,1:T(32,32)}", "{0,1:T(32,32)(1,1,32,1)}", "{1,0:T(4)}",
        "{1,0:T(*,128)}", "{1,0:T(3,5)}", "{1,0:T(2,2)(1,2)}",
        "{0,1:T(16,8)(2,1)}", "{1,0:T(8,128)L(1024)}"}},
      {"[5,9,7]", {"{2,1,0}", "{0,1,2}", "{1,2,0:T(2,4)}", "{2,1,0:T(*,3,4)}",
                   "{2,1,0:T(*,*,8)}"}},
      {"[2,35,5,7]", {"{3,2,1,0}", "{3,2,1,0:T(16,1,1)}", "{1,3,2,0}",
                      "{1,3,2,0:T(8,16)}", "{3,2,1,0:T(*,16,1,1)}"}},
      {"[2,3,4,5,6]", {"{4,3,2,1,0}", "{0,1,2,3,4}",
                       "{4,3,2,1,0:T(*,*,2,*,3)}", "{2,4,0,3,1:T(2,2)}"}},
  };
  return *groups;
}

class AllPairsTest : public ::testing::TestWithParam<const char*> {};

TEST_P(AllPairsTest, EveryPairMatchesTheIndexMath) {
  int layouts = 0, pairs = 0;
  for (const LayoutGroup& group : Groups()) {
    layouts += group.layouts.size();
    for (const char* a : group.layouts) {
      for (const char* b : group.layouts) {
        Shape src = Parse(absl::StrCat(GetParam(), group.dims, a));
        Shape dst = Parse(absl::StrCat(GetParam(), group.dims, b));
        std::vector<uint8_t> first;
        for (Isa isa : IsaPathsHere()) {
          RelayoutOptions options;
          options.isa = isa;
          options.padding_value = {0xC3};
          std::vector<uint8_t> out = RunAndCheck(src, dst, options);
          if (first.empty()) first = out;
          ASSERT_EQ(out, first) << "ISA " << IsaName(isa) << " differs on "
                                << src << " -> " << dst;
        }
        ++pairs;
      }
    }
  }
  EXPECT_GE(layouts, 30);
  EXPECT_EQ(pairs, 5 * 5 + 15 * 15 + 5 * 5 + 5 * 5 + 4 * 4);
}

INSTANTIATE_TEST_SUITE_P(ElementSizes, AllPairsTest,
                         ::testing::Values("s8", "bf16", "f32", "f64",
                                           "c128"));

// The copies the layout pass inserts for CPU panels, in cache: rows of 16
// to 512 bytes and 8x8 blocks of f32, plane after plane in one kernel call
// (Kernels::copy_planes, transpose_planes), on every ISA path.
TEST(RelayoutTest, TileRowsAndSmallBlocksInPlanesMatchTheIndexMath) {
  const std::vector<std::pair<const char*, const char*>> pairs = {
      {"f32[64,128]{1,0:T(8,4)}", "f32[64,128]{1,0}"},     // rows of 16 bytes
      {"f32[64,128]{1,0:T(8,8)}", "f32[64,128]{1,0}"},     // 32
      {"f32[64,128]{1,0:T(16,16)}", "f32[64,128]{1,0}"},   // 64
      {"f32[64,128]{1,0:T(8,32)}", "f32[64,128]{1,0}"},    // 128
      {"f32[64,256]{1,0:T(8,64)}", "f32[64,256]{1,0}"},    // 256
      {"f32[64,512]{1,0:T(8,128)}", "f32[64,512]{1,0}"},   // 512
      {"f32[256,128]{1,0}", "f32[256,128]{0,1:T(8,1)}"},
      {"f32[2,4,32,32]{3,2,1,0:T(8,8)}", "f32[2,4,32,32]{3,2,1,0}"},
      {"f32[2,4,32,32]{3,2,1,0:T(8,8)}", "f32[2,4,32,32]{3,2,1,0:T(8,1)}"},
      {"f32[96,1000]{1,0:T(8,1)}", "f32[96,1000]{0,1:T(8,1)}"},
      {"f32[40,24]{1,0:T(8,1)}", "f32[40,24]{0,1:T(8,1)}"},
      {"f32[64,256]{1,0}", "f32[64,256]{1,0:T(8,1)}"},              // 8 rows, 256 wide
      {"f32[96,1000]{1,0:T(16,1)}", "f32[96,1000]{0,1:T(16,1)}"},   // 16x16 blocks
      {"f32[2,4,32,32]{3,2,1,0:T(16,16)}", "f32[2,4,32,32]{3,2,1,0:T(16,1)}"},
  };
  for (const auto& [src, dst] : pairs) {
    std::vector<uint8_t> first;
    for (Isa isa : IsaPathsHere()) {
      RelayoutOptions options;
      options.isa = isa;
      options.streaming = RelayoutOptions::Streaming::kOff;
      std::vector<uint8_t> out = RunAndCheck(Parse(src), Parse(dst), options);
      if (first.empty()) first = out;
      ASSERT_EQ(out, first) << IsaName(isa) << " " << src << " -> " << dst;
    }
  }
}

// Tile rows whose padding the fill kernel writes plane after plane
// (Kernels::fill_planes): short runs in cache, and with streaming stores
// whole lines non-temporal and the partial lines at both edges ordinary,
// for every edge length; elements of 1 to 16 bytes moved one by one
// (the strided path) beside them.
TEST(RelayoutTest, PaddingRowsAndStridedElementsMatchTheIndexMath) {
  std::vector<std::pair<std::string, std::string>> pairs = {
      {"f32[24,1,3,3]{3,2,1,0}", "f32[24,1,3,3]{0,1,3,2:T(1,128)}"},
      {"f32[64,48,1,1]{3,2,1,0}", "f32[64,48,1,1]{0,1,3,2:T(8,128)}"},
      {"bf16[40,3]{1,0}", "bf16[40,3]{1,0:T(1,100)}"},
      {"c128[40,3]{1,0}", "c128[40,3]{1,0:T(1,9)}"},
  };
  for (const char* type : {"s8", "bf16", "f32", "f64", "c128"}) {
    pairs.emplace_back(absl::StrCat(type, "[40,3,1,1]{3,2,1,0}"),
                       absl::StrCat(type, "[40,3,1,1]{3,2,1,0:T(1,128)}"));
  }
  for (const auto& [src, dst] : pairs) {
    std::vector<uint8_t> first;
    for (Isa isa : IsaPathsHere()) {
      for (auto streaming : {RelayoutOptions::Streaming::kOff, RelayoutOptions::Streaming::kOn}) {
        RelayoutOptions options;
        options.isa = isa;
        options.streaming = streaming;
        options.padding_value = {0xC3};
        std::vector<uint8_t> out = RunAndCheck(Parse(src), Parse(dst), options);
        if (first.empty()) first = out;
        ASSERT_EQ(out, first) << IsaName(isa) << " " << src << " -> " << dst;
      }
    }
  }
  // Streaming, an element and its row's padding are written in one turn
  // (chunks of the shared outer loop), so the line they share is read once;
  // in cache the two tasks run as passes.
  RelayoutOptions options;
  options.streaming = RelayoutOptions::Streaming::kOn;
  const Shape src = Parse("f32[40,3,1,1]{3,2,1,0}");
  const Shape dst = Parse("f32[40,3,1,1]{3,2,1,0:T(1,128)}");
  EXPECT_THAT(RelayoutPlan::Create(src, dst, options)->Describe(), HasSubstr(" interleaved"));
  options.streaming = RelayoutOptions::Streaming::kOff;
  EXPECT_THAT(RelayoutPlan::Create(src, dst, options)->Describe(),
              Not(HasSubstr(" interleaved")));
}

TEST(RelayoutTest, CopyClassesNameTheKernelThatMovesMostBytes) {
  struct Case {
    const char* src;
    const char* dst;
    CopyClass want;
  } cases[] = {
      {"f32[64,2048]{1,0}", "f32[64,2048]{1,0:T(2,2048)}", CopyClass::kContiguous},
      {"f32[64,256]{1,0}", "f32[64,256]{1,0:T(8,128)}", CopyClass::kTile},
      {"f32[64,256]{1,0}", "f32[64,256]{0,1}", CopyClass::kTranspose},
      {"bf16[64,256]{1,0}", "bf16[64,256]{1,0:T(8,128)(2,1)}", CopyClass::kTranspose},
      {"f32[12,12]{1,0:T(3,3)}", "f32[12,12]{1,0:T(4,4)}", CopyClass::kTranspose},  // gather
      {"s4[64,128]{1,0:E(4)}", "s4[64,128]{0,1:E(4)}", CopyClass::kSubByte},
      {"s4[64,128]{1,0:E(4)}", "s4[64,128]{1,0}", CopyClass::kSubByte},
  };
  for (const Case& c : cases) {
    Shape src = *ParseShape(c.src), dst = *ParseShape(c.dst);
    absl::StatusOr<CopyClass> classified = RelayoutPlan::Classify(src, dst);
    ASSERT_TRUE(classified.ok()) << classified.status();
    EXPECT_EQ(CopyClassName(*classified), CopyClassName(c.want)) << c.src << " -> " << c.dst;
    absl::StatusOr<RelayoutPlan> plan = RelayoutPlan::Create(src, dst);
    ASSERT_TRUE(plan.ok()) << plan.status();
    EXPECT_EQ(plan->copy_class(), *classified) << c.src << " -> " << c.dst;
  }
  EXPECT_FALSE(RelayoutPlan::Classify(*ParseShape("f32[4]"), *ParseShape("f32[5]")).ok());
}

TEST(RelayoutTest, LargeTransposeUsesSimdAndThreads) {
  // Large enough for two threads by the plan's cost, odd edges for the SIMD blocks; 1030 source rows
  // share the outer loop, 1024 and 4096 split the rows between threads
  // (f32 and byte kernels).
  for (const auto& [src_text, dst_text] :
       {std::pair<const char*, const char*>{"f32[1030,2070]{1,0}", "f32[1030,2070]{0,1}"},
        {"f32[1024,2070]{1,0}", "f32[1024,2070]{0,1}"},
        {"s8[4096,2072]{1,0}", "s8[4096,2072]{0,1}"}}) {
  SCOPED_TRACE(src_text);
  Shape src = Parse(src_text);
  Shape dst = Parse(dst_text);
  for (Isa isa : IsaPathsHere()) {
    RelayoutOptions options;
    options.isa = isa;
    options.threads = 2;
    absl::StatusOr<RelayoutPlan> plan = RelayoutPlan::Create(src, dst, options);
    ASSERT_TRUE(plan.ok());
    EXPECT_EQ(plan->threads(), 2);
    EXPECT_THAT(plan->Describe(), HasSubstr("transpose"));
    RunAndCheck(src, dst, options);
  }
  }
}

// The thread count follows the plan's estimated time: a copy that runs in
// cache in a few microseconds does not pay for handing a share to a worker;
// one of ~100 us in cache, or one that moves tens of MB, does. More bytes
// never mean fewer threads.
TEST(RelayoutTest, ThreadCountFollowsThePlansCost) {
  using internal::ThreadsForCost;
  EXPECT_EQ(ThreadsForCost(CopyClass::kTile, 8'000'000, /*in_cache=*/true, 2), 2);
  EXPECT_EQ(ThreadsForCost(CopyClass::kTile, 500'000, /*in_cache=*/true, 2), 1);
  EXPECT_EQ(ThreadsForCost(CopyClass::kTile, 128'000'000, /*in_cache=*/false, 2), 2);
  EXPECT_EQ(ThreadsForCost(CopyClass::kTranspose, 4096, /*in_cache=*/true, 64), 1);
  EXPECT_EQ(ThreadsForCost(CopyClass::kSubByte, 4'000'000, /*in_cache=*/true, 2), 2);
  EXPECT_EQ(ThreadsForCost(CopyClass::kTile, 128'000'000, /*in_cache=*/false, 1), 1);
  // From memory, bandwidth caps what more threads can win.
  EXPECT_LE(ThreadsForCost(CopyClass::kContiguous, int64_t{1} << 32, false, 64), 2);
  for (CopyClass c : {CopyClass::kContiguous, CopyClass::kTile, CopyClass::kTranspose,
                      CopyClass::kSubByte}) {
    for (bool in_cache : {true, false}) {
      int last = 1;
      for (int64_t bytes = 1024; bytes < (int64_t{1} << 34); bytes *= 2) {
        int t = ThreadsForCost(c, bytes, in_cache, 8);
        EXPECT_GE(t, last) << CopyClassName(c) << " " << bytes;
        last = t;
      }
    }
  }
  RelayoutOptions options;
  options.threads = 2;
  for (const auto& [n, threads] : {std::pair<int, int>{128, 1}, {1000, 2}, {4096, 2}}) {
    absl::StatusOr<RelayoutPlan> plan = RelayoutPlan::Create(
        Parse(absl::StrCat("f32[", n, ",", n, "]{1,0}")),
        Parse(absl::StrCat("f32[", n, ",", n, "]{1,0:T(8,128)}")), options);
    ASSERT_TRUE(plan.ok());
    EXPECT_EQ(plan->threads(), threads) << n;
  }
}

// Destinations over 16 MiB take the streaming-store kernels.
// Each thread gets its half of the bytes, also when the outer loop has as
// few steps as threads (a lone transpose cut into one band per thread once
// gave both bands to the first thread).
TEST(RelayoutTest, ThreadsShareTheBytesEvenly) {
  RelayoutOptions options;
  options.threads = 2;
  for (const char* dst : {"f32[4096,4096]{0,1}", "f32[4096,4096]{1,0:T(8,128)}",
                          "f32[4096,4096]{0,1:T(32,32)(32,1)}"}) {
    absl::StatusOr<RelayoutPlan> plan =
        RelayoutPlan::Create(Parse("f32[4096,4096]{1,0}"), Parse(dst), options);
    ASSERT_TRUE(plan.ok());
    ASSERT_EQ(plan->threads(), 2) << dst;
    EXPECT_THAT(plan->Describe(), HasSubstr("\nbytes per thread 33554432 33554432\n"))
        << dst << "\n" << plan->Describe();
  }
}

TEST(RelayoutTest, StreamingPathsOnLargeBuffers) {
  const char* cases[][2] = {
      {"f32[2048,2056]{1,0}", "f32[2048,2056]{1,0:T(8,128)}"},
      {"f32[2048,2056]{1,0}", "f32[2048,2056]{0,1}"},
      {"f32[2056,2048]{1,0}", "f32[2056,2048]{0,1:T(32,32)(32,1)}"},
  };
  for (const auto& c : cases) {
    for (Isa isa : IsaPathsHere()) {
      RelayoutOptions options;
      options.isa = isa;
      absl::StatusOr<RelayoutPlan> plan =
          RelayoutPlan::Create(Parse(c[0]), Parse(c[1]), options);
      ASSERT_TRUE(plan.ok());
      EXPECT_THAT(plan->Describe(), HasSubstr("streaming"));
      RunAndCheck(Parse(c[0]), Parse(c[1]), options);
    }
  }
}

TEST(RelayoutTest, StreamingCanBeForcedEitherWay) {
  // A tiled copy, bf16 row pairs interleaved (T(8,128)(2,1)), transposes
  // into narrow tiles (4x8 and 2x8 blocks) and one whose last rows take
  // both blocks and then single elements, and a batch moved minor (48
  // rows of 2700, 192-byte destination rows: on AMD the strips of 16 rows
  // along the whole row, then 12 columns of edge).
  for (const auto& [src_text, dst_text] :
       {std::pair<const char*, const char*>{"f32[37,300]{1,0}",
                                            "f32[37,300]{0,1:T(8,128)}"},
        {"bf16[37,300]{1,0}", "bf16[37,300]{1,0:T(8,128)(2,1)}"},
        {"f32[37,300]{1,0}", "f32[37,300]{0,1:T(4,128)}"},
        {"f32[37,300]{1,0}", "f32[37,300]{0,1:T(2,128)}"},
        {"f32[30,47]{1,0}", "f32[30,47]{0,1}"},
        {"f32[48,3,30,30]{3,2,1,0}", "f32[48,3,30,30]{0,3,2,1}"}}) {
    const Shape src = Parse(src_text);
    const Shape dst = Parse(dst_text);
    for (auto mode : {RelayoutOptions::Streaming::kOn,
                      RelayoutOptions::Streaming::kOff}) {
      for (Isa isa : IsaPathsHere()) {
        RelayoutOptions options;
        options.streaming = mode;
        options.isa = isa;
        absl::StatusOr<RelayoutPlan> plan = RelayoutPlan::Create(src, dst, options);
        ASSERT_TRUE(plan.ok());
        EXPECT_EQ(plan->Describe().find("streaming") != std::string::npos,
                  mode == RelayoutOptions::Streaming::kOn);
        RunAndCheck(src, dst, options);
        RunAndCheck(dst, src, options);
      }
    }
  }
}

// Plans src -> dst streaming on `isa` with `threads` and padding `fill`,
// checks that the plan is the transpose alone, its rows padded by
// `padded` bytes and its loops `loops` whole (two threads take halves of
// the rows, not of each row: the padding follows the row's last element),
// where this CPU writes rows and padding in one pass, and two tasks
// elsewhere; then runs it and checks every element and padding slot.
void CheckPaddedTranspose(const char* src, const char* dst, Isa isa, int threads,
                          const std::vector<uint8_t>& fill, int64_t na, int64_t nb,
                          const std::string& padded_loops) {
  RelayoutOptions options;
  options.isa = isa;
  options.threads = threads;
  options.streaming = RelayoutOptions::Streaming::kOn;
  options.padding_value = fill;
  absl::StatusOr<RelayoutPlan> plan = RelayoutPlan::Create(Parse(src), Parse(dst), options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const std::string text = plan->Describe();
  if (internal::FusesPaddedTransposeRows(na, nb, 512, 4, plan->isa())) {
    EXPECT_EQ(plan->threads(), threads) << text;
    EXPECT_THAT(text, HasSubstr(padded_loops));
    EXPECT_THAT(text, Not(HasSubstr("fill")));
  } else {
    EXPECT_THAT(text, HasSubstr("fill"));
  }
  RunAndCheck(Parse(src), Parse(dst), options);
}

// A batch moved minor into padded tile rows of 128 floats: 48 rows of
// 2232 (8 past the last whole 16), one thread, zero padding and another,
// every path; and 64 of 37632 on two threads (a lone transpose of 48
// rows would not be split between them anyway: 24 is not whole tiles).
TEST(RelayoutTest, PaddedTransposeRowsInOnePass) {
  for (Isa isa : IsaPathsHere()) {
    for (const std::vector<uint8_t>& fill : {std::vector<uint8_t>{}, {0xAB}}) {
      CheckPaddedTranspose("f32[48,3,31,24]{3,2,1,0}", "f32[48,3,31,24]{0,3,2,1:T(8,128)}", isa,
                           1, fill, 2232, 48,
                           "transpose (rows padded by 320 bytes) src+0 dst+0 loops(extent:src/"
                           "dst bytes) 2232:4/512 48:8928/4\n");
    }
  }
  for (Isa isa : SimdPathsHere()) {
    CheckPaddedTranspose("f32[64,3,112,112]{3,2,1,0}", "f32[64,3,112,112]{0,3,2,1:T(8,128)}",
                         isa, 2, {0xAB}, 37632, 64,
                         "transpose (rows padded by 256 bytes) src+0 dst+0 loops(extent:src/"
                         "dst bytes) 37632:4/512 64:150528/4\n");
  }
}

TEST(RelayoutTest, OuterLoopsFollowTheSourceOnceWritesFillPages) {
  absl::StatusOr<RelayoutPlan> plan =
      RelayoutPlan::Create(Parse("f32[256,256]{1,0}"),
                           Parse("f32[256,256]{0,1:T(32,32)(32,1)}"));
  ASSERT_TRUE(plan.ok());
  // The row loop is split at 4 KiB of destination (32 rows of 128 bytes);
  // the 32-row blocks then go outermost, the panels inside.
  EXPECT_THAT(plan->Describe(),
              HasSubstr("loops(extent:src/dst bytes) 8:32768/4096 "
                        "8:128/32768 32:1024/128 32:4/4"));
}

// Plans src -> dst on one thread with and without streaming stores, checks
// the loops each plan describes, and runs both.
void ExpectLoops(absl::string_view src_text, absl::string_view dst_text,
                 absl::string_view cached_loops, absl::string_view streaming_loops,
                 Isa isa = Isa::kAuto) {
  const Shape src = Parse(src_text), dst = Parse(dst_text);
  RelayoutOptions options;
  options.threads = 1;
  options.isa = isa;
  for (auto mode : {RelayoutOptions::Streaming::kOff,
                    RelayoutOptions::Streaming::kOn}) {
    options.streaming = mode;
    absl::StatusOr<RelayoutPlan> plan = RelayoutPlan::Create(src, dst, options);
    ASSERT_TRUE(plan.ok());
    const absl::string_view loops =
        mode == RelayoutOptions::Streaming::kOn ? streaming_loops : cached_loops;
    EXPECT_THAT(plan->Describe(),
                HasSubstr(absl::StrCat("loops(extent:src/dst bytes) ", loops)))
        << plan->Describe();
    RunAndCheck(src, dst, options);
  }
}

// Streaming or not, the (2,1) interleave of bf16 T(8,128)(2,1) writes each
// tile front to back: its row pairs inside the tile loop, not outside it.
TEST(RelayoutTest, StreamingInterleaveKeepsDestinationOrder) {
  const char kLoops[] = "8:8192/8192 4:256/2048 4:2048/512 128:2/4 2:1024/2";
  ExpectLoops("bf16[64,512]{1,0}", "bf16[64,512]{1,0:T(8,128)(2,1)}", kLoops, kLoops);
}

// A transpose into narrow tiles reads 16 (T(4,128)) or 8 (T(2,128)) bytes of
// each of 128 source rows per tile. The plan takes 16 rows at a time (one
// destination line), and its kernel every tile along those rows in one
// call ("tiles grouped"), so each source line is read once, whole;
// streaming plans, and on Intel cached ones, then take several such blocks
// per call (xla_layout/stream_order.h). Where no grouped kernel exists (16-bit elements, the
// scalar path), only rows that would overfill an L1 set are reordered, and
// the kernel still goes one tile per call.
TEST(RelayoutTest, NarrowTransposesSweepTheTilesAlongOneLineOfRows) {
  // Rows 4000 bytes apart spread over the L1's sets: grouped all the same
  // where the grouped kernel exists (AVX2 and up), as planned elsewhere.
  // The ISA is named, not left to XLA_LAYOUT_ISA, whose scalar override
  // has no grouped kernel.
  if (ResolveIsa(Isa::kAvx2) == Isa::kAvx2) {
    // Streaming, the grouped kernel takes the rows of a whole tile (128) per
    // call, in strips (xla_layout/stream_order.h); in cache on Intel 128
    // too, or 64 for rows 4 KiB apart, and one line of rows (16) elsewhere.
    const bool tall = internal::TakesTallGroupedBlocksInCache();
    ExpectLoops("f32[256,1024]{1,0}", "f32[256,1024]{0,1:T(4,128)}",
                tall ? "2:524288/2048 2:262144/256 256:16/4096 4:4/512 64:4096/4"
                     : "2:524288/2048 8:65536/64 256:16/4096 4:4/512 16:4096/4",
                "2:524288/2048 1:524288/512 256:16/4096 4:4/512 128:4096/4", Isa::kAvx2);
    ExpectLoops("f32[256,1024]{1,0}", "f32[256,1024]{0,1:T(2,128)}",
                tall ? "2:524288/1024 2:262144/256 512:8/2048 2:4/512 64:4096/4"
                     : "2:524288/1024 8:65536/64 512:8/2048 2:4/512 16:4096/4",
                "2:524288/1024 1:524288/512 512:8/2048 2:4/512 128:4096/4", Isa::kAvx2);
    ExpectLoops("f32[256,1024]{1,0}", "f32[256,1024]{0,1:T(8,128)}",
                tall ? "2:524288/4096 2:262144/256 128:32/8192 8:4/512 64:4096/4"
                     : "2:524288/4096 8:65536/64 128:32/8192 8:4/512 16:4096/4",
                "2:524288/4096 1:524288/512 128:32/8192 8:4/512 128:4096/4", Isa::kAvx2);
    const char kSpreadTall[] = "2:512000/2048 1:512000/512 250:16/4096 4:4/512 128:4000/4";
    ExpectLoops("f32[256,1000]{1,0}", "f32[256,1000]{0,1:T(4,128)}",
                tall ? kSpreadTall : "2:512000/2048 8:64000/64 250:16/4096 4:4/512 16:4000/4",
                kSpreadTall, Isa::kAvx2);
    for (const auto& [src, dst] :
         {std::pair{"f32[256,1024]{1,0}", "f32[256,1024]{0,1:T(4,128)}"},
          std::pair{"f32[256,1000]{1,0}", "f32[256,1000]{0,1:T(2,128)}"}}) {
      RelayoutOptions options;
      options.isa = Isa::kAvx2;
      absl::StatusOr<RelayoutPlan> plan = RelayoutPlan::Create(Parse(src), Parse(dst), options);
      ASSERT_TRUE(plan.ok());
      EXPECT_THAT(plan->Describe(), HasSubstr("transpose (tiles grouped) ")) << dst;
    }
  }
  ExpectLoops("f32[256,1000]{1,0}", "f32[256,1000]{0,1:T(4,128)}",
              "250:16/4096 2:512000/2048 4:4/512 128:4000/4",
              "2:512000/2048 250:16/4096 4:4/512 128:4000/4", Isa::kScalar);
  // bf16: no grouped kernel. Colliding rows are reordered, 32 at a time
  // (one destination line; the kernel goes tile by tile); spread rows stay
  // as planned.
  const char kBf16[] = "2:262144/1024 4:65536/64 256:8/2048 4:2/256 32:2048/2";
  ExpectLoops("bf16[256,1024]{1,0}", "bf16[256,1024]{0,1:T(4,128)}", kBf16, kBf16);
  ExpectLoops("bf16[256,1000]{1,0}", "bf16[256,1000]{0,1:T(4,128)}",
              "250:8/2048 2:256000/1024 4:2/256 128:2000/2",
              "2:256000/1024 250:8/2048 4:2/256 128:2000/2");
}

// Cached stores keep each destination row whole (the 8 panels inside);
// streaming ones read four panels side by side, each in order, and write
// each row 512 bytes at a time (xla_layout/stream_order.h).
TEST(RelayoutTest, StreamingCopiesOfShortRunsReadTheSourceInOrder) {
  ExpectLoops("f32[512,512]{0,1:T(32,32)(32,1)}", "f32[512,512]{1,0}",
              "512:128/2048 16:65536/128 32:4/4", "2:524288/1024 512:128/2048 8:65536/128 32:4/4");
}

TEST(RelayoutTest, PartialTilesAndPaddingRunInterleavedWithTheFullTiles) {
  const Shape src = Parse("f32[1000,1000]{1,0}");
  const Shape dst = Parse("f32[1000,1000]{1,0:T(8,128)}");
  RelayoutOptions options;
  options.threads = 1;
  absl::StatusOr<RelayoutPlan> plan = RelayoutPlan::Create(src, dst, options);
  ASSERT_TRUE(plan.ok());
  const std::string text = plan->Describe();
  // Full tiles, the partial column tile and the padding share the loop over
  // tile rows, so they run in one pass over it.
  EXPECT_THAT(text, HasSubstr(" interleaved\n"));
  // The 24 padding elements of a row are written right after the partial
  // tile's 104 elements, by the same kernel (strided_copy_kernels.h), not
  // by a fill of their own.
  EXPECT_THAT(text, HasSubstr("copy (runs padded by 96 bytes) src+3584 dst+28672 "
                              "loops(extent:src/dst bytes) 125:32000/32768 8:4000/512 "
                              "104:4/4\n"));
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3) << text;
  for (int threads : {1, 2}) {
    options.threads = threads;
    RunAndCheck(src, dst, options);
  }
}

TEST(RelayoutTest, PlansFuseContiguousLoops) {
  absl::StatusOr<RelayoutPlan> same = RelayoutPlan::Create(
      Parse("f32[64,32,16]{2,1,0}"), Parse("f32[64,32,16]{2,1,0}"));
  ASSERT_TRUE(same.ok());
  // One task, one loop: a single run of all the bytes.
  EXPECT_THAT(same->Describe(),
              HasSubstr("copy src+0 dst+0 loops(extent:src/dst bytes) "
                        "32768:4/4\n"));
  absl::StatusOr<RelayoutPlan> tiled = RelayoutPlan::Create(
      Parse("f32[64,256]{1,0}"), Parse("f32[64,256]{1,0:T(8,128)}"));
  ASSERT_TRUE(tiled.ok());
  // Runs of 128 floats (512 bytes), three loops around them.
  EXPECT_THAT(tiled->Describe(),
              HasSubstr("loops(extent:src/dst bytes) 8:8192/8192 2:512/4096 "
                        "8:1024/512 128:4/4"));
}

TEST(RelayoutTest, LayoutsWithoutDigitFormUseTheGatherTable) {
  // Tiles of 3 and 4 on one dim do not nest.
  Shape src = Parse("f32[10,10]{1,0:T(3,3)}");
  Shape dst = Parse("f32[10,10]{1,0:T(4,4)}");
  absl::StatusOr<RelayoutPlan> plan = RelayoutPlan::Create(src, dst);
  ASSERT_TRUE(plan.ok());
  EXPECT_THAT(plan->Describe(), HasSubstr("gather"));
  RunAndCheck(src, dst);
  RunAndCheck(dst, src);
}

TEST(RelayoutTest, MultiBytePaddingValue) {
  RelayoutOptions options;
  options.padding_value = {1, 2, 3, 4};
  RunAndCheck(Parse("f32[3,5]{1,0}"), Parse("f32[3,5]{1,0:T(2,2)}"), options);
  options.padding_value = {1, 2};
  EXPECT_THAT(RelayoutPlan::Create(Parse("f32[3]{0}"), Parse("f32[3]{0}"),
                                   options)
                  .status()
                  .message(),
              HasSubstr("padding value has 2 bytes"));
}

TEST(RelayoutTest, InPlace) {
  Shape src = Parse("f32[16,16]{1,0}");
  Shape dst = Parse("f32[16,16]{0,1:T(4,4)}");
  RelayoutOptions options;
  options.allow_in_place = true;
  absl::StatusOr<RelayoutPlan> plan = RelayoutPlan::Create(src, dst, options);
  ASSERT_TRUE(plan.ok());
  absl::StatusOr<TiledLayout> s = TiledLayout::Create(src);
  absl::StatusOr<TiledLayout> d = TiledLayout::Create(dst);
  std::vector<uint8_t> buffer(s->byte_size());
  std::mt19937_64 rng(16);
  FillRandomBytes(rng, absl::MakeSpan(buffer));
  const std::vector<uint8_t> in = buffer;
  plan->Execute(buffer.data(), buffer.data());
  absl::Status check = CheckRelayout(*s, in.data(), *d, buffer.data(), {});
  EXPECT_TRUE(check.ok()) << check << plan->Describe();
  EXPECT_THAT(RelayoutPlan::Create(Parse("f32[3,5]{1,0}"),
                                   Parse("f32[3,5]{1,0:T(2,2)}"), options)
                  .status()
                  .message(),
              HasSubstr("in-place relayout needs equal buffer sizes"));
}

TEST(RelayoutTest, EnvironmentForcesTheIsa) {
  setenv("XLA_LAYOUT_ISA", "scalar", 1);
  EXPECT_EQ(ResolveIsa(Isa::kAuto), Isa::kScalar);
  setenv("XLA_LAYOUT_ISA", "avx2", 1);
  EXPECT_EQ(ResolveIsa(Isa::kAuto),
            DetectIsa() == Isa::kScalar ? Isa::kScalar : Isa::kAvx2);
  unsetenv("XLA_LAYOUT_ISA");
  EXPECT_EQ(ResolveIsa(Isa::kAuto), DetectIsa());
  EXPECT_FALSE(ParseIsa("sse9").ok());
}

TEST(RelayoutTest, Errors) {
  auto error = [](absl::string_view a, absl::string_view b) {
    return std::string(
        RelayoutPlan::Create(Parse(a), Parse(b)).status().message());
  };
  EXPECT_THAT(error("f32[4]{0}", "f32[5]{0}"),
              HasSubstr("are not the same logical array"));
  EXPECT_THAT(error("f32[4]{0}", "s32[4]{0}"),
              HasSubstr("are not the same logical array"));
  EXPECT_THAT(error("f32[4]{0:D(C)}", "f32[4]{0}"),
              HasSubstr("sparse attribute"));
  EXPECT_THAT(error("f32[4]{0:SC(0:2)}", "f32[4]{0}"), HasSubstr("SC"));
  EXPECT_THAT(error("f32[4]{0}", "f32[4]{0:M(8)}"), HasSubstr("M (dynamic"));
  Shape s8_e4(S8, {4});
  s8_e4.set_layout(Layout().set_minor_to_major({0}).set_element_size_in_bits(4));
  EXPECT_THAT(std::string(RelayoutPlan::Create(s8_e4, Parse("s8[4]{0}")).status().message()),
              HasSubstr("E(4) for s8, which has 8 bits"));
  EXPECT_THAT(error("pred[4]{0:E(32)}", "pred[4]{0}"),
              HasSubstr("element sizes differ"));
  EXPECT_THAT(error("f32[?]{0}", "f32[?]{0}"), HasSubstr("unbounded"));
  EXPECT_THAT(error("f32[4611686018427387904,4]{1,0}",
                    "f32[4611686018427387904,4]{0,1}"),
              HasSubstr("overflows"));
  EXPECT_THAT(error("(f32[4])", "(f32[4])"), HasSubstr("array shape"));
}

// Sub-byte elements, packed (E(n)) on either side or both, against the index
// math: every destination slot holds its element's value (sign-extended in
// a whole byte for s2/s4), every padding slot zero.
TEST(RelayoutSubByteTest, RandomLayoutsAgainstTheIndexMath) {
  std::mt19937_64 rng(404);
  RandomShapeOptions options;
  options.max_dim = 9;
  options.allow_attributes = false;
  const PrimitiveType types[] = {S4, U4, S2, U2};
  int packed_pairs = 0;
  for (int cases = 0; cases < 3000; ++cases) {
    options.types = {types[cases % 4]};
    Shape a = RandomArrayShape(rng, options);
    Shape b = a;
    b.set_layout(RandomLayoutFor(rng, a, options));
    const int bits = static_cast<int>(PrimitiveBitWidth(a.element_type()));
    const bool pack_a = rng() % 3 != 0, pack_b = rng() % 3 != 0;
    if (pack_a) a.mutable_layout()->set_element_size_in_bits(rng() % 2 ? bits : 4);
    if (pack_b) b.mutable_layout()->set_element_size_in_bits(rng() % 2 ? bits : 4);
    packed_pairs += pack_a && pack_b;
    SCOPED_TRACE(absl::StrCat(a.ToString(), " -> ", b.ToString()));
    absl::StatusOr<TiledLayout> ta = TiledLayout::Create(a);
    absl::StatusOr<TiledLayout> tb = TiledLayout::Create(b);
    ASSERT_TRUE(ta.ok() && tb.ok());
    const bool is_signed = a.element_type() == S4 || a.element_type() == S2;
    const int a_bits = static_cast<int>(ta->element_size_in_bits());
    const int b_bits = static_cast<int>(tb->element_size_in_bits());
    auto slot_mask = [](int slot_bits) {
      return static_cast<uint8_t>(slot_bits >= 8 ? 0xFF : (1u << slot_bits) - 1);
    };
    // A slot wider than the type holds the value sign-extended (s2, s4).
    auto element_of = [&](uint8_t raw) {
      uint8_t v = raw & static_cast<uint8_t>((1u << bits) - 1);
      return is_signed ? static_cast<uint8_t>(SignExtend(v, bits)) : v;
    };
    std::vector<uint8_t> src(ta->byte_size(), 0);
    for (int64_t slot = 0; slot < ta->slot_count(); ++slot) {
      const uint8_t v = element_of(static_cast<uint8_t>(rng())) & slot_mask(a_bits);
      if (a_bits < 8) {
        StorePacked(src.data(), slot, a_bits, v);
      } else {
        src[slot] = v;
      }
    }
    absl::StatusOr<RelayoutPlan> plan = RelayoutPlan::Create(a, b);
    ASSERT_TRUE(plan.ok()) << plan.status();
    std::vector<uint8_t> dst(tb->byte_size(), 0xAB);
    plan->Execute(src.data(), dst.data());
    for (int64_t slot = 0; slot < tb->slot_count(); ++slot) {
      std::optional<IndexVector> e = tb->LogicalIndex(slot);
      uint8_t want = 0;  // padding
      if (e) {
        const int64_t from = ta->LinearIndex(*e);
        want = element_of(a_bits < 8 ? LoadPacked(src.data(), from, a_bits) : src[from]);
      }
      const uint8_t got = b_bits < 8 ? LoadPacked(dst.data(), slot, b_bits) : dst[slot];
      ASSERT_EQ(got, want & slot_mask(b_bits)) << "slot " << slot;
    }
    // The unused low bits of a packed buffer's last byte are zero.
    if (b_bits < 8 && tb->slot_count() * b_bits % 8 != 0) {
      const int used = static_cast<int>(tb->slot_count() * b_bits % 8);
      EXPECT_EQ(dst.back() & ((1u << (8 - used)) - 1), 0);
    }
  }
  EXPECT_GT(packed_pairs, 1000);
}

TEST(RelayoutSubByteTest, PackedByteOrderIsXlas) {
  // s4[4]{0:E(4)} holding 1, 2, 3, -1: the first element in the high nibble.
  Shape packed = Parse("s4[4]{0:E(4)}");
  Shape bytes = Parse("s4[4]{0}");
  absl::StatusOr<RelayoutPlan> pack = RelayoutPlan::Create(bytes, packed);
  ASSERT_TRUE(pack.ok()) << pack.status();
  const uint8_t in[4] = {1, 2, 3, 0xFF};
  uint8_t out[2] = {0, 0};
  pack->Execute(in, out);
  EXPECT_EQ(out[0], 0x12);
  EXPECT_EQ(out[1], 0x3F);
  absl::StatusOr<RelayoutPlan> unpack = RelayoutPlan::Create(packed, bytes);
  ASSERT_TRUE(unpack.ok());
  uint8_t back[4] = {0, 0, 0, 0};
  unpack->Execute(out, back);
  EXPECT_EQ(std::vector<uint8_t>(back, back + 4), std::vector<uint8_t>(in, in + 4));
}

TEST(RelayoutTest, EmptyAndScalarArrays) {
  RunAndCheck(Parse("f32[0,5]{1,0}"), Parse("f32[0,5]{0,1:T(2,2)}"));
  RunAndCheck(Parse("f32[]"), Parse("f32[]{:T(128)}"));
  RunAndCheck(Parse("u32[]{:T(128)}"), Parse("u32[]"));
}

// A -> B -> A is the identity on logical elements; every ISA path writes
// the same bytes.
TEST(RelayoutPropertyTest, RandomRoundTripsAndIsaAgreement) {
  std::mt19937_64 rng(5150);
  std::mt19937_64 bytes_rng(1);  // apart, so that the shapes drawn stay the same
  RandomShapeOptions options;
  options.types = {S8, U8, BF16, F16, F32, S32, F64, C64, C128};
  options.max_dim = 9;
  options.allow_attributes = false;
  // What the cases exercise, so that a generator that stopped drawing
  // tiles or dimension orders fails here instead of testing less.
  int tiled = 0, reordered = 0;
  for (int cases = 0; cases < 5000; ++cases) {
    Shape a = RandomArrayShape(rng, options);
    Shape b = a;
    b.set_layout(RandomLayoutFor(rng, a, options));
    tiled += !a.layout().tiles().empty() || !b.layout().tiles().empty();
    reordered += a.layout().minor_to_major() != b.layout().minor_to_major();
    SCOPED_TRACE(absl::StrCat(a.ToString(), " -> ", b.ToString()));
    absl::StatusOr<TiledLayout> ta = TiledLayout::Create(a);
    absl::StatusOr<TiledLayout> tb = TiledLayout::Create(b);
    std::vector<uint8_t> src(ta->byte_size()), mid(tb->byte_size());
    std::vector<uint8_t> back(ta->byte_size());
    FillRandomBytes(bytes_rng, absl::MakeSpan(src));
    std::vector<uint8_t> first;
    for (Isa isa : IsaPathsHere()) {
      RelayoutOptions ro;
      ro.isa = isa;
      // Every other case takes the streaming paths (loop orders and stores).
      if (cases % 2 == 1) ro.streaming = RelayoutOptions::Streaming::kOn;
      absl::StatusOr<RelayoutPlan> ab = RelayoutPlan::Create(a, b, ro);
      absl::StatusOr<RelayoutPlan> ba = RelayoutPlan::Create(b, a, ro);
      ASSERT_TRUE(ab.ok() && ba.ok());
      ab->Execute(src.data(), mid.data());
      ba->Execute(mid.data(), back.data());
      if (first.empty()) {
        first = mid;
        absl::Status there = CheckRelayout(*ta, src.data(), *tb, mid.data(), {});
        ASSERT_TRUE(there.ok()) << there << "\n" << ab->Describe();
        absl::Status back_again =
            CheckRelayout(*tb, mid.data(), *ta, back.data(), {});
        ASSERT_TRUE(back_again.ok()) << back_again;
      }
      ASSERT_EQ(mid, first) << IsaName(isa);
    }
  }
  EXPECT_GT(tiled, 2500);
  EXPECT_GT(reordered, 2500);
}

}  // namespace
}  // namespace xla_layout
