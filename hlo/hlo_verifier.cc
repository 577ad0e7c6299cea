#include "hlo/hlo_verifier.h"

#include <functional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xla_layout {
namespace {

struct Context {
  const HloModule& module;
  const VerifierOptions& options;
};

// `body` at `where`: with the line and a caret when the source is at hand,
// with file:line:col when the module came from a file, bare otherwise.
absl::Status Positioned(const Context& ctx, SourceLocation where,
                        const std::string& body) {
  if (!where.known() || ctx.module.source_name().empty()) {
    return absl::InvalidArgumentError(body);
  }
  if (ctx.options.source != nullptr) {
    return absl::InvalidArgumentError(ctx.options.source->Diagnostic(where, "error", body));
  }
  return absl::InvalidArgumentError(
      absl::StrCat(LocationPrefix(ctx.module.source_name(), where), "error: ", body));
}

absl::Status Fail(const Context& ctx, const HloComputation& c,
                  const HloInstruction* i, absl::string_view message) {
  return Positioned(
      ctx, i != nullptr ? i->location() : c.location(),
      absl::StrCat("verifier: computation '", c.name(), "'",
                   i ? absl::StrCat(", instruction '", i->name(), "'") : std::string(),
                   ": ", message));
}

absl::Status CheckLayouts(const Shape& shape) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) {
      absl::Status st = CheckLayouts(s);
      if (!st.ok()) return st;
    }
    return absl::OkStatus();
  }
  if (shape.IsArray() && !shape.has_layout()) {
    return absl::InvalidArgumentError(
        absl::StrCat("array shape ", shape.ToString(), " has no layout"));
  }
  return absl::OkStatus();
}

absl::Status VerifyInstruction(const Context& ctx, const HloComputation& c,
                               const HloInstruction& i) {
  const Shape::Equal same_dims = Shape::Equal().IgnoreLayout();
  HloOpcode op = i.opcode();
  if (IsElementwise(op)) {
    int arity = ElementwiseArity(op);
    if (i.operand_count() != arity) {
      return Fail(ctx, c, &i, absl::StrCat(HloOpcodeString(op), " takes ", arity,
                                      " operands, not ", i.operand_count()));
    }
    for (int k = 0; k < arity; ++k) {
      const Shape& s = i.operand(k)->shape();
      // clamp's bounds and select's predicate may be scalars.
      bool scalar_ok = (op == HloOpcode::kClamp && k != 1) ||
                       (op == HloOpcode::kSelect && k == 0);
      if (scalar_ok && s.IsArray() && s.rank() == 0) continue;
      if (!s.IsArray() || !i.shape().IsArray() ||
          s.dimensions() != i.shape().dimensions()) {
        return Fail(ctx, c, &i, absl::StrCat(
                               "elementwise ", HloOpcodeString(op),
                               " has operand ", k, " of shape ", s.ToString(),
                               " but result ", i.shape().ToString()));
      }
    }
  }
  if (op == HloOpcode::kTuple) {
    const auto& elements = i.shape().tuple_shapes();
    if (!i.shape().IsTuple() ||
        static_cast<int>(elements.size()) != i.operand_count()) {
      return Fail(ctx, c, &i, "tuple shape does not have one element per operand");
    }
    for (int k = 0; k < i.operand_count(); ++k) {
      if (!same_dims(elements[k], i.operand(k)->shape())) {
        return Fail(ctx, c, &i, absl::StrCat("tuple element ", k, " is ",
                                        elements[k].ToString(), " but operand is ",
                                        i.operand(k)->shape().ToString()));
      }
    }
  }
  if (op == HloOpcode::kGetTupleElement) {
    const Shape& t = i.operand_count() == 1 ? i.operand(0)->shape() : Shape();
    int64_t index = i.attributes().index.value_or(-1);
    if (!t.IsTuple() || index < 0 ||
        index >= static_cast<int64_t>(t.tuple_shapes().size())) {
      return Fail(ctx, c, &i, "get-tuple-element needs a tuple operand and an index in range");
    }
    if (!same_dims(t.tuple_shapes()[index], i.shape())) {
      return Fail(ctx, c, &i, absl::StrCat("get-tuple-element of ",
                                      t.tuple_shapes()[index].ToString(),
                                      " cannot be ", i.shape().ToString()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status VerifyModule(const HloModule& module,
                          const VerifierOptions& options) {
  if (module.entry() == nullptr) {
    return absl::InvalidArgumentError("verifier: the module has no entry computation");
  }
  const Context ctx{module, options};
  absl::flat_hash_set<std::string> computation_names, instruction_names;
  absl::flat_hash_set<const HloComputation*> owned;
  for (HloComputation* c : module.computations()) owned.insert(c);
  for (HloComputation* c : module.computations()) {
    if (!computation_names.insert(c->name()).second) {
      return Fail(ctx, *c, nullptr, "computation name is not unique");
    }
    if (c->root() == nullptr || c->root()->parent() != c) {
      return Fail(ctx, *c, nullptr, "has no root instruction of its own");
    }
    absl::flat_hash_set<const HloInstruction*> mine;
    for (HloInstruction* i : c->instructions()) mine.insert(i);
    std::vector<int> parameter_seen;
    for (HloInstruction* i : c->instructions()) {
      if (!instruction_names.insert(i->name()).second) {
        return Fail(ctx, *c, i, "instruction name is not unique in the module");
      }
      for (HloInstruction* op : i->operands()) {
        if (op == nullptr || !mine.contains(op)) {
          return Fail(ctx, *c, i, "an operand does not belong to this computation");
        }
      }
      for (const auto& called : i->called_computations()) {
        if (called.computation == nullptr || !owned.contains(called.computation)) {
          return Fail(ctx, *c, i, absl::StrCat("calls a computation (", called.attribute,
                                          ") that is not in the module"));
        }
      }
      absl::Status s = i->shape().Validate();
      if (s.ok() && options.require_layouts) s = CheckLayouts(i->shape());
      if (!s.ok()) return Fail(ctx, *c, i, s.message());
      if (i->opcode() == HloOpcode::kParameter) {
        int64_t n = i->parameter_number();
        if (n >= static_cast<int64_t>(parameter_seen.size())) {
          if (n > 1 << 20) return Fail(ctx, *c, i, "parameter number is too large");
          parameter_seen.resize(n + 1, 0);
        }
        if (parameter_seen[n]++ > 0) {
          return Fail(ctx, *c, i, absl::StrCat("parameter number ", n, " is used twice"));
        }
      }
      s = VerifyInstruction(ctx, *c, *i);
      if (!s.ok()) return s;
    }
    for (size_t n = 0; n < parameter_seen.size(); ++n) {
      if (parameter_seen[n] == 0) {
        return Fail(ctx, *c, nullptr, absl::StrCat("parameter ", n, " is missing"));
      }
    }
  }
  // Calls form a DAG (XLA's rule): a computation never calls itself,
  // directly or through others.
  {
    absl::flat_hash_map<const HloComputation*, int> state;  // 1 open, 2 done
    std::vector<std::string> path;
    std::function<absl::Status(const HloComputation*)> visit =
        [&](const HloComputation* c) -> absl::Status {
      int& st = state[c];
      if (st == 2) return absl::OkStatus();
      path.push_back(c->name());
      if (st == 1) {
        return Positioned(ctx, c->location(),
                          absl::StrCat("verifier: computation '", c->name(),
                                       "' calls itself (", absl::StrJoin(path, " -> "),
                                       ")"));
      }
      st = 1;
      for (HloInstruction* i : c->instructions()) {
        for (const auto& called : i->called_computations()) {
          absl::Status s = visit(called.computation);
          if (!s.ok()) return s;
        }
      }
      state[c] = 2;
      path.pop_back();
      return absl::OkStatus();
    };
    for (HloComputation* c : module.computations()) {
      absl::Status s = visit(c);
      if (!s.ok()) return s;
    }
  }
  if (const auto& layout = module.entry_computation_layout()) {
    std::vector<HloInstruction*> params = module.entry()->parameters();
    if (layout->parameters.size() != params.size()) {
      return Fail(ctx, *module.entry(), nullptr, absl::StrCat(
          "entry_computation_layout has ", layout->parameters.size(),
          " parameters but the entry computation has ", params.size()));
    }
    for (size_t k = 0; k < params.size(); ++k) {
      if (!Shape::Equal().IgnoreLayout()(layout->parameters[k], params[k]->shape())) {
        return Fail(ctx, *module.entry(), params[k], absl::StrCat(
            "entry_computation_layout gives ", layout->parameters[k].ToString()));
      }
    }
    if (!Shape::Equal().IgnoreLayout()(layout->result, module.entry()->root()->shape())) {
      return Fail(ctx, *module.entry(), module.entry()->root(), absl::StrCat(
          "entry_computation_layout gives the result ", layout->result.ToString()));
    }
  }
  return absl::OkStatus();
}

}  // namespace xla_layout
