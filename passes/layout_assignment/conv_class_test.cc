#include "passes/layout_assignment/conv_class.h"

#include "gtest/gtest.h"
#include "hlo/hlo_test_util.h"

namespace xla_layout::layout_assignment {
namespace {

// The six classes as a PyTorch/XLA training step writes them (the
// MobileNet v2 step of the corpus has each).
constexpr char kText[] = R"(
HloModule m
ENTRY e {
  x = f32[8,32,56,56] parameter(0)
  w3 = f32[64,32,3,3] parameter(1)
  w1 = f32[64,32,1,1] parameter(2)
  wd = f32[32,1,3,3] parameter(3)
  g = f32[8,64,56,56] parameter(4)
  fwd3 = f32[8,64,56,56] convolution(x, w3), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01
  fwd1 = f32[8,64,56,56] convolution(x, w1), window={size=1x1}, dim_labels=bf01_oi01->bf01
  fwdd = f32[8,32,56,56] convolution(x, wd), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, feature_group_count=32
  t1 = f32[1,1,32,64] transpose(w1), dimensions={2,3,1,0}
  r1 = f32[1,1,32,64] reverse(t1), dimensions={0,1}
  in1 = f32[8,32,56,56] convolution(g, r1), window={size=1x1}, dim_labels=bf01_01oi->bf01
  wg3 = f32[3,3,32,64] convolution(x, g), window={size=56x56 pad=1_1x1_1}, dim_labels=fb01_io01->01bf
  wg1 = f32[1,1,32,64] convolution(x, g), window={size=56x56}, dim_labels=fb01_io01->01bf
  gd = f32[8,32,56,56] parameter(5)
  wgd = f32[3,3,1,32] convolution(x, gd), window={size=56x56 pad=1_1x1_1}, dim_labels=fb01_io01->01bf, batch_group_count=32
  ROOT t = (f32[8,64,56,56], f32[8,64,56,56], f32[8,32,56,56], f32[8,32,56,56], f32[3,3,32,64], f32[1,1,32,64], f32[3,3,1,32]) tuple(fwd3, fwd1, fwdd, in1, wg3, wg1, wgd)
})";

TEST(ConvClassTest, KindsAndPassesOfATrainingStep) {
  auto m = ParseTestModule(kText);
  ASSERT_NE(m, nullptr);
  auto cls = [&](const char* name) {
    return ClassifyConvolution(*m->entry()->FindInstruction(name));
  };
  EXPECT_EQ(cls("fwd3").kind, DENSE);
  EXPECT_EQ(cls("fwd3").pass, FORWARD);
  EXPECT_EQ(cls("fwd1").kind, POINTWISE);
  EXPECT_EQ(cls("fwdd").kind, DEPTHWISE);
  EXPECT_EQ(cls("fwdd").pass, FORWARD);
  EXPECT_EQ(cls("in1").kind, POINTWISE);
  EXPECT_EQ(cls("in1").pass, INPUT_GRADIENT);
  EXPECT_EQ(cls("wg3").kind, DENSE);  // the kernel it computes is 3x3
  EXPECT_EQ(cls("wg3").pass, WEIGHT_GRADIENT);
  EXPECT_EQ(cls("wg1").kind, POINTWISE);
  EXPECT_EQ(cls("wg1").pass, WEIGHT_GRADIENT);
  EXPECT_EQ(cls("wgd").kind, DEPTHWISE);
  EXPECT_EQ(cls("wgd").pass, WEIGHT_GRADIENT);
  EXPECT_EQ(ConvReadName(cls("fwdd"), CHANNELS_FIRST_READ),
            "depthwise forward, channels-first read");
}

TEST(ConvClassTest, ReadsAreNamedByWhereTheChannelDimIs) {
  auto m = ParseTestModule(kText);
  ASSERT_NE(m, nullptr);
  const HloInstruction& fwd = *m->entry()->FindInstruction("fwd3");
  const Layout nchw({3, 2, 1, 0}), nhwc({1, 3, 2, 0}), chwn({0, 3, 2, 1});
  EXPECT_EQ(ClassifyRead(fwd, 0, nchw), CHANNELS_FIRST_READ);
  EXPECT_EQ(ClassifyRead(fwd, 0, nhwc), CHANNELS_LAST_READ);
  EXPECT_EQ(ClassifyRead(fwd, 0, chwn), CHANNELS_FIRST_READ);
  // The kernel's channel dim is its output feature (o, dim 0 of oi01).
  EXPECT_EQ(ClassifyRead(fwd, 1, Layout({3, 2, 1, 0})), CHANNELS_FIRST_READ);
  EXPECT_EQ(ClassifyRead(fwd, 1, Layout({0, 1, 3, 2})), CHANNELS_LAST_READ);
  // A weight gradient (fb01_io01->01bf) reads activations whose channels
  // are labelled b (dim 1), and an output gradient whose channels are o.
  const HloInstruction& wg = *m->entry()->FindInstruction("wg3");
  EXPECT_EQ(ClassifyRead(wg, 0, nhwc), CHANNELS_LAST_READ);
  EXPECT_EQ(ClassifyRead(wg, 0, chwn), CHANNELS_FIRST_READ);
  EXPECT_EQ(ClassifyRead(wg, 1, nhwc), CHANNELS_LAST_READ);
  EXPECT_EQ(ClassifyRead(wg, 1, nchw), CHANNELS_FIRST_READ);
}

}  // namespace
}  // namespace xla_layout::layout_assignment
