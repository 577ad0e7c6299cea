#include "hlo/hlo_module.h"

#include <algorithm>
#include <functional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "hlo/name_uniquer.h"

namespace xla_layout {

HloInstruction::HloInstruction(std::string name, HloOpcode opcode, Shape shape)
    : opcode_(opcode), shape_(std::move(shape)), name_(std::move(name)) {}

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
  const bool at_end = pos == instructions_.end();
  instructions_.insert(pos, std::move(instruction));
  if (raw->opcode() == HloOpcode::kParameter) parameter_instructions_.push_back(raw);
  if (!at_end) appended_only_ = false;
  if (!raw->called_computations().empty()) {
    if (!at_end) {
      ForgetCallingInstructions();
    } else if (calling_known_) {
      calling_.push_back(raw);  // the last instruction: the last caller
    }
  }
  return raw;
}

void HloInstruction::AddCalledComputation(std::string attribute, HloComputation* c) {
  const bool first = extra_.get().called.empty();
  extra_.mutable_get().called.push_back({std::move(attribute), c});
  if (first && parent_ != nullptr) parent_->NoteFirstCall(this);
}

void HloComputation::NoteFirstCall(HloInstruction* i) {
  if (!calling_known_) return;
  if (!appended_only_) {
    ForgetCallingInstructions();
    return;
  }
  // The parser adds calls once every computation is read, in text order:
  // nearly always at the end.
  auto at = std::lower_bound(calling_.begin(), calling_.end(), i->local_id(),
                             [](const HloInstruction* a, int id) { return a->local_id() < id; });
  calling_.insert(at, i);
}

void HloComputation::NoteReplaced(const HloInstruction* old, HloInstruction* replacement) {
  appended_only_ = false;
  const bool was = !old->called_computations().empty();
  const bool is = !replacement->called_computations().empty();
  if (!calling_known_ || (!was && !is)) return;
  auto it = std::find(calling_.begin(), calling_.end(), old);
  if (was && is) {
    *it = replacement;
  } else if (was) {
    calling_.erase(it);
  } else {
    ForgetCallingInstructions();
  }
}

void HloComputation::ForgetCallingInstructions() {
  calling_known_ = false;
  calling_.clear();
}

std::vector<HloInstruction*> HloComputation::CallingInstructions() const {
  if (calling_known_) return calling_;
  std::vector<HloInstruction*> calling;
  for (HloInstruction* i : instruction_range()) {
    if (!i->called_computations().empty()) calling.push_back(i);
  }
  return calling;
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
    if (batch[k].first != nullptr) appended_only_ = false;
    if (!batch[k].second->called_computations().empty()) ForgetCallingInstructions();
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
        if (calling_known_ && !i->called_computations().empty()) {
          calling_.erase(std::find(calling_.begin(), calling_.end(), i));
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
    if (replacement != nullptr) {
      NoteReplaced(slot.get(), replacement.get());
      slot = std::move(replacement);
    }
  }
}

HloInstruction* HloComputation::ReplaceInstructionAt(
    size_t position, std::unique_ptr<HloInstruction> replacement) {
  std::unique_ptr<HloInstruction>& slot = instructions_[position];
  TakeUsesOf(slot.get(), replacement.get());
  NoteReplaced(slot.get(), replacement.get());
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
    for (const HloInstruction* i : c->CallingInstructions()) {
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
    for (HloInstruction* i : c->CallingInstructions()) {
      if (i->opcode() != HloOpcode::kFusion) continue;
      for (const auto& called : i->called_computations()) fused.insert(called.computation);
    }
  }
  return fused;
}

}  // namespace xla_layout
