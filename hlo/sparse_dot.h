// The sparse dot's checks, for shape inference (shape_inference.h): a dot
// with `sparsity=L.1@2:4` stores an operand compressed along a contracting
// dim, n of every m logical elements kept, and reads a u16 metadata operand
// per descriptor (operand 2 on). XLA's rules: a stored sparse dim is n/m of
// the logical contracting size, and the metadata has the sparse operand's
// dims, 2:4 packing the positions of 8 stored elements (2 bits each) into
// one u16 along the sparse dim (for other N:M that dim is not checked).
#ifndef HLO_SPARSE_DOT_H_
#define HLO_SPARSE_DOT_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "hlo/hlo_module.h"

namespace xla_layout {

// Each of the dot `i`'s descriptors compresses one of the contracting dims
// `lc` (lhs) or `rc` (rhs), and its metadata operand has XLA's shape.
absl::Status CheckSparsity(const HloInstruction& i, const std::vector<int64_t>& lc,
                           const std::vector<int64_t>& rc);

// The contracted dims `lc` and `rc` of the dot `i` agree in logical size
// (a sparse dim counted as stored * m / n); dims in range are assumed.
absl::Status CheckContractedSizes(const HloInstruction& i, const std::vector<int64_t>& lc,
                                  const std::vector<int64_t>& rc);

}  // namespace xla_layout

#endif  // HLO_SPARSE_DOT_H_
