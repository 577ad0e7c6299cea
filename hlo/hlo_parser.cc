#include "hlo/hlo_parser.h"
#include "hlo/hlo_parser_internal.h"

#include <cstring>
#include <deque>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "hlo/hlo_attributes.h"
#include "hlo/hlo_literal.h"
#include "hlo/hlo_verifier.h"
#include "hlo/shape_inference.h"
#include "hlo/source_text.h"
#include "xla_layout/tiled_layout.h"
#include "xla_layout/primitive_type.h"
#include "xla_layout/shape_text.h"

namespace xla_layout {
namespace hlo_parser_internal {

// True when every non-scalar array in `shape` has a layout and there is one.
bool AllLayoutsWritten(const Shape& shape) {
  if (shape.IsTuple()) {
    bool any = false;
    for (const Shape& s : shape.tuple_shapes()) {
      if (s.IsTuple() || (s.IsArray() && s.rank() > 0)) {
        if (!AllLayoutsWritten(s)) return false;
        any = true;
      }
    }
    return any;
  }
  return shape.IsArray() && shape.rank() > 0 && shape.has_layout();
}

bool IsNameChar(char c) {
  return absl::ascii_isalnum(c) || c == '_' || c == '.' || c == '-';
}

absl::Status Parser::ErrorAt(size_t offset, absl::string_view message) const {
  return absl::InvalidArgumentError(
      source_.Diagnostic(source_.LocationOf(offset), "error", message));
}

void Parser::SkipSpace() { pos_ = SkipSpaceAndComments(text_, pos_); }

bool Parser::Consume(absl::string_view s) {
  SkipSpace();
  if (text_.substr(pos_, s.size()) == s) {
    pos_ += s.size();
    return true;
  }
  return false;
}

absl::Status Parser::Expect(absl::string_view s, absl::string_view context) {
  if (Consume(s)) return absl::OkStatus();
  SkipSpace();
  std::string found = pos_ < text_.size()
                          ? absl::StrCat("'", text_.substr(pos_, 1), "'")
                          : std::string("end of file");
  return ErrorAt(pos_, absl::StrCat("expected '", s, "' ", context, ", found ",
                                    found));
}

bool Parser::ConsumeKeyword(absl::string_view word) {
  SkipSpace();
  size_t end = pos_ + word.size();
  if (text_.substr(pos_, word.size()) != word || end >= text_.size() ||
      IsNameChar(text_[end])) {
    return false;
  }
  pos_ = end;
  return true;
}

absl::StatusOr<std::string> Parser::ParseName(absl::string_view what) {
  absl::StatusOr<absl::string_view> name = ParseNameView(what);
  if (!name.ok()) return name.status();
  return std::string(*name);
}

absl::StatusOr<absl::string_view> Parser::ParseNameView(absl::string_view what) {
  SkipSpace();
  size_t start = pos_;
  if (pos_ < text_.size() && text_[pos_] == '%') ++pos_;
  size_t name_start = pos_;
  while (pos_ < text_.size() && IsNameChar(text_[pos_])) ++pos_;
  if (pos_ == name_start) {
    return ErrorAt(start, absl::StrCat("expected ", what));
  }
  return text_.substr(name_start, pos_ - name_start);
}

// Inserting a name probes a table of up to millions of slots at random, a
// cache miss per instruction on large computations; started a line ahead,
// the parse of the line hides it. A wrong guess costs only the hint.
void Parser::PrefetchNextName() {
  const void* newline = std::memchr(text_.data() + pos_, '\n', text_.size() - pos_);
  if (newline == nullptr) return;
  size_t p = static_cast<const char*>(newline) - text_.data() + 1;
  while (p < text_.size() && (text_[p] == ' ' || text_[p] == '\t')) ++p;
  if (text_.substr(p, 5) == "ROOT ") p += 5;
  if (p < text_.size() && text_[p] == '%') ++p;
  size_t end = p;
  while (end < text_.size() && IsNameChar(text_[end])) ++end;
  if (end == p) return;
  next_name_ = text_.substr(p, end - p);
  next_name_hash_ = names_.Hash(next_name_);
  names_.Prefetch(next_name_hash_);
}

uint64_t Parser::NameHash(absl::string_view name) const {
  return name.data() == next_name_.data() && name.size() == next_name_.size()
             ? next_name_hash_
             : names_.Hash(name);
}

// What an op's written shape must be before anything reads it. XLA builds
// an infeed from the first element of its shape, the tuple (data, token):
// an array or () leaves it nothing to build from.
absl::Status CheckWrittenShape(HloOpcode opcode, const Shape& shape) {
  if (opcode == HloOpcode::kInfeed && (!shape.IsTuple() || shape.tuple_shapes().empty())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "infeed's shape must be a non-empty tuple (data, token), not ", shape.ToString()));
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> SetDefaultLayoutsAndCheckSizes(Shape shape) {
  SetDefaultLayouts(shape);
  absl::Status sized = CheckShapeSizes(shape);
  if (!sized.ok()) return sized;
  return shape;
}

absl::StatusOr<Shape> Parser::ParseShapeHere() {
  SkipSpace();
  ShapeParser parser(text_, pos_);
  absl::StatusOr<Shape> shape = parser.ParseShape();
  if (!shape.ok()) return ErrorAt(parser.error_offset(), shape.status().message());
  absl::Status sized = CheckShapeSizes(*shape);
  if (!sized.ok()) return ErrorAt(pos_, sized.message());
  pos_ = parser.pos();
  return shape;
}

absl::StatusOr<std::vector<Shape>> Parser::ParseShapeList(std::vector<size_t>* offsets) {
  absl::Status s = Expect("{", "to open the list of shapes");
  if (!s.ok()) return s;
  std::vector<Shape> shapes;
  if (Consume("}")) return shapes;
  while (true) {
    if (offsets != nullptr) offsets->push_back((SkipSpace(), pos_));
    absl::StatusOr<Shape> shape = ParseShapeHere();
    if (!shape.ok()) return shape.status();
    SetDefaultLayouts(*shape);
    shapes.push_back(*std::move(shape));
    if (Consume("}")) return shapes;
    s = Expect(",", "or '}' between shapes");
    if (!s.ok()) return s;
  }
}

// A value up to the next ',' or newline outside brackets and strings.
std::string Parser::ScanValue() {
  SkipSpace();
  size_t start = pos_;
  int depth = 0;
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == '"') {
      ++pos_;
      while (pos_ < text_.size() && text_[pos_] != '"') {
        pos_ += text_[pos_] == '\\' ? 2 : 1;
      }
      ++pos_;
      continue;
    }
    if (c == '{' || c == '(' || c == '[') ++depth;
    if (c == '}' || c == ')' || c == ']') {
      if (depth == 0) break;
      --depth;
    }
    if (depth == 0 && (c == ',' || c == '\n')) break;
    ++pos_;
  }
  pos_ = std::min(pos_, text_.size());
  return std::string(absl::StripAsciiWhitespace(text_.substr(start, pos_ - start)));
}

absl::StatusOr<std::string> Parser::ScanBalanced(char open, char close) {
  size_t start = pos_;
  int depth = 1;
  while (pos_ < text_.size() && depth > 0) {
    char c = text_[pos_];
    if (c == '"') {
      ++pos_;
      while (pos_ < text_.size() && text_[pos_] != '"') {
        pos_ += text_[pos_] == '\\' ? 2 : 1;
      }
    } else if (c == '/' && pos_ + 1 < text_.size() &&
               (text_[pos_ + 1] == '*' || text_[pos_ + 1] == '/')) {
      // A bracket inside a comment does not count.
      pos_ = SkipSpaceAndComments(text_, pos_);
      continue;
    } else if (c == open) {
      ++depth;
    } else if (c == close) {
      --depth;
    }
    ++pos_;
  }
  if (depth != 0) return ErrorAt(start, absl::StrCat("unbalanced '", std::string(1, open), "'"));
  return std::string(text_.substr(start, pos_ - 1 - start));
}

absl::Status Parser::ParseArguments(HloComputation& computation, HloInstruction& instr,
                                    OperandList& operands) {
  absl::Status s;
  if (instr.opcode() == HloOpcode::kConstant) {
    const size_t literal_at = pos_;
    absl::StatusOr<std::string> literal = ScanBalanced('(', ')');
    if (!literal.ok()) return literal.status();
    // A constant's shape is always written; one left out fails inference.
    if (instr.shape().element_type() != PRIMITIVE_TYPE_INVALID) {
      size_t error_offset = 0;
      absl::StatusOr<HloLiteral> value =
          HloLiteral::Parse(*literal, instr.shape(), &error_offset);
      if (!value.ok()) {
        return ErrorAt(literal_at + error_offset,
                       absl::StrCat("in the literal of ", instr.shape().ToString(), ": ",
                                    value.status().message()));
      }
      instr.set_literal_value(std::make_shared<const HloLiteral>(*std::move(value)));
    }
    instr.set_literal(std::string(absl::StripAsciiWhitespace(*literal)));
    return absl::OkStatus();
  }
  if (instr.opcode() == HloOpcode::kParameter) {
    size_t at = (SkipSpace(), pos_);
    std::string number = ScanValue();
    int64_t n;
    if (!absl::SimpleAtoi(number, &n) || n < 0) {
      return ErrorAt(at, "parameter needs a parameter number: parameter(0)");
    }
    instr.set_parameter_number(n);
    return Expect(")", "after the parameter number");
  }
  if (Consume(")")) return absl::OkStatus();
  while (true) {
    size_t at = (SkipSpace(), pos_);
    int written = -1;
    // An operand starts with its shape when a type name and '[' (or a
    // tuple's '(') come first.
    size_t p = pos_;
    while (p < text_.size() && absl::ascii_isalnum(text_[p])) ++p;
    bool typed = (pos_ < text_.size() && text_[pos_] == '(') ||
                 (p < text_.size() && text_[p] == '[' &&
                  ParsePrimitiveType(text_.substr(pos_, p - pos_)).ok());
    std::optional<Shape> shape;
    if (typed) {
      absl::StatusOr<Shape> ws = ParseShapeHere();
      if (!ws.ok()) return ws.status();
      shape = *std::move(ws);
      at = (SkipSpace(), pos_);
    }
    absl::StatusOr<absl::string_view> op = ParseNameView("an operand name");
    if (!op.ok()) return op.status();
    // `opcode(...)` in place of a name: an instruction written inline, as
    // XLA allows (without attributes).
    if (pos_ < text_.size() && text_[pos_] == '(') {
      if (!StringToHloOpcode(*op).ok()) {
        return ErrorAt(at, absl::StrCat("unknown opcode '", *op, "' in an inline operand"));
      }
      absl::StatusOr<HloInstruction*> nested =
          ParseNested(computation, std::move(shape), *StringToHloOpcode(*op), at);
      if (!nested.ok()) return nested.status();
      operands.push_back({"", -1, at, *nested});
    } else {
      if (shape) {
        written = static_cast<int>(written_shapes_.size());
        written_shapes_.push_back(*std::move(shape));
      }
      operands.push_back({*op, written, at});
    }
    if (Consume(")")) return absl::OkStatus();
    s = Expect(",", "or ')' between operands");
    if (!s.ok()) return s;
  }
}

absl::StatusOr<HloInstruction*> Parser::ParseNested(HloComputation& computation,
                                                    std::optional<Shape> shape,
                                                    HloOpcode opcode, size_t at) {
  if (++nesting_ > kMaxNesting) {
    return ErrorAt(at, absl::StrCat("operands nested deeper than ", kMaxNesting));
  }
  const bool infer = !shape.has_value();
  if (shape) {
    absl::Status written = CheckWrittenShape(opcode, *shape);
    if (!written.ok()) return ErrorAt(at, written.message());
    SetDefaultLayouts(*shape);
  }
  auto instr = std::make_unique<HloInstruction>("", opcode, infer ? Shape() : *shape);
  instr->set_location(source_.LocationOf(at, &line_hint_));
  absl::Status s = Expect("(", "after the opcode of an inline operand");
  if (!s.ok()) return s;
  OperandList operands;
  s = ParseArguments(computation, *instr, operands);
  if (!s.ok()) return s;
  --nesting_;
  HloInstruction* raw = computation.AddInstruction(std::move(instr));
  if (infer) inferred_.push_back({raw, at});
  s = FinishOperands(raw, std::move(operands));
  if (!s.ok()) return s;
  nested_.push_back(raw);
  return raw;
}

bool Parser::ShapeLeftOut() const {
  size_t q = pos_;
  while (q < text_.size() && (absl::ascii_isalnum(text_[q]) || text_[q] == '-')) ++q;
  return q < text_.size() && text_[q] == '(' &&
         StringToHloOpcode(text_.substr(pos_, q - pos_)).ok() &&
         !ParsePrimitiveType(text_.substr(pos_, q - pos_)).ok();
}

absl::StatusOr<Parser::WrittenOpcode> Parser::ParseOpcode() {
  size_t op_at = (SkipSpace(), pos_);
  while (pos_ < text_.size() &&
         (absl::ascii_isalnum(text_[pos_]) || text_[pos_] == '-')) {
    ++pos_;
  }
  absl::string_view op_text = text_.substr(op_at, pos_ - op_at);
  if (op_text.empty()) return ErrorAt(op_at, "expected an opcode");
  absl::StatusOr<HloOpcode> opcode = StringToHloOpcode(op_text);
  // XLA's async shorthand: `add-start`, `add-update`, `add-done` wrap `add`.
  std::optional<HloOpcode> wrapped;
  if (!opcode.ok()) {
    const std::pair<absl::string_view, HloOpcode> kAsync[] = {
        {"-start", HloOpcode::kAsyncStart},
        {"-update", HloOpcode::kAsyncUpdate},
        {"-done", HloOpcode::kAsyncDone}};
    for (const auto& [suffix, async_op] : kAsync) {
      if (!absl::EndsWith(op_text, suffix)) continue;
      absl::StatusOr<HloOpcode> base =
          StringToHloOpcode(op_text.substr(0, op_text.size() - suffix.size()));
      if (base.ok()) {
        opcode = async_op;
        wrapped = *base;
      }
    }
  }
  if (!opcode.ok()) return ErrorAt(op_at, opcode.status().message());
  return WrittenOpcode{*opcode, wrapped, op_text, op_at};
}

absl::Status Parser::ParseInstruction(HloComputation& computation, bool& saw_root) {
  size_t start = (SkipSpace(), pos_);
  bool is_root = ConsumeKeyword("ROOT");
  size_t name_at = (SkipSpace(), pos_);
  absl::StatusOr<absl::string_view> name = ParseNameView("an instruction name");
  if (!name.ok()) return name.status();
  const uint64_t name_hash = NameHash(*name);
  if (names_.Find(*name, name_hash) != nullptr) {
    return ErrorAt(name_at, absl::StrCat("instruction '", *name,
                                         "' is defined twice in '",
                                         computation.name(), "'"));
  }
  PrefetchNextName();
  absl::Status s;
  // Error messages are built only on the error path: this runs once per
  // instruction of modules of millions.
  if (!Consume("=")) return Expect("=", absl::StrCat("after instruction name '", *name, "'"));
  size_t shape_at = (SkipSpace(), pos_);
  const bool inferred = ShapeLeftOut();
  absl::StatusOr<Shape> shape = inferred ? absl::StatusOr<Shape>(Shape())
                                         : ParseShapeHere();
  if (!shape.ok()) return shape.status();
  // (queued for inference once added, after any inline operands)
  absl::StatusOr<WrittenOpcode> opcode = ParseOpcode();
  if (!opcode.ok()) return opcode.status();
  if (!inferred && !(s = CheckWrittenShape(opcode->opcode, *shape)).ok()) {
    return ErrorAt(shape_at, s.message());
  }
  const bool written = !inferred && AllLayoutsWritten(*shape);
  if (!inferred) SetDefaultLayouts(*shape);
  auto instr =
      std::make_unique<HloInstruction>(std::string(*name), opcode->opcode, *std::move(shape));
  instr->set_layout_written(written);
  instr->set_location(source_.LocationOf(name_at, &line_hint_));
  if (!Consume("(")) return Expect("(", absl::StrCat("after opcode '", opcode->text, "'"));
  OperandList operands;
  s = ParseArguments(computation, *instr, operands);
  if (!s.ok()) return s;
  HloInstruction* raw = computation.AddInstruction(std::move(instr));
  names_.Insert(raw, name_hash);
  s = FinishOperands(raw, std::move(operands));
  if (!s.ok()) return s;
  if (inferred) inferred_.push_back({raw, shape_at});
  if (opcode->wrapped) async_.push_back({raw, *opcode->wrapped, opcode->offset});
  s = ParseAttributes(*raw, opcode->wrapped, /*shape_written=*/!inferred);
  if (!s.ok()) return s;
  if (is_root) {
    if (saw_root) {
      return ErrorAt(start, absl::StrCat("computation '", computation.name(),
                                         "' has a second ROOT"));
    }
    saw_root = true;
    computation.set_root(raw);
  }
  return absl::OkStatus();
}

absl::Status Parser::FinishOperands(HloInstruction* instr,
                                    OperandList operands) {
  // Each name is looked up once: at a million instructions a lookup is a
  // hash and a probe of a table far larger than the caches.
  absl::InlinedVector<HloInstruction*, 4> definitions(operands.size(), nullptr);
  for (size_t k = 0; k < operands.size(); ++k) {
    if (operands[k].nested != nullptr) continue;
    definitions[k] = names_.Find(operands[k].name);
    if (definitions[k] == nullptr) {
      forward_.push_back({instr, std::move(operands)});
      return absl::OkStatus();
    }
  }
  for (size_t k = 0; k < operands.size(); ++k) {
    if (operands[k].nested != nullptr) {
      instr->AppendOperand(operands[k].nested);
      continue;
    }
    absl::Status s = ResolveOperand(instr, operands[k], definitions[k]);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status Parser::ResolveOperand(HloInstruction* user,
                                    const PendingOperand& op, HloInstruction* definition) {
  const Shape& actual = definition->shape();
  const Shape* written = op.written_shape >= 0 ? &written_shapes_[op.written_shape] : nullptr;
  if (written != nullptr && actual.element_type() == PRIMITIVE_TYPE_INVALID) {
    // The definition's shape is inferred once the module is read.
    deferred_operands_.push_back({definition, *written, op.offset});
    written = nullptr;
  }
  if (written != nullptr && !Shape::Equal().IgnoreLayout()(*written, actual)) {
    return ErrorAt(op.offset, absl::StrCat("operand '", op.name, "' is written as ",
                                           written->ToString(), " but its shape is ",
                                           actual.ToString()));
  }
  // XLA uses the definition's layout; so do we, and say so.
  if (written != nullptr && written->IsArray() && written->has_layout() &&
      actual.has_layout() && written->layout() != actual.layout()) {
    Warn(op.offset, absl::StrCat("operand '", op.name, "' is written with layout ",
                                 written->layout().ToString(), " but its definition has ",
                                 actual.layout().ToString(), "; using the definition's"));
  }
  user->AppendOperand(definition);
  return absl::OkStatus();
}

absl::Status Parser::ParseSignature(HloComputation& computation) {
  if (!Consume("(")) return absl::OkStatus();
  std::vector<std::pair<std::string, Shape>> signature;
  if (!Consume(")")) {
    while (true) {
      absl::StatusOr<std::string> p = ParseName("a parameter name");
      if (!p.ok()) return p.status();
      absl::Status s = Expect(":", "after the parameter name");
      if (!s.ok()) return s;
      absl::StatusOr<Shape> shape = ParseShapeHere();
      if (!shape.ok()) return shape.status();
      signature.push_back({*p, *shape});
      if (Consume(")")) break;
      s = Expect(",", "or ')' between parameters");
      if (!s.ok()) return s;
    }
  }
  absl::Status s = Expect("->", "after the parameters");
  if (!s.ok()) return s;
  absl::StatusOr<Shape> result = ParseShapeHere();
  if (!result.ok()) return result.status();
  computation.set_signature(
      HloComputation::Signature{std::move(signature), *std::move(result)});
  return absl::OkStatus();
}

absl::Status Parser::ParseInstructions(HloComputation& computation) {
  bool saw_root = false;
  names_.Clear();
  // Sized for the computation's lines up front: growing a table of a
  // million names rehashes it at random several times over. Capped, so
  // that a text of blank or odd lines cannot make it large (24 MiB).
  // (XLA prints a computation's closing brace at the start of a line.)
  names_.Reserve(CountLinesAhead(text_.substr(pos_), size_t{1} << 20, '}'));
  forward_.clear();
  written_shapes_.clear();
  while (!Consume("}")) {
    if (AtEnd()) {
      return ErrorAt(pos_, absl::StrCat("expected '}' to close computation '",
                                        computation.name(), "', found end of file"));
    }
    absl::Status s = ParseInstruction(computation, saw_root);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseExecutionThread(HloComputation& computation) {
  size_t after = pos_;
  if (!Consume(",")) {
    pos_ = after;
    return absl::OkStatus();
  }
  size_t at = (SkipSpace(), pos_);
  if (!ConsumeKeyword("execution_thread")) {
    return ErrorAt(at, absl::StrCat("expected execution_thread=\"...\" after "
                                    "computation '", computation.name(), "'"));
  }
  absl::Status s = Expect("=", "after execution_thread");
  if (!s.ok()) return s;
  SkipSpace();
  size_t value_at = pos_;
  std::string value = ScanValue();
  if (value.size() < 2 || value.front() != '"' || value.back() != '"') {
    return ErrorAt(value_at, "execution_thread needs a quoted name");
  }
  // A quoted string as XLA's lexer reads it: C escapes (\", \\, \001)
  // stand for their bytes, so any thread name prints and reads back.
  std::string thread;
  if (!absl::CUnescape(absl::string_view(value).substr(1, value.size() - 2), &thread)) {
    return ErrorAt(value_at, "execution_thread has a bad escape sequence");
  }
  computation.set_execution_thread(std::move(thread));
  return absl::OkStatus();
}

void Parser::NameInlineOperands() {
  for (HloInstruction* i : nested_) {
    std::string base = absl::StrCat(HloOpcodeString(i->opcode()), ".anon");
    std::string name = base;
    for (int64_t n = 1; names_.Contains(name); ++n) name = absl::StrCat(base, ".", n);
    i->set_name(std::move(name));
    names_.Insert(i);
  }
  nested_.clear();
}

absl::Status Parser::ResolveForwardOperands(const HloComputation& computation) {
  for (const PendingInstruction& user : forward_) {
    for (const PendingOperand& op : user.operands) {
      if (op.nested != nullptr) {
        user.instruction->AppendOperand(op.nested);
        continue;
      }
      HloInstruction* definition = names_.Find(op.name);
      if (definition == nullptr) {
        return ErrorAt(op.offset, absl::StrCat("use of undefined instruction '",
                                               op.name, "' in '", computation.name(), "'"));
      }
      absl::Status s = ResolveOperand(user.instruction, op, definition);
      if (!s.ok()) return s;
    }
  }
  forward_.clear();
  return absl::OkStatus();
}

absl::Status Parser::CheckControlPredecessors(const HloComputation& computation) {
  for (const PendingPredecessor& p : predecessors_) {
    const HloInstruction* named = names_.Find(p.name);
    if (named == nullptr) {
      return ErrorAt(p.offset, absl::StrCat("control-predecessors of '",
                                            p.instruction->name(), "' names '", p.name,
                                            "', which is not in '", computation.name(), "'"));
    }
    if (named == p.instruction) {
      return ErrorAt(p.offset, absl::StrCat("'", p.name, "' is its own control predecessor"));
    }
  }
  predecessors_.clear();
  return absl::OkStatus();
}

absl::Status Parser::ParseComputation(HloModule& module) {
  size_t start = (SkipSpace(), pos_);
  bool entry = ConsumeKeyword("ENTRY");
  size_t name_at = (SkipSpace(), pos_);
  absl::StatusOr<std::string> name = ParseName("a computation name or ENTRY");
  if (!name.ok()) return name.status();
  if (module.FindComputation(*name) != nullptr) {
    return ErrorAt(name_at, absl::StrCat("computation '", *name, "' is defined twice"));
  }
  auto computation = std::make_unique<HloComputation>(*name);
  computation->set_location(source_.LocationOf(name_at, &line_hint_));
  absl::Status s = ParseSignature(*computation);
  if (!s.ok()) return s;
  s = Expect("{", absl::StrCat("to open computation '", *name, "'",
                               module.computation_count() == 0 && !header_
                                   ? " (a module starts with 'HloModule' or a computation)"
                                   : ""));
  if (!s.ok()) return s;
  HloComputation* c = module.AddComputation(std::move(computation));
  if (entry) {
    if (module.entry() != nullptr) {
      return ErrorAt(start, "a second ENTRY computation");
    }
    module.set_entry(c);
  }
  s = ParseInstructions(*c);
  if (!s.ok()) return s;
  s = ParseExecutionThread(*c);
  if (!s.ok()) return s;
  HloComputation::InstructionRange instrs = c->instruction_range();
  if (instrs.empty()) return ErrorAt(start, absl::StrCat("computation '", *name, "' is empty"));
  if (c->root() == nullptr) c->set_root(instrs.back());  // XLA's rule
  NameInlineOperands();
  s = ResolveForwardOperands(*c);
  if (!s.ok()) return s;
  s = CheckControlPredecessors(*c);
  if (!s.ok()) return s;
  signatures_.push_back({c, name_at});
  // The name map of a large computation is released now, not when the next
  // computation is read: the module is at its largest at the end of parsing.
  names_.Clear();
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<HloModule>> Parser::Parse() {
  // Without an `HloModule` line the text is a list of computations, and the
  // module is named after its entry, as XLA names it.
  header_ = ConsumeKeyword("HloModule");
  const bool header = header_;
  auto module = std::make_unique<HloModule>("_");
  module->set_source_name(std::string(source_.filename()));
  absl::Status s;
  if (header) {
    absl::StatusOr<std::string> name = ParseName("a module name");
    if (!name.ok()) return name.status();
    Consume(":");  // Older dumps write `HloModule name:`.
    module->set_name(*name);
    s = ParseHeader(*module);
    if (!s.ok()) return s;
  }
  while (!AtEnd()) {
    s = ParseComputation(*module);
    if (!s.ok()) return s;
  }
  if (module->computation_count() == 0) {
    return ErrorAt(pos_, "the module has no computations");
  }
  if (module->entry() == nullptr) module->set_entry(module->computations().back());
  if (!header) module->set_name(absl::StrCat("module_", module->entry()->name()));
  s = WrapAsyncOps(*module);
  if (!s.ok()) return s;
  for (const PendingCall& call : calls_) {
    HloComputation* callee = module->FindComputation(call.name);
    if (callee == nullptr) {
      return ErrorAt(call.offset, absl::StrCat("computation '", call.name,
                                               "' (", call.attribute,
                                               ") is not defined"));
    }
    call.instruction->AddCalledComputation(call.attribute, callee);
  }
  s = CheckAsyncOps(*module);
  if (!s.ok()) return s;
  s = FinishShapes();
  if (!s.ok()) return s;
  s = VerifyAliasing(*module);
  if (!s.ok()) {
    return ErrorAt(absl::StartsWith(s.message(), "buffer_donor") ? donors_at_ : aliasing_at_,
                   s.message());
  }
  // Names are unique within each computation as read (the name map refuses
  // a second definition; inline operands are named clear of the others):
  // only several computations can repeat one.
  if (module->computation_count() > 1) module->UniquifyInstructionNames();
  ReportUpgrades();
  return module;
}
}  // namespace hlo_parser_internal

absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModule(
    absl::string_view text, absl::string_view filename,
    std::vector<std::string>* warnings) {
  return ParseHloModule(text, filename, warnings, HloParseOptions());
}

absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModule(
    absl::string_view text, absl::string_view filename,
    std::vector<std::string>* warnings, const HloParseOptions& options) {
  hlo_parser_internal::Parser parser(text, filename, warnings, options);
  return parser.Parse();
}

}  // namespace xla_layout
