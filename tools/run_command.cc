#include "tools/run_command.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <memory>
#include <random>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "runtime/executor.h"
#include "runtime/logical.h"
#include "tools/module_args.h"
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
  } else {
    out.push_back({path, shape});
  }
}

struct Inputs {
  std::vector<LogicalArray> leaves;  // every parameter's array leaves, in order
};

// --inputs=random:SEED (the default, seed 0) or --inputs=a.npy,b.npy,...
absl::StatusOr<Inputs> MakeInputs(const Args& args, const std::vector<Shape>& parameters,
                                  bool* usage) {
  std::vector<std::pair<std::string, Shape>> leaves;
  for (size_t p = 0; p < parameters.size(); ++p) Leaves(parameters[p], absl::StrCat(p), leaves);
  const std::string spec = args.Value("inputs").value_or("random:0");
  Inputs inputs;
  if (absl::StartsWith(spec, "random:") || spec == "random") {
    uint64_t seed = 0;
    if (spec != "random" && !absl::SimpleAtoi(spec.substr(7), &seed)) {
      *usage = true;
      return absl::InvalidArgumentError(
          absl::StrCat("--inputs=random:SEED needs an unsigned integer seed, not '", spec.substr(7), "'"));
    }
    std::mt19937_64 rng(seed);
    for (const auto& [path, shape] : leaves) {
      absl::StatusOr<LogicalArray> a = runtime::RandomLogicalArray(shape, rng);
      if (!a.ok()) return a.status();
      inputs.leaves.push_back(*std::move(a));
    }
    return inputs;
  }
  std::vector<std::string> files = absl::StrSplit(spec, ',', absl::SkipEmpty());
  if (files.size() != leaves.size()) {
    *usage = true;
    return absl::InvalidArgumentError(absl::StrCat(
        "--inputs names ", files.size(), " files but the entry takes ", leaves.size(),
        " arrays (one .npy per parameter, tuple parameters leaf by leaf)"));
  }
  for (size_t k = 0; k < files.size(); ++k) {
    absl::StatusOr<std::string> bytes = ReadFileBounded(files[k], "input");
    if (!bytes.ok()) return bytes.status();
    absl::StatusOr<LogicalArray> a = runtime::DecodeNpy(*bytes, leaves[k].second, files[k]);
    if (!a.ok()) return a.status();
    inputs.leaves.push_back(*std::move(a));
  }
  return inputs;
}

absl::StatusOr<ExecutorOptions> OptionsFrom(const Args& args) {
  ExecutorOptions options;
  if (args.Has("max-memory")) {
    int64_t bytes;
    if (!absl::SimpleAtoi(args.Value("max-memory").value_or(""), &bytes) || bytes <= 0) {
      return absl::InvalidArgumentError("--max-memory needs a positive number of bytes");
    }
    options.max_bytes = bytes;
  }
  return options;
}

struct Outcome {
  std::vector<std::pair<std::string, Shape>> leaves;  // paths of the outputs
  std::vector<LogicalArray> outputs;
  runtime::ExecutionStats stats;
};

// Runs `module` on `inputs`; errors are bad input (exit 1).
absl::StatusOr<Outcome> Execute(const HloModule& module, const Inputs& inputs,
                                ExecutorOptions options, bool strict) {
  options.strict_layouts = strict;
  Outcome out;
  absl::StatusOr<std::vector<LogicalArray>> outputs =
      runtime::RunLogical(module, inputs.leaves, options, &out.stats);
  if (!outputs.ok()) return outputs.status();
  out.outputs = *std::move(outputs);
  Leaves(module.entry()->root()->shape(), "", out.leaves);
  return out;
}

std::string OutputName(const std::string& path) {
  return path.empty() ? "output" : absl::StrCat("output ", path);
}

std::string IndexText(const Shape& shape, int64_t k) {
  std::vector<int64_t> index(shape.rank());
  for (int d = shape.rank() - 1; d >= 0; --d) {
    index[d] = k % shape.dimensions(d);
    k /= shape.dimensions(d);
  }
  return absl::StrCat("[", absl::StrJoin(index, ","), "]");
}

}  // namespace

int RunRunCommand(const Args& args) {
  absl::Status known = args.CheckKnown({"inputs", "output-dir", "max-memory", "load-pass-plugin",
                                        "verbose", "accept-old-dumps", "help"});
  if (!known.ok()) return UsageError(known.message());
  if (args.positional.size() != 1) return UsageError("run takes one HLO file (or -)");
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
  absl::StatusOr<ModuleReadOptions> read = ModuleReadOptionsFrom(args);
  if (!read.ok()) return UsageError(read.status().message());
  CommandError error;
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ReadVerifiedModule(args.positional[0], *read, &error);
  if (!module.ok()) {
    std::cerr << error.message;
    return error.exit_code;
  }
  std::vector<Shape> parameters;
  for (const HloInstruction* p : (*module)->entry()->parameters()) {
    if (p == nullptr) return InputError("the entry's parameter numbers have a gap");
    parameters.push_back(p->shape());
  }
  bool usage = false;
  absl::StatusOr<Inputs> inputs = MakeInputs(args, parameters, &usage);
  if (!inputs.ok()) {
    return usage ? UsageError(inputs.status().message()) : InputError(inputs.status().message());
  }
  // A module nobody laid out may disagree with itself at calls and loops.
  absl::StatusOr<Outcome> outcome = Execute(**module, *inputs, *options, /*strict=*/false);
  if (!outcome.ok()) return InputError(outcome.status().message());
  if (dir && mkdir(dir->c_str(), 0777) != 0 && errno != EEXIST) {
    return InputError(absl::StrCat("--output-dir: cannot create ", *dir, ": ", std::strerror(errno)));
  }
  for (size_t k = 0; k < outcome->outputs.size(); ++k) {
    const std::string& path = outcome->leaves[k].first;
    std::cout << OutputName(path) << ": " << runtime::DescribeArray(outcome->outputs[k]) << "\n";
    if (dir) {
      const std::string file =
          absl::StrCat(*dir, "/", path.empty() ? "output" : absl::StrCat("output_", path), ".npy");
      absl::Status s = WriteFileSafely(file, runtime::EncodeNpy(outcome->outputs[k]));
      if (!s.ok()) return InputError(s.message());
    }
  }
  std::cout << "copies executed: " << outcome->stats.copies << ", bytes moved: "
            << outcome->stats.copy_bytes << "\n";
  return kExitOk;
}

int RunVerifyCommand(const Args& args) {
  absl::Status known =
      args.CheckKnown({"passes", "target", "target-file", "against", "inputs", "max-memory",
                       "load-pass-plugin", "verbose", "accept-old-dumps", "help"});
  if (!known.ok()) return UsageError(known.message());
  if (args.positional.size() != 1) return UsageError("verify takes one HLO file (or -)");
  if (args.Has("passes") == args.Has("against")) {
    return UsageError("verify compares FILE with FILE after --passes=..., or with --against=OTHER.hlo; give one");
  }
  absl::StatusOr<ExecutorOptions> options = OptionsFrom(args);
  if (!options.ok()) return UsageError(options.status().message());
  absl::StatusOr<ModuleReadOptions> read = ModuleReadOptionsFrom(args);
  if (!read.ok()) return UsageError(read.status().message());
  for (const auto& [flag, value] : args.flags) {
    if (flag != "load-pass-plugin") continue;
    if (!value || value->empty()) return UsageError("--load-pass-plugin needs a file");
    absl::Status loaded = LoadPassPlugin(*value);
    if (!loaded.ok()) return InputError(loaded.message());
  }
  CommandError error;
  absl::StatusOr<std::optional<PassPipeline>> pipeline = PipelineFromArgs(args, &error);
  if (!pipeline.ok()) {
    std::cerr << error.message;
    return error.exit_code;
  }
  const std::string& path = args.positional[0];
  if (path == "-" && !args.Has("against")) {
    return UsageError("verify --passes reads FILE twice; give a file, not -");
  }
  absl::StatusOr<std::unique_ptr<HloModule>> before = ReadVerifiedModule(path, *read, &error);
  if (!before.ok()) {
    std::cerr << error.message;
    return error.exit_code;
  }
  absl::StatusOr<std::unique_ptr<HloModule>> after =
      ReadVerifiedModule(args.Has("against") ? args.Value("against").value_or("") : path,
                         *read, &error);
  if (!after.ok()) {
    std::cerr << error.message;
    return error.exit_code;
  }
  if (*pipeline) {
    absl::StatusOr<bool> ran = (*pipeline)->Run(**after);
    if (!ran.ok()) {
      return InputError(absl::StrCat(path, ": ", ran.status().message()));
    }
  }
  std::vector<Shape> parameters;
  for (const HloInstruction* p : (*before)->entry()->parameters()) {
    if (p == nullptr) return InputError("the entry's parameter numbers have a gap");
    parameters.push_back(p->shape());
  }
  std::vector<HloInstruction*> other = (*after)->entry()->parameters();
  bool same = other.size() == parameters.size();
  for (size_t k = 0; same && k < other.size(); ++k) {
    same = other[k] != nullptr &&
           Shape::Equal().IgnoreLayout().IgnoreDynamicDimensions()(parameters[k], other[k]->shape());
  }
  if (!same) return InputError("the two modules' entries take different parameters (layouts aside)");
  bool usage = false;
  absl::StatusOr<Inputs> inputs = MakeInputs(args, parameters, &usage);
  if (!inputs.ok()) {
    return usage ? UsageError(inputs.status().message()) : InputError(inputs.status().message());
  }
  // The original need not be laid out; the rewritten module must be, unless
  // it is another module of the user's (--against).
  absl::StatusOr<Outcome> a = Execute(**before, *inputs, *options, /*strict=*/false);
  if (!a.ok()) return InputError(absl::StrCat("running the original: ", a.status().message()));
  absl::StatusOr<Outcome> b = Execute(**after, *inputs, *options, /*strict=*/!args.Has("against"));
  if (!b.ok()) return InputError(absl::StrCat("running the rewritten module: ", b.status().message()));
  if (a->outputs.size() != b->outputs.size()) {
    std::cout << "MISMATCH: the original has " << a->outputs.size()
              << " outputs, the rewritten module " << b->outputs.size() << "\n";
    return kExitBadInput;
  }
  for (size_t k = 0; k < a->outputs.size(); ++k) {
    const LogicalArray& x = a->outputs[k];
    const LogicalArray& y = b->outputs[k];
    std::optional<int64_t> diff = runtime::FirstDifference(x, y);
    if (!diff) continue;
    const std::string name = OutputName(a->leaves[k].first);
    if (!Shape::Equal().IgnoreLayout()(x.shape, y.shape)) {
      std::cout << "MISMATCH: " << name << " is " << x.shape.ToString() << " in the original and "
                << y.shape.ToString() << " in the rewritten module\n";
    } else {
      std::cout << "MISMATCH: " << name << " element " << IndexText(x.shape, *diff)
                << ": original " << runtime::FormatElement(x, *diff, true) << ", rewritten "
                << runtime::FormatElement(y, *diff, true) << "\n";
    }
    return kExitBadInput;
  }
  std::cout << "OK: " << a->outputs.size() << (a->outputs.size() == 1 ? " output" : " outputs")
            << " bit-identical\n"
            << "copies executed: " << b->stats.copies << " (original: " << a->stats.copies
            << "), bytes moved: " << b->stats.copy_bytes << " (original: " << a->stats.copy_bytes
            << ")\n";
  return kExitOk;
}

}  // namespace xla_layout::cli
