#include "xla_layout/relayout_small.h"

#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla_layout/primitive_type.h"
#include "xla_layout/relayout.h"
#include "xla_layout/test_util.h"
#include "xla_layout/tiled_layout.h"

namespace xla_layout {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

bool HasVbmi() {
  return __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512bw");
}

// Random source bytes for `src` (its padding too), the same for every
// path a test compares.
std::vector<uint8_t> RandomSource(const Shape& src, std::mt19937_64& rng) {
  std::vector<uint8_t> in(TiledLayout::Create(src)->byte_size());
  FillRandomBytes(rng, absl::MakeSpan(in));
  return in;
}

// Runs `plan` from `in` into a destination `offset` bytes past a 64-byte
// boundary, prefilled with 0x5A, checks every destination slot against the
// index math and the bytes after it, and returns the destination bytes.
std::vector<uint8_t> RunAndCheck(const RelayoutPlan& plan, const Shape& src, const Shape& dst,
                                 const std::vector<uint8_t>& fill, int offset,
                                 const std::vector<uint8_t>& in) {
  absl::StatusOr<TiledLayout> s = TiledLayout::Create(src);
  absl::StatusOr<TiledLayout> d = TiledLayout::Create(dst);
  // Guard bytes after the destination catch a write past its end.
  std::vector<uint8_t> out_buffer(d->byte_size() + 64 + 128, 0x5A);
  uint8_t* out = out_buffer.data() + (64 - reinterpret_cast<uintptr_t>(out_buffer.data()) % 64) +
                 offset;
  plan.Execute(in.data(), out);
  absl::Status check = CheckRelayout(*s, in.data(), *d, out, fill);
  EXPECT_TRUE(check.ok()) << src << " -> " << dst << ": " << check << "\n" << plan.Describe();
  for (const uint8_t* g = out + d->byte_size(); g < out_buffer.data() + out_buffer.size(); ++g) {
    EXPECT_EQ(*g, 0x5A) << "written past the destination: " << src << " -> " << dst;
    if (*g != 0x5A) break;
  }
  return std::vector<uint8_t>(out, out + d->byte_size());
}

// The op names of a small plan's Describe line, as counted by the tests.
const std::vector<std::string>& OpNames() {
  static const auto* names = new std::vector<std::string>{
      "byte permute", "rows of", "fill of", "strided elements", "transpose planes",
      "transpose (tiles grouped)", "interleave of 4 byte rows", "in pairs",
      "source lines whole"};
  return *names;
}

// Random shapes and layouts of up to 4096 slots, random padding values of
// one byte or of the element's bytes, every ISA path: each small plan
// writes what the index math says (padding included), nothing past the
// destination, and the same bytes on every path.
TEST(SmallPlanTest, RandomSmallCopiesMatchTheIndexMathOnEveryIsa) {
  std::mt19937_64 rng(3131);
  std::mt19937_64 bytes_rng(7);
  RandomShapeOptions options;
  options.types = {PRED, S8, U8, BF16, F16, F32, S32, F64, C64, C128};
  options.max_dim = 9;
  options.allow_attributes = false;
  std::map<std::string, int> seen;  // op name -> plans that have it
  int small = 0;
  for (int cases = 0; cases < 3000; ++cases) {
    Shape a = RandomArrayShape(rng, options);
    Shape b = a;
    b.set_layout(RandomLayoutFor(rng, a, options));
    SCOPED_TRACE(absl::StrCat(a.ToString(), " -> ", b.ToString()));
    const int64_t es = PrimitiveBitWidth(a.element_type()) / 8;
    std::vector<uint8_t> fill(cases % 3 == 0 ? es : 1);
    for (uint8_t& f : fill) f = static_cast<uint8_t>(rng());
    const std::vector<uint8_t> in = RandomSource(a, bytes_rng);
    std::vector<uint8_t> first;
    for (Isa isa : IsaPathsHere()) {
      RelayoutOptions ro;
      ro.isa = isa;
      ro.threads = 1;
      ro.padding_value = fill;
      absl::StatusOr<RelayoutPlan> plan = RelayoutPlan::Create(a, b, ro);
      ASSERT_TRUE(plan.ok()) << plan.status();
      const std::string text = plan->Describe();
      // Row tables (transpose_narrow.h) keep the general path.
      if (plan->dst_bytes() <= internal::kSmallPlanBytes && !absl::StrContains(text, "gather") &&
          !absl::StrContains(text, "row table")) {
        EXPECT_THAT(text, HasSubstr("small: ")) << text;
      }
      small += absl::StrContains(text, "small: ");
      for (const std::string& name : OpNames()) seen[name] += absl::StrContains(text, name);
      std::vector<uint8_t> out = RunAndCheck(*plan, a, b, fill, cases % 7, in);
      if (first.empty()) first = out;
      ASSERT_EQ(out, first) << IsaName(isa);
    }
  }
  EXPECT_GT(small, 3000);
  // Every op is drawn, so that a generator that stopped drawing one fails
  // here instead of testing less. Not drawn: the permute without AVX-512
  // VBMI, pairs of 32-byte rows without AVX-512, and what the tests below take: the byte interleave ((4,1) tiles
  // of bytes) and grouped transposes (narrow tiles over 128 elements wide).
  for (const std::string& name : OpNames()) {
    if (name == "interleave of 4 byte rows" || name == "transpose (tiles grouped)" ||
        (name == "byte permute" && !HasVbmi()) ||
        ((name == "in pairs" || name == "source lines whole") &&
         DetectIsa() != Isa::kAvx512)) {
      continue;
    }
    // Random layouts rarely give 32-byte rows written back to back.
    EXPECT_GT(seen[name], name == "in pairs" || name == "source lines whole" ? 0 : 20)
        << name;
  }
}

// 1-D arrays padded to their tile: on AVX-512, when the copied run and
// the padding both reach 64 bytes and the padding value is one byte
// repeated, one op copies and fills; every other case keeps two ops, and
// every path writes what the index math says.
TEST(SmallPlanTest, CopyThenFillOfPaddedVectors) {
  std::mt19937_64 rng(5);
  int fused = 0;
  for (int64_t n : {4, 15, 16, 17, 100, 128, 144, 160, 192, 200, 240, 250, 320, 384, 576, 960}) {
    const std::string src = absl::StrCat("f32[", n, "]{0}");
    const std::string dst = absl::StrCat("f32[", n, "]{0:T(256)}");
    const int64_t padding = (256 - n % 256) % 256 * 4;
    for (const std::vector<uint8_t>& fill :
         {std::vector<uint8_t>{0}, std::vector<uint8_t>{0xC3}, std::vector<uint8_t>{1, 2, 3, 4}}) {
      for (Isa isa : IsaPathsHere()) {
        std::string text;
        absl::Status check = CheckOneThreadRelayout(src, dst, isa, fill, rng, &text);
        ASSERT_TRUE(check.ok()) << check << "\n" << text;
        const bool want = isa == Isa::kAvx512 && fill.size() == 1 && n * 4 >= 64 &&
                          padding >= 64;
        EXPECT_EQ(absl::StrContains(text, "bytes then fill of"), want)
            << n << " " << IsaName(isa) << "\n" << text;
        fused += want;
      }
    }
  }
  if (ResolveIsa(Isa::kAuto) == Isa::kAvx512) {
    EXPECT_GT(fused, 0);
  }
}

// One case per op, with their Describe line, on every ISA path, with a
// one-byte and a multi-byte padding value.
TEST(SmallPlanTest, EveryOpMatchesTheIndexMath) {
  struct Case {
    const char* src;
    const char* dst;
    const char* op;  // on the SIMD paths without the permute (nullptr: any)
  };
  const std::vector<Case> cases = {
      {"f32[4,4]{1,0}", "f32[4,4]{0,1}", "transpose planes"},
      {"f32[1,2,3,4]{3,2,0,1}", "f32[1,2,3,4]{2,1,0,3}", "transpose planes"},
      {"bf16[5,7]{1,0}", "bf16[5,7]{0,1:T(2,4)}", nullptr},
      // Two ops on AVX2, one on AVX-512 ("rows of 512 bytes then fill of").
      {"f32[128]{0}", "f32[128]{0:T(256)}", "rows of 512 bytes"},
      {"f32[960]{0}", "f32[960]{0:T(1024)}", "rows of 3840 bytes"},
      {"f32[16,32]{1,0:T(8,8)}", "f32[16,32]{1,0}", "rows of 32 bytes"},
      {"f32[16,32]{1,0:T(16,16)}", "f32[16,32]{1,0}", "rows of 64 bytes x32"},
      // Planes on AVX2, register blocks on AVX-512 (transpose_tiny.h).
      {"f32[8,16]{0,1}", "f32[8,16]{1,0}", "transpose "},
      {"f32[16,16]{1,0}", "f32[16,16]{1,0:T(8,1)}", "transpose planes"},
      // Five loops: the outer one unrolled into three ops. (f32 transposes
      // into T(2,128) take a row table now: transpose_narrow.h.)
      {"f64[3,3,3,3,3]{4,3,2,1,0}", "f64[3,3,3,3,3]{0,1,2,3,4}",
       "small: transpose planes, transpose planes, transpose planes"},
      {"pred[64,128]{1,0}", "pred[64,128]{1,0:T(8,128)(4,1)}", "interleave of 4 byte rows"},
      {"s8[12,45]{1,0}", "s8[12,45]{1,0:T(8,128)(4,1)}", "interleave of 4 byte rows"},
      {"u8[4,97]{1,0}", "u8[4,97]{1,0:T(4,128)(4,1)}", "interleave of 4 byte rows"},
      {"c128[24,1,1,1]{3,2,1,0}", "c128[24,1,1,1]{3,2,1,0:T(1,8)}", "strided elements"},
      {"f32[24,1,1,1]{3,2,1,0}", "f32[24,1,1,1]{3,2,1,0:T(1,128)}", "strided elements"},
      {"f32[24,1,3,3]{3,2,1,0}", "f32[24,1,3,3]{0,1,3,2:T(1,128)}", "fill of"},
  };
  std::mt19937_64 rng(1);
  for (const Case& c : cases) {
    const Shape src = ParseTestShape(c.src), dst = ParseTestShape(c.dst);
    const int64_t es = PrimitiveBitWidth(src.element_type()) / 8;
    std::vector<uint8_t> pattern(es);
    for (int64_t i = 0; i < es; ++i) pattern[i] = static_cast<uint8_t>(0xA1 + i);
    const std::vector<uint8_t> in = RandomSource(src, rng);
    for (const std::vector<uint8_t>& fill : {std::vector<uint8_t>{0xC3}, pattern}) {
      std::vector<uint8_t> first;
      for (Isa isa : IsaPathsHere()) {
        RelayoutOptions options;
        options.isa = isa;
        options.padding_value = fill;
        absl::StatusOr<RelayoutPlan> plan = RelayoutPlan::Create(src, dst, options);
        ASSERT_TRUE(plan.ok()) << plan.status();
        const std::string text = plan->Describe();
        const bool permute = isa == Isa::kAvx512 && HasVbmi() && plan->src_bytes() <= 128 &&
                             plan->dst_bytes() <= 256;
        EXPECT_THAT(text, HasSubstr("small: ")) << c.src;
        if (permute) {
          EXPECT_THAT(text, HasSubstr("small: byte permute")) << c.src;
        } else if (isa != Isa::kScalar && c.op != nullptr) {
          EXPECT_THAT(text, HasSubstr(c.op)) << c.src << " " << IsaName(isa);
        }
        for (int offset : {0, 1, 4}) {
          std::vector<uint8_t> out = RunAndCheck(*plan, src, dst, fill, offset, in);
          if (first.empty()) first = out;
          ASSERT_EQ(out, first) << IsaName(isa) << " " << c.src << " -> " << c.dst;
        }
      }
    }
  }
}

// Rows of 32 bytes written one after another go in pairs (one 64-byte
// store) on AVX-512, with the loops around them of every depth.
TEST(SmallPlanTest, PairsOfRowsOnAvx512) {
  // The plans below take the default ISA, which XLA_LAYOUT_ISA may lower.
  if (ResolveIsa(Isa::kAuto) != Isa::kAvx512) GTEST_SKIP() << "no AVX-512 path here";
  std::mt19937_64 rng(3);
  for (const auto& [src, dst] : std::vector<std::pair<const char*, const char*>>{
           {"f32[16,32]{1,0:T(8,8)}", "f32[16,32]{1,0}"},
           {"f32[16,32]{1,0}", "f32[16,32]{0,1:T(8,1)}"},
           {"f32[2,3,16,16]{3,2,1,0:T(8,8)}", "f32[2,3,16,16]{3,2,1,0}"},
           {"f32[8,16]{1,0:T(8,8)}", "f32[8,16]{1,0}"},
           {"f32[256,128]{1,0}", "f32[256,128]{0,1:T(8,1)}"}}) {
    const Shape s = ParseTestShape(src), d = ParseTestShape(dst);
    absl::StatusOr<RelayoutPlan> plan = RelayoutPlan::Create(s, d);
    ASSERT_TRUE(plan.ok()) << plan.status();
    EXPECT_THAT(plan->Describe(), HasSubstr("small: rows of 32 bytes in pairs")) << src;
    for (int offset : {0, 4}) RunAndCheck(*plan, s, d, {}, offset, RandomSource(s, rng));
  }
}

// Four byte rows interleaved, for every row length from 1 to 100 (the
// 32-byte steps and every tail) and rows further apart than they are long.
TEST(SmallPlanTest, ByteInterleaveOfEveryLength) {
  std::mt19937_64 rng(2);
  for (int n = 1; n <= 100; ++n) {
    const Shape src = ParseTestShape(absl::StrCat("s8[8,", n, "]{1,0}"));
    const Shape dst = ParseTestShape(absl::StrCat("s8[8,", n, "]{1,0:T(8,128)(4,1)}"));
    const Shape wide = ParseTestShape(absl::StrCat("s8[8,", n, "]{1,0:T(1,256)}"));
    for (Isa isa : IsaPathsHere()) {
      RelayoutOptions options;
      options.isa = isa;
      for (const Shape* from : {&src, &wide}) {
        absl::StatusOr<RelayoutPlan> plan = RelayoutPlan::Create(*from, dst, options);
        ASSERT_TRUE(plan.ok()) << plan.status();
        if (isa != Isa::kScalar && from == &src && n > 1) {
          EXPECT_THAT(plan->Describe(), HasSubstr("interleave of 4 byte rows"));
        }
        RunAndCheck(*plan, *from, dst, {}, n % 3, RandomSource(*from, rng));
      }
    }
  }
}

// What keeps the general path: a destination over the limit, several
// threads, in-place runs, streaming stores, gather tables. Sub-byte plans
// get a small plan for their bytes.
TEST(SmallPlanTest, OnlySmallOneThreadPlansInCacheAreCompiled) {
  auto describe = [](const char* src, const char* dst, RelayoutOptions options = {}) {
    absl::StatusOr<RelayoutPlan> plan =
        RelayoutPlan::Create(ParseTestShape(src), ParseTestShape(dst), options);
    EXPECT_TRUE(plan.ok()) << plan.status();
    return plan.ok() ? plan->Describe() : std::string();
  };
  // 1 MiB of destination is small on one thread; 1 MiB and 4 bytes are not.
  RelayoutOptions one;
  one.threads = 1;
  EXPECT_THAT(describe("f32[256,256]{1,0}", "f32[256,256]{0,1}"), HasSubstr("small: "));
  EXPECT_THAT(describe("f32[512,512]{1,0}", "f32[512,512]{0,1}", one), HasSubstr("small: "));
  EXPECT_THAT(describe("f32[262145]{0}", "f32[262145]{0}", one), Not(HasSubstr("small: ")));
  // Runs with their padding fused (FusePaddedRows) keep the general path.
  EXPECT_THAT(describe("f32[1,52,616]{1,2,0}", "f32[1,52,616]{1,2,0:T(8,128)}", one),
              Not(HasSubstr("small: ")));
  RelayoutOptions in_place;
  in_place.allow_in_place = true;
  EXPECT_THAT(describe("f32[16,16]{1,0}", "f32[16,16]{0,1}", in_place), Not(HasSubstr("small")));
  RelayoutOptions streaming;
  streaming.streaming = RelayoutOptions::Streaming::kOn;
  EXPECT_THAT(describe("f32[16,16]{1,0}", "f32[16,16]{0,1}", streaming), Not(HasSubstr("small")));
  EXPECT_THAT(describe("f32[10,10]{1,0:T(3,3)}", "f32[10,10]{1,0:T(4,4)}"),
              Not(HasSubstr("small")));
  EXPECT_THAT(describe("s4[64,128]{1,0:T(2,128)E(4)}", "s4[64,128]{0,1:E(4)}"),
              HasSubstr("small: "));
}

// The 1x1 convolution weights [M,N,1,1] into T(8,128) tiles of M lanes,
// whose destinations (256 KiB to 1 MiB) took the general path and its
// separate fill pass: one thread makes them small plans, which write every
// element and padding slot on every ISA path; with M and N not multiples
// of 8, 16 or 128, M under 8 and N under 16.
TEST(SmallPlanTest, WeightsIntoTilesUpToAnL2AreSmall) {
  std::mt19937_64 rng(31);
  for (const char* dims : {"[96,576,1,1]", "[160,576,1,1]", "[100,600,1,1]", "[131,900,1,1]",
                           "[7,1000,1,1]", "[9000,15,1,1]"}) {
    const std::string src = absl::StrCat("f32", dims, "{3,2,1,0}");
    const std::string dst = absl::StrCat("f32", dims, "{0,1,3,2:T(8,128)}");
    for (Isa isa : IsaPathsHere()) {
      std::string text;
      const absl::Status check = CheckOneThreadRelayout(src, dst, isa, {0xA5}, rng, &text);
      EXPECT_TRUE(check.ok()) << check << "\n" << text;
      EXPECT_THAT(text, HasSubstr("small: ")) << src << " on " << IsaName(isa);
    }
  }
}

}  // namespace
}  // namespace xla_layout
