#include "runtime/scalar_program.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "hlo/hlo_literal.h"

namespace xla_layout::runtime {

namespace {

absl::Status Unsupported(const HloComputation& computation, const HloInstruction* i,
                         absl::string_view why) {
  return absl::UnimplementedError(absl::StrCat("in ", computation.name(), ", ", i->name(), " (",
                                               HloOpcodeString(i->opcode()), "): ", why));
}

}  // namespace

absl::StatusOr<ScalarProgram> ScalarProgram::Compile(const HloComputation& computation) {
  ScalarProgram p;
  Registers regs;
  std::vector<HloInstruction*> order = computation.MakePostOrder();
  // Constants first, so that their registers are the low ones.
  for (const HloInstruction* i : order) {
    if (i->opcode() != HloOpcode::kConstant) continue;
    absl::Status s = p.AddConstant(computation, i, regs);
    if (!s.ok()) return s;
  }
  p.registers_ = static_cast<int>(p.constants_.size());
  std::vector<const HloInstruction*> params;
  for (const HloInstruction* i : order) {
    if (i->opcode() == HloOpcode::kConstant) continue;
    absl::Status s = p.AddInstruction(computation, i, regs, params);
    if (!s.ok()) return s;
  }
  for (size_t k = 0; k < params.size(); ++k) {
    if (params[k] == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(computation.name(), " has no parameter ", k));
    }
    p.parameters_.push_back(regs[params[k]][0]);
  }
  p.results_ = regs[computation.root()];
  return p;
}

absl::Status ScalarProgram::AddConstant(const HloComputation& computation,
                                        const HloInstruction* i, Registers& regs) {
  const HloLiteral* lit = i->literal_value();
  if (!i->shape().IsArray() || i->shape().rank() != 0 || lit == nullptr ||
      lit->abbreviated()) {
    return Unsupported(computation, i, "a scalar computation needs scalar constants with values");
  }
  absl::Status type = CheckSupportedType(i->shape().element_type());
  if (!type.ok()) return Unsupported(computation, i, type.message());
  Num n;
  if (DomainOf(i->shape().element_type()) == Domain::kFloat) {
    n.f = lit->floats()[0];
  } else {
    n.i = lit->ints()[0];
  }
  regs[i] = {static_cast<int>(constants_.size())};
  constants_.push_back(Normalize(n, i->shape().element_type()));
  return absl::OkStatus();
}

// Tuples and get-tuple-element only name registers; parameters take the
// next ones; copies and bitcasts share their operand's; the rest are steps.
absl::Status ScalarProgram::AddInstruction(const HloComputation& computation,
                                           const HloInstruction* i, Registers& regs,
                                           std::vector<const HloInstruction*>& params) {
  const Shape& shape = i->shape();
  const HloOpcode op = i->opcode();
  if (op == HloOpcode::kTuple) {
    std::vector<int> r;
    for (const HloInstruction* o : i->operands()) {
      r.insert(r.end(), regs[o].begin(), regs[o].end());
    }
    regs[i] = r;
    return absl::OkStatus();
  }
  if (op == HloOpcode::kGetTupleElement) {
    const std::vector<int>& from = regs[i->operand(0)];
    const int64_t index = i->attributes().index().value_or(0);
    if (index < 0 || index >= static_cast<int64_t>(from.size())) {
      return Unsupported(computation, i, "a tuple index out of range");
    }
    regs[i] = {from[index]};
    return absl::OkStatus();
  }
  if (!shape.IsArray() || shape.rank() != 0) {
    return Unsupported(computation, i,
                       absl::StrCat("a scalar computation has scalar values, not ",
                                    shape.ToString()));
  }
  absl::Status type = CheckSupportedType(shape.element_type());
  if (!type.ok()) return Unsupported(computation, i, type.message());
  if (op == HloOpcode::kParameter) {
    regs[i] = {registers_++};
    if (i->parameter_number() >= static_cast<int64_t>(params.size())) {
      params.resize(i->parameter_number() + 1, nullptr);
    }
    params[i->parameter_number()] = i;
    return absl::OkStatus();
  }
  if (op == HloOpcode::kCopy || op == HloOpcode::kBitcast) {
    if (i->operand(0)->shape().element_type() != shape.element_type()) {
      return Unsupported(computation, i, "a bitcast between types is not supported by the executor");
    }
    regs[i] = regs[i->operand(0)];
    return absl::OkStatus();
  }
  return AddStep(computation, i, regs);
}

absl::Status ScalarProgram::AddStep(const HloComputation& computation, const HloInstruction* i,
                                    Registers& regs) {
  const HloOpcode op = i->opcode();
  Step step;
  step.opcode = op;
  step.out_type = i->shape().element_type();
  const int first = op == HloOpcode::kSelect ? 1 : 0;
  step.type = i->operand_count() > first ? i->operand(first)->shape().element_type()
                                         : i->shape().element_type();
  const bool known = IsElementwise(op) || op == HloOpcode::kCompare ||
                     op == HloOpcode::kSelect || op == HloOpcode::kClamp ||
                     op == HloOpcode::kConvert;
  if (!known) {
    return Unsupported(computation, i, "not supported in a scalar computation by the executor");
  }
  absl::Status ok = CheckElementwise(op, step.type);
  if (!ok.ok()) return Unsupported(computation, i, ok.message());
  int* slots[3] = {&step.a, &step.b, &step.c};
  for (int k = 0; k < i->operand_count() && k < 3; ++k) {
    *slots[k] = regs[i->operand(k)][0];
  }
  step.direction = i->attributes().keywords().direction.value_or("EQ");
  step.total_order = op == HloOpcode::kCompare && IsTotalOrder(*i);
  step.out = registers_++;
  regs[i] = {step.out};
  steps_.push_back(std::move(step));
  return absl::OkStatus();
}

std::optional<ScalarProgram::BinaryStep> ScalarProgram::AsBinaryStep() const {
  if (!constants_.empty() || parameters_.size() != 2 || steps_.size() != 1 ||
      results_.size() != 1) {
    return std::nullopt;
  }
  const Step& s = steps_[0];
  switch (s.opcode) {
    case HloOpcode::kCompare: case HloOpcode::kSelect: case HloOpcode::kClamp:
    case HloOpcode::kConvert:
      return std::nullopt;
    default:
      break;
  }
  if (results_[0] != s.out || s.b < 0 || s.c >= 0) return std::nullopt;
  const int p0 = parameters_[0], p1 = parameters_[1];
  if (s.a == p0 && s.b == p1) return BinaryStep{s.opcode, s.type, false};
  if (s.a == p1 && s.b == p0) return BinaryStep{s.opcode, s.type, true};
  return std::nullopt;
}

void ScalarProgram::Run(absl::Span<const Num> args, absl::Span<Num> results) const {
  // Small register files stay on the stack.
  Num stack[64];
  std::vector<Num> heap;
  Num* r = stack;
  if (registers_ > 64) {
    heap.resize(registers_);
    r = heap.data();
  }
  for (size_t k = 0; k < constants_.size(); ++k) r[k] = constants_[k];
  for (size_t k = 0; k < parameters_.size(); ++k) r[parameters_[k]] = args[k];
  for (const Step& s : steps_) {
    switch (s.opcode) {
      case HloOpcode::kCompare:
        r[s.out].i = ApplyCompare(s.direction, s.total_order, s.type, r[s.a], r[s.b]);
        break;
      case HloOpcode::kSelect:
        r[s.out] = r[s.a].i ? r[s.b] : r[s.c];
        break;
      case HloOpcode::kClamp:
        r[s.out] = ApplyBinary(HloOpcode::kMinimum, s.type,
                               ApplyBinary(HloOpcode::kMaximum, s.type, r[s.b], r[s.a]),
                               r[s.c]);
        break;
      case HloOpcode::kConvert:
        r[s.out] = Convert(r[s.a], s.type, s.out_type);
        break;
      default:
        r[s.out] = s.b < 0 ? ApplyUnary(s.opcode, s.type, r[s.a])
                           : ApplyBinary(s.opcode, s.type, r[s.a], r[s.b]);
    }
  }
  for (size_t k = 0; k < results_.size(); ++k) results[k] = r[results_[k]];
}

}  // namespace xla_layout::runtime
