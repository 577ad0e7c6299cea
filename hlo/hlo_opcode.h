// XLA's HLO opcodes: the enum, their text names, and the elementwise
// classification the verifier and the layout pass use.
#ifndef HLO_HLO_OPCODE_H_
#define HLO_HLO_OPCODE_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xla_layout {

// V(enum, text, kind): kind is E1 (unary elementwise), E2 (binary
// elementwise), E3 (ternary elementwise) or X (anything else).
#define XLA_LAYOUT_HLO_OPCODES(V)                                   \
  V(kAbs, "abs", E1)                                                \
  V(kAdd, "add", E2)                                                \
  V(kAddDependency, "add-dependency", X)                            \
  V(kAfterAll, "after-all", X)                                      \
  V(kAllGather, "all-gather", X)                                    \
  V(kAllGatherDone, "all-gather-done", X)                           \
  V(kAllGatherStart, "all-gather-start", X)                         \
  V(kAllReduce, "all-reduce", X)                                    \
  V(kAllReduceDone, "all-reduce-done", X)                           \
  V(kAllReduceStart, "all-reduce-start", X)                         \
  V(kAllToAll, "all-to-all", X)                                     \
  V(kAnd, "and", E2)                                                \
  V(kAsyncDone, "async-done", X)                                    \
  V(kAsyncStart, "async-start", X)                                  \
  V(kAsyncUpdate, "async-update", X)                                \
  V(kAtan2, "atan2", E2)                                            \
  V(kBatchNormGrad, "batch-norm-grad", X)                           \
  V(kBatchNormInference, "batch-norm-inference", X)                 \
  V(kBatchNormTraining, "batch-norm-training", X)                   \
  V(kBitcast, "bitcast", X)                                         \
  V(kBitcastConvert, "bitcast-convert", X)                          \
  V(kBroadcast, "broadcast", X)                                     \
  V(kCall, "call", X)                                               \
  V(kCbrt, "cbrt", E1)                                              \
  V(kCeil, "ceil", E1)                                              \
  V(kCholesky, "cholesky", X)                                       \
  V(kClamp, "clamp", E3)                                            \
  V(kClz, "count-leading-zeros", E1)                                \
  V(kCollectiveBroadcast, "collective-broadcast", X)                \
  V(kCollectivePermute, "collective-permute", X)                    \
  V(kCollectivePermuteDone, "collective-permute-done", X)           \
  V(kCollectivePermuteStart, "collective-permute-start", X)         \
  V(kCompare, "compare", E2)                                        \
  V(kComplex, "complex", E2)                                        \
  V(kConcatenate, "concatenate", X)                                 \
  V(kConditional, "conditional", X)                                 \
  V(kConstant, "constant", X)                                       \
  V(kConvert, "convert", E1)                                        \
  V(kConvolution, "convolution", X)                                 \
  V(kCopy, "copy", E1)                                              \
  V(kCopyDone, "copy-done", X)                                      \
  V(kCopyStart, "copy-start", X)                                    \
  V(kCos, "cosine", E1)                                             \
  V(kCustomCall, "custom-call", X)                                  \
  V(kDivide, "divide", E2)                                          \
  V(kDomain, "domain", X)                                           \
  V(kDot, "dot", X)                                                 \
  V(kDynamicReshape, "dynamic-reshape", X)                          \
  V(kDynamicSlice, "dynamic-slice", X)                              \
  V(kDynamicUpdateSlice, "dynamic-update-slice", X)                 \
  V(kErf, "erf", E1)                                                \
  V(kExp, "exponential", E1)                                        \
  V(kExpm1, "exponential-minus-one", E1)                            \
  V(kFft, "fft", X)                                                 \
  V(kFloor, "floor", E1)                                            \
  V(kFusion, "fusion", X)                                           \
  V(kGather, "gather", X)                                           \
  V(kGetDimensionSize, "get-dimension-size", X)                     \
  V(kGetTupleElement, "get-tuple-element", X)                       \
  V(kImag, "imag", E1)                                              \
  V(kInfeed, "infeed", X)                                           \
  V(kIota, "iota", X)                                               \
  V(kIsFinite, "is-finite", E1)                                     \
  V(kLog, "log", E1)                                                \
  V(kLog1p, "log-plus-one", E1)                                     \
  V(kLogistic, "logistic", E1)                                      \
  V(kMap, "map", X)                                                 \
  V(kMaximum, "maximum", E2)                                        \
  V(kMinimum, "minimum", E2)                                        \
  V(kMultiply, "multiply", E2)                                      \
  V(kNegate, "negate", E1)                                          \
  V(kNot, "not", E1)                                                \
  V(kOptimizationBarrier, "opt-barrier", X)                         \
  V(kOr, "or", E2)                                                  \
  V(kOutfeed, "outfeed", X)                                         \
  V(kPad, "pad", X)                                                 \
  V(kParameter, "parameter", X)                                     \
  V(kPartitionId, "partition-id", X)                                \
  V(kPopulationCount, "popcnt", E1)                                 \
  V(kPower, "power", E2)                                            \
  V(kRaggedAllToAll, "ragged-all-to-all", X)                        \
  V(kReal, "real", E1)                                              \
  V(kRecv, "recv", X)                                               \
  V(kRecvDone, "recv-done", X)                                      \
  V(kReduce, "reduce", X)                                           \
  V(kReducePrecision, "reduce-precision", E1)                       \
  V(kReduceScatter, "reduce-scatter", X)                            \
  V(kReduceWindow, "reduce-window", X)                              \
  V(kRemainder, "remainder", E2)                                    \
  V(kReplicaId, "replica-id", X)                                    \
  V(kReshape, "reshape", X)                                         \
  V(kReverse, "reverse", X)                                         \
  V(kRng, "rng", X)                                                 \
  V(kRngBitGenerator, "rng-bit-generator", X)                       \
  V(kRngGetAndUpdateState, "rng-get-and-update-state", X)           \
  V(kRoundNearestAfz, "round-nearest-afz", E1)                      \
  V(kRoundNearestEven, "round-nearest-even", E1)                    \
  V(kRsqrt, "rsqrt", E1)                                            \
  V(kScatter, "scatter", X)                                         \
  V(kSelect, "select", E3)                                          \
  V(kSelectAndScatter, "select-and-scatter", X)                     \
  V(kSend, "send", X)                                               \
  V(kSendDone, "send-done", X)                                      \
  V(kSetDimensionSize, "set-dimension-size", X)                     \
  V(kShiftLeft, "shift-left", E2)                                   \
  V(kShiftRightArithmetic, "shift-right-arithmetic", E2)            \
  V(kShiftRightLogical, "shift-right-logical", E2)                  \
  V(kSign, "sign", E1)                                              \
  V(kSin, "sine", E1)                                               \
  V(kSlice, "slice", X)                                             \
  V(kSort, "sort", X)                                               \
  V(kSqrt, "sqrt", E1)                                              \
  V(kStochasticConvert, "stochastic-convert", E2)                   \
  V(kSubtract, "subtract", E2)                                      \
  V(kTan, "tan", E1)                                                \
  V(kTanh, "tanh", E1)                                              \
  V(kTopK, "topk", X)                                               \
  V(kTranspose, "transpose", X)                                     \
  V(kTriangularSolve, "triangular-solve", X)                        \
  V(kTuple, "tuple", X)                                             \
  V(kWhile, "while", X)                                             \
  V(kXor, "xor", E2)

enum class HloOpcode {
#define XLA_LAYOUT_OPCODE_ENUM(e, text, kind) e,
  XLA_LAYOUT_HLO_OPCODES(XLA_LAYOUT_OPCODE_ENUM)
#undef XLA_LAYOUT_OPCODE_ENUM
};

absl::string_view HloOpcodeString(HloOpcode opcode);
// Fails with "unknown opcode 'frob'" for names outside XLA's set.
absl::StatusOr<HloOpcode> StringToHloOpcode(absl::string_view name);
// Elementwise ops: every operand and the result have the same dims.
bool IsElementwise(HloOpcode opcode);
// Number of operands of an elementwise op (1, 2 or 3), else 0.
int ElementwiseArity(HloOpcode opcode);
// Ops whose called computations run as part of the caller's control flow
// and see its values: while, conditional, call, fusion (not to_apply users
// such as reduce or map).
bool IsControlFlow(HloOpcode opcode);

}  // namespace xla_layout

#endif  // HLO_HLO_OPCODE_H_
