// The parser's readers of instruction attributes: the `, name=value` list
// after the operands, and the values that need more than a scan: typed
// attributes, old forms (--accept-old-dumps), custom-call literals,
// operand layout constraints and original values.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "hlo/hlo_attributes.h"
#include "hlo/hlo_literal.h"
#include "hlo/hlo_parser_internal.h"

namespace xla_layout::hlo_parser_internal {

namespace {

// The offset in `value` of a second token at bracket depth 0, if any.
std::optional<size_t> FindStrayToken(absl::string_view value) {
  int depth = 0;
  bool gap = false;
  for (size_t i = 0; i < value.size(); ++i) {
    char c = value[i];
    if (c == '"') {
      if (depth == 0 && gap) return i;
      for (++i; i < value.size() && value[i] != '"'; ++i) {
        if (value[i] == '\\') ++i;
      }
      continue;
    }
    if (depth == 0 && (c == ' ' || c == '\t' || c == '\r')) {
      gap = true;
      continue;
    }
    if (depth == 0 && gap) return i;
    if (c == '{' || c == '(' || c == '[') ++depth;
    if ((c == '}' || c == ')' || c == ']') && depth > 0) --depth;
  }
  return std::nullopt;
}

}  // namespace

absl::Status Parser::ParseAttributes(HloInstruction& instr, std::optional<HloOpcode> wrapped,
                                     bool shape_written) {
  bool dropped_api_version = false;
  while (true) {
    // Attributes continue the line: `, name=value`.
    size_t save = pos_;
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
    if (pos_ >= text_.size() || text_[pos_] != ',') {
      pos_ = save;
      return absl::OkStatus();
    }
    ++pos_;
    absl::Status s = ParseAttribute(instr, wrapped, shape_written, dropped_api_version);
    if (!s.ok()) return s;
  }
}

absl::Status Parser::ParseAttribute(HloInstruction& instr, std::optional<HloOpcode> wrapped,
                                    bool shape_written, bool& dropped_api_version) {
  size_t at = (SkipSpace(), pos_);
  absl::StatusOr<std::string> attr = ParseName("an attribute name");
  if (!attr.ok()) return attr.status();
  // The attributes of an async shorthand belong to the wrapped op.
  absl::Status s = wrapped && *attr != "async_execution_thread"
                       ? CheckAttributeName(*wrapped, *attr)
                       : CheckAttributeName(instr.opcode(), *attr);
  if (!s.ok()) return ErrorAt(at, s.message());
  bool twice = *attr == "api_version" && dropped_api_version;
  for (const HloAttribute& seen : instr.raw_attributes()) twice |= seen.name == *attr;
  if (twice) return ErrorAt(at, absl::StrCat("attribute '", *attr, "' is given twice"));
  if (!Consume("=")) return Expect("=", absl::StrCat("after attribute '", *attr, "'"));
  if (*attr == "async_execution_thread") async_threads_.push_back({&instr, at});
  HloAttribute a{*attr, ""};
  absl::StatusOr<bool> kept = ParseAttributeValue(instr, wrapped, a, at, shape_written);
  if (!kept.ok()) return kept.status();
  if (!*kept) {
    dropped_api_version = true;
    return absl::OkStatus();
  }
  if (*attr == "control-predecessors") {
    absl::StatusOr<std::vector<std::string>> names = ParseNameList(a.value);
    if (!names.ok()) {
      return ErrorAt(at, absl::StrCat("control-predecessors ", names.status().message()));
    }
    for (std::string& name : *names) {
      predecessors_.push_back({&instr, std::move(name), at});
    }
  }
  instr.mutable_raw_attributes().push_back(std::move(a));
  return absl::OkStatus();
}

absl::StatusOr<bool> Parser::ParseAttributeValue(HloInstruction& instr,
                                                 std::optional<HloOpcode> wrapped,
                                                 HloAttribute& a, size_t at,
                                                 bool shape_written) {
  if (a.name == "operand_layout_constraints") {
    // Shapes are read with the parser's own cursor, so that an error in
    // one points at its line and column.
    size_t value_at = (SkipSpace(), pos_);
    std::vector<size_t> offsets;
    absl::StatusOr<std::vector<Shape>> shapes = ParseShapeList(&offsets);
    if (!shapes.ok()) return shapes.status();
    instr.mutable_attributes().mutable_rare().operand_layout_constraints = *std::move(shapes);
    constraints_.push_back({&instr, at, std::move(offsets)});
    a.value = std::string(text_.substr(value_at, pos_ - value_at));
    return true;
  }
  if (a.name == "literal" && wrapped.value_or(instr.opcode()) == HloOpcode::kCustomCall) {
    absl::Status s = ParseLiteralAttribute(instr, a);
    if (!s.ok()) return s;
    return true;
  }
  size_t value_at = (SkipSpace(), pos_);
  a.value = ScanValue();
  absl::StatusOr<bool> upgraded = UpgradeOldForm(a, value_at);
  if (!upgraded.ok()) return upgraded.status();
  if (*upgraded) return false;
  // A value is one token or one bracketed group: `metadata={...} oops`
  // is an error, as in XLA, not a value with a tail.
  if (std::optional<size_t> stray = FindStrayToken(a.value)) {
    return ErrorAt(value_at + *stray,
                   absl::StrCat("expected ',' or the end of the line after the value of "
                                "attribute '", a.name, "'"));
  }
  absl::Status s = SetTypedAttribute(instr, wrapped.value_or(instr.opcode()), a, at);
  if (!s.ok()) return s;
  if (a.name == "original_value" || a.name == "origin") {
    s = CheckOriginalValueAt(instr, a, at, value_at, shape_written);
    if (!s.ok()) return s;
  }
  return true;
}

absl::Status Parser::SetTypedAttribute(HloInstruction& instr, HloOpcode opcode,
                                       const HloAttribute& a, size_t offset) {
  std::vector<std::string> callees;
  absl::Status s = ParseTypedAttribute(instr, opcode, a, callees);
  if (!s.ok()) return ErrorAt(offset, s.message());
  for (std::string& name : callees) {
    calls_.push_back({&instr, a.name, std::move(name), offset});
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> Parser::UpgradeOldForm(const HloAttribute& a, size_t value_at) {
  if (a.name != "api_version" || a.value != "API_VERSION_UNSPECIFIED") return false;
  if (!options_.accept_old_dumps) {
    return ErrorAt(value_at,
                   "api_version 'API_VERSION_UNSPECIFIED' is not one of API_VERSION_ORIGINAL, "
                   "API_VERSION_STATUS_RETURNING, API_VERSION_STATUS_RETURNING_UNIFIED, "
                   "API_VERSION_TYPED_FFI; older XLA versions wrote it, and "
                   "--accept-old-dumps reads it as API_VERSION_ORIGINAL");
  }
  ++upgraded_api_versions_;
  return true;
}

void Parser::ReportUpgrades() const {
  if (options_.upgrades == nullptr || upgraded_api_versions_ == 0) return;
  options_.upgrades->push_back(absl::StrCat(
      source_.filename(), ": warning: read api_version=API_VERSION_UNSPECIFIED as "
      "API_VERSION_ORIGINAL on ", upgraded_api_versions_, " custom call",
      upgraded_api_versions_ == 1 ? "" : "s", " (--accept-old-dumps)"));
}

absl::Status Parser::ParseLiteralAttribute(HloInstruction& instr, HloAttribute& a) {
  const size_t value_at = (SkipSpace(), pos_);
  absl::StatusOr<Shape> shape = ParseShapeHere();
  if (!shape.ok()) return shape.status();
  SetDefaultLayouts(*shape);
  const size_t literal_at = (SkipSpace(), pos_);
  size_t length = 0, error_offset = 0;
  absl::StatusOr<HloLiteral> value =
      HloLiteral::ParsePrefix(text_.substr(literal_at), *shape, &length, &error_offset);
  if (!value.ok()) {
    return ErrorAt(literal_at + error_offset,
                   absl::StrCat("in the literal of ", shape->ToString(), ": ",
                                value.status().message()));
  }
  pos_ = literal_at + length;
  // One value, as for every attribute: `literal=f32[] 1 2` is an error.
  size_t next = pos_;
  while (next < text_.size() && (text_[next] == ' ' || text_[next] == '\t')) ++next;
  if (next < text_.size() && !absl::StrContains(",\r\n}", text_[next])) {
    return ErrorAt(next, "expected ',' or the end of the line after the value of attribute "
                         "'literal'");
  }
  a.value = std::string(text_.substr(value_at, pos_ - value_at));
  instr.mutable_attributes().mutable_rare().literal = LiteralAttribute{
      *std::move(shape), std::string(text_.substr(literal_at, length)),
      std::make_shared<const HloLiteral>(*std::move(value))};
  return absl::OkStatus();
}

// XLA reads an original value against the instruction's shape as it reads
// the attribute, so the shape must be written, and the value's tuple
// structure is the shape's.
absl::Status Parser::CheckOriginalValueAt(const HloInstruction& instr, const HloAttribute& a,
                                          size_t at, size_t value_at,
                                          bool shape_written) const {
  if (!shape_written) {
    return ErrorAt(at, absl::StrCat(a.name, " needs the instruction's shape written before "
                                    "the opcode: its structure is the shape's"));
  }
  size_t offset = 0;
  absl::Status s = CheckOriginalValue(a.name, a.value, instr.shape(), &offset);
  return s.ok() ? s : ErrorAt(value_at + offset, s.message());
}

}  // namespace xla_layout::hlo_parser_internal
