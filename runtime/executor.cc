#include "runtime/executor.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "runtime/ops.h"
#include "runtime/scalar_program.h"
#include "xla_layout/layout_util.h"
#include "xla_layout/relayout.h"

namespace xla_layout::runtime {
namespace {

// What the executor prepared for one instruction at load time.
struct Compiled {
  std::vector<Info> out;                    // array leaves it allocates
  std::vector<RelayoutPlan> plans;          // copy: one per array leaf
  bool moves_data = true;                   // transpose: false when a bitcast
  std::vector<ScalarProgram> programs;      // an array op's called computations
};

bool IsControlOp(HloOpcode op) {
  switch (op) {
    case HloOpcode::kParameter: case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement: case HloOpcode::kCopy:
    case HloOpcode::kBitcast: case HloOpcode::kTranspose: case HloOpcode::kWhile:
    case HloOpcode::kConditional: case HloOpcode::kCall: case HloOpcode::kFusion:
    case HloOpcode::kOptimizationBarrier: case HloOpcode::kDomain:
    case HloOpcode::kAsyncStart: case HloOpcode::kAsyncUpdate: case HloOpcode::kAsyncDone:
      return true;
    default:
      return false;
  }
}

// Array leaves of `shape` in order.
void Leaves(const Shape& shape, std::vector<const Shape*>& out) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) Leaves(s, out);
  } else {
    out.push_back(&shape);
  }
}

std::string Where(const HloInstruction& i) {
  return absl::StrCat(i.name(), " (", HloOpcodeString(i.opcode()), ")");
}

// Whether a value in `actual` can stand where `declared` is written.
bool SameLayouts(const Shape& actual, const Shape& declared) {
  if (actual.IsTuple() != declared.IsTuple()) return false;
  if (actual.IsTuple()) {
    if (actual.tuple_shapes().size() != declared.tuple_shapes().size()) return false;
    for (size_t k = 0; k < actual.tuple_shapes().size(); ++k) {
      if (!SameLayouts(actual.tuple_shapes()[k], declared.tuple_shapes()[k])) return false;
    }
    return true;
  }
  if (!declared.IsArray()) return true;
  if (!Shape::Equal().IgnoreLayout().IgnoreDynamicDimensions()(actual, declared)) return false;
  Shape d = declared;
  SetDefaultLayouts(d);
  return SamePhysicalLayout(actual, actual.layout(), d.layout());
}

// A value of `shape` with every array leaf zero, its infos taken from
// `out` from `leaf` on (the order Leaves gives).
absl::StatusOr<Value> ZeroValue(const Shape& shape, absl::Span<const Info> out, size_t& leaf) {
  if (shape.IsTuple()) {
    std::vector<Value> elements;
    for (const Shape& s : shape.tuple_shapes()) {
      absl::StatusOr<Value> e = ZeroValue(s, out, leaf);
      if (!e.ok()) return e;
      elements.push_back(*std::move(e));
    }
    return Value::Tuple(std::move(elements));
  }
  return Value::Allocate(out[leaf++]);
}

Shape ShapeOf(const Value& v) {
  if (v.kind == Value::Kind::kTuple) {
    std::vector<Shape> elements;
    for (const Value& e : v.elements) elements.push_back(ShapeOf(e));
    return Shape::MakeTuple(std::move(elements));
  }
  return v.info->shape();
}

}  // namespace

struct Executor::Impl {
  const HloModule* module = nullptr;
  ExecutorOptions options;
  absl::flat_hash_map<const HloInstruction*, Compiled> compiled;
  int64_t total_bytes = 0;
  double total_operations = 0;  // estimated multiply-adds and reduction steps

  absl::Status Compile(const HloComputation& c, absl::flat_hash_set<const HloComputation*>& seen);
  absl::Status CompileInstruction(const HloInstruction& i);
  absl::StatusOr<Value> RunComputation(const HloComputation& c, std::vector<Value> args,
                                       ExecutionStats& stats);
  absl::StatusOr<Value> RunInstruction(const HloInstruction& i, std::vector<const Value*> ops,
                                       ExecutionStats& stats);
  // ((operands...), result, context...): the wrapped computation runs at
  // once; the context (ids a runtime would keep) is zeros.
  absl::StatusOr<Value> RunAsyncStart(const HloInstruction& i, std::vector<Value> operands,
                                      const Compiled& c, ExecutionStats& stats);
  // `v` where `declared` is written: as is when the layouts agree; else an
  // error (strict) or moved into the declared layout.
  absl::StatusOr<Value> Conform(Value v, const Shape& declared, absl::string_view where,
                                ExecutionStats& stats);
  absl::StatusOr<Value> Copy(const Value& v, absl::Span<const RelayoutPlan> plans,
                             absl::Span<const Info> out, size_t& leaf, ExecutionStats& stats);
};

absl::Status Executor::Impl::Compile(const HloComputation& c,
                                     absl::flat_hash_set<const HloComputation*>& seen) {
  if (!seen.insert(&c).second) return absl::OkStatus();
  for (const HloInstruction* i : c.instructions()) {
    absl::Status s = CompileInstruction(*i);
    if (!s.ok()) return s;
    if (IsArrayOp(i->opcode())) continue;  // to_apply: a ScalarProgram
    for (const auto& called : i->called_computations()) {
      absl::Status n = Compile(*called.computation, seen);
      if (!n.ok()) return n;
    }
  }
  return absl::OkStatus();
}

namespace {

absl::Status Unsupported(const HloInstruction& i, absl::string_view why) {
  return absl::UnimplementedError(absl::StrCat(Where(i), ": ", why));
}

// The result's array leaves (`leaves`) into c.out; tokens and opaque values
// are refused, in the result and in the operands.
absl::Status CompileLeaves(const HloInstruction& i, const std::vector<const Shape*>& leaves,
                           Compiled& c) {
  for (const Shape* leaf : leaves) {
    if (leaf->IsToken() || leaf->IsOpaque()) {
      return Unsupported(
          i, absl::StrCat(leaf->ToString(), " values are not supported by the executor"));
    }
    absl::StatusOr<Info> info = ArrayInfo::Create(*leaf);
    if (!info.ok()) return Unsupported(i, info.status().message());
    c.out.push_back(*std::move(info));
  }
  for (const HloInstruction* o : i.operands()) {
    std::vector<const Shape*> operand_leaves;
    Leaves(o->shape(), operand_leaves);
    for (const Shape* leaf : operand_leaves) {
      if (!leaf->IsArray()) return Unsupported(i, "token and opaque operands are not supported");
    }
  }
  return absl::OkStatus();
}

// Values made by other instructions (parameters, tuples, calls) are not
// counted: every buffer is some instruction's result.
bool CountsBytes(const HloInstruction& i) {
  const HloOpcode op = i.opcode();
  const bool allocates = op != HloOpcode::kParameter && op != HloOpcode::kTuple &&
                         op != HloOpcode::kGetTupleElement && op != HloOpcode::kBitcast &&
                         op != HloOpcode::kWhile && op != HloOpcode::kConditional &&
                         op != HloOpcode::kCall && op != HloOpcode::kFusion &&
                         op != HloOpcode::kOptimizationBarrier && op != HloOpcode::kDomain;
  return allocates || (op == HloOpcode::kParameter && i.parent()->is_entry());
}

// A copy's plan per array leaf.
absl::Status CompileCopy(const HloInstruction& i, const std::vector<const Shape*>& leaves,
                         Compiled& c) {
  std::vector<const Shape*> from;
  Leaves(i.operand(0)->shape(), from);
  if (from.size() != leaves.size()) return Unsupported(i, "operand and result differ in structure");
  for (size_t k = 0; k < leaves.size(); ++k) {
    absl::StatusOr<RelayoutPlan> plan = RelayoutPlan::Create(*from[k], *leaves[k]);
    if (!plan.ok()) return Unsupported(i, plan.status().message());
    c.plans.push_back(*std::move(plan));
  }
  return absl::OkStatus();
}

absl::Status CheckBitcast(const HloInstruction& i, const Compiled& c) {
  absl::StatusOr<Info> from = ArrayInfo::Create(i.operand(0)->shape());
  if (!from.ok()) return Unsupported(i, from.status().message());
  if ((*from)->byte_size() != c.out[0]->byte_size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        Where(i), ": a bitcast from ", i.operand(0)->shape().ToString(), " (",
        (*from)->byte_size(), " bytes) to ", i.shape().ToString(), " (",
        c.out[0]->byte_size(), " bytes) does not describe the same bytes"));
  }
  return absl::OkStatus();
}

// A transpose moves data unless the layouts make it a bitcast; then it
// needs a plan from the operand's bytes read as the result's dims.
absl::Status CompileTranspose(const HloInstruction& i, Compiled& c) {
  const Shape& from = i.operand(0)->shape();
  std::optional<Layout> as_result = TransposedLayout(
      i.attributes().dimensions.value_or(std::vector<int64_t>{}), from.layout(),
      /*toward_operand=*/false);
  if (!as_result) return Unsupported(i, "dimensions are not a permutation");
  Shape source = i.shape();
  source.set_layout(*as_result);
  c.moves_data = !SamePhysicalLayout(i.shape(), *as_result, i.shape().layout());
  if (c.moves_data) {
    absl::StatusOr<RelayoutPlan> plan = RelayoutPlan::Create(source, i.shape());
    if (!plan.ok()) return Unsupported(i, plan.status().message());
    c.plans.push_back(*std::move(plan));
  }
  return absl::OkStatus();
}

// Work: a dot or convolution does one multiply-add per output element and
// contracted element; a reduce one step per input element; a window op one
// per window position of each output (or source) element; a sort or topk
// about log2(n) comparisons per element of rows of n; a cholesky or
// triangular-solve one multiply-add per element and matrix row. Other
// ops: 0.
double Operations(const HloInstruction& i, const Compiled& c) {
  const HloOpcode op = i.opcode();
  if (i.operand_count() < 1 || !i.operand(0)->shape().IsArray()) return 0;
  const double out_elements = static_cast<double>(c.out[0]->element_count());
  const Shape& first = i.operand(0)->shape();
  double lhs = 1;
  for (int64_t d : first.dimensions()) lhs *= static_cast<double>(d);
  double rhs = 1;
  if (i.operand_count() > 1 && i.operand(1)->shape().IsArray()) {
    for (int64_t d : i.operand(1)->shape().dimensions()) rhs *= static_cast<double>(d);
  }
  const double minor =
      first.rank() > 0 ? static_cast<double>(first.dimensions(first.rank() - 1)) : 1;
  double window = 1;
  const auto& dims = i.attributes().rare().window;
  for (const WindowDimension& w : dims.value_or(std::vector<WindowDimension>{})) {
    window *= static_cast<double>(w.size);
  }
  switch (op) {
    case HloOpcode::kReduce: return lhs * (i.operand_count() / 2);
    // Per output element at most the smaller operand's size: a dot's
    // contracted elements divide both, a convolution's window lies in the
    // kernel.
    case HloOpcode::kDot: case HloOpcode::kConvolution: return out_elements * std::min(lhs, rhs);
    case HloOpcode::kReduceWindow: return out_elements * window * (i.operand_count() / 2);
    case HloOpcode::kSelectAndScatter: return rhs * window;
    case HloOpcode::kSort: case HloOpcode::kTopK:
      return lhs * std::log2(std::max(2.0, minor)) * i.operand_count();
    case HloOpcode::kCholesky: return lhs * minor;
    case HloOpcode::kTriangularSolve: return rhs * minor;
    default: return 0;
  }
}

// An array op's scalar computations (a reduce's or scatter's to_apply, a
// sort's comparator, select-and-scatter's select and scatter), compiled
// once into ScalarPrograms, in that order. The op's own check
// (CheckArrayOp) says how many parameters and results each needs, except
// for reduce, checked here.
absl::Status CompileScalarComputations(const HloInstruction& i, Compiled& c) {
  static constexpr absl::string_view kToApply[] = {"to_apply"};
  static constexpr absl::string_view kSelectScatter[] = {"select", "scatter"};
  const absl::Span<const absl::string_view> names =
      i.opcode() == HloOpcode::kSelectAndScatter ? absl::MakeConstSpan(kSelectScatter)
                                                 : absl::MakeConstSpan(kToApply);
  for (absl::string_view name : names) {
    const HloComputation* computation = i.called_computation(name);
    if (computation == nullptr) {
      if (i.opcode() == HloOpcode::kReduce) return Unsupported(i, "no to_apply");
      return absl::OkStatus();  // CheckArrayOp says whether the op needs it
    }
    absl::StatusOr<ScalarProgram> p = ScalarProgram::Compile(*computation);
    if (!p.ok()) return Unsupported(i, p.status().message());
    c.programs.push_back(*std::move(p));
  }
  if (i.opcode() == HloOpcode::kReduce &&
      (c.programs[0].parameter_count() != i.operand_count() ||
       c.programs[0].result_count() * 2 != i.operand_count())) {
    return Unsupported(i, "to_apply does not take and return one scalar per input");
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status Executor::Impl::CompileInstruction(const HloInstruction& i) {
  const HloOpcode op = i.opcode();
  if (!IsControlOp(op) && !IsArrayOp(op)) {
    const absl::string_view reason = RefusalReason(op);
    return absl::UnimplementedError(absl::StrCat(HloOpcodeString(op),
                                                 " is not supported by the executor (", i.name(),
                                                 ")", reason.empty() ? "" : ": ", reason));
  }
  Compiled c;
  std::vector<const Shape*> leaves;
  Leaves(i.shape(), leaves);
  absl::Status s = CompileLeaves(i, leaves, c);
  if (!s.ok()) return s;
  if (CountsBytes(i)) {
    for (const Info& info : c.out) total_bytes += info->byte_size();
  }
  if (op == HloOpcode::kCopy) {
    s = CompileCopy(i, leaves, c);
  } else if (op == HloOpcode::kBitcast) {
    s = CheckBitcast(i, c);
  } else if (op == HloOpcode::kTranspose) {
    s = CompileTranspose(i, c);
  }
  if (!s.ok()) return s;
  total_operations += Operations(i, c);
  if (IsArrayOp(op)) {
    s = CompileScalarComputations(i, c);
    if (s.ok()) s = CheckArrayOp(i);
  }
  if (!s.ok()) return s;
  compiled[&i] = std::move(c);
  return absl::OkStatus();
}

absl::StatusOr<Value> Executor::Impl::Conform(Value v, const Shape& declared,
                                              absl::string_view where,
                                              ExecutionStats& stats) {
  const Shape actual = ShapeOf(v);
  if (SameLayouts(actual, declared)) return v;
  if (options.strict_layouts ||
      (v.kind == Value::Kind::kTuple) != declared.IsTuple() ||
      !Shape::Equal().IgnoreLayout().IgnoreDynamicDimensions()(actual, declared)) {
    return absl::InternalError(absl::StrCat(where, " is written ", declared.ToString(),
                                            " but receives ", actual.ToString()));
  }
  if (v.kind == Value::Kind::kTuple) {
    for (size_t k = 0; k < v.elements.size(); ++k) {
      absl::StatusOr<Value> e =
          Conform(std::move(v.elements[k]), declared.tuple_shapes()[k], where, stats);
      if (!e.ok()) return e;
      v.elements[k] = *std::move(e);
    }
    return v;
  }
  Shape target = declared;
  SetDefaultLayouts(target);
  absl::StatusOr<Info> info = ArrayInfo::Create(target);
  if (!info.ok()) return info.status();
  absl::StatusOr<RelayoutPlan> plan = RelayoutPlan::Create(actual, target);
  if (!plan.ok()) return plan.status();
  absl::StatusOr<Value> out = Value::Allocate(*std::move(info));
  if (!out.ok()) return out;
  plan->Execute(v.data(), out->mutable_data());
  ++stats.conformed;
  return out;
}

absl::StatusOr<Value> Executor::Impl::Copy(const Value& v, absl::Span<const RelayoutPlan> plans,
                                           absl::Span<const Info> out, size_t& leaf,
                                           ExecutionStats& stats) {
  if (v.kind == Value::Kind::kTuple) {
    std::vector<Value> elements;
    for (const Value& e : v.elements) {
      absl::StatusOr<Value> c = Copy(e, plans, out, leaf, stats);
      if (!c.ok()) return c;
      elements.push_back(*std::move(c));
    }
    return Value::Tuple(std::move(elements));
  }
  const size_t k = leaf++;
  absl::StatusOr<Value> dst = Value::Allocate(out[k]);
  if (!dst.ok()) return dst;
  const auto start = std::chrono::steady_clock::now();
  plans[k].Execute(v.data(), dst->mutable_data());
  stats.copy_seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  stats.copies += 1;
  stats.copy_bytes += plans[k].src_bytes() + plans[k].dst_bytes();
  return dst;
}

absl::StatusOr<Value> Executor::Impl::RunInstruction(const HloInstruction& i,
                                                     std::vector<const Value*> ops,
                                                     ExecutionStats& stats) {
  const Compiled& c = compiled.at(&i);
  const ScalarProgram* programs = c.programs.empty() ? nullptr : c.programs.data();
  auto operand_values = [&](size_t from) {
    std::vector<Value> args;
    for (size_t k = from; k < ops.size(); ++k) args.push_back(*ops[k]);
    return args;
  };
  // A value returned from a callee must have the layout the caller wrote.
  auto checked = [&](absl::StatusOr<Value> v) -> absl::StatusOr<Value> {
    if (!v.ok()) return v;
    return Conform(*std::move(v), i.shape(), Where(i), stats);
  };
  switch (i.opcode()) {
    case HloOpcode::kTuple: return Value::Tuple(operand_values(0));
    case HloOpcode::kGetTupleElement: return ops[0]->elements.at(i.attributes().index.value_or(0));
    case HloOpcode::kBitcast: {
      Value v = *ops[0];
      v.info = c.out[0];
      return v;
    }
    case HloOpcode::kCopy: {
      size_t leaf = 0;
      return Copy(*ops[0], c.plans, c.out, leaf, stats);
    }
    case HloOpcode::kTranspose: {
      if (!c.moves_data) {
        Value v = *ops[0];
        v.info = c.out[0];
        return v;
      }
      size_t leaf = 0;
      return Copy(*ops[0], c.plans, c.out, leaf, stats);
    }
    case HloOpcode::kAsyncStart:
      return RunAsyncStart(i, operand_values(0), c, stats);
    case HloOpcode::kAsyncDone:
      return checked(ops[0]->elements.at(1));
    case HloOpcode::kAsyncUpdate:
    // These hand their operand on unchanged, in the layouts written here.
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kDomain:
      return checked(*ops[0]);
    case HloOpcode::kCall:
      return checked(RunComputation(*i.called_computation("to_apply"), operand_values(0), stats));
    case HloOpcode::kFusion:
      return checked(RunComputation(*i.called_computation("calls"), operand_values(0), stats));
    case HloOpcode::kWhile: {
      Value state = *ops[0];
      for (int64_t n = 0;; ++n) {
        if (n >= options.max_while_iterations) {
          return absl::ResourceExhaustedError(absl::StrCat(
              Where(i), " ran ", n, " iterations, the executor's limit"));
        }
        absl::StatusOr<Value> go =
            RunComputation(*i.called_computation("condition"), {state}, stats);
        if (!go.ok()) return go;
        if (!go->info->Load(go->data(), go->info->Slot({})).i) break;
        absl::StatusOr<Value> next = RunComputation(*i.called_computation("body"), {state}, stats);
        if (!next.ok()) return next;
        state = *std::move(next);
      }
      return checked(std::move(state));
    }
    case HloOpcode::kConditional: {
      // Branch k takes operand k + 1; a pred selects true (0) or false (1).
      const Value& selector = *ops[0];
      const Num n = selector.info->Load(selector.data(), selector.info->Slot({}));
      std::vector<const HloComputation*> branches;
      if (selector.info->type() == PRED) {
        branches = {i.called_computation("true_computation"),
                    i.called_computation("false_computation")};
      } else {
        for (const auto& called : i.called_computations()) {
          if (called.attribute == "branch_computations") branches.push_back(called.computation);
        }
      }
      const int64_t count = static_cast<int64_t>(branches.size());
      // An index out of range selects the last branch, as in XLA.
      const int64_t k = selector.info->type() == PRED ? (n.i ? 0 : 1)
                        : (n.i < 0 || n.i >= count) ? count - 1 : n.i;
      if (k < 0 || branches[k] == nullptr || k + 1 >= static_cast<int64_t>(ops.size())) {
        return absl::InvalidArgumentError(absl::StrCat(Where(i), ": no branch ", k));
      }
      return checked(RunComputation(*branches[k], {*ops[k + 1]}, stats));
    }
    case HloOpcode::kDot:
    case HloOpcode::kConvolution: {
      const auto start = std::chrono::steady_clock::now();
      absl::StatusOr<Value> v = ArrayOp(i, ops, c.out, programs);
      stats.dot_seconds +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      return v;
    }
    default:
      return ArrayOp(i, ops, c.out, programs);
  }
}

absl::StatusOr<Value> Executor::Impl::RunAsyncStart(const HloInstruction& i,
                                                    std::vector<Value> operands,
                                                    const Compiled& c, ExecutionStats& stats) {
  const HloComputation* wrapped = i.called_computation("calls");
  if (wrapped == nullptr || !i.shape().IsTuple() || i.shape().tuple_shapes().size() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(Where(i), ": needs calls= and a ((operands...), result, ...) shape"));
  }
  size_t leaf = 0;
  absl::StatusOr<Value> state = ZeroValue(i.shape(), c.out, leaf);
  if (!state.ok()) return state;
  absl::StatusOr<Value> result = RunComputation(*wrapped, operands, stats);
  if (!result.ok()) return result;
  state->elements[0] = Value::Tuple(std::move(operands));
  state->elements[1] = *std::move(result);
  return Conform(*std::move(state), i.shape(), Where(i), stats);
}

absl::StatusOr<Value> Executor::Impl::RunComputation(const HloComputation& comp,
                                                     std::vector<Value> args,
                                                     ExecutionStats& stats) {
  absl::flat_hash_map<const HloInstruction*, Value> values;
  for (const HloInstruction* i : comp.MakePostOrder()) {
    if (i->opcode() == HloOpcode::kParameter) {
      const int64_t n = i->parameter_number();
      if (n < 0 || n >= static_cast<int64_t>(args.size())) {
        return absl::InvalidArgumentError(absl::StrCat(
            comp.name(), " takes parameter ", n, " but was given ", args.size(), " values"));
      }
      absl::StatusOr<Value> arg =
          Conform(std::move(args[n]), i->shape(),
                  absl::StrCat("parameter ", n, " of ", comp.name()), stats);
      if (!arg.ok()) return arg;
      values[i] = *std::move(arg);
      continue;
    }
    std::vector<const Value*> ops;
    for (const HloInstruction* o : i->operands()) ops.push_back(&values.at(o));
    absl::StatusOr<Value> v = RunInstruction(*i, std::move(ops), stats);
    if (!v.ok()) return v;
    // A tuple or get-tuple-element hands on values made elsewhere: they must
    // be in the layouts written here (the copies and transposes that read
    // them planned for those).
    if (i->opcode() == HloOpcode::kTuple || i->opcode() == HloOpcode::kGetTupleElement) {
      v = Conform(*std::move(v), i->shape(), Where(*i), stats);
      if (!v.ok()) return v;
    }
    values[i] = *std::move(v);
  }
  return values.at(comp.root());
}

Executor::Executor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Executor::~Executor() = default;

absl::StatusOr<std::unique_ptr<Executor>> Executor::Create(const HloModule& module,
                                                           ExecutorOptions options) {
  if (module.entry() == nullptr) {
    return absl::FailedPreconditionError("the module has no entry computation");
  }
  auto impl = std::make_unique<Impl>();
  impl->module = &module;
  impl->options = options;
  absl::flat_hash_set<const HloComputation*> seen;
  absl::Status s = impl->Compile(*module.entry(), seen);
  if (!s.ok()) return s;
  if (impl->total_operations > static_cast<double>(options.max_operations)) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "the module needs about ", static_cast<int64_t>(impl->total_operations),
        " multiply-adds and reduction steps, over the executor's limit of ",
        options.max_operations));
  }
  if (impl->total_bytes > options.max_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "the module's buffers need up to ", impl->total_bytes, " bytes, over the executor's limit of ",
        options.max_bytes, " (--max-memory raises it)"));
  }
  return std::unique_ptr<Executor>(new Executor(std::move(impl)));
}

std::vector<Shape> Executor::ParameterShapes() const {
  std::vector<Shape> shapes;
  for (const HloInstruction* p : impl_->module->entry()->parameters()) {
    shapes.push_back(p != nullptr ? p->shape() : Shape());
  }
  return shapes;
}

absl::StatusOr<Value> Executor::Run(std::vector<Value> arguments) {
  const HloComputation& entry = *impl_->module->entry();
  const size_t want = entry.parameters().size();
  if (arguments.size() != want) {
    return absl::InvalidArgumentError(
        absl::StrCat("the entry takes ", want, " parameters, not ", arguments.size()));
  }
  stats_ = ExecutionStats();
  absl::StatusOr<Value> v = impl_->RunComputation(entry, std::move(arguments), stats_);
  if (!v.ok()) return v;
  return impl_->Conform(*std::move(v), entry.root()->shape(), "the entry's result", stats_);
}

absl::StatusOr<Value> MakeArgument(const Shape& shape, const LogicalArray& array) {
  absl::StatusOr<Info> info = ArrayInfo::Create(shape);
  if (!info.ok()) return info.status();
  absl::StatusOr<RelayoutPlan> plan = RelayoutPlan::Create(array.shape, shape);
  if (!plan.ok()) return plan.status();
  if (static_cast<int64_t>(array.bytes.size()) != plan->src_bytes()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "an input for ", shape.ToString(), " has ", array.bytes.size(), " bytes, not ",
        plan->src_bytes()));
  }
  absl::StatusOr<Value> v = Value::Allocate(*std::move(info));
  if (!v.ok()) return v;
  plan->Execute(array.bytes.data(), v->mutable_data());
  return v;
}

namespace {

absl::StatusOr<Value> Assemble(const Shape& shape, absl::Span<const LogicalArray> inputs,
                               size_t& next) {
  if (shape.IsTuple()) {
    std::vector<Value> elements;
    for (const Shape& s : shape.tuple_shapes()) {
      absl::StatusOr<Value> e = Assemble(s, inputs, next);
      if (!e.ok()) return e;
      elements.push_back(*std::move(e));
    }
    return Value::Tuple(std::move(elements));
  }
  if (next >= inputs.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the entry takes more than ", inputs.size(), " input arrays"));
  }
  return MakeArgument(shape, inputs[next++]);
}

absl::Status Flatten(const Value& v, std::vector<LogicalArray>& out) {
  if (v.kind == Value::Kind::kTuple) {
    for (const Value& e : v.elements) {
      absl::Status s = Flatten(e, out);
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }
  absl::StatusOr<LogicalArray> a = ToLogical(v);
  if (!a.ok()) return a.status();
  out.push_back(*std::move(a));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<LogicalArray>> RunLogical(const HloModule& module,
                                                     absl::Span<const LogicalArray> inputs,
                                                     const ExecutorOptions& options,
                                                     ExecutionStats* stats) {
  absl::StatusOr<std::unique_ptr<Executor>> executor = Executor::Create(module, options);
  if (!executor.ok()) return executor.status();
  std::vector<Value> arguments;
  size_t next = 0;
  for (const Shape& p : (*executor)->ParameterShapes()) {
    absl::StatusOr<Value> v = Assemble(p, inputs, next);
    if (!v.ok()) return v.status();
    arguments.push_back(*std::move(v));
  }
  if (next != inputs.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the entry takes ", next, " input arrays, not ", inputs.size()));
  }
  absl::StatusOr<Value> result = (*executor)->Run(std::move(arguments));
  if (!result.ok()) return result.status();
  std::vector<LogicalArray> outputs;
  absl::Status s = Flatten(*result, outputs);
  if (!s.ok()) return s;
  if (stats != nullptr) *stats = (*executor)->stats();
  return outputs;
}

absl::StatusOr<LogicalArray> ToLogical(const Value& value) {
  if (!value.is_array()) return absl::InvalidArgumentError("not an array value");
  LogicalArray out;
  out.shape = value.info->shape();
  out.shape.set_layout(DefaultLayoutForRank(out.shape.rank()));
  absl::StatusOr<RelayoutPlan> plan = RelayoutPlan::Create(value.info->shape(), out.shape);
  if (!plan.ok()) return plan.status();
  out.bytes.resize(plan->dst_bytes());
  plan->Execute(value.data(), out.bytes.data());
  return out;
}

}  // namespace xla_layout::runtime
