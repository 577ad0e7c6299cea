// MLIR-style pack/unpack (tensor.pack / linalg.pack) on the packing core.
// A pack is an XLA layout of the source's logical shape, so these functions
// only translate the spec into that layout and build a RelayoutPlan: there is
// no second copy loop.
#ifndef XLA_LAYOUT_PACK_H_
#define XLA_LAYOUT_PACK_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xla_layout/relayout.h"
#include "xla_layout/shape.h"

namespace xla_layout {

struct PackSpec {
  std::vector<int64_t> inner_dims_pos;   // source dims to tile
  std::vector<int64_t> inner_tiles;      // tile size of each
  std::vector<int64_t> outer_dims_perm;  // permutes the outer dims; may be empty
  // Fills partial tiles (element-size bytes, or one byte repeated). Without
  // it, a tile that does not divide its dim is an error, as in MLIR.
  std::optional<std::vector<uint8_t>> padding_value;
};

// The packed type MLIR infers: outer dims ceil(d/t) (d for untiled dims) in
// outer_dims_perm order, then the inner tiles.
absl::StatusOr<std::vector<int64_t>> PackedDims(
    absl::Span<const int64_t> source_dims, const PackSpec& spec);

// Checks a packed type written by the user against the spec: rank and every
// dim, as MLIR's verifier does.
absl::Status VerifyPackedDims(absl::Span<const int64_t> source_dims,
                              absl::Span<const int64_t> packed_dims,
                              const PackSpec& spec);

// The source's logical shape with the layout that places each element where
// the row-major packed array has it.
absl::StatusOr<Shape> PackedLayoutShape(const Shape& source,
                                        const PackSpec& spec);

// source (any layout) -> row-major packed array of `packed_dims`.
absl::StatusOr<RelayoutPlan> CreatePackPlan(const Shape& source,
                                            absl::Span<const int64_t> packed_dims,
                                            const PackSpec& spec,
                                            RelayoutOptions options = {});
// row-major packed array -> dest (any layout); the inverse of the pack.
absl::StatusOr<RelayoutPlan> CreateUnpackPlan(
    absl::Span<const int64_t> packed_dims, const Shape& dest,
    const PackSpec& spec, RelayoutOptions options = {});

// One-shot forms.
absl::Status Pack(const Shape& source, const void* src,
                  absl::Span<const int64_t> packed_dims, const PackSpec& spec,
                  void* dst);
absl::Status Unpack(absl::Span<const int64_t> packed_dims, const void* src,
                    const Shape& dest, const PackSpec& spec, void* dst);

}  // namespace xla_layout

#endif  // XLA_LAYOUT_PACK_H_
