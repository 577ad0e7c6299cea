#include "xla_layout/pack.h"

#include <cstring>
#include <numeric>
#include <random>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla_layout/test_util.h"
#include "xla_layout/shape_text.h"
#include "xla_layout/tiled_layout.h"

namespace xla_layout {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Shape Parse(absl::string_view text) { return ParseTestShape(text); }

// Reference pack, element by element, straight from MLIR's definition:
// packed[outer in perm order..., inner...] = source[e].
std::vector<float> ReferencePack(const std::vector<int64_t>& dims,
                                 const std::vector<float>& source,
                                 const std::vector<int64_t>& packed,
                                 const PackSpec& spec, float pad) {
  const int rank = dims.size();
  int64_t packed_count = 1;
  for (int64_t d : packed) packed_count *= d;
  std::vector<float> out(packed_count, pad);
  std::vector<int64_t> perm = spec.outer_dims_perm;
  if (perm.empty()) {
    for (int i = 0; i < rank; ++i) perm.push_back(i);
  }
  std::vector<int64_t> tile(rank, 1);
  for (size_t i = 0; i < spec.inner_tiles.size(); ++i) {
    tile[spec.inner_dims_pos[i]] = spec.inner_tiles[i];
  }
  std::vector<int64_t> e(rank, 0);
  for (int64_t flat = 0; flat < static_cast<int64_t>(source.size()); ++flat) {
    std::vector<int64_t> p;
    for (int64_t d : perm) p.push_back(e[d] / tile[d]);
    for (int64_t d : spec.inner_dims_pos) p.push_back(e[d] % tile[d]);
    int64_t linear = 0;
    for (size_t i = 0; i < p.size(); ++i) linear = linear * packed[i] + p[i];
    out[linear] = source[flat];
    for (int d = rank - 1; d >= 0; --d) {
      if (++e[d] < dims[d]) break;
      e[d] = 0;
    }
  }
  return out;
}

void CheckPackUnpack(const std::vector<int64_t>& dims, PackSpec spec) {
  SCOPED_TRACE(::testing::PrintToString(dims));
  Shape source(F32, dims);
  source.set_layout(DefaultLayoutForRank(dims.size()));
  absl::StatusOr<std::vector<int64_t>> packed = PackedDims(dims, spec);
  ASSERT_TRUE(packed.ok()) << packed.status();
  std::vector<float> in(1);
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  in.resize(count);
  for (int64_t i = 0; i < count; ++i) in[i] = static_cast<float>(i) + 0.5f;
  float pad = -1.0f;
  if (spec.padding_value) {
    uint8_t bytes[4];
    std::memcpy(bytes, &pad, 4);
    spec.padding_value = std::vector<uint8_t>(bytes, bytes + 4);
  }
  std::vector<float> want = ReferencePack(dims, in, *packed, spec, pad);
  std::vector<float> out(want.size(), 12345.0f);
  ASSERT_TRUE(Pack(source, in.data(), *packed, spec, out.data()).ok());
  ASSERT_EQ(out, want);
  std::vector<float> back(count, 0.0f);
  ASSERT_TRUE(Unpack(*packed, out.data(), source, spec, back.data()).ok());
  ASSERT_EQ(back, in);
}

TEST(PackTest, MlirExampleShape) {
  PackSpec spec{{0, 1}, {32, 32}, {}, std::nullopt};
  EXPECT_THAT(*PackedDims({128, 256}, spec), ElementsAre(4, 8, 32, 32));
  EXPECT_EQ(PackedLayoutShape(Parse("f32[128,256]{1,0}"), spec)->ToString(),
            "f32[128,256]{1,0:T(32,32)}");
  CheckPackUnpack({128, 256}, spec);
}

TEST(PackTest, OuterDimsPerm) {
  // [M,N] -> [N/b, M/a, a, b]: SPEC's {0,1:T(b,a)(...)}.
  PackSpec spec{{0, 1}, {8, 4}, {1, 0}, std::nullopt};
  EXPECT_THAT(*PackedDims({16, 12}, spec), ElementsAre(3, 2, 8, 4));
  EXPECT_EQ(PackedLayoutShape(Parse("f32[16,12]{1,0}"), spec)->ToString(),
            "f32[16,12]{0,1:T(4,8)(4,1)}");
  CheckPackUnpack({16, 12}, spec);
  // IREE's RHS panels: inner_dims_pos=[1,0], outer_dims_perm=[1,0] on [K,N]
  // is {0,1:T(N0,K0)}.
  PackSpec rhs{{1, 0}, {8, 2}, {1, 0}, std::nullopt};
  EXPECT_THAT(*PackedDims({6, 16}, rhs), ElementsAre(2, 3, 8, 2));
  EXPECT_EQ(PackedLayoutShape(Parse("f32[6,16]{1,0}"), rhs)->ToString(),
            "f32[6,16]{0,1:T(8,2)}");
  CheckPackUnpack({6, 16}, rhs);
  // The wiki's rank-3 example: <128x256x512> / <16x8>[1,2].
  PackSpec r3{{1, 2}, {16, 8}, {}, std::nullopt};
  EXPECT_THAT(*PackedDims({128, 256, 512}, r3),
              ElementsAre(128, 16, 64, 16, 8));
  CheckPackUnpack({4, 32, 24}, r3);
  PackSpec r3perm{{1, 2}, {16, 8}, {0, 2, 1}, std::nullopt};
  CheckPackUnpack({3, 32, 24}, r3perm);
  PackSpec reversed{{2, 0}, {4, 2}, {2, 0, 1}, std::nullopt};
  CheckPackUnpack({6, 5, 8}, reversed);
}

TEST(PackTest, PaddingValueFillsPartialTiles) {
  PackSpec spec{{0, 1}, {4, 8}, {1, 0}, std::vector<uint8_t>{}};
  EXPECT_THAT(*PackedDims({10, 13}, spec), ElementsAre(2, 3, 4, 8));
  CheckPackUnpack({10, 13}, spec);
  PackSpec no_pad{{0, 1}, {4, 8}, {}, std::nullopt};
  EXPECT_THAT(PackedDims({10, 13}, no_pad).status().message(),
              HasSubstr("partial tiles need a padding_value"));
}

TEST(PackTest, RandomSpecsRoundTrip) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 1000; ++i) {
    int rank = 1 + rng() % 4;
    std::vector<int64_t> dims(rank);
    for (int64_t& d : dims) d = 1 + rng() % 9;
    std::vector<int64_t> order(rank);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    int tiles = rng() % (rank + 1);
    PackSpec spec;
    spec.inner_dims_pos.assign(order.begin(), order.begin() + tiles);
    for (int t = 0; t < tiles; ++t) spec.inner_tiles.push_back(1 + rng() % 5);
    if (rng() % 2) {
      spec.outer_dims_perm.resize(rank);
      std::iota(spec.outer_dims_perm.begin(), spec.outer_dims_perm.end(), 0);
      std::shuffle(spec.outer_dims_perm.begin(), spec.outer_dims_perm.end(),
                   rng);
    }
    spec.padding_value = std::vector<uint8_t>{};
    CheckPackUnpack(dims, spec);
  }
}

TEST(PackTest, VerifierErrors) {
  auto error = [](std::vector<int64_t> dims, std::vector<int64_t> packed,
                  PackSpec spec) {
    return std::string(VerifyPackedDims(dims, packed, spec).message());
  };
  EXPECT_THAT(error({8, 8}, {}, {{0}, {0}, {}, std::nullopt}),
              HasSubstr("zero tile factor"));
  EXPECT_THAT(error({8, 8}, {}, {{0, 0}, {2, 2}, {}, std::nullopt}),
              HasSubstr("must be distinct dims"));
  EXPECT_THAT(error({8, 8}, {}, {{2}, {2}, {}, std::nullopt}),
              HasSubstr("must be distinct dims in [0, 2)"));
  EXPECT_THAT(error({8, 8}, {}, {{0}, {2}, {0, 0}, std::nullopt}),
              HasSubstr("is not a permutation"));
  EXPECT_THAT(error({8, 8}, {}, {{0}, {2}, {1}, std::nullopt}),
              HasSubstr("is not a permutation"));
  EXPECT_THAT(error({8, 8}, {4, 8}, {{0}, {2}, {}, std::nullopt}),
              HasSubstr("packed rank is 2 but must be the source rank 2 "
                        "plus 1 tiles = 3"));
  EXPECT_THAT(error({8, 8}, {4, 7, 2}, {{0}, {2}, {}, std::nullopt}),
              HasSubstr("packed dim 1 is 7 but must be 8"));
  EXPECT_THAT(error({8, 8}, {}, {{0}, {2, 2}, {}, std::nullopt}),
              HasSubstr("inner_dims_pos has 1 entries but inner_tiles has 2"));
  EXPECT_TRUE(VerifyPackedDims({8, 8}, {4, 8, 2}, {{0}, {2}, {}, std::nullopt})
                  .ok());
}

}  // namespace
}  // namespace xla_layout
