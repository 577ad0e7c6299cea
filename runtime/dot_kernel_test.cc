#include "runtime/dot_kernel.h"

#include <cstring>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"
#include "runtime/executor.h"
#include "xla_layout/isa.h"
#include "xla_layout/shape_text.h"

namespace xla_layout::runtime {
namespace {

// A dot and two sets of layouts for it: `packed` ones, whose free dims the
// kernel finds in contiguous runs, and `generic` ones, which it gathers.
struct BatchedDot {
  std::string name, lhs, rhs, out, dnums;
  std::string packed_lhs, packed_rhs, packed_out;
  std::string generic_lhs, generic_rhs, generic_out;
};

const BatchedDot kDots[] = {
    // Attention q.k^T: [b,h,s,d] x [b,h,t,d], batch {0,1}, contracting d.
    {"q.kT", "f32[2,3,12,7]", "f32[2,3,16,7]", "f32[2,3,12,16]",
     "lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, "
     "rhs_contracting_dims={3}",
     "{3,2,1,0:T(8,1)}", "{3,2,1,0:T(8,1)}", "{3,2,1,0}", "{3,2,1,0}", "{3,2,1,0}", "{3,2,1,0}"},
    // Attention p.v: [b,h,s,t] x [b,h,t,d], the result column-major per batch.
    {"p.v", "f32[2,3,12,16]", "f32[2,3,16,24]", "f32[2,3,12,24]",
     "lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, "
     "rhs_contracting_dims={2}",
     "{3,2,1,0:T(8,1)}", "{2,3,1,0:T(8,1)}", "{2,3,1,0}", "{3,2,1,0}", "{2,3,1,0}", "{3,2,1,0}"},
    // The batch dim in the middle of the lhs and last in the rhs, and not
    // outermost in the packed layouts either: still a sum of offsets.
    {"batch inside", "f32[20,5,9]", "f32[9,8,5]", "f32[5,20,8]",
     "lhs_batch_dims={1}, lhs_contracting_dims={2}, rhs_batch_dims={2}, rhs_contracting_dims={0}",
     "{0,1,2}", "{1,2,0}", "{1,2,0}", "{2,1,0}", "{0,1,2}", "{2,1,0}"},
    // A rank-3 linear layer over two free lhs dims and two contracting dims
    // named in reverse order (the sums run over lhs dim 3 outermost).
    {"two contracting", "f32[3,4,7,3]", "f32[3,7,16]", "f32[3,4,16]",
     "lhs_contracting_dims={3,2}, rhs_contracting_dims={0,1}", "{1,0,2,3}", "{2,0,1}", "{2,1,0}",
     "{3,2,1,0}", "{0,1,2}", "{2,1,0}"},
    // Large enough for the 8x16 AVX-512 block and the k blocks of 256.
    {"bmm", "f32[2,16,300]", "f32[2,300,32]", "f32[2,16,32]",
     "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}",
     "{2,1,0:T(8,1)}", "{1,2,0:T(8,1)}", "{2,1,0:T(8,8)}", "{2,1,0}", "{2,1,0}", "{2,1,0}"},
    // Rank 2 with a transposed lhs: rows are its dim 1.
    {"transposed lhs", "f32[5,8]", "f32[16,5]", "f32[8,16]",
     "lhs_contracting_dims={0}, rhs_contracting_dims={1}", "{1,0}", "{0,1}", "{1,0}", "{0,1}",
     "{1,0}", "{1,0}"},
    // Rows and columns that fill no block: the last blocks are padded.
    {"odd", "f32[13,300]", "f32[300,19]", "f32[13,19]",
     "lhs_contracting_dims={1}, rhs_contracting_dims={0}", "{0,1}", "{1,0}", "{1,0}", "{1,0}",
     "{0,1}", "{0,1}"},
    {"batched odd", "f32[3,5,7]", "f32[3,7,11]", "f32[3,5,11]",
     "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}",
     "{1,2,0}", "{2,1,0}", "{2,1,0}", "{2,1,0}", "{1,2,0}", "{1,2,0}"},
};

// The element types of a dot's lhs, rhs and result the kernel takes.
const char* const kTypes[][3] = {
    {"f32", "f32", "f32"},
    {"bf16", "bf16", "bf16"},
    {"bf16", "bf16", "f32"},
    {"bf16", "f32", "f32"}};

// `d` with its shapes' element types set to `types`.
BatchedDot WithTypes(BatchedDot d, const char* const types[3]) {
  for (auto [shape, type] : {std::pair<std::string*, const char*>{&d.lhs, types[0]},
                             {&d.rhs, types[1]}, {&d.out, types[2]}}) {
    *shape = type + shape->substr(shape->find('['));
  }
  return d;
}

std::string DotText(const BatchedDot& d, const std::string& l, const std::string& r,
                    const std::string& o) {
  return absl::StrCat("HloModule d, entry_computation_layout={(", d.lhs, l, ", ", d.rhs, r, ")->",
                      d.out, o, "}\n\nENTRY e {\n  a = ", d.lhs, l, " parameter(0)\n  b = ", d.rhs, r,
                      " parameter(1)\n  ROOT d = ", d.out, o, " dot(a, b), ", d.dnums, "\n}\n");
}

// A random f32 or bf16 array (bf16: the top half of each f32 word); with
// `specials`, about one element in 30 is a NaN (with a payload, either
// sign, signalling or quiet), an infinity or a zero.
LogicalArray RandomFloats(const std::string& shape_text, bool specials, std::mt19937_64& rng) {
  LogicalArray a{*ParseShape(shape_text), {}};
  const bool bf16 = a.shape.element_type() == BF16;
  int64_t n = 1;
  for (int64_t d : a.shape.dimensions()) n *= d;
  const uint32_t kSpecial[] = {0x7fc10000, 0xffc20000, 0x7f830000, 0x7f800000,
                               0xff800000, 0x00000000, 0x80000000, 0x7fc00001};
  std::uniform_real_distribution<float> value(-4, 4);
  std::vector<uint32_t> words(n);
  for (uint32_t& w : words) {
    if (specials && rng() % 30 == 0) {
      w = kSpecial[rng() % 8];
    } else {
      const float f = value(rng);
      std::memcpy(&w, &f, 4);
    }
  }
  a.bytes.resize((bf16 ? 2 : 4) * n);
  for (int64_t i = 0; i < n; ++i) {
    if (bf16) {
      const uint16_t h = words[i] >> 16;
      std::memcpy(a.bytes.data() + 2 * i, &h, 2);
    } else {
      std::memcpy(a.bytes.data() + 4 * i, &words[i], 4);
    }
  }
  return a;
}

// Runs the dot of `module` in its layouts through PackedDot with `isa`, or
// (`generic`) through the generic dot; none when PackedDot does not take it.
std::optional<absl::StatusOr<LogicalArray>> RunDot(const HloModule& module,
                                                   const LogicalArray& lhs,
                                                   const LogicalArray& rhs, Isa isa,
                                                   bool generic = false) {
  const HloInstruction& dot = *module.entry()->root();
  absl::StatusOr<Value> a = MakeArgument(dot.operand(0)->shape(), lhs);
  absl::StatusOr<Value> b = MakeArgument(dot.operand(1)->shape(), rhs);
  absl::StatusOr<std::shared_ptr<const ArrayInfo>> info = ArrayInfo::Create(dot.shape());
  if (!a.ok()) return absl::StatusOr<LogicalArray>(a.status());
  if (!b.ok()) return absl::StatusOr<LogicalArray>(b.status());
  if (!info.ok()) return absl::StatusOr<LogicalArray>(info.status());
  std::optional<absl::StatusOr<Value>> out =
      generic ? GenericDot(dot, *a, *b, *info) : PackedDot(dot, *a, *b, *info, isa);
  if (!out.has_value()) return std::nullopt;
  if (!out->ok()) return absl::StatusOr<LogicalArray>(out->status());
  return ToLogical(**out);
}

std::unique_ptr<HloModule> Parse(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text, "t.hlo");
  EXPECT_TRUE(m.ok()) << m.status() << "\n" << text;
  return m.ok() ? *std::move(m) : nullptr;
}

// Each dot in both sets of layouts and each type combination: the
// executor's choice and each kernel forced give the generic dot's bits.
TEST(BatchedPackedDotTest, EveryIsaGivesTheGenericDotsBits) {
  std::mt19937_64 rng(28);
  for (const BatchedDot& f32_dot : kDots) {
    for (const auto& types : kTypes) {
      const BatchedDot d = WithTypes(f32_dot, types);
      for (bool specials : {false, true}) {
        SCOPED_TRACE(absl::StrCat(d.name, " ", d.lhs, " ", d.rhs, " -> ", d.out,
                                  specials ? " with NaNs and infinities" : ""));
        const LogicalArray lhs = RandomFloats(d.lhs, specials, rng);
        const LogicalArray rhs = RandomFloats(d.rhs, specials, rng);
        std::unique_ptr<HloModule> generic =
            Parse(DotText(d, d.generic_lhs, d.generic_rhs, d.generic_out));
        ASSERT_NE(generic, nullptr);
        std::optional<absl::StatusOr<LogicalArray>> want =
            RunDot(*generic, lhs, rhs, Isa::kScalar, /*generic=*/true);
        ASSERT_TRUE(want.has_value() && want->ok());
        const std::tuple<std::string, std::string, std::string> layouts[] = {
            {d.packed_lhs, d.packed_rhs, d.packed_out},
            {d.generic_lhs, d.generic_rhs, d.generic_out}};
        for (const auto& [l, r, o] : layouts) {
          SCOPED_TRACE(absl::StrCat(l, " ", r, " -> ", o));
          std::unique_ptr<HloModule> m = Parse(DotText(d, l, r, o));
          ASSERT_NE(m, nullptr);
          absl::StatusOr<std::vector<LogicalArray>> run = RunLogical(*m, {lhs, rhs});
          ASSERT_TRUE(run.ok()) << run.status();
          EXPECT_TRUE(run->at(0).bytes == (*want)->bytes) << "executor";
          for (Isa isa : {Isa::kScalar, Isa::kAvx2, Isa::kAvx512}) {
            if (ResolveIsa(isa) != isa) {
              std::cout << "this CPU lacks ISA " << static_cast<int>(isa) << ": not tested\n";
              continue;
            }
            SCOPED_TRACE(PackedDotKernel(16, 32, isa));
            std::optional<absl::StatusOr<LogicalArray>> got = RunDot(*m, lhs, rhs, isa);
            ASSERT_TRUE(got.has_value()) << "the kernel did not take the dot";
            ASSERT_TRUE(got->ok()) << got->status();
            EXPECT_TRUE((*got)->bytes == (*want)->bytes);
          }
        }
      }
    }
  }
}

// What the kernel refuses goes to the generic dot: a result narrower than
// an operand (the generic dot rounds each operand to it first), integers.
TEST(BatchedPackedDotTest, RefusesWhatItCannotMatch) {
  for (const std::string& types : {std::string("f32[4,8] f32[8,8] bf16[4,8]"),
                                   std::string("f32[4,8] bf16[8,8] bf16[4,8]"),
                                   std::string("s32[4,8] s32[8,8] s32[4,8]")}) {
    SCOPED_TRACE(types);
    const std::vector<std::string> t = absl::StrSplit(types, ' ');
    const BatchedDot d{"narrow", t[0], t[1], t[2],
                       "lhs_contracting_dims={1}, rhs_contracting_dims={0}", "{1,0}", "{1,0}",
                       "{1,0}", "", "", ""};
    std::unique_ptr<HloModule> m = Parse(DotText(d, "{1,0}", "{1,0}", "{1,0}"));
    ASSERT_NE(m, nullptr);
    std::mt19937_64 rng(3);
    // Random words (for s32 too), read only if the kernel took the dot.
    const LogicalArray lhs = RandomFloats(t[0], false, rng);
    const LogicalArray rhs = RandomFloats(t[1], false, rng);
    EXPECT_FALSE(RunDot(*m, lhs, rhs, Isa::kScalar).has_value());
  }
}

// Hand-computed: two batches of [4,1] x [1,8] outer products, so a wrong
// batch offset or a batch loop run once shows as wrong numbers.
TEST(BatchedPackedDotTest, EachBatchReadsItsOwnPanels) {
  const BatchedDot d{"outer", "f32[2,4,1]", "f32[2,1,8]", "f32[2,4,8]",
                     "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, "
                     "rhs_contracting_dims={1}",
                     "{1,2,0}", "{2,1,0}", "{2,1,0}", "", "", ""};
  std::unique_ptr<HloModule> m = Parse(DotText(d, d.packed_lhs, d.packed_rhs, d.packed_out));
  ASSERT_NE(m, nullptr);
  LogicalArray lhs{*ParseShape(d.lhs), {}}, rhs{*ParseShape(d.rhs), {}};
  std::vector<float> l(8), r(16);
  for (int i = 0; i < 8; ++i) l[i] = i + 1;        // batch 0: 1..4, batch 1: 5..8
  for (int j = 0; j < 16; ++j) r[j] = j < 8 ? 1 : 10;  // batch 0: ones, batch 1: tens
  lhs.bytes.resize(32);
  rhs.bytes.resize(64);
  std::memcpy(lhs.bytes.data(), l.data(), 32);
  std::memcpy(rhs.bytes.data(), r.data(), 64);
  std::optional<absl::StatusOr<LogicalArray>> got = RunDot(*m, lhs, rhs, Isa::kScalar);
  ASSERT_TRUE(got.has_value());
  ASSERT_TRUE(got->ok()) << got->status();
  std::vector<float> out(64);
  std::memcpy(out.data(), (*got)->bytes.data(), 256);
  EXPECT_EQ(out[0], 1);             // [0,0,0] = 1 * 1
  EXPECT_EQ(out[3 * 8 + 7], 4);     // [0,3,7] = 4 * 1
  EXPECT_EQ(out[32], 50);           // [1,0,0] = 5 * 10
  EXPECT_EQ(out[32 + 3 * 8 + 5], 80);  // [1,3,5] = 8 * 10
}

}  // namespace
}  // namespace xla_layout::runtime
