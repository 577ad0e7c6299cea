// ReduceFast (declared in elementwise_fast.h): reduce over separable inputs
// by slot offsets, several outputs at a time.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "runtime/elementwise_fast.h"
#include "runtime/fast_element.h"

namespace xla_layout::runtime {
namespace {

// Outputs combined together, each with its own accumulator: independent
// steps that overlap in the core. Fewer when the lanes lie a multiple of
// 4 KiB apart: their lines would all fall in one L1 set (measured on
// f32[2048,4096] summed over rows: 16 lanes beat 64 there, 64 beat 16 at
// f32[2048,768]).
constexpr int kLanes = 64;
constexpr int kAliasedLanes = 16;

using InfoPtr = std::shared_ptr<const ArrayInfo>;

// The order of a reduce: outputs in row-major order of the kept dims, each
// combining the reduced dims' elements in row-major order (dims ascending).
// Outputs that differ only in `lane_dim` run together, element by element,
// which changes no output's order of combination.
struct Plan {
  std::vector<int64_t> kept;        // input dims kept, ascending: the output's dims
  std::vector<int64_t> outer_kept;  // kept less lane_dim
  std::vector<int64_t> reduced;     // ascending; the last is walked innermost
  int64_t lane_dim = -1;            // -1: one output at a time
  int lanes = 1;                    // outputs per group
};

Plan MakePlan(const ArrayInfo& input, absl::Span<const int64_t> reduced) {
  Plan p;
  p.reduced.assign(reduced.begin(), reduced.end());
  std::sort(p.reduced.begin(), p.reduced.end());
  for (int64_t d = 0; d < input.rank(); ++d) {
    if (!std::binary_search(p.reduced.begin(), p.reduced.end(), d)) p.kept.push_back(d);
  }
  if (!p.kept.empty()) {
    p.lane_dim = p.kept.back();
    const int64_t d = p.lane_dim;
    const int64_t stride =
        input.dims()[d] < 2 ? 1 : std::llabs(input.DimOffset(d, 1) - input.DimOffset(d, 0));
    p.lanes = stride * input.slot_bits() % (8 * 4096) == 0 ? kAliasedLanes : kLanes;
  }
  for (int64_t d : p.kept) {
    if (d != p.lane_dim) p.outer_kept.push_back(d);
  }
  return p;
}

// Where the elements of one group of lanes are: input k's element x of the
// innermost reduced dim, for lane i, is at base[k][i] + offset[k] + inner(x).
struct Cursor {
  int m = 0;                               // lanes in the group
  std::vector<std::vector<int64_t>> base;  // [input][lane]
  std::vector<int64_t> offset;             // [input]: the outer reduced dims
};

// Calls comb.Start(m), comb.Row(cursor, inner_dim, count) for each position
// of the outer reduced dims, and comb.Finish(i, output index) per lane.
template <typename Combiner>
void Walk(const Plan& p, absl::Span<const Value* const> inputs, Combiner& comb) {
  const ArrayInfo& first = *inputs[0]->info;
  const size_t n = inputs.size();
  auto extents = [&](absl::Span<const int64_t> ds) {
    std::vector<int64_t> e;
    for (int64_t d : ds) e.push_back(first.dims()[d]);
    return e;
  };
  const std::vector<int64_t> outer_dims = extents(p.outer_kept);
  const int64_t inner_dim = p.reduced.empty() ? -1 : p.reduced.back();
  const absl::Span<const int64_t> outer_reduced =
      absl::MakeConstSpan(p.reduced).subspan(0, p.reduced.empty() ? 0 : p.reduced.size() - 1);
  const std::vector<int64_t> outer_reduced_dims = extents(outer_reduced);
  const int64_t inner_count = inner_dim < 0 ? 1 : first.dims()[inner_dim];
  const int64_t lanes = p.lane_dim < 0 ? 1 : first.dims()[p.lane_dim];
  Cursor cur;
  cur.base.assign(n, std::vector<int64_t>(kLanes));
  cur.offset.assign(n, 0);
  IndexVector out_index(p.kept.size());
  ForEachIndex(outer_dims, [&](const IndexVector& o) {
    for (int64_t c0 = 0; c0 < lanes; c0 += p.lanes) {
      cur.m = static_cast<int>(std::min<int64_t>(p.lanes, lanes - c0));
      for (size_t k = 0; k < n; ++k) {
        const ArrayInfo& a = *inputs[k]->info;
        int64_t base = a.origin();
        for (size_t j = 0; j < o.size(); ++j) base += a.DimOffset(p.outer_kept[j], o[j]);
        for (int i = 0; i < cur.m; ++i) {
          cur.base[k][i] = base + (p.lane_dim < 0 ? 0 : a.DimOffset(p.lane_dim, c0 + i));
        }
      }
      comb.Start(cur.m);
      ForEachIndex(outer_reduced_dims, [&](const IndexVector& r) {
        for (size_t k = 0; k < n; ++k) {
          int64_t off = 0;
          for (size_t j = 0; j < r.size(); ++j) {
            off += inputs[k]->info->DimOffset(outer_reduced[j], r[j]);
          }
          cur.offset[k] = off;
        }
        comb.Row(cur, inner_dim, inner_count);
      });
      for (int i = 0; i < cur.m; ++i) {
        size_t j = 0;
        for (size_t q = 0; q < p.kept.size(); ++q) {
          out_index[q] = p.kept[q] == p.lane_dim ? c0 + i : o[j++];
        }
        comb.Finish(i, out_index);
      }
    }
  });
}

// The offset of element x of `dim` in `a` (0 when there is no reduced dim).
inline int64_t Inner(const ArrayInfo& a, int64_t dim, int64_t x) {
  return dim < 0 ? 0 : a.DimOffset(static_cast<int>(dim), x);
}

// Any to_apply: ScalarProgram::Run per element, as the generic Reduce.
class ProgramCombiner {
 public:
  ProgramCombiner(absl::Span<const Value* const> ops, absl::Span<const InfoPtr> out,
                  std::vector<Value>& results, const ScalarProgram& to_apply)
      : n_(ops.size() / 2),
        ops_(ops),
        out_(out),
        results_(results),
        to_apply_(to_apply),
        accs_(kLanes * n_),
        args_(2 * n_) {}
  void Start(int m) {
    for (int i = 0; i < m; ++i) {
      for (size_t k = 0; k < n_; ++k) {
        const Value& init = *ops_[n_ + k];
        accs_[i * n_ + k] = init.info->Load(init.data(), init.info->Slot({}));
      }
    }
  }
  void Row(const Cursor& c, int64_t dim, int64_t count) {
    for (int64_t x = 0; x < count; ++x) {
      for (int i = 0; i < c.m; ++i) {
        Num* acc = &accs_[i * n_];
        for (size_t k = 0; k < n_; ++k) {
          const ArrayInfo& a = *ops_[k]->info;
          args_[k] = acc[k];
          args_[n_ + k] = a.Load(ops_[k]->data(), c.base[k][i] + c.offset[k] + Inner(a, dim, x));
        }
        to_apply_.Run(args_, absl::MakeSpan(acc, n_));
      }
    }
  }
  void Finish(int i, const IndexVector& index) {
    for (size_t k = 0; k < n_; ++k) {
      out_[k]->Store(results_[k].mutable_data(), out_[k]->Slot(index), accs_[i * n_ + k]);
    }
  }

 private:
  size_t n_;
  absl::Span<const Value* const> ops_;
  absl::Span<const InfoPtr> out_;
  std::vector<Value>& results_;
  const ScalarProgram& to_apply_;
  std::vector<Num> accs_, args_;
};

// One float input and a one-op to_apply: the accumulator as a double of the
// type, each step the typed formula rounded once, or, when that gives a
// NaN, ApplyBinary itself (so every step's result is the generic one).
template <typename Slots>
class FloatCombiner {
 public:
  FloatCombiner(const Value& input, const Value& init, const InfoPtr& out, Value& result,
                ScalarProgram::BinaryStep step)
      : input_(input),
        out_(out),
        result_(result),
        step_(step),
        init_(init.info->Load(init.data(), init.info->Slot({})).f) {}
  void Start(int m) { std::fill(acc_, acc_ + m, init_); }
  void Row(const Cursor& c, int64_t dim, int64_t count) {
    const ArrayInfo& a = *input_.info;
    const uint8_t* data = input_.data();
    const int64_t* base = c.base[0].data();
    for (int64_t x = 0; x < count; ++x) {
      const int64_t off = c.offset[0] + Inner(a, dim, x);
      switch (step_.opcode) {
        case HloOpcode::kAdd:
          Lanes(c.m, data, base, off, [](double p, double q) { return p + q; });
          break;
        case HloOpcode::kSubtract:
          Lanes(c.m, data, base, off, [](double p, double q) { return p - q; });
          break;
        case HloOpcode::kMultiply:
          Lanes(c.m, data, base, off, [](double p, double q) { return p * q; });
          break;
        case HloOpcode::kDivide:
          Lanes(c.m, data, base, off, [](double p, double q) { return p / q; });
          break;
        case HloOpcode::kMaximum: Lanes(c.m, data, base, off, FloatMaximum); break;
        default: Lanes(c.m, data, base, off, FloatMinimum); break;
      }
    }
  }
  void Finish(int i, const IndexVector& index) {
    Num n;
    n.f = acc_[i];
    out_->Store(result_.mutable_data(), out_->Slot(index), n);
  }

 private:
  template <typename Fn>
  void Lanes(int m, const uint8_t* data, const int64_t* base, int64_t off, Fn fn) {
    for (int i = 0; i < m; ++i) {
      const double x = Slots::Load(data, base[i] + off);
      const double p = step_.swapped ? x : acc_[i];
      const double q = step_.swapped ? acc_[i] : x;
      const double r = fn(p, q);
      acc_[i] = std::isnan(r) ? Generic(p, q) : Slots::Round(r);
    }
  }
  double Generic(double p, double q) const {
    Num a, b;
    a.f = p;
    b.f = q;
    return ApplyBinary(step_.opcode, step_.type, a, b).f;
  }

  const Value& input_;
  const InfoPtr& out_;
  Value& result_;
  ScalarProgram::BinaryStep step_;
  double init_;
  double acc_[kLanes];
};

// The typed combiner's step, when `to_apply` and the types allow one.
std::optional<ScalarProgram::BinaryStep> FloatStep(absl::Span<const Value* const> ops,
                                                   absl::Span<const InfoPtr> out,
                                                   const ScalarProgram& to_apply) {
  if (ops.size() != 2) return std::nullopt;
  const std::optional<ScalarProgram::BinaryStep> step = to_apply.AsBinaryStep();
  const ArrayInfo& in = *ops[0]->info;
  if (!step || ClassOf(in.type()) != TypeClass::kFloat || !NaturalSlots(in) ||
      step->type != in.type() || ops[1]->info->type() != in.type() || out[0]->type() != in.type()) {
    return std::nullopt;
  }
  switch (step->opcode) {
    case HloOpcode::kAdd:
    case HloOpcode::kSubtract:
    case HloOpcode::kMultiply:
    case HloOpcode::kDivide:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum: return step;
    default: return std::nullopt;
  }
}

template <typename Slots>
void RunFloat(const Plan& plan, absl::Span<const Value* const> ops, const InfoPtr& out,
              Value& result, ScalarProgram::BinaryStep step) {
  FloatCombiner<Slots> comb(*ops[0], *ops[1], out, result, step);
  Walk(plan, ops.subspan(0, 1), comb);
}

}  // namespace

std::optional<absl::StatusOr<Value>> ReduceFast(absl::Span<const int64_t> reduced,
                                                absl::Span<const Value* const> ops,
                                                absl::Span<const InfoPtr> out,
                                                const ScalarProgram& to_apply) {
  const size_t n = ops.size() / 2;
  if (!FastPathsEnabled() || n == 0) return std::nullopt;
  // Dims the verifier would refuse are left to the generic path.
  std::vector<int64_t> sorted(reduced.begin(), reduced.end());
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end() ||
      (!sorted.empty() && (sorted.front() < 0 || sorted.back() >= ops[0]->info->rank()))) {
    return std::nullopt;
  }
  for (size_t k = 0; k < n; ++k) {
    if (!ops[k]->info->separable()) return std::nullopt;
  }
  std::vector<Value> results;
  for (size_t k = 0; k < n; ++k) {
    absl::StatusOr<Value> v = Value::Allocate(out[k]);
    if (!v.ok()) return absl::StatusOr<Value>(v.status());
    results.push_back(*std::move(v));
  }
  const Plan plan = MakePlan(*ops[0]->info, reduced);
  if (const std::optional<ScalarProgram::BinaryStep> step = FloatStep(ops, out, to_apply)) {
    CountFastPath(FastPath::kReduceTyped);
    switch (ops[0]->info->type()) {
      case F32: RunFloat<F32Slots>(plan, ops, out[0], results[0], *step); break;
      case F64: RunFloat<F64Slots>(plan, ops, out[0], results[0], *step); break;
      case BF16: RunFloat<Bf16Slots>(plan, ops, out[0], results[0], *step); break;
      default: RunFloat<F16Slots>(plan, ops, out[0], results[0], *step); break;
    }
  } else {
    CountFastPath(FastPath::kReduceProgram);
    ProgramCombiner comb(ops, out, results, to_apply);
    Walk(plan, ops.subspan(0, n), comb);
  }
  if (n == 1) return absl::StatusOr<Value>(std::move(results[0]));
  return absl::StatusOr<Value>(Value::Tuple(std::move(results)));
}

}  // namespace xla_layout::runtime
