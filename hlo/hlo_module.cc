#include "hlo/hlo_module.h"

#include <algorithm>
#include <functional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/name_uniquer.h"

namespace xla_layout {

HloInstruction::HloInstruction(std::string name, HloOpcode opcode, Shape shape)
    : name_(std::move(name)), opcode_(opcode), shape_(std::move(shape)) {}

// Invariant: `this` is in operand->users_ exactly when operand is among
// this->operands_. Checking the (short) operand list keeps building a module
// linear even when one value has many users.
void HloInstruction::AppendOperand(HloInstruction* operand) {
  bool already_user = std::find(operands_.begin(), operands_.end(), operand) !=
                      operands_.end();
  operands_.push_back(operand);
  if (!already_user) operand->users_.push_back(this);
}

void HloInstruction::ReplaceOperandWith(int i, HloInstruction* replacement) {
  HloInstruction* old = operands_[i];
  bool already_user = std::find(operands_.begin(), operands_.end(),
                                replacement) != operands_.end();
  operands_[i] = replacement;
  if (std::find(operands_.begin(), operands_.end(), old) == operands_.end()) {
    auto& users = old->users_;
    users.erase(std::remove(users.begin(), users.end(), this), users.end());
  }
  if (!already_user) replacement->users_.push_back(this);
}

void HloInstruction::ReplaceAllUsesWith(HloInstruction* replacement) {
  const InstructionList users = users_;
  for (HloInstruction* user : users) {
    if (user == replacement) continue;
    for (int i = 0; i < user->operand_count(); ++i) {
      if (user->operands_[i] == this) user->ReplaceOperandWith(i, replacement);
    }
  }
  if (parent_ != nullptr && parent_->root() == this) {
    parent_->set_root(replacement);
  }
}

const std::string& HloInstruction::literal() const { return extra_.get().literal_text; }

void HloInstruction::set_literal(std::string text) {
  extra_.mutable_get().literal_text = std::move(text);
}

void HloInstruction::set_literal_value(std::shared_ptr<const HloLiteral> value) {
  extra_.mutable_get().literal_value = std::move(value);
}

std::vector<int64_t> HloInstruction::DimensionNumbers(absl::string_view name) const {
  for (const auto& [n, dims] : attributes_.rare().dimension_numbers) {
    if (n == name) return dims;
  }
  return {};
}

HloComputation* HloInstruction::called_computation(
    absl::string_view attribute) const {
  for (const CalledComputation& c : extra_.get().called) {
    if (c.attribute == attribute) return c.computation;
  }
  return nullptr;
}

namespace {

void AppendIntList(std::string& out, const std::vector<int64_t>& v) {
  out += '{';
  for (size_t i = 0; i < v.size(); ++i) {
    if (i > 0) out += ',';
    AppendInt(&out, v[i]);
  }
  out += '}';
}

// `{{0,1},{1,2}}`, as XLA prints lists of lists.
void AppendIntListList(std::string& out, const std::vector<std::vector<int64_t>>& lists) {
  out += '{';
  for (size_t i = 0; i < lists.size(); ++i) {
    if (i > 0) out += ',';
    AppendIntList(out, lists[i]);
  }
  out += '}';
}

// The typed list of lists attribute `name` holds, or null.
const std::vector<std::vector<int64_t>>* TypedIntLists(
    const HloInstruction::Attributes& a, absl::string_view name) {
  const auto& rare = a.rare();
  const std::optional<std::vector<std::vector<int64_t>>>* field =
      name == "source_target_pairs" ? &rare.source_target_pairs
      : name == "replica_groups"    ? &rare.replica_groups
      : name == "slice_sizes"       ? &rare.slice_sizes_list
                                    : nullptr;
  return field != nullptr && field->has_value() ? &**field : nullptr;
}

// `L.1@2:4_R.0@2:4`.
void AppendSparsity(std::string& out, const std::vector<SparsityDescriptor>& sparsity) {
  for (size_t k = 0; k < sparsity.size(); ++k) {
    const SparsityDescriptor& d = sparsity[k];
    absl::StrAppend(&out, k > 0 ? "_" : "", d.operand == 0 ? "L." : "R.", d.dimension, "@",
                    d.n, ":", d.m);
  }
}

// Called-computation attributes whose value is a list.
bool IsListAttribute(absl::string_view name) {
  return name == "branch_computations" || name == "called_computations";
}

bool IsAsyncOpcode(HloOpcode op) {
  return op == HloOpcode::kAsyncStart || op == HloOpcode::kAsyncUpdate ||
         op == HloOpcode::kAsyncDone;
}

absl::string_view AsyncSuffix(HloOpcode op) {
  return op == HloOpcode::kAsyncStart ? "-start"
         : op == HloOpcode::kAsyncUpdate ? "-update"
                                          : "-done";
}

// `"host"` -> host; the parser keeps attribute values as written.
absl::string_view Unquoted(absl::string_view v) {
  return v.size() >= 2 && v.front() == '"' && v.back() == '"' ? v.substr(1, v.size() - 2) : v;
}

// The start's called computation is its parameters and one op that reads
// them in order, with the start's shapes, layouts included: the shorthand
// then says all there is.
bool IsOneOpOnParameters(const HloInstruction& start, const HloComputation& c) {
  const HloInstruction* root = c.root();
  const int n = start.operand_count();
  if (c.instruction_count() != n + 1 || root == nullptr ||
      root->opcode() == HloOpcode::kParameter || root->operand_count() != n ||
      !start.shape().IsTuple() || start.shape().tuple_shapes().size() < 2 ||
      root->shape() != start.shape().tuple_shapes()[1]) {
    return false;
  }
  for (int k = 0; k < n; ++k) {
    const HloInstruction* p = root->operand(k);
    if (p->opcode() != HloOpcode::kParameter || p->parameter_number() != k ||
        p->shape() != start.operand(k)->shape()) {
      return false;
    }
  }
  return true;
}

// Whether `op-start`, `op-update` or `op-done` names an opcode of its own
// (all-reduce-start): such text never reads as the shorthand.
bool HasOwnAsyncOpcodes(HloOpcode op) {
  for (HloOpcode async : {HloOpcode::kAsyncStart, HloOpcode::kAsyncUpdate,
                          HloOpcode::kAsyncDone}) {
    if (StringToHloOpcode(absl::StrCat(HloOpcodeString(op), AsyncSuffix(async))).ok()) {
      return true;
    }
  }
  return false;
}

std::optional<HloOpcode> StartShorthandOpcode(const HloInstruction& start) {
  const HloComputation* c = start.called_computation("calls");
  if (c == nullptr || c->is_entry() || !IsOneOpOnParameters(start, *c)) return std::nullopt;
  std::string thread;
  for (const HloAttribute& a : start.raw_attributes()) {
    if (a.name == "async_execution_thread") {
      // Unescaped, as the computation's own thread name is parsed.
      if (!absl::CUnescape(Unquoted(a.value), &thread)) return std::nullopt;
    } else if (a.name != "calls") {
      return std::nullopt;
    }
  }
  const HloOpcode op = c->root()->opcode();
  if (thread != c->execution_thread() || HasOwnAsyncOpcodes(op)) return std::nullopt;
  return op;
}

// The async-start an async op is or continues, or null.
const HloInstruction* AsyncStartOf(const HloInstruction& i) {
  const HloInstruction* start = &i;
  while (start->opcode() == HloOpcode::kAsyncUpdate || start->opcode() == HloOpcode::kAsyncDone) {
    if (start->operand_count() != 1) return nullptr;
    start = start->operand(0);
    // A done is never an update's or done's operand: the chain ends.
    if (start->opcode() == HloOpcode::kAsyncDone) return nullptr;
  }
  return start->opcode() == HloOpcode::kAsyncStart ? start : nullptr;
}

// AsyncShorthandOpcode, where the module's printer also asks that the
// wrapped computation be among `implied` (no other instruction calls it).
std::optional<HloOpcode> ShorthandOpcode(
    const HloInstruction& i, const absl::flat_hash_set<const HloComputation*>* implied) {
  const HloInstruction* start = AsyncStartOf(i);
  if (start == nullptr) return std::nullopt;
  const HloComputation* wrapped = start->called_computation("calls");
  // An update or done that names a computation names the start's.
  const HloComputation* called = i.called_computation("calls");
  if ((called != nullptr && called != wrapped) ||
      (implied != nullptr && !implied->contains(wrapped))) {
    return std::nullopt;
  }
  return StartShorthandOpcode(*start);
}

}  // namespace

std::optional<HloOpcode> AsyncShorthandOpcode(const HloInstruction& i) {
  return ShorthandOpcode(i, nullptr);
}

std::string HloInstruction::ToString(const PrintOptions& options) const {
  std::string out;
  Print(&out, options);
  return out;
}

void HloInstruction::Print(std::string* out_ptr, const PrintOptions& options) const {
  Print(out_ptr, options, nullptr);
}

void HloInstruction::Print(std::string* out_ptr, const PrintOptions& options,
                           const absl::flat_hash_set<const HloComputation*>* implied) const {
  std::string& out = *out_ptr;
  out += '%';
  out += name_;
  out += " = ";
  shape_.Print(&out, options);
  out += ' ';
  const std::optional<HloOpcode> shorthand =
      IsAsyncOpcode(opcode_) ? ShorthandOpcode(*this, implied) : std::nullopt;
  absl::string_view opcode = HloOpcodeString(shorthand.value_or(opcode_));
  out.append(opcode.data(), opcode.size());
  if (shorthand) absl::StrAppend(&out, AsyncSuffix(opcode_));
  out += '(';
  if (opcode_ == HloOpcode::kParameter) {
    AppendInt(&out, parameter_number());
  } else if (opcode_ == HloOpcode::kConstant) {
    out += literal();
  } else {
    for (int i = 0; i < operand_count(); ++i) {
      if (i > 0) out += ", ";
      // As XLA prints operands: every fifth one with its index.
      if (i > 0 && i % 5 == 0) absl::StrAppend(&out, "/*index=", i, "*/");
      operands_[i]->shape().Print(&out, options);
      out += " %";
      out += operands_[i]->name();
    }
  }
  out += ")";
  if (shorthand && opcode_ == HloOpcode::kAsyncStart) {
    // The wrapped op's attributes, then the start's own.
    called_computation("calls")->root()->PrintAttributes(out, options, /*skip_calls=*/false);
  }
  PrintAttributes(out, options, /*skip_calls=*/shorthand.has_value());
}

void HloInstruction::PrintAttributes(std::string& out, const PrintOptions& options,
                                     bool skip_calls) const {
  for (const HloAttribute& attr : raw_) {
    if (skip_calls && attr.name == "calls") continue;
    out += ", ";
    out += attr.name;
    out += '=';
    const Attributes& a = attributes_;
    const std::string& n = attr.name;
    if (n == "dimensions" && a.dimensions) {
      AppendIntList(out, *a.dimensions);
    } else if (n == "index" && a.index()) {
      AppendInt(&out, *a.index());
    } else if (n == "lhs_contracting_dims" && a.dot().lhs_contracting_dims) {
      AppendIntList(out, *a.dot().lhs_contracting_dims);
    } else if (n == "rhs_contracting_dims" && a.dot().rhs_contracting_dims) {
      AppendIntList(out, *a.dot().rhs_contracting_dims);
    } else if (n == "lhs_batch_dims" && a.dot().lhs_batch_dims) {
      AppendIntList(out, *a.dot().lhs_batch_dims);
    } else if (n == "rhs_batch_dims" && a.dot().rhs_batch_dims) {
      AppendIntList(out, *a.dot().rhs_batch_dims);
    } else if (n == "iota_dimension" && a.rare().iota_dimension) {
      absl::StrAppend(&out, *a.rare().iota_dimension);
    } else if (n == "slice" && a.rare().slice) {
      std::vector<std::string> parts;
      for (const auto& s : *a.rare().slice) {
        parts.push_back(s[2] == 1 ? absl::StrCat("[", s[0], ":", s[1], "]")
                                  : absl::StrCat("[", s[0], ":", s[1], ":",
                                                 s[2], "]"));
      }
      absl::StrAppend(&out, "{", absl::StrJoin(parts, ", "), "}");
    } else if (n == "padding" && a.rare().padding) {
      // XLA writes the interior part of every dim once any dim has one.
      bool interior = false;
      for (const auto& p : *a.rare().padding) interior |= p[2] != 0;
      std::vector<std::string> parts;
      for (const auto& p : *a.rare().padding) {
        parts.push_back(interior ? absl::StrCat(p[0], "_", p[1], "_", p[2])
                                 : absl::StrCat(p[0], "_", p[1]));
      }
      out += absl::StrJoin(parts, "x");
    } else if (n == "literal" && a.rare().literal) {
      a.rare().literal->shape.Print(&out, options);
      out += ' ';
      out += a.rare().literal->text;
    } else if (n == "sparsity" && !a.dot().sparsity.empty()) {
      AppendSparsity(out, a.dot().sparsity);
    } else if (const auto* lists = TypedIntLists(a, n)) {
      AppendIntListList(out, *lists);
    } else if (n == "direction" && a.keywords().direction) {
      out += *a.keywords().direction;
    } else if (n == "kind" && a.keywords().kind) {
      out += *a.keywords().kind;
    } else if (called_computation(n) != nullptr) {
      std::vector<std::string> names;
      for (const CalledComputation& c : extra_.get().called) {
        if (c.attribute == n) names.push_back(absl::StrCat("%", c.computation->name()));
      }
      if (IsListAttribute(n) || names.size() > 1) {
        absl::StrAppend(&out, "{", absl::StrJoin(names, ", "), "}");
      } else {
        out += names[0];
      }
    } else {
      out += attr.value;
    }
  }
}

bool IsInPlaceCollectivePermute(const HloInstruction& i) {
  // XLA's combined form also takes several operands, but no slice_sizes.
  return (i.opcode() == HloOpcode::kCollectivePermute ||
          i.opcode() == HloOpcode::kCollectivePermuteStart) &&
         i.operand_count() == 4 && i.attributes().rare().slice_sizes_list.has_value();
}

bool HloComputation::is_entry() const {
  return parent_ != nullptr && parent_->entry() == this;
}

std::vector<HloInstruction*> HloComputation::instructions() const {
  std::vector<HloInstruction*> out;
  out.reserve(instructions_.size());
  for (const auto& i : instructions_) out.push_back(i.get());
  return out;
}

std::vector<HloInstruction*> HloComputation::parameters() const {
  std::vector<HloInstruction*> params;
  for (HloInstruction* i : parameter_instructions_) {
    int64_t n = i->parameter_number();
    if (n < 0 || n > 1 << 20) continue;
    if (static_cast<int64_t>(params.size()) <= n) params.resize(n + 1, nullptr);
    params[n] = i;
  }
  return params;
}

HloInstruction* HloComputation::FindInstruction(absl::string_view name) const {
  for (const auto& i : instructions_) {
    if (i->name() == name) return i.get();
  }
  return nullptr;
}

HloInstruction* HloComputation::AddInstruction(
    std::unique_ptr<HloInstruction> instruction, HloInstruction* before) {
  instruction->parent_ = this;
  instruction->local_id_ = next_local_id_++;
  HloInstruction* raw = instruction.get();
  auto pos = instructions_.end();
  if (before != nullptr) {
    pos = std::find_if(instructions_.begin(), instructions_.end(),
                       [&](const auto& i) { return i.get() == before; });
  }
  instructions_.insert(pos, std::move(instruction));
  if (raw->opcode() == HloOpcode::kParameter) parameter_instructions_.push_back(raw);
  return raw;
}

std::unique_ptr<HloComputation> HloComputation::Clone(
    std::string name,
    const std::function<std::string(absl::string_view)>& rename) const {
  auto clone = std::make_unique<HloComputation>(std::move(name));
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> copies;
  for (const auto& i : instructions_) {
    auto copy = std::make_unique<HloInstruction>(rename(i->name()), i->opcode_, i->shape_);
    copy->extra_ = i->extra_;
    copy->layout_written_ = i->layout_written_;
    copy->attributes_ = i->attributes_;
    copy->raw_ = i->raw_;
    copy->location_ = i->location_;
    copies[i.get()] = clone->AddInstruction(std::move(copy));
  }
  // Operands may come later in the text, so they are wired in a second walk.
  for (const auto& i : instructions_) {
    for (HloInstruction* operand : i->operands_) {
      auto it = copies.find(operand);
      copies[i.get()]->AppendOperand(it != copies.end() ? it->second : operand);
    }
  }
  if (root_ != nullptr) clone->root_ = copies[root_];
  clone->signature_ = signature_;
  clone->location_ = location_;
  clone->execution_thread_ = execution_thread_;
  return clone;
}

void HloComputation::InsertInstructions(
    std::vector<std::pair<HloInstruction*, std::unique_ptr<HloInstruction>>>
        batch) {
  if (batch.empty()) return;
  absl::flat_hash_map<const HloInstruction*, std::vector<size_t>> before;
  for (size_t k = 0; k < batch.size(); ++k) {
    if (batch[k].second->opcode() == HloOpcode::kParameter) {
      parameter_instructions_.push_back(batch[k].second.get());
    }
    batch[k].second->parent_ = this;
    batch[k].second->local_id_ = next_local_id_++;
    if (batch[k].first != nullptr) before[batch[k].first].push_back(k);
  }
  std::vector<std::unique_ptr<HloInstruction>> merged;
  merged.reserve(instructions_.size() + batch.size());
  for (auto& instruction : instructions_) {
    auto it = before.find(instruction.get());
    if (it != before.end()) {
      for (size_t k : it->second) merged.push_back(std::move(batch[k].second));
    }
    merged.push_back(std::move(instruction));
  }
  // Null anchors, and anchors not in this computation, go at the end.
  for (auto& [anchor, instruction] : batch) {
    if (instruction != nullptr) merged.push_back(std::move(instruction));
  }
  instructions_ = std::move(merged);
}

int HloComputation::RemoveDeadInstructions() {
  int removed = 0;
  bool changed = true;
  while (changed) {
    changed = false;
    for (auto it = instructions_.begin(); it != instructions_.end();) {
      HloInstruction* i = it->get();
      if (i->users().empty() && i != root_ &&
          i->opcode() != HloOpcode::kParameter && !HasSideEffect(i->opcode())) {
        for (HloInstruction* op : i->operands()) {
          auto& users = op->users_;
          users.erase(std::remove(users.begin(), users.end(), i), users.end());
        }
        it = instructions_.erase(it);
        ++removed;
        changed = true;
      } else {
        ++it;
      }
    }
  }
  return removed;
}

void HloComputation::ReplaceInstructions(
    std::vector<std::pair<HloInstruction*, std::unique_ptr<HloInstruction>>> batch) {
  if (batch.empty()) return;
  // Replacements by the local id of the instruction they replace: a vector
  // read in id order, where a hash map by pointer (at 1M instructions, half
  // of them replaced) missed the cache on every probe.
  std::vector<std::unique_ptr<HloInstruction>> by_old_id(next_local_id_);
  for (auto& [old, replacement] : batch) {
    TakeUsesOf(old, replacement.get());
    if (old->parent_ == this) by_old_id[old->local_id_] = std::move(replacement);
  }
  for (auto& slot : instructions_) {
    std::unique_ptr<HloInstruction>& replacement = by_old_id[slot->local_id_];
    if (replacement != nullptr) slot = std::move(replacement);
  }
}

HloInstruction* HloComputation::ReplaceInstructionAt(
    size_t position, std::unique_ptr<HloInstruction> replacement) {
  std::unique_ptr<HloInstruction>& slot = instructions_[position];
  TakeUsesOf(slot.get(), replacement.get());
  slot = std::move(replacement);
  return slot.get();
}

void HloComputation::TakeUsesOf(HloInstruction* old, HloInstruction* replacement) {
  replacement->parent_ = this;
  replacement->local_id_ = next_local_id_++;
  old->ReplaceAllUsesWith(replacement);
  for (HloInstruction* op : old->operands()) {
    auto& users = op->users_;
    users.erase(std::remove(users.begin(), users.end(), old), users.end());
  }
}

std::vector<HloInstruction*> HloComputation::MakePostOrder() const {
  std::vector<HloInstruction*> order;
  absl::flat_hash_set<const HloInstruction*> visited;
  // Iterative DFS: deep chains must not exhaust the stack.
  auto visit = [&](HloInstruction* start) {
    std::vector<std::pair<HloInstruction*, int>> stack = {{start, 0}};
    if (!visited.insert(start).second) return;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next < node->operand_count()) {
        HloInstruction* op = node->operand(next++);
        if (visited.insert(op).second) stack.push_back({op, 0});
      } else {
        order.push_back(node);
        stack.pop_back();
      }
    }
  };
  if (root_ != nullptr) visit(root_);
  for (const auto& i : instructions_) visit(i.get());
  return order;
}

std::string HloComputation::ToString(const PrintOptions& options) const {
  std::string out;
  Print(&out, options);
  return out;
}

namespace {
constexpr size_t kFlushBytes = size_t{1} << 20;
}  // namespace

void HloComputation::Print(std::string* out_ptr, const PrintOptions& options,
                           const std::function<void(std::string&)>& flush) const {
  Print(out_ptr, options, flush, nullptr);
}

void HloComputation::Print(std::string* out_ptr, const PrintOptions& options,
                           const std::function<void(std::string&)>& flush,
                           const absl::flat_hash_set<const HloComputation*>* implied) const {
  std::string& out = *out_ptr;
  if (is_entry()) out += "ENTRY ";
  out += '%';
  out += name_;
  out += " (";
  bool first = true;
  for (HloInstruction* p : parameters()) {
    if (p == nullptr) continue;
    if (!first) out += ", ";
    first = false;
    out += p->name();
    out += ": ";
    p->shape().Print(&out, options);
  }
  out += ") -> ";
  if (root_ != nullptr) {
    root_->shape().Print(&out, options);
  } else {
    out += "()";
  }
  out += " {\n";
  for (const auto& i : instructions_) {
    out += i.get() == root_ ? "  ROOT " : "  ";
    i->Print(&out, options, implied);
    out += '\n';
    if (flush && out.size() >= kFlushBytes) flush(out);
  }
  out += '}';
  if (!execution_thread_.empty()) {
    // Escaped as the parser reads it back (a plain name prints as itself).
    absl::StrAppend(&out, ", execution_thread=\"", absl::Utf8SafeCEscape(execution_thread_),
                    "\"");
  }
  out += '\n';
}

std::vector<HloComputation*> HloModule::computations() const {
  std::vector<HloComputation*> out;
  for (const auto& c : computations_) out.push_back(c.get());
  return out;
}

HloComputation* HloModule::InsertComputation(
    std::unique_ptr<HloComputation> c, const HloComputation* anchor, bool after) {
  c->parent_ = this;
  HloComputation* raw = c.get();
  by_name_.emplace(raw->name(), raw);
  if (anchor == nullptr) {
    computations_.push_back(std::move(c));
    return raw;
  }
  auto pos = std::find_if(computations_.begin(), computations_.end(),
                          [anchor](const auto& x) { return x.get() == anchor; });
  if (after && pos != computations_.end()) ++pos;
  computations_.insert(pos, std::move(c));
  return raw;
}

HloComputation* HloModule::AddComputation(std::unique_ptr<HloComputation> c,
                                          const HloComputation* after) {
  return InsertComputation(std::move(c), after, /*after=*/true);
}

HloComputation* HloModule::AddComputationBefore(std::unique_ptr<HloComputation> c,
                                                const HloComputation* before) {
  return InsertComputation(std::move(c), before, /*after=*/false);
}

void HloModule::AddComputationsAfter(
    std::vector<std::pair<const HloComputation*, std::unique_ptr<HloComputation>>> batch) {
  // Each insertion goes right after its anchor, so a later clone of the same
  // anchor comes before an earlier one.
  absl::flat_hash_map<const HloComputation*, std::vector<std::unique_ptr<HloComputation>>> after;
  for (auto& [anchor, c] : batch) {
    c->parent_ = this;
    by_name_.emplace(c->name(), c.get());
    after[anchor].push_back(std::move(c));
  }
  std::vector<std::unique_ptr<HloComputation>> merged;
  merged.reserve(computations_.size() + batch.size());
  for (auto& c : computations_) {
    auto it = after.find(c.get());
    merged.push_back(std::move(c));
    if (it == after.end()) continue;
    for (auto r = it->second.rbegin(); r != it->second.rend(); ++r) {
      merged.push_back(std::move(*r));
    }
    after.erase(it);
  }
  for (auto& [anchor, rest] : after) {  // Anchors not in the module: at the end.
    for (auto& c : rest) merged.push_back(std::move(c));
  }
  computations_ = std::move(merged);
}

HloComputation* HloModule::FindComputation(absl::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

std::vector<HloComputation*> HloModule::MakeComputationPostOrder() const {
  std::vector<HloComputation*> order;
  absl::flat_hash_set<const HloComputation*> visited;
  std::function<void(HloComputation*)> visit = [&](HloComputation* c) {
    if (!visited.insert(c).second) return;
    for (const auto& i : c->instructions_) {
      for (const auto& called : i->called_computations()) visit(called.computation);
    }
    order.push_back(c);
  };
  for (const auto& c : computations_) {
    if (c.get() != entry_) visit(c.get());
  }
  if (entry_ != nullptr) visit(entry_);
  return order;
}

int64_t HloModule::instruction_count() const {
  int64_t n = 0;
  for (const auto& c : computations_) n += c->instruction_count();
  return n;
}

std::string HloModule::ToString(const PrintOptions& options) const {
  std::string out;
  Print(&out, options);
  return out;
}

void HloModule::Print(std::string* out_ptr, const PrintOptions& options,
                      const std::function<void(std::string&)>& flush) const {
  std::string& out = *out_ptr;
  absl::StrAppend(&out, "HloModule ", name_);
  if (entry_layout_) {
    // XLA joins the parameters without spaces (and without index comments,
    // which only tuple shapes carry).
    out += ", entry_computation_layout={(";
    for (size_t k = 0; k < entry_layout_->parameters.size(); ++k) {
      if (k > 0) out += ',';
      entry_layout_->parameters[k].Print(&out, options);
    }
    out += ")->";
    entry_layout_->result.Print(&out, options);
    out += '}';
  }
  for (const HloAttribute& a : header_) {
    absl::StrAppend(&out, ", ", a.name, "=", a.value);
  }
  out += '\n';
  const absl::flat_hash_set<const HloComputation*> implied = ComputationsInShorthand();
  for (const auto& c : computations_) {
    if (implied.contains(c.get())) continue;
    out += '\n';
    c->Print(&out, options, flush, &implied);
  }
}

absl::flat_hash_set<const HloComputation*> HloModule::ComputationsInShorthand() const {
  // A computation is left out only when every caller prints as shorthand;
  // one a call or fusion also names must be printed for it.
  absl::flat_hash_set<const HloComputation*> shorthand, named;
  for (const auto& c : computations_) {
    for (HloInstruction* i : c->instruction_range()) {
      if (i->called_computations().empty()) continue;
      const bool implied = IsAsyncOpcode(i->opcode()) && AsyncShorthandOpcode(*i);
      for (const HloInstruction::CalledComputation& called : i->called_computations()) {
        (implied ? shorthand : named).insert(called.computation);
      }
    }
  }
  for (const HloComputation* c : named) shorthand.erase(c);
  return shorthand;
}

void HloModule::UniquifyInstructionNames() {
  // A repeated name is never taken, so no view dangles when it is renamed.
  NameUniquer names;
  names.Reserve(instruction_count());  // no rehash on the way
  std::vector<HloInstruction*> repeated;
  for (HloComputation* c : computations()) {
    for (HloInstruction* i : c->instruction_range()) {
      if (!names.Take(i->name())) repeated.push_back(i);
    }
  }
  for (HloInstruction* i : repeated) i->set_name(names.Unique(i->name()));
}

absl::flat_hash_set<const HloComputation*> FusedComputations(const HloModule& module) {
  absl::flat_hash_set<const HloComputation*> fused;
  for (HloComputation* c : module.computations()) {
    for (HloInstruction* i : c->instruction_range()) {
      if (i->opcode() != HloOpcode::kFusion) continue;
      for (const auto& called : i->called_computations()) fused.insert(called.computation);
    }
  }
  return fused;
}

}  // namespace xla_layout
