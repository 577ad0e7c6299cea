#include "hlo/hlo_opcode.h"

#include "gtest/gtest.h"

namespace xla_layout {
namespace {

TEST(HloOpcodeTest, NamesRoundTrip) {
  EXPECT_EQ(*StringToHloOpcode("get-tuple-element"), HloOpcode::kGetTupleElement);
  EXPECT_EQ(HloOpcodeString(HloOpcode::kDynamicUpdateSlice), "dynamic-update-slice");
  EXPECT_FALSE(StringToHloOpcode("frobnicate").ok());
  EXPECT_EQ(ElementwiseArity(HloOpcode::kSelect), 3);
  EXPECT_FALSE(IsElementwise(HloOpcode::kDot));
}

TEST(HloOpcodeTest, ClassesComeFromOneTable) {
  // Layout-preserving: elementwise ops, map and bitcast-convert; a copy is
  // elementwise but exists to change the layout.
  EXPECT_TRUE(PreservesLayout(HloOpcode::kAdd));
  EXPECT_TRUE(PreservesLayout(HloOpcode::kConvert));
  EXPECT_TRUE(PreservesLayout(HloOpcode::kMap));
  EXPECT_TRUE(PreservesLayout(HloOpcode::kBitcastConvert));
  EXPECT_TRUE(IsElementwise(HloOpcode::kCopy));
  EXPECT_FALSE(PreservesLayout(HloOpcode::kCopy));
  EXPECT_FALSE(PreservesLayout(HloOpcode::kTranspose));

  EXPECT_TRUE(HasSideEffect(HloOpcode::kInfeed));
  EXPECT_TRUE(HasSideEffect(HloOpcode::kCustomCall));
  EXPECT_TRUE(HasSideEffect(HloOpcode::kAllReduce));
  EXPECT_FALSE(HasSideEffect(HloOpcode::kAdd));

  for (HloOpcode op : {HloOpcode::kSlice, HloOpcode::kDynamicSlice, HloOpcode::kPad,
                       HloOpcode::kConcatenate, HloOpcode::kReverse}) {
    EXPECT_TRUE(IsDataMovement(op)) << HloOpcodeString(op);
  }
  EXPECT_FALSE(IsDataMovement(HloOpcode::kDynamicUpdateSlice));

  EXPECT_TRUE(DeliversLayout(HloOpcode::kInfeed));
  EXPECT_TRUE(DeliversLayout(HloOpcode::kRecvDone));
  EXPECT_FALSE(DeliversLayout(HloOpcode::kOutfeed));

  for (HloOpcode op : {HloOpcode::kWhile, HloOpcode::kConditional, HloOpcode::kCall,
                       HloOpcode::kFusion}) {
    EXPECT_TRUE(IsControlFlow(op)) << HloOpcodeString(op);
  }
  EXPECT_FALSE(IsControlFlow(HloOpcode::kReduce));

  for (HloOpcode op : {HloOpcode::kAllReduce, HloOpcode::kAllToAll, HloOpcode::kSort,
                       HloOpcode::kCollectivePermute, HloOpcode::kAllGather,
                       HloOpcode::kReduceScatter}) {
    EXPECT_TRUE(ForwardsLayout(op)) << HloOpcodeString(op);
  }
  EXPECT_TRUE(HasSideEffect(HloOpcode::kAllReduce));  // both classes
  EXPECT_FALSE(ForwardsLayout(HloOpcode::kReduce));
}

}  // namespace
}  // namespace xla_layout
