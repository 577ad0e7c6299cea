// The readers of attribute values that have a grammar of their own:
// original values, result accuracy, lists of lists, sparsity, aliasing,
// buffer donors (declared in hlo_attributes.h).
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "hlo/attribute_cursor.h"
#include "hlo/hlo_attributes.h"

namespace xla_layout {

using attribute_internal::Cursor;
using attribute_internal::Error;
using attribute_internal::ParseBracedList;

namespace {

constexpr absl::string_view kOriginalValueForm =
    "{{\"x\"}} for an array, {({\"a\"}, {\"b\" {1}})} for a tuple";

// The tree of an original value for `shape` (at tuple index `index`): a
// tuple is `(tree, ...)`, one tree per element; anything else is `{}` (no
// original), `{"name"}` or `{"name" {shape index}}`, which a call history
// string may follow.
absl::Status OriginalTree(Cursor& c, absl::string_view name, const Shape& shape,
                          std::vector<int64_t>& index) {
  auto mismatch = [&](absl::string_view what) {
    return Error(absl::StrCat(name, " has ", what, " where the instruction's shape has ",
                              shape.ToString(),
                              index.empty() ? std::string()
                                            : absl::StrCat(" at {", absl::StrJoin(index, ","),
                                                           "}")));
  };
  auto expected = [&](absl::string_view what) {
    return Error(absl::StrCat(name, ": expected ", what, " (the form is ", kOriginalValueForm,
                              ")"));
  };
  if (!shape.IsTuple()) {
    if (!c.Consume('{')) return c.Peek() == '(' ? mismatch("a tuple") : expected("'{'");
    if (c.Consume('}')) return absl::OkStatus();
    if (!c.QuotedString()) return expected("an instruction name in quotes");
    std::vector<int64_t> shape_index;
    if (c.Peek() == '{' && !c.Index(shape_index)) return expected("a shape index like {0}");
    if (c.Peek() == '"' && !c.QuotedString()) return expected("a quoted call history");
    return c.Consume('}') ? absl::OkStatus() : expected("'}'");
  }
  if (!c.Consume('(')) return c.Peek() == '{' ? mismatch("an array") : expected("'('");
  const size_t n = shape.tuple_shapes().size();
  for (size_t k = 0; k < n; ++k) {
    if (k > 0 && !c.Consume(',')) {
      return c.Peek() == ')' ? mismatch(absl::StrCat(k, " of ", n, " elements"))
                             : expected("','");
    }
    index.push_back(k);
    absl::Status s = OriginalTree(c, name, shape.tuple_shapes()[k], index);
    index.pop_back();
    if (!s.ok()) return s;
  }
  if (c.Consume(')')) return absl::OkStatus();
  return c.Peek() == ',' ? mismatch(absl::StrCat("more than ", n, " elements")) : expected("')'");
}

}  // namespace

absl::StatusOr<std::vector<std::vector<int64_t>>> ParseIntListList(absl::string_view text) {
  constexpr absl::string_view kForm = "{{0,1},{2,3}}";
  return ParseBracedList<std::vector<int64_t>>(
      text, kForm, [&](Cursor& c, std::vector<int64_t>& list) -> absl::Status {
        if (!c.Consume('{')) return c.Error("'{'", kForm);
        if (c.Consume('}')) return absl::OkStatus();
        do {
          int64_t k;
          if (!c.Integer(k)) return c.Error("an integer", kForm);
          list.push_back(k);
        } while (c.Consume(','));
        if (!c.Consume('}')) return c.Error("',' or '}'", kForm);
        return absl::OkStatus();
      });
}

namespace {

// Digits only: SimpleAtoi would also take signs and spaces.
bool ParseCount(absl::string_view text, int64_t& out) {
  return !text.empty() && std::all_of(text.begin(), text.end(), absl::ascii_isdigit) &&
         absl::SimpleAtoi(text, &out);
}

// `L.1@2:4`.
absl::StatusOr<SparsityDescriptor> ParseSparsityDescriptor(absl::string_view text) {
  SparsityDescriptor d;
  std::vector<absl::string_view> at = absl::StrSplit(text, '@');
  std::vector<absl::string_view> nm;
  if (at.size() == 2) nm = absl::StrSplit(at[1], ':');
  const bool side = absl::StartsWith(text, "L.") || absl::StartsWith(text, "R.");
  if (!side || nm.size() != 2 || !ParseCount(at[0].substr(2), d.dimension) ||
      !ParseCount(nm[0], d.n) || !ParseCount(nm[1], d.m)) {
    return Error(absl::StrCat("sparsity: '", text, "' is not L.dim@n:m or R.dim@n:m"));
  }
  d.operand = text[0] == 'L' ? 0 : 1;
  if (d.n < 1 || d.n > d.m) {
    return Error(absl::StrCat("sparsity: '", text, "' keeps ", d.n, " of every ", d.m,
                              " elements; it needs 0 < n <= m"));
  }
  return d;
}

}  // namespace

namespace {

// `atol=1e-5,rtol=0,ulps=1` up to the closing brace: fields in any order,
// each a number (XLA reads all three as doubles).
absl::Status ToleranceFields(Cursor& c) {
  if (c.Peek() == '}') return absl::OkStatus();
  do {
    absl::string_view field = c.Word();
    if (field != "atol" && field != "rtol" && field != "ulps") {
      return Error(absl::StrCat("result_accuracy tolerance has no field '", field,
                                "'; it takes atol, rtol and ulps"));
    }
    double value;
    absl::string_view number = c.Consume('=') ? c.NumberText() : absl::string_view();
    if (!absl::SimpleAtod(number, &value) || std::isnan(value)) {
      return Error(absl::StrCat("result_accuracy tolerance ", field, " needs a number, not '",
                                number, "'"));
    }
  } while (c.Consume(','));
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckResultAccuracy(absl::string_view text) {
  Cursor c(text);
  const absl::Status form = Error(absl::StrCat(
      "result_accuracy needs {mode=...} or {tolerance={atol=...,rtol=...,ulps=...}}, not '",
      text, "'"));
  if (!c.Consume('{')) return form;
  const absl::string_view spec = c.Word();
  if (!c.Consume('=')) return form;
  if (spec == "mode") {
    // XLA knows its modes by their lowercase names only.
    absl::string_view mode = c.Word();
    if (mode != "default" && mode != "highest") {
      return Error(absl::StrCat("result_accuracy mode '", mode,
                                "' is not one of default, highest (spelled in lowercase)"));
    }
  } else if (spec == "tolerance") {
    if (!c.Consume('{')) return form;
    absl::Status fields = ToleranceFields(c);
    if (!fields.ok()) return fields;
    if (!c.Consume('}')) return form;
  } else {
    return Error(absl::StrCat("result_accuracy takes mode or tolerance, not '", spec, "'"));
  }
  return c.Consume('}') && c.AtEnd() ? absl::OkStatus() : form;
}

absl::Status CheckOriginalValue(absl::string_view name, absl::string_view text,
                                const Shape& shape, size_t* error_offset) {
  Cursor c(text);
  absl::Status s = [&]() -> absl::Status {
    if (!c.Consume('{')) return Error(absl::StrCat(name, " needs braces: ", kOriginalValueForm));
    // XLA's placeholder for a value a synthetic call made, whatever its shape.
    if (c.Consume('[')) {
      if (!c.ConsumeText("synthetic_call") || !c.Consume(']')) {
        return Error(absl::StrCat(name, ": expected [synthetic_call]"));
      }
    } else {
      std::vector<int64_t> index;
      absl::Status tree = OriginalTree(c, name, shape, index);
      if (!tree.ok()) return tree;
    }
    if (!c.Consume('}') || !c.AtEnd()) {
      return Error(absl::StrCat(name, ": expected '}' to end it (the form is ",
                                kOriginalValueForm, ")"));
    }
    return absl::OkStatus();
  }();
  if (!s.ok() && error_offset != nullptr) *error_offset = c.pos();
  return s;
}

absl::StatusOr<std::vector<SparsityDescriptor>> ParseSparsity(absl::string_view text) {
  std::vector<SparsityDescriptor> out;
  for (absl::string_view part : absl::StrSplit(absl::StripAsciiWhitespace(text), '_')) {
    absl::StatusOr<SparsityDescriptor> d = ParseSparsityDescriptor(part);
    if (!d.ok()) return d.status();
    for (const SparsityDescriptor& seen : out) {
      if (seen.operand == d->operand) {
        return Error(absl::StrCat("sparsity: '", text, "' describes the ",
                                  d->operand == 0 ? "lhs" : "rhs", " twice"));
      }
    }
    out.push_back(*d);
  }
  return out;
}

absl::StatusOr<std::vector<OutputOperandAlias>> ParseOutputOperandAliasing(
    absl::string_view text) {
  constexpr absl::string_view kForm = "{{output index}: (operand, {operand index}), ...}";
  return ParseBracedList<OutputOperandAlias>(
      text, kForm, [&](Cursor& c, OutputOperandAlias& alias) -> absl::Status {
        if (!c.Index(alias.output_index)) return c.Error("an output shape index like {0}", kForm);
        if (!c.Consume(':')) return c.Error("':'", kForm);
        if (!c.Consume('(')) return c.Error("'('", kForm);
        if (!c.Integer(alias.operand)) return c.Error("an operand number", kForm);
        if (!c.Consume(',')) return c.Error("','", kForm);
        if (!c.Index(alias.operand_index)) return c.Error("an operand shape index like {}", kForm);
        if (!c.Consume(')')) return c.Error("')'", kForm);
        return absl::OkStatus();
      });
}

absl::StatusOr<std::vector<InputOutputAlias>> ParseInputOutputAlias(absl::string_view text) {
  constexpr absl::string_view kForm =
      "{ {output index}: (parameter, {parameter index}, may-alias|must-alias), ... }";
  return ParseBracedList<InputOutputAlias>(
      text, kForm, [&](Cursor& c, InputOutputAlias& alias) -> absl::Status {
        if (!c.Index(alias.output_index)) return c.Error("an output shape index like {0}", kForm);
        if (!c.Consume(':')) return c.Error("':'", kForm);
        if (!c.Consume('(')) return c.Error("'('", kForm);
        if (!c.Integer(alias.parameter)) return c.Error("a parameter number", kForm);
        if (!c.Consume(',')) return c.Error("','", kForm);
        if (!c.Index(alias.parameter_index)) return c.Error("a parameter shape index", kForm);
        if (c.Consume(',')) {
          absl::string_view kind = c.Word();
          if (kind != "may-alias" && kind != "must-alias") {
            return c.Error("may-alias or must-alias", kForm);
          }
          alias.must_alias = kind == "must-alias";
        }
        if (!c.Consume(')')) return c.Error("')'", kForm);
        return absl::OkStatus();
      });
}

absl::StatusOr<std::vector<BufferDonor>> ParseBufferDonor(absl::string_view text) {
  constexpr absl::string_view kForm = "{ (parameter, {parameter index}), ... }";
  return ParseBracedList<BufferDonor>(
      text, kForm, [&](Cursor& c, BufferDonor& donor) -> absl::Status {
        if (!c.Consume('(')) return c.Error("'('", kForm);
        if (!c.Integer(donor.parameter)) return c.Error("a parameter number", kForm);
        if (!c.Consume(',')) return c.Error("','", kForm);
        if (!c.Index(donor.parameter_index)) return c.Error("a parameter shape index", kForm);
        if (!c.Consume(')')) return c.Error("')'", kForm);
        return absl::OkStatus();
      });
}

const Shape* ShapeAtIndex(const Shape& shape, absl::Span<const int64_t> index) {
  const Shape* s = &shape;
  for (int64_t k : index) {
    if (!s->IsTuple() || k < 0 || k >= static_cast<int64_t>(s->tuple_shapes().size())) {
      return nullptr;
    }
    s = &s->tuple_shapes()[k];
  }
  return s;
}

}  // namespace xla_layout
