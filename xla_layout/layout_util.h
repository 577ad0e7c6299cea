// Relations between layouts that do not need the index math: physical
// equality up to size-1 dims, the layouts that make a transpose or a reshape
// a bitcast, and which layouts count as chosen rather than defaulted.
#ifndef XLA_LAYOUT_LAYOUT_UTIL_H_
#define XLA_LAYOUT_LAYOUT_UTIL_H_

#include <cstdint>
#include <optional>

#include "absl/types/span.h"
#include "xla_layout/layout.h"
#include "xla_layout/shape.h"

namespace xla_layout {

// Whether layouts `a` and `b` of `shape` put every element at the same
// offset: equal, or untiled and differing only where size-1 dims sit.
bool SamePhysicalLayout(const Shape& shape, const Layout& a, const Layout& b);

// The layout of `to` (a reshape of `from`, same element count) that makes
// the reshape a bitcast of `from` in `from_layout`, if one exists. Size-1
// dims are placed as close to descending order as the bitcast allows; tiles
// carry over only when the tiled minor dims are unchanged.
std::optional<Layout> ReshapeBitcastLayout(const Shape& from,
                                           const Layout& from_layout,
                                           const Shape& to);

// Whether `dims` holds each of 0..rank-1 once (unverified text may not).
bool IsPermutation(absl::Span<const int64_t> dims, int rank);

// The layout on the other side of a transpose by `perm` (XLA's `dimensions`:
// result dim k is operand dim perm[k]) that makes it a bitcast of `from`:
// the operand's layout when `toward_operand`, else the result's; every
// attribute but the order (tiles, E(n), S(n), ...) unchanged. None when `perm` is not a permutation of `from`'s rank.
std::optional<Layout> TransposedLayout(absl::Span<const int64_t> perm,
                                       const Layout& from, bool toward_operand);

// Whether `result` (laid out) is `operand` (laid out) transposed by `perm`
// without moving a byte: its layout is the operand's permuted, up to where
// size-1 dims sit. What turns a transpose into a bitcast.
bool TransposeIsBitcast(const Shape& operand, const Shape& result,
                        absl::Span<const int64_t> perm);

// Whether `result` (laid out) is a reshape of `operand` (laid out) that moves
// no byte: its layout is the one ReshapeBitcastLayout gives, up to where
// size-1 dims sit.
bool ReshapeIsBitcast(const Shape& operand, const Shape& result);

// `layout`'s minor-to-major order restricted to the dims larger than 1 in
// both `a` and `b` (same rank): what a same-order relation compares.
std::vector<int64_t> CommonOrder(const Shape& a, const Shape& b,
                                 const Layout& layout);

// Whether `leaf` carries a layout someone chose, as opposed to the default
// descending untiled one XLA prints for every array nobody laid out.
bool IsChosenLayout(const Shape& leaf);

}  // namespace xla_layout

#endif  // XLA_LAYOUT_LAYOUT_UTIL_H_
