#include "runtime/elementwise_fast.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "runtime/fast_element.h"

namespace xla_layout::runtime {
namespace {

std::atomic<bool> fast_paths_enabled{true};
std::atomic<int64_t> fast_path_counts[static_cast<int>(FastPath::kCount)];

// Whether `a` and `b` put every logical element in the same slot and have
// no padding slot: then slot k of each holds the same element.
bool SameSlots(const ArrayInfo& a, const ArrayInfo& b) {
  if (a.tiled().slot_count() != a.element_count() || b.tiled().slot_count() != b.element_count() ||
      !std::equal(a.dims().begin(), a.dims().end(), b.dims().begin(), b.dims().end())) {
    return false;
  }
  if (a.row_major_dense() && b.row_major_dense()) return true;
  if (a.separable() && b.separable()) {
    if (a.origin() != b.origin()) return false;
    for (int d = 0; d < a.rank(); ++d) {
      for (int64_t x = 0; x < a.dims()[d]; ++x) {
        if (a.DimOffset(d, x) != b.DimOffset(d, x)) return false;
      }
    }
    return true;
  }
  const Layout& la = a.shape().layout();
  const Layout& lb = b.shape().layout();
  return std::equal(la.minor_to_major().begin(), la.minor_to_major().end(),
                    lb.minor_to_major().begin(), lb.minor_to_major().end()) &&
         la.tiles() == lb.tiles();
}

// One operand of a linear walk: slot k, or its one slot for a broadcast
// scalar.
struct Source {
  const Value* value;
  bool scalar;
  int64_t Slot(int64_t k) const { return scalar ? value->info->Slot({}) : k; }
};

// Operands of a typed loop, read a chunk at a time.
constexpr int kChunk = 256;
struct Chunk {
  double f[3][kChunk];
  int64_t i[3][kChunk];
  uint8_t p[kChunk];  // select's predicate
};

// The generic element function at slot k: what the logical-index path
// stores there.
uint64_t GenericBits(const ElementwiseOp& op, absl::Span<const Source> src, int64_t k) {
  Num args[3];
  for (size_t j = 0; j < src.size() && j < 3; ++j) {
    args[j] = src[j].value->info->Load(src[j].value->data(), src[j].Slot(k));
  }
  return ToBits(op.Apply(args), op.out_type);
}

void LoadChunk(const Source& s, int64_t k0, int n, double* f, int64_t* i, uint8_t* p) {
  const ArrayInfo& info = *s.value->info;
  const TypeClass c = ClassOf(info.type());
  if (s.scalar) {
    const Num v = info.Load(s.value->data(), info.Slot({}));
    if (c == TypeClass::kFloat) std::fill(f, f + n, v.f);
    if (c == TypeClass::kInt) std::fill(i, i + n, v.i);
    if (c == TypeClass::kPred) std::fill(p, p + n, static_cast<uint8_t>(v.i));
    return;
  }
  if (c == TypeClass::kFloat) LoadFloats(info.type(), s.value->data(), k0, n, f);
  if (c == TypeClass::kInt) LoadInts(info.type(), s.value->data(), k0, n, i);
  if (c == TypeClass::kPred) LoadPreds(s.value->data(), k0, n, p);
}

// Stores chunk results; a NaN takes the generic element function's bits.
void StoreFloatChunk(const ElementwiseOp& op, absl::Span<const Source> src, int64_t k0, int n,
                     const double* r, uint8_t* data) {
  StoreFloats(op.out_type, data, k0, n, r);
  for (int j = 0; j < n; ++j) {
    if (std::isnan(r[j])) StoreNative(op.out_type, data, k0 + j, GenericBits(op, src, k0 + j));
  }
}

// r (or pr, for compare) = op(a, b, c) over one chunk (HasTypedLoop).
void ComputeFloats(const ElementwiseOp& op, Chunk& c, int n, double* r, uint8_t* pr) {
  const double* a = c.f[0];
  const double* b = c.f[1];
  switch (op.opcode) {
    case HloOpcode::kConvert: std::copy(a, a + n, r); return;
    case HloOpcode::kCompare: FloatCompareLoop(op.direction, a, b, n, pr); return;
    case HloOpcode::kSelect:
      for (int j = 0; j < n; ++j) r[j] = c.p[j] ? c.f[1][j] : c.f[2][j];
      return;
    case HloOpcode::kClamp:
      for (int j = 0; j < n; ++j) r[j] = FloatMinimum(FloatMaximum(b[j], a[j]), c.f[2][j]);
      return;
    default:
      if (op.arity == 1) {
        FloatUnaryLoop(op.opcode, a, n, r);
      } else {
        FloatBinaryLoop(op.opcode, a, b, n, r);
      }
      return;
  }
}

void ComputeInts(const ElementwiseOp& op, Chunk& c, int n, int64_t* r, uint8_t* pr) {
  const int64_t* a = c.i[0];
  const int64_t* b = c.i[1];
  const bool is_signed = DomainOf(op.type) == Domain::kSigned;
  switch (op.opcode) {
    case HloOpcode::kConvert: std::copy(a, a + n, r); return;
    case HloOpcode::kCompare: IntCompareLoop(op.direction, is_signed, a, b, n, pr); return;
    case HloOpcode::kSelect:
      for (int j = 0; j < n; ++j) r[j] = c.p[j] ? c.i[1][j] : c.i[2][j];
      return;
    case HloOpcode::kClamp:
      for (int j = 0; j < n; ++j) {
        r[j] = IntMinimum(is_signed, IntMaximum(is_signed, b[j], a[j]), c.i[2][j]);
      }
      return;
    default:
      if (op.arity == 1) {
        IntUnaryLoop(op.opcode, a, n, r);
      } else {
        IntBinaryLoop(op.opcode, is_signed, a, b, n, r);
      }
      return;
  }
}

// Which typed loop runs `op` on `src` into `out` (kNone: the Num loop).
TypeClass TypedClass(const ElementwiseOp& op, absl::Span<const Source> src, const ArrayInfo& out) {
  const int first = op.opcode == HloOpcode::kSelect ? 1 : 0;
  const TypeClass c = ClassOf(op.type);
  if (c != TypeClass::kFloat && c != TypeClass::kInt) return TypeClass::kNone;
  if (op.opcode == HloOpcode::kCompare && op.total_order && c == TypeClass::kFloat) {
    return TypeClass::kNone;
  }
  const TypeClass want_out = op.opcode == HloOpcode::kCompare ? TypeClass::kPred : c;
  if (ClassOf(out.type()) != want_out || !NaturalSlots(out)) return TypeClass::kNone;
  for (size_t j = 0; j < src.size(); ++j) {
    const ArrayInfo& info = *src[j].value->info;
    const TypeClass want = static_cast<int>(j) < first ? TypeClass::kPred : c;
    if (ClassOf(info.type()) != want || (!src[j].scalar && !NaturalSlots(info))) {
      return TypeClass::kNone;
    }
  }
  return c;
}

absl::StatusOr<Value> RunTyped(const ElementwiseOp& op, absl::Span<const Source> src,
                               const std::shared_ptr<const ArrayInfo>& out, TypeClass c) {
  absl::StatusOr<Value> v = Value::Allocate(out);
  if (!v.ok()) return v;
  uint8_t* data = v->mutable_data();
  const int64_t n = out->element_count();
  const bool to_pred = op.opcode == HloOpcode::kCompare;
  auto chunk = std::make_unique<Chunk>();
  double fr[kChunk];
  int64_t ir[kChunk];
  uint8_t pr[kChunk];
  for (int64_t k0 = 0; k0 < n; k0 += kChunk) {
    const int m = static_cast<int>(std::min<int64_t>(kChunk, n - k0));
    for (size_t j = 0; j < src.size(); ++j) {
      LoadChunk(src[j], k0, m, chunk->f[j], chunk->i[j], chunk->p);
    }
    if (c == TypeClass::kFloat) {
      ComputeFloats(op, *chunk, m, fr, pr);
    } else {
      ComputeInts(op, *chunk, m, ir, pr);
    }
    if (to_pred) {
      std::memcpy(data + k0, pr, m);
    } else if (c == TypeClass::kFloat) {
      StoreFloatChunk(op, src, k0, m, fr, data);
    } else {
      StoreInts(out->type(), data, k0, m, ir);
    }
  }
  return v;
}

// Whether ComputeFloats / ComputeInts has a loop for `op`.
bool HasTypedLoop(const ElementwiseOp& op, TypeClass c) {
  switch (op.opcode) {
    case HloOpcode::kConvert:
    case HloOpcode::kSelect:
    case HloOpcode::kClamp: return true;
    case HloOpcode::kCompare: return true;
    default:
      if (c == TypeClass::kFloat) {
        return op.arity == 1 ? HasFloatUnaryLoop(op.opcode) : HasFloatBinaryLoop(op.opcode);
      }
      return op.arity == 1 ? HasIntUnaryLoop(op.opcode) : HasIntBinaryLoop(op.opcode);
  }
}

}  // namespace

ElementwiseOp ElementwiseOp::Of(const HloInstruction& inst, absl::Span<const Value* const> ops,
                                PrimitiveType out_type) {
  ElementwiseOp op;
  op.opcode = inst.opcode();
  const int first = op.opcode == HloOpcode::kSelect ? 1 : 0;
  op.type = ops[first]->info->type();
  op.out_type = out_type;
  op.arity = static_cast<int>(ops.size());
  op.direction = inst.attributes().keywords().direction.value_or("EQ");
  op.total_order = op.opcode == HloOpcode::kCompare && IsTotalOrder(inst);
  return op;
}

Num ElementwiseOp::Apply(const Num* args) const {
  switch (opcode) {
    case HloOpcode::kConvert: return Convert(args[0], type, out_type);
    case HloOpcode::kCompare: {
      Num r;
      r.i = ApplyCompare(direction, total_order, type, args[0], args[1]);
      return r;
    }
    case HloOpcode::kSelect: return args[0].i ? args[1] : args[2];
    case HloOpcode::kClamp:
      return ApplyBinary(HloOpcode::kMinimum, type,
                         ApplyBinary(HloOpcode::kMaximum, type, args[1], args[0]), args[2]);
    default:
      return arity == 1 ? ApplyUnary(opcode, type, args[0])
                        : ApplyBinary(opcode, type, args[0], args[1]);
  }
}

std::optional<absl::StatusOr<Value>> ElementwiseLinear(
    const ElementwiseOp& op, absl::Span<const Value* const> operands,
    const std::shared_ptr<const ArrayInfo>& out) {
  if (!FastPathsEnabled() || operands.size() > 3) {
    return std::nullopt;
  }
  std::vector<Source> src;
  for (const Value* v : operands) {
    const bool scalar = v->info->rank() == 0 && out->rank() != 0;
    if (!scalar && !SameSlots(*v->info, *out)) return std::nullopt;
    src.push_back({v, scalar});
  }
  const TypeClass c = TypedClass(op, src, *out);
  if (c != TypeClass::kNone && HasTypedLoop(op, c)) {
    CountFastPath(FastPath::kElementwiseTyped);
    return RunTyped(op, src, out, c);
  }
  CountFastPath(FastPath::kElementwiseNum);
  absl::StatusOr<Value> v = Value::Allocate(out);
  if (!v.ok()) return v;
  uint8_t* data = v->mutable_data();
  const int64_t n = out->element_count();
  for (int64_t k = 0; k < n; ++k) out->StoreBits(data, k, GenericBits(op, src, k));
  return v;
}

void SetFastPathsEnabledForTesting(bool enabled) {
  fast_paths_enabled.store(enabled, std::memory_order_relaxed);
}

bool FastPathsEnabled() { return fast_paths_enabled.load(std::memory_order_relaxed); }

void CountFastPath(FastPath path) {
  fast_path_counts[static_cast<int>(path)].fetch_add(1, std::memory_order_relaxed);
}

FastPathCounts FastPathCountsForTesting() {
  auto get = [](FastPath p) {
    return fast_path_counts[static_cast<int>(p)].load(std::memory_order_relaxed);
  };
  FastPathCounts c;
  c.elementwise_typed = get(FastPath::kElementwiseTyped);
  c.elementwise_num = get(FastPath::kElementwiseNum);
  c.reduce_typed = get(FastPath::kReduceTyped);
  c.reduce_program = get(FastPath::kReduceProgram);
  c.broadcast = get(FastPath::kBroadcast);
  return c;
}

}  // namespace xla_layout::runtime
