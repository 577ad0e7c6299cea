#include "hlo/hlo_proto_attributes.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "hlo/hlo_attributes.h"
#include "hlo/hlo_proto_literal.h"
#include "hlo/hlo_proto_text_forms.h"
#include "xla_layout/shape_text.h"

namespace xla_layout {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

// XLA's printing order (see AttributeRank).
constexpr absl::string_view kOrder[] = {
    "custom_call_target", "channel_id", "is_host_transfer", "replica_groups",
    "source_target_pairs", "dimensions", "iota_dimension", "index", "window", "dim_labels",
    "feature_group_count", "batch_group_count", "lhs_batch_dims", "lhs_contracting_dims",
    "rhs_batch_dims", "rhs_contracting_dims", "operand_precision", "algorithm", "sparsity",
    "offset_dims", "collapsed_slice_dims", "start_index_map", "operand_batching_dims",
    "start_indices_batching_dims", "update_window_dims", "inserted_window_dims",
    "scatter_dims_to_operand_dims", "input_batching_dims", "scatter_indices_batching_dims",
    "index_vector_dim", "slice_sizes", "indices_are_sorted", "unique_indices",
    "dynamic_slice_sizes", "slice", "padding", "direction", "type", "kind", "epsilon",
    "feature_index", "exponent_bits", "mantissa_bits", "fft_type", "fft_length",
    "distribution", "is_stable", "k", "largest", "delta", "left_side", "lower",
    "unit_diagonal", "transpose_a", "infeed_config", "outfeed_config", "outfeed_shape",
    "parameter_replication", "cross_program_prefetch_index", "constrain_layout",
    "use_global_device_ids", "custom_call_has_side_effect", "literal",
    "operand_layout_constraints", "schedule", "padding_type", "output_to_operand_aliasing",
    "api_version", "to_apply", "calls", "condition", "body", "select", "scatter",
    "true_computation", "false_computation", "branch_computations", "called_computations",
    "async_execution_thread", "is_composite", "sharding", "frontend_attributes",
    "control-predecessors", "metadata", "backend_config"};

// How an attribute's text stands for one field.
enum class Form { kInt, kBool, kFloat, kQuoted, kWord, kEnum, kEnumLower, kIntList };
struct Scalar {
  absl::string_view name;
  absl::string_view path;  // dotted, below HloInstructionProto
  Form form;
  absl::string_view only;    // the opcodes it belongs to, comma-separated ("": any)
  bool always = false;       // printed at its default too (for `only`)
  int64_t omit = 0;          // a value not printed (besides the default)
  absl::string_view strip;   // an enum name's prefix the text leaves out
};
constexpr Scalar kScalars[] = {
    {"index", "tuple_index", Form::kInt, "get-tuple-element", true},
    {"feature_group_count", "feature_group_count", Form::kInt, "", false, 1},
    {"batch_group_count", "batch_group_count", Form::kInt, "", false, 1},
    {"channel_id", "channel_id", Form::kInt},
    {"exponent_bits", "exponent_bits", Form::kInt, "reduce-precision", true},
    {"mantissa_bits", "mantissa_bits", Form::kInt, "reduce-precision", true},
    {"epsilon", "epsilon", Form::kFloat,
     "batch-norm-training,batch-norm-inference,batch-norm-grad", true},
    {"feature_index", "feature_index", Form::kInt,
     "batch-norm-training,batch-norm-inference,batch-norm-grad", true},
    {"is_host_transfer", "is_host_transfer", Form::kBool},
    {"is_stable", "is_stable", Form::kBool},
    {"indices_are_sorted", "indices_are_sorted", Form::kBool},
    {"unique_indices", "unique_indices", Form::kBool},
    {"use_global_device_ids", "use_global_device_ids", Form::kBool},
    {"custom_call_has_side_effect", "custom_call_has_side_effect", Form::kBool},
    {"constrain_layout", "constrain_layout", Form::kBool,
     "all-reduce,all-reduce-start,reduce-scatter,all-to-all"},
    {"is_composite", "is_composite", Form::kBool},
    {"largest", "largest", Form::kBool},
    {"k", "k", Form::kInt, "topk", true},
    {"delta", "delta", Form::kInt},
    {"custom_call_target", "custom_call_target", Form::kQuoted, "custom-call", true},
    {"async_execution_thread", "async_execution_thread", Form::kQuoted},
    {"direction", "comparison_direction", Form::kWord},
    {"type", "comparison_type", Form::kWord},
    {"kind", "fusion_kind", Form::kWord},
    {"fft_type", "fft_type", Form::kEnum, "fft", true},
    {"fft_length", "fft_length", Form::kIntList, "fft", true},
    {"distribution", "distribution", Form::kEnumLower, "rng", true},
    {"api_version", "custom_call_api_version", Form::kEnum, "", false, 1},
    {"schedule", "custom_call_schedule", Form::kEnum},
    {"padding_type", "padding_type", Form::kEnum},
    {"infeed_config", "infeed_config", Form::kQuoted},
    {"outfeed_config", "outfeed_config", Form::kQuoted},
    {"dynamic_slice_sizes", "dynamic_slice_sizes", Form::kIntList, "dynamic-slice", true},
    {"cross_program_prefetch_index", "cross_program_prefetch_index", Form::kInt},
    {"left_side", "triangular_solve_options.left_side", Form::kBool},
    {"lower", "triangular_solve_options.lower", Form::kBool, "triangular-solve"},
    {"lower", "cholesky_options.lower", Form::kBool, "cholesky"},
    {"unit_diagonal", "triangular_solve_options.unit_diagonal", Form::kBool},
    {"transpose_a", "triangular_solve_options.transpose_a", Form::kEnum},
    {"algorithm", "rng_algorithm", Form::kEnumLower, "rng-bit-generator", true},
    {"algorithm", "precision_config.algorithm", Form::kEnumLower, "dot,convolution", false, 0,
     "ALG_"},
    {"lhs_batch_dims", "dot_dimension_numbers.lhs_batch_dimensions", Form::kIntList},
    {"lhs_contracting_dims", "dot_dimension_numbers.lhs_contracting_dimensions", Form::kIntList},
    {"rhs_batch_dims", "dot_dimension_numbers.rhs_batch_dimensions", Form::kIntList},
    {"rhs_contracting_dims", "dot_dimension_numbers.rhs_contracting_dimensions", Form::kIntList},
    {"offset_dims", "gather_dimension_numbers.offset_dims", Form::kIntList, "gather", true},
    {"collapsed_slice_dims", "gather_dimension_numbers.collapsed_slice_dims", Form::kIntList,
     "gather", true},
    {"start_index_map", "gather_dimension_numbers.start_index_map", Form::kIntList, "gather",
     true},
    {"operand_batching_dims", "gather_dimension_numbers.operand_batching_dims", Form::kIntList},
    {"start_indices_batching_dims", "gather_dimension_numbers.start_indices_batching_dims",
     Form::kIntList},
    {"index_vector_dim", "gather_dimension_numbers.index_vector_dim", Form::kInt, "gather", true},
    {"slice_sizes", "gather_slice_sizes", Form::kIntList, "gather", true},
    {"update_window_dims", "scatter_dimension_numbers.update_window_dims", Form::kIntList,
     "scatter", true},
    {"inserted_window_dims", "scatter_dimension_numbers.inserted_window_dims", Form::kIntList,
     "scatter", true},
    {"scatter_dims_to_operand_dims", "scatter_dimension_numbers.scatter_dims_to_operand_dims",
     Form::kIntList, "scatter", true},
    {"input_batching_dims", "scatter_dimension_numbers.input_batching_dims", Form::kIntList},
    {"scatter_indices_batching_dims", "scatter_dimension_numbers.scatter_indices_batching_dims",
     Form::kIntList},
    {"index_vector_dim", "scatter_dimension_numbers.index_vector_dim", Form::kInt, "scatter",
     true},
};

bool Belongs(const Scalar& s, HloOpcode opcode) {
  if (s.only.empty()) return true;
  for (absl::string_view o : absl::StrSplit(s.only, ',')) {
    if (o == HloOpcodeString(opcode)) return true;
  }
  return false;
}

const Scalar* FindScalar(absl::string_view name, HloOpcode opcode) {
  for (const Scalar& s : kScalars) {
    if (s.name == name && Belongs(s, opcode)) return &s;
  }
  return nullptr;
}

// The message holding the last part of `path`, made when `create`; null
// when a message on the way is unset and not `create`.
const Message* Holder(const Message& root, absl::string_view path, const FieldDescriptor** field) {
  const Message* m = &root;
  std::vector<absl::string_view> parts = absl::StrSplit(path, '.');
  for (size_t k = 0; k + 1 < parts.size(); ++k) {
    const FieldDescriptor* f = m->GetDescriptor()->FindFieldByName(std::string(parts[k]));
    if (!m->GetReflection()->HasField(*m, f)) return nullptr;
    m = &m->GetReflection()->GetMessage(*m, f);
  }
  *field = m->GetDescriptor()->FindFieldByName(std::string(parts.back()));
  return m;
}
Message* MutableHolder(Message& root, absl::string_view path, const FieldDescriptor** field) {
  Message* m = &root;
  std::vector<absl::string_view> parts = absl::StrSplit(path, '.');
  for (size_t k = 0; k + 1 < parts.size(); ++k) {
    const FieldDescriptor* f = m->GetDescriptor()->FindFieldByName(std::string(parts[k]));
    m = m->GetReflection()->MutableMessage(m, f);
  }
  *field = m->GetDescriptor()->FindFieldByName(std::string(parts.back()));
  return m;
}

std::string Unquote(absl::string_view v, bool* ok) {
  std::string out;
  *ok = v.size() >= 2 && v.front() == '"' && v.back() == '"' &&
        absl::CUnescape(v.substr(1, v.size() - 2), &out);
  return out;
}

absl::Status SetScalar(const Scalar& s, absl::string_view text, Message& proto) {
  const FieldDescriptor* f;
  Message* m = MutableHolder(proto, s.path, &f);
  const auto* r = m->GetReflection();
  const absl::Status bad = absl::InvalidArgumentError(
      absl::StrCat(s.name, "=", text, " is not a value the proto's ", s.path, " holds"));
  switch (s.form) {
    case Form::kInt: {
      int64_t v;
      if (!absl::SimpleAtoi(text, &v)) return bad;
      if (f->cpp_type() == FieldDescriptor::CPPTYPE_INT32) {
        r->SetInt32(m, f, static_cast<int32_t>(v));
      } else {
        r->SetInt64(m, f, v);
      }
      return absl::OkStatus();
    }
    case Form::kBool:
      if (text != "true" && text != "false") return bad;
      r->SetBool(m, f, text == "true");
      return absl::OkStatus();
    case Form::kFloat: {
      float v;
      if (!absl::SimpleAtof(text, &v)) return bad;
      r->SetFloat(m, f, v);
      return absl::OkStatus();
    }
    case Form::kQuoted: {
      bool ok;
      std::string v = Unquote(text, &ok);
      if (!ok) return bad;
      r->SetString(m, f, std::move(v));
      return absl::OkStatus();
    }
    case Form::kWord:
      r->SetString(m, f, std::string(text));
      return absl::OkStatus();
    case Form::kEnum:
    case Form::kEnumLower: {
      const auto* value = f->enum_type()->FindValueByName(
          absl::StrCat(s.strip, absl::AsciiStrToUpper(text)));
      if (value == nullptr) return bad;
      r->SetEnumValue(m, f, value->number());
      return absl::OkStatus();
    }
    case Form::kIntList: {
      absl::StatusOr<std::vector<int64_t>> v = ParseIntegerList(s.name, text);
      if (!v.ok()) return v.status();
      r->ClearField(m, f);
      for (int64_t x : *v) r->AddInt64(m, f, x);
      return absl::OkStatus();
    }
  }
  return bad;
}

// The text of a scalar's field, or nullopt when it is not printed.
std::optional<std::string> ScalarText(const Scalar& s, const Message& proto) {
  const FieldDescriptor* f;
  const Message* m = Holder(proto, s.path, &f);
  if (m == nullptr && !s.always) return std::nullopt;
  const Message& holder = m != nullptr ? *m : proto;  // unset: print the default
  const auto* r = holder.GetReflection();
  const bool set = m != nullptr && (f->is_repeated() ? r->FieldSize(holder, f) > 0
                                                     : r->HasField(holder, f));
  if (!set && !s.always) return std::nullopt;
  if (m == nullptr) {  // the default of an unset message's field
    const Message* def = google::protobuf::MessageFactory::generated_factory()->GetPrototype(
        f->containing_type());
    return ScalarText({s.name, f->name(), s.form, "", true, s.omit, s.strip}, *def);
  }
  switch (s.form) {
    case Form::kInt: {
      const int64_t v = f->cpp_type() == FieldDescriptor::CPPTYPE_INT32 ? r->GetInt32(holder, f)
                                                                         : r->GetInt64(holder, f);
      if (v == s.omit && s.omit != 0) return std::nullopt;
      return absl::StrCat(v);
    }
    case Form::kBool: return std::string(r->GetBool(holder, f) ? "true" : "false");
    case Form::kFloat: return FormatFloatLiteral(r->GetFloat(holder, f), F32);
    case Form::kQuoted: return absl::StrCat("\"", absl::CEscape(r->GetString(holder, f)), "\"");
    case Form::kWord: return r->GetString(holder, f);
    case Form::kEnum:
    case Form::kEnumLower: {
      const int v = r->GetEnumValue(holder, f);
      if (v == s.omit && s.omit != 0) return std::nullopt;
      const auto* value = f->enum_type()->FindValueByNumber(v);
      const std::string full = value != nullptr ? value->name() : absl::StrCat(v);
      absl::string_view name = full;
      absl::ConsumePrefix(&name, s.strip);
      return s.form == Form::kEnumLower ? absl::AsciiStrToLower(name) : std::string(name);
    }
    case Form::kIntList: {
      std::vector<int64_t> v;
      for (int k = 0; k < r->FieldSize(holder, f); ++k) v.push_back(r->GetRepeatedInt64(holder, f, k));
      return absl::StrCat("{", absl::StrJoin(v, ","), "}");
    }
  }
  return std::nullopt;
}


absl::Status MoreToProto(const HloInstruction& instr, const HloAttribute& a,
                         xla::HloInstructionProto& proto) {
  const HloInstruction::Attributes::Rare& rare = instr.attributes().rare();
  const std::string& n = a.name;
  if (n == "operand_precision") {
    absl::StatusOr<std::vector<std::string>> names = ParseNameList(a.value);
    if (!names.ok()) return names.status();
    std::vector<xla::PrecisionConfig::Precision> values;
    for (const std::string& p : *names) {
      xla::PrecisionConfig::Precision v;
      if (!xla::PrecisionConfig::Precision_Parse(absl::AsciiStrToUpper(p), &v)) {
        return absl::InvalidArgumentError(absl::StrCat("operand_precision '", p, "'"));
      }
      values.push_back(v);
    }
    // All DEFAULT is written as no list, the form the reader (like XLA's
    // printer) gives for it, so that text -> proto -> text -> proto is a
    // fixed point; XLA reads a missing list as DEFAULT for every operand.
    if (std::any_of(values.begin(), values.end(), [](int v) { return v != 0; })) {
      for (auto v : values) proto.mutable_precision_config()->add_operand_precision(v);
    }
  } else if (n == "operand_layout_constraints" && rare.operand_layout_constraints) {
    proto.set_constrain_layout(true);
    for (const Shape& s : *rare.operand_layout_constraints) {
      *proto.add_operand_shapes_with_layout() = s.ToProto();
    }
  } else if (n == "output_to_operand_aliasing" && rare.output_to_operand_aliasing) {
    for (const OutputOperandAlias& alias : *rare.output_to_operand_aliasing) {
      auto* p = proto.add_output_operand_aliasing();
      *p->mutable_output_shape_index() = {alias.output_index.begin(), alias.output_index.end()};
      p->set_operand_index(alias.operand);
      *p->mutable_operand_shape_index() = {alias.operand_index.begin(),
                                           alias.operand_index.end()};
    }
  } else if (n == "literal" && rare.literal && rare.literal->value) {
    absl::StatusOr<xla::LiteralProto> lit =
        LiteralToProto(*rare.literal->value, rare.literal->shape);
    if (!lit.ok()) return lit.status();
    *proto.mutable_literal() = *std::move(lit);
  } else if (n == "parameter_replication") {
    absl::StatusOr<std::vector<std::string>> names = ParseNameList(a.value);
    if (!names.ok()) return names.status();
    for (const std::string& b : *names) {
      proto.mutable_parameter_replication()->add_replicated_at_leaf_buffers(b == "true");
    }
  } else if (n == "outfeed_shape") {
    absl::StatusOr<Shape> s = ParseShape(a.value);
    if (!s.ok()) return s.status();
    *proto.mutable_outfeed_shape() = s->ToProto();
  } else if (n == "metadata") {
    absl::StatusOr<xla::OpMetadata> m = ParseMetadataText(a.value);
    if (!m.ok()) return m.status();
    *proto.mutable_metadata() = *std::move(m);
  } else if (n == "frontend_attributes") {
    absl::StatusOr<xla::FrontendAttributes> f = ParseFrontendAttributesText(a.value);
    if (!f.ok()) return f.status();
    *proto.mutable_frontend_attributes() = *std::move(f);
  } else if (n == "sharding") {
    absl::StatusOr<xla::OpSharding> s = ParseShardingText(a.value);
    if (!s.ok()) return s.status();
    *proto.mutable_sharding() = *std::move(s);
  } else if (n == "backend_config") {
    bool quoted;
    std::string raw = Unquote(a.value, &quoted);
    proto.set_backend_config(quoted ? raw : a.value);
  } else {
    return absl::NotFoundError(absl::StrCat("attribute ", n));
  }
  return absl::OkStatus();
}

// --- Attributes with a form of their own, text to proto. ---

std::string IntLists(const std::vector<std::vector<int64_t>>& lists) {
  std::vector<std::string> parts;
  for (const auto& l : lists) parts.push_back(absl::StrCat("{", absl::StrJoin(l, ","), "}"));
  return absl::StrCat("{", absl::StrJoin(parts, ","), "}");
}

// `[4,2]<=[8]` or `[2,2]<=[2,2]T(1,0)`: the iota form of replica_groups.
absl::StatusOr<xla::IotaReplicaGroupListProto> ParseIotaGroups(absl::string_view text) {
  // The tiled sharding's reader knows this form: `devices=` + text.
  absl::StatusOr<xla::OpSharding> s = ParseShardingText(absl::StrCat("{devices=", text, "}"));
  if (!s.ok() || s->tile_assignment_dimensions_size() != 2 || s->iota_reshape_dims_size() == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("replica_groups=", text, " is neither {{...},...} nor [G,N]<=[...]"));
  }
  xla::IotaReplicaGroupListProto iota;
  iota.set_num_replica_groups(s->tile_assignment_dimensions(0));
  iota.set_num_devices_per_group(s->tile_assignment_dimensions(1));
  *iota.mutable_iota_reshape_dims() = s->iota_reshape_dims();
  *iota.mutable_iota_transpose_perm() = s->iota_transpose_perm();
  return iota;
}

std::string IotaGroupsText(const xla::IotaReplicaGroupListProto& iota) {
  std::string out = absl::StrCat("[", iota.num_replica_groups(), ",",
                                 iota.num_devices_per_group(), "]<=[",
                                 absl::StrJoin(iota.iota_reshape_dims(), ","), "]");
  bool identity = true;
  for (int k = 0; k < iota.iota_transpose_perm_size(); ++k) {
    identity &= iota.iota_transpose_perm(k) == k;
  }
  if (!identity) absl::StrAppend(&out, "T(", absl::StrJoin(iota.iota_transpose_perm(), ","), ")");
  return out;
}

// dim_labels (b01f_01io->b01f) as dimension numbers: each letter's index.
absl::Status DimLabelsToProto(const ConvolutionDimLabels& labels,
                              xla::ConvolutionDimensionNumbers& d) {
  auto spatial = [](const std::string& s, auto add) {
    for (int digit = 0; digit < 10; ++digit) {
      const size_t at = s.find(static_cast<char>('0' + digit));
      if (at == std::string::npos) break;
      add(static_cast<int64_t>(at));
    }
  };
  const std::string& in = labels.input;
  const std::string& k = labels.kernel;
  const std::string& out = labels.output;
  if (in.find('b') == std::string::npos || k.find('i') == std::string::npos ||
      out.find('f') == std::string::npos) {
    return absl::InvalidArgumentError("dim_labels without b, f, i or o");
  }
  d.set_input_batch_dimension(in.find('b'));
  d.set_input_feature_dimension(in.find('f'));
  spatial(in, [&](int64_t x) { d.add_input_spatial_dimensions(x); });
  d.set_kernel_input_feature_dimension(k.find('i'));
  d.set_kernel_output_feature_dimension(k.find('o'));
  spatial(k, [&](int64_t x) { d.add_kernel_spatial_dimensions(x); });
  d.set_output_batch_dimension(out.find('b'));
  d.set_output_feature_dimension(out.find('f'));
  spatial(out, [&](int64_t x) { d.add_output_spatial_dimensions(x); });
  return absl::OkStatus();
}

std::string Labels(int64_t first, char first_label, int64_t second, char second_label,
                   const google::protobuf::RepeatedField<int64_t>& spatial) {
  std::string s(2 + spatial.size(), '?');
  auto put = [&](int64_t at, char c) {
    if (at >= 0 && at < static_cast<int64_t>(s.size())) s[at] = c;
  };
  put(first, first_label);
  put(second, second_label);
  for (int k = 0; k < spatial.size(); ++k) put(spatial[k], static_cast<char>('0' + k));
  return s;
}

std::string DimLabelsText(const xla::ConvolutionDimensionNumbers& d) {
  return absl::StrCat(
      Labels(d.input_batch_dimension(), 'b', d.input_feature_dimension(), 'f',
             d.input_spatial_dimensions()),
      "_",
      Labels(d.kernel_input_feature_dimension(), 'i', d.kernel_output_feature_dimension(), 'o',
             d.kernel_spatial_dimensions()),
      "->",
      Labels(d.output_batch_dimension(), 'b', d.output_feature_dimension(), 'f',
             d.output_spatial_dimensions()));
}

std::string WindowText(const xla::Window& w) {
  if (w.dimensions_size() == 0) return "{}";
  std::vector<std::string> size, stride, pad, lhs, rhs, rev;
  bool any_stride = false, any_pad = false, any_lhs = false, any_rhs = false, any_rev = false;
  for (const xla::WindowDimension& d : w.dimensions()) {
    size.push_back(absl::StrCat(d.size()));
    stride.push_back(absl::StrCat(d.stride()));
    pad.push_back(absl::StrCat(d.padding_low(), "_", d.padding_high()));
    lhs.push_back(absl::StrCat(d.base_dilation()));
    rhs.push_back(absl::StrCat(d.window_dilation()));
    rev.push_back(d.window_reversal() ? "1" : "0");
    any_stride |= d.stride() != 1;
    any_pad |= d.padding_low() != 0 || d.padding_high() != 0;
    any_lhs |= d.base_dilation() != 1;
    any_rhs |= d.window_dilation() != 1;
    any_rev |= d.window_reversal();
  }
  std::string out = absl::StrCat("{size=", absl::StrJoin(size, "x"));
  if (any_stride) absl::StrAppend(&out, " stride=", absl::StrJoin(stride, "x"));
  if (any_pad) absl::StrAppend(&out, " pad=", absl::StrJoin(pad, "x"));
  if (any_lhs) absl::StrAppend(&out, " lhs_dilate=", absl::StrJoin(lhs, "x"));
  if (any_rhs) absl::StrAppend(&out, " rhs_dilate=", absl::StrJoin(rhs, "x"));
  if (any_rev) absl::StrAppend(&out, " rhs_reversal=", absl::StrJoin(rev, "x"));
  return out + "}";
}

void WindowToProto(const std::vector<WindowDimension>& dims, xla::Window& w) {
  for (const WindowDimension& d : dims) {
    xla::WindowDimension* p = w.add_dimensions();
    p->set_size(d.size);
    p->set_stride(d.stride);
    p->set_padding_low(d.padding_low);
    p->set_padding_high(d.padding_high);
    p->set_base_dilation(d.lhs_dilation);
    p->set_window_dilation(d.rhs_dilation);
    p->set_window_reversal(d.reversal);
  }
}

absl::Status RepliesFromLists(const HloInstruction::Attributes::Rare& rare,
                              absl::string_view text, xla::HloInstructionProto& proto) {
  xla::CollectiveDeviceListProto* list = proto.mutable_collective_device_list();
  if (rare.replica_groups) {
    for (const std::vector<int64_t>& g : *rare.replica_groups) {
      *list->add_replica_groups()->mutable_replica_ids() = {g.begin(), g.end()};
    }
    return absl::OkStatus();
  }
  absl::StatusOr<xla::IotaReplicaGroupListProto> iota = ParseIotaGroups(text);
  if (!iota.ok()) return iota.status();
  *list->mutable_iota_replica_group_list() = *std::move(iota);
  return absl::OkStatus();
}

// Attributes with structure the scalar table does not describe; NotFound
// for names it does not know.
absl::Status SpecialToProto(const HloInstruction& instr, const HloAttribute& a,
                            xla::HloInstructionProto& proto) {
  const HloInstruction::Attributes& t = instr.attributes();
  const std::string& n = a.name;
  if (n == "dimensions" && t.dimensions) {
    *proto.mutable_dimensions() = {t.dimensions->begin(), t.dimensions->end()};
  } else if (n == "iota_dimension" && t.rare().iota_dimension) {
    proto.add_dimensions(*t.rare().iota_dimension);
  } else if (n == "slice" && t.rare().slice) {
    for (const auto& s : *t.rare().slice) {
      auto* d = proto.add_slice_dimensions();
      d->set_start(s[0]);
      d->set_limit(s[1]);
      d->set_stride(s[2]);
    }
  } else if (n == "padding" && t.rare().padding) {
    for (const auto& p : *t.rare().padding) {
      auto* d = proto.mutable_padding_config()->add_dimensions();
      d->set_edge_padding_low(p[0]);
      d->set_edge_padding_high(p[1]);
      d->set_interior_padding(p[2]);
    }
  } else if (n == "window" && t.rare().window) {
    WindowToProto(*t.rare().window, *proto.mutable_window());
  } else if (n == "dim_labels" && t.rare().dim_labels) {
    return DimLabelsToProto(*t.rare().dim_labels, *proto.mutable_convolution_dimension_numbers());
  } else if (n == "replica_groups") {
    return RepliesFromLists(t.rare(), a.value, proto);
  } else if (n == "source_target_pairs" && t.rare().source_target_pairs) {
    for (const auto& pair : *t.rare().source_target_pairs) {
      if (pair.size() != 2) return absl::InvalidArgumentError("a source-target pair of two ids");
      auto* p = proto.add_source_target_pairs();
      p->set_source(pair[0]);
      p->set_target(pair[1]);
    }
  } else if (n == "slice_sizes" && t.rare().slice_sizes_list) {
    // The in-place collective-permute's lists, flattened as XLA writes them.
    for (const std::vector<int64_t>& sizes : *t.rare().slice_sizes_list) {
      for (int64_t x : sizes) proto.add_dynamic_slice_sizes(x);
    }
  } else if (n == "sparsity") {
    for (const SparsityDescriptor& s : t.dot().sparsity) {
      auto* d = proto.add_dot_sparsity();
      d->set_type(xla::SPARSITY_STRUCTURED_N_M);
      d->set_index(s.operand);
      d->set_dimension(static_cast<int32_t>(s.dimension));
      d->set_n(static_cast<int32_t>(s.n));
      d->set_m(static_cast<int32_t>(s.m));
    }
  } else {
    return MoreToProto(instr, a, proto);
  }
  return absl::OkStatus();
}

// --- Proto to text. ---

std::string ShapeText(const xla_layout::ShapeProto& p) {
  absl::StatusOr<Shape> s = Shape::FromProto(p);
  return s.ok() ? s->ToString() : "?";
}

bool AlwaysHasDimensions(HloOpcode o) {
  using O = HloOpcode;
  return o == O::kBroadcast || o == O::kTranspose || o == O::kReduce || o == O::kReverse ||
         o == O::kConcatenate || o == O::kSort || o == O::kMap || o == O::kAllGather ||
         o == O::kAllGatherStart || o == O::kReduceScatter;
}

bool AlwaysHasReplicaGroups(HloOpcode o) {
  using O = HloOpcode;
  return o == O::kAllReduce || o == O::kAllReduceStart || o == O::kAllGather ||
         o == O::kAllGatherStart || o == O::kAllToAll || o == O::kReduceScatter ||
         o == O::kCollectiveBroadcast || o == O::kRaggedAllToAll;
}

std::optional<std::string> ReplicaGroupsText(const xla::HloInstructionProto& p, HloOpcode o) {
  std::vector<std::vector<int64_t>> lists;
  const auto& groups = p.has_collective_device_list()
                           ? p.collective_device_list().replica_groups()
                           : p.replica_groups();
  if (p.collective_device_list().has_iota_replica_group_list()) {
    return IotaGroupsText(p.collective_device_list().iota_replica_group_list());
  }
  for (const xla::ReplicaGroup& g : groups) {
    lists.emplace_back(g.replica_ids().begin(), g.replica_ids().end());
  }
  if (lists.empty() && !AlwaysHasReplicaGroups(o)) return std::nullopt;
  return IntLists(lists);
}

// Shape-like and list-like fields: the geometry of the op.
void GeometryFromProto(const xla::HloInstructionProto& p, HloOpcode o,
                       std::vector<HloAttribute>& out) {
  if (o == HloOpcode::kIota && p.dimensions_size() > 0) {
    out.push_back({"iota_dimension", absl::StrCat(p.dimensions(0))});
  } else if (p.dimensions_size() > 0 || AlwaysHasDimensions(o)) {
    out.push_back({"dimensions", absl::StrCat("{", absl::StrJoin(p.dimensions(), ","), "}")});
  }
  if (p.slice_dimensions_size() > 0) {
    std::vector<std::string> parts;
    for (const auto& d : p.slice_dimensions()) {
      parts.push_back(absl::StrCat("[", d.start(), ":", d.limit(), ":", d.stride(), "]"));
    }
    out.push_back({"slice", absl::StrCat("{", absl::StrJoin(parts, ", "), "}")});
  }
  if (p.has_padding_config()) {
    std::vector<std::string> parts;
    for (const auto& d : p.padding_config().dimensions()) {
      parts.push_back(absl::StrCat(d.edge_padding_low(), "_", d.edge_padding_high(), "_",
                                   d.interior_padding()));
    }
    out.push_back({"padding", absl::StrJoin(parts, "x")});
  }
  if (p.has_window()) out.push_back({"window", WindowText(p.window())});
  if (p.has_convolution_dimension_numbers()) {
    out.push_back({"dim_labels", DimLabelsText(p.convolution_dimension_numbers())});
  }
  if (std::optional<std::string> g = ReplicaGroupsText(p, o)) out.push_back({"replica_groups", *g});
  if (p.source_target_pairs_size() > 0 || o == HloOpcode::kCollectivePermute ||
      o == HloOpcode::kCollectivePermuteStart) {
    std::vector<std::vector<int64_t>> pairs;
    for (const auto& st : p.source_target_pairs()) pairs.push_back({st.source(), st.target()});
    out.push_back({"source_target_pairs", IntLists(pairs)});
  }
  if (p.dot_sparsity_size() > 0) {
    std::vector<std::string> parts;
    for (const auto& d : p.dot_sparsity()) {
      parts.push_back(absl::StrCat(d.index() == 0 ? "L." : "R.", d.dimension(), "@", d.n(), ":",
                                   d.m()));
    }
    out.push_back({"sparsity", absl::StrJoin(parts, "_")});
  }
}

absl::Status CustomCallFromProto(const xla::HloInstructionProto& p, HloOpcode o,
                                 std::vector<HloAttribute>& out) {
  if (o != HloOpcode::kCustomCall) return absl::OkStatus();
  if (p.constrain_layout()) {
    std::vector<std::string> shapes;
    for (const auto& s : p.operand_shapes_with_layout()) shapes.push_back(ShapeText(s));
    out.push_back({"operand_layout_constraints",
                   absl::StrCat("{", absl::StrJoin(shapes, ", "), "}")});
  }
  if (p.has_literal()) {
    Shape shape;
    absl::StatusOr<std::string> text = LiteralProtoToText(p.literal(), &shape);
    if (!text.ok()) return text.status();
    out.push_back({"literal", absl::StrCat(shape.ToString(), " ", *text)});
  }
  return absl::OkStatus();
}

absl::Status AnnotationsFromProto(const xla::HloInstructionProto& p,
                                  std::vector<HloAttribute>& out) {
  if (p.output_operand_aliasing_size() > 0) {
    std::vector<std::string> parts;
    for (const auto& a : p.output_operand_aliasing()) {
      parts.push_back(absl::StrCat("{", absl::StrJoin(a.output_shape_index(), ","), "}: (",
                                   a.operand_index(), ", {",
                                   absl::StrJoin(a.operand_shape_index(), ","), "})"));
    }
    out.push_back({"output_to_operand_aliasing",
                   absl::StrCat("{", absl::StrJoin(parts, ", "), "}")});
  }
  const auto& precision = p.precision_config().operand_precision();
  for (int v : precision) {
    if (!xla::PrecisionConfig::Precision_IsValid(v)) {
      return absl::InvalidArgumentError(
          absl::StrCat("operand_precision value ", v, " is not a PrecisionConfig.Precision"));
    }
  }
  if (std::any_of(precision.begin(), precision.end(), [](int v) { return v != 0; })) {
    std::vector<std::string> names;
    for (int v : precision) {
      names.push_back(absl::AsciiStrToLower(
          xla::PrecisionConfig::Precision_Name(static_cast<xla::PrecisionConfig::Precision>(v))));
    }
    out.push_back({"operand_precision", absl::StrCat("{", absl::StrJoin(names, ","), "}")});
  }
  if (p.has_parameter_replication()) {
    std::vector<std::string> b;
    for (bool r : p.parameter_replication().replicated_at_leaf_buffers()) {
      b.push_back(r ? "true" : "false");
    }
    out.push_back({"parameter_replication", absl::StrCat("{", absl::StrJoin(b, ","), "}")});
  }
  if (p.has_outfeed_shape()) out.push_back({"outfeed_shape", ShapeText(p.outfeed_shape())});
  if (p.has_sharding()) {
    absl::StatusOr<std::string> s = ShardingText(p.sharding());
    if (!s.ok()) return s.status();
    out.push_back({"sharding", *s});
  }
  if (p.frontend_attributes().map_size() > 0) {
    out.push_back({"frontend_attributes", FrontendAttributesText(p.frontend_attributes())});
  }
  if (p.has_metadata() && MetadataText(p.metadata()) != "{}") {
    out.push_back({"metadata", MetadataText(p.metadata())});
  }
  if (!p.backend_config().empty()) {
    const std::string& b = p.backend_config();
    out.push_back({"backend_config",
                   b[0] == '{' ? b : absl::StrCat("\"", absl::CEscape(b), "\"")});
  }
  return absl::OkStatus();
}

// The fields AttributesFromProto reads beyond the scalar table's.
constexpr absl::string_view kSpecialFields[] = {
    "dimensions", "slice_dimensions", "padding_config", "window",
    "convolution_dimension_numbers", "replica_groups", "collective_device_list",
    "source_target_pairs", "dot_sparsity", "constrain_layout", "operand_shapes_with_layout",
    "literal", "output_operand_aliasing", "precision_config", "parameter_replication",
    "outfeed_shape", "sharding", "frontend_attributes", "metadata", "backend_config"};

}  // namespace

absl::Status AttributeToProto(const HloInstruction& instr, const HloAttribute& a,
                              xla::HloInstructionProto& proto) {
  absl::Status s = SpecialToProto(instr, a, proto);
  if (!absl::IsNotFound(s)) return s;
  if (const Scalar* scalar = FindScalar(a.name, instr.opcode())) {
    return SetScalar(*scalar, a.value, proto);
  }
  return s;
}

absl::StatusOr<std::vector<HloAttribute>> AttributesFromProto(
    const xla::HloInstructionProto& proto, HloOpcode opcode,
    absl::flat_hash_set<std::string>& read) {
  std::vector<HloAttribute> out;
  for (const Scalar& s : kScalars) {
    if (!Belongs(s, opcode) || !CheckAttributeName(opcode, s.name).ok()) continue;
    read.insert(std::string(s.path.substr(0, s.path.find('.'))));
    std::optional<std::string> text = ScalarText(s, proto);
    if (!text) continue;
    if (s.name == "type" && (*text == "FLOAT" || *text == "SIGNED" || *text == "UNSIGNED")) {
      continue;  // the default for the operands' type, which XLA does not print
    }
    if (s.name == "async_execution_thread" && *text == "\"main\"") continue;
    out.push_back({std::string(s.name), *std::move(text)});
  }
  for (absl::string_view f : kSpecialFields) read.insert(std::string(f));
  GeometryFromProto(proto, opcode, out);
  absl::Status s = CustomCallFromProto(proto, opcode, out);
  if (s.ok()) s = AnnotationsFromProto(proto, out);
  if (!s.ok()) return s;
  return out;
}

int AttributeRank(absl::string_view name) {
  const auto* it = std::find(std::begin(kOrder), std::end(kOrder), name);
  return static_cast<int>(it - std::begin(kOrder));
}

void OrderAttributesAsXla(HloModule& module) {
  for (HloComputation* c : module.computations()) {
    for (HloInstruction* i : c->instruction_range()) {
      std::stable_sort(i->mutable_raw_attributes().begin(), i->mutable_raw_attributes().end(),
                       [](const HloAttribute& a, const HloAttribute& b) {
                         return AttributeRank(a.name) < AttributeRank(b.name);
                       });
    }
  }
}

std::vector<std::string> CalledComputationAttributes(HloOpcode opcode, int64_t count,
                                                     bool pred_branch) {
  using O = HloOpcode;
  std::vector<std::string> names;
  switch (opcode) {
    case O::kWhile: names = {"condition", "body"}; break;
    case O::kSelectAndScatter: names = {"select", "scatter"}; break;
    case O::kConditional:
      names = pred_branch ? std::vector<std::string>{"true_computation", "false_computation"}
                          : std::vector<std::string>{"branch_computations"};
      break;
    case O::kFusion: case O::kAsyncStart: case O::kAsyncUpdate: case O::kAsyncDone:
      names = {"calls"};
      break;
    case O::kCustomCall: names = {"called_computations"}; break;
    default: names = {"to_apply"}; break;
  }
  while (static_cast<int64_t>(names.size()) < count) names.push_back(names.back());
  names.resize(static_cast<size_t>(count));
  return names;
}

}  // namespace xla_layout
