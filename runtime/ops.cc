#include "runtime/ops.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "hlo/hlo_literal.h"
#include "runtime/batch_norm.h"
#include "runtime/bits.h"
#include "runtime/dot_kernel.h"
#include "runtime/fft.h"
#include "runtime/elementwise_fast.h"
#include "runtime/gather_scatter.h"
#include "runtime/linalg.h"
#include "runtime/map.h"
#include "runtime/nan_rule.h"
#include "runtime/ops_util.h"
#include "runtime/rng.h"
#include "runtime/sort.h"
#include "runtime/window.h"
#include "xla_layout/primitive_type.h"

namespace xla_layout::runtime {
namespace {

absl::StatusOr<Value> Elementwise(const HloInstruction& inst,
                                  absl::Span<const Value* const> ops, const Info& out) {
  const ElementwiseOp op = ElementwiseOp::Of(inst, ops, out->type());
  if (std::optional<absl::StatusOr<Value>> linear = ElementwiseLinear(op, ops, out)) {
    return *std::move(linear);
  }
  Num args[3];
  return Generate<false>(out, [&](const IndexVector& index) {
    for (size_t j = 0; j < ops.size() && j < 3; ++j) args[j] = At(*ops[j], index);
    return op.Apply(args);
  });
}

absl::StatusOr<Value> Broadcast(const HloInstruction& inst, const Value& a, const Info& out) {
  const std::vector<int64_t> dims = Attr(inst.attributes().dimensions);
  if (std::optional<absl::StatusOr<Value>> fast = BroadcastFast(dims, a, out)) {
    return *std::move(fast);
  }
  IndexVector from(dims.size());
  return Generate<true>(out, [&](const IndexVector& index) {
    for (size_t i = 0; i < dims.size(); ++i) from[i] = index[dims[i]];
    return BitsAt(a, from);
  });
}

absl::StatusOr<Value> Reshape(const Value& a, const Info& out) {
  // Both sides in row-major order walk the same element sequence.
  absl::Span<const int64_t> in_dims = a.info->dims();
  IndexVector from(in_dims.size(), 0);
  return Generate<true>(out, [&](const IndexVector&) {
    uint64_t bits = BitsAt(a, from);
    for (int d = static_cast<int>(in_dims.size()) - 1; d >= 0; --d) {
      if (++from[d] < in_dims[d]) break;
      from[d] = 0;
    }
    return bits;
  });
}

absl::StatusOr<Value> Slice(const HloInstruction& inst, const Value& a, const Info& out) {
  const auto& slice = *inst.attributes().rare().slice;
  IndexVector from(out->rank());
  return Generate<true>(out, [&](const IndexVector& index) {
    for (int d = 0; d < out->rank(); ++d) from[d] = slice[d][0] + index[d] * slice[d][2];
    return BitsAt(a, from);
  });
}

// Start indices of dynamic-(update-)slice, clamped so the window fits.
IndexVector ClampedStarts(absl::Span<const Value* const> starts,
                          absl::Span<const int64_t> dims, absl::Span<const int64_t> sizes) {
  IndexVector s(dims.size(), 0);
  for (size_t d = 0; d < dims.size() && d < starts.size(); ++d) {
    const Value& v = *starts[d];
    Num n = v.info->Load(v.data(), v.info->Slot({}));
    int64_t start = DomainOf(v.info->type()) == Domain::kUnsigned && n.i < 0
                        ? dims[d] : n.i;
    s[d] = std::max<int64_t>(0, std::min<int64_t>(start, dims[d] - sizes[d]));
  }
  return s;
}

absl::StatusOr<Value> DynamicSlice(absl::Span<const Value* const> ops, const Info& out) {
  const Value& a = *ops[0];
  IndexVector start = ClampedStarts(ops.subspan(1), a.info->dims(), out->dims());
  IndexVector from(out->rank());
  return Generate<true>(out, [&](const IndexVector& index) {
    for (int d = 0; d < out->rank(); ++d) from[d] = start[d] + index[d];
    return BitsAt(a, from);
  });
}

absl::StatusOr<Value> DynamicUpdateSlice(absl::Span<const Value* const> ops, const Info& out) {
  const Value& a = *ops[0];
  const Value& update = *ops[1];
  IndexVector start = ClampedStarts(ops.subspan(2), a.info->dims(), update.info->dims());
  IndexVector from(out->rank());
  return Generate<true>(out, [&](const IndexVector& index) {
    bool inside = true;
    for (int d = 0; d < out->rank(); ++d) {
      from[d] = index[d] - start[d];
      inside &= from[d] >= 0 && from[d] < update.info->dims()[d];
    }
    return inside ? BitsAt(update, from) : BitsAt(a, index);
  });
}

absl::StatusOr<Value> Concatenate(const HloInstruction& inst,
                                  absl::Span<const Value* const> ops, const Info& out) {
  const int64_t dim = Attr(inst.attributes().dimensions).at(0);
  std::vector<int64_t> ends;
  int64_t end = 0;
  for (const Value* v : ops) ends.push_back(end += v->info->dims()[dim]);
  IndexVector from(out->rank());
  return Generate<true>(out, [&](const IndexVector& index) {
    size_t k = std::upper_bound(ends.begin(), ends.end(), index[dim]) - ends.begin();
    from.assign(index.begin(), index.end());
    from[dim] -= k == 0 ? 0 : ends[k - 1];
    return BitsAt(*ops[k], from);
  });
}

absl::StatusOr<Value> Pad(const HloInstruction& inst, absl::Span<const Value* const> ops,
                          const Info& out) {
  const auto& padding = *inst.attributes().rare().padding;
  const Value& a = *ops[0];
  const uint64_t fill = ops[1]->info->LoadBits(ops[1]->data(), ops[1]->info->Slot({}));
  IndexVector from(out->rank());
  return Generate<true>(out, [&](const IndexVector& index) {
    for (int d = 0; d < out->rank(); ++d) {
      const int64_t p = index[d] - padding[d][0];
      const int64_t step = padding[d][2] + 1;
      if (p < 0 || p % step != 0 || p / step >= a.info->dims()[d]) return fill;
      from[d] = p / step;
    }
    return BitsAt(a, from);
  });
}

absl::StatusOr<Value> Reverse(const HloInstruction& inst, const Value& a, const Info& out) {
  std::vector<bool> flip(out->rank(), false);
  for (int64_t d : Attr(inst.attributes().dimensions)) flip[d] = true;
  IndexVector from(out->rank());
  return Generate<true>(out, [&](const IndexVector& index) {
    for (int d = 0; d < out->rank(); ++d) {
      from[d] = flip[d] ? out->dims()[d] - 1 - index[d] : index[d];
    }
    return BitsAt(a, from);
  });
}

absl::StatusOr<Value> Iota(const HloInstruction& inst, const Info& out) {
  const int64_t dim = inst.attributes().rare().iota_dimension.value_or(0);
  return Generate<false>(out, [&](const IndexVector& index) {
    Num n;
    n.i = index[dim];
    return Convert(n, S64, out->type());
  });
}

absl::StatusOr<Value> Constant(const HloInstruction& inst, const Info& out) {
  const HloLiteral& lit = *inst.literal_value();
  const bool is_float = DomainOf(out->type()) == Domain::kFloat;
  int64_t k = 0;
  return Generate<false>(out, [&](const IndexVector&) {
    Num n;
    if (is_float) {
      n.f = lit.floats()[k++];
    } else {
      n.i = lit.ints()[k++];
    }
    return Normalize(n, out->type());
  });
}

// The dims of `rank` not in `used`, ascending.
std::vector<int64_t> OtherDims(int rank, const std::vector<int64_t>& a,
                               const std::vector<int64_t>& b) {
  std::vector<int64_t> rest;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(a.begin(), a.end(), d) == a.end() &&
        std::find(b.begin(), b.end(), d) == b.end()) {
      rest.push_back(d);
    }
  }
  return rest;
}

// out += a * b in the output's domain (floats in double, integers wrapping);
// with `nan_rule`, floats by the NaN rule of runtime/nan_rule.h.
struct Accumulator {
  PrimitiveType type;
  bool is_float;
  bool nan_rule = false;
  double f = 0;
  uint64_t i = 0;
  void Add(Num a, Num b) {
    if (nan_rule) {
      f = RuleSum(f, RuleProduct(a.f, b.f));
    } else if (is_float) {
      f += a.f * b.f;
    } else {
      i += static_cast<uint64_t>(a.i) * static_cast<uint64_t>(b.i);
    }
  }
  Num Result() const {
    Num n;
    n.f = f;
    n.i = static_cast<int64_t>(i);
    return Normalize(n, type);
  }
};

// One contraction result element: `accumulate(acc)` adds its products.
// A NaN sum is summed again under the NaN rule (runtime/nan_rule.h), so
// which NaN it carries does not depend on the order the hardware or the
// compiler gave each multiply's and add's operands.
template <typename Fn>
Num Contract(PrimitiveType type, bool is_float, Fn&& accumulate) {
  Accumulator acc{type, is_float};
  accumulate(acc);
  if (is_float && std::isnan(acc.f)) {
    acc = Accumulator{type, is_float, /*nan_rule=*/true};
    accumulate(acc);
  }
  return acc.Result();
}

// Direct readers of whole-byte floating-point slots, as double.
struct F32Reader {
  const uint8_t* d;
  double operator()(int64_t s) const {
    float f;
    std::memcpy(&f, d + 4 * s, 4);
    return f;
  }
};
struct Bf16Reader {
  const uint8_t* d;
  double operator()(int64_t s) const {
    uint16_t h;
    std::memcpy(&h, d + 2 * s, 2);
    const uint32_t u = static_cast<uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
};
struct F64Reader {
  const uint8_t* d;
  double operator()(int64_t s) const {
    double f;
    std::memcpy(&f, d + 8 * s, 8);
    return f;
  }
};

// Which direct reader serves `v` (0: none).
int ReaderKind(const Value& v) {
  const int bits = v.info->slot_bits();
  switch (v.info->type()) {
    case F32: return bits == 32 ? 1 : 0;
    case BF16: return bits == 16 ? 2 : 0;
    case F64: return bits == 64 ? 3 : 0;
    default: return 0;
  }
}

template <typename Fn>
void WithReader(int kind, const uint8_t* d, Fn&& fn) {
  switch (kind) {
    case 1: return fn(F32Reader{d});
    case 2: return fn(Bf16Reader{d});
    default: return fn(F64Reader{d});
  }
}

// Sums lhs[lbase + lk[k]] * rhs[rbase + rk[k]] over k in order. Float
// operands of f32, bf16 or f64 with a float result are read directly; every
// path gives the same result (products and sums in double, rounded once).
struct Contraction {
  const Value* lhs;
  const Value* rhs;
  PrimitiveType out;
  int lkind = 0, rkind = 0;  // direct readers, when both have one

  // Whether converting `from` to `to` is exact, so that reading the operand
  // directly gives what Add's conversion gives.
  static bool Exact(PrimitiveType from, PrimitiveType to) {
    return from == to || to == F64 || (to == F32 && from == BF16);
  }
  Contraction(const Value& l, const Value& r, PrimitiveType o) : lhs(&l), rhs(&r), out(o) {
    if (ReaderKind(l) != 0 && ReaderKind(r) != 0 && Exact(l.info->type(), o) &&
        Exact(r.info->type(), o)) {
      lkind = ReaderKind(l);
      rkind = ReaderKind(r);
    }
  }
  void Add(Accumulator& acc, int64_t ls, int64_t rs) const {
    if (acc.nan_rule && std::isnan(acc.f)) return;  // the rule keeps this NaN
    acc.Add(Convert(lhs->info->Load(lhs->data(), ls), lhs->info->type(), out),
            Convert(rhs->info->Load(rhs->data(), rs), rhs->info->type(), out));
  }
  void Run(Accumulator& acc, int64_t lbase, int64_t rbase, const std::vector<int64_t>& lk,
           const std::vector<int64_t>& rk) const {
    const size_t n = lk.size();
    if (lkind != 0) {
      WithReader(lkind, lhs->data(), [&](auto a) {
        WithReader(rkind, rhs->data(), [&](auto b) {
          double sum = acc.f;
          if (acc.nan_rule) {
            for (size_t k = 0; k < n && !std::isnan(sum); ++k) {
              sum = RuleSum(sum, RuleProduct(a(lbase + lk[k]), b(rbase + rk[k])));
            }
          } else {
            for (size_t k = 0; k < n; ++k) sum += a(lbase + lk[k]) * b(rbase + rk[k]);
          }
          acc.f = sum;
        });
      });
      return;
    }
    for (size_t k = 0; k < n; ++k) Add(acc, lbase + lk[k], rbase + rk[k]);
  }
};

}  // namespace

absl::StatusOr<Value> GenericDot(const HloInstruction& inst, const Value& lhs, const Value& rhs,
                                 const Info& out) {
  const auto& at = inst.attributes();
  const std::vector<int64_t> lb = Attr(at.dot().lhs_batch_dims), rb = Attr(at.dot().rhs_batch_dims);
  const std::vector<int64_t> lc = Attr(at.dot().lhs_contracting_dims), rc = Attr(at.dot().rhs_contracting_dims);
  const std::vector<int64_t> lf = OtherDims(lhs.info->rank(), lb, lc);
  const std::vector<int64_t> rf = OtherDims(rhs.info->rank(), rb, rc);
  std::vector<int64_t> k_dims;
  for (int64_t d : lc) k_dims.push_back(lhs.info->dims()[d]);
  const PrimitiveType ot = out->type();
  // Every contracting index, row-major over the contracting dims: the order
  // the products are added in.
  std::vector<IndexVector> ks;
  ForEachIndex(k_dims, [&](const IndexVector& k) { ks.push_back(k); });
  IndexVector li(lhs.info->rank(), 0), ri(rhs.info->rank(), 0);
  const bool fast = lhs.info->separable() && rhs.info->separable();
  std::vector<int64_t> lk, rk;  // slot offsets of each contracting index
  if (fast) {
    for (const IndexVector& k : ks) {
      int64_t l = 0, r = 0;
      for (size_t j = 0; j < k.size(); ++j) {
        l += lhs.info->DimOffset(static_cast<int>(lc[j]), k[j]);
        r += rhs.info->DimOffset(static_cast<int>(rc[j]), k[j]);
      }
      lk.push_back(l);
      rk.push_back(r);
    }
  }
  const Contraction contraction(lhs, rhs, ot);
  const bool is_float = DomainOf(ot) == Domain::kFloat;
  return Generate<false>(out, [&](const IndexVector& index) {
    size_t o = 0;
    for (size_t j = 0; j < lb.size(); ++j, ++o) {
      li[lb[j]] = index[o];
      ri[rb[j]] = index[o];
    }
    for (int64_t d : lf) li[d] = index[o++];
    for (int64_t d : rf) ri[d] = index[o++];
    return Contract(ot, is_float, [&](Accumulator& acc) {
      if (fast) {
        for (int64_t d : lc) li[d] = 0;
        for (int64_t d : rc) ri[d] = 0;
        contraction.Run(acc, lhs.info->Slot(li), rhs.info->Slot(ri), lk, rk);
        return;
      }
      for (const IndexVector& k : ks) {
        for (size_t j = 0; j < k.size(); ++j) {
          li[lc[j]] = k[j];
          ri[rc[j]] = k[j];
        }
        contraction.Add(acc, lhs.info->Slot(li), rhs.info->Slot(ri));
      }
    });
  });
}

namespace {

absl::StatusOr<Value> Dot(const HloInstruction& inst, const Value& lhs, const Value& rhs,
                          const Info& out) {
  if (std::optional<absl::StatusOr<Value>> packed = PackedDot(inst, lhs, rhs, out)) {
    return *std::move(packed);
  }
  return GenericDot(inst, lhs, rhs, out);
}

// Positions in dim_labels: batch/feature letters and spatial digits.
struct Labels {
  int batch = -1, feature = -1;
  std::vector<int> spatial;
};
Labels ParseLabels(const std::string& text, char first, char second) {
  Labels l;
  for (int pos = 0; pos < static_cast<int>(text.size()); ++pos) {
    const char c = text[pos];
    if (c == first) l.batch = pos;
    if (c == second) l.feature = pos;
    if (c >= '0' && c <= '9') {
      const size_t k = c - '0';
      if (l.spatial.size() <= k) l.spatial.resize(k + 1, -1);
      l.spatial[k] = pos;
    }
  }
  return l;
}

// Sums, for every kernel position in row-major order and within it every
// input feature of the group in increasing order, input * kernel.
absl::StatusOr<Value> Convolution(const HloInstruction& inst, const Value& lhs,
                                  const Value& rhs, const Info& out) {
  const auto& rare = inst.attributes().rare();
  const ConvolutionDimLabels& labels = *rare.dim_labels;
  const Labels in = ParseLabels(labels.input, 'b', 'f');
  const Labels ker = ParseLabels(labels.kernel, 'o', 'i');  // batch=o, feature=i
  const Labels res = ParseLabels(labels.output, 'b', 'f');
  const size_t spatial = in.spatial.size();
  std::vector<WindowDimension> window =
      rare.window.value_or(std::vector<WindowDimension>(spatial));
  window.resize(spatial);
  const int64_t groups = rare.feature_group_count.value_or(1);
  const int64_t cg = rhs.info->dims()[ker.feature];
  const int64_t per_group = out->dims()[res.feature] / groups;
  // batch_group_count: output feature o reads the input batch group
  // o / (features / batch groups), which holds the output's batch size of
  // consecutive input batch entries.
  const int64_t batch_groups = rare.batch_group_count.value_or(1);
  const int64_t per_batch_group = out->dims()[res.feature] / batch_groups;
  const int64_t out_batch = out->dims()[res.batch];
  std::vector<int64_t> kdims;
  for (size_t k = 0; k < spatial; ++k) kdims.push_back(rhs.info->dims()[ker.spatial[k]]);
  std::vector<IndexVector> positions;
  ForEachIndex(kdims, [&](const IndexVector& kk) { positions.push_back(kk); });
  const PrimitiveType ot = out->type();
  const bool is_float = DomainOf(ot) == Domain::kFloat;
  const Contraction contraction(lhs, rhs, ot);
  const bool fast = lhs.info->separable() && rhs.info->separable();
  IndexVector li(lhs.info->rank(), 0), ri(rhs.info->rank(), 0);
  // Per input feature of a group: slot offsets (fast path).
  std::vector<int64_t> rfeat(cg), lfeat(cg);
  if (fast) {
    for (int64_t ci = 0; ci < cg; ++ci) rfeat[ci] = rhs.info->DimOffset(ker.feature, ci);
  }
  int64_t cached_group = -1;
  return Generate<false>(out, [&](const IndexVector& index) {
    const int64_t o = index[res.feature];
    const int64_t g = per_group > 0 ? o / per_group : 0;
    if (fast && g != cached_group) {
      for (int64_t ci = 0; ci < cg; ++ci) lfeat[ci] = lhs.info->DimOffset(in.feature, g * cg + ci);
      cached_group = g;
    }
    const int64_t gb = per_batch_group > 0 ? o / per_batch_group : 0;
    li[in.batch] = gb * out_batch + index[res.batch];
    ri[ker.batch] = o;
    return Contract(ot, is_float, [&](Accumulator& acc) {
      for (const IndexVector& kk : positions) {
        bool inside = true;
        for (size_t k = 0; k < spatial && inside; ++k) {
          const WindowDimension& w = window[k];
          const int64_t p = index[res.spatial[k]] * w.stride - w.padding_low +
                            kk[k] * w.rhs_dilation;
          inside = p >= 0 && p % w.lhs_dilation == 0 &&
                   p / w.lhs_dilation < lhs.info->dims()[in.spatial[k]];
          if (!inside) break;
          li[in.spatial[k]] = p / w.lhs_dilation;
          ri[ker.spatial[k]] = w.reversal ? kdims[k] - 1 - kk[k] : kk[k];
        }
        if (!inside) continue;
        if (fast) {
          li[in.feature] = 0;
          ri[ker.feature] = 0;
          // Feature 0 sits at offset 0: the features add their own offsets.
          contraction.Run(acc, lhs.info->Slot(li), rhs.info->Slot(ri),
                          lfeat, rfeat);
        } else {
          for (int64_t ci = 0; ci < cg; ++ci) {
            li[in.feature] = g * cg + ci;
            ri[ker.feature] = ci;
            contraction.Add(acc, lhs.info->Slot(li), rhs.info->Slot(ri));
          }
        }
      }
    });
  });
}

absl::StatusOr<Value> Reduce(const HloInstruction& inst, absl::Span<const Value* const> ops,
                             absl::Span<const Info> out, const ScalarProgram& to_apply) {
  const size_t n = ops.size() / 2;
  const std::vector<int64_t> reduced = Attr(inst.attributes().dimensions);
  if (std::optional<absl::StatusOr<Value>> fast = ReduceFast(reduced, ops, out, to_apply)) {
    return *std::move(fast);
  }
  const Value& first = *ops[0];
  const std::vector<int64_t> kept = OtherDims(first.info->rank(), reduced, {});
  std::vector<int64_t> rdims;
  for (int64_t d : reduced) rdims.push_back(first.info->dims()[d]);
  // The reduced dims walk in row-major order of dim number.
  std::vector<size_t> by_dim(reduced.size());
  for (size_t j = 0; j < by_dim.size(); ++j) by_dim[j] = j;
  std::sort(by_dim.begin(), by_dim.end(),
            [&](size_t a, size_t b) { return reduced[a] < reduced[b]; });
  std::vector<int64_t> sorted_dims;
  for (size_t j : by_dim) sorted_dims.push_back(rdims[j]);
  std::vector<Value> results;
  for (size_t k = 0; k < n; ++k) {
    absl::StatusOr<Value> v = Value::Allocate(out[k]);
    if (!v.ok()) return v.status();
    results.push_back(*std::move(v));
  }
  std::vector<Num> args(2 * n), accs(n);
  IndexVector from(first.info->rank(), 0);
  ForEachIndex(out[0]->dims(), [&](const IndexVector& index) {
    for (size_t k = 0; k < n; ++k) {
      accs[k] = ops[n + k]->info->Load(ops[n + k]->data(), ops[n + k]->info->Slot({}));
    }
    for (size_t j = 0; j < kept.size(); ++j) from[kept[j]] = index[j];
    ForEachIndex(sorted_dims, [&](const IndexVector& r) {
      for (size_t j = 0; j < by_dim.size(); ++j) from[reduced[by_dim[j]]] = r[j];
      for (size_t k = 0; k < n; ++k) {
        args[k] = accs[k];
        args[n + k] = At(*ops[k], from);
      }
      to_apply.Run(args, absl::MakeSpan(accs));
    });
    for (size_t k = 0; k < n; ++k) {
      out[k]->Store(results[k].mutable_data(), out[k]->Slot(index), accs[k]);
    }
  });
  if (n == 1) return std::move(results[0]);
  return Value::Tuple(std::move(results));
}

}  // namespace

bool IsArrayOp(HloOpcode op) {
  switch (op) {
    case HloOpcode::kConvert: case HloOpcode::kCompare: case HloOpcode::kSelect:
    case HloOpcode::kClamp: case HloOpcode::kBroadcast: case HloOpcode::kReshape:
    case HloOpcode::kSlice: case HloOpcode::kDynamicSlice:
    case HloOpcode::kDynamicUpdateSlice: case HloOpcode::kConcatenate:
    case HloOpcode::kPad: case HloOpcode::kReverse: case HloOpcode::kIota:
    case HloOpcode::kConstant: case HloOpcode::kDot: case HloOpcode::kConvolution:
    case HloOpcode::kReduce: case HloOpcode::kGather: case HloOpcode::kScatter:
    case HloOpcode::kBatchNormTraining: case HloOpcode::kBatchNormInference:
    case HloOpcode::kBatchNormGrad:
    case HloOpcode::kRng: case HloOpcode::kRngBitGenerator:
    case HloOpcode::kBitcastConvert: case HloOpcode::kSort:
    case HloOpcode::kTopK: case HloOpcode::kCholesky: case HloOpcode::kTriangularSolve:
    case HloOpcode::kReduceWindow: case HloOpcode::kSelectAndScatter: case HloOpcode::kMap:
    case HloOpcode::kDynamicReshape: case HloOpcode::kGetDimensionSize:
    case HloOpcode::kFft:
      return true;
    default:
      return IsElementwise(op) && op != HloOpcode::kCopy;
  }
}

absl::string_view RefusalReason(HloOpcode op) {
  (void)op;
  return "";
}

absl::Status CheckArrayOp(const HloInstruction& inst) {
  const HloOpcode op = inst.opcode();
  if (op == HloOpcode::kRng || op == HloOpcode::kRngBitGenerator) return CheckRng(inst);
  switch (op) {
    case HloOpcode::kBitcastConvert: return CheckBitcastConvert(inst);
    case HloOpcode::kReducePrecision: return CheckReducePrecision(inst);
    case HloOpcode::kSort: return CheckSort(inst);
    case HloOpcode::kTopK: return CheckTopK(inst);
    case HloOpcode::kCholesky: return CheckCholesky(inst);
    case HloOpcode::kTriangularSolve: return CheckTriangularSolve(inst);
    case HloOpcode::kReduceWindow: return CheckReduceWindow(inst);
    case HloOpcode::kSelectAndScatter: return CheckSelectAndScatter(inst);
    case HloOpcode::kMap: return CheckMap(inst);
    case HloOpcode::kDynamicReshape: return CheckDynamicReshape(inst);
    case HloOpcode::kGetDimensionSize: return CheckGetDimensionSize(inst);
    case HloOpcode::kFft: return CheckFft(inst);
    default: break;
  }
  auto fail = [&](absl::string_view why) {
    return absl::UnimplementedError(absl::StrCat(inst.name(), " (", HloOpcodeString(op),
                                                 "): ", why));
  };
  if (op == HloOpcode::kConstant) {
    const HloLiteral* lit = inst.literal_value();
    if (!inst.shape().IsArray()) return fail("a tuple constant is not supported by the executor");
    if (lit == nullptr || lit->abbreviated()) {
      return fail("the constant's values were left out ({...}); the executor needs them");
    }
    return absl::OkStatus();
  }
  if (op == HloOpcode::kDot && !inst.attributes().dot().sparsity.empty()) {
    return fail("a sparse dot is not supported by the executor");
  }
  if (op == HloOpcode::kDot || op == HloOpcode::kConvolution) {
    for (const HloInstruction* o : inst.operands()) {
      if (o->shape().element_type() == PRED) return fail("pred operands are not supported");
    }
    if (op == HloOpcode::kConvolution) {
      const auto& rare = inst.attributes().rare();
      if (!rare.dim_labels) return fail("a convolution needs dim_labels");
    }
    return absl::OkStatus();
  }
  if (op == HloOpcode::kGather) return CheckGather(inst);
  if (op == HloOpcode::kScatter) return CheckScatter(inst);
  if (op == HloOpcode::kBatchNormTraining || op == HloOpcode::kBatchNormInference ||
      op == HloOpcode::kBatchNormGrad) {
    return CheckBatchNorm(inst);
  }
  if (op == HloOpcode::kSlice && !inst.attributes().rare().slice) return fail("no slice attribute");
  if (op == HloOpcode::kPad && !inst.attributes().rare().padding) return fail("no padding attribute");
  if (op == HloOpcode::kConcatenate && Attr(inst.attributes().dimensions).empty()) {
    return fail("no dimensions attribute");
  }
  if (IsElementwise(op) || op == HloOpcode::kCompare || op == HloOpcode::kSelect ||
      op == HloOpcode::kClamp || op == HloOpcode::kConvert) {
    const int first = op == HloOpcode::kSelect ? 1 : 0;
    if (inst.operand_count() <= first) return fail("missing operands");
    absl::Status s = CheckElementwise(op, inst.operand(first)->shape().element_type());
    if (!s.ok()) return fail(s.message());
  }
  return absl::OkStatus();
}

absl::StatusOr<Value> ArrayOp(const HloInstruction& inst,
                              absl::Span<const Value* const> ops,
                              absl::Span<const Info> out, const ScalarProgram* to_apply) {
  const Info& o = out[0];
  switch (inst.opcode()) {
    case HloOpcode::kBroadcast: return Broadcast(inst, *ops[0], o);
    case HloOpcode::kReshape: return Reshape(*ops[0], o);
    case HloOpcode::kSlice: return Slice(inst, *ops[0], o);
    case HloOpcode::kDynamicSlice: return DynamicSlice(ops, o);
    case HloOpcode::kDynamicUpdateSlice: return DynamicUpdateSlice(ops, o);
    case HloOpcode::kConcatenate: return Concatenate(inst, ops, o);
    case HloOpcode::kPad: return Pad(inst, ops, o);
    case HloOpcode::kReverse: return Reverse(inst, *ops[0], o);
    case HloOpcode::kIota: return Iota(inst, o);
    case HloOpcode::kConstant: return Constant(inst, o);
    case HloOpcode::kDot: return Dot(inst, *ops[0], *ops[1], o);
    case HloOpcode::kConvolution: return Convolution(inst, *ops[0], *ops[1], o);
    case HloOpcode::kReduce: return Reduce(inst, ops, out, *to_apply);
    case HloOpcode::kGather: return Gather(inst, *ops[0], *ops[1], o);
    case HloOpcode::kScatter: return Scatter(inst, ops, out, *to_apply);
    case HloOpcode::kBatchNormTraining: case HloOpcode::kBatchNormInference:
    case HloOpcode::kBatchNormGrad:
      return BatchNorm(inst, ops, out);
    case HloOpcode::kRngBitGenerator: return RngBitGenerator(inst, ops, out);
    case HloOpcode::kRng: return RngOp(inst, ops, o, InstructionSeed(inst));
    case HloOpcode::kBitcastConvert: return BitcastConvert(*ops[0], o);
    case HloOpcode::kReducePrecision: return ReducePrecision(inst, *ops[0], o);
    case HloOpcode::kSort: return Sort(inst, ops, out, *to_apply);
    case HloOpcode::kTopK: return TopK(inst, *ops[0], out);
    case HloOpcode::kCholesky: return Cholesky(inst, *ops[0], o);
    case HloOpcode::kTriangularSolve: return TriangularSolve(inst, *ops[0], *ops[1], o);
    case HloOpcode::kReduceWindow: return ReduceWindow(inst, ops, out, *to_apply);
    case HloOpcode::kSelectAndScatter:
      return SelectAndScatter(inst, ops, o, to_apply[0], to_apply[1]);
    case HloOpcode::kMap: return Map(ops, o, *to_apply);
    case HloOpcode::kDynamicReshape: return DynamicReshape(inst, ops, o);
    case HloOpcode::kGetDimensionSize: return GetDimensionSize(inst, o);
    case HloOpcode::kFft: return Fft(inst, *ops[0], o);
    default: return Elementwise(inst, ops, o);
  }
}

}  // namespace xla_layout::runtime
