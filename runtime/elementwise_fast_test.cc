#include "runtime/elementwise_fast.h"

#include <algorithm>
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_verifier.h"
#include "runtime/executor.h"
#include "runtime/logical.h"
#include "runtime/op_test_util.h"
#include "xla_layout/primitive_type.h"
#include "xla_layout/subbyte.h"
#include "xla_layout/test_util.h"

namespace xla_layout::runtime {
namespace {

// The outputs of `text` on `inputs` with the fast paths on or off.
absl::StatusOr<std::vector<LogicalArray>> Run(const std::string& text,
                                              const std::vector<LogicalArray>& inputs, bool fast) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text, "t.hlo");
  if (!m.ok()) return m.status();
  absl::Status v = VerifyModule(**m);
  if (!v.ok()) return v;
  SetFastPathsEnabledForTesting(fast);
  absl::StatusOr<std::vector<LogicalArray>> out = RunLogical(**m, inputs);
  SetFastPathsEnabledForTesting(true);
  return out;
}

// "" when the fast and the generic paths give the same bits for every
// output; otherwise the first element that differs, both ways.
std::string Disagreement(const std::string& text, const std::vector<LogicalArray>& inputs) {
  absl::StatusOr<std::vector<LogicalArray>> generic = Run(text, inputs, false);
  absl::StatusOr<std::vector<LogicalArray>> fast = Run(text, inputs, true);
  if (!generic.ok()) return absl::StrCat("generic path: ", generic.status().message());
  if (!fast.ok()) return absl::StrCat("fast path: ", fast.status().message());
  for (size_t k = 0; k < generic->size(); ++k) {
    const std::optional<int64_t> diff = FirstDifference((*generic)[k], (*fast)[k]);
    if (diff) {
      return absl::StrCat("output ", k, " element ", *diff, ": generic ",
                          FormatElement((*generic)[k], *diff, true), ", fast ",
                          FormatElement((*fast)[k], *diff, true));
    }
  }
  return "";
}

// --- Random cases ------------------------------------------------------------

template <typename T>
T Pick(std::mt19937_64& rng, const std::vector<T>& from) {
  return from[rng() % from.size()];
}

// Bits of one element: NaNs with payloads (quiet and signaling, both
// signs), zeros, infinities, subnormals, extremes, ordinary values and
// random bits.
uint64_t ElementBits(PrimitiveType t, std::mt19937_64& rng) {
  const int r = static_cast<int>(rng() % 10);
  if (DomainOf(t) == Domain::kFloat) {
    static const std::vector<uint64_t> f32 = {
        0x7FC00000, 0xFFC00000, 0x7FC12345, 0xFFE00001, 0x7F800001, 0xFF80ABCD, 0x7FA00000,
        0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x00000001, 0x80000001, 0x007FFFFF,
        0x807FFFFF, 0x00800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000, 0xBF800000, 0x42B17218};
    static const std::vector<uint64_t> f64 = {
        0x7FF8000000000000, 0xFFF8000000000001, 0x7FF0000000000001, 0xFFF4000000ABCDEF,
        0x0000000000000000, 0x8000000000000000, 0x7FF0000000000000, 0xFFF0000000000000,
        0x0000000000000001, 0x800FFFFFFFFFFFFF, 0x0010000000000000, 0x7FEFFFFFFFFFFFFF,
        0x3FF0000000000000, 0xBFF0000000000001, 0x3690000000000000, 0x47EFFFFFE0000000};
    static const std::vector<uint64_t> h16 = {0x7E00, 0xFE01, 0x7C01, 0xFD55, 0x0000, 0x8000,
                                              0x7C00, 0xFC00, 0x0001, 0x83FF, 0x0400, 0x7BFF,
                                              0x3C00, 0xBC01, 0x7FC1, 0xFF81, 0x7F80, 0x0080};
    if (r < 4) {
      const uint64_t b = t == F32 ? Pick(rng, f32) : t == F64 ? Pick(rng, f64) : Pick(rng, h16);
      return b;
    }
    if (r < 7) return rng() & (TypeBits(t) == 64 ? ~uint64_t{0} : (uint64_t{1} << TypeBits(t)) - 1);
    Num v;
    v.f = static_cast<double>(static_cast<int64_t>(rng() % 2001) - 1000) / 64.0;
    return ToBits(v, t);
  }
  if (t == PRED) return rng() & 1;
  Num v;
  v.i = r < 5 ? static_cast<int64_t>(rng() % 17) - 8 : static_cast<int64_t>(rng());
  if (DomainOf(t) == Domain::kUnsigned && r < 5) v.i = rng() % 17;
  return ToBits(v, t);
}

// An array of `type` and `dims`; where `like` is given, a quarter of the
// elements copy its bits (ties for compare, maximum and minimum) and some
// floats its bits with the sign flipped (-0 against +0).
LogicalArray SpecialArray(PrimitiveType type, absl::Span<const int64_t> dims, std::mt19937_64& rng,
                          const LogicalArray* like = nullptr) {
  LogicalArray a = *RandomLogicalArray(Shape(type, dims), rng);
  const size_t width = std::max(1, TypeBits(type) / 8);
  const bool same =
      like != nullptr && like->shape.element_type() == type && like->bytes.size() == a.bytes.size();
  for (size_t k = 0; k * width < a.bytes.size(); ++k) {
    uint64_t bits = ElementBits(type, rng);
    if (same && rng() % 4 == 0) {
      bits = 0;
      std::memcpy(&bits, like->bytes.data() + k * width, width);
      if (DomainOf(type) == Domain::kFloat && rng() % 2)
        bits ^= uint64_t{1} << (TypeBits(type) - 1);
    }
    if (DomainOf(type) == Domain::kSigned && TypeBits(type) < 8) {
      bits = static_cast<uint64_t>(SignExtend(bits, TypeBits(type)));
    }
    std::memcpy(a.bytes.data() + k * width, &bits, width);
  }
  return a;
}

// Dims and a layout for them: the default, a permutation, tiles that leave
// no padding (the dims are made multiples of them), or any valid layout
// (padding, '*'); E(4) on s4 and u4 now and then.
struct Placement {
  std::vector<int64_t> dims;
  Layout layout;
};

std::vector<int64_t> Permutation(int rank, std::mt19937_64& rng) {
  std::vector<int64_t> m2m(rank);
  for (int d = 0; d < rank; ++d) m2m[d] = rank - 1 - d;
  if (rng() % 2) std::shuffle(m2m.begin(), m2m.end(), rng);
  return m2m;
}

Layout LayoutFor(absl::Span<const int64_t> dims, PrimitiveType type, int kind,
                 std::mt19937_64& rng) {
  const int rank = static_cast<int>(dims.size());
  Layout layout;
  if (kind == 3) {
    RandomShapeOptions options;
    options.allow_attributes = false;
    options.max_slots = 1 << 14;
    layout = RandomLayoutFor(rng, Shape(type, dims), options);
  } else {
    layout = Layout(Permutation(rank, rng));
  }
  if ((type == S4 || type == U4) && rng() % 2) layout.set_element_size_in_bits(4);
  return layout;
}

Placement RandomPlacement(PrimitiveType type, std::mt19937_64& rng) {
  Placement p;
  const int rank = static_cast<int>(rng() % 4);
  static const std::vector<int64_t> sizes = {1, 2, 3, 4, 5, 7, 8, 16, 33};
  for (int d = 0; d < rank; ++d) p.dims.push_back(Pick(rng, sizes));
  if (rank > 0 && rng() % 4 == 0) p.dims[rng() % rank] = 150 + rng() % 200;  // several chunks
  const int kind = static_cast<int>(rng() % 4);
  if (kind == 2 && rank > 0) {
    // Tiles that divide their dims: no padding, elements reordered.
    const std::vector<int64_t> m2m = Permutation(rank, rng);
    std::vector<int64_t> tile;
    const int tiled = std::min(rank, 2);
    for (int j = tiled - 1; j >= 0; --j) {
      const int64_t t = Pick(rng, std::vector<int64_t>{1, 2, 4});
      tile.push_back(t);
      p.dims[m2m[j]] = t * (1 + static_cast<int64_t>(rng() % 4));
    }
    p.layout = Layout(m2m);
    p.layout.add_tile(Tile(tile));
    if ((type == S4 || type == U4) && rng() % 2) p.layout.set_element_size_in_bits(4);
    return p;
  }
  p.layout = LayoutFor(p.dims, type, kind, rng);
  return p;
}

std::string ShapeText(PrimitiveType type, absl::Span<const int64_t> dims, const Layout& layout) {
  return absl::StrCat(PrimitiveTypeName(type), "[", absl::StrJoin(dims, ","), "]",
                      layout.ToString());
}

// The layout of an operand or result of another type in the same place:
// the same order and tiles, the element size only on s4 and u4.
Layout Retyped(const Layout& layout, PrimitiveType type) {
  Layout l = layout;
  if (type != S4 && type != U4) l.set_element_size_in_bits(0);
  return l;
}

struct Case {
  std::string text;
  std::vector<LogicalArray> inputs;
};

const std::vector<HloOpcode> kUnary = {HloOpcode::kNegate,
                                       HloOpcode::kAbs,
                                       HloOpcode::kSign,
                                       HloOpcode::kNot,
                                       HloOpcode::kPopulationCount,
                                       HloOpcode::kClz,
                                       HloOpcode::kExp,
                                       HloOpcode::kExpm1,
                                       HloOpcode::kLog,
                                       HloOpcode::kLog1p,
                                       HloOpcode::kTanh,
                                       HloOpcode::kSqrt,
                                       HloOpcode::kRsqrt,
                                       HloOpcode::kFloor,
                                       HloOpcode::kCeil,
                                       HloOpcode::kCos,
                                       HloOpcode::kSin,
                                       HloOpcode::kLogistic,
                                       HloOpcode::kRoundNearestAfz,
                                       HloOpcode::kRoundNearestEven,
                                       HloOpcode::kCbrt,
                                       HloOpcode::kIsFinite};
const std::vector<HloOpcode> kBinary = {HloOpcode::kAdd,
                                        HloOpcode::kSubtract,
                                        HloOpcode::kMultiply,
                                        HloOpcode::kDivide,
                                        HloOpcode::kRemainder,
                                        HloOpcode::kPower,
                                        HloOpcode::kMaximum,
                                        HloOpcode::kMinimum,
                                        HloOpcode::kAtan2,
                                        HloOpcode::kAnd,
                                        HloOpcode::kOr,
                                        HloOpcode::kXor,
                                        HloOpcode::kShiftLeft,
                                        HloOpcode::kShiftRightLogical,
                                        HloOpcode::kShiftRightArithmetic};
const std::vector<PrimitiveType> kTypes = {F32, F32, F32, F64, BF16, F16, S8, S16, S32,
                                           S64, U8,  U16, U32, U64,  S4,  U4, PRED};

// One elementwise instruction (unary, binary, compare, select, clamp or
// convert) on parameters with special values; one layout for every operand
// and the result two times in three, else a layout each. Select's predicate
// and clamp's bounds are scalars now and then.
Case RandomElementwiseCase(std::mt19937_64& rng) {
  const PrimitiveType type = Pick(rng, kTypes);
  const int kind = static_cast<int>(rng() % 6);
  HloOpcode op = HloOpcode::kConvert;
  const std::vector<HloOpcode> ops = kind == 0 ? kUnary : kBinary;
  if (kind <= 1) {
    do {
      op = Pick(rng, ops);
    } while (!CheckElementwise(op, type).ok());
  }
  if (kind == 2) op = HloOpcode::kCompare;
  if (kind == 3) op = HloOpcode::kSelect;
  if (kind == 4) op = HloOpcode::kClamp;
  const Placement p = RandomPlacement(type, rng);
  const bool shared = rng() % 3 != 0;
  auto layout = [&](PrimitiveType t) {
    return shared ? Retyped(p.layout, t) : LayoutFor(p.dims, t, 1 + 2 * (rng() % 2), rng);
  };
  const int arity = kind == 0 || kind == 5 ? 1 : kind <= 2 ? 2 : 3;
  PrimitiveType out = type;
  if (op == HloOpcode::kCompare || op == HloOpcode::kIsFinite) out = PRED;
  if (kind == 5) out = Pick(rng, kTypes);
  Case c;
  std::string body;
  std::vector<std::string> names;
  for (int j = 0; j < arity; ++j) {
    const PrimitiveType t = kind == 3 && j == 0 ? PRED : type;
    const bool scalar =
        p.dims.size() > 0 && ((kind == 3 && j == 0) || (kind == 4 && j != 1)) && rng() % 3 == 0;
    const std::vector<int64_t> dims = scalar ? std::vector<int64_t>{} : p.dims;
    const LogicalArray* like = c.inputs.empty() ? nullptr : &c.inputs.back();
    c.inputs.push_back(SpecialArray(t, dims, rng, like));
    const Layout l = scalar ? Layout() : layout(t);
    absl::StrAppend(&body, "  p", j, " = ", ShapeText(t, dims, l), " parameter(", j, ")\n");
    names.push_back(absl::StrCat("p", j));
  }
  std::string attrs;
  if (op == HloOpcode::kCompare) {
    attrs = absl::StrCat(", direction=",
                         Pick(rng, std::vector<std::string>{"EQ", "NE", "LT", "LE", "GT", "GE"}));
    if (DomainOf(type) == Domain::kFloat && rng() % 4 == 0) attrs += ", type=TOTALORDER";
  }
  absl::StrAppend(&body, "  ROOT r = ", ShapeText(out, p.dims, layout(out)), " ",
                  HloOpcodeString(op), "(", absl::StrJoin(names, ", "), ")", attrs, "\n");
  c.text = absl::StrCat("HloModule t\n\nENTRY e {\n", body, "}\n");
  return c;
}

// A reduce over a random subset of dims (in any order) of one input, or of
// two (variadic, each in its own layout); to_apply one binary op with its
// parameters either way round, or (program) an op with a constant.
Case RandomReduceCase(std::mt19937_64& rng) {
  const PrimitiveType type =
      Pick(rng, std::vector<PrimitiveType>{F32, F32, F64, BF16, F16, S32, U8, PRED});
  Placement p;
  do {
    p = RandomPlacement(type, rng);
  } while (p.dims.empty());
  const int rank = static_cast<int>(p.dims.size());
  std::vector<int64_t> reduced, kept;
  for (int64_t d = 0; d < rank; ++d) (rng() % 2 ? reduced : kept).push_back(d);
  std::shuffle(reduced.begin(), reduced.end(), rng);
  std::vector<int64_t> out_dims;
  for (int64_t d : kept) out_dims.push_back(p.dims[d]);
  const bool variadic = rng() % 4 == 0;
  const bool with_constant = !variadic && rng() % 4 == 0;
  std::vector<HloOpcode> ops = {HloOpcode::kAdd,     HloOpcode::kMultiply, HloOpcode::kMaximum,
                                HloOpcode::kMinimum, HloOpcode::kSubtract, HloOpcode::kDivide,
                                HloOpcode::kAnd,     HloOpcode::kOr};
  HloOpcode op;
  do {
    op = Pick(rng, ops);
  } while (!CheckElementwise(op, type).ok());
  const std::string t = PrimitiveTypeName(type);
  const std::string opname(HloOpcodeString(op));
  std::string red;
  if (variadic) {
    red = absl::StrCat("red {\n  x0 = ", t, "[] parameter(0)\n  x1 = ", t,
                       "[] parameter(1)\n  y0 = ", t, "[] parameter(2)\n  y1 = ", t,
                       "[] parameter(3)\n  a = ", t, "[] ", opname, "(x0, y0)\n  b = ", t, "[] ",
                       opname, "(y1, x1)\n  ROOT r = (", t, "[], ", t, "[]) tuple(a, b)\n}\n\n");
  } else {
    const std::string args = rng() % 2 ? "x, y" : "y, x";
    red = absl::StrCat("red {\n  x = ", t, "[] parameter(0)\n  y = ", t, "[] parameter(1)\n");
    if (with_constant) {
      absl::StrAppend(&red, "  c = ", t, "[] constant(1)\n  z = ", t, "[] ", opname, "(", args,
                      ")\n  ROOT r = ", t, "[] ", opname, "(z, c)\n}\n\n");
    } else {
      absl::StrAppend(&red, "  ROOT r = ", t, "[] ", opname, "(", args, ")\n}\n\n");
    }
  }
  Case c;
  const int n = variadic ? 2 : 1;
  std::string body;
  std::vector<std::string> names, outs;
  for (int k = 0; k < n; ++k) {
    const Layout l = k == 0 ? p.layout : LayoutFor(p.dims, type, 1 + 2 * (rng() % 2), rng);
    c.inputs.push_back(SpecialArray(type, p.dims, rng));
    absl::StrAppend(&body, "  p", k, " = ", ShapeText(type, p.dims, l), " parameter(", k, ")\n");
    names.push_back(absl::StrCat("p", k));
    outs.push_back(ShapeText(type, out_dims, LayoutFor(out_dims, type, rng() % 4, rng)));
  }
  for (int k = 0; k < n; ++k) {
    c.inputs.push_back(SpecialArray(type, {}, rng));
    absl::StrAppend(&body, "  i", k, " = ", t, "[] parameter(", n + k, ")\n");
    names.push_back(absl::StrCat("i", k));
  }
  const std::string out = n == 1 ? outs[0] : absl::StrCat("(", absl::StrJoin(outs, ", "), ")");
  absl::StrAppend(&body, "  ROOT r = ", out, " reduce(", absl::StrJoin(names, ", "),
                  "), dimensions={", absl::StrJoin(reduced, ","), "}, to_apply=red\n");
  c.text = absl::StrCat("HloModule t\n\n", red, "ENTRY e {\n", body, "}\n");
  return c;
}

// A broadcast of an operand of any type and placement into a result of
// rank up to 4 in its own placement: the operand's dims in random positions
// (in order, as XLA requires), the new dims of random sizes.
Case RandomBroadcastCase(std::mt19937_64& rng) {
  const PrimitiveType type =
      Pick(rng, std::vector<PrimitiveType>{F32, F32, F64, BF16, F16, S32, U8, PRED, S4, S64});
  const Placement p = RandomPlacement(type, rng);
  const int in_rank = static_cast<int>(p.dims.size());
  const int rank = in_rank + static_cast<int>(rng() % (5 - std::min(in_rank, 3)));
  std::vector<int64_t> positions(rank);
  for (int d = 0; d < rank; ++d) positions[d] = d;
  std::shuffle(positions.begin(), positions.end(), rng);
  positions.resize(in_rank);
  std::sort(positions.begin(), positions.end());
  static const std::vector<int64_t> sizes = {1, 2, 3, 8, 16, 17};
  std::vector<int64_t> out_dims(rank);
  for (int d = 0; d < rank; ++d) out_dims[d] = Pick(rng, sizes);
  for (int k = 0; k < in_rank; ++k) out_dims[positions[k]] = p.dims[k];
  Placement out;
  if (rng() % 3 == 0 && rank > 0) {
    // A tiled result (padding where the tile does not divide).
    out.layout = Layout(Permutation(rank, rng));
    out.layout.add_tile(Tile(std::vector<int64_t>{Pick(rng, std::vector<int64_t>{1, 2, 4, 8})}));
  } else {
    out.layout = LayoutFor(out_dims, type, static_cast<int>(rng() % 4), rng);
  }
  Case c;
  c.inputs.push_back(SpecialArray(type, p.dims, rng));
  c.text = absl::StrCat("HloModule t\n\nENTRY e {\n  p0 = ", ShapeText(type, p.dims, p.layout),
                        " parameter(0)\n  ROOT r = ", ShapeText(type, out_dims, out.layout),
                        " broadcast(p0), dimensions={", absl::StrJoin(positions, ","), "}\n}\n");
  return c;
}

// --- Tests -------------------------------------------------------------------

TEST(ElementwiseFastPropertyTest, ElementwiseGivesTheGenericBits) {
  const FastPathCounts before = FastPathCountsForTesting();
  std::mt19937_64 rng(7);
  for (int i = 0; i < 3000; ++i) {
    const Case c = RandomElementwiseCase(rng);
    ASSERT_EQ(Disagreement(c.text, c.inputs), "") << "case " << i << "\n" << c.text;
  }
  const FastPathCounts after = FastPathCountsForTesting();
  std::cout << "typed loops: " << after.elementwise_typed - before.elementwise_typed
            << ", Num loops: " << after.elementwise_num - before.elementwise_num << "\n";
  // Both fast loops ran often: the layouts drawn share slots often enough.
  EXPECT_GT(after.elementwise_typed - before.elementwise_typed, 800);
  EXPECT_GT(after.elementwise_num - before.elementwise_num, 400);
}

TEST(ElementwiseFastPropertyTest, ReduceGivesTheGenericBits) {
  const FastPathCounts before = FastPathCountsForTesting();
  std::mt19937_64 rng(11);
  for (int i = 0; i < 1500; ++i) {
    const Case c = RandomReduceCase(rng);
    ASSERT_EQ(Disagreement(c.text, c.inputs), "") << "case " << i << "\n" << c.text;
  }
  const FastPathCounts after = FastPathCountsForTesting();
  std::cout << "typed reduces: " << after.reduce_typed - before.reduce_typed
            << ", program reduces: " << after.reduce_program - before.reduce_program << "\n";
  EXPECT_GT(after.reduce_typed - before.reduce_typed, 400);
  EXPECT_GT(after.reduce_program - before.reduce_program, 400);
}

TEST(ElementwiseFastPropertyTest, BroadcastGivesTheGenericBits) {
  const FastPathCounts before = FastPathCountsForTesting();
  std::mt19937_64 rng(13);
  for (int i = 0; i < 1500; ++i) {
    const Case c = RandomBroadcastCase(rng);
    ASSERT_EQ(Disagreement(c.text, c.inputs), "") << "case " << i << "\n" << c.text;
  }
  const int64_t ran = FastPathCountsForTesting().broadcast - before.broadcast;
  std::cout << "fast broadcasts: " << ran << "\n";
  EXPECT_GT(ran, 600);
}

// --- Hand-computed cases -------------------------------------------------------

// The outputs of a module with no parameters, as Eval gives them, when the
// fast and the generic paths agree; otherwise both.
std::string EvalBoth(const std::string& body, const std::string& computations = "") {
  SetFastPathsEnabledForTesting(false);
  const std::string generic = Eval(body, computations);
  SetFastPathsEnabledForTesting(true);
  const std::string fast = Eval(body, computations);
  return fast == generic ? fast : absl::StrCat("fast: ", fast, "; generic: ", generic);
}

int64_t TypedRuns() { return FastPathCountsForTesting().elementwise_typed; }

TEST(ElementwiseFastTest, FloatLoopsKeepTheTiesAndNaNsOfElementC) {
  const int64_t before = TypedRuns();
  // Maximum and minimum give the second operand on ties (-0 against +0) and
  // the default NaN for any NaN operand.
  EXPECT_EQ(EvalBoth("  a = f32[4] constant({-0, 0, 1, nan})\n"
                     "  b = f32[4] constant({0, -0, nan, 2})\n"
                     "  x = f32[4] maximum(a, b)\n  n = f32[4] minimum(a, b)\n"
                     "  ROOT t = (f32[4], f32[4]) tuple(x, n)\n"),
            "f32[4] {0, -0, nan, nan} | f32[4] {0, -0, nan, nan}");
  EXPECT_EQ(TypedRuns() - before, 2);
}

TEST(ElementwiseFastTest, HalfTypesRoundOnceFromTheDouble) {
  // bf16: 1 + 2^-8 is a tie and stays 1 (even); 1 + 3 * 2^-8 goes up to
  // 1 + 2^-6; 2^127 * 4 is past the largest bf16.
  EXPECT_EQ(EvalBoth("  a = bf16[3] constant({1, 1, 1.70141183e+38})\n"
                     "  b = bf16[3] constant({0.00390625, 0.01171875, 4})\n"
                     "  s = bf16[2] slice(a), slice={[0:2]}\n"
                     "  t = bf16[2] slice(b), slice={[0:2]}\n"
                     "  x = bf16[2] add(s, t)\n  m = bf16[3] multiply(a, b)\n"
                     "  ROOT r = (bf16[2], bf16[3]) tuple(x, m)\n"),
            "bf16[2] {1, 1.0156} | bf16[3] {0.0039062, 0.011719, inf}");
  // f16: 65504 + 8 rounds back to 65504; 65504 + 16 is the tie with 65536,
  // which is past the largest f16 (inf); 2^-14 - 2^-15 is the subnormal
  // 2^-15.
  EXPECT_EQ(EvalBoth("  a = f16[3] constant({65504, 65504, 6.103515625e-05})\n"
                     "  b = f16[3] constant({8, 16, -3.0517578125e-05})\n"
                     "  ROOT x = f16[3] add(a, b)\n"),
            "f16[3] {65504, inf, 3.0518e-05}");
}

TEST(ElementwiseFastTest, IntegerLoopsWrapAndCompareByDomain) {
  const int64_t before = TypedRuns();
  EXPECT_EQ(EvalBoth("  a = s8[2] constant({127, -128})\n  b = s8[2] constant({1, -1})\n"
                     "  ROOT x = s8[2] add(a, b)\n"),
            "s8[2] {-128, 127}");
  // 4000000000 is above 2^31: unsigned order, not the sign of its bits.
  EXPECT_EQ(EvalBoth("  a = u32[2] constant({4000000000, 1})\n  b = u32[2] constant({1, 2})\n"
                     "  x = u32[2] maximum(a, b)\n"
                     "  c = pred[2] compare(a, b), direction=GT\n"
                     "  ROOT t = (u32[2], pred[2]) tuple(x, c)\n"),
            "u32[2] {4000000000, 2} | pred[2] {true, false}");
  // A scalar predicate selects whole arrays.
  EXPECT_EQ(EvalBoth("  p = pred[] constant(false)\n  a = s64[2] constant({1, 2})\n"
                     "  b = s64[2] constant({-3, -4})\n  ROOT x = s64[2] select(p, a, b)\n"),
            "s64[2] {-3, -4}");
  EXPECT_EQ(TypedRuns() - before, 4);
}

TEST(ElementwiseFastTest, SlotsAreWalkedOnlyWhenEveryLayoutPlacesThemAlike) {
  const std::string ab =
      "  a = f32[2,3]{0,1} constant({{1, 2, 3}, {4, 5, 6}})\n"
      "  b = f32[2,3]{0,1} constant({{10, 20, 30}, {40, 50, 60}})\n";
  int64_t before = TypedRuns();
  EXPECT_EQ(EvalBoth(ab + "  ROOT x = f32[2,3]{0,1} subtract(b, a)\n"),
            "f32[2,3] {9, 18, 27, 36, 45, 54}");
  EXPECT_EQ(TypedRuns() - before, 1);
  // Tiles that divide the dims reorder elements without padding.
  before = TypedRuns();
  EXPECT_EQ(EvalBoth("  a = f32[2,4]{1,0:T(2,2)} constant({{1, 2, 3, 4}, {5, 6, 7, 8}})\n"
                     "  ROOT x = f32[2,4]{1,0:T(2,2)} negate(a)\n"),
            "f32[2,4] {-1, -2, -3, -4, -5, -6, -7, -8}");
  EXPECT_EQ(TypedRuns() - before, 1);
  // A result in another order, or tiles that pad, take the logical walk.
  before = TypedRuns();
  EXPECT_EQ(EvalBoth(ab + "  ROOT x = f32[2,3]{1,0} subtract(b, a)\n"),
            "f32[2,3] {9, 18, 27, 36, 45, 54}");
  EXPECT_EQ(EvalBoth("  a = f32[2,3]{1,0:T(2,2)} constant({{1, 2, 3}, {4, 5, 6}})\n"
                     "  ROOT x = f32[2,3]{1,0:T(2,2)} negate(a)\n"),
            "f32[2,3] {-1, -2, -3, -4, -5, -6}");
  EXPECT_EQ(TypedRuns() - before, 0);
}

constexpr char kAddF32[] =
    "add {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
    "  ROOT r = f32[] add(x, y)\n}\n\n";

TEST(ElementwiseFastTest, ReduceKeepsEachOutputsOrderOfCombination) {
  // Columns summed top to bottom in f32, rounding at each step: 1e8 + 1 is
  // 1e8 again, so column 0 ends at 1 and column 1 at 0 (another order
  // would not). Row-major input: the columns run side by side; column-major:
  // one after the other. Both must give the same.
  const std::string rows = "{{1e8, 1}, {1, 1}, {-1e8, 1e8}, {1, -1e8}}";
  for (const char* layout : {"{1,0}", "{0,1}"}) {
    SCOPED_TRACE(layout);
    EXPECT_EQ(
        EvalBoth(absl::StrCat("  a = f32[4,2]", layout, " constant(", rows,
                              ")\n"
                              "  z = f32[] constant(0)\n"
                              "  ROOT r = f32[2] reduce(a, z), dimensions={0}, to_apply=add\n"),
                 kAddF32),
        "f32[2] {1, 0}");
  }
  // bf16 rounds after every step: 1 + 2^-8 is 1 twice over.
  EXPECT_EQ(EvalBoth("  a = bf16[3] constant({1, 0.00390625, 0.00390625})\n"
                     "  z = bf16[] constant(0)\n"
                     "  ROOT r = bf16[] reduce(a, z), dimensions={0}, to_apply=add\n",
                     "add {\n  x = bf16[] parameter(0)\n  y = bf16[] parameter(1)\n"
                     "  ROOT r = bf16[] add(x, y)\n}\n\n"),
            "bf16[] {1}");
}

TEST(ElementwiseFastTest, ReduceTakesToApplysParametersInItsOrder) {
  // maximum(acc, x) of +0 and -0 gives x (-0); maximum(x, acc) gives acc.
  const std::string body =
      "  a = f32[1] constant({-0})\n  z = f32[] constant(0)\n"
      "  ROOT r = f32[] reduce(a, z), dimensions={0}, to_apply=mx\n";
  const int64_t before = FastPathCountsForTesting().reduce_typed;
  EXPECT_EQ(EvalBoth(body,
                     "mx {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
                     "  ROOT r = f32[] maximum(x, y)\n}\n\n"),
            "f32[] {-0}");
  EXPECT_EQ(EvalBoth(body,
                     "mx {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
                     "  ROOT r = f32[] maximum(y, x)\n}\n\n"),
            "f32[] {0}");
  EXPECT_EQ(FastPathCountsForTesting().reduce_typed - before, 2);
}

TEST(ElementwiseFastTest, ReduceRunsAnyOtherComputationPerElement) {
  // (acc + x) * 2 over 1, 2, 3 from 0: 2, 8, 22.
  const int64_t before = FastPathCountsForTesting().reduce_program;
  EXPECT_EQ(EvalBoth("  a = f32[3] constant({1, 2, 3})\n  z = f32[] constant(0)\n"
                     "  ROOT r = f32[] reduce(a, z), dimensions={0}, to_apply=f\n",
                     "f {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
                     "  s = f32[] add(x, y)\n  c = f32[] constant(2)\n"
                     "  ROOT r = f32[] multiply(s, c)\n}\n\n"),
            "f32[] {22}");
  EXPECT_EQ(FastPathCountsForTesting().reduce_program - before, 1);
}

}  // namespace
}  // namespace xla_layout::runtime
