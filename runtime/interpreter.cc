// The executor's interpreter: one device's run of a compiled Program with an
// explicit stack of frames. A call, fusion, conditional branch or while
// condition/body pushes a frame and the loop goes on with it; when a frame's
// root is done, its caller resumes. Nothing here recurses over computations.
#include <chrono>
#include <deque>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/executor_internal.h"
#include "runtime/rng.h"

namespace xla_layout::runtime {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// What a frame's result is for in its caller.
enum class Role { kEntry, kCall, kCondition, kBody, kBranch, kAsync };

struct Frame {
  const CompiledComputation* computation;
  std::vector<Value> arguments;
  std::vector<Value> values;  // by position
  size_t next = 0;            // the position that runs next
  Role role;
  Value loop_state;           // a while waiting for its condition or body
};

absl::StatusOr<Value> CopyLeaves(const Value& v, const Compiled& c, size_t& leaf,
                                 ExecutionStats& stats) {
  if (v.kind == Value::Kind::kToken) return v;
  if (v.kind == Value::Kind::kTuple) {
    std::vector<Value> elements;
    for (const Value& e : v.elements) {
      absl::StatusOr<Value> copied = CopyLeaves(e, c, leaf, stats);
      if (!copied.ok()) return copied;
      elements.push_back(*std::move(copied));
    }
    return Value::Tuple(std::move(elements));
  }
  const size_t k = leaf++;
  absl::StatusOr<Value> dst = Value::Allocate(c.out[k]);
  if (!dst.ok()) return dst;
  const auto start = std::chrono::steady_clock::now();
  c.plans[k]->Execute(v.data(), dst->mutable_data());
  stats.copy_seconds += SecondsSince(start);
  stats.copies += 1;
  stats.copy_bytes += c.plans[k]->src_bytes() + c.plans[k]->dst_bytes();
  return dst;
}

// A value of `shape` with every array leaf zero, its infos taken from
// `out` from `leaf` on (the order the compiler's leaves have).
absl::StatusOr<Value> ZeroValue(const Shape& shape, absl::Span<const Info> out, size_t& leaf) {
  if (shape.IsToken()) return Value::Token();
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

Value Rebadged(const Value& v, const Info& info) {
  Value out = v;
  out.info = info;
  return out;
}

// A u32 scalar (replica-id, partition-id).
absl::StatusOr<Value> Scalar(const Info& info, int64_t value) {
  absl::StatusOr<Value> v = Value::Allocate(info);
  if (!v.ok()) return v;
  Num n;
  n.i = value;
  info->Store(v->mutable_data(), info->Slot({}), n);
  return v;
}

// A -done reads what its -start left: the whole value when the shapes
// agree (all-reduce-start), else the start's element 1, the result beside
// the operand (all-gather-start, collective-permute-start).
absl::StatusOr<Value> Done(const HloInstruction& i, const Value& start) {
  if (Shape::Equal().IgnoreLayout()(ShapeOf(start), i.shape())) return start;
  if (start.kind != Value::Kind::kTuple || start.elements.size() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(Where(i), ": its -start holds no result"));
  }
  return start.elements[1];
}

bool HandsOn(HloOpcode op) {
  switch (op) {
    case HloOpcode::kTuple: case HloOpcode::kGetTupleElement: case HloOpcode::kAsyncDone:
    case HloOpcode::kCopyDone: case HloOpcode::kCopyStart:
    case HloOpcode::kAsyncUpdate: case HloOpcode::kDomain:
    case HloOpcode::kOptimizationBarrier:
      return true;
    default:
      return false;
  }
}

// Stores the value of the instruction at `f.next` and moves on, dropping
// the values it was the last to read.
void Finish(Frame& f, Value v) {
  f.values[f.next] = std::move(v);
  for (int j : f.computation->release[f.next]) f.values[j] = Value();
  ++f.next;
}

class Interpreter {
 public:
  Interpreter(const Program& program, DeviceRun& run) : p_(program), run_(run) {}
  absl::StatusOr<Value> Run(const HloComputation& entry, std::vector<Value> arguments);

 private:
  void Push(const HloComputation* c, std::vector<Value> arguments, Role role) {
    Frame f{&p_.Of(c), std::move(arguments), {}, 0, role, Value()};
    f.values.resize(f.computation->order.size());
    stack_.push_back(std::move(f));
  }
  absl::Status Count(const HloInstruction& i, int64_t work);
  // Runs the instruction at `f.next`: true when it pushed a frame (the
  // instruction resumes when that frame returns).
  absl::StatusOr<bool> Step(Frame& f);
  // A frame returned `result` in `role` to the frame now on top.
  absl::Status Resume(Value result, Role role);
  absl::StatusOr<Value> Local(const HloInstruction& i, const Compiled& c,
                              std::vector<const Value*> ops);
  absl::StatusOr<Value> Collective(const HloInstruction& i, const Compiled& c,
                                   std::vector<const Value*> ops);
  absl::StatusOr<Value> Infeed(const HloInstruction& i);
  absl::StatusOr<Value> Conformed(Value v, const HloInstruction& i) {
    return Conform(p_, std::move(v), i.shape(), Where(i), run_.stats);
  }

  const Program& p_;
  DeviceRun& run_;
  std::deque<Frame> stack_;
};

absl::Status Interpreter::Count(const HloInstruction& i, int64_t work) {
  const int64_t total = run_.work->fetch_add(work, std::memory_order_relaxed) + work;
  run_.stats.work += work;
  if (total <= p_.options.max_work) return absl::OkStatus();
  return absl::ResourceExhaustedError(absl::StrCat(
      "the run exceeded the executor's work budget of ", p_.options.max_work,
      " steps at ", Where(i), " (every element written and multiply-add counts one step, in "
      "every loop iteration and on every device; --max-work=N raises it)"));
}

absl::StatusOr<Value> Interpreter::Run(const HloComputation& entry,
                                       std::vector<Value> arguments) {
  Push(&entry, std::move(arguments), Role::kEntry);
  while (true) {
    Frame& f = stack_.back();
    if (f.next == f.computation->order.size()) {
      Value result = std::move(f.values[f.computation->root]);
      const Role role = f.role;
      stack_.pop_back();
      if (stack_.empty()) return result;
      absl::Status s = Resume(std::move(result), role);
      if (!s.ok()) return s;
      continue;
    }
    absl::StatusOr<bool> pushed = Step(f);
    if (!pushed.ok()) return pushed.status();
  }
}

absl::Status Interpreter::Resume(Value result, Role role) {
  Frame& f = stack_.back();
  const HloInstruction& i = *f.computation->order[f.next];
  auto finish = [&](Value v) -> absl::Status {
    absl::StatusOr<Value> conformed = Conformed(std::move(v), i);
    if (!conformed.ok()) return conformed.status();
    Finish(f, *std::move(conformed));
    return absl::OkStatus();
  };
  switch (role) {
    case Role::kCall:
    case Role::kBranch:
      return finish(std::move(result));
    case Role::kAsync: {
      // ((operands...), result, context...): the wrapped computation ran at
      // once; the context (ids a runtime would keep) is zeros.
      const Compiled& c = p_.compiled.at(&i);
      size_t leaf = 0;
      absl::StatusOr<Value> state = ZeroValue(i.shape(), c.out, leaf);
      if (!state.ok()) return state.status();
      std::vector<Value> operands;
      for (int k : c.operands) operands.push_back(f.values[k]);
      state->elements[0] = Value::Tuple(std::move(operands));
      state->elements[1] = std::move(result);
      return finish(*std::move(state));
    }
    case Role::kCondition: {
      if (!result.info->Load(result.data(), result.info->Slot({})).i) {
        return finish(std::move(f.loop_state));
      }
      absl::Status s = Count(i, 1);
      if (!s.ok()) return s;
      Value state = f.loop_state;
      Push(i.called_computation("body"), {std::move(state)}, Role::kBody);
      return absl::OkStatus();
    }
    case Role::kBody:
      f.loop_state = result;
      Push(i.called_computation("condition"), {std::move(result)}, Role::kCondition);
      return absl::OkStatus();
    case Role::kEntry:
      break;
  }
  return absl::InternalError("a frame returned to no caller");
}

// Branch k takes operand k + 1; a pred selects true (0) or false (1), an
// index out of range the last branch, as in XLA.
absl::StatusOr<std::pair<const HloComputation*, int64_t>> Branch(const HloInstruction& i,
                                                                 const Value& selector) {
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
  const int64_t k = selector.info->type() == PRED ? (n.i ? 0 : 1)
                    : (n.i < 0 || n.i >= count) ? count - 1 : n.i;
  if (k < 0 || branches[k] == nullptr || k + 1 >= i.operand_count()) {
    return absl::InvalidArgumentError(absl::StrCat(Where(i), ": no branch ", k));
  }
  return std::make_pair(branches[k], k);
}

absl::StatusOr<bool> Interpreter::Step(Frame& f) {
  const HloInstruction& i = *f.computation->order[f.next];
  const Compiled& c = p_.compiled.at(&i);
  if (i.opcode() == HloOpcode::kParameter) {
    const int64_t n = i.parameter_number();
    if (n < 0 || n >= static_cast<int64_t>(f.arguments.size())) {
      return absl::InvalidArgumentError(absl::StrCat(
          f.computation->computation->name(), " takes parameter ", n, " but was given ",
          f.arguments.size(), " values"));
    }
    absl::StatusOr<Value> arg =
        Conform(p_, std::move(f.arguments[n]), i.shape(),
                absl::StrCat("parameter ", n, " of ", f.computation->computation->name()),
                run_.stats);
    if (!arg.ok()) return arg.status();
    Finish(f, *std::move(arg));
    return false;
  }
  absl::Status counted = Count(i, c.work);
  if (!counted.ok()) return counted;
  std::vector<const Value*> ops;
  ops.reserve(c.operands.size());
  for (int k : c.operands) ops.push_back(&f.values[k]);
  switch (i.opcode()) {
    case HloOpcode::kCall:
    case HloOpcode::kFusion: {
      std::vector<Value> args;
      for (const Value* v : ops) args.push_back(*v);
      Push(i.called_computation(i.opcode() == HloOpcode::kCall ? "to_apply" : "calls"),
           std::move(args), Role::kCall);
      return true;
    }
    case HloOpcode::kAsyncStart: {
      const HloComputation* wrapped = i.called_computation("calls");
      if (wrapped == nullptr || !i.shape().IsTuple() || i.shape().tuple_shapes().size() < 2) {
        return absl::InvalidArgumentError(
            absl::StrCat(Where(i), ": needs calls= and a ((operands...), result, ...) shape"));
      }
      std::vector<Value> args;
      for (const Value* v : ops) args.push_back(*v);
      Push(wrapped, std::move(args), Role::kAsync);
      return true;
    }
    case HloOpcode::kWhile:
      f.loop_state = *ops[0];
      Push(i.called_computation("condition"), {*ops[0]}, Role::kCondition);
      return true;
    case HloOpcode::kConditional: {
      absl::StatusOr<std::pair<const HloComputation*, int64_t>> b = Branch(i, *ops[0]);
      if (!b.ok()) return b.status();
      Push(b->first, {*ops[b->second + 1]}, Role::kBranch);
      return true;
    }
    default:
      break;
  }
  absl::StatusOr<Value> v = IsCollective(i.opcode()) ? Collective(i, c, std::move(ops))
                                                      : Local(i, c, std::move(ops));
  if (!v.ok()) return v.status();
  // These hand on values made elsewhere: they must be in the layouts written
  // here (the copies and transposes that read them planned for those).
  if (HandsOn(i.opcode())) {
    v = Conformed(*std::move(v), i);
    if (!v.ok()) return v.status();
  }
  Finish(f, *std::move(v));
  return false;
}

absl::StatusOr<Value> Interpreter::Local(const HloInstruction& i, const Compiled& c,
                                         std::vector<const Value*> ops) {
  switch (i.opcode()) {
    case HloOpcode::kTuple: {
      std::vector<Value> elements;
      for (const Value* v : ops) elements.push_back(*v);
      return Value::Tuple(std::move(elements));
    }
    case HloOpcode::kGetTupleElement:
      return ops[0]->elements.at(i.attributes().index().value_or(0));
    case HloOpcode::kBitcast:
      return Rebadged(*ops[0], c.out[0]);
    case HloOpcode::kReshape:
      if (!c.moves_data) return Rebadged(*ops[0], c.out[0]);
      return ArrayOp(i, ops, c.out, c.to_apply());
    case HloOpcode::kTranspose:
      if (!c.moves_data) return Rebadged(*ops[0], c.out[0]);
      [[fallthrough]];
    case HloOpcode::kCopy: {
      size_t leaf = 0;
      return CopyLeaves(*ops[0], c, leaf, run_.stats);
    }
    case HloOpcode::kReplicaId:
      return Scalar(c.out[0], run_.device / p_.grid.partition_count);
    case HloOpcode::kPartitionId:
      return Scalar(c.out[0], run_.device % p_.grid.partition_count);
    case HloOpcode::kAllReduceDone: case HloOpcode::kAllGatherDone:
    case HloOpcode::kCollectivePermuteDone:
      return Done(i, *ops[0]);
    case HloOpcode::kAfterAll:
      return Value::Token();
    case HloOpcode::kRng: {
      uint64_t seed = p_.options.rng_seed * 0x9e3779b97f4a7c15ull ^ InstructionSeed(i);
      seed = seed * 0xbf58476d1ce4e5b9ull + static_cast<uint64_t>(run_.device);
      seed = seed * 0x94d049bb133111ebull + static_cast<uint64_t>(run_.occurrences[&i]++);
      return RngOp(i, ops, c.out[0], seed);
    }
    case HloOpcode::kCustomCall:
      if (c.kernel != nullptr) return KernelCustomCall(i, ops, c.out, *c.kernel);
      ++run_.stats.stand_in_calls;
      return StandInCustomCall(i, ops, c.out);
    case HloOpcode::kAddDependency: case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kAsyncUpdate: case HloOpcode::kDomain:
      return *ops[0];
    case HloOpcode::kCopyStart: {
      // The copy runs at the start; the context (a runtime's id) is zero.
      size_t leaf = 0;
      absl::StatusOr<Value> copied = CopyLeaves(*ops[0], c, leaf, run_.stats);
      if (!copied.ok()) return copied;
      absl::StatusOr<Value> context = Value::Allocate(c.out.back());
      if (!context.ok()) return context;
      return Value::Tuple({*std::move(copied), *ops[0], *std::move(context)});
    }
    case HloOpcode::kCopyDone:
      if (ops[0]->kind != Value::Kind::kTuple || ops[0]->elements.empty()) {
        return absl::InvalidArgumentError(absl::StrCat(Where(i), ": its start holds no copy"));
      }
      return ops[0]->elements[0];
    case HloOpcode::kAsyncDone:
      if (ops[0]->kind != Value::Kind::kTuple || ops[0]->elements.size() < 2) {
        return absl::InvalidArgumentError(absl::StrCat(Where(i), ": its start holds no result"));
      }
      return ops[0]->elements[1];
    case HloOpcode::kInfeed:
      return Infeed(i);
    case HloOpcode::kOutfeed: {
      absl::Status s = Flatten(*ops[0], run_.outfeed);
      if (!s.ok()) return s;
      return Value::Token();
    }
    case HloOpcode::kDot:
    case HloOpcode::kConvolution: {
      const auto start = std::chrono::steady_clock::now();
      absl::StatusOr<Value> v = ArrayOp(i, ops, c.out, c.to_apply());
      run_.stats.dot_seconds += SecondsSince(start);
      return v;
    }
    default:
      return ArrayOp(i, ops, c.out, c.to_apply());
  }
}

absl::StatusOr<Value> Interpreter::Collective(const HloInstruction& i, const Compiled& c,
                                              std::vector<const Value*> ops) {
  const bool permute = i.opcode() == HloOpcode::kCollectivePermute ||
                       i.opcode() == HloOpcode::kCollectivePermuteStart;
  std::vector<int64_t> group;
  std::optional<PermutePeers> peers;
  if (permute) {
    absl::StatusOr<PermutePeers> found = CollectivePermutePeers(i, p_.grid, run_.device);
    if (!found.ok()) return found.status();
    peers = *std::move(found);
    for (int64_t d = 0; d < p_.grid.device_count(); ++d) group.push_back(d);
  } else {
    absl::StatusOr<std::vector<int64_t>> found = ParticipatingDevices(i, p_.grid, run_.device);
    if (!found.ok()) return found.status();
    group = *std::move(found);
  }
  std::vector<Value> mine;
  for (const Value* v : ops) mine.push_back(*v);
  std::vector<std::vector<Value>> all;
  if (run_.rendezvous == nullptr) {
    if (group.size() != 1) {
      return absl::InternalError(absl::StrCat(Where(i), ": a group of ", group.size(),
                                              " devices in a one-device run"));
    }
    all.push_back(std::move(mine));
  } else {
    absl::StatusOr<std::vector<std::vector<Value>>> met = run_.rendezvous->Exchange(
        i, run_.occurrences[&i]++, group, run_.device, std::move(mine));
    if (!met.ok()) return met.status();
    all = *std::move(met);
  }
  std::vector<std::vector<const Value*>> views(all.size());
  for (size_t r = 0; r < all.size(); ++r) {
    for (const Value& v : all[r]) views[r].push_back(&v);
  }
  const int64_t rank = std::find(group.begin(), group.end(), run_.device) - group.begin();
  if (permute) {
    const std::vector<const Value*>* source =
        peers->source ? &views.at(*peers->source) : nullptr;
    return CollectivePermuteResult(i, source, views.at(rank), c.out);
  }
  return CollectiveResult(i, views, rank, c.out, c.to_apply());
}

// An infeed's (data, token): each array leaf of the data from the options'
// infeed source, laid out as the infeed writes it.
absl::StatusOr<Value> Interpreter::Infeed(const HloInstruction& i) {
  if (!p_.options.infeed) {
    return absl::FailedPreconditionError(
        absl::StrCat(Where(i), ": the run has no infeed data"));
  }
  const Shape& data = i.shape().tuple_shapes()[0];
  std::vector<const Shape*> leaves;
  std::vector<const Shape*> stack = {&data};
  while (!stack.empty()) {
    const Shape* s = stack.back();
    stack.pop_back();
    if (s->IsTuple()) {
      for (auto it = s->tuple_shapes().rbegin(); it != s->tuple_shapes().rend(); ++it) {
        stack.push_back(&*it);
      }
    } else if (s->IsArray()) {
      leaves.push_back(s);
    }
  }
  std::vector<LogicalArray> arrays;
  for (const Shape* leaf : leaves) {
    absl::StatusOr<LogicalArray> a = p_.options.infeed(run_.device, *leaf);
    if (!a.ok()) return absl::Status(a.status().code(), absl::StrCat(Where(i), ": ", a.status().message()));
    arrays.push_back(*std::move(a));
  }
  size_t next = 0;
  absl::StatusOr<Value> v = Assemble(data, arrays, next);
  if (!v.ok()) return v;
  return Value::Tuple({*std::move(v), Value::Token()});
}

}  // namespace

absl::StatusOr<Value> Interpret(const Program& program, const HloComputation& entry,
                                std::vector<Value> arguments, DeviceRun& run) {
  // A value that dies gives its buffer to a later op of the run.
  BufferReuseScope reuse;
  Interpreter interpreter(program, run);
  return interpreter.Run(entry, std::move(arguments));
}

}  // namespace xla_layout::runtime
