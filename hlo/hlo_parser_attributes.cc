// The parser's readers of instruction attributes that need more than a
// scan of the value: typed attributes, old forms (--accept-old-dumps),
// custom-call literals and original values.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "hlo/hlo_attributes.h"
#include "hlo/hlo_literal.h"
#include "hlo/hlo_parser_internal.h"

namespace xla_layout::hlo_parser_internal {

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
