#include "runtime/nan_rule.h"

#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"
#include "runtime/dot_kernel.h"
#include "runtime/executor.h"
#include "xla_layout/isa.h"
#include "xla_layout/shape_text.h"

namespace xla_layout::runtime {
namespace {

double D(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, 8);
  return d;
}
uint64_t B(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, 8);
  return bits;
}

TEST(NanRuleTest, ProductTakesTheLhsNanThenTheRhsNanQuieted) {
  EXPECT_EQ(B(RuleProduct(D(0x7ff8000000000001), D(0x7ff8000000000002))), 0x7ff8000000000001u);
  EXPECT_EQ(B(RuleProduct(D(0x7ff0000000000003), D(0xfff8000000000004))), 0x7ff8000000000003u);
  EXPECT_EQ(B(RuleProduct(2.0, D(0x7ff0000000000005))), 0x7ff8000000000005u);
  EXPECT_EQ(B(RuleProduct(D(0xfff8000000000006), -3.0)), 0xfff8000000000006u);
  EXPECT_EQ(RuleProduct(-1.5, 2.0), -3.0);
}

TEST(NanRuleTest, InvalidOperationsGiveThePositiveDefaultNan) {
  const double inf = D(0x7ff0000000000000);
  EXPECT_EQ(B(RuleProduct(inf, 0.0)), 0x7ff8000000000000u);
  EXPECT_EQ(B(RuleProduct(-0.0, -inf)), 0x7ff8000000000000u);
  EXPECT_EQ(B(RuleSum(inf, -inf)), 0x7ff8000000000000u);
  EXPECT_EQ(B(RuleSum(-inf, inf)), 0x7ff8000000000000u);
}

TEST(NanRuleTest, SumKeepsTheRunningNanThenTakesTheProducts) {
  EXPECT_EQ(B(RuleSum(D(0xfff8000000000004), D(0x7ff8000000000005))), 0xfff8000000000004u);
  EXPECT_EQ(B(RuleSum(1.0, D(0x7ff0000000000006))), 0x7ff8000000000006u);
  EXPECT_EQ(B(RuleSum(D(0x7ff8000000000007), D(0x7ff0000000000000))), 0x7ff8000000000007u);
  EXPECT_EQ(RuleSum(1.0, 2.0), 3.0);
}

// --- Every dot path follows the rule ----------------------------------------

constexpr uint32_t kOne = 0x3f800000;
constexpr uint32_t kInf = 0x7f800000, kNegInf = 0xff800000;
constexpr uint32_t kDefaultNan = 0x7fc00000;
constexpr int64_t kM = 8, kN = 16;  // the AVX-512 kernel's block

struct Element {
  int64_t row, col;
  uint32_t bits;
};

// An f32[rows, cols] logical array of ones with `set` written over them.
LogicalArray Ones(int64_t rows, int64_t cols, const std::vector<Element>& set) {
  LogicalArray a{*ParseShape(absl::StrCat("f32[", rows, ",", cols, "]")), {}};
  std::vector<uint32_t> words(rows * cols, kOne);
  for (const Element& e : set) words[e.row * cols + e.col] = e.bits;
  a.bytes.resize(4 * words.size());
  std::memcpy(a.bytes.data(), words.data(), a.bytes.size());
  return a;
}

uint32_t Word(const LogicalArray& a, int64_t row, int64_t col) {
  uint32_t w;
  std::memcpy(&w, a.bytes.data() + 4 * (row * a.shape.dimensions(1) + col), 4);
  return w;
}

std::string Hex(uint32_t w) { return absl::StrCat("0x", absl::Hex(w, absl::kZeroPad8)); }

uint32_t FloatWord(float f) {
  uint32_t w;
  std::memcpy(&w, &f, 4);
  return w;
}

std::string DotText(int64_t k, const std::string& lhs_layout, const std::string& rhs_layout,
                    const std::string& out_layout) {
  const std::string lhs = absl::StrCat("f32[", kM, ",", k, "]", lhs_layout);
  const std::string rhs = absl::StrCat("f32[", k, ",", kN, "]", rhs_layout);
  const std::string out = absl::StrCat("f32[", kM, ",", kN, "]", out_layout);
  return absl::StrCat("HloModule d, entry_computation_layout={(", lhs, ", ", rhs, ")->", out,
                      "}\n\nENTRY e {\n  a = ", lhs, " parameter(0)\n  b = ", rhs,
                      " parameter(1)\n  ROOT d = ", out,
                      " dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n");
}

// The paths a dot can take: the generic dot (on row-major and on
// column-major operands) and the packed kernels, each forced.
enum class Path { kGeneric, kGenericColumnMajor, kScalar, kAvx2, kAvx512 };
constexpr Path kPaths[] = {Path::kGeneric, Path::kGenericColumnMajor, Path::kScalar, Path::kAvx2,
                           Path::kAvx512};

const char* PathName(Path p) {
  switch (p) {
    case Path::kGeneric: return "generic";
    case Path::kGenericColumnMajor: return "generic column-major";
    case Path::kScalar: return "packed scalar";
    case Path::kAvx2: return "packed avx2";
    case Path::kAvx512: return "packed avx512";
  }
  return "?";
}

Isa IsaOf(Path p) {
  return p == Path::kAvx512 ? Isa::kAvx512 : p == Path::kAvx2 ? Isa::kAvx2 : Isa::kScalar;
}

// Whether this CPU runs `p` (the packed paths need their instructions).
bool Runs(Path p) {
  if (p == Path::kGeneric || p == Path::kGenericColumnMajor) return true;
  const bool runs = ResolveIsa(IsaOf(p)) == IsaOf(p);
  if (!runs) std::cout << "this CPU does not run the " << PathName(p) << " kernel: not tested\n";
  return runs;
}

// lhs[8,K] x rhs[K,16] on path `p`.
absl::StatusOr<LogicalArray> RunDot(Path p, const LogicalArray& lhs, const LogicalArray& rhs) {
  const int64_t k = lhs.shape.dimensions(1);
  if (p == Path::kGeneric || p == Path::kGenericColumnMajor) {
    // Neither has the rhs's columns in runs of 8: the generic dot runs.
    const std::string layout = p == Path::kGeneric ? "{1,0}" : "{0,1}";
    absl::StatusOr<std::unique_ptr<HloModule>> m =
        ParseHloModule(DotText(k, layout, "{0,1}", layout));
    if (!m.ok()) return m.status();
    absl::StatusOr<std::vector<LogicalArray>> out = RunLogical(**m, {lhs, rhs});
    if (!out.ok()) return out.status();
    return out->at(0);
  }
  absl::StatusOr<std::unique_ptr<HloModule>> m =
      ParseHloModule(DotText(k, "{1,0:T(8,1)}", "{0,1:T(8,1)}", "{1,0:T(8,8)}"));
  if (!m.ok()) return m.status();
  const HloInstruction& dot = *(*m)->entry()->root();
  absl::StatusOr<Value> a = MakeArgument(dot.operand(0)->shape(), lhs);
  absl::StatusOr<Value> b = MakeArgument(dot.operand(1)->shape(), rhs);
  absl::StatusOr<std::shared_ptr<const ArrayInfo>> info = ArrayInfo::Create(dot.shape());
  if (!a.ok()) return a.status();
  if (!b.ok()) return b.status();
  if (!info.ok()) return info.status();
  std::optional<absl::StatusOr<Value>> out = PackedDot(dot, *a, *b, *info, IsaOf(p));
  if (!out.has_value()) return absl::InternalError("the packed kernel did not take the dot");
  if (!out->ok()) return out->status();
  return ToLogical(**out);
}

// Runs the dot on every path this CPU has; each result's bits must be the
// generic dot's and `expected(row, col)`'s.
template <typename Expected>
void ExpectOnEveryPath(const LogicalArray& lhs, const LogicalArray& rhs, Expected&& expected) {
  absl::StatusOr<LogicalArray> generic = RunDot(Path::kGeneric, lhs, rhs);
  ASSERT_TRUE(generic.ok()) << generic.status();
  for (Path p : kPaths) {
    if (!Runs(p)) continue;
    SCOPED_TRACE(PathName(p));
    absl::StatusOr<LogicalArray> out = RunDot(p, lhs, rhs);
    ASSERT_TRUE(out.ok()) << out.status();
    for (int64_t i = 0; i < kM; ++i) {
      for (int64_t j = 0; j < kN; ++j) {
        const std::string at = absl::StrCat("element [", i, ",", j, "]");
        EXPECT_EQ(Hex(Word(*out, i, j)), Hex(expected(i, j))) << at << " by the rule";
        EXPECT_EQ(Hex(Word(*out, i, j)), Hex(Word(*generic, i, j))) << at << " vs generic";
      }
    }
  }
}

TEST(DotNanRuleTest, TwoNansInOneProductGiveTheLhsNan) {
  // At several contracting positions: first, inside, the last, and on both
  // sides of the packed kernel's blocks of 256.
  for (int64_t k_size : {8, 300}) {
    for (int64_t k : {int64_t{0}, int64_t{3}, k_size - 1, int64_t{255}, int64_t{256}}) {
      if (k >= k_size) continue;
      SCOPED_TRACE(absl::StrCat("K=", k_size, " NaNs at k=", k));
      // Row 2 and row 6 of the lhs, columns 5 and 9 of the rhs hold NaNs at
      // k: a quiet and a negative signalling one on the lhs, a quiet and a
      // signalling one on the rhs.
      const LogicalArray lhs = Ones(kM, k_size, {{2, k, 0x7fc00001}, {6, k, 0xff800003}});
      const LogicalArray rhs = Ones(k_size, kN, {{k, 5, 0x7fc00002}, {k, 9, 0x7f800004}});
      ExpectOnEveryPath(lhs, rhs, [&](int64_t i, int64_t j) -> uint32_t {
        if (i == 2) return 0x7fc00001;  // [2,5]: lhs and rhs NaN, the lhs's
        if (i == 6) return 0xffc00003;  // the signalling NaN quieted, sign kept
        if (j == 5) return 0x7fc00002;
        if (j == 9) return 0x7fc00004;
        return FloatWord(static_cast<float>(k_size));
      });
    }
  }
}

TEST(DotNanRuleTest, TheFirstNanInContractingOrderStays) {
  // [1,4]: the rhs's NaN at k=2 comes before the lhs's at k=6; [3,10]: the
  // lhs's at k=2 before the rhs's at k=6; [1,10] and [3,4] meet in one
  // product.
  const LogicalArray lhs = Ones(kM, 8, {{1, 6, 0x7fc00003}, {3, 2, 0x7fc00005}});
  const LogicalArray rhs = Ones(8, kN, {{2, 4, 0xffc00004}, {6, 10, 0x7fc00006}});
  ExpectOnEveryPath(lhs, rhs, [](int64_t i, int64_t j) -> uint32_t {
    if (i == 1 && j == 4) return 0xffc00004;
    if (i == 3 && j == 10) return 0x7fc00005;
    if (i == 1) return 0x7fc00003;
    if (i == 3) return 0x7fc00005;
    if (j == 4) return 0xffc00004;
    if (j == 10) return 0x7fc00006;
    return FloatWord(8.0f);
  });
}

TEST(DotNanRuleTest, InfTimesZeroAndInfMinusInfGiveTheDefaultNan) {
  // lhs[0,3] = inf meets rhs[3,0] = 0, and after rhs[2,1] = -inf it adds
  // +inf; lhs[4,3] = -inf meets the same 0; rhs[5,0] is a NaN after the
  // invalid products, so it does not replace their default NaN.
  const LogicalArray lhs = Ones(kM, 8, {{0, 3, kInf}, {4, 3, kNegInf}});
  const LogicalArray rhs = Ones(8, kN, {{3, 0, 0}, {2, 1, kNegInf}, {5, 0, 0x7fc00007}});
  ExpectOnEveryPath(lhs, rhs, [](int64_t i, int64_t j) -> uint32_t {
    if (j == 0) return i == 0 || i == 4 ? kDefaultNan : 0x7fc00007;
    if (j == 1) return i == 0 ? kDefaultNan : kNegInf;
    if (i == 0) return kInf;
    if (i == 4) return kNegInf;
    return FloatWord(8.0f);
  });
}

// --- The generic dot's other types, and convolution --------------------------

// The only output of `text` run on `inputs`, as 64-bit words.
std::vector<uint64_t> Run64(const std::string& text, const std::vector<LogicalArray>& inputs) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return {};
  absl::StatusOr<std::vector<LogicalArray>> out = RunLogical(**m, inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return {};
  std::vector<uint64_t> words(out->at(0).bytes.size() / 8);
  std::memcpy(words.data(), out->at(0).bytes.data(), 8 * words.size());
  return words;
}

TEST(DotNanRuleTest, F64QuietsTheLhsSignallingNan) {
  LogicalArray lhs{*ParseShape("f64[1,2]"), std::vector<uint8_t>(16)};
  LogicalArray rhs{*ParseShape("f64[2,2]"), std::vector<uint8_t>(32)};
  const uint64_t l[] = {0x7ff0000000000001, 0x3ff0000000000000};            // sNaN, 1
  const uint64_t r[] = {0x7ff8000000000002, 0x4000000000000000, 0, 0};       // NaN, 2; 0, 0
  std::memcpy(lhs.bytes.data(), l, 16);
  std::memcpy(rhs.bytes.data(), r, 32);
  for (const std::string layout : {"{1,0}", "{0,1}"}) {
    SCOPED_TRACE(layout);
    const std::string text = absl::StrCat(
        "HloModule d\n\nENTRY e {\n  a = f64[1,2]", layout, " parameter(0)\n  b = f64[2,2]",
        layout, " parameter(1)\n  ROOT d = f64[1,2] dot(a, b), lhs_contracting_dims={1}, "
        "rhs_contracting_dims={0}\n}\n");
    EXPECT_EQ(Run64(text, {lhs, rhs}),
              (std::vector<uint64_t>{0x7ff8000000000001, 0x7ff8000000000001}));
  }
}

TEST(DotNanRuleTest, F16KeepsOnlyTheNansSign) {
  // f16 has no direct reader: the generic dot converts each operand, which
  // keeps a NaN's sign only (0xfe01 -> 0xfe00), and then applies the rule.
  // lhs {{-NaN, 1}, {1, -inf}} x rhs {{NaN, 1}, {1, 0}}: row 0 takes the
  // lhs's NaN, [1,0] the rhs's, and [1,1] = 1 + -inf * 0 the default NaN.
  LogicalArray lhs{*ParseShape("f16[2,2]"), std::vector<uint8_t>(8)};
  LogicalArray rhs{*ParseShape("f16[2,2]"), std::vector<uint8_t>(8)};
  const uint16_t l[] = {0xfe01, 0x3c00, 0x3c00, 0xfc00};
  const uint16_t r[] = {0x7e02, 0x3c00, 0x3c00, 0x0000};
  std::memcpy(lhs.bytes.data(), l, 8);
  std::memcpy(rhs.bytes.data(), r, 8);
  for (const std::string layout : {"{1,0}", "{0,1}"}) {
    SCOPED_TRACE(layout);
    absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(absl::StrCat(
        "HloModule d\n\nENTRY e {\n  a = f16[2,2]", layout, " parameter(0)\n  b = f16[2,2]", layout,
        " parameter(1)\n  ROOT d = f16[2,2]", layout,
        " dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n"));
    ASSERT_TRUE(m.ok()) << m.status();
    absl::StatusOr<std::vector<LogicalArray>> out = RunLogical(**m, {lhs, rhs});
    ASSERT_TRUE(out.ok()) << out.status();
    std::vector<uint16_t> got(4);
    std::memcpy(got.data(), out->at(0).bytes.data(), 8);
    EXPECT_EQ(got, (std::vector<uint16_t>{0xfe00, 0xfe00, 0x7e00, 0x7e00}));
  }
}

// conv(input f32[1,4,2] b0f, kernel f32[3,2,1] 0io) -> f32[1,2,1] b0f: output
// x sums input[x+p][c] * kernel[p][c] for positions p, then features c.
std::string ConvText(const std::string& in_layout, const std::string& ker_layout,
                     const std::string& out_layout) {
  return absl::StrCat("HloModule c\n\nENTRY e {\n  a = f32[1,4,2]", in_layout,
                      " parameter(0)\n  k = f32[3,2,1]", ker_layout,
                      " parameter(1)\n  ROOT c = f32[1,2,1]", out_layout,
                      " convolution(a, k), window={size=3}, dim_labels=b0f_0io->b0f\n}\n");
}

std::vector<uint32_t> RunConv(const std::string& text, const std::vector<uint32_t>& in,
                              const std::vector<uint32_t>& ker) {
  LogicalArray a{*ParseShape("f32[1,4,2]"), std::vector<uint8_t>(4 * in.size())};
  LogicalArray k{*ParseShape("f32[3,2,1]"), std::vector<uint8_t>(4 * ker.size())};
  std::memcpy(a.bytes.data(), in.data(), a.bytes.size());
  std::memcpy(k.bytes.data(), ker.data(), k.bytes.size());
  std::vector<uint64_t> w = Run64(text, {a, k});  // f32[1,2,1]: one 64-bit word
  if (w.size() != 1) return {};
  return {static_cast<uint32_t>(w[0]), static_cast<uint32_t>(w[0] >> 32)};
}

TEST(ConvolutionNanRuleTest, FollowsTheDotsRuleInEveryLayout) {
  const uint32_t o = kOne;
  // input[1][0] and kernel[0][0] are NaNs: output 1 meets both in its first
  // product (the input's); output 0 meets the kernel's first (p=0), the
  // input's after it (p=1).
  const std::vector<uint32_t> in = {o, o, 0x7fc00001, o, o, o, o, o};
  const std::vector<uint32_t> ker = {0x7fc00002, o, o, o, o, o};
  // input[3][1] = inf meets kernel[2][1] = 0 in output 1 only.
  const std::vector<uint32_t> in_inf = {o, o, o, o, o, o, o, kInf};
  const std::vector<uint32_t> ker_zero = {o, o, o, o, o, 0};
  for (const auto& [l, k, r] : {std::tuple<std::string, std::string, std::string>{"", "", ""},
                                {"{0,1,2}", "{0,2,1}", "{1,2,0}"},
                                {"{2,1,0:T(2,2)}", "{1,0,2:T(2,1)}", "{0,1,2}"}}) {
    SCOPED_TRACE(absl::StrCat(l, " ", k, " ", r));
    const std::string text = ConvText(l, k, r);
    EXPECT_EQ(RunConv(text, in, ker), (std::vector<uint32_t>{0x7fc00002, 0x7fc00001}));
    EXPECT_EQ(RunConv(text, in_inf, ker_zero),
              (std::vector<uint32_t>{FloatWord(5.0f), kDefaultNan}));
  }
}

}  // namespace
}  // namespace xla_layout::runtime
