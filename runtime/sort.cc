#include "runtime/sort.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xla_layout::runtime {
namespace {

// A bottom-up merge sort of `perm` by `less` that keeps equal elements in
// order. Written out rather than std::stable_sort so that a comparator that
// is no strict weak order (a NaN under LT) still gives one defined result.
template <typename Less>
void StableSort(std::vector<int64_t>& perm, Less&& less) {
  const size_t n = perm.size();
  std::vector<int64_t> merged(n);
  for (size_t width = 1; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      const size_t mid = std::min(lo + width, n), hi = std::min(lo + 2 * width, n);
      size_t i = lo, j = mid, k = lo;
      // The right run's element goes first only when strictly less.
      while (i < mid && j < hi) merged[k++] = less(perm[j], perm[i]) ? perm[j++] : perm[i++];
      while (i < mid) merged[k++] = perm[i++];
      while (j < hi) merged[k++] = perm[j++];
    }
    perm.swap(merged);
  }
}

// Calls fn(row) for every row of `dims` along `dim`, rows in row-major
// order of the other dims; row[j] is the index of the row's element j.
template <typename Fn>
void ForEachRow(absl::Span<const int64_t> dims, int dim, Fn&& fn) {
  std::vector<int64_t> outer(dims.begin(), dims.end());
  outer[dim] = 1;
  std::vector<IndexVector> row(dims[dim]);
  ForEachIndex(outer, [&](const IndexVector& start) {
    for (size_t j = 0; j < row.size(); ++j) {
      row[j] = start;
      row[j][dim] = static_cast<int64_t>(j);
    }
    fn(static_cast<const std::vector<IndexVector>&>(row));
  });
}

std::vector<int64_t> Identity(size_t n) {
  std::vector<int64_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  return perm;
}

absl::StatusOr<std::vector<Value>> AllocateAll(absl::Span<const Info> out) {
  std::vector<Value> results;
  for (const Info& info : out) {
    absl::StatusOr<Value> v = Value::Allocate(info);
    if (!v.ok()) return v.status();
    results.push_back(*std::move(v));
  }
  return results;
}

}  // namespace

absl::Status CheckSort(const HloInstruction& inst) {
  const int n = inst.operand_count();
  if (n < 1) return OpError(inst, "a sort needs an operand");
  const Shape& first = inst.operand(0)->shape();
  std::vector<PrimitiveType> types;
  for (const HloInstruction* o : inst.operands()) {
    if (!o->shape().IsArray() || o->shape().dimensions() != first.dimensions()) {
      return OpError(inst, "the operands of a sort must be arrays of one shape");
    }
    types.push_back(o->shape().element_type());
    types.push_back(o->shape().element_type());
  }
  const std::vector<int64_t> dims = Attr(inst.attributes().dimensions);
  if (dims.size() != 1 || dims[0] < 0 || dims[0] >= first.rank()) {
    return OpError(
        inst, absl::StrCat("dimensions must name one dim of the rank-", first.rank(), " operands"));
  }
  absl::StatusOr<bool> stable = BoolAttr(inst, "is_stable", false);
  if (!stable.ok()) return stable.status();
  return CheckScalarComputation(inst, "to_apply", 2 * n, types, 1, PRED);
}

absl::StatusOr<Value> Sort(const HloInstruction& inst, absl::Span<const Value* const> ops,
                           absl::Span<const Info> out, const ScalarProgram& compare) {
  const int dim = static_cast<int>(Attr(inst.attributes().dimensions).at(0));
  const size_t n = ops.size();
  absl::StatusOr<std::vector<Value>> results = AllocateAll(out);
  if (!results.ok()) return results.status();
  std::vector<std::vector<Num>> keys(n);
  std::vector<Num> args(2 * n);
  Num verdict;
  ForEachRow(ops[0]->info->dims(), dim, [&](const std::vector<IndexVector>& row) {
    for (size_t k = 0; k < n; ++k) {
      keys[k].resize(row.size());
      for (size_t j = 0; j < row.size(); ++j) keys[k][j] = At(*ops[k], row[j]);
    }
    std::vector<int64_t> perm = Identity(row.size());
    StableSort(perm, [&](int64_t a, int64_t b) {
      for (size_t k = 0; k < n; ++k) {
        args[2 * k] = keys[k][a];
        args[2 * k + 1] = keys[k][b];
      }
      compare.Run(args, absl::MakeSpan(&verdict, 1));
      return verdict.i != 0;
    });
    // Moved as bits: a NaN keeps its payload.
    for (size_t k = 0; k < n; ++k) {
      for (size_t j = 0; j < row.size(); ++j) {
        out[k]->StoreBits((*results)[k].mutable_data(), out[k]->Slot(row[j]),
                          BitsAt(*ops[k], row[perm[j]]));
      }
    }
  });
  if (n == 1) return std::move((*results)[0]);
  return Value::Tuple(*std::move(results));
}

absl::Status CheckTopK(const HloInstruction& inst) {
  if (inst.operand_count() != 1 || !inst.operand(0)->shape().IsArray() ||
      inst.operand(0)->shape().rank() < 1) {
    return OpError(inst, "topk takes one array operand of rank 1 or more");
  }
  const Shape& in = inst.operand(0)->shape();
  const std::optional<std::string> k_text = RawAttr(inst, "k");
  int64_t k = -1;
  if (!k_text || !absl::SimpleAtoi(*k_text, &k) || k < 0 || k > in.dimensions(in.rank() - 1)) {
    return OpError(
        inst, absl::StrCat("k must be written and lie in [0, ", in.dimensions(in.rank() - 1), "]"));
  }
  absl::StatusOr<bool> largest = BoolAttr(inst, "largest", true);
  if (!largest.ok()) return largest.status();
  std::vector<int64_t> dims(in.dimensions().begin(), in.dimensions().end());
  dims.back() = k;
  const Shape& out = inst.shape();
  const bool ok = out.IsTuple() && out.tuple_shapes().size() == 2 &&
                  out.tuple_shapes()[0].IsArray() && out.tuple_shapes()[1].IsArray() &&
                  out.tuple_shapes()[0].element_type() == in.element_type() &&
                  out.tuple_shapes()[1].element_type() == S32 &&
                  out.tuple_shapes()[0].dimensions() == absl::MakeConstSpan(dims) &&
                  out.tuple_shapes()[1].dimensions() == absl::MakeConstSpan(dims);
  if (!ok) {
    return OpError(inst, absl::StrCat("the result must be (values, s32 indices) with dims [",
                                      absl::StrJoin(dims, ","), "]"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Value> TopK(const HloInstruction& inst, const Value& operand,
                           absl::Span<const Info> out) {
  int64_t k = 0;
  (void)absl::SimpleAtoi(RawAttr(inst, "k").value_or("0"), &k);
  const bool largest = BoolAttr(inst, "largest", true).value_or(true);
  const PrimitiveType type = operand.info->type();
  const absl::string_view direction = largest ? "GT" : "LT";
  absl::StatusOr<std::vector<Value>> results = AllocateAll(out);
  if (!results.ok()) return results.status();
  const int last = operand.info->rank() - 1;
  std::vector<Num> keys;
  ForEachRow(operand.info->dims(), last, [&](const std::vector<IndexVector>& row) {
    keys.resize(row.size());
    for (size_t j = 0; j < row.size(); ++j) keys[j] = At(operand, row[j]);
    std::vector<int64_t> perm = Identity(row.size());
    StableSort(perm, [&](int64_t a, int64_t b) {
      return ApplyCompare(direction, /*total_order=*/true, type, keys[a], keys[b]);
    });
    // Output element j of the row sits at the operand row's index j.
    for (int64_t j = 0; j < k; ++j) {
      out[0]->StoreBits((*results)[0].mutable_data(), out[0]->Slot(row[j]),
                        BitsAt(operand, row[perm[j]]));
      Num index;
      index.i = perm[j];
      out[1]->Store((*results)[1].mutable_data(), out[1]->Slot(row[j]), index);
    }
  });
  return Value::Tuple(*std::move(results));
}

}  // namespace xla_layout::runtime
