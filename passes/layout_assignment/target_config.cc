#include "passes/layout_assignment/target_config.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "xla_layout/file_io.h"
#include "xla_layout/primitive_type.h"
#include "xla_layout/tiled_layout.h"

namespace xla_layout {
namespace {

// The built-in tables (SPEC section 5). TPU: every array of 8 to 64 bits
// and rank >= 1 is tiled (required), as a TPU keeps its memory; rank >= 2 in
// (8,128) tiles, or 4, 2 or 1 rows where fewer pad less; 16-bit ones also
// pair rows into 32-bit words, (2,1); 8-bit ones put four rows in a word,
// (4,1); rank 1 in one 4 KiB vector register's worth (1024 32-bit
// elements) or a quarter of one for short arrays. CPUs pack f32 matmul operands like
// IREE's data tiling: 8x8x1 (AVX2, arm64), 16x16x1 (AVX-512). The padding
// limit of 1.5 lets e.g. f32[100,200] tile (104x256 slots: 1.33x) but
// refuses the tiny-dim cases users complain about (u32[12582912,1] would
// take 128x). The copy
// throughputs of the x86 tables and `default` come from `hlo-layout
// calibrate` on one AVX-512 machine, as a starting point: calibrate makes a
// table for the machine at hand. The TPU and arm64 tables have none, so
// their copies are priced by their bytes. The x86 tables' convolution read
// factors are one run each of `hlo-layout calibrate --target=cpu-avx512
// --repeat=9` (cpu-avx2: with DNNL_MAX_CPU_ISA=AVX2, which holds oneDNN to
// AVX2 kernels) on that machine; arm64 and tpu keep a factor of 1: no
// convolution of theirs ran here (README, docs/layout-assignment.md).
constexpr absl::string_view kBuiltins[][2] = {
    {"default", R"pb(
      name: "default"
      description: "row-major layouts, no tiles"
      cost_model { copy_throughput { contiguous_gbps: 58 tile_gbps: 48 transpose_gbps: 19 subbyte_gbps: 1.8 } }
    )pb"},
    {"tpu", R"pb(
      name: "tpu"
      description: "TPU-like: every array tiled; T(8,128), (2,1) for 16-bit, (4,1) for 8-bit; 1-D T(1024)"
      base_tilings { element_bits: 32 min_rank: 2 required: true tiles { dimensions: [ 8, 128 ] } }
      base_tilings { element_bits: 32 min_rank: 2 required: true tiles { dimensions: [ 4, 128 ] } }
      base_tilings { element_bits: 32 min_rank: 2 required: true tiles { dimensions: [ 2, 128 ] } }
      base_tilings { element_bits: 32 min_rank: 2 required: true tiles { dimensions: [ 1, 128 ] } }
      base_tilings { element_bits: 64 min_rank: 2 required: true tiles { dimensions: [ 8, 128 ] } }
      base_tilings { element_bits: 64 min_rank: 2 required: true tiles { dimensions: [ 4, 128 ] } }
      base_tilings { element_bits: 64 min_rank: 2 required: true tiles { dimensions: [ 2, 128 ] } }
      base_tilings { element_bits: 64 min_rank: 2 required: true tiles { dimensions: [ 1, 128 ] } }
      base_tilings { element_bits: 16 min_rank: 2 required: true tiles { dimensions: [ 8, 128 ] } tiles { dimensions: [ 2, 1 ] } }
      base_tilings { element_bits: 16 min_rank: 2 required: true tiles { dimensions: [ 4, 128 ] } tiles { dimensions: [ 2, 1 ] } }
      base_tilings { element_bits: 16 min_rank: 2 required: true tiles { dimensions: [ 2, 128 ] } tiles { dimensions: [ 2, 1 ] } }
      base_tilings { element_bits: 8 min_rank: 2 required: true tiles { dimensions: [ 8, 128 ] } tiles { dimensions: [ 4, 1 ] } }
      base_tilings { element_bits: 8 min_rank: 2 required: true tiles { dimensions: [ 4, 128 ] } tiles { dimensions: [ 4, 1 ] } }
      base_tilings { element_bits: 32 min_rank: 1 max_rank: 1 required: true tiles { dimensions: [ 1024 ] } }
      base_tilings { element_bits: 32 min_rank: 1 max_rank: 1 required: true tiles { dimensions: [ 256 ] } }
      base_tilings { element_bits: 64 min_rank: 1 max_rank: 1 required: true tiles { dimensions: [ 512 ] } }
      base_tilings { element_bits: 64 min_rank: 1 max_rank: 1 required: true tiles { dimensions: [ 128 ] } }
      base_tilings { element_bits: 16 min_rank: 1 max_rank: 1 required: true tiles { dimensions: [ 2048 ] } }
      base_tilings { element_bits: 16 min_rank: 1 max_rank: 1 required: true tiles { dimensions: [ 512 ] } }
      base_tilings { element_bits: 8 min_rank: 1 max_rank: 1 required: true tiles { dimensions: [ 4096 ] } }
      base_tilings { element_bits: 8 min_rank: 1 max_rank: 1 required: true tiles { dimensions: [ 1024 ] } }
      conv_channels_last: true
      cost_model { max_padding_ratio: 1.5 conv_mismatch_read_factor: 1 }
    )pb"},
    {"cpu-avx2", R"pb(
      name: "cpu-avx2"
      description: "x86 AVX2: f32 matmul operands packed 8x8x1"
      dot_tilings { element_type: F32 m0: 8 n0: 8 k0: 1 }
      conv_channels_last: true
      cost_model { max_padding_ratio: 1.5 min_dot_operand_reads: 2 conv_mismatch_read_factor: 1
                   copy_throughput { contiguous_gbps: 58 tile_gbps: 48 transpose_gbps: 19 subbyte_gbps: 1.8 }
                   conv_read_factors { kind: POINTWISE pass: FORWARD read: CHANNELS_FIRST_READ factor: 0.0271 }
                   conv_read_factors { kind: DEPTHWISE pass: FORWARD read: CHANNELS_FIRST_READ factor: 63.7 }
                   conv_read_factors { kind: DENSE pass: FORWARD read: CHANNELS_FIRST_READ factor: 0.01 }
                   conv_read_factors { kind: POINTWISE pass: INPUT_GRADIENT read: CHANNELS_FIRST_READ factor: 0.01 }
                   conv_read_factors { kind: DEPTHWISE pass: INPUT_GRADIENT read: CHANNELS_FIRST_READ factor: 94.1 }
                   conv_read_factors { kind: DENSE pass: INPUT_GRADIENT read: CHANNELS_FIRST_READ factor: 48.7 }
                   conv_read_factors { kind: POINTWISE pass: WEIGHT_GRADIENT read: CHANNELS_FIRST_READ factor: 3.76 }
                   conv_read_factors { kind: DEPTHWISE pass: WEIGHT_GRADIENT read: CHANNELS_FIRST_READ factor: 46.4 }
                   conv_read_factors { kind: DENSE pass: WEIGHT_GRADIENT read: CHANNELS_FIRST_READ factor: 0.01 } }
    )pb"},
    {"cpu-avx512", R"pb(
      name: "cpu-avx512"
      description: "x86 AVX-512: f32 matmul operands packed 16x16x1"
      dot_tilings { element_type: F32 m0: 16 n0: 16 k0: 1 }
      conv_channels_last: true
      cost_model { max_padding_ratio: 1.5 min_dot_operand_reads: 2 conv_mismatch_read_factor: 1
                   copy_throughput { contiguous_gbps: 58 tile_gbps: 48 transpose_gbps: 19 subbyte_gbps: 1.8 }
                   conv_read_factors { kind: POINTWISE pass: FORWARD read: CHANNELS_FIRST_READ factor: 0.01 }
                   conv_read_factors { kind: DEPTHWISE pass: FORWARD read: CHANNELS_FIRST_READ factor: 38.2 }
                   conv_read_factors { kind: DENSE pass: FORWARD read: CHANNELS_FIRST_READ factor: 55.3 }
                   conv_read_factors { kind: POINTWISE pass: INPUT_GRADIENT read: CHANNELS_FIRST_READ factor: 0.01 }
                   conv_read_factors { kind: DEPTHWISE pass: INPUT_GRADIENT read: CHANNELS_FIRST_READ factor: 69.7 }
                   conv_read_factors { kind: DENSE pass: INPUT_GRADIENT read: CHANNELS_FIRST_READ factor: 101 }
                   conv_read_factors { kind: POINTWISE pass: WEIGHT_GRADIENT read: CHANNELS_FIRST_READ factor: 3.74 }
                   conv_read_factors { kind: DEPTHWISE pass: WEIGHT_GRADIENT read: CHANNELS_FIRST_READ factor: 68.5 }
                   conv_read_factors { kind: DENSE pass: WEIGHT_GRADIENT read: CHANNELS_FIRST_READ factor: 56.1 } }
    )pb"},
    {"arm64", R"pb(
      name: "arm64"
      description: "arm64 NEON: f32 matmul operands packed 8x8x1"
      dot_tilings { element_type: F32 m0: 8 n0: 8 k0: 1 }
      conv_channels_last: true
      cost_model { max_padding_ratio: 1.5 min_dot_operand_reads: 2 conv_mismatch_read_factor: 1 }
    )pb"},
};

class ErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  explicit ErrorCollector(absl::string_view filename) : filename_(filename) {}
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (first_.empty()) {
      first_ = absl::StrCat(filename_, ":", line + 1, ":", column + 1,
                            ": error: ", message);
    }
  }
  const std::string& first() const { return first_; }

 private:
  std::string filename_;
  std::string first_;
};

bool ValidBits(int bits) {
  for (int b : {0, 1, 2, 4, 8, 16, 32, 64, 128}) {
    if (bits == b) return true;
  }
  return false;
}

absl::Status CheckCopyThroughput(const std::string& where, const CopyThroughput& rates) {
  for (auto [name, value] : {std::pair{"contiguous_gbps", rates.contiguous_gbps()},
                             std::pair{"tile_gbps", rates.tile_gbps()},
                             std::pair{"transpose_gbps", rates.transpose_gbps()},
                             std::pair{"subbyte_gbps", rates.subbyte_gbps()}}) {
    if (!(value >= 0) || !std::isfinite(value)) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": cost_model.copy_throughput.", name, " must be a finite, non-negative rate"));
    }
    if (value > 0 && value < kMinCopyGbps) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": cost_model.copy_throughput.", name, " is ", value,
          " GB/s, too slow to time a copy at; use 0 (not measured) or at least ",
          kMinCopyGbps, " GB/s"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckReadFactor(const std::string& where, absl::string_view field, double factor) {
  if (factor < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": cost_model.", field, " must not be negative"));
  }
  if (!(factor <= kMaxConvMismatchReadFactor)) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": cost_model.", field, " is ", factor, "; use at most ",
                     static_cast<int64_t>(kMaxConvMismatchReadFactor)));
  }
  return absl::OkStatus();
}

// Every number of the cost model is finite: a NaN or an infinity would
// reach the costs the pass compares and the figures its reports print.
absl::Status CheckCostModel(const std::string& where, const CostModel& cost) {
  const double ratio = cost.max_padding_ratio();
  if (!std::isfinite(ratio) || (ratio != 0 && ratio < 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": cost_model.max_padding_ratio is ", ratio,
        "; use 0 (no limit) or a finite factor >= 1"));
  }
  absl::Status factor = CheckReadFactor(where, "conv_mismatch_read_factor",
                                         cost.conv_mismatch_read_factor());
  for (int k = 0; factor.ok() && k < cost.conv_read_factors_size(); ++k) {
    factor = CheckReadFactor(where, absl::StrCat("conv_read_factors[", k, "].factor"),
                             cost.conv_read_factors(k).factor());
  }
  if (!factor.ok()) return factor;
  absl::Status rates = CheckCopyThroughput(where, cost.copy_throughput());
  if (!rates.ok()) return rates;
  const double reads = cost.min_dot_operand_reads();
  if (!(reads >= 0) || !std::isfinite(reads)) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": cost_model.min_dot_operand_reads must be a finite, non-negative count"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<TargetConfig> TargetConfig::FromProto(TargetLayoutConfig proto) {
  const std::string where =
      absl::StrCat("target '", proto.name().empty() ? "?" : proto.name(), "'");
  if (proto.name().empty()) {
    return absl::InvalidArgumentError("a target table needs a name");
  }
  for (int i = 0; i < proto.base_tilings_size(); ++i) {
    const BaseTiling& rule = proto.base_tilings(i);
    if (!ValidBits(rule.element_bits())) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": base_tilings[", i, "].element_bits is ",
          rule.element_bits(), "; use 0 (any) or a power of two up to 128"));
    }
    if (rule.min_rank() < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": base_tilings[", i, "].min_rank must not be negative"));
    }
    if (rule.max_rank() < 0 || (rule.max_rank() > 0 && rule.max_rank() < rule.min_rank())) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": base_tilings[", i, "].max_rank is ", rule.max_rank(),
          "; use 0 (no limit) or at least min_rank (", rule.min_rank(), ")"));
    }
    if (rule.required() && rule.tiles_size() == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": base_tilings[", i, "] is required but has no tiles"));
    }
    int rank = rule.min_rank() == 0 ? 1 : rule.min_rank();
    if (rule.tiles_size() > kMaxTiles) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": base_tilings[", i, "].tiles has ", rule.tiles_size(),
          " tiles; a layout has at most ", kMaxTiles));
    }
    // A tile's elements must stay far from int64 overflow once multiplied
    // by a shape's tile count.
    constexpr int64_t kMaxTileElements = int64_t{1} << 31;
    for (int k = 0; k < rule.tiles_size(); ++k) {
      int64_t elements = 1;
      for (int64_t d : rule.tiles(k).dimensions()) {
        if (d > 0 && elements > kMaxTileElements / d) {
          return absl::InvalidArgumentError(absl::StrCat(
              where, ": base_tilings[", i, "].tiles[", k,
              "] has more than ", kMaxTileElements, " elements"));
        }
        if (d > 0) elements *= d;
      }
    }
    for (int k = 0; k < rule.tiles_size(); ++k) {
      absl::StatusOr<Tile> tile = Tile::FromProto(rule.tiles(k));
      if (!tile.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            where, ": base_tilings[", i, "].tiles[", k, "]: ",
            tile.status().message()));
      }
      if (k == 0 && tile->rank() > rank) {
        return absl::InvalidArgumentError(absl::StrCat(
            where, ": base_tilings[", i, "]: tile ", tile->ToString(),
            " has rank ", tile->rank(), " but min_rank is ", rule.min_rank()));
      }
    }
  }
  for (int i = 0; i < proto.dot_tilings_size(); ++i) {
    const DotTiling& dot = proto.dot_tilings(i);
    if (!IsArrayType(dot.element_type())) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": dot_tilings[", i, "] needs an array element type"));
    }
    if (dot.m0() <= 0 || dot.n0() <= 0 || dot.k0() <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": dot_tilings[", i, "]: m0, n0 and k0 must be positive"));
    }
    constexpr int64_t kMaxPanel = 1 << 16;
    for (auto [name, value] : {std::pair{"m0", dot.m0()}, std::pair{"n0", dot.n0()},
                               std::pair{"k0", dot.k0()}}) {
      if (value > kMaxPanel) {
        return absl::InvalidArgumentError(absl::StrCat(
            where, ": dot_tilings[", i, "].", name, " is ", value,
            "; at most ", kMaxPanel));
      }
    }
  }
  absl::Status cost = CheckCostModel(where, proto.cost_model());
  if (!cost.ok()) return cost;
  return TargetConfig(std::move(proto));
}

absl::StatusOr<TargetConfig> TargetConfig::FromTextProto(
    absl::string_view text, absl::string_view filename) {
  TargetLayoutConfig proto;
  google::protobuf::TextFormat::Parser parser;
  ErrorCollector errors(filename);
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(std::string(text), &proto)) {
    return absl::InvalidArgumentError(errors.first().empty()
                                          ? absl::StrCat(filename, ": error: "
                                                                   "cannot parse")
                                          : errors.first());
  }
  absl::StatusOr<TargetConfig> config = FromProto(std::move(proto));
  if (!config.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(filename, ": error: ", config.status().message()));
  }
  return config;
}

absl::StatusOr<TargetConfig> TargetConfig::FromFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileBounded(path, "target file");
  if (!text.ok()) return text.status();
  return FromTextProto(*text, path);
}

absl::StatusOr<TargetConfig> TargetConfig::Builtin(absl::string_view name) {
  for (const auto& [builtin, text] : kBuiltins) {
    if (builtin == name) return FromTextProto(text, absl::StrCat("<", name, ">"));
  }
  return absl::NotFoundError(absl::StrCat("unknown target '", name,
                                          "'; known targets: ",
                                          absl::StrJoin(BuiltinNames(), ", ")));
}

std::vector<std::string> TargetConfig::BuiltinNames() {
  std::vector<std::string> names;
  for (const auto& [name, text] : kBuiltins) names.emplace_back(name);
  return names;
}

namespace {

bool Matches(const BaseTiling& rule, const Shape& shape) {
  return shape.IsArray() &&
         (rule.element_bits() == 0 ||
          rule.element_bits() == PrimitiveBitWidth(shape.element_type())) &&
         shape.rank() >= rule.min_rank() &&
         (rule.max_rank() == 0 || shape.rank() <= rule.max_rank());
}

std::vector<Tile> TilesOf(const BaseTiling& rule) {
  std::vector<Tile> tiles;
  for (const TileProto& t : rule.tiles()) tiles.push_back(*Tile::FromProto(t));
  return tiles;
}

}  // namespace

std::vector<Tile> TargetConfig::BaseTiles(const Shape& shape) const {
  for (const BaseTiling& rule : proto_.base_tilings()) {
    if (Matches(rule, shape)) return TilesOf(rule);
  }
  return {};
}

bool TargetConfig::RequiresTiles(const Shape& shape) const {
  if (!shape.IsArray() || shape.rank() == 0) return false;
  // An unbounded dim ('?') has no size to tile.
  for (int d = 0; d < shape.rank(); ++d) {
    if (shape.is_unbounded_dynamic_dimension(d)) return false;
  }
  for (const BaseTiling& rule : proto_.base_tilings()) {
    if (Matches(rule, shape)) return rule.required();
  }
  return false;
}

std::vector<std::vector<Tile>> TargetConfig::TileVariants(const Shape& shape) const {
  std::vector<std::vector<Tile>> variants;
  for (const BaseTiling& rule : proto_.base_tilings()) {
    if (!Matches(rule, shape)) continue;
    if (!rule.required()) {
      if (variants.empty()) variants.push_back(TilesOf(rule));
      break;
    }
    variants.push_back(TilesOf(rule));
  }
  return variants;
}

std::optional<DotTiling> TargetConfig::DotTilingFor(PrimitiveType type) const {
  for (const DotTiling& dot : proto_.dot_tilings()) {
    if (dot.element_type() == type) return dot;
  }
  return std::nullopt;
}

double TargetConfig::ConvReadFactorFor(ConvKind kind, ConvPass pass, ConvRead read) const {
  for (const ConvReadFactor& f : proto_.cost_model().conv_read_factors()) {
    if ((f.kind() == ANY_CONV || f.kind() == kind) &&
        (f.pass() == ANY_PASS || f.pass() == pass) &&
        (f.read() == ANY_READ || f.read() == read)) {
      return f.factor();
    }
  }
  return proto_.cost_model().conv_mismatch_read_factor();
}

absl::StatusOr<double> TargetConfig::PaddingRatio(const Shape& shape) {
  absl::StatusOr<TiledLayout> layout = TiledLayout::Create(shape);
  if (!layout.ok()) return layout.status();
  if (layout->element_count() == 0) return 1.0;
  return static_cast<double>(layout->slot_count()) /
         static_cast<double>(layout->element_count());
}

absl::StatusOr<bool> TargetConfig::PaddingAcceptable(const Shape& shape) const {
  double limit = proto_.cost_model().max_padding_ratio();
  if (limit == 0) return true;
  absl::StatusOr<double> ratio = PaddingRatio(shape);
  if (!ratio.ok()) return ratio.status();
  return *ratio <= limit;
}

}  // namespace xla_layout
