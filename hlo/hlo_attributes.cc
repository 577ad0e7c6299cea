#include "hlo/hlo_attributes.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <initializer_list>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/types/span.h"
#include "hlo/attribute_cursor.h"

namespace xla_layout {

using attribute_internal::Error;


namespace {

// The attributes each opcode takes beyond those every instruction takes, as
// XLA's parser declares them: one row per family of opcodes that take the
// same ones (names in the order error messages list them). Opcodes in no
// row take any attribute; none is in two rows.
struct AttributeRow {
  std::initializer_list<HloOpcode> opcodes;
  std::initializer_list<absl::string_view> names;
};

using O = HloOpcode;
const AttributeRow kAttributeRows[] = {
    {{O::kExp, O::kExpm1, O::kLog, O::kLog1p, O::kLogistic, O::kSqrt, O::kCbrt, O::kRsqrt,
      O::kTanh, O::kErf, O::kSin, O::kCos, O::kTan},
     {"result_accuracy"}},
    {{O::kAbs, O::kAllGatherDone, O::kAllReduceDone, O::kRoundNearestAfz,
      O::kRoundNearestEven, O::kBitcast, O::kCeil, O::kClz, O::kCollectivePermuteDone,
      O::kCopy, O::kCopyDone, O::kOptimizationBarrier, O::kImag, O::kIsFinite, O::kFloor,
      O::kNot, O::kNegate, O::kPopulationCount, O::kReal, O::kSign, O::kAdd, O::kDivide,
      O::kMultiply, O::kSubtract, O::kAtan2, O::kComplex, O::kMaximum, O::kMinimum,
      O::kPower, O::kRemainder, O::kAnd, O::kOr, O::kXor, O::kShiftLeft,
      O::kShiftRightArithmetic, O::kShiftRightLogical, O::kStochasticConvert, O::kClamp,
      O::kSelect, O::kConvert, O::kBitcastConvert, O::kReplicaId, O::kPartitionId,
      O::kDynamicReshape, O::kAfterAll, O::kAddDependency, O::kTuple,
      O::kDynamicUpdateSlice, O::kParameter, O::kConstant, O::kAcos, O::kAcosh, O::kAsin,
      O::kAsinh, O::kAtan, O::kAtanh, O::kCosh, O::kSinh, O::kMulhi},
     {}},
    {{O::kIota}, {"iota_dimension"}},
    {{O::kTopK}, {"k", "largest"}},
    // Collectives.
    {{O::kAllGather, O::kAllGatherStart},
     {"replica_groups", "channel_id", "dimensions", "constrain_layout",
      "use_global_device_ids"}},
    {{O::kAllReduce, O::kAllReduceStart, O::kReduceScatter},
     {"to_apply", "replica_groups", "channel_id", "constrain_layout", "use_global_device_ids",
      "dimensions"}},
    {{O::kAllToAll}, {"replica_groups", "channel_id", "dimensions", "constrain_layout"}},
    {{O::kRaggedAllToAll}, {"replica_groups", "channel_id", "dimensions"}},
    {{O::kCollectiveBroadcast}, {"replica_groups", "channel_id"}},
    {{O::kCollectivePermute, O::kCollectivePermuteStart},
     {"source_target_pairs", "channel_id", "slice_sizes"}},
    {{O::kRecv, O::kRecvDone, O::kSend, O::kSendDone}, {"channel_id", "is_host_transfer"}},
    // Control flow and calls.
    {{O::kAsyncStart, O::kAsyncUpdate, O::kAsyncDone}, {"async_execution_thread", "calls"}},
    {{O::kWhile}, {"condition", "body"}},
    {{O::kCall}, {"to_apply", "is_composite"}},
    {{O::kConditional}, {"true_computation", "false_computation", "branch_computations"}},
    {{O::kFusion}, {"calls", "kind", "output_to_operand_aliasing"}},
    {{O::kCustomCall},
     {"custom_call_target", "window", "dim_labels", "feature_group_count",
      "batch_group_count", "operand_layout_constraints", "custom_call_has_side_effect",
      "to_apply", "called_computations", "output_to_operand_aliasing", "padding_type",
      "literal", "operand_precision", "schedule", "api_version"}},
    // Data movement and reductions.
    {{O::kCopyStart}, {"cross_program_prefetch_index"}},
    {{O::kReshape}, {"inferred_dimension"}},
    {{O::kSort}, {"dimensions", "is_stable", "to_apply"}},
    {{O::kGetTupleElement}, {"index"}},
    {{O::kReduceWindow}, {"window", "to_apply"}},
    {{O::kBroadcast, O::kConcatenate, O::kReverse, O::kTranspose, O::kGetDimensionSize,
      O::kSetDimensionSize},
     {"dimensions"}},
    {{O::kMap, O::kReduce}, {"to_apply", "dimensions"}},
    {{O::kSelectAndScatter}, {"select", "scatter", "window"}},
    {{O::kSlice}, {"slice"}},
    {{O::kDynamicSlice}, {"dynamic_slice_sizes"}},
    {{O::kPad}, {"padding"}},
    {{O::kGather},
     {"offset_dims", "collapsed_slice_dims", "start_index_map", "index_vector_dim",
      "slice_sizes", "indices_are_sorted", "operand_batching_dims",
      "start_indices_batching_dims"}},
    {{O::kScatter},
     {"update_window_dims", "inserted_window_dims", "scatter_dims_to_operand_dims",
      "index_vector_dim", "to_apply", "indices_are_sorted", "unique_indices",
      "input_batching_dims", "scatter_indices_batching_dims"}},
    // Linear algebra.
    {{O::kConvolution},
     {"window", "dim_labels", "feature_group_count", "batch_group_count",
      "operand_precision"}},
    {{O::kDot},
     {"lhs_contracting_dims", "rhs_contracting_dims", "lhs_batch_dims", "rhs_batch_dims",
      "operand_precision", "sparsity", "algorithm"}},
    {{O::kRaggedDot},
     {"lhs_contracting_dims", "rhs_contracting_dims", "lhs_batch_dims", "rhs_batch_dims",
      "lhs_ragged_dims", "rhs_group_dims", "operand_precision"}},
    {{O::kFft}, {"fft_type", "fft_length"}},
    {{O::kTriangularSolve}, {"left_side", "lower", "unit_diagonal", "transpose_a"}},
    {{O::kCholesky}, {"lower"}},
    {{O::kBatchNormTraining, O::kBatchNormInference, O::kBatchNormGrad},
     {"epsilon", "feature_index"}},
    // Everything else.
    {{O::kCompare}, {"direction", "type"}},
    {{O::kInfeed}, {"infeed_config"}},
    {{O::kOutfeed}, {"outfeed_config", "outfeed_shape"}},
    {{O::kRng}, {"distribution"}},
    {{O::kRngGetAndUpdateState}, {"delta"}},
    {{O::kRngBitGenerator}, {"algorithm"}},
    {{O::kReducePrecision}, {"exponent_bits", "mantissa_bits"}},
    {{O::kDomain}, {"domain"}},
};

// kAttributeRows by opcode.
const absl::flat_hash_map<HloOpcode, absl::Span<const absl::string_view>>& AttributeTable() {
  static const auto* table = [] {
    auto* t = new absl::flat_hash_map<HloOpcode, absl::Span<const absl::string_view>>();
    for (const AttributeRow& row : kAttributeRows) {
      for (HloOpcode op : row.opcodes) t->emplace(op, row.names);
    }
    return t;
  }();
  return *table;
}

constexpr absl::string_view kEveryInstruction[] = {
    "sharding", "frontend_attributes", "statistics", "parameter_replication",
    "control-predecessors", "origin", "original_value", "metadata", "backend_config"};

}  // namespace

bool TakesAttribute(HloOpcode opcode, absl::string_view name) {
  for (absl::string_view common : kEveryInstruction) {
    if (name == common) return true;
  }
  const auto& table = AttributeTable();
  auto it = table.find(opcode);
  if (it == table.end()) return true;
  for (absl::string_view known : it->second) {
    if (name == known) return true;
  }
  return false;
}

absl::Status CheckAttributeName(HloOpcode opcode, absl::string_view name) {
  if (TakesAttribute(opcode, name)) return absl::OkStatus();
  const absl::Span<const absl::string_view> known = AttributeTable().at(opcode);
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown attribute '", name, "' for ", HloOpcodeString(opcode),
      known.empty() ? std::string(" (it takes only the attributes every instruction takes)")
                    : absl::StrCat(" (it takes ", absl::StrJoin(known, ", "),
                                   ", and those every instruction takes)")));
}

absl::StatusOr<std::vector<std::string>> ParseNameList(absl::string_view text) {
  absl::string_view body = absl::StripAsciiWhitespace(text);
  if (!absl::ConsumePrefix(&body, "{") || !absl::ConsumeSuffix(&body, "}")) {
    return absl::InvalidArgumentError("needs a list of names like {a, b}");
  }
  std::vector<std::string> names;
  if (absl::StripAsciiWhitespace(body).empty()) return names;
  // Every comma separates two names, as XLA's parser reads a list: "{a,}"
  // and "{a,,b}" are refused rather than read as a shorter list.
  for (absl::string_view part : absl::StrSplit(body, ',')) {
    part = absl::StripAsciiWhitespace(part);
    absl::ConsumePrefix(&part, "%");
    if (part.empty()) return absl::InvalidArgumentError("has an empty name");
    names.push_back(std::string(part));
  }
  return names;
}

absl::StatusOr<std::vector<WindowDimension>> ParseWindow(absl::string_view text) {
  absl::string_view body = absl::StripAsciiWhitespace(text);
  auto refuse = [&](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat(
        "window ", what, " (the form is {size=3x3 stride=2x2 pad=1_1x1_1 "
        "lhs_dilate=1x1 rhs_dilate=1x1 rhs_reversal=0x0})"));
  };
  if (!absl::ConsumePrefix(&body, "{") || !absl::ConsumeSuffix(&body, "}")) {
    return refuse("needs braces");
  }
  std::vector<WindowDimension> dims;
  bool saw_size = false;
  for (absl::string_view field : absl::StrSplit(body, ' ', absl::SkipWhitespace())) {
    std::pair<absl::string_view, absl::string_view> kv =
        absl::StrSplit(field, absl::MaxSplits('=', 1));
    std::vector<std::string> parts = absl::StrSplit(kv.second, 'x');
    if (!dims.empty() && parts.size() != dims.size()) {
      return refuse(absl::StrCat("field '", kv.first, "' has ", parts.size(),
                                 " dims, not ", dims.size()));
    }
    if (dims.empty()) dims.resize(parts.size());
    for (size_t d = 0; d < parts.size(); ++d) {
      WindowDimension& w = dims[d];
      auto number = [&](int64_t& out) {
        return absl::SimpleAtoi(parts[d], &out);
      };
      bool ok = true;
      if (kv.first == "size") {
        ok = number(w.size);
        saw_size = true;
      } else if (kv.first == "stride") {
        ok = number(w.stride);
      } else if (kv.first == "pad") {
        std::vector<std::string> lh = absl::StrSplit(parts[d], '_');
        ok = lh.size() == 2 && absl::SimpleAtoi(lh[0], &w.padding_low) &&
             absl::SimpleAtoi(lh[1], &w.padding_high);
      } else if (kv.first == "lhs_dilate") {
        ok = number(w.lhs_dilation);
      } else if (kv.first == "rhs_dilate") {
        ok = number(w.rhs_dilation);
      } else if (kv.first == "rhs_reversal") {
        int64_t r = 0;
        ok = number(r) && (r == 0 || r == 1);
        w.reversal = r == 1;
      } else {
        return refuse(absl::StrCat("has an unknown field '", kv.first, "'"));
      }
      if (!ok) {
        return refuse(absl::StrCat("field '", kv.first, "' has a bad value '",
                                   parts[d], "'"));
      }
    }
  }
  if (!dims.empty() && !saw_size) return refuse("needs size=");
  for (const WindowDimension& w : dims) {
    if (w.size < 0 || w.stride < 1 || w.lhs_dilation < 1 || w.rhs_dilation < 1) {
      return refuse("needs size >= 0, and stride and dilations >= 1");
    }
  }
  return dims;
}

bool IsCalledComputationAttribute(absl::string_view name) {
  return name == "to_apply" || name == "calls" || name == "condition" ||
         name == "body" || name == "true_computation" ||
         name == "false_computation" || name == "branch_computations" ||
         name == "called_computations" || name == "scatter" ||
         name == "select";
}

namespace {

// A conditional names its branches one way: true_computation and
// false_computation (for a pred selector) or branch_computations (for an
// s32 one). XLA refuses both at once: which list the branches are would be
// a guess. `name` is the attribute being read; the earlier ones are there.
absl::Status CheckBranchForm(const HloInstruction& instr, absl::string_view name) {
  auto is_pair = [](absl::string_view n) {
    return n == "true_computation" || n == "false_computation";
  };
  for (const HloAttribute& seen : instr.raw_attributes()) {
    if ((is_pair(name) && seen.name == "branch_computations") ||
        (name == "branch_computations" && is_pair(seen.name))) {
      return Error(absl::StrCat("conditional takes true_computation and false_computation, "
                                "or branch_computations, not both ('", name,
                                "' after '", seen.name, "')"));
    }
  }
  return absl::OkStatus();
}

// The typed attributes XLA writes as lists of lists. slice_sizes is one only
// on collective-permute (gather's is one list); replica_groups only in its
// list form, not the iota form `[2,2]<=[4]`.
bool IsListOfListsAttribute(HloOpcode opcode, absl::string_view name,
                            absl::string_view value) {
  if (name == "source_target_pairs") return true;
  if (name == "replica_groups") {
    return absl::StartsWith(absl::StripLeadingAsciiWhitespace(value), "{");
  }
  return name == "slice_sizes" && (opcode == HloOpcode::kCollectivePermute ||
                                   opcode == HloOpcode::kCollectivePermuteStart);
}

absl::Status SetListOfLists(HloInstruction::Attributes::Rare& rare, const std::string& name,
                            absl::string_view value) {
  absl::StatusOr<std::vector<std::vector<int64_t>>> lists = ParseIntListList(value);
  if (!lists.ok()) return Error(absl::StrCat(name, ": ", lists.status().message()));
  if (name == "source_target_pairs") {
    for (const std::vector<int64_t>& pair : *lists) {
      if (pair.size() != 2) {
        return Error(absl::StrCat("source_target_pairs: {", absl::StrJoin(pair, ","),
                                  "} is not a pair (source, target)"));
      }
    }
    rare.source_target_pairs = *std::move(lists);
  } else if (name == "replica_groups") {
    rare.replica_groups = *std::move(lists);
  } else {
    rare.slice_sizes_list = *std::move(lists);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<int64_t>> ParseIntegerList(absl::string_view name,
                                                      absl::string_view value) {
  absl::string_view body = absl::StripAsciiWhitespace(value);
  if (!absl::ConsumePrefix(&body, "{") || !absl::ConsumeSuffix(&body, "}")) {
    return Error(absl::StrCat(name, " needs a list like {0,1}"));
  }
  std::vector<int64_t> out;
  if (absl::StripAsciiWhitespace(body).empty()) return out;
  // Sized once: this runs for every list of every instruction, and lists
  // are short, so growth would be most of the work.
  out.reserve(std::count(body.begin(), body.end(), ',') + 1);
  // Comma to comma by hand; SimpleAtoi allows the spaces around a number.
  for (size_t from = 0;;) {
    const size_t comma = body.find(',', from);
    absl::string_view part =
        body.substr(from, comma == absl::string_view::npos ? comma : comma - from);
    int64_t x;
    if (!absl::SimpleAtoi(part, &x)) {
      return Error(absl::StrCat(name, ": '", part, "' is not an integer"));
    }
    out.push_back(x);
    if (comma == absl::string_view::npos) break;
    from = comma + 1;
  }
  return out;
}

namespace {

absl::Status SetIntegerList(const HloAttribute& a, std::optional<std::vector<int64_t>>& field) {
  absl::StatusOr<std::vector<int64_t>> v = ParseIntegerList(a.name, a.value);
  if (!v.ok()) return v.status();
  field = *std::move(v);
  return absl::OkStatus();
}

// The field an attribute of one integer list goes to (dimensions, a dot's
// dims, slice sizes), or null for other names.
std::optional<std::vector<int64_t>>* IntegerListField(HloInstruction::Attributes& t,
                                                      absl::string_view n) {
  if (n == "dimensions") return &t.dimensions;
  if (n == "lhs_contracting_dims") return &t.mutable_dot().lhs_contracting_dims;
  if (n == "rhs_contracting_dims") return &t.mutable_dot().rhs_contracting_dims;
  if (n == "lhs_batch_dims") return &t.mutable_dot().lhs_batch_dims;
  if (n == "rhs_batch_dims") return &t.mutable_dot().rhs_batch_dims;
  if (n == "dynamic_slice_sizes") return &t.mutable_rare().dynamic_slice_sizes;
  if (n == "slice_sizes") return &t.mutable_rare().slice_sizes;
  return nullptr;
}

// Gather's and scatter's dimension numbers: kept by name, in written order.
bool IsDimensionNumbersAttribute(absl::string_view n) {
  for (absl::string_view dn : {"offset_dims", "collapsed_slice_dims", "start_index_map",
                               "operand_batching_dims", "start_indices_batching_dims",
                               "update_window_dims", "inserted_window_dims",
                               "scatter_dims_to_operand_dims", "input_batching_dims",
                               "scatter_indices_batching_dims"}) {
    if (n == dn) return true;
  }
  return false;
}

absl::Status ParseDimensionNumbersAttribute(const HloAttribute& a,
                                            HloInstruction::Attributes& t) {
  std::optional<std::vector<int64_t>> dims;
  absl::Status st = SetIntegerList(a, dims);
  if (!st.ok()) return st;
  t.mutable_rare().dimension_numbers.push_back({a.name, *std::move(dims)});
  return absl::OkStatus();
}

bool IsIntegerAttribute(absl::string_view n) {
  return n == "index" || n == "iota_dimension" || n == "feature_group_count" ||
         n == "batch_group_count" || n == "index_vector_dim" || n == "channel_id";
}

absl::Status ParseIntegerAttribute(const HloAttribute& a, HloInstruction::Attributes& t) {
  const std::string& n = a.name;
  int64_t v;
  if (!absl::SimpleAtoi(a.value, &v)) {
    return Error(absl::StrCat(n, " needs an integer, not '", a.value, "'"));
  }
  if (n == "index") t.set_index(v);
  if (n == "iota_dimension") t.mutable_rare().iota_dimension = v;
  if (n == "feature_group_count") t.mutable_rare().feature_group_count = v;
  if (n == "batch_group_count") t.mutable_rare().batch_group_count = v;
  if (n == "index_vector_dim") t.mutable_rare().index_vector_dim = v;
  if (n == "channel_id") t.mutable_rare().channel_id = v;
  return absl::OkStatus();
}

absl::Status CheckApiVersion(absl::string_view value) {
  for (absl::string_view v : {"API_VERSION_ORIGINAL", "API_VERSION_STATUS_RETURNING",
                              "API_VERSION_STATUS_RETURNING_UNIFIED",
                              "API_VERSION_TYPED_FFI"}) {
    if (value == v) return absl::OkStatus();
  }
  return Error(absl::StrCat("api_version '", value,
                            "' is not one of API_VERSION_ORIGINAL, "
                            "API_VERSION_STATUS_RETURNING, "
                            "API_VERSION_STATUS_RETURNING_UNIFIED, API_VERSION_TYPED_FFI"));
}

absl::Status ParseSparsityAttribute(const HloAttribute& a, HloInstruction::Attributes& t) {
  absl::StatusOr<std::vector<SparsityDescriptor>> sparsity = ParseSparsity(a.value);
  if (!sparsity.ok()) return sparsity.status();
  t.mutable_dot().sparsity = *std::move(sparsity);
  return absl::OkStatus();
}

absl::Status ParseWindowAttribute(const HloAttribute& a, HloInstruction::Attributes& t) {
  absl::StatusOr<std::vector<WindowDimension>> window = ParseWindow(a.value);
  if (!window.ok()) return window.status();
  t.mutable_rare().window = *std::move(window);
  return absl::OkStatus();
}

// A convolution's `b01f_01io->b01f`.
absl::Status ParseDimLabelsAttribute(const HloAttribute& a, HloInstruction::Attributes& t) {
  std::vector<std::string> io = absl::StrSplit(a.value, "->");
  std::vector<std::string> in;
  if (io.size() == 2) in = absl::StrSplit(io[0], '_');
  if (in.size() != 2 || in[0].empty() || in[1].empty() || io[1].empty()) {
    return Error(absl::StrCat("dim_labels needs input_kernel->output, "
                              "like b01f_01io->b01f, not '",
                              a.value, "'"));
  }
  t.mutable_rare().dim_labels = ConvolutionDimLabels{in[0], in[1], io[1]};
  return absl::OkStatus();
}

absl::Status ParseAliasingAttribute(const HloAttribute& a, HloInstruction::Attributes& t) {
  absl::StatusOr<std::vector<OutputOperandAlias>> aliases =
      ParseOutputOperandAliasing(a.value);
  if (!aliases.ok()) {
    return Error(absl::StrCat("output_to_operand_aliasing: ", aliases.status().message()));
  }
  t.mutable_rare().output_to_operand_aliasing = *std::move(aliases);
  return absl::OkStatus();
}

// slice's `{[begin:end:stride], ...}`, the stride optional.
absl::Status ParseSliceAttribute(const HloAttribute& a, HloInstruction::Attributes& t) {
  absl::string_view body = absl::StripAsciiWhitespace(a.value);
  if (!absl::ConsumePrefix(&body, "{") || !absl::ConsumeSuffix(&body, "}")) {
    return Error("slice needs {[begin:end:stride], ...}");
  }
  std::vector<std::array<int64_t, 3>> dims;
  for (absl::string_view part : absl::StrSplit(body, ',', absl::SkipWhitespace())) {
    part = absl::StripAsciiWhitespace(part);
    if (!absl::ConsumePrefix(&part, "[") || !absl::ConsumeSuffix(&part, "]")) {
      return Error("slice needs {[begin:end:stride], ...}");
    }
    std::vector<std::string> nums = absl::StrSplit(part, ':');
    std::array<int64_t, 3> d = {0, 0, 1};
    if (nums.size() < 2 || nums.size() > 3) {
      return Error("slice needs [begin:end] or [begin:end:stride]");
    }
    for (size_t i = 0; i < nums.size(); ++i) {
      if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(nums[i]), &d[i])) {
        return Error(absl::StrCat("slice: '", nums[i], "' is not an integer"));
      }
    }
    dims.push_back(d);
  }
  t.mutable_rare().slice = dims;
  return absl::OkStatus();
}

// pad's `lo_hi[_interior]` per dim, joined by x.
absl::Status ParsePaddingAttribute(const HloAttribute& a, HloInstruction::Attributes& t) {
  std::vector<std::array<int64_t, 3>> dims;
  for (absl::string_view part : absl::StrSplit(a.value, 'x')) {
    std::vector<std::string> nums = absl::StrSplit(part, '_');
    std::array<int64_t, 3> d = {0, 0, 0};
    if (nums.size() < 2 || nums.size() > 3) {
      return Error("padding needs lo_hi[_interior] per dim, joined by x");
    }
    for (size_t i = 0; i < nums.size(); ++i) {
      if (!absl::SimpleAtoi(nums[i], &d[i])) {
        return Error(absl::StrCat("padding: '", nums[i], "' is not an integer"));
      }
    }
    dims.push_back(d);
  }
  t.mutable_rare().padding = dims;
  return absl::OkStatus();
}

// `%f` or `{%f, %g}`: the names go to `callees`.
absl::Status ParseCalleesAttribute(const HloInstruction& instr, const HloAttribute& a,
                                   std::vector<std::string>& callees) {
  if (instr.opcode() == HloOpcode::kConditional) {
    absl::Status form = CheckBranchForm(instr, a.name);
    if (!form.ok()) return form;
  }
  absl::string_view body = absl::StripAsciiWhitespace(a.value);
  bool list = absl::ConsumePrefix(&body, "{");
  if (list && !absl::ConsumeSuffix(&body, "}")) {
    return Error(absl::StrCat(a.name, ": unbalanced '{'"));
  }
  for (absl::string_view part : absl::StrSplit(body, ',', absl::SkipWhitespace())) {
    part = absl::StripAsciiWhitespace(part);
    absl::ConsumePrefix(&part, "%");
    callees.push_back(std::string(part));
  }
  return absl::OkStatus();
}

}  // namespace

// One handler per attribute family; names no family reads are left alone.
absl::Status ParseTypedAttribute(HloInstruction& instr, HloOpcode opcode, const HloAttribute& a,
                                 std::vector<std::string>& callees) {
  HloInstruction::Attributes& t = instr.mutable_attributes();
  const std::string& n = a.name;
  if (IsListOfListsAttribute(opcode, n, a.value)) {
    return SetListOfLists(t.mutable_rare(), n, a.value);
  }
  if (n == "sparsity") return ParseSparsityAttribute(a, t);
  if (std::optional<std::vector<int64_t>>* field = IntegerListField(t, n)) {
    return SetIntegerList(a, *field);
  }
  if (IsDimensionNumbersAttribute(n)) return ParseDimensionNumbersAttribute(a, t);
  if (IsIntegerAttribute(n)) return ParseIntegerAttribute(a, t);
  if (n == "api_version") return CheckApiVersion(a.value);
  if (n == "result_accuracy") return CheckResultAccuracy(a.value);
  if (n == "window") return ParseWindowAttribute(a, t);
  if (n == "direction") {
    t.mutable_keywords().direction = a.value;
    return absl::OkStatus();
  }
  if (n == "kind" && opcode == HloOpcode::kFusion) {
    t.mutable_keywords().kind = a.value;
    return absl::OkStatus();
  }
  if (n == "dim_labels" && opcode == HloOpcode::kConvolution) {
    return ParseDimLabelsAttribute(a, t);
  }
  if (n == "output_to_operand_aliasing") return ParseAliasingAttribute(a, t);
  if (n == "slice") return ParseSliceAttribute(a, t);
  if (n == "padding" && opcode == HloOpcode::kPad) return ParsePaddingAttribute(a, t);
  if (IsCalledComputationAttribute(n)) return ParseCalleesAttribute(instr, a, callees);
  return absl::OkStatus();
}

}  // namespace xla_layout
