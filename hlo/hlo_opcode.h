// XLA's HLO opcodes: the enum, their text names, and the one table of opcode
// classes (elementwise arity, side effects, data movement, layout-preserving,
// layout-delivering, control flow) that the parser, the verifier and the
// passes ask. A class is a column of XLA_LAYOUT_HLO_OPCODES, never a switch
// elsewhere.
#ifndef HLO_HLO_OPCODE_H_
#define HLO_HLO_OPCODE_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xla_layout {

// V(enum, text, arity, classes): arity is E1 (unary elementwise), E2 (binary
// elementwise), E3 (ternary elementwise) or X (anything else); classes is a
// bitwise or of the opcode_class bits below, or 0. Copy is elementwise
// but not layout-preserving: changing the layout is what it is for.
namespace opcode_class {
enum : unsigned {
  // Operands and result share one layout: elementwise ops, map and
  // bitcast-convert (whose lanes may differ in width).
  kPreservesLayout = 1u << 0,
  // Kept without users: infeed, outfeed, send/recv and their -done forms,
  // custom-call, all-gather, all-reduce, collective-permute (and their
  // -start forms), collective-reduce, rng, rng-get-and-update-state,
  // after-all, add-dependency, opt-barrier. Not all-to-all or
  // reduce-scatter.
  kSideEffect = 1u << 1,
  // Moves elements without arithmetic, result rank = operand rank: slice,
  // dynamic-slice, pad, concatenate, reverse.
  kDataMovement = 1u << 2,
  // The result arrives in the layout the op says (as XLA's infeed shape):
  // infeed, recv, recv-done.
  kDeliversLayout = 1u << 3,
  // Called computations run as part of the caller and see its values:
  // while, conditional, call, fusion (not to_apply users like reduce or map).
  kControlFlow = 1u << 4,
  // Each result leaf is its operand's data moved without a layout change:
  // all-reduce, all-to-all, collective-permute, sort, all-gather,
  // reduce-scatter (the last two change one dim's size, not the order).
  kForwardsLayout = 1u << 5,
};
}  // namespace opcode_class

#define XLA_LAYOUT_HLO_OPCODES(V)                                             \
  V(kAbs, "abs", E1, kPreservesLayout)                                        \
  V(kAcos, "acos", E1, kPreservesLayout)                                      \
  V(kAcosh, "acosh", E1, kPreservesLayout)                                    \
  V(kAdd, "add", E2, kPreservesLayout)                                        \
  V(kAddDependency, "add-dependency", X, kSideEffect)                         \
  V(kAfterAll, "after-all", X, kSideEffect)                                   \
  V(kAllGather, "all-gather", X, kSideEffect|kForwardsLayout)                 \
  V(kAllGatherDone, "all-gather-done", X, 0)                                  \
  V(kAllGatherStart, "all-gather-start", X, kSideEffect)                      \
  V(kAllReduce, "all-reduce", X, kSideEffect|kForwardsLayout)                 \
  V(kAllReduceDone, "all-reduce-done", X, 0)                                  \
  V(kAllReduceStart, "all-reduce-start", X, kSideEffect)                      \
  V(kAllToAll, "all-to-all", X, kForwardsLayout)                              \
  V(kAnd, "and", E2, kPreservesLayout)                                        \
  V(kAsin, "asin", E1, kPreservesLayout)                                      \
  V(kAsinh, "asinh", E1, kPreservesLayout)                                    \
  V(kAsyncDone, "async-done", X, 0)                                           \
  V(kAsyncStart, "async-start", X, 0)                                         \
  V(kAsyncUpdate, "async-update", X, 0)                                       \
  V(kAtan, "atan", E1, kPreservesLayout)                                      \
  V(kAtan2, "atan2", E2, kPreservesLayout)                                    \
  V(kAtanh, "atanh", E1, kPreservesLayout)                                    \
  V(kBatchNormGrad, "batch-norm-grad", X, 0)                                  \
  V(kBatchNormInference, "batch-norm-inference", X, 0)                        \
  V(kBatchNormTraining, "batch-norm-training", X, 0)                          \
  V(kBitcast, "bitcast", X, 0)                                                \
  V(kBitcastConvert, "bitcast-convert", X, kPreservesLayout)                  \
  V(kBroadcast, "broadcast", X, 0)                                            \
  V(kCall, "call", X, kControlFlow)                                           \
  V(kCbrt, "cbrt", E1, kPreservesLayout)                                      \
  V(kCeil, "ceil", E1, kPreservesLayout)                                      \
  V(kCholesky, "cholesky", X, 0)                                              \
  V(kClamp, "clamp", E3, kPreservesLayout)                                    \
  V(kClz, "count-leading-zeros", E1, kPreservesLayout)                        \
  V(kCollectiveBroadcast, "collective-broadcast", X, 0)                       \
  V(kCollectivePermute, "collective-permute", X, kSideEffect|kForwardsLayout) \
  V(kCollectivePermuteDone, "collective-permute-done", X, 0)                  \
  V(kCollectivePermuteStart, "collective-permute-start", X, kSideEffect)      \
  V(kCollectiveReduce, "collective-reduce", X, kSideEffect)                   \
  V(kCompare, "compare", E2, kPreservesLayout)                                \
  V(kComplex, "complex", E2, kPreservesLayout)                                \
  V(kConcatenate, "concatenate", X, kDataMovement)                            \
  V(kConditional, "conditional", X, kControlFlow)                             \
  V(kConstant, "constant", X, 0)                                              \
  V(kConvert, "convert", E1, kPreservesLayout)                                \
  V(kConvolution, "convolution", X, 0)                                        \
  V(kCopy, "copy", E1, 0)                                                     \
  V(kCopyDone, "copy-done", X, 0)                                             \
  V(kCopyStart, "copy-start", X, 0)                                           \
  V(kCos, "cosine", E1, kPreservesLayout)                                     \
  V(kCosh, "cosh", E1, kPreservesLayout)                                      \
  V(kCustomCall, "custom-call", X, kSideEffect)                               \
  V(kDivide, "divide", E2, kPreservesLayout)                                  \
  V(kDomain, "domain", X, 0)                                                  \
  V(kDot, "dot", X, 0)                                                        \
  V(kDynamicReshape, "dynamic-reshape", X, 0)                                 \
  V(kDynamicSlice, "dynamic-slice", X, kDataMovement)                         \
  V(kDynamicUpdateSlice, "dynamic-update-slice", X, 0)                        \
  V(kErf, "erf", E1, kPreservesLayout)                                        \
  V(kExp, "exponential", E1, kPreservesLayout)                                \
  V(kExpm1, "exponential-minus-one", E1, kPreservesLayout)                    \
  V(kFft, "fft", X, 0)                                                        \
  V(kFloor, "floor", E1, kPreservesLayout)                                    \
  V(kFusion, "fusion", X, kControlFlow)                                       \
  V(kGather, "gather", X, 0)                                                  \
  V(kGetDimensionSize, "get-dimension-size", X, 0)                            \
  V(kGetTupleElement, "get-tuple-element", X, 0)                              \
  V(kImag, "imag", E1, kPreservesLayout)                                      \
  V(kInfeed, "infeed", X, kSideEffect|kDeliversLayout)                        \
  V(kIota, "iota", X, 0)                                                      \
  V(kIsFinite, "is-finite", E1, kPreservesLayout)                             \
  V(kLog, "log", E1, kPreservesLayout)                                        \
  V(kLog1p, "log-plus-one", E1, kPreservesLayout)                             \
  V(kLogistic, "logistic", E1, kPreservesLayout)                              \
  V(kMap, "map", X, kPreservesLayout)                                         \
  V(kMaximum, "maximum", E2, kPreservesLayout)                                \
  V(kMinimum, "minimum", E2, kPreservesLayout)                                \
  V(kMulhi, "mulhi", E2, kPreservesLayout)                                    \
  V(kMultiply, "multiply", E2, kPreservesLayout)                              \
  V(kNegate, "negate", E1, kPreservesLayout)                                  \
  V(kNot, "not", E1, kPreservesLayout)                                        \
  V(kOptimizationBarrier, "opt-barrier", X, kSideEffect)                      \
  V(kOr, "or", E2, kPreservesLayout)                                          \
  V(kOutfeed, "outfeed", X, kSideEffect)                                      \
  V(kPad, "pad", X, kDataMovement)                                            \
  V(kParameter, "parameter", X, 0)                                            \
  V(kPartitionId, "partition-id", X, 0)                                       \
  V(kPopulationCount, "popcnt", E1, kPreservesLayout)                         \
  V(kPower, "power", E2, kPreservesLayout)                                    \
  V(kRaggedAllToAll, "ragged-all-to-all", X, 0)                               \
  V(kRaggedDot, "ragged-dot", X, 0)                                           \
  V(kReal, "real", E1, kPreservesLayout)                                      \
  V(kRecv, "recv", X, kSideEffect|kDeliversLayout)                            \
  V(kRecvDone, "recv-done", X, kSideEffect|kDeliversLayout)                   \
  V(kReduce, "reduce", X, 0)                                                  \
  V(kReducePrecision, "reduce-precision", E1, kPreservesLayout)               \
  V(kReduceScatter, "reduce-scatter", X, kForwardsLayout)                     \
  V(kReduceWindow, "reduce-window", X, 0)                                     \
  V(kRemainder, "remainder", E2, kPreservesLayout)                            \
  V(kReplicaId, "replica-id", X, 0)                                           \
  V(kReshape, "reshape", X, 0)                                                \
  V(kReverse, "reverse", X, kDataMovement)                                    \
  V(kRng, "rng", X, kSideEffect)                                              \
  V(kRngBitGenerator, "rng-bit-generator", X, 0)                              \
  V(kRngGetAndUpdateState, "rng-get-and-update-state", X, kSideEffect)        \
  V(kRoundNearestAfz, "round-nearest-afz", E1, kPreservesLayout)              \
  V(kRoundNearestEven, "round-nearest-even", E1, kPreservesLayout)            \
  V(kRsqrt, "rsqrt", E1, kPreservesLayout)                                    \
  V(kScaledDot, "scaled-dot", X, 0)                                           \
  V(kScan, "scan", X, 0)                                                      \
  V(kScatter, "scatter", X, 0)                                                \
  V(kSelect, "select", E3, kPreservesLayout)                                  \
  V(kSelectAndScatter, "select-and-scatter", X, 0)                            \
  V(kSend, "send", X, kSideEffect)                                            \
  V(kSendDone, "send-done", X, kSideEffect)                                   \
  V(kSetDimensionSize, "set-dimension-size", X, 0)                            \
  V(kShiftLeft, "shift-left", E2, kPreservesLayout)                           \
  V(kShiftRightArithmetic, "shift-right-arithmetic", E2, kPreservesLayout)    \
  V(kShiftRightLogical, "shift-right-logical", E2, kPreservesLayout)          \
  V(kShuffle, "shuffle", X, 0)                                                \
  V(kSign, "sign", E1, kPreservesLayout)                                      \
  V(kSin, "sine", E1, kPreservesLayout)                                       \
  V(kSinh, "sinh", E1, kPreservesLayout)                                      \
  V(kSlice, "slice", X, kDataMovement)                                        \
  V(kSort, "sort", X, kForwardsLayout)                                        \
  V(kSqrt, "sqrt", E1, kPreservesLayout)                                      \
  V(kStochasticConvert, "stochastic-convert", E2, kPreservesLayout)           \
  V(kSubtract, "subtract", E2, kPreservesLayout)                              \
  V(kTan, "tan", E1, kPreservesLayout)                                        \
  V(kTanh, "tanh", E1, kPreservesLayout)                                      \
  V(kTopK, "topk", X, 0)                                                      \
  V(kTranspose, "transpose", X, 0)                                            \
  V(kTriangularSolve, "triangular-solve", X, 0)                               \
  V(kTuple, "tuple", X, 0)                                                    \
  V(kWhile, "while", X, kControlFlow)                                         \
  V(kXor, "xor", E2, kPreservesLayout)

// One byte: an instruction holds one beside its other small fields.
enum class HloOpcode : uint8_t {
#define XLA_LAYOUT_OPCODE_ENUM(e, text, arity, classes) e,
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
// The classes of opcode_class above, one predicate each.
bool PreservesLayout(HloOpcode opcode);
bool HasSideEffect(HloOpcode opcode);
bool IsDataMovement(HloOpcode opcode);
bool DeliversLayout(HloOpcode opcode);
bool IsControlFlow(HloOpcode opcode);
bool ForwardsLayout(HloOpcode opcode);

}  // namespace xla_layout

#endif  // HLO_HLO_OPCODE_H_
