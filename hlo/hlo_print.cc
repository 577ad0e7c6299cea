// The printer of the HLO module IR: the text of instructions, computations
// and modules as XLA prints it, with the async shorthand.
#include <functional>
#include <optional>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/hlo_module.h"

namespace xla_layout {
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
    for (HloInstruction* i : c->CallingInstructions()) {
      const bool implied = IsAsyncOpcode(i->opcode()) && AsyncShorthandOpcode(*i);
      for (const HloInstruction::CalledComputation& called : i->called_computations()) {
        (implied ? shorthand : named).insert(called.computation);
      }
    }
  }
  for (const HloComputation* c : named) shorthand.erase(c);
  return shorthand;
}

}  // namespace xla_layout
