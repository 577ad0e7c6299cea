#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "hlo/hlo_parser_internal.h"
#include "hlo/hlo_verifier.h"
#include "hlo/shape_inference.h"

namespace xla_layout::hlo_parser_internal {

// As XLA's parser: an `op-start` gets a computation `async_wrapped` whose
// parameters take its operands and whose root is the op, with the op's
// attributes, on the start's async_execution_thread; `op-update` and
// `op-done` must follow a start of the same op.
absl::Status Parser::WrapAsyncOps(HloModule& module) {
  absl::flat_hash_map<const HloInstruction*, HloOpcode> wrapped_by;
  absl::flat_hash_set<std::string> names;
  for (HloComputation* c : module.computations()) names.insert(c->name());
  for (const PendingAsync& p : async_) {
    HloInstruction* i = p.instruction;
    wrapped_by[i] = p.wrapped;
    const std::string op = std::string(HloOpcodeString(p.wrapped));
    if (i->opcode() != HloOpcode::kAsyncStart) {
      const HloInstruction* prev = i->operand_count() == 1 ? i->operand(0) : nullptr;
      auto it = prev != nullptr ? wrapped_by.find(prev) : wrapped_by.end();
      if (it == wrapped_by.end() || it->second != p.wrapped) {
        return ErrorAt(p.offset, absl::StrCat(HloOpcodeString(i->opcode()), " of ", op,
                                              " needs one operand: the ", op,
                                              "-start or -update it continues"));
      }
      continue;
    }
    const Shape& shape = i->shape();
    if (!shape.IsTuple() || shape.tuple_shapes().size() < 2 ||
        !shape.tuple_shapes()[0].IsTuple()) {
      return ErrorAt(p.offset, absl::StrCat(op, "-start needs the shape ((operands...), "
                                            "results, context...), not ", shape.ToString()));
    }
    std::string name = "async_wrapped";
    for (int64_t n = 1; names.contains(name); ++n) name = absl::StrCat("async_wrapped.", n);
    names.insert(name);
    auto c = std::make_unique<HloComputation>(name);
    c->set_location(i->location());
    std::vector<HloInstruction*> params;
    for (int k = 0; k < i->operand_count(); ++k) {
      auto param = std::make_unique<HloInstruction>("async_param", HloOpcode::kParameter,
                                                    i->operand(k)->shape());
      param->set_parameter_number(k);
      param->set_layout_written(i->operand(k)->layout_written());
      param->set_location(i->location());
      params.push_back(c->AddInstruction(std::move(param)));
      // An operand whose shape is left out has it only after inference.
      if (i->operand(k)->shape().element_type() == PRIMITIVE_TYPE_INVALID) {
        async_params_.push_back({params.back(), i->operand(k)});
      }
    }
    auto root = std::make_unique<HloInstruction>("async_op", p.wrapped, shape.tuple_shapes()[1]);
    root->set_location(i->location());
    root->set_layout_written(i->layout_written());
    for (HloInstruction* param : params) root->AppendOperand(param);
    // The op's own attributes go with it; the start keeps its thread.
    root->mutable_attributes() = std::move(i->mutable_attributes());
    i->mutable_attributes() = HloInstruction::Attributes();
    std::vector<HloAttribute> kept;
    for (HloAttribute& a : i->mutable_raw_attributes()) {
      if (a.name == "async_execution_thread") {
        // The wrapped computation runs on that thread, as in XLA; the
        // printer compares the two to print the shorthand back.
        // (Its escapes read as a computation's thread name reads them.)
        absl::string_view thread = a.value;
        std::string name;
        if (thread.size() >= 2 && thread.front() == '"' && thread.back() == '"' &&
            absl::CUnescape(thread.substr(1, thread.size() - 2), &name)) {
          c->set_execution_thread(std::move(name));
        }
      }
      (a.name == "async_execution_thread" ? kept : root->mutable_raw_attributes())
          .push_back(std::move(a));
    }
    for (PendingCall& call : calls_) {
      if (call.instruction == i) call.instruction = root.get();
    }
    for (PendingConstraints& c : constraints_) {
      if (c.instruction == i) c.instruction = root.get();
    }
    c->set_root(c->AddInstruction(std::move(root)));
    HloComputation* added = module.AddComputationBefore(std::move(c), i->parent());
    i->AddCalledComputation("calls", added);
    kept.insert(kept.begin(), HloAttribute{"calls", name});
    i->mutable_raw_attributes() = std::move(kept);
  }
  return absl::OkStatus();
}

namespace {

bool IsAsyncUpdateOrDone(const HloInstruction& i) {
  return i.opcode() == HloOpcode::kAsyncUpdate || i.opcode() == HloOpcode::kAsyncDone;
}

// The async-start that update or done `i` continues, through any updates;
// null when its operand is no such chain. Bounded: operand cycles are the
// verifier's to report, later.
const HloInstruction* AsyncStartOf(const HloInstruction& i) {
  const HloInstruction* at = &i;
  for (int steps = 0; steps <= i.parent()->instruction_count(); ++steps) {
    if (at->operand_count() != 1) return nullptr;
    at = at->operand(0);
    if (at->opcode() == HloOpcode::kAsyncStart) return at;
    if (at->opcode() != HloOpcode::kAsyncUpdate) return nullptr;
  }
  return nullptr;
}

// The thread an async op runs on: its async_execution_thread, or XLA's
// "main" when none is written.
std::string ThreadOf(const HloInstruction& i) {
  for (const HloAttribute& a : i.raw_attributes()) {
    if (a.name != "async_execution_thread") continue;
    absl::string_view v = a.value;
    absl::ConsumePrefix(&v, "\"");
    absl::ConsumeSuffix(&v, "\"");
    return std::string(v);
  }
  return "main";
}

}  // namespace

// As XLA's parser: a computation wrapped by two starts would have two
// callers where XLA keeps one, and an update or done that names another
// computation or thread than its start's describes an op that is not the
// one started.
absl::Status Parser::CheckAsyncOps(const HloModule& module) const {
  absl::flat_hash_map<const HloComputation*, const HloInstruction*> started;
  for (const PendingAsync& p : async_) {
    if (p.instruction->opcode() == HloOpcode::kAsyncStart) {
      started.emplace(p.instruction->called_computation("calls"), p.instruction);
    }
  }
  for (const PendingCall& call : calls_) {
    const HloInstruction& i = *call.instruction;
    if (call.attribute != "calls") continue;
    const HloComputation* callee = module.FindComputation(call.name);
    if (i.opcode() == HloOpcode::kAsyncStart) {
      auto [it, fresh] = started.emplace(callee, &i);
      if (!fresh) {
        return ErrorAt(call.offset, absl::StrCat(
            "computation '", call.name, "' is wrapped by async-start '", it->second->name(),
            "' already; each async-start wraps a computation of its own"));
      }
    } else if (IsAsyncUpdateOrDone(i)) {
      const HloInstruction* start = AsyncStartOf(i);
      const HloComputation* wrapped = start ? start->called_computation("calls") : nullptr;
      if (wrapped != nullptr && wrapped != callee) {
        return ErrorAt(call.offset, absl::StrCat(
            HloOpcodeString(i.opcode()), " '", i.name(), "' calls '", call.name,
            "' but its async-start '", start->name(), "' wraps '", wrapped->name(), "'"));
      }
    }
  }
  for (const auto& [i, at] : async_threads_) {
    const HloInstruction* start = IsAsyncUpdateOrDone(*i) ? AsyncStartOf(*i) : nullptr;
    if (start != nullptr && ThreadOf(*start) != ThreadOf(*i)) {
      return ErrorAt(at, absl::StrCat(
          HloOpcodeString(i->opcode()), " '", i->name(), "' runs on thread \"", ThreadOf(*i),
          "\" but its async-start '", start->name(), "' runs on \"", ThreadOf(*start), "\""));
    }
  }
  return absl::OkStatus();
}

absl::Status Parser::FinishShapes() {
  // In text order: operands come first in practice; one still without a
  // shape is an error that says so.
  for (const PendingShape& p : inferred_) {
    HloInstruction* i = p.instruction;
    absl::StatusOr<Shape> shape = InferShape(*i);
    if (shape.ok()) shape = SetDefaultLayoutsAndCheckSizes(*std::move(shape));
    if (!shape.ok()) {
      return ErrorAt(p.offset, absl::StrCat(
          "the shape of '", i->name(), "' (", HloOpcodeString(i->opcode()),
          ") cannot be inferred",
          absl::IsNotFound(shape.status()) ? std::string()
                                           : absl::StrCat(": ", shape.status().message()),
          "; write it before the opcode"));
    }
    *i->mutable_shape() = *std::move(shape);
  }
  for (const auto& [param, operand] : async_params_) {
    *param->mutable_shape() = operand->shape();
  }
  for (const DeferredOperand& d : deferred_operands_) {
    if (!Shape::Equal().IgnoreLayout()(d.written, d.definition->shape())) {
      return ErrorAt(d.offset, absl::StrCat(
          "operand '", d.definition->name(), "' is written as ", d.written.ToString(),
          " but its shape is ", d.definition->shape().ToString()));
    }
  }
  for (const PendingSignature& p : signatures_) {
    absl::Status s = VerifySignature(*p.computation);
    if (!s.ok()) return ErrorAt(p.offset, s.message());
  }
  return CheckLayoutConstraints();
}

// As XLA: a constraint sets an operand's layout, so there is one per operand
// and it has the operand's dims and element type.
absl::Status Parser::CheckLayoutConstraints() const {
  for (const PendingConstraints& p : constraints_) {
    const HloInstruction& call = *p.instruction;
    const std::vector<Shape>& shapes = *call.attributes().rare().operand_layout_constraints;
    if (static_cast<int>(shapes.size()) != call.operand_count()) {
      auto count = [](size_t n, absl::string_view what) {
        return absl::StrCat(n, " ", what, n == 1 ? "" : "s");
      };
      return ErrorAt(p.offset, absl::StrCat("operand_layout_constraints of '", call.name(),
                                            "' has ", count(shapes.size(), "shape"), " for ",
                                            count(call.operand_count(), "operand"),
                                            "; it takes one per operand"));
    }
    for (int k = 0; k < call.operand_count(); ++k) {
      const Shape& operand = call.operand(k)->shape();
      if (!Shape::Equal().IgnoreLayout()(shapes[k], operand)) {
        return ErrorAt(p.shapes[k], absl::StrCat(
            "operand_layout_constraints gives ", shapes[k].ToString(), " for operand ", k,
            " of '", call.name(), "', which is ", operand.ToString(),
            "; a constraint sets only the layout"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace xla_layout::hlo_parser_internal
