#include "runtime/rng.h"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_verifier.h"
#include "runtime/executor.h"
#include "runtime/logical.h"

namespace xla_layout::runtime {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::unique_ptr<HloModule> Parse(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text, "t.hlo");
  EXPECT_TRUE(m.ok()) << m.status() << "\n" << text;
  if (!m.ok()) return nullptr;
  absl::Status v = VerifyModule(**m);
  EXPECT_TRUE(v.ok()) << v << "\n" << text;
  return v.ok() ? *std::move(m) : nullptr;
}

// The outputs of a module whose entry takes nothing.
absl::StatusOr<std::vector<LogicalArray>> RunBody(const std::string& body) {
  std::unique_ptr<HloModule> m = Parse(absl::StrCat("HloModule t\n\nENTRY e {\n", body, "}\n"));
  if (m == nullptr) return absl::InvalidArgumentError("parse error");
  return RunLogical(*m, {});
}

template <typename T>
std::vector<T> Elements(const LogicalArray& a) {
  std::vector<T> out(a.bytes.size() / sizeof(T));
  std::memcpy(out.data(), a.bytes.data(), a.bytes.size());
  return out;
}

// A rng-bit-generator on a constant state; returns (new state, bits).
std::pair<std::vector<uint64_t>, LogicalArray> Generate(const std::string& algorithm,
                                                        const std::string& state,
                                                        const std::string& bits_shape) {
  const std::string state_shape = absl::StrCat(
      "u64[", std::count(state.begin(), state.end(), ',') + 1, "]");
  absl::StatusOr<std::vector<LogicalArray>> out = RunBody(absl::StrCat(
      "  s = ", state_shape, " constant({", state, "})\n", "  ROOT r = (", state_shape, ", ",
      bits_shape, ") rng-bit-generator(s), algorithm=", algorithm, "\n"));
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return {};
  return {Elements<uint64_t>(out->at(0)), out->at(1)};
}

// Known-answer vectors of the Random123 distribution.
TEST(RngTest, PhiloxKnownAnswers) {
  EXPECT_THAT(Philox4x32({0, 0, 0, 0}, {0, 0}),
              ElementsAre(0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u));
  EXPECT_THAT(Philox4x32({~0u, ~0u, ~0u, ~0u}, {~0u, ~0u}),
              ElementsAre(0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu));
  EXPECT_THAT(Philox4x32({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                         {0xa4093822, 0x299f31d0}),
              ElementsAre(0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u));
}

TEST(RngTest, ThreeFryKnownAnswers) {
  EXPECT_THAT(ThreeFry2x32({0, 0}, {0, 0}), ElementsAre(0x6b200159u, 0x99ba4efeu));
  EXPECT_THAT(ThreeFry2x32({~0u, ~0u}, {~0u, ~0u}), ElementsAre(0x1cb996fcu, 0xbb002be7u));
  EXPECT_THAT(ThreeFry2x32({0x243f6a88, 0x85a308d3}, {0x13198a2e, 0x03707344}),
              ElementsAre(0xc4923a9cu, 0x483df7a0u));
}

// Philox with key 0 and counter 0: the first block is the zero known answer,
// its words in order; two more elements take words 0 and 1 of the next
// block; the counter advances by the two blocks used.
TEST(RngTest, PhiloxStreamAndState) {
  auto [state, bits] = Generate("rng_philox", "0, 0", "u32[6]");
  EXPECT_THAT(state, ElementsAre(0u, 2u));
  const std::vector<uint32_t> v = Elements<uint32_t>(bits);
  EXPECT_THAT(std::vector<uint32_t>(v.begin(), v.begin() + 4),
              ElementsAre(0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u));
  const std::array<uint32_t, 4> next = Philox4x32({1, 0, 0, 0}, {0, 0});
  EXPECT_EQ(v[4], next[0]);
  EXPECT_EQ(v[5], next[1]);
  // rng_default is Philox; a u64[3] state [k, c, 0] is the same stream.
  EXPECT_EQ(Generate("rng_default", "0, 0", "u32[6]").second.bytes, bits.bytes);
  auto [state3, bits3] = Generate("rng_philox", "0, 0, 0", "u32[6]");
  EXPECT_THAT(state3, ElementsAre(0u, 2u, 0u));
  EXPECT_EQ(bits3.bytes, bits.bytes);
}

// 64-bit outputs pair words 0-1 and 2-3 of a block, low word first.
TEST(RngTest, PhiloxWideAndNarrow) {
  auto [state, bits] = Generate("rng_philox", "0, 0", "u64[2]");
  EXPECT_THAT(state, ElementsAre(0u, 1u));
  EXPECT_THAT(Elements<uint64_t>(bits), ElementsAre(0xe169c58d6627e8d5u, 0x9b00dbd8bc57ac4cu));
  // Narrow outputs keep the low bits of the 32-bit words.
  EXPECT_THAT(Elements<uint8_t>(Generate("rng_philox", "0, 0", "u8[4]").second),
              ElementsAre(0xd5, 0x8d, 0x4c, 0xd8));
}

// A u64[2] state keeps the counter's high word in state[0], the key: XLA
// reverses the state to read the counter.
TEST(RngTest, PhiloxTwoWordStateTakesTheKeyAsCounterHigh) {
  auto [state2, bits2] = Generate("rng_philox", "7, 5", "u32[8]");
  auto [state3, bits3] = Generate("rng_philox", "7, 5, 7", "u32[8]");
  EXPECT_THAT(state2, ElementsAre(7u, 7u));
  EXPECT_THAT(state3, ElementsAre(7u, 7u, 7u));
  EXPECT_EQ(bits2.bytes, bits3.bytes);
  const std::array<uint32_t, 4> first = Philox4x32({5, 0, 7, 0}, {7, 0});
  EXPECT_EQ(Elements<uint32_t>(bits2)[0], first[0]);
  // The counter carries into its high word.
  auto [carried, unused] = Generate("rng_philox", "1, 18446744073709551615, 2", "u32[8]");
  EXPECT_THAT(carried, ElementsAre(1u, 1u, 3u));
}

// XLA CPU's output for state [0, 0], u32[3,2] (as printed by a PJRT client,
// five digits): the split dim is 1, so row i holds both words of counter i.
TEST(RngTest, ThreeFryMatchesXlaOnCpu) {
  auto [state, bits] = Generate("rng_three_fry", "0, 0", "u32[3,2]");
  EXPECT_THAT(state, ElementsAre(0u, 3u));
  const std::vector<uint32_t> v = Elements<uint32_t>(bits);
  const double printed[] = {1.7973e9, 2.5791e9, 1.3515e9, 3.2358e9, 1.6886e9, 4.2293e9};
  for (int k = 0; k < 6; ++k) EXPECT_NEAR(v[k], printed[k], 0.0001e9) << k;
  EXPECT_EQ(v[0], 0x6b200159u);
  EXPECT_EQ(v[1], 0x99ba4efeu);
}

// The split dim is the first even one (dim 1 of [3,4,5]): element (i,j,k)
// takes word j%2 of counter s + row-major index of (i, j/2, k) over [3,2,5].
TEST(RngTest, ThreeFrySplitsTheFirstEvenDim) {
  auto [state, bits] = Generate("rng_three_fry", "9, 100", "s32[3,4,5]");
  EXPECT_THAT(state, ElementsAre(9u, 130u));
  const std::vector<uint32_t> v = Elements<uint32_t>(bits);
  const int i = 2, j = 3, k = 4;
  const uint64_t counter = 100 + (i * 2 + j / 2) * 5 + k;
  EXPECT_EQ(v[(i * 4 + j) * 5 + k],
            ThreeFry2x32({static_cast<uint32_t>(counter), 0}, {9, 0})[j % 2]);
  // No even dim: the largest splits, its odd length rounded up.
  auto [state_odd, odd] = Generate("rng_three_fry", "9, 100", "u32[3,5]");
  EXPECT_THAT(state_odd, ElementsAre(9u, 109u));
  EXPECT_EQ(Elements<uint32_t>(odd)[1 * 5 + 4],
            ThreeFry2x32({100 + 1 * 3 + 2, 0}, {9, 0})[0]);
  // 64-bit outputs: one counter per element, low word first.
  auto [state64, wide] = Generate("rng_three_fry", "9, 100", "u64[3]");
  EXPECT_THAT(state64, ElementsAre(9u, 103u));
  const std::array<uint32_t, 2> w = ThreeFry2x32({102, 0}, {9, 0});
  EXPECT_EQ(Elements<uint64_t>(wide)[2], w[0] | (uint64_t{w[1]} << 32));
}

TEST(RngTest, BitsDoNotDependOnLayouts) {
  for (const std::string algorithm : {"rng_philox", "rng_three_fry"}) {
    const std::string body = absl::StrCat(
        "  s = u64[2] constant({3, 4})\n",
        "  ROOT r = (u64[2], u32[6,8]{L}) rng-bit-generator(s), algorithm=", algorithm, "\n");
    std::vector<std::vector<uint8_t>> results;
    for (const std::string layout : {"{1,0}", "{0,1}", "{1,0:T(4,4)}"}) {
      std::string text = body;
      text.replace(text.find("{L}"), 3, layout);
      absl::StatusOr<std::vector<LogicalArray>> out = RunBody(text);
      ASSERT_TRUE(out.ok()) << out.status();
      results.push_back(out->at(1).bytes);
    }
    EXPECT_EQ(results[0], results[1]) << algorithm;
    EXPECT_EQ(results[0], results[2]) << algorithm;
  }
}

TEST(RngTest, RefusesWhatItDoesNotRun) {
  auto error = [](const std::string& body) {
    absl::StatusOr<std::vector<LogicalArray>> out = RunBody(body);
    return out.ok() ? std::string("ok") : std::string(out.status().message());
  };
  EXPECT_THAT(error("  s = u64[3] constant({1, 2, 3})\n"
                    "  ROOT r = (u64[3], u32[4]) rng-bit-generator(s), algorithm=rng_three_fry\n"),
              HasSubstr("r (rng-bit-generator): a Threefry state is u64[2]"));
  EXPECT_THAT(error("  s = u64[2] constant({1, 2})\n"
                    "  ROOT r = (u64[2], f32[4]) rng-bit-generator(s), algorithm=rng_philox\n"),
              HasSubstr("the bits must be an integer array"));
  EXPECT_THAT(error("  a = pred[] constant(false)\n"
                    "  ROOT r = pred[4] rng(a, a), distribution=rng_uniform\n"),
              HasSubstr("rng_uniform does not produce pred[4]"));
}

std::string RngModule(const std::string& shape, const std::string& distribution,
                      const std::string& a, const std::string& b) {
  const std::string type = shape.substr(0, shape.find('['));
  return absl::StrCat("  a = ", type, "[] constant(", a, ")\n  b = ", type, "[] constant(", b,
                      ")\n  ROOT r = ", shape, " rng(a, b), distribution=", distribution, "\n");
}

TEST(RngTest, UniformFloatsLieInTheRange) {
  absl::StatusOr<std::vector<LogicalArray>> out =
      RunBody(RngModule("f32[40,50]", "rng_uniform", "-2", "3"));
  ASSERT_TRUE(out.ok()) << out.status();
  const std::vector<float> v = Elements<float>(out->at(0));
  double sum = 0;
  for (float x : v) {
    ASSERT_GE(x, -2.0f);
    ASSERT_LT(x, 3.0f);
    sum += x;
  }
  // 2000 draws of mean 0.5 and deviation 1.44: the mean is within 0.15.
  EXPECT_NEAR(sum / v.size(), 0.5, 0.15);
  // Repeatable, and the same whatever the result's layout.
  absl::StatusOr<std::vector<LogicalArray>> again =
      RunBody(RngModule("f32[40,50]{0,1:T(8,8)}", "rng_uniform", "-2", "3"));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->at(0).bytes, out->at(0).bytes);
  // A range whose top rounds up still stays below it: bf16 [0, 1).
  absl::StatusOr<std::vector<LogicalArray>> narrow =
      RunBody(RngModule("bf16[1000]", "rng_uniform", "0", "1"));
  ASSERT_TRUE(narrow.ok()) << narrow.status();
  for (uint16_t h : Elements<uint16_t>(narrow->at(0))) ASSERT_LT(h, 0x3f80);  // 1.0
}

TEST(RngTest, UniformIntegersAndNormals) {
  absl::StatusOr<std::vector<LogicalArray>> ints =
      RunBody(RngModule("s32[1000]", "rng_uniform", "-3", "4"));
  ASSERT_TRUE(ints.ok()) << ints.status();
  std::vector<int> seen(7, 0);
  for (int32_t x : Elements<int32_t>(ints->at(0))) {
    ASSERT_GE(x, -3);
    ASSERT_LT(x, 4);
    ++seen[x + 3];
  }
  for (int count : seen) EXPECT_GT(count, 0);
  absl::StatusOr<std::vector<LogicalArray>> normal =
      RunBody(RngModule("f64[4000]", "rng_normal", "10", "2"));
  ASSERT_TRUE(normal.ok()) << normal.status();
  double sum = 0, squares = 0;
  const std::vector<double> v = Elements<double>(normal->at(0));
  for (double x : v) {
    ASSERT_TRUE(std::isfinite(x));
    sum += x;
    squares += x * x;
  }
  const double mean = sum / v.size();
  EXPECT_NEAR(mean, 10, 0.15);
  EXPECT_NEAR(std::sqrt(squares / v.size() - mean * mean), 2, 0.15);
}

}  // namespace
}  // namespace xla_layout::runtime
