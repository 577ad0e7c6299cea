// The attribute values XLA's text writes as small languages of their own
// (sharding, metadata, frontend_attributes) between that text and the proto
// messages they stand for. Each printer writes what XLA's printer writes, so
// that a value read from text prints back as it was written.
//
// Sharding: {replicated}, {manual}, {unknown}, {maximal device=N},
// {devices=[2,1]0,1} or the iota form {devices=[4,2]<=[8]} /
// <=[2,4]T(1,0), each with last_tile_dim_replicate or
// last_tile_dims={manual, ...}, and tuples of these. Sharding metadata,
// shard groups and the named form are refused (not carried).
// Metadata: op_type, op_name, source_file, source_line, source_end_line,
// source_column, source_end_column, deduplicated_name, scheduling_name,
// stack_frame_id; any other key is refused.
#ifndef HLO_HLO_PROTO_TEXT_FORMS_H_
#define HLO_HLO_PROTO_TEXT_FORMS_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/hlo.pb.h"

namespace xla_layout {

absl::StatusOr<xla::OpSharding> ParseShardingText(absl::string_view text);
absl::StatusOr<std::string> ShardingText(const xla::OpSharding& sharding);

absl::StatusOr<xla::OpMetadata> ParseMetadataText(absl::string_view text);
std::string MetadataText(const xla::OpMetadata& metadata);

// `{key="value",...}`; printed with the keys sorted, as XLA prints them.
absl::StatusOr<xla::FrontendAttributes> ParseFrontendAttributesText(absl::string_view text);
std::string FrontendAttributesText(const xla::FrontendAttributes& attributes);

}  // namespace xla_layout

#endif  // HLO_HLO_PROTO_TEXT_FORMS_H_
