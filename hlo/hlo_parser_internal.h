// The HLO text parser's class, shared by its four files: hlo_parser.cc
// reads the grammar (computations, instructions, operands);
// hlo_parser_attributes.cc an instruction's attributes;
// hlo_parser_header.cc the module header's attributes; hlo_parser_finish.cc
// completes the module once it is read (async wrapping, shapes left out,
// checks that wait for them). Not a public API: use ParseHloModule
// (hlo_parser.h).
#ifndef HLO_HLO_PARSER_INTERNAL_H_
#define HLO_HLO_PARSER_INTERNAL_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/hlo_module.h"
#include "hlo/hlo_parser.h"
#include "hlo/name_table.h"
#include "hlo/source_text.h"

namespace xla_layout::hlo_parser_internal {

// `shape` with default layouts where none is written, if the index math can
// size it.
absl::StatusOr<Shape> SetDefaultLayoutsAndCheckSizes(Shape shape);

class Parser {
 public:
  Parser(absl::string_view text, absl::string_view filename,
         std::vector<std::string>* warnings, const HloParseOptions& options)
      : text_(text), source_(text, filename), warnings_(warnings), options_(options) {}

  absl::StatusOr<std::unique_ptr<HloModule>> Parse();

 private:
  // Operands are resolved after their computation is read. Written shapes
  // are rare and large, so they live in written_shapes_ (index or -1).
  struct PendingOperand {
    absl::string_view name;  // in the text
    int written_shape;
    size_t offset;
    HloInstruction* nested = nullptr;  // an operand written inline
  };
  // An instruction's operands as written. Few: they stay on the stack.
  using OperandList = absl::InlinedVector<PendingOperand, 4>;
  // An instruction that reads a name not defined yet when it was read.
  struct PendingInstruction {
    HloInstruction* instruction;
    OperandList operands;
  };
  struct PendingCall {
    HloInstruction* instruction;
    std::string attribute;
    std::string name;
    size_t offset;
  };

  absl::Status ErrorAt(size_t offset, absl::string_view message) const;
  void SkipSpace();
  bool Consume(absl::string_view s);
  bool AtEnd() { return SkipSpace(), pos_ >= text_.size(); }
  char Peek() { return SkipSpace(), pos_ < text_.size() ? text_[pos_] : '\0'; }
  absl::Status Expect(absl::string_view s, absl::string_view context);
  absl::StatusOr<std::string> ParseName(absl::string_view what);
  // The same, as a view into the text (no string per name).
  absl::StatusOr<absl::string_view> ParseNameView(absl::string_view what);
  // Starts loading the name table's slot for the instruction on the next
  // line, if that line looks like one, and keeps that name's hash.
  void PrefetchNextName();
  // The name table's hash of `name`, a view into the text: the one kept by
  // PrefetchNextName when it is that name, so each name is hashed once.
  uint64_t NameHash(absl::string_view name) const;
  // Consumes `word` when it stands alone (not the start of a longer name).
  bool ConsumeKeyword(absl::string_view word);
  absl::StatusOr<Shape> ParseShapeHere();
  // `{shape, shape, ...}` at the cursor, default layouts filled in; where
  // each shape starts goes to `offsets`, when given.
  absl::StatusOr<std::vector<Shape>> ParseShapeList(std::vector<size_t>* offsets = nullptr);
  std::string ScanValue();
  absl::StatusOr<std::string> ScanBalanced(char open, char close);

  absl::Status ParseHeader(HloModule& module);
  absl::Status ParseComputation(HloModule& module);
  // `(name: shape, ...) -> shape` after a computation's name, if written.
  absl::Status ParseSignature(HloComputation& computation);
  // The instructions of a computation, up to its closing brace.
  absl::Status ParseInstructions(HloComputation& computation);
  // `, execution_thread="..."` after a computation's closing brace (XLA
  // writes its thread there), if written.
  absl::Status ParseExecutionThread(HloComputation& computation);
  // Inline operands are named `<opcode>.anon` as XLA names them, clear of
  // every name the computation writes (the module-wide uniquer runs later).
  void NameInlineOperands();
  // Gives the instructions in forward_ their operands, now that every name
  // of the computation is defined.
  absl::Status ResolveForwardOperands(const HloComputation& computation);
  // Each control predecessor names another instruction of the computation.
  absl::Status CheckControlPredecessors(const HloComputation& computation);
  // The parenthesized part after an opcode: a literal, a parameter number,
  // or operands (by name, or written inline).
  absl::Status ParseArguments(HloComputation& computation, HloInstruction& instr,
                              OperandList& operands);
  absl::StatusOr<HloInstruction*> ParseNested(HloComputation& computation,
                                              std::optional<Shape> shape, HloOpcode opcode,
                                              size_t at);
  absl::Status ParseInstruction(HloComputation& computation, bool& saw_root);
  // True when the text at the cursor is an opcode directly followed by '(':
  // newer XLA text leaves the result shape out (`abs(b)`), to be inferred.
  bool ShapeLeftOut() const;
  // An opcode as written: for XLA's async shorthand (`add-start`,
  // `add-update`, `add-done`) the async op, and the op it wraps.
  struct WrittenOpcode {
    HloOpcode opcode;
    std::optional<HloOpcode> wrapped;
    absl::string_view text;
    size_t offset;
  };
  absl::StatusOr<WrittenOpcode> ParseOpcode();
  // The `, name=value` attributes that continue an instruction's line, up to
  // its end. `wrapped`: the op of the async shorthand, whose attributes they
  // are; `shape_written`: whether the instruction's shape is written.
  absl::Status ParseAttributes(HloInstruction& instr, std::optional<HloOpcode> wrapped,
                               bool shape_written);
  // One `name=value` (the ',' read); `dropped_api_version` is set once an
  // old api_version is dropped, so that a second one is refused.
  absl::Status ParseAttribute(HloInstruction& instr, std::optional<HloOpcode> wrapped,
                              bool shape_written, bool& dropped_api_version);
  // The value of attribute `a` (at `at`) into `a.value` and `instr`'s typed
  // attributes. False when it is an old form that is dropped (UpgradeOldForm).
  absl::StatusOr<bool> ParseAttributeValue(HloInstruction& instr,
                                           std::optional<HloOpcode> wrapped, HloAttribute& a,
                                           size_t at, bool shape_written);
  // Gives `instr` its operands now when every name is defined (the common
  // case: no list per instruction waits for the end of the computation);
  // otherwise queues them in forward_.
  absl::Status FinishOperands(HloInstruction* instr,
                              OperandList operands);
  // Appends `definition` as the next operand of `user`, after checking the
  // shape written with the operand, if any, against it.
  absl::Status ResolveOperand(HloInstruction* user,
                              const PendingOperand& op, HloInstruction* definition);
  // `opcode`: the op the attribute belongs to (the wrapped op of the async
  // shorthand).
  absl::Status SetTypedAttribute(HloInstruction& instr, HloOpcode opcode, const HloAttribute& a,
                                 size_t offset);
  // True when attribute `a` (its value at `value_at`) is a form only older
  // XLA versions wrote, read under accept_old_dumps: the caller drops it.
  // Without that option such a form is an error that says how to read it.
  absl::StatusOr<bool> UpgradeOldForm(const HloAttribute& a, size_t value_at);
  // Adds the upgrade counts to options_.upgrades.
  void ReportUpgrades() const;
  // custom-call's `literal=SHAPE VALUE` at the cursor, read with the
  // parser's own cursor so that an error points into it; sets `a.value` to
  // the text read.
  absl::Status ParseLiteralAttribute(HloInstruction& instr, HloAttribute& a);
  // An original_value (or origin) attribute at `at`, its value at `value_at`.
  absl::Status CheckOriginalValueAt(const HloInstruction& instr, const HloAttribute& a,
                                    size_t at, size_t value_at, bool shape_written) const;

  void Warn(size_t offset, absl::string_view message) {
    if (warnings_ != nullptr) {
      warnings_->push_back(
          source_.Diagnostic(source_.LocationOf(offset), "warning", message));
    }
  }
  size_t aliasing_at_ = 0, donors_at_ = 0;

  absl::string_view text_;
  SourceText source_;
  size_t line_hint_ = 0;  // where the last location was found
  absl::string_view next_name_;  // the name PrefetchNextName hashed
  uint64_t next_name_hash_ = 0;
  std::vector<std::string>* warnings_;
  HloParseOptions options_;
  int64_t upgraded_api_versions_ = 0;
  bool header_ = false;
  // Inline operands of the current computation, named once it is read.
  std::vector<HloInstruction*> nested_;
  static constexpr int kMaxNesting = 256;
  int nesting_ = 0;
  size_t pos_ = 0;
  std::vector<PendingCall> calls_;
  struct PendingShape {
    HloInstruction* instruction;
    size_t offset;
  };
  std::vector<PendingShape> inferred_;  // instructions written without shape
  // A written operand shape whose definition had none yet.
  struct DeferredOperand {
    HloInstruction* definition;
    Shape written;
    size_t offset;
  };
  std::vector<DeferredOperand> deferred_operands_;
  struct PendingSignature {
    HloComputation* computation;
    size_t offset;
  };
  std::vector<PendingSignature> signatures_;
  // Async shorthand instructions; the starts get their wrapped computation
  // once the module is read.
  struct PendingAsync {
    HloInstruction* instruction;
    HloOpcode wrapped;
    size_t offset;
  };
  std::vector<PendingAsync> async_;
  // Wrapped-computation parameters whose operand's shape is inferred.
  std::vector<std::pair<HloInstruction*, const HloInstruction*>> async_params_;
  absl::Status WrapAsyncOps(HloModule& module);
  // Where async ops write async_execution_thread, to check each update and
  // done against its start once the module is read.
  std::vector<std::pair<HloInstruction*, size_t>> async_threads_;
  // Each async-start wraps a computation of its own; an update or done
  // names its start's computation and thread, where it names one.
  absl::Status CheckAsyncOps(const HloModule& module) const;
  // control-predecessors of the current computation, checked once it is read.
  struct PendingPredecessor {
    HloInstruction* instruction;
    std::string name;
    size_t offset;
  };
  std::vector<PendingPredecessor> predecessors_;
  // Infers the shapes left out, checks what waited for them, and the
  // written signatures: once every callee is known.
  absl::Status FinishShapes();
  // A custom call's operand_layout_constraints (where the attribute and each
  // of its shapes start), checked against the operands once their shapes
  // are known: one shape per operand, each the operand's but for layout.
  struct PendingConstraints {
    HloInstruction* instruction;
    size_t offset;
    std::vector<size_t> shapes;
  };
  std::vector<PendingConstraints> constraints_;
  absl::Status CheckLayoutConstraints() const;
  // The instructions of the current computation by name (one is added once
  // it is read, so a name it reads is its own only as a forward operand).
  InstructionNameTable names_;
  std::vector<PendingInstruction> forward_;  // of the current computation
  std::vector<Shape> written_shapes_;
};

}  // namespace xla_layout::hlo_parser_internal

#endif  // HLO_HLO_PARSER_INTERNAL_H_
