// Every kernel path against memory that ends or begins at an unreadable
// page: the source and the destination of each copy sit right before a
// guard page, then right after one, so a vector load or store past either
// end faults here (ASan does not check the loads and stores of intrinsics).
#include <algorithm>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "xla_layout/isa.h"
#include "xla_layout/primitive_type.h"
#include "xla_layout/relayout.h"
#include "xla_layout/test_util.h"
#include "xla_layout/tiled_layout.h"

namespace xla_layout {
namespace {

// Copies larger than this (source plus destination) are left out: the
// corpus's largest take seconds on the scalar path.
constexpr int64_t kMaxBytes = int64_t{16} << 20;

// Runs `src` -> `dst` on every path with both buffers against guard pages
// on each side in turn; the error names the copy, the path and the side.
// `streaming` forces the plans' streaming stores (and their kernels' fetches
// ahead) on; `describe`, when set, gets each plan's Describe().
void CheckGuarded(const Shape& src, const Shape& dst, std::mt19937_64& rng,
                  bool streaming = false, std::vector<std::string>* describe = nullptr) {
  absl::StatusOr<TiledLayout> s = TiledLayout::Create(src);
  absl::StatusOr<TiledLayout> d = TiledLayout::Create(dst);
  ASSERT_TRUE(s.ok() && d.ok()) << src.ToString() << " -> " << dst.ToString();
  if (s->byte_size() + d->byte_size() > kMaxBytes) return;
  const std::vector<uint8_t> fill = {0xAB};
  for (Isa isa : IsaPathsHere()) {
    absl::StatusOr<RelayoutPlan> plan = OneThreadPlan(
        src, dst, isa, fill,
        streaming ? RelayoutOptions::Streaming::kOn : RelayoutOptions::Streaming::kAuto);
    ASSERT_TRUE(plan.ok()) << plan.status();
    if (describe != nullptr) describe->push_back(plan->Describe());
    for (GuardedBytes::Side side : {GuardedBytes::kBeforeGuard, GuardedBytes::kAfterGuard}) {
      GuardedBytes in(s->byte_size(), side), out(d->byte_size(), side);
      FillRandomBytes(rng, in.span());
      std::fill(out.span().begin(), out.span().end(), 0x5A);
      plan->Execute(in.data(), out.data());
      const absl::Status check = CheckRelayout(*s, in.data(), *d, out.data(), fill);
      EXPECT_TRUE(check.ok()) << check << "\n"
                              << src.ToString() << " -> " << dst.ToString() << " on "
                              << IsaName(isa) << (side == GuardedBytes::kBeforeGuard
                                                      ? ", guard page after"
                                                      : ", guard page before");
    }
  }
}

TEST(RelayoutGuardTest, TheCopiesThePassInserts) {
  std::ifstream file("xla_layout/testdata/inserted_copies.txt");
  ASSERT_TRUE(file.good());
  std::mt19937_64 rng(40);
  std::string line;
  int copies = 0;
  while (std::getline(file, line)) {
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> pair = absl::StrSplit(line, ' ');
    ASSERT_EQ(pair.size(), 2u) << line;
    CheckGuarded(ParseTestShape(pair[0]), ParseTestShape(pair[1]), rng);
    ++copies;
  }
  EXPECT_GE(copies, 150);
}

TEST(RelayoutGuardTest, RandomLayouts) {
  std::mt19937_64 rng(41);
  RandomShapeOptions options;
  options.types = {S8, U8, BF16, F16, F32, S32, F64, C64, C128};
  options.max_dim = 12;
  options.allow_attributes = false;
  for (int k = 0; k < 500; ++k) {
    const Shape src = RandomArrayShape(rng, options);
    Shape dst = src;
    dst.set_layout(RandomLayoutFor(rng, src, options));
    CheckGuarded(src, dst, rng);
  }
}

// Streaming transposes of more than 16 rows fetch two tiles ahead along the
// source rows without bounding the fetch by the rows a call covers (an
// interleaved plan calls them on chunks of a row that goes on): at the end
// of the source the fetch lands on the guard page, where a prefetch must be
// dropped, not fault. The shapes take the plain strips (64 rows), the
// grouped tiles (512 rows into T(4,128)), an interleaved transpose with its
// padding fill (32 rows, the form of [96,3,224,224] into
// {0,3,2,1:T(8,128)}), and a strip of 16 rows, which fetches nothing.
TEST(RelayoutGuardTest, StreamingTransposesFetchPastTheirRows) {
  std::mt19937_64 rng(42);
  const char* copies[][2] = {
      {"f32[64,96]{1,0}", "f32[64,96]{0,1}"},
      {"f32[512,512]{1,0}", "f32[512,512]{0,1:T(4,128)}"},
      {"f32[32,3,8,40]{3,2,1,0}", "f32[32,3,8,40]{0,3,2,1:T(8,128)}"},
      {"f32[2,32,7,7]{3,2,1,0}", "f32[2,32,7,7]{3,2,1,0:T(16,1,1)}"},
  };
  bool interleaved = false, grouped = false;
  for (const auto& c : copies) {
    std::vector<std::string> plans;
    CheckGuarded(ParseTestShape(c[0]), ParseTestShape(c[1]), rng, /*streaming=*/true, &plans);
    ASSERT_FALSE(plans.empty());
    for (const std::string& plan : plans) {
      EXPECT_NE(plan.find(" streaming"), std::string::npos) << c[0] << "\n" << plan;
      interleaved |= plan.find(" interleaved") != std::string::npos;
      grouped |= plan.find("transpose (tiles grouped)") != std::string::npos;
    }
  }
  EXPECT_TRUE(interleaved) << "no interleaved streaming plan among the copies";
  EXPECT_TRUE(grouped) << "no grouped streaming transpose among the copies";
}

// Streaming transposes onto destination rows of at most 1 KiB with more
// than 16 source rows and two chunks of 1024 along a or more go by chunks
// (Transpose32Avx2Strips): a last chunk cut short, edge rows and columns
// past the 16-wide tiles, and planes of them.
TEST(RelayoutGuardTest, ChunkedStreamingTransposes) {
  std::mt19937_64 rng(43);
  const char* copies[][2] = {
      {"f32[40,2100]{1,0}", "f32[40,2100]{0,1}"},
      {"f32[32,4096]{1,0}", "f32[32,4096]{0,1}"},
      {"f32[3,40,2050]{2,1,0}", "f32[3,40,2050]{1,2,0}"},
  };
  for (const auto& c : copies) {
    CheckGuarded(ParseTestShape(c[0]), ParseTestShape(c[1]), rng, /*streaming=*/true);
  }
}

}  // namespace
}  // namespace xla_layout
