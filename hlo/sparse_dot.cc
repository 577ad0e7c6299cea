#include "hlo/sparse_dot.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"

namespace xla_layout {
namespace {

absl::Status Bad(const std::string& message) {
  return absl::InvalidArgumentError(message);
}

std::string SparsityName(const SparsityDescriptor& d) {
  return absl::StrCat(d.operand == 0 ? "L." : "R.", d.dimension, "@", d.n, ":", d.m);
}

// The descriptor of `operand` (0 lhs, 1 rhs) if it is sparse along `dim`.
const SparsityDescriptor* SparseAlong(absl::Span<const SparsityDescriptor> sparsity,
                                      int operand, int64_t dim) {
  for (const SparsityDescriptor& d : sparsity) {
    if (d.operand == operand && d.dimension == dim) return &d;
  }
  return nullptr;
}

// A sparse dot's metadata operand, as XLA has it: u16 with the sparse
// operand's dims, where 2:4 packs the positions of 8 stored elements (2 bits
// each) into one u16 along the sparse dim. For other N:M the sparse dim's
// packing is not checked.
absl::Status CheckSparsityMetadata(const HloInstruction& i, const SparsityDescriptor& d,
                                   int index) {
  const Shape& operand = i.operand(d.operand)->shape();
  const Shape& meta = i.operand(2 + index)->shape();
  std::vector<int64_t> dims(operand.dimensions().begin(), operand.dimensions().end());
  const bool two_of_four = d.n == 2 && d.m == 4;
  if (two_of_four) dims[d.dimension] = (dims[d.dimension] + 7) / 8;
  bool fits = meta.element_type() == U16 && meta.rank() == operand.rank();
  for (int k = 0; fits && k < meta.rank(); ++k) {
    fits = meta.dimensions(k) == dims[k] || (k == d.dimension && !two_of_four);
  }
  if (fits) return absl::OkStatus();
  std::string needs = two_of_four ? Shape(U16, dims).ToString()
                                  : "u16 of its dims (the sparse one aside)";
  return Bad(absl::StrCat("sparsity metadata (operand ", 2 + index, ") is ", meta.ToString(),
                          ", but ", SparsityName(d), " on ", operand.ToString(), " needs ",
                          needs));
}

}  // namespace

absl::Status CheckSparsity(const HloInstruction& i, const std::vector<int64_t>& lc,
                           const std::vector<int64_t>& rc) {
  const std::vector<SparsityDescriptor>& sparsity = i.attributes().dot().sparsity;
  for (size_t k = 0; k < sparsity.size(); ++k) {
    const SparsityDescriptor& d = sparsity[k];
    const std::vector<int64_t>& contracting = d.operand == 0 ? lc : rc;
    if (std::find(contracting.begin(), contracting.end(), d.dimension) == contracting.end()) {
      return Bad(absl::StrCat("sparsity ", SparsityName(d), ": ", d.operand == 0 ? "lhs" : "rhs",
                              " dim ", d.dimension, " is not a contracting dim"));
    }
    absl::Status st = CheckSparsityMetadata(i, d, static_cast<int>(k));
    if (!st.ok()) return st;
  }
  return absl::OkStatus();
}

namespace {

// One contracted dim's size, for messages: "32" or "16 stored, 2:4 sparse".
std::string ContractedSize(const Shape& s, int64_t dim, const SparsityDescriptor* d) {
  if (d == nullptr) return absl::StrCat(s.dimensions(dim));
  return absl::StrCat(s.dimensions(dim), " stored, ", d->n, ":", d->m, " sparse");
}

}  // namespace

absl::Status CheckContractedSizes(const HloInstruction& i, const std::vector<int64_t>& lc,
                                  const std::vector<int64_t>& rc) {
  const Shape& lhs = i.operand(0)->shape();
  const Shape& rhs = i.operand(1)->shape();
  const std::vector<SparsityDescriptor>& sparsity = i.attributes().dot().sparsity;
  for (size_t k = 0; k < lc.size(); ++k) {
    const SparsityDescriptor* ls = SparseAlong(sparsity, 0, lc[k]);
    const SparsityDescriptor* rs = SparseAlong(sparsity, 1, rc[k]);
    // lhs * m_l / n_l == rhs * m_r / n_r, without division or overflow.
    __int128 l = lhs.dimensions(lc[k]), r = rhs.dimensions(rc[k]);
    if (ls != nullptr) {
      l *= ls->m;
      r *= ls->n;
    }
    if (rs != nullptr) {
      l *= rs->n;
      r *= rs->m;
    }
    if (l != r) {
      return Bad(absl::StrCat("dot contracts lhs dim ", lc[k], " (",
                              ContractedSize(lhs, lc[k], ls), ") with rhs dim ", rc[k], " (",
                              ContractedSize(rhs, rc[k], rs), ")"));
    }
  }
  return absl::OkStatus();
}

}  // namespace xla_layout
