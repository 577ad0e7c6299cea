#include "hlo/hlo_proto_text_forms.h"

#include <algorithm>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/attribute_cursor.h"

namespace xla_layout {
namespace {

using attribute_internal::Cursor;

constexpr absl::string_view kShardingForm =
    "{replicated}, {maximal device=0}, {devices=[2,1]0,1} or {devices=[4]<=[4]}";

// Letters, digits, '_' and '.' at the cursor.
std::string Identifier(absl::string_view text, Cursor& c) {
  c.Skip();
  size_t end = c.pos();
  while (end < text.size() && (absl::ascii_isalnum(text[end]) || text[end] == '_' ||
                               text[end] == '.')) {
    ++end;
  }
  std::string word(text.substr(c.pos(), end - c.pos()));
  c.ConsumeText(word);
  return word;
}

// `[2,1]` into `out`.
bool Dims(Cursor& c, std::vector<int64_t>& out) {
  if (!c.Consume('[')) return false;
  do {
    int64_t d;
    if (!c.Integer(d)) return false;
    out.push_back(d);
  } while (c.Consume(','));
  return c.Consume(']');
}

absl::Status ParseTiled(absl::string_view text, Cursor& c, xla::OpSharding& s) {
  s.set_type(xla::OpSharding::OTHER);
  std::vector<int64_t> dims;
  if (!c.ConsumeText("=") || !Dims(c, dims)) return c.Error("devices=[dims]", kShardingForm);
  for (int64_t d : dims) s.add_tile_assignment_dimensions(d);
  if (c.ConsumeText("<=")) {
    std::vector<int64_t> reshape, perm;
    if (!Dims(c, reshape)) return c.Error("<=[dims]", kShardingForm);
    for (int64_t d : reshape) s.add_iota_reshape_dims(d);
    if (c.ConsumeText("T")) {
      if (!c.Consume('(')) return c.Error("T(perm)", kShardingForm);
      do {
        int64_t p;
        if (!c.Integer(p)) return c.Error("a dim of T(...)", kShardingForm);
        perm.push_back(p);
      } while (c.Consume(','));
      if (!c.Consume(')')) return c.Error("')'", kShardingForm);
    } else {
      for (size_t k = 0; k < reshape.size(); ++k) perm.push_back(static_cast<int64_t>(k));
    }
    for (int64_t p : perm) s.add_iota_transpose_perm(static_cast<int32_t>(p));
  } else {
    do {
      int64_t d;
      if (!c.Integer(d)) return c.Error("a device id", kShardingForm);
      s.add_tile_assignment_devices(d);
    } while (c.Consume(','));
  }
  while (c.Peek() != '}') {
    const std::string word = Identifier(text, c);
    if (word == "last_tile_dim_replicate") {
      s.set_replicate_on_last_tile_dim(true);
    } else if (word == "last_tile_dims" && c.ConsumeText("={")) {
      do {
        xla::OpSharding::Type t;
        if (!xla::OpSharding::Type_Parse(absl::AsciiStrToUpper(Identifier(text, c)), &t)) {
          return c.Error("a sharding type", kShardingForm);
        }
        s.add_last_tile_dims(t);
      } while (c.Consume(','));
      if (!c.Consume('}')) return c.Error("'}'", kShardingForm);
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("sharding '", text, "': '", word, "' is not carried by the proto"));
    }
  }
  return absl::OkStatus();
}

absl::Status ParseOne(absl::string_view text, Cursor& c, xla::OpSharding& s) {
  if (!c.Consume('{')) return c.Error("'{'", kShardingForm);
  if (c.Peek() == '{' || c.Peek() == '}') {
    s.set_type(xla::OpSharding::TUPLE);
    if (c.Consume('}')) return absl::OkStatus();
    do {
      absl::Status st = ParseOne(text, c, *s.add_tuple_shardings());
      if (!st.ok()) return st;
    } while (c.Consume(','));
  } else {
    const std::string word = Identifier(text, c);
    if (word == "devices") {
      absl::Status st = ParseTiled(text, c, s);
      if (!st.ok()) return st;
    } else if (word == "maximal") {
      int64_t d;
      if (!c.ConsumeText("device=") || !c.Integer(d)) return c.Error("device=N", kShardingForm);
      s.set_type(xla::OpSharding::MAXIMAL);
      s.add_tile_assignment_dimensions(1);
      s.add_tile_assignment_devices(d);
    } else {
      xla::OpSharding::Type t;
      if (!xla::OpSharding::Type_Parse(absl::AsciiStrToUpper(word), &t) ||
          t == xla::OpSharding::TUPLE || t == xla::OpSharding::OTHER ||
          t == xla::OpSharding::MAXIMAL) {
        return absl::InvalidArgumentError(
            absl::StrCat("sharding '", text, "': '", word, "' is not carried by the proto"));
      }
      s.set_type(t);
    }
  }
  if (!c.Consume('}')) return c.Error("'}'", kShardingForm);
  return absl::OkStatus();
}

std::string Lower(xla::OpSharding::Type t) {
  return absl::AsciiStrToLower(xla::OpSharding::Type_Name(t));
}

}  // namespace

absl::StatusOr<xla::OpSharding> ParseShardingText(absl::string_view text) {
  Cursor c(text);
  xla::OpSharding s;
  absl::Status st = ParseOne(text, c, s);
  if (!st.ok()) return st;
  if (!c.AtEnd()) return c.Error("the end", kShardingForm);
  return s;
}

absl::StatusOr<std::string> ShardingText(const xla::OpSharding& s) {
  if (s.metadata_size() > 0 || s.is_shard_group()) {
    return absl::InvalidArgumentError("sharding metadata and shard groups are not carried");
  }
  switch (s.type()) {
    case xla::OpSharding::TUPLE: {
      std::vector<std::string> parts;
      for (const xla::OpSharding& t : s.tuple_shardings()) {
        absl::StatusOr<std::string> p = ShardingText(t);
        if (!p.ok()) return p.status();
        parts.push_back(*std::move(p));
      }
      return absl::StrCat("{", absl::StrJoin(parts, ", "), "}");
    }
    case xla::OpSharding::MAXIMAL:
      if (s.tile_assignment_devices_size() != 1) {
        return absl::InvalidArgumentError("a maximal sharding names one device");
      }
      return absl::StrCat("{maximal device=", s.tile_assignment_devices(0), "}");
    case xla::OpSharding::OTHER: break;
    default: return absl::StrCat("{", Lower(s.type()), "}");
  }
  std::string out = absl::StrCat("{devices=[", absl::StrJoin(s.tile_assignment_dimensions(), ","),
                                 "]");
  if (s.iota_reshape_dims_size() > 0) {
    absl::StrAppend(&out, "<=[", absl::StrJoin(s.iota_reshape_dims(), ","), "]");
    bool identity = true;
    for (int k = 0; k < s.iota_transpose_perm_size(); ++k) identity &= s.iota_transpose_perm(k) == k;
    if (!identity) absl::StrAppend(&out, "T(", absl::StrJoin(s.iota_transpose_perm(), ","), ")");
  } else {
    out += absl::StrJoin(s.tile_assignment_devices(), ",");
  }
  if (s.replicate_on_last_tile_dim()) out += " last_tile_dim_replicate";
  if (s.last_tile_dims_size() > 0) {
    std::vector<std::string> types;
    for (int t : s.last_tile_dims()) types.push_back(Lower(static_cast<xla::OpSharding::Type>(t)));
    absl::StrAppend(&out, " last_tile_dims={", absl::StrJoin(types, ", "), "}");
  }
  return out + "}";
}

namespace {
constexpr absl::string_view kMetadataKeys[] = {
    "op_type", "op_name", "source_file", "source_line", "source_end_line", "source_column",
    "source_end_column", "deduplicated_name", "scheduling_name", "stack_frame_id"};
}  // namespace

absl::StatusOr<xla::OpMetadata> ParseMetadataText(absl::string_view text) {
  Cursor c(text);
  xla::OpMetadata m;
  const auto* r = m.GetReflection();
  if (!c.Consume('{')) return c.Error("'{'", "{op_type=\"...\" source_line=1}");
  while (!c.Consume('}')) {
    const std::string key = Identifier(text, c);
    const auto* f = m.GetDescriptor()->FindFieldByName(key);
    if (f == nullptr || std::find(std::begin(kMetadataKeys), std::end(kMetadataKeys), key) ==
                            std::end(kMetadataKeys)) {
      return absl::InvalidArgumentError(
          absl::StrCat("metadata key '", key, "' is not carried by the proto"));
    }
    if (!c.Consume('=')) return c.Error("'='", "key=value");
    if (f->type() == google::protobuf::FieldDescriptor::TYPE_STRING) {
      const size_t start = (c.Skip(), c.pos());
      if (!c.QuotedString()) return c.Error("a quoted string", "key=\"value\"");
      std::string value;
      if (!absl::CUnescape(text.substr(start + 1, c.pos() - start - 2), &value)) {
        return c.Error("a string with valid escapes", "key=\"value\"");
      }
      r->SetString(&m, f, std::move(value));
    } else {
      int64_t v;
      const bool negative = c.Consume('-');
      if (!c.Integer(v)) return c.Error("an integer", "key=1");
      r->SetInt32(&m, f, static_cast<int32_t>(negative ? -v : v));
    }
  }
  if (!c.AtEnd()) return c.Error("the end", "{key=value ...}");
  return m;
}

std::string MetadataText(const xla::OpMetadata& m) {
  std::vector<std::string> parts;
  const auto* r = m.GetReflection();
  for (absl::string_view key : kMetadataKeys) {
    const auto* f = m.GetDescriptor()->FindFieldByName(std::string(key));
    if (!r->HasField(m, f)) continue;
    parts.push_back(f->type() == google::protobuf::FieldDescriptor::TYPE_STRING
                        ? absl::StrCat(key, "=\"", absl::CEscape(r->GetString(m, f)), "\"")
                        : absl::StrCat(key, "=", r->GetInt32(m, f)));
  }
  return absl::StrCat("{", absl::StrJoin(parts, " "), "}");
}

absl::StatusOr<xla::FrontendAttributes> ParseFrontendAttributesText(absl::string_view text) {
  Cursor c(text);
  xla::FrontendAttributes a;
  constexpr absl::string_view kForm = "{key=\"value\",...}";
  if (!c.Consume('{')) return c.Error("'{'", kForm);
  if (c.Consume('}')) return a;
  do {
    const std::string key = Identifier(text, c);
    if (key.empty() || !c.Consume('=')) return c.Error("key=", kForm);
    const size_t start = (c.Skip(), c.pos());
    if (!c.QuotedString()) return c.Error("a quoted value", kForm);
    std::string value;
    if (!absl::CUnescape(text.substr(start + 1, c.pos() - start - 2), &value)) {
      return c.Error("a string with valid escapes", kForm);
    }
    (*a.mutable_map())[key] = std::move(value);
  } while (c.Consume(','));
  if (!c.Consume('}') || !c.AtEnd()) return c.Error("'}'", kForm);
  return a;
}

std::string FrontendAttributesText(const xla::FrontendAttributes& a) {
  std::vector<std::pair<std::string, std::string>> sorted(a.map().begin(), a.map().end());
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::string> parts;
  for (const auto& [k, v] : sorted) parts.push_back(absl::StrCat(k, "=\"", absl::CEscape(v), "\""));
  return absl::StrCat("{", absl::StrJoin(parts, ","), "}");
}

}  // namespace xla_layout
