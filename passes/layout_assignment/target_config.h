// A target's layout table (proto/target.proto) with its validation and the
// questions the layout assignment pass asks it: which tiles an array gets,
// how dot operands are packed, and whether a tiling pads too much.
//
// A TargetConfig is always valid: FromProto refuses a table without a name,
// a base tiling with an element width other than 0 or a power of two up to
// 128, a negative min_rank, more than kMaxTiles tiles in a rule, a tile of
// more than 2^31 elements, an invalid tile or a first tile of higher rank
// than the rule's, a max_rank below min_rank, a required rule without
// tiles, a dot tiling without an array type or with a size below
// 1 or above 65536, a max_padding_ratio in (0, 1), and any cost-model
// number that is not finite, is negative, or lies outside the bounds below
// (a copy rate other than 0 under kMinCopyGbps, a conv_mismatch_read_factor
// or a conv_read_factors factor over kMaxConvMismatchReadFactor); each
// error names the field. Tiles are not
// checked against any shape's size. The table only answers questions; the
// pass decides (cost_model.h).
#ifndef PASSES_LAYOUT_ASSIGNMENT_TARGET_CONFIG_H_
#define PASSES_LAYOUT_ASSIGNMENT_TARGET_CONFIG_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/target.pb.h"
#include "xla_layout/shape.h"

namespace xla_layout {

// The pass's times are bytes over a copy rate: a copy's bytes (at most
// INT64_MAX < 9.3e18: byte counts saturate there) over its class's rate, and
// a convolution read's bytes times conv_mismatch_read_factor over the
// contiguous rate; the text report shows them again in microseconds. Rates
// of at least kMinCopyGbps (1 kB/s, far below any memory system: only a
// unit slip gets there) and a factor of at most kMaxConvMismatchReadFactor
// keep the largest, 9.3e18 B x 1e6 / 1e3 B/s x 1e6 us/s, near 1e28: finite
// with some 280 orders of magnitude to spare, where a rate of 1e-300 would
// overflow to infinity, which no cost compares sensibly and JSON cannot
// print. No read pattern costs a million times its bytes (a strided read
// wastes at most a cache line per element); 0 already says "always copy".
inline constexpr double kMinCopyGbps = 1e-6;
inline constexpr double kMaxConvMismatchReadFactor = 1e6;

class TargetConfig {
 public:
  // Validates tiles, element widths, ranks, dot tile sizes and the cost model.
  static absl::StatusOr<TargetConfig> FromProto(TargetLayoutConfig proto);
  // Text format; errors read `filename:line:col: error: message`.
  static absl::StatusOr<TargetConfig> FromTextProto(absl::string_view text,
                                                    absl::string_view filename);
  static absl::StatusOr<TargetConfig> FromFile(const std::string& path);
  // tpu, cpu-avx2, cpu-avx512, arm64, default.
  static absl::StatusOr<TargetConfig> Builtin(absl::string_view name);
  static std::vector<std::string> BuiltinNames();

  const TargetLayoutConfig& proto() const { return proto_; }
  const std::string& name() const { return proto_.name(); }

  // The table's tiles for an array of this element type and rank (the first
  // matching rule), or none.
  std::vector<Tile> BaseTiles(const Shape& shape) const;
  // Whether the first rule matching `shape` (an array of rank >= 1 without
  // unbounded dims) is required: the target keeps such arrays in tiles only.
  bool RequiresTiles(const Shape& shape) const;
  // The tilings `shape` may take: when the first matching rule is required,
  // every required rule that matches, in table order; otherwise that rule's
  // tiles alone; none when no rule matches.
  std::vector<std::vector<Tile>> TileVariants(const Shape& shape) const;
  std::optional<DotTiling> DotTilingFor(PrimitiveType type) const;
  // What a convolution of `kind` and `pass` pays per byte to read an
  // operand as `read` says: the first conv_read_factors entry that matches
  // (ANY_* matches all), else conv_mismatch_read_factor.
  double ConvReadFactorFor(ConvKind kind, ConvPass pass, ConvRead read) const;
  // Padded bytes over data bytes of `shape` in its layout.
  static absl::StatusOr<double> PaddingRatio(const Shape& shape);
  // Whether the cost model accepts the padding of `shape` in its layout.
  absl::StatusOr<bool> PaddingAcceptable(const Shape& shape) const;

 private:
  explicit TargetConfig(TargetLayoutConfig proto) : proto_(std::move(proto)) {}
  TargetLayoutConfig proto_;
};

}  // namespace xla_layout

#endif  // PASSES_LAYOUT_ASSIGNMENT_TARGET_CONFIG_H_
