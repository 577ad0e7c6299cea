#include "tools/run_command.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <random>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "runtime/custom_call.h"
#include "runtime/executor.h"
#include "runtime/logical.h"
#include "hlo/hlo_proto_convert.h"
#include "hlo/hlo_proto_io.h"
#include "tools/module_args.h"
#include "tools/snapshot_io.h"
#include "xla_layout/file_io.h"

namespace xla_layout::cli {
namespace {

using runtime::ExecutorOptions;
using runtime::LogicalArray;

// Array leaves of `shape`, each with its path ("", "0", "1_0", ...).
void Leaves(const Shape& shape, const std::string& path,
            std::vector<std::pair<std::string, Shape>>& out) {
  if (shape.IsTuple()) {
    for (size_t k = 0; k < shape.tuple_shapes().size(); ++k) {
      Leaves(shape.tuple_shapes()[k], path.empty() ? absl::StrCat(k) : absl::StrCat(path, "_", k),
             out);
    }
  } else if (!shape.IsToken()) {  // tokens hold nothing
    out.push_back({path, shape});
  }
}

// Every device's inputs: leaves[d] holds every parameter's array leaves,
// in order. Infeeds read on: random data from where each device's stream
// left off after its parameters, or the .npy files after the parameters',
// in order (each device from the first).
struct Inputs {
  std::vector<std::vector<LogicalArray>> leaves;
  std::vector<std::mt19937_64> streams;  // by device, for random inputs
  std::vector<std::string> infeed_files;
  // Where each device's infeeds are; Rewind sets them to the start, so
  // that every run reads the same data.
  std::vector<std::mt19937_64> infeed_streams;
  std::vector<size_t> infeed_next = std::vector<size_t>(runtime::kMaxDevices, 0);
  void Rewind() {
    infeed_streams = streams;
    std::fill(infeed_next.begin(), infeed_next.end(), 0);
  }
};

// Device d > 0 draws from its own stream; device 0 from SEED itself, so a
// one-device module sees what it always saw.
uint64_t DeviceSeed(uint64_t seed, int64_t device) {
  return seed + static_cast<uint64_t>(device) * 0x9e3779b97f4a7c15ull;
}

absl::StatusOr<Inputs> RandomInputs(const std::string& spec, int64_t devices,
                                    const std::vector<std::pair<std::string, Shape>>& leaves,
                                    bool* usage) {
  uint64_t seed = 0;
  if (spec != "random" && !absl::SimpleAtoi(spec.substr(7), &seed)) {
    *usage = true;
    return absl::InvalidArgumentError(absl::StrCat(
        "--inputs=random:SEED needs an unsigned integer seed, not '", spec.substr(7), "'"));
  }
  Inputs inputs;
  inputs.leaves.resize(devices);
  for (int64_t d = 0; d < devices; ++d) {
    std::mt19937_64 rng(DeviceSeed(seed, d));
    for (const auto& [path, shape] : leaves) {
      absl::StatusOr<LogicalArray> a = runtime::RandomLogicalArray(shape, rng);
      if (!a.ok()) return a.status();
      inputs.leaves[d].push_back(*std::move(a));
    }
    inputs.streams.push_back(rng);
  }
  return inputs;
}

// --inputs=snapshot: the arguments of the HloSnapshot FILE is, shared by
// every device.
absl::StatusOr<Inputs> SnapshotInputs(const std::vector<Shape>& parameters, int64_t devices,
                                      const xla::HloSnapshot* snapshot, bool* usage) {
  if (snapshot == nullptr) {
    *usage = true;
    return absl::InvalidArgumentError("--inputs=snapshot needs FILE to be an HloSnapshot");
  }
  if (snapshot->arguments_size() != static_cast<int>(parameters.size())) {
    return absl::InvalidArgumentError(absl::StrCat("the snapshot holds ",
                                                   snapshot->arguments_size(),
                                                   " arguments; the entry takes ",
                                                   parameters.size()));
  }
  Inputs inputs;
  inputs.leaves.resize(devices);
  for (size_t p = 0; p < parameters.size(); ++p) {
    absl::StatusOr<std::vector<LogicalArray>> leaves = LeavesOfLiteral(
        snapshot->arguments(static_cast<int>(p)), parameters[p], absl::StrCat("argument ", p));
    if (!leaves.ok()) return leaves.status();
    for (LogicalArray& a : *leaves) inputs.leaves[0].push_back(std::move(a));
  }
  for (int64_t d = 1; d < devices; ++d) inputs.leaves[d] = inputs.leaves[0];
  for (int64_t d = 0; d < devices; ++d) inputs.streams.emplace_back(DeviceSeed(0, d));
  return inputs;
}

// --inputs=random:SEED (the default, seed 0) or --inputs=a.npy,b.npy,...:
// one file per array leaf, shared by every device, then the infeeds'; or
// one per leaf and device (device 0's first); or --inputs=snapshot.
absl::StatusOr<Inputs> MakeInputs(const Args& args, const std::vector<Shape>& parameters,
                                  int64_t devices, bool* usage,
                                  const xla::HloSnapshot* snapshot) {
  std::vector<std::pair<std::string, Shape>> leaves;
  for (size_t p = 0; p < parameters.size(); ++p) Leaves(parameters[p], absl::StrCat(p), leaves);
  const std::string spec = args.Value("inputs").value_or("random:0");
  if (absl::StartsWith(spec, "random:") || spec == "random") {
    return RandomInputs(spec, devices, leaves, usage);
  }
  if (spec == "snapshot") return SnapshotInputs(parameters, devices, snapshot, usage);
  std::vector<std::string> files = absl::StrSplit(spec, ',', absl::SkipEmpty());
  const size_t n = leaves.size();
  if (files.size() < n) {
    *usage = true;
    return absl::InvalidArgumentError(absl::StrCat(
        "--inputs names ", files.size(), " files but the entry takes ", n,
        " arrays (one .npy per parameter, tuple parameters leaf by leaf",
        devices > 1 ? absl::StrCat("; or ", n * devices, " for ", devices, " devices") : "",
        "; then the infeeds' data)"));
  }
  const bool per_device = devices > 1 && n > 0 && files.size() == n * devices;
  const size_t parameter_files = per_device ? n * devices : n;
  Inputs inputs;
  inputs.leaves.resize(devices);
  for (size_t k = 0; k < parameter_files; ++k) {
    absl::StatusOr<std::string> bytes = ReadFileBounded(files[k], "input");
    if (!bytes.ok()) return bytes.status();
    absl::StatusOr<LogicalArray> a = runtime::DecodeNpy(*bytes, leaves[k % n].second, files[k]);
    if (!a.ok()) return a.status();
    inputs.leaves[k / n].push_back(*std::move(a));
  }
  if (!per_device) {
    for (int64_t d = 1; d < devices; ++d) inputs.leaves[d] = inputs.leaves[0];
  }
  inputs.infeed_files.assign(files.begin() + parameter_files, files.end());
  return inputs;
}

// The executor's infeed source over `*inputs` (filled in once the executor
// has checked the module's size). Each device has its own stream or cursor,
// so devices on threads never share one.
std::function<absl::StatusOr<LogicalArray>(int64_t, const Shape&)> InfeedFrom(
    std::shared_ptr<Inputs> inputs) {
  return [inputs](int64_t device, const Shape& shape) -> absl::StatusOr<LogicalArray> {
    if (!inputs->infeed_streams.empty()) {
      return runtime::RandomLogicalArray(shape, inputs->infeed_streams[device]);
    }
    size_t& next = inputs->infeed_next[device];
    if (next >= inputs->infeed_files.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "infeed ", next, " has no data: --inputs names ", inputs->infeed_files.size(),
          " files after the parameters'"));
    }
    const std::string& file = inputs->infeed_files[next++];
    absl::StatusOr<std::string> bytes = ReadFileBounded(file, "infeed input");
    if (!bytes.ok()) return bytes.status();
    return runtime::DecodeNpy(*bytes, shape, file);
  };
}

absl::StatusOr<int64_t> PositiveFlag(const Args& args, const std::string& flag,
                                     absl::string_view what) {
  int64_t v;
  if (!absl::SimpleAtoi(args.Value(flag).value_or(""), &v) || v <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("--", flag, " needs a positive ", what));
  }
  return v;
}

absl::StatusOr<ExecutorOptions> OptionsFrom(const Args& args) {
  ExecutorOptions options;
  struct Flag {
    const char* name;
    const char* what;
    int64_t* field;
  };
  for (const Flag& f : {Flag{"max-memory", "number of bytes", &options.max_bytes},
                        Flag{"max-work", "number of steps", &options.max_work},
                        Flag{"replicas", "number of replicas", &options.replicas},
                        Flag{"partitions", "number of partitions", &options.partitions}}) {
    if (!args.Has(f.name)) continue;
    absl::StatusOr<int64_t> v = PositiveFlag(args, f.name, f.what);
    if (!v.ok()) return v.status();
    *f.field = *v;
  }
  // rng draws from the inputs' seed, so --inputs=random:SEED decides it too.
  const std::string spec = args.Value("inputs").value_or("random:0");
  if (absl::StartsWith(spec, "random:")) {
    (void)absl::SimpleAtoi(spec.substr(7), &options.rng_seed);
  }
  return options;
}

struct Outcome {
  std::vector<std::pair<std::string, Shape>> leaves;  // paths of the outputs
  std::vector<std::vector<LogicalArray>> outputs;     // by device; outfeeds last
  runtime::ExecutionStats stats;
  // Custom-call targets that ran as stand-ins, with how many calls each.
  std::map<std::string, int64_t> stand_in_targets;
};

// Loads `module` for running, strict about layouts or not.
absl::StatusOr<std::unique_ptr<runtime::Executor>> Load(const HloModule& module,
                                                        ExecutorOptions options, bool strict) {
  options.strict_layouts = strict;
  return runtime::Executor::Create(module, options);
}

// Runs a loaded module on `inputs`; errors are bad input (exit 1).
// What the outfeeds sent is compared and written like more outputs, after
// the result's, named "outfeed K".
absl::StatusOr<Outcome> Execute(const HloModule& module, runtime::Executor& executor,
                                Inputs& inputs) {
  inputs.Rewind();
  Outcome out;
  absl::StatusOr<std::vector<std::vector<LogicalArray>>> outputs =
      runtime::RunLogicalOnDevices(executor, inputs.leaves);
  if (!outputs.ok()) return outputs.status();
  out.outputs = *std::move(outputs);
  out.stats = executor.stats();
  for (const HloInstruction* call : executor.StandInCalls()) {
    ++out.stand_in_targets[runtime::CustomCallTarget(*call)];
  }
  Leaves(module.entry()->root()->shape(), "", out.leaves);
  const size_t results = out.leaves.size();
  for (size_t d = 0; d < out.outputs.size(); ++d) {
    for (const LogicalArray& a : executor.outfeeds()[d]) {
      const size_t k = out.outputs[d].size() - results;
      if (k >= out.leaves.size() - results) {
        out.leaves.push_back({absl::StrCat("outfeed ", k), a.shape});
      }
      out.outputs[d].push_back(a);
    }
  }
  return out;
}

// "output", "output 1_0"; with several devices "device 3 output".
std::string OutputName(const std::string& path, int64_t device, int64_t devices) {
  const std::string prefix = devices > 1 ? absl::StrCat("device ", device, " ") : "";
  if (absl::StartsWith(path, "outfeed ")) return absl::StrCat(prefix, path);
  return absl::StrCat(prefix, path.empty() ? "output" : absl::StrCat("output ", path));
}

// output.npy, output_1_0.npy; with several devices output_dev3.npy,
// output_dev3_1_0.npy.
std::string OutputFile(const std::string& path, int64_t device, int64_t devices) {
  if (absl::StartsWith(path, "outfeed ")) {
    return absl::StrCat("outfeed_", devices > 1 ? absl::StrCat("dev", device, "_") : "",
                        path.substr(8), ".npy");
  }
  std::string name = devices > 1 ? absl::StrCat("output_dev", device) : "output";
  if (!path.empty()) absl::StrAppend(&name, "_", path);
  return absl::StrCat(name, ".npy");
}

// Which custom calls ran as stand-ins: "AwsNeuronGelu x11, ...".
std::string StandIns(const Outcome& outcome) {
  if (outcome.stats.stand_in_calls == 0) return "";
  std::vector<std::string> targets;
  for (const auto& [target, calls] : outcome.stand_in_targets) {
    targets.push_back(absl::StrCat(target, " x", calls));
  }
  return absl::StrCat("custom calls run as stand-ins (results a function of their operands, "
                      "not the vendor kernel's): ",
                      absl::StrJoin(targets, ", "), "; ", outcome.stats.stand_in_calls,
                      " runs\n");
}

std::string IndexText(const Shape& shape, int64_t k) {
  std::vector<int64_t> index(shape.rank());
  for (int d = shape.rank() - 1; d >= 0; --d) {
    index[d] = k % shape.dimensions(d);
    k /= shape.dimensions(d);
  }
  return absl::StrCat("[", absl::StrJoin(index, ","), "]");
}


// The entry's parameter shapes; an error when their numbers have a gap.
absl::StatusOr<std::vector<Shape>> ParameterShapes(const HloModule& module) {
  std::vector<Shape> parameters;
  for (const HloInstruction* p : module.entry()->parameters()) {
    if (p == nullptr) return absl::InvalidArgumentError("the entry's parameter numbers have a gap");
    parameters.push_back(p->shape());
  }
  return parameters;
}

// Prints every output (and writes it under `dir`).
// What `run --stats` prints on stderr: the copies and the relayout plans
// they ran, with the share of plan lookups that found the plan built.
std::string RunStats(const runtime::ExecutionStats& stats) {
  const double hit_rate = stats.plan_lookups > 0 ? 100.0 * static_cast<double>(stats.plan_hits) /
                                                       static_cast<double>(stats.plan_lookups)
                                                 : 0.0;
  return absl::StrFormat(
      "copies executed: %d, bytes moved: %d, copy time: %.6f s\n"
      "relayout plans: %d built, %d lookups, %d hits (%.1f%% hit rate)\n",
      stats.copies, stats.copy_bytes, stats.copy_seconds, stats.plans_built, stats.plan_lookups,
      stats.plan_hits, hit_rate);
}

int PrintOutputs(const Outcome& outcome, const std::optional<std::string>& dir) {
  const int64_t devices = static_cast<int64_t>(outcome.outputs.size());
  for (int64_t d = 0; d < devices; ++d) {
    for (size_t k = 0; k < outcome.outputs[d].size(); ++k) {
      const std::string& path = outcome.leaves[k].first;
      std::cout << OutputName(path, d, devices) << ": "
                << runtime::DescribeArray(outcome.outputs[d][k]) << "\n";
      if (!dir) continue;
      absl::Status s = WriteFileSafely(absl::StrCat(*dir, "/", OutputFile(path, d, devices)),
                                       runtime::EncodeNpy(outcome.outputs[d][k]));
      if (!s.ok()) return InputError(s.message());
    }
  }
  std::cout << "copies executed: " << outcome.stats.copies
            << ", bytes moved: " << outcome.stats.copy_bytes << "\n"
            << StandIns(outcome);
  return kExitOk;
}

// The first difference between the two runs' outputs, as verify prints it,
// or "" when every device's outputs agree bit for bit.
std::string FirstMismatch(const Outcome& a, const Outcome& b) {
  if (a.outputs.size() != b.outputs.size()) {
    return absl::StrCat("MISMATCH: the original runs on ", a.outputs.size(),
                        " devices, the rewritten module on ", b.outputs.size(), "\n");
  }
  const int64_t devices = static_cast<int64_t>(a.outputs.size());
  for (int64_t d = 0; d < devices; ++d) {
    if (a.outputs[d].size() != b.outputs[d].size()) {
      return absl::StrCat("MISMATCH: the original has ", a.outputs[d].size(),
                          " outputs, the rewritten module ", b.outputs[d].size(), "\n");
    }
    for (size_t k = 0; k < a.outputs[d].size(); ++k) {
      const LogicalArray& x = a.outputs[d][k];
      const LogicalArray& y = b.outputs[d][k];
      std::optional<int64_t> diff = runtime::FirstDifference(x, y);
      if (!diff) continue;
      const std::string name = OutputName(a.leaves[k].first, d, devices);
      if (!Shape::Equal().IgnoreLayout()(x.shape, y.shape)) {
        return absl::StrCat("MISMATCH: ", name, " is ", x.shape.ToString(),
                            " in the original and ", y.shape.ToString(),
                            " in the rewritten module\n");
      }
      return absl::StrCat("MISMATCH: ", name, " element ", IndexText(x.shape, *diff),
                          ": original ", runtime::FormatElement(x, *diff, true), ", rewritten ",
                          runtime::FormatElement(y, *diff, true), "\n");
    }
  }
  return "";
}

// The original and the module to compare with it (after the pipeline, or
// --against), read and verified; errors are printed.
struct ModulePair {
  std::unique_ptr<HloModule> before, after;
  std::optional<xla::HloSnapshot> snapshot;  // FILE's, when it is one
};

absl::StatusOr<ModulePair> ReadModulePair(const Args& args, int* exit_code) {
  absl::StatusOr<ModuleReadOptions> read = ModuleReadOptionsFrom(args);
  if (!read.ok()) {
    *exit_code = UsageError(read.status().message());
    return read.status();
  }
  for (const auto& [flag, value] : args.flags) {
    if (flag != "load-pass-plugin") continue;
    if (!value || value->empty()) {
      *exit_code = UsageError("--load-pass-plugin needs a file");
      return absl::InvalidArgumentError("usage");
    }
    absl::Status loaded = LoadPassPlugin(*value);
    if (!loaded.ok()) {
      *exit_code = InputError(loaded.message());
      return loaded;
    }
  }
  CommandError error;
  absl::StatusOr<std::optional<PassPipeline>> pipeline = PipelineFromArgs(args, &error);
  const std::string& path = args.positional[0];
  if (pipeline.ok() && path == "-" && !args.Has("against")) {
    *exit_code = UsageError("verify --passes reads FILE twice; give a file, not -");
    return absl::InvalidArgumentError("usage");
  }
  ModulePair pair;
  absl::StatusOr<std::unique_ptr<HloModule>> before =
      pipeline.ok() ? ReadVerifiedModule(path, *read, &error, &pair.snapshot) : pipeline.status();
  absl::StatusOr<std::unique_ptr<HloModule>> after =
      before.ok() ? ReadVerifiedModule(
                        args.Has("against") ? args.Value("against").value_or("") : path, *read,
                        &error)
                  : before.status();
  if (!after.ok()) {
    std::cerr << error.message;
    *exit_code = error.exit_code;
    return after.status();
  }
  if (*pipeline) {
    absl::StatusOr<bool> ran = (*pipeline)->Run(**after);
    if (!ran.ok()) {
      *exit_code = InputError(absl::StrCat(path, ": ", ran.status().message()));
      return ran.status();
    }
  }
  pair.before = *std::move(before);
  pair.after = *std::move(after);
  return pair;
}

// The HloSnapshot of a run: the module, the arguments it ran on (device
// 0's) and its result, to `out_path` or standard output.
absl::Status WriteSnapshot(const HloModule& module, const std::vector<Shape>& parameters,
                           const Inputs& inputs, const Outcome& outcome,
                           const std::optional<std::string>& out_path) {
  xla::HloSnapshot snapshot;
  std::vector<std::string> warnings;
  absl::StatusOr<xla::HloModuleProto> proto = HloModuleToProto(module, &warnings);
  if (!proto.ok()) return proto.status();
  for (const std::string& w : warnings) {
    std::cerr << out_path.value_or("<stdout>") << ": warning: " << w << "\n";
  }
  *snapshot.mutable_hlo()->mutable_hlo_module() = *std::move(proto);
  size_t next = 0;
  for (const Shape& p : parameters) {
    absl::StatusOr<xla::LiteralProto> a = LiteralOfLeaves(p, inputs.leaves[0], &next);
    if (!a.ok()) return a.status();
    *snapshot.add_arguments() = *std::move(a);
  }
  next = 0;
  absl::StatusOr<xla::LiteralProto> result =
      LiteralOfLeaves(module.entry()->root()->shape(), outcome.outputs[0], &next);
  if (!result.ok()) return result.status();
  *snapshot.mutable_result() = *std::move(result);
  snapshot.set_execution_platform("hlo-layout run");
  const std::string bytes = EncodeProto(snapshot, /*text_format=*/false);
  if (out_path) return WriteFileSafely(*out_path, bytes);
  std::cout << bytes << std::flush;
  return absl::OkStatus();
}

// --output-format: snapshot (or nothing) for run.
absl::StatusOr<bool> WantsSnapshot(const Args& args, const std::optional<std::string>& out_path) {
  const bool snapshot = args.Value("output-format").value_or("") == "snapshot";
  if (args.Has("output-format") && !snapshot) {
    return absl::InvalidArgumentError("run writes --output-format=snapshot only");
  }
  if (out_path && !snapshot) {
    return absl::InvalidArgumentError("run -o OUT writes a snapshot: add --output-format=snapshot");
  }
  return snapshot;
}

// FILE (the first positional argument) read, verified and loaded for
// running, not strict about layouts: a module nobody laid out may disagree
// with itself at calls and loops. The infeeds read `data`, which the caller
// fills. An exit code on an error, which is printed.
struct LoadedFile {
  std::unique_ptr<HloModule> module;
  std::vector<Shape> parameters;
  std::shared_ptr<Inputs> data = std::make_shared<Inputs>();
  std::unique_ptr<runtime::Executor> executor;
};
std::optional<int> LoadFile(const Args& args, ExecutorOptions options, LoadedFile& out,
                            std::optional<xla::HloSnapshot>* snapshot) {
  absl::StatusOr<ModuleReadOptions> read = ModuleReadOptionsFrom(args);
  if (!read.ok()) return UsageError(read.status().message());
  CommandError error;
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ReadVerifiedModule(args.positional[0], *read, &error, snapshot);
  if (!module.ok()) {
    std::cerr << error.message;
    return error.exit_code;
  }
  out.module = *std::move(module);
  absl::StatusOr<std::vector<Shape>> parameters = ParameterShapes(*out.module);
  if (!parameters.ok()) return InputError(parameters.status().message());
  out.parameters = *std::move(parameters);
  options.infeed = InfeedFrom(out.data);
  absl::StatusOr<std::unique_ptr<runtime::Executor>> executor =
      Load(*out.module, options, /*strict=*/false);
  if (!executor.ok()) return InputError(executor.status().message());
  out.executor = *std::move(executor);
  return std::nullopt;
}

// --against=OTHER when OTHER is an HloSnapshot with a recorded result (a
// proto by its extension); nullopt otherwise, and for files that do not
// decode (the module reader says why).
std::optional<xla::HloSnapshot> RecordedSnapshot(const std::string& path) {
  if (HloFileFormatOfPath(path) == HloFileFormat::kText) return std::nullopt;
  absl::StatusOr<std::string> bytes = ReadFileBounded(path, "HLO file");
  if (!bytes.ok()) return std::nullopt;
  absl::StatusOr<ModuleProtoFile> file =
      DecodeModuleProto(*bytes, HloFileFormatOfPath(path) == HloFileFormat::kProtoText);
  if (!file.ok() || !file->snapshot || !file->snapshot->has_result()) return std::nullopt;
  return file->snapshot;
}

// verify FILE --against=SNAPSHOT: FILE runs on the snapshot's arguments and
// its outputs are compared bit for bit with the result the snapshot
// recorded (the "original" of the messages).
int VerifyAgainstSnapshot(const Args& args, const xla::HloSnapshot& recorded) {
  if (args.Value("inputs").value_or("snapshot") != "snapshot") {
    return UsageError("--against a snapshot runs on its arguments; --inputs cannot change them");
  }
  absl::StatusOr<ExecutorOptions> options = OptionsFrom(args);
  if (!options.ok()) return UsageError(options.status().message());
  LoadedFile file;
  if (std::optional<int> exit = LoadFile(args, *options, file, nullptr)) return *exit;
  if (file.executor->grid().device_count() != 1) {
    return InputError("a snapshot records one device's result; the module runs on several");
  }
  bool usage = false;
  absl::StatusOr<Inputs> inputs = SnapshotInputs(file.parameters, 1, &recorded, &usage);
  if (!inputs.ok()) return InputError(inputs.status().message());
  *file.data = *std::move(inputs);
  absl::StatusOr<Outcome> ran = Execute(*file.module, *file.executor, *file.data);
  if (!ran.ok()) return InputError(ran.status().message());
  Outcome expected = *ran;
  absl::StatusOr<std::vector<LogicalArray>> result =
      LeavesOfLiteral(recorded.result(), file.module->entry()->root()->shape(), "result");
  if (!result.ok()) return InputError(result.status().message());
  expected.outputs = {*std::move(result)};
  ran->outputs[0].resize(expected.outputs[0].size());  // outfeeds are not recorded
  const std::string mismatch = FirstMismatch(expected, *ran);
  if (!mismatch.empty()) {
    std::cout << mismatch;
    return kExitBadInput;
  }
  const size_t outputs = expected.outputs[0].size();
  std::cout << "OK: " << outputs << (outputs == 1 ? " output" : " outputs")
            << " bit-identical to the snapshot's recorded result\n"
            << StandIns(*ran);
  return kExitOk;
}

}  // namespace

int RunRunCommand(const Args& args, const std::optional<std::string>& out_path) {
  absl::Status known = args.CheckKnown({"inputs", "output-dir", "max-memory", "max-work",
                                        "replicas", "partitions", "load-pass-plugin", "verbose",
                                        "accept-old-dumps", "stats", "input-format",
                                        "output-format", "help"});
  if (!known.ok()) return UsageError(known.message());
  if (args.positional.size() != 1) return UsageError("run takes one HLO file (or -)");
  absl::StatusOr<bool> snapshot_out = WantsSnapshot(args, out_path);
  if (!snapshot_out.ok()) return UsageError(snapshot_out.status().message());
  // A plugin may bring reference kernels for custom calls.
  for (const auto& [flag, value] : args.flags) {
    if (flag != "load-pass-plugin") continue;
    if (!value || value->empty()) return UsageError("--load-pass-plugin needs a file");
    absl::Status loaded = LoadPassPlugin(*value);
    if (!loaded.ok()) return InputError(loaded.message());
  }
  absl::StatusOr<ExecutorOptions> options = OptionsFrom(args);
  if (!options.ok()) return UsageError(options.status().message());
  std::optional<std::string> dir;
  if (args.Has("output-dir")) {
    dir = args.Value("output-dir");
    if (!dir || dir->empty()) return UsageError("--output-dir needs a folder");
  }
  std::optional<xla::HloSnapshot> snapshot;
  LoadedFile file;
  if (std::optional<int> exit = LoadFile(args, *options, file, &snapshot)) return *exit;
  bool usage = false;
  absl::StatusOr<Inputs> inputs =
      MakeInputs(args, file.parameters, file.executor->grid().device_count(), &usage,
                 snapshot ? &*snapshot : nullptr);
  if (!inputs.ok()) {
    return usage ? UsageError(inputs.status().message()) : InputError(inputs.status().message());
  }
  *file.data = *std::move(inputs);
  absl::StatusOr<Outcome> outcome = Execute(*file.module, *file.executor, *file.data);
  if (!outcome.ok()) return InputError(outcome.status().message());
  if (dir && mkdir(dir->c_str(), 0777) != 0 && errno != EEXIST) {
    return InputError(absl::StrCat("--output-dir: cannot create ", *dir, ": ", std::strerror(errno)));
  }
  if (args.Has("stats")) std::cerr << RunStats(outcome->stats);
  if (*snapshot_out) {
    absl::Status s = WriteSnapshot(*file.module, file.parameters, *file.data, *outcome, out_path);
    return s.ok() ? kExitOk : InputError(s.message());
  }
  return PrintOutputs(*outcome, dir);
}


int RunVerifyCommand(const Args& args) {
  absl::Status known = args.CheckKnown(
      {"passes", "target", "target-file", "against", "inputs", "max-memory", "max-work",
       "replicas", "partitions", "load-pass-plugin", "verbose", "accept-old-dumps",
       "input-format", "help"});
  if (!known.ok()) return UsageError(known.message());
  if (args.positional.size() != 1) return UsageError("verify takes one HLO file (or -)");
  if (args.Has("passes") == args.Has("against")) {
    return UsageError("verify compares FILE with FILE after --passes=..., or with --against=OTHER.hlo; give one");
  }
  if (std::optional<xla::HloSnapshot> recorded =
          RecordedSnapshot(args.Value("against").value_or(""))) {
    return VerifyAgainstSnapshot(args, *recorded);
  }
  absl::StatusOr<ExecutorOptions> options = OptionsFrom(args);
  if (!options.ok()) return UsageError(options.status().message());
  int exit_code = kExitOk;
  absl::StatusOr<ModulePair> modules = ReadModulePair(args, &exit_code);
  if (!modules.ok()) return exit_code;
  absl::StatusOr<std::vector<Shape>> parameters = ParameterShapes(*modules->before);
  if (!parameters.ok()) return InputError(parameters.status().message());
  absl::StatusOr<std::vector<Shape>> other = ParameterShapes(*modules->after);
  bool same = other.ok() && other->size() == parameters->size();
  for (size_t k = 0; same && k < other->size(); ++k) {
    same = Shape::Equal().IgnoreLayout().IgnoreDynamicDimensions()((*parameters)[k], (*other)[k]);
  }
  if (!same) return InputError("the two modules' entries take different parameters (layouts aside)");
  // The original need not be laid out; the rewritten module must be, unless
  // it is another module of the user's (--against).
  auto data = std::make_shared<Inputs>();
  options->infeed = InfeedFrom(data);
  absl::StatusOr<std::unique_ptr<runtime::Executor>> original =
      Load(*modules->before, *options, /*strict=*/false);
  if (!original.ok()) return InputError(absl::StrCat("running the original: ", original.status().message()));
  absl::StatusOr<std::unique_ptr<runtime::Executor>> rewritten =
      Load(*modules->after, *options, /*strict=*/!args.Has("against"));
  if (!rewritten.ok()) {
    return InputError(absl::StrCat("running the rewritten module: ", rewritten.status().message()));
  }
  bool usage = false;
  absl::StatusOr<Inputs> inputs =
      MakeInputs(args, *parameters, (*original)->grid().device_count(), &usage,
                 modules->snapshot ? &*modules->snapshot : nullptr);
  if (!inputs.ok()) {
    return usage ? UsageError(inputs.status().message()) : InputError(inputs.status().message());
  }
  *data = *std::move(inputs);
  absl::StatusOr<Outcome> a = Execute(*modules->before, **original, *data);
  if (!a.ok()) return InputError(absl::StrCat("running the original: ", a.status().message()));
  absl::StatusOr<Outcome> b = Execute(*modules->after, **rewritten, *data);
  if (!b.ok()) return InputError(absl::StrCat("running the rewritten module: ", b.status().message()));
  const std::string mismatch = FirstMismatch(*a, *b);
  if (!mismatch.empty()) {
    std::cout << mismatch;
    return kExitBadInput;
  }
  const size_t devices = a->outputs.size();
  const size_t outputs = a->outputs[0].size();
  std::cout << "OK: " << (devices > 1 ? absl::StrCat(devices, " devices x ") : "") << outputs
            << (outputs == 1 ? " output" : " outputs") << " bit-identical\n"
            << "copies executed: " << b->stats.copies << " (original: " << a->stats.copies
            << "), bytes moved: " << b->stats.copy_bytes << " (original: " << a->stats.copy_bytes
            << ")\n"
            << StandIns(*b);
  return kExitOk;
}

}  // namespace xla_layout::cli
