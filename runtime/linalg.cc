#include "runtime/linalg.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace xla_layout::runtime {
namespace {

// Reads and writes element (i, j) of the matrix at batch index `batch`.
class MatrixAt {
 public:
  explicit MatrixAt(int rank) : at_(rank, 0) {}
  const IndexVector& operator()(const IndexVector& batch, int64_t i, int64_t j) {
    std::copy(batch.begin(), batch.end(), at_.begin());
    at_[at_.size() - 2] = i;
    at_[at_.size() - 1] = j;
    return at_;
  }

 private:
  IndexVector at_;
};

std::vector<int64_t> BatchDims(absl::Span<const int64_t> dims) {
  return std::vector<int64_t>(dims.begin(), dims.end() - 2);
}

Num Multiply(PrimitiveType t, Num a, Num b) { return ApplyBinary(HloOpcode::kMultiply, t, a, b); }
Num Subtract(PrimitiveType t, Num a, Num b) { return ApplyBinary(HloOpcode::kSubtract, t, a, b); }
Num Divide(PrimitiveType t, Num a, Num b) { return ApplyBinary(HloOpcode::kDivide, t, a, b); }

bool IsFloatArray(const Shape& s) {
  return s.IsArray() && DomainOf(s.element_type()) == Domain::kFloat;
}

}  // namespace

absl::Status CheckCholesky(const HloInstruction& inst) {
  const Shape& a = inst.operand_count() == 1 ? inst.operand(0)->shape() : inst.shape();
  if (inst.operand_count() != 1 || !IsFloatArray(a) || a.rank() < 2 ||
      a.dimensions(a.rank() - 1) != a.dimensions(a.rank() - 2)) {
    return OpError(inst, "cholesky takes one floating-point array of square matrices [..., n, n]");
  }
  if (!inst.shape().IsArray() || inst.shape().dimensions() != a.dimensions() ||
      inst.shape().element_type() != a.element_type()) {
    return OpError(inst, "the result of a cholesky has its operand's shape");
  }
  return BoolAttr(inst, "lower", false).status();
}

absl::StatusOr<Value> Cholesky(const HloInstruction& inst, const Value& a, const Info& out) {
  const bool lower = BoolAttr(inst, "lower", false).value_or(false);
  const PrimitiveType t = a.info->type();
  const int rank = a.info->rank();
  const int64_t n = a.info->dims()[rank - 1];
  absl::StatusOr<Value> result = Value::Allocate(out);  // zeros: the unused triangle
  if (!result.ok()) return result;
  std::vector<Num> l(n * n);
  MatrixAt at(rank);
  Num nan;
  nan.f = std::numeric_limits<double>::quiet_NaN();
  ForEachIndex(BatchDims(a.info->dims()), [&](const IndexVector& batch) {
    // Element (i, j), i >= j, of the lower factor of a, or of a^T for an
    // upper factor: read from the triangle `lower` names.
    auto read = [&](int64_t i, int64_t j) {
      return At(a, lower ? at(batch, i, j) : at(batch, j, i));
    };
    bool failed = false;
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t i = j; i < n; ++i) {
        Num s = read(i, j);
        for (int64_t k = 0; k < j; ++k) s = Subtract(t, s, Multiply(t, l[i * n + k], l[j * n + k]));
        if (i == j) {
          s = ApplyUnary(HloOpcode::kSqrt, t, s);
          failed |= std::isnan(s.f);
        } else {
          s = Divide(t, s, l[j * n + j]);
        }
        l[i * n + j] = s;
      }
    }
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        if (failed) {
          out->Store(result->mutable_data(), out->Slot(at(batch, i, j)), nan);
        } else if (j <= i) {
          out->Store(result->mutable_data(), out->Slot(lower ? at(batch, i, j) : at(batch, j, i)),
                     l[i * n + j]);
        }
      }
    }
  });
  return result;
}

absl::Status CheckTriangularSolve(const HloInstruction& inst) {
  if (inst.operand_count() != 2) return OpError(inst, "triangular-solve takes a and b");
  const Shape& a = inst.operand(0)->shape();
  const Shape& b = inst.operand(1)->shape();
  absl::StatusOr<bool> left = BoolAttr(inst, "left_side", false);
  if (!left.ok()) return left.status();
  for (const char* name : {"lower", "unit_diagonal"}) {
    absl::Status s = BoolAttr(inst, name, false).status();
    if (!s.ok()) return s;
  }
  const std::string transpose = RawAttr(inst, "transpose_a").value_or("");
  if (transpose != "NO_TRANSPOSE" && transpose != "TRANSPOSE" && transpose != "ADJOINT") {
    return OpError(inst, "transpose_a must be NO_TRANSPOSE, TRANSPOSE or ADJOINT");
  }
  bool ok = IsFloatArray(a) && b.IsArray() && b.element_type() == a.element_type() &&
            a.rank() >= 2 && b.rank() == a.rank();
  if (ok) {
    const int r = a.rank();
    const int64_t m = a.dimensions(r - 1);
    ok = a.dimensions(r - 2) == m && b.dimensions(*left ? r - 2 : r - 1) == m &&
         BatchDims(a.dimensions()) == BatchDims(b.dimensions());
  }
  if (!ok) {
    return OpError(
        inst, absl::StrCat("needs floating-point a [..., m, m] and b of its type, [..., ",
                           *left ? "m, n" : "n, m", "] with a's batch dims; got ", a.ToString(),
                           " and ", b.ToString()));
  }
  if (!inst.shape().IsArray() || inst.shape().dimensions() != b.dimensions() ||
      inst.shape().element_type() != b.element_type()) {
    return OpError(inst, "the result of a triangular-solve has b's shape");
  }
  return absl::OkStatus();
}

absl::StatusOr<Value> TriangularSolve(const HloInstruction& inst, const Value& a, const Value& b,
                                      const Info& out) {
  const bool left = BoolAttr(inst, "left_side", false).value_or(false);
  const bool lower = BoolAttr(inst, "lower", false).value_or(false);
  const bool unit = BoolAttr(inst, "unit_diagonal", false).value_or(false);
  const bool transpose = RawAttr(inst, "transpose_a").value_or("") != "NO_TRANSPOSE";
  const PrimitiveType t = a.info->type();
  const int rank = a.info->rank();
  const int64_t m = a.info->dims()[rank - 1];
  // Every case is one system T y = rhs per column (left) or row (right) of
  // b: T is op(a) on the left and op(a)^T on the right, so T(i, j) reads
  // a(j, i) exactly when one transpose remains.
  const bool swap = transpose == left;
  const bool t_lower = lower != swap;
  const int64_t vectors = b.info->dims()[left ? rank - 1 : rank - 2];
  absl::StatusOr<Value> result = Value::Allocate(out);
  if (!result.ok()) return result;
  MatrixAt at_a(rank), at_b(rank);
  std::vector<Num> y(m);
  ForEachIndex(BatchDims(a.info->dims()), [&](const IndexVector& batch) {
    auto T = [&](int64_t i, int64_t j) {
      return At(a, swap ? at_a(batch, j, i) : at_a(batch, i, j));
    };
    auto b_at = [&](int64_t v, int64_t i) -> const IndexVector& {
      return left ? at_b(batch, i, v) : at_b(batch, v, i);
    };
    for (int64_t v = 0; v < vectors; ++v) {
      for (int64_t step = 0; step < m; ++step) {
        const int64_t i = t_lower ? step : m - 1 - step;
        Num s = At(b, b_at(v, i));
        const int64_t from = t_lower ? 0 : i + 1, to = t_lower ? i : m;
        for (int64_t k = from; k < to; ++k) s = Subtract(t, s, Multiply(t, T(i, k), y[k]));
        y[i] = unit ? s : Divide(t, s, T(i, i));
      }
      for (int64_t i = 0; i < m; ++i)
        out->Store(result->mutable_data(), out->Slot(b_at(v, i)), y[i]);
    }
  });
  return result;
}

}  // namespace xla_layout::runtime
