#include "runtime/executor.h"

#include <algorithm>
#include <cmath>
#include <thread>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "runtime/executor_internal.h"
#include "runtime/ops.h"
#include "runtime/scalar_program.h"
#include "xla_layout/layout_util.h"
#include "xla_layout/memory.h"
#include "xla_layout/primitive_type.h"
#include "xla_layout/relayout.h"

namespace xla_layout::runtime {
namespace {

bool IsControlOp(HloOpcode op) {
  switch (op) {
    case HloOpcode::kParameter: case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement: case HloOpcode::kCopy:
    case HloOpcode::kBitcast: case HloOpcode::kTranspose: case HloOpcode::kWhile:
    case HloOpcode::kConditional: case HloOpcode::kCall: case HloOpcode::kFusion:
    case HloOpcode::kReplicaId: case HloOpcode::kPartitionId:
    case HloOpcode::kAllReduceDone: case HloOpcode::kAllGatherDone:
    case HloOpcode::kCollectivePermuteDone: case HloOpcode::kAfterAll:
    case HloOpcode::kAddDependency: case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kInfeed: case HloOpcode::kOutfeed: case HloOpcode::kCustomCall:
    case HloOpcode::kDomain: case HloOpcode::kAsyncStart: case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone: case HloOpcode::kCopyStart: case HloOpcode::kCopyDone:
      return true;
    default:
      return false;
  }
}

// Leaves of `shape` in order that hold data: arrays (and opaque values,
// which the compiler refuses); tokens hold nothing.
void Leaves(const Shape& shape, std::vector<const Shape*>& out) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) Leaves(s, out);
  } else if (!shape.IsToken()) {
    out.push_back(&shape);
  }
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

}  // namespace

std::string Where(const HloInstruction& i) {
  return absl::StrCat(i.name(), " (", HloOpcodeString(i.opcode()), ")");
}

Shape ShapeOf(const Value& v) {
  if (v.kind == Value::Kind::kToken) return Shape::MakeToken();
  if (v.kind == Value::Kind::kTuple) {
    std::vector<Shape> elements;
    for (const Value& e : v.elements) elements.push_back(ShapeOf(e));
    return Shape::MakeTuple(std::move(elements));
  }
  return v.info->shape();
}


namespace {

absl::Status Unsupported(const HloInstruction& i, absl::string_view why) {
  return absl::UnimplementedError(absl::StrCat(Where(i), ": ", why));
}

// Values made by other instructions (parameters, tuples, calls) are not
// counted: every buffer is some instruction's result.
bool CountsBytes(const HloInstruction& i) {
  const HloOpcode op = i.opcode();
  const bool allocates = op != HloOpcode::kParameter && op != HloOpcode::kTuple &&
                         op != HloOpcode::kGetTupleElement && op != HloOpcode::kBitcast &&
                         op != HloOpcode::kWhile && op != HloOpcode::kConditional &&
                         op != HloOpcode::kCall && op != HloOpcode::kFusion &&
                         op != HloOpcode::kAllReduceDone && op != HloOpcode::kAllGatherDone &&
                         op != HloOpcode::kCollectivePermuteDone;
  return allocates || (op == HloOpcode::kParameter && i.parent()->is_entry());
}

// What an array of `shape` costs the executor before it is made: its
// buffer; and the slot tables of its ArrayInfo plus, for an entry
// parameter, the logical input it is laid out from, which live for the
// whole run.
struct Footprint {
  int64_t buffer = 0;
  int64_t tables = 0;
  int64_t input = 0;
};

absl::StatusOr<Footprint> FootprintOf(const Shape& shape, bool is_input) {
  absl::StatusOr<TiledLayout> tiled = TiledLayout::Create(shape);
  if (!tiled.ok()) return tiled.status();
  Footprint f;
  for (int64_t d : shape.dimensions()) f.tables += d * static_cast<int64_t>(sizeof(int64_t));
  f.buffer = tiled->byte_size();
  if (is_input) {
    const int64_t element = std::max<int64_t>(1, PrimitiveBitWidth(shape.element_type()) / 8);
    f.input = tiled->element_count() * element;
  }
  return f;
}

// Compiles a module into a Program, checking the bytes it will need (on
// every device) before anything is allocated: each array before its index
// tables are built, and the whole run's peak (PeakBufferBytes) at the end.
class Compiler {
 public:
  explicit Compiler(Program& program) : p_(program) {}
  absl::Status CompileAll(const HloComputation& entry);
  // `buffers` more bytes alive at the peak; `where` names what reached it.
  absl::Status CheckBytes(int64_t buffers, absl::string_view where) const;

 private:
  absl::Status CompileComputation(const HloComputation& c);
  absl::Status CompileInstruction(const HloInstruction& i, int position,
                                  const absl::flat_hash_map<const HloInstruction*, int>& at);
  absl::Status CompileLeaves(const HloInstruction& i, const std::vector<const Shape*>& leaves,
                             Compiled& c);

  Program& p_;
  int64_t fixed_ = 0;  // index tables and inputs, on one device
  // One ArrayInfo per distinct shape: its index tables are as large as the
  // sum of its dims, and a module repeats its shapes.
  absl::flat_hash_map<std::string, Info> infos_;
};

absl::Status Compiler::CheckBytes(int64_t buffers, absl::string_view where) const {
  const int64_t devices = p_.grid.device_count();
  const int64_t cap = (int64_t{1} << 62) / devices;
  const int64_t bytes = buffers > cap - fixed_ ? cap : fixed_ + buffers;
  const int64_t limit = p_.options.max_bytes;
  const std::string total = absl::StrCat(
      devices == 1 ? "" : absl::StrCat(devices, " devices x "), "at least ", bytes, " bytes");
  // Under a gigabyte any machine that runs this has room; above, ask.
  if (bytes * devices > (int64_t{1} << 30)) {
    absl::Status machine = CheckAllocationSize(bytes * devices, "the module's run");
    if (!machine.ok()) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "the module is too large for this machine: its run needs ", total, " (", where,
          "): ", machine.message()));
    }
  }
  if (bytes <= limit / devices) return absl::OkStatus();
  return absl::ResourceExhaustedError(absl::StrCat(
      "the module's run needs ", total, " (buffers at their peak, index tables and inputs; ",
      where, "), over the executor's limit of ", limit, " (--max-memory raises it)"));
}

// The result's array leaves (`leaves`) into c.out, each checked before its
// tables are made; opaque values are refused, in the result and in the
// operands.
absl::Status Compiler::CompileLeaves(const HloInstruction& i,
                                     const std::vector<const Shape*>& leaves, Compiled& c) {
  const bool input = i.opcode() == HloOpcode::kParameter && i.parent()->is_entry();
  for (const Shape* leaf : leaves) {
    if (leaf->IsOpaque()) {
      return Unsupported(
          i, absl::StrCat(leaf->ToString(), " values are not supported by the executor"));
    }
    absl::StatusOr<Footprint> f = FootprintOf(*leaf, input);
    if (!f.ok()) return Unsupported(i, f.status().message());
    if (CountsBytes(i) || CallsComputations(i.opcode())) c.bytes += f->buffer;
    fixed_ += f->input;
    const std::string key = leaf->ToString();
    auto known = infos_.find(key);
    if (known != infos_.end()) {
      c.out.push_back(known->second);
      continue;
    }
    fixed_ += f->tables;
    absl::Status room = CheckBytes(f->buffer, absl::StrCat(Where(i), " reached it"));
    if (!room.ok()) return room;
    absl::StatusOr<Info> info = ArrayInfo::Create(*leaf);
    if (!info.ok()) return Unsupported(i, info.status().message());
    infos_[key] = *info;
    c.out.push_back(*std::move(info));
  }
  for (const HloInstruction* o : i.operands()) {
    std::vector<const Shape*> operand_leaves;
    Leaves(o->shape(), operand_leaves);
    for (const Shape* leaf : operand_leaves) {
      if (!leaf->IsArray()) return Unsupported(i, "opaque operands are not supported");
    }
  }
  return absl::OkStatus();
}

// Whether `shape` has a c64 leaf.
bool HoldsComplex(const Shape& shape) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) {
      if (HoldsComplex(s)) return true;
    }
    return false;
  }
  return shape.element_type() == C64;
}

// The executor computes on c64 only in fft; these ops move its bits.
absl::Status CheckComplexUse(const HloInstruction& i) {
  switch (i.opcode()) {
    case HloOpcode::kFft: case HloOpcode::kParameter: case HloOpcode::kCopy:
    case HloOpcode::kBitcast: case HloOpcode::kTranspose: case HloOpcode::kReshape:
    case HloOpcode::kTuple: case HloOpcode::kGetTupleElement: case HloOpcode::kCall:
    case HloOpcode::kFusion: case HloOpcode::kWhile: case HloOpcode::kConditional:
    case HloOpcode::kOptimizationBarrier:
      return absl::OkStatus();
    default:
      break;
  }
  bool complex = HoldsComplex(i.shape());
  for (const HloInstruction* o : i.operands()) complex = complex || HoldsComplex(o->shape());
  if (!complex) return absl::OkStatus();
  return Unsupported(i, "c64 is computed on only by fft and moved by copy, transpose, reshape, "
                        "bitcast and tuples in the executor");
}

// A copy's plan per array leaf.
absl::Status CompileCopy(const HloInstruction& i, const std::vector<const Shape*>& leaves,
                         PlanCache& plans, Compiled& c) {
  std::vector<const Shape*> from;
  Leaves(i.operand(0)->shape(), from);
  if (from.size() != leaves.size()) return Unsupported(i, "operand and result differ in structure");
  for (size_t k = 0; k < leaves.size(); ++k) {
    absl::StatusOr<const RelayoutPlan*> plan = plans.Get(*from[k], *leaves[k]);
    if (!plan.ok()) return Unsupported(i, plan.status().message());
    c.plans.push_back(*plan);
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
absl::Status CompileTranspose(const HloInstruction& i, PlanCache& plans, Compiled& c) {
  const Shape& from = i.operand(0)->shape();
  std::optional<Layout> as_result = TransposedLayout(
      i.attributes().dimensions.value_or(std::vector<int64_t>{}), from.layout(),
      /*toward_operand=*/false);
  if (!as_result) return Unsupported(i, "dimensions are not a permutation");
  Shape source = i.shape();
  source.set_layout(*as_result);
  c.moves_data = !SamePhysicalLayout(i.shape(), *as_result, i.shape().layout());
  if (c.moves_data) {
    absl::StatusOr<const RelayoutPlan*> plan = plans.Get(source, i.shape());
    if (!plan.ok()) return Unsupported(i, plan.status().message());
    c.plans.push_back(*plan);
  }
  return absl::OkStatus();
}

// Multiply-adds per output element: a dot's contracted elements; a
// convolution's kernel elements over its output features (the window times
// the input features of one group).
double MacsPerElement(const HloInstruction& i) {
  double macs = 1;
  if (i.opcode() == HloOpcode::kDot) {
    const auto& dims = i.attributes().dot().lhs_contracting_dims;
    for (int64_t d : dims.value_or(std::vector<int64_t>{})) {
      if (d >= 0 && d < i.operand(0)->shape().rank()) {
        macs *= static_cast<double>(i.operand(0)->shape().dimensions(d));
      }
    }
    return macs;
  }
  const Shape& kernel = i.operand(1)->shape();
  for (int64_t d : kernel.dimensions()) macs *= static_cast<double>(d);
  const auto& labels = i.attributes().rare().dim_labels;
  const size_t o = labels ? labels->kernel.find('o') : std::string::npos;
  if (o != std::string::npos && static_cast<int64_t>(o) < kernel.rank() &&
      kernel.dimensions(o) > 0) {
    macs /= static_cast<double>(kernel.dimensions(o));
  }
  return macs;
}

// Steps beyond the elements written: one per element a reduce reads, per
// window position of a window op, per comparison of a sort (about log2(n)
// per element of rows of n), per multiply-add of a cholesky or
// triangular-solve (one per element and matrix row).
double ExtraWork(const HloInstruction& i, const Compiled& c) {
  if (i.operand_count() < 1 || !i.operand(0)->shape().IsArray()) return 0;
  const Shape& first = i.operand(0)->shape();
  double lhs = 1, rhs = 1, window = 1;
  for (int64_t d : first.dimensions()) lhs *= static_cast<double>(d);
  if (i.operand_count() > 1 && i.operand(1)->shape().IsArray()) {
    for (int64_t d : i.operand(1)->shape().dimensions()) rhs *= static_cast<double>(d);
  }
  const double minor =
      first.rank() > 0 ? static_cast<double>(first.dimensions(first.rank() - 1)) : 1;
  for (const WindowDimension& w :
       i.attributes().rare().window.value_or(std::vector<WindowDimension>{})) {
    window *= static_cast<double>(w.size);
  }
  const double out = static_cast<double>(c.out.empty() ? 0 : c.out[0]->element_count());
  switch (i.opcode()) {
    case HloOpcode::kDot: case HloOpcode::kConvolution: return out * MacsPerElement(i);
    case HloOpcode::kReduce: return lhs * (i.operand_count() / 2);
    case HloOpcode::kReduceWindow: return out * window * (i.operand_count() / 2);
    case HloOpcode::kSelectAndScatter: return rhs * window;
    case HloOpcode::kSort: case HloOpcode::kTopK:
      return lhs * std::log2(std::max(2.0, minor)) * i.operand_count();
    case HloOpcode::kCholesky: return lhs * minor;
    case HloOpcode::kTriangularSolve: return rhs * minor;
    default: return 0;
  }
}

// The steps an instruction counts each time it runs: one per element it
// writes, and its ExtraWork.
int64_t Work(const HloInstruction& i, const Compiled& c) {
  double steps = 1 + ExtraWork(i, c);
  for (const Info& o : c.out) steps += static_cast<double>(o->element_count());
  return static_cast<int64_t>(std::min(steps, 1e18));
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

absl::Status Compiler::CompileAll(const HloComputation& entry) {
  // A worklist, not recursion: a chain of computations calling each other
  // may be as long as the module.
  absl::flat_hash_set<const HloComputation*> seen = {&entry};
  std::vector<const HloComputation*> work = {&entry};
  while (!work.empty()) {
    const HloComputation* c = work.back();
    work.pop_back();
    absl::Status s = CompileComputation(*c);
    if (!s.ok()) return s;
    for (const HloInstruction* i : c->instructions()) {
      // An array op's to_apply is a ScalarProgram; a custom call's callees
      // are the vendor kernel's business.
      if (IsArrayOp(i->opcode()) || IsCollective(i->opcode()) ||
          i->opcode() == HloOpcode::kCustomCall) {
        continue;
      }
      for (const auto& called : i->called_computations()) {
        if (called.computation != nullptr && seen.insert(called.computation).second) {
          work.push_back(called.computation);
        }
      }
    }
  }
  return absl::OkStatus();
}

absl::Status Compiler::CompileComputation(const HloComputation& comp) {
  CompiledComputation cc;
  cc.computation = &comp;
  for (const HloInstruction* i : comp.MakePostOrder()) cc.order.push_back(i);
  absl::flat_hash_map<const HloInstruction*, int> at;
  for (size_t k = 0; k < cc.order.size(); ++k) at[cc.order[k]] = static_cast<int>(k);
  auto root = at.find(comp.root());
  if (root == at.end()) return absl::InternalError(absl::StrCat(comp.name(), " has no root"));
  cc.root = root->second;
  for (size_t k = 0; k < cc.order.size(); ++k) {
    absl::Status s = CompileInstruction(*cc.order[k], static_cast<int>(k), at);
    if (!s.ok()) return s;
  }
  PlanReleases(p_, cc);
  p_.computations[&comp] = std::move(cc);
  return absl::OkStatus();
}

absl::Status Compiler::CompileInstruction(
    const HloInstruction& i, int position,
    const absl::flat_hash_map<const HloInstruction*, int>& at) {
  const HloOpcode op = i.opcode();
  if (!IsControlOp(op) && !IsArrayOp(op) && !IsCollective(op)) {
    const absl::string_view reason = RefusalReason(op);
    return absl::UnimplementedError(absl::StrCat(HloOpcodeString(op),
                                                 " is not supported by the executor (", i.name(),
                                                 ")", reason.empty() ? "" : ": ", reason));
  }
  absl::Status complex = CheckComplexUse(i);
  if (!complex.ok()) return complex;
  Compiled c;
  c.position = position;
  for (const HloInstruction* o : i.operands()) c.operands.push_back(at.at(o));
  std::vector<const Shape*> leaves;
  Leaves(i.shape(), leaves);
  absl::Status s = CompileLeaves(i, leaves, c);
  if (!s.ok()) return s;
  if (op == HloOpcode::kCopy) {
    s = CompileCopy(i, leaves, *p_.plan_cache, c);
  } else if (op == HloOpcode::kCopyStart) {
    // (destination, source, context): the copy is the first leaf's.
    s = i.shape().IsTuple() && i.shape().tuple_shapes()[0].IsArray() && !leaves.empty()
            ? CompileCopy(i, {leaves[0]}, *p_.plan_cache, c)
            : Unsupported(i, "a copy-start of a tuple is not supported");
  } else if (op == HloOpcode::kBitcast) {
    s = CheckBitcast(i, c);
  } else if (op == HloOpcode::kTranspose) {
    s = CompileTranspose(i, *p_.plan_cache, c);
  } else if (op == HloOpcode::kReshape) {
    // A reshape whose layouts keep every element's bytes in place is a
    // bitcast: it moves nothing.
    c.moves_data = !ReshapeIsBitcast(i.operand(0)->shape(), i.shape());
  } else if (op == HloOpcode::kCustomCall) {
    // Decided now: a plugin registers its kernels before any module loads.
    c.kernel = CustomCallKernelRegistry::Global().Find(CustomCallTarget(i));
    if (c.kernel == nullptr) p_.stand_ins.push_back(&i);
  }
  if (!s.ok()) return s;
  c.work = Work(i, c);
  if (IsArrayOp(op) || IsCollective(op)) {
    s = CompileScalarComputations(i, c);
    if (s.ok()) s = IsCollective(op) ? CheckCollective(i) : CheckArrayOp(i);
  }
  if (!s.ok()) return s;
  p_.compiled[&i] = std::move(c);
  return absl::OkStatus();
}

absl::StatusOr<Value> Conform(const Program& program, Value v, const Shape& declared,
                              absl::string_view where, ExecutionStats& stats) {
  const Shape actual = ShapeOf(v);
  if (SameLayouts(actual, declared)) return v;
  if (program.options.strict_layouts ||
      (v.kind == Value::Kind::kTuple) != declared.IsTuple() ||
      !Shape::Equal().IgnoreLayout().IgnoreDynamicDimensions()(actual, declared)) {
    return absl::InternalError(absl::StrCat(where, " is written ", declared.ToString(),
                                            " but receives ", actual.ToString()));
  }
  if (v.kind == Value::Kind::kTuple) {
    for (size_t k = 0; k < v.elements.size(); ++k) {
      absl::StatusOr<Value> e =
          Conform(program, std::move(v.elements[k]), declared.tuple_shapes()[k], where, stats);
      if (!e.ok()) return e;
      v.elements[k] = *std::move(e);
    }
    return v;
  }
  Shape target = declared;
  SetDefaultLayouts(target);
  absl::StatusOr<Info> info = ArrayInfo::Create(target);
  if (!info.ok()) return info.status();
  absl::StatusOr<const RelayoutPlan*> plan = program.plan_cache->Get(actual, target);
  if (!plan.ok()) return plan.status();
  absl::StatusOr<Value> out = Value::Allocate(*std::move(info));
  if (!out.ok()) return out;
  (*plan)->Execute(v.data(), out->mutable_data());
  ++stats.conformed;
  return out;
}

struct Executor::Impl {
  Program program;
};

Executor::Executor(Key, std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Executor::~Executor() = default;

namespace {

// The grid: the options' counts, else the header's, else the smallest the
// collectives allow.
absl::StatusOr<DeviceGrid> GridFor(const HloModule& module, const ExecutorOptions& options) {
  absl::StatusOr<DeviceGrid> grid = InferDeviceGrid(module);
  if (!grid.ok()) return grid;
  if (options.replicas > 0) grid->replica_count = options.replicas;
  if (options.partitions > 0) grid->partition_count = options.partitions;
  if (grid->device_count() > kMaxDevices) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the module runs on ", grid->replica_count, " replicas x ", grid->partition_count,
        " partitions, more than the executor's ", kMaxDevices, " devices"));
  }
  return grid;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Executor>> Executor::Create(const HloModule& module,
                                                           ExecutorOptions options) {
  if (module.entry() == nullptr) {
    return absl::FailedPreconditionError("the module has no entry computation");
  }
  auto impl = std::make_unique<Impl>();
  Program& p = impl->program;
  p.module = &module;
  p.options = options;
  absl::StatusOr<DeviceGrid> grid = GridFor(module, options);
  if (!grid.ok()) return grid.status();
  p.grid = *grid;
  Compiler compiler(p);
  absl::Status s = compiler.CompileAll(*module.entry());
  if (!s.ok()) return s;
  s = compiler.CheckBytes(PeakBufferBytes(p), "the whole run");
  if (!s.ok()) return s;
  // One pass over the entry (loop bodies once) is the least a run does.
  int64_t once = 0;
  for (const HloInstruction* i : module.entry()->instructions()) once += p.compiled.at(i).work;
  if (once > options.max_work / p.grid.device_count()) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "the module needs at least ", once, " steps per device, over the executor's work "
        "budget of ", options.max_work, " (--max-work=N raises it)"));
  }
  return std::make_unique<Executor>(Key(), std::move(impl));
}

const DeviceGrid& Executor::grid() const { return impl_->program.grid; }

std::vector<const HloInstruction*> Executor::StandInCalls() const {
  return impl_->program.stand_ins;
}

bool RunsAsStandIn(const HloInstruction& instruction) {
  return instruction.opcode() == HloOpcode::kCustomCall &&
         CustomCallKernelRegistry::Global().Find(CustomCallTarget(instruction)) == nullptr;
}

std::vector<Shape> Executor::ParameterShapes() const {
  std::vector<Shape> shapes;
  for (const HloInstruction* p : impl_->program.module->entry()->parameters()) {
    shapes.push_back(p != nullptr ? p->shape() : Shape());
  }
  return shapes;
}

absl::StatusOr<Value> Executor::Run(std::vector<Value> arguments) {
  std::vector<std::vector<Value>> per_device;
  per_device.push_back(std::move(arguments));
  absl::StatusOr<std::vector<Value>> results = RunDevices(std::move(per_device));
  if (!results.ok()) return results.status();
  return std::move(results->front());
}

namespace {

void AddStats(const ExecutionStats& from, ExecutionStats& to) {
  to.copies += from.copies;
  to.copy_bytes += from.copy_bytes;
  to.conformed += from.conformed;
  to.copy_seconds += from.copy_seconds;
  to.dot_seconds += from.dot_seconds;
  to.work += from.work;
  to.stand_in_calls += from.stand_in_calls;
}

// One device's whole run: the entry, then its result in the layout written.
absl::StatusOr<Value> RunDevice(const Program& p, std::vector<Value> arguments, DeviceRun& run) {
  const HloComputation& entry = *p.module->entry();
  absl::StatusOr<Value> v = Interpret(p, entry, std::move(arguments), run);
  if (!v.ok()) return v;
  return Conform(p, *std::move(v), entry.root()->shape(), "the entry's result", run.stats);
}

}  // namespace

absl::StatusOr<std::vector<Value>> Executor::RunDevices(
    std::vector<std::vector<Value>> arguments) {
  const Program& p = impl_->program;
  const int64_t devices = p.grid.device_count();
  const size_t want = p.module->entry()->parameters().size();
  if (static_cast<int64_t>(arguments.size()) != devices) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the module runs on ", devices, " devices but was given arguments for ",
        arguments.size()));
  }
  for (const auto& a : arguments) {
    if (a.size() != want) {
      return absl::InvalidArgumentError(
          absl::StrCat("the entry takes ", want, " parameters, not ", a.size()));
    }
  }
  stats_ = ExecutionStats();
  std::atomic<int64_t> work{0};
  std::optional<Rendezvous> rendezvous;
  if (devices > 1) rendezvous.emplace(devices);
  std::vector<DeviceRun> runs(devices);
  std::vector<absl::StatusOr<Value>> results(devices, absl::UnknownError("not run"));
  auto run_device = [&](int64_t d) {
    runs[d].device = d;
    runs[d].work = &work;
    runs[d].rendezvous = rendezvous ? &*rendezvous : nullptr;
    results[d] = RunDevice(p, std::move(arguments[d]), runs[d]);
    if (!rendezvous) return;
    if (results[d].ok()) {
      rendezvous->Finish(d);
    } else {
      rendezvous->Fail(d, results[d].status());
    }
  };
  if (devices == 1) {
    run_device(0);
  } else {
    std::vector<std::thread> threads;
    for (int64_t d = 0; d < devices; ++d) threads.emplace_back(run_device, d);
    for (std::thread& t : threads) t.join();
  }
  outfeeds_.assign(devices, {});
  for (int64_t d = 0; d < devices; ++d) {
    AddStats(runs[d].stats, stats_);
    outfeeds_[d] = std::move(runs[d].outfeed);
  }
  const PlanCache::Counts plans = p.plan_cache->counts();
  stats_.plan_lookups = plans.lookups;
  stats_.plan_hits = plans.hits;
  stats_.plans_built = plans.plans;
  if (rendezvous) {
    absl::Status failure = rendezvous->failure();
    if (!failure.ok()) return failure;
  }
  std::vector<Value> out;
  for (int64_t d = 0; d < devices; ++d) {
    if (!results[d].ok()) return results[d].status();
    out.push_back(*std::move(results[d]));
  }
  return out;
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


absl::StatusOr<Value> Assemble(const Shape& shape, absl::Span<const LogicalArray> inputs,
                               size_t& next) {
  if (shape.IsToken()) return Value::Token();
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
  if (v.kind == Value::Kind::kToken) return absl::OkStatus();
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


absl::StatusOr<std::vector<std::vector<LogicalArray>>> RunLogicalOnDevices(
    Executor& executor, absl::Span<const std::vector<LogicalArray>> inputs) {
  std::vector<std::vector<Value>> arguments;
  for (const std::vector<LogicalArray>& device_inputs : inputs) {
    std::vector<Value> device_arguments;
    size_t next = 0;
    for (const Shape& p : executor.ParameterShapes()) {
      absl::StatusOr<Value> v = Assemble(p, device_inputs, next);
      if (!v.ok()) return v.status();
      device_arguments.push_back(*std::move(v));
    }
    if (next != device_inputs.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the entry takes ", next, " input arrays, not ", device_inputs.size()));
    }
    arguments.push_back(std::move(device_arguments));
  }
  absl::StatusOr<std::vector<Value>> results = executor.RunDevices(std::move(arguments));
  if (!results.ok()) return results.status();
  std::vector<std::vector<LogicalArray>> outputs(results->size());
  for (size_t d = 0; d < results->size(); ++d) {
    absl::Status s = Flatten((*results)[d], outputs[d]);
    if (!s.ok()) return s;
  }
  return outputs;
}

absl::StatusOr<std::vector<LogicalArray>> RunLogical(const HloModule& module,
                                                     absl::Span<const LogicalArray> inputs,
                                                     const ExecutorOptions& options,
                                                     ExecutionStats* stats) {
  absl::StatusOr<std::unique_ptr<Executor>> executor = Executor::Create(module, options);
  if (!executor.ok()) return executor.status();
  if ((*executor)->grid().device_count() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the module runs on ", (*executor)->grid().device_count(),
        " devices; RunLogicalOnDevices runs it"));
  }
  std::vector<std::vector<LogicalArray>> per_device = {
      std::vector<LogicalArray>(inputs.begin(), inputs.end())};
  absl::StatusOr<std::vector<std::vector<LogicalArray>>> outputs =
      RunLogicalOnDevices(**executor, per_device);
  if (!outputs.ok()) return outputs.status();
  if (stats != nullptr) *stats = (*executor)->stats();
  return std::move(outputs->front());
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
