// XLA's HloSnapshot for run and verify: its argument and result literals as
// the executor's logical arrays (array leaves in order, tuples flattened),
// and the snapshot run writes with --output-format=snapshot. Element types
// the executor stores (every one but c128) convert; a literal's shape must
// be the parameter's (layouts aside), else an error names both.
#ifndef TOOLS_SNAPSHOT_IO_H_
#define TOOLS_SNAPSHOT_IO_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/hlo_module.h"
#include "proto/hlo.pb.h"
#include "runtime/buffer.h"

namespace xla_layout::cli {

// The array leaves of `literal`, whose shape must be `expected`'s; `what`
// names it in errors ("argument 1").
absl::StatusOr<std::vector<runtime::LogicalArray>> LeavesOfLiteral(
    const xla::LiteralProto& literal, const Shape& expected, const std::string& what);

// The literal of `shape` (its layouts are the literal's) from its array
// leaves, taken from `leaves` at `*next` on.
absl::StatusOr<xla::LiteralProto> LiteralOfLeaves(const Shape& shape,
                                                  absl::Span<const runtime::LogicalArray> leaves,
                                                  size_t* next);

}  // namespace xla_layout::cli

#endif  // TOOLS_SNAPSHOT_IO_H_
