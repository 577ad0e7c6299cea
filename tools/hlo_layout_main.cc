// hlo-layout: XLA array layouts at the terminal. Subcommands:
//   shape SHAPE...      canonical form, tiled dims, sizes, memory map
//   index SHAPE I,J,..  slot of a logical element (or --slot=N: the inverse)
//   relayout SRC DST    run, time and check the packing core
#include <unistd.h>

#include <iostream>
#include <new>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_proto_convert.h"
#include "hlo/hlo_proto_io.h"
#include "hlo/hlo_verifier.h"
#include "hlo/source_text.h"
#include "passes/hlo_pass.h"
#include "google/protobuf/text_format.h"
#include "passes/layout_assignment/target_config.h"
#include "tools/background_writer.h"
#include "tools/calibrate_command.h"
#include "tools/cli_util.h"
#include "tools/explain_command.h"
#include "tools/module_args.h"
#include "tools/process_heap.h"
#include "tools/relayout_command.h"
#include "tools/run_command.h"
#include "tools/shape_report.h"
#include "xla_layout/file_io.h"
#include "xla_layout/shape_text.h"

namespace xla_layout::cli {
namespace {

constexpr char kUsage[] = R"(usage: hlo-layout [FILE|-] [-o OUT] [--passes=a,b] [--load-pass-plugin=LIB.so]
                  [--target=NAME | --target-file=FILE] [--stats[=json]]
                  [--list-passes] [--verify] [--verify-each] [--verbose]
                  [--accept-old-dumps] [--input-format=hlo|pb|pbtxt]
                  [--output-format=hlo|pb|pbtxt] [--syntax=xla|angle]
       hlo-layout <command> [flags] [args]

With a file (or - for standard input; the default) hlo-layout reads an XLA
HLO module, verifies it, runs the passes, and prints it in canonical form.
With no passes it is a canonicalizer.
  -o OUT                Write to OUT (a temporary file renamed into place, so
                        a failure never leaves partial output; a symlink is
                        written through, a device or FIFO in place; '-' is
                        standard output). OUT.pb and OUT.pbtxt get XLA's
                        HloModuleProto, binary or text.
  --input-format=hlo|pb|pbtxt
                        How FILE is written: HLO text, or XLA's protobuf
                        (an HloSnapshot, HloProto or HloModuleProto, tried
                        in that order), binary or text. By default from
                        FILE's extension (.pb, .pbtxt; HLO text otherwise);
                        standard input needs it for a proto. Every command
                        that reads HLO (run, verify, explain) takes it.
  --output-format=hlo|pb|pbtxt
                        Write the module as HLO text or as XLA's
                        HloModuleProto (default: from -o's extension).
  --max-input-bytes=N   Refuse an HLO file or target file larger than N bytes
                        (default 2147483648).
  --passes=a,b{k=v}     Run these registered passes in order, each with its
                        options in braces (MLIR's spelling; --list-passes
                        shows what each pass takes).
  --load-pass-plugin=LIB.so
                        Load a pass plugin (repeatable) before building the
                        pipeline; its passes join the registry, and its
                        custom-call kernels (if any) the executor's (run,
                        verify).
  --target=NAME         Shorthand for the option target=NAME of every pass in
                        the pipeline that takes it (layout-assignment): tpu,
                        cpu-avx2, cpu-avx512, arm64 or default (the default).
  --target-file=FILE    Shorthand for target-file=FILE: a target table of your
                        own (TargetLayoutConfig text proto, see
                        examples/targets/my_target.textproto).
  --stats[=json]        After the module, print on stderr what each pass did
                        (copies by reason, bytes they move, padding, layouts).
  --list-passes         Print every registered pass with its description.
  --verify              Verify only; print nothing on success.
  --verify-each         Run the verifier after every pass (default in debug
                        builds).
  --verbose             Also print warnings: text XLA accepts but reads other
                        than written (an operand's layout that differs from
                        its definition's).
  --accept-old-dumps    Read forms that older XLA versions wrote and today's
                        XLA refuses in text, as XLA reads them from a proto
                        (api_version=API_VERSION_UNSPECIFIED reads as
                        API_VERSION_ORIGINAL), with a warning that counts
                        them. Every command that reads HLO takes it.

Commands:
  shape SHAPE...        Print each shape's canonical form, physical and tiled
                        dims, element count with padding, byte size and
                        padding overhead.
  index SHAPE I,J,...   Print the slot (linear index) of logical element
                        (I,J,...) in SHAPE's layout.
  index SHAPE --slot=N  Print the logical element held in slot N, or
                        "padding".
  relayout SRC DST      Move an array from layout SRC to layout DST with the
                        packing core, in the spirit of oneDNN's benchdnn: the
                        source holds a fixed pattern (the element with
                        row-major index i holds the bits of the unsigned
                        integer i, little-endian, cut to the element width;
                        source padding holds 0xEE), and the tool prints the
                        time per run, GB/s (bytes read plus written, no
                        padding) and the ratios to memcpy of the same bytes
                        and to the ceiling (the better of memcpy and a
                        streaming-store copy), measured in the same run.
  run FILE              Run the module's entry computation on the CPU with
                        every value in its physical layout (copies run on
                        the packing core) and print each output. A
                        custom-call runs the kernel a plugin registered for
                        its target, else a stand-in: values from a hash of
                        the target and the operands' logical values, not the
                        vendor kernel's. rng-bit-generator gives XLA's
                        Philox and Threefry bit streams (rng_default as
                        Philox, as XLA's CPU and GPU do); rng draws from a
                        Philox stream seeded by --inputs=random:SEED, the
                        device, the instruction and its execution count (a
                        stand-in for XLA's per-run seed).
  verify FILE --passes=P | --against=OTHER.hlo
                        Run FILE, and FILE after the pipeline (or OTHER), on
                        the same inputs; compare every output bit for bit.
                        Prints OK, or the first differing element (exit 1).
  explain FILE --passes=P [--json] [--all] [--graph=OUT.dot|OUT.svg|OUT.html]
                        Run the pipeline as above and print, instead of the
                        module, every copy layout-assignment inserted with
                        its chain of reasons (the use that needs another
                        layout, each rule and neighbour that carried it, the
                        root cause), then advice on entry_computation_layout:
                        per pinned parameter or result that causes copies,
                        the layout that would move fewest bytes, measured by
                        running the pipeline again with it (never guessed).
  --all                 (explain) Also name the rule behind every value
                        whose layout is not the target's default.
  --graph=OUT.dot|OUT.svg|OUT.html
                        (explain) Also write the rewritten module as a
                        picture: Graphviz text, an SVG (runs Graphviz's dot)
                        or one HTML page with the table of copies
                        (repeatable: one picture per file).
  --advice-pins=N|all   (explain) Try at most N pinned values for advice,
                        those whose copies move most bytes (default 64; each
                        try runs the pipeline again); the rest are counted.
  calibrate [--target=NAME | --target-file=FILE] [-o OUT] [--repeat=N]
                        Measure the packing core's copy throughput on this
                        machine per kernel class (contiguous, tile,
                        transpose, sub-byte; 32 MiB a side, median of N=5
                        samples, at most 1000; sampling stops after 10 s)
                        and print the target table (default: default) with
                        cost_model.copy_throughput filled in; the
                        measurements go to stderr.

Shapes are written as XLA prints them, f32[3,5]{1,0:T(2,2)}, or in the angle
form F32[3,5]<1,0:T(2,2)>. Quote them for the shell.

Flags:
  --syntax=xla|angle    Output style (default: xla).
  --json                One JSON object per shape, for scripts: canonical,
                        physical_dims, tiled_dims, logical_elements, elements
                        (slots with padding), bytes, padding_percent, and grid
                        when asked. (explain) One object: copies with their
                        chains, and advice.
  --grid                (shape) Draw the memory map of a rank-1 or rank-2
                        shape, or of a 2-D slice over the last two dims.
  --slice=I,...         (shape --grid) Indices of the leading dims of the
                        slice (default: all 0).
  --slot=N              (index) The inverse map: slot to element.
  --threads=N           (relayout) Threads (default: all hardware threads).
  --repeat=N            (relayout) Timed runs after one warm-up (default 10,
                        at most 1000000; timing stops after 10 s).
  --check               (relayout) Verify every element and padding slot of
                        the result against the index math; exit 1 on the first
                        mismatch, naming it.
  --dump=FILE           (relayout) Write the raw destination buffer, padding
                        included (written to a temporary file, then renamed).
  --isa=auto|scalar|avx2|avx512
                        (relayout) Kernel path; XLA_LAYOUT_ISA does the same.
  --explain             (relayout) Print the plan's loop nests.
  --streaming=auto|on|off
                        (relayout) Non-temporal stores; auto uses them when
                        the destination is larger than the cache.
  --inputs=random:SEED | --inputs=a.npy,b.npy,... | --inputs=snapshot
                        (run, verify) Parameter values: seeded random
                        (default random:0; each device its own stream), or
                        one .npy per array parameter (shared by every
                        device, or one set per device, device 0's first),
                        or the arguments of the HloSnapshot FILE is.
  --output-dir=DIR      (run) Write output.npy, or output_0.npy, ... for a
                        tuple result; with several devices output_devD.npy
                        or output_devD_K.npy.
  --stats               (run) Also print on stderr the copies' bytes and time
                        and the relayout plans: built, looked up, and the
                        hit rate of the plans shared by identical copies.
  --against=OTHER.hlo   (verify) Compare with another module taking the same
                        parameters; or, OTHER being an HloSnapshot (.pb,
                        .pbtxt) with a result, run FILE on its arguments
                        and compare with the result it recorded.
  --output-format=snapshot
                        (run, with -o OUT or to standard output) Write an
                        HloSnapshot: the module, the arguments it ran on and
                        its result, instead of printing the outputs.
  --replicas=N, --partitions=N
                        (run, verify) Devices to run on (default: the
                        header's replica_count and num_partitions, else the
                        fewest the collectives' groups allow). Each device
                        runs the entry on its own inputs and they meet at
                        every collective.
  --max-memory=N        (run, verify) Refuse a module whose run (buffers,
                        index tables, inputs, all devices) could need more
                        than N bytes (default 4294967296), before running.
  --max-work=N          (run, verify) Stop a run after N steps (elements
                        written, multiply-adds, loop iterations; all devices
                        and iterations counted; default 8589934592, a
                        minute or so).
  --help                Show this text.

Exit codes: 0 success, 1 bad input (the error names the column), 2 bad usage.

Examples:
  hlo-layout examples/mlp.hlo --passes=layout-assignment --target=cpu-avx2 --stats
  hlo-layout shape 'f32[3,5]{1,0:T(2,2)}'
  hlo-layout shape --grid 'f32[4,8]{1,0:T(2,4)(2,1)}'
  hlo-layout index 'f32[3,5]{1,0:T(2,2)}' 2,3        # prints 17
  hlo-layout relayout 'f32[4096,4096]{1,0}' 'f32[4096,4096]{1,0:T(8,128)}' --check
  hlo-layout verify examples/mlp_row_major.hlo --passes=layout-assignment --target=cpu-avx2
  hlo-layout explain examples/mlp_row_major.hlo --passes=layout-assignment --target=cpu-avx2
)";

absl::StatusOr<PrintOptions> PrintOptionsFrom(const Args& args) {
  PrintOptions options;
  std::optional<std::string> syntax = args.Value("syntax");
  if (!args.Has("syntax")) return options;
  if (syntax == "xla") return options;
  if (syntax == "angle") {
    options.syntax = ShapeSyntax::kAngle;
    return options;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--syntax must be xla or angle, not '",
                   syntax.value_or(""), "'"));
}

// The argument as messages quote it: a 90 KB shape is cut to its start.
std::string Quoted(absl::string_view text) {
  constexpr size_t kMax = 100;
  return absl::StrCat("'", text.substr(0, kMax), text.size() > kMax ? "...'" : "'");
}

absl::StatusOr<Shape> ParseShapeArg(absl::string_view text) {
  absl::StatusOr<Shape> shape = ParseShape(text);
  if (!shape.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("in shape ", Quoted(text), ": ", shape.status().message()));
  }
  return shape;
}

int RunShape(const Args& args) {
  absl::Status known =
      args.CheckKnown({"syntax", "json", "grid", "slice", "help"});
  if (!known.ok()) return UsageError(known.message());
  if (args.positional.empty()) return UsageError("shape needs a SHAPE");
  absl::StatusOr<PrintOptions> print = PrintOptionsFrom(args);
  if (!print.ok()) return UsageError(print.status().message());
  ShapeReportOptions options;
  options.print = *print;
  absl::StatusOr<bool> json = args.Bool("json");
  if (!json.ok()) return UsageError(json.status().message());
  absl::StatusOr<bool> grid = args.Bool("grid");
  if (!grid.ok()) return UsageError(grid.status().message());
  options.json = *json;
  options.grid = *grid;
  if (std::optional<std::string> slice = args.Value("slice")) {
    absl::StatusOr<std::vector<int64_t>> list = ParseIntList(*slice);
    if (!list.ok()) return UsageError(list.status().message());
    options.slice = *list;
  }
  std::string out;
  for (const std::string& text : args.positional) {
    absl::StatusOr<Shape> shape = ParseShapeArg(text);
    if (!shape.ok()) return InputError(shape.status().message());
    absl::StatusOr<std::string> report = ShapeReport(*shape, options);
    if (!report.ok()) {
      return InputError(absl::StrCat("in shape ", Quoted(text), ": ",
                                     report.status().message()));
    }
    if (!out.empty() && !options.json) out += "\n";
    out += *report;
  }
  std::cout << out;
  return kExitOk;
}

int RunIndex(const Args& args) {
  absl::Status known = args.CheckKnown({"json", "slot", "help"});
  if (!known.ok()) return UsageError(known.message());
  absl::StatusOr<bool> json = args.Bool("json");
  if (!json.ok()) return UsageError(json.status().message());
  bool by_slot = args.Has("slot");
  size_t want = by_slot ? 1 : 2;
  if (args.positional.size() != want) {
    return UsageError(by_slot ? "index --slot=N takes one SHAPE"
                              : "index takes a SHAPE and an index I,J,...");
  }
  absl::StatusOr<Shape> shape = ParseShapeArg(args.positional[0]);
  if (!shape.ok()) return InputError(shape.status().message());
  absl::StatusOr<std::string> out;
  if (by_slot) {
    // Like an index, a slot that is not an int64 is bad input (exit 1).
    int64_t slot;
    std::string text = args.Value("slot").value_or("");
    if (!absl::SimpleAtoi(text, &slot)) {
      return InputError(absl::StrCat("--slot: '", text, "' is not an integer in the int64 range"));
    }
    out = SlotReport(*shape, slot, *json);
  } else {
    absl::StatusOr<std::vector<int64_t>> index =
        ParseIntList(args.positional[1]);
    if (!index.ok()) return InputError(index.status().message());
    out = IndexReport(*shape, *index, *json);
  }
  if (!out.ok()) return InputError(out.status().message());
  std::cout << *out;
  return kExitOk;
}

absl::StatusOr<int> PositiveInt(const Args& args, absl::string_view name,
                                int fallback) {
  std::optional<std::string> v = args.Value(name);
  if (!args.Has(name)) return fallback;
  int n;
  if (!v || !absl::SimpleAtoi(*v, &n) || n <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", name, " needs a positive integer"));
  }
  return n;
}

int RunCalibrate(const Args& args) {
  absl::Status known = args.CheckKnown({"target", "target-file", "repeat", "help"});
  if (!known.ok()) return UsageError(known.message());
  std::optional<std::string> out_path;
  const std::vector<std::string>& rest = args.positional;
  if (rest.size() == 2 && rest[0] == "-o") {
    out_path = rest[1];
    if (out_path->empty()) return UsageError("-o needs a file name, not ''");
  } else if (!rest.empty()) {
    return UsageError(rest[0] == "-o" ? "-o needs a file name"
                                      : "calibrate takes no arguments but -o OUT");
  }
  if (args.Has("target") && args.Has("target-file")) {
    return UsageError("give --target or --target-file, not both");
  }
  absl::StatusOr<int> repeat = PositiveInt(args, "repeat", 5);
  if (!repeat.ok()) return UsageError(repeat.status().message());
  if (*repeat > 1000) return UsageError("--repeat is at most 1000 for calibrate");
  absl::StatusOr<TargetConfig> target =
      args.Has("target-file")
          ? TargetConfig::FromFile(args.Value("target-file").value_or(""))
          : TargetConfig::Builtin(args.Value("target").value_or("default"));
  if (!target.ok()) {
    return args.Has("target-file") ? InputError(target.status().message())
                                   : UsageError(target.status().message());
  }
  CalibrateOptions options;
  options.repeat = *repeat;
  options.conv.repeat = *repeat;
  absl::StatusOr<CalibrateResult> result = RunCalibrate(target->proto(), options);
  if (!result.ok()) return InputError(result.status().message());
  std::string table;
  google::protobuf::TextFormat::PrintToString(result->table, &table);
  table = absl::StrCat("# Measured by hlo-layout calibrate (copy_throughput: GB/s of bytes\n",
                       "# read plus written, per kernel class of the packing core;\n",
                       "# conv_read_factors: oneDNN convolutions, NCHW against NHWC).\n", table);
  std::cerr << result->report;
  if (out_path && *out_path != "-") {
    absl::Status s = WriteFileSafely(*out_path, table);
    if (!s.ok()) return InputError(s.message());
  } else {
    std::cout << table;
  }
  return kExitOk;
}

int RunRelayout(const Args& args) {
  absl::Status known =
      args.CheckKnown({"threads", "repeat", "check", "json", "dump", "isa",
                       "explain", "streaming", "help"});
  if (!known.ok()) return UsageError(known.message());
  if (args.positional.size() != 2) {
    return UsageError("relayout takes a source and a destination SHAPE");
  }
  RelayoutCommandOptions options;
  absl::StatusOr<int> threads = PositiveInt(args, "threads", 0);
  if (!threads.ok()) return UsageError(threads.status().message());
  absl::StatusOr<int> repeat = PositiveInt(args, "repeat", 10);
  if (!repeat.ok()) return UsageError(repeat.status().message());
  if (*repeat > kMaxRepeat) {
    return UsageError(absl::StrCat("--repeat is at most ", kMaxRepeat,
                                   " (timed runs also stop after ",
                                   options.budget_seconds, " s)"));
  }
  options.threads = *threads;
  options.repeat = *repeat;
  for (auto [name, field] : {std::pair{"check", &options.check},
                             std::pair{"json", &options.json},
                             std::pair{"explain", &options.explain}}) {
    absl::StatusOr<bool> on = args.Bool(name);
    if (!on.ok()) return UsageError(on.status().message());
    *field = *on;
  }
  if (args.Has("dump")) {
    options.dump = args.Value("dump");
    if (!options.dump || options.dump->empty()) {
      return UsageError("--dump needs a file name");
    }
  }
  if (args.Has("isa")) {
    absl::StatusOr<Isa> isa = ParseIsa(args.Value("isa").value_or(""));
    if (!isa.ok()) return UsageError(isa.status().message());
    options.isa = *isa;
  }
  if (args.Has("streaming")) {
    std::string v = args.Value("streaming").value_or("");
    if (v == "auto") {
      options.streaming = RelayoutOptions::Streaming::kAuto;
    } else if (v == "on") {
      options.streaming = RelayoutOptions::Streaming::kOn;
    } else if (v == "off") {
      options.streaming = RelayoutOptions::Streaming::kOff;
    } else {
      return UsageError("--streaming must be auto, on or off");
    }
  }
  absl::StatusOr<Shape> src = ParseShapeArg(args.positional[0]);
  if (!src.ok()) return InputError(src.status().message());
  absl::StatusOr<Shape> dst = ParseShapeArg(args.positional[1]);
  if (!dst.ok()) return InputError(dst.status().message());
  absl::StatusOr<RelayoutCommandResult> result =
      RunRelayoutCommand(*src, *dst, options);
  if (!result.ok()) return InputError(result.status().message());
  std::cout << result->output;
  if (result->check_failed) {
    std::cerr << "hlo-layout: error: check failed\n";
    return kExitBadInput;
  }
  return kExitOk;
}

// The process ends right after the module is written. As clang does by
// default (-disable-free), the module is not torn down instruction by
// instruction: that walk of the whole heap costs tens of milliseconds per
// 100k instructions. A global keeps it reachable, so leak checkers stay
// quiet.
void KeepUntilExit(std::unique_ptr<HloModule> module) {
  static auto* const kept = new std::vector<std::unique_ptr<HloModule>>();
  kept->push_back(std::move(module));
}

// The flags of the module command beyond those ModuleReadOptionsFrom and
// PipelineFromArgs read.
struct ModuleFlags {
  std::optional<std::string> out_path;  // -o; none for standard output
  bool verify_only = false;
  bool verify_each = false;
  bool verbose = false;
  bool list = false;
};

// Takes `-o OUT` out of argv, wherever it stands (`-o -` is standard
// output); the other arguments go to `rest`. An exit code on a usage error.
std::optional<int> TakeOutputFlag(int argc, char** argv, ModuleFlags& flags,
                                  std::vector<char*>& rest) {
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "-o") {
      if (i + 1 >= argc) return UsageError("-o needs a file name");
      flags.out_path = argv[++i];
      if (flags.out_path->empty()) return UsageError("-o needs a file name, not ''");
      if (*flags.out_path == "-") flags.out_path.reset();  // '-o -' is standard output.
    } else {
      rest.push_back(argv[i]);
    }
  }
  return std::nullopt;
}

// Checks the flags, reads the boolean ones and --max-input-bytes, and loads
// the pass plugins, before anything reads the registry. An exit code on an
// error.
std::optional<int> ReadModuleFlags(const Args& args, ModuleFlags& flags) {
  absl::Status known =
      args.CheckKnown({"verify", "verify-each", "syntax", "help", "passes",
                       "load-pass-plugin", "list-passes", "target",
                       "target-file", "stats", "verbose", "accept-old-dumps",
                       "max-input-bytes", "input-format", "output-format"});
  if (!known.ok()) return UsageError(known.message());
  for (auto [name, field] : {std::pair{"verify", &flags.verify_only},
                             std::pair{"verify-each", &flags.verify_each},
                             std::pair{"verbose", &flags.verbose},
                             std::pair{"list-passes", &flags.list}}) {
    absl::StatusOr<bool> on = args.Bool(name);
    if (!on.ok()) return UsageError(on.status().message());
    *field = *on;
  }
  if (args.Has("max-input-bytes")) {
    int64_t cap;
    if (!absl::SimpleAtoi(args.Value("max-input-bytes").value_or(""), &cap) || cap <= 0) {
      return UsageError("--max-input-bytes needs a positive integer");
    }
    SetMaxInputBytes(cap);
  }
  for (const auto& [flag, value] : args.flags) {
    if (flag != "load-pass-plugin") continue;
    if (!value || value->empty()) return UsageError("--load-pass-plugin needs a file");
    absl::Status loaded = LoadPassPlugin(*value);
    if (!loaded.ok()) return InputError(loaded.message());
  }
  return std::nullopt;
}

// --list-passes: every registered pass, its description and its options.
int ListPasses() {
  for (const PassRegistry::Entry& e : PassRegistry::Global().List()) {
    std::vector<std::string> options;
    for (const PassOption& o : e.options) {
      options.push_back(absl::StrCat(o.name, "=", o.metavar));
    }
    std::cout << absl::StrFormat(
        "  %-22s %s%s\n", e.name, e.description,
        options.empty() ? ""
                        : absl::StrCat(" (options: ", absl::StrJoin(options, ", "), ")"));
  }
  return kExitOk;
}

// The pipeline of --passes (none without it), with --stats checked against
// it. An exit code on an error.
std::optional<int> BuildPipeline(const Args& args, std::optional<PassPipeline>& pipeline) {
  CommandError error;
  absl::StatusOr<std::optional<PassPipeline>> built = PipelineFromArgs(args, &error);
  if (!built.ok()) {
    std::cerr << error.message;
    return error.exit_code;
  }
  pipeline = *std::move(built);
  std::optional<std::string> stats = args.Value("stats");
  if (args.Has("stats") && stats && *stats != "json" && *stats != "text") {
    return UsageError("--stats takes no value, 'text' or 'json'");
  }
  if (args.Has("stats") && !pipeline) {
    return UsageError("--stats reports what passes did; add --passes=...");
  }
  return std::nullopt;
}

// Writes `module` as HloModuleProto (text form when `text_format`) to
// `out_path`, or to standard output without one. What the proto cannot
// hold is named on stderr.
int WriteModuleProto(const HloModule& module, bool text_format,
                     const std::optional<std::string>& out_path) {
  std::vector<std::string> warnings;
  absl::StatusOr<xla::HloModuleProto> proto = HloModuleToProto(module, &warnings);
  const std::string display = out_path.value_or("<stdout>");
  for (const std::string& w : warnings) std::cerr << display << ": warning: " << w << "\n";
  if (!proto.ok()) return InputError(proto.status().message());
  const std::string bytes = EncodeProto(*proto, text_format);
  if (out_path) {
    absl::Status s = WriteFileSafely(*out_path, bytes);
    if (!s.ok()) return InputError(s.message());
  } else {
    std::cout << bytes << std::flush;
  }
  return kExitOk;
}

// --output-format, else -o's extension.
absl::StatusOr<HloFileFormat> OutputFormat(const Args& args,
                                           const std::optional<std::string>& out_path) {
  if (args.Has("output-format")) {
    absl::StatusOr<HloFileFormat> f = HloFileFormatFromName(args.Value("output-format").value_or(""));
    if (!f.ok()) return absl::InvalidArgumentError(absl::StrCat("--output-format: ", f.status().message()));
    return *f;
  }
  return out_path ? HloFileFormatOfPath(*out_path) : HloFileFormat::kText;
}

// Prints `module` to `out_path`, or to standard output without one.
int WriteModule(const HloModule& module, const PrintOptions& print,
                const std::optional<std::string>& out_path) {
  // The text goes out in pieces as it is printed: a module of millions of
  // instructions never holds its whole text in memory.
  auto print_to = [&](const ChunkWriter& write) {
    BackgroundWriter writer(write);
    std::string buffer;
    module.Print(&buffer, print, [&](std::string& piece) { writer.Write(piece); });
    writer.Write(buffer);
    return writer.Finish();
  };
  if (out_path) {
    absl::Status s = WriteFileSafely(*out_path, print_to);
    if (!s.ok()) return InputError(s.message());
  } else {
    (void)print_to([](absl::string_view piece) {
      std::cout << piece;
      return absl::OkStatus();
    });
    std::cout << std::flush;
  }
  return kExitOk;
}

int RunModule(int argc, char** argv) {
  KeepFreedMemory();
  std::vector<char*> rest = {argv[0]};
  ModuleFlags flags;
  if (std::optional<int> exit = TakeOutputFlag(argc, argv, flags, rest)) return *exit;
  Args args = SplitArgs(static_cast<int>(rest.size()), rest.data(), 1);
  if (std::optional<int> exit = ReadModuleFlags(args, flags)) return *exit;
  if (flags.list) return ListPasses();
  std::optional<PassPipeline> pipeline;
  if (std::optional<int> exit = BuildPipeline(args, pipeline)) return *exit;
  if (args.positional.size() > 1) {
    return UsageError("give one input file (or - for standard input)");
  }
  absl::StatusOr<PrintOptions> print = PrintOptionsFrom(args);
  if (!print.ok()) return UsageError(print.status().message());
  absl::StatusOr<HloFileFormat> out_format = OutputFormat(args, flags.out_path);
  if (!out_format.ok()) return UsageError(out_format.status().message());
  std::string path = args.positional.empty() ? "-" : args.positional[0];
  const std::string display = path == "-" ? "<stdin>" : path;
  absl::StatusOr<ModuleReadOptions> read = ModuleReadOptionsFrom(args);
  if (!read.ok()) return UsageError(read.status().message());
  CommandError error;
  absl::StatusOr<std::unique_ptr<HloModule>> module = ReadVerifiedModule(path, *read, &error);
  if (!module.ok()) {
    std::cerr << error.message;
    return error.exit_code;
  }
  if (pipeline) {
    PipelineOptions options;
    if (flags.verify_each) options.verify_each = true;
    // Nothing reads the statistics unless they are printed (the census of
    // layout-assignment is more than a quarter of the pass).
    options.collect_stats = args.Has("stats");
    absl::StatusOr<bool> ran = pipeline->Run(**module, options);
    if (!ran.ok()) {
      std::cerr << display << ": error: " << ran.status().message() << "\n";
      return kExitBadInput;
    }
  }
  if (flags.verify_only) return kExitOk;
  int written = *out_format == HloFileFormat::kText
                    ? WriteModule(**module, *print, flags.out_path)
                    : WriteModuleProto(**module, *out_format == HloFileFormat::kProtoText,
                                       flags.out_path);
  if (written != kExitOk) return written;
  if (args.Has("stats") && pipeline) {
    // On stderr, after the module, so the module can be piped on.
    std::optional<std::string> stats = args.Value("stats");
    for (const auto& pass : pipeline->passes()) {
      std::cerr << pass->StatsReport(stats && *stats == "json");
    }
  }
  KeepUntilExit(*std::move(module));
  return kExitOk;
}

int Main(int argc, char** argv) {
  if (argc < 2) return RunModule(argc, argv);
  std::string command = argv[1];
  Args args = SplitArgs(argc, argv, 2);
  if (command == "--help" || command == "-h" || command == "help" ||
      args.Has("help")) {
    std::cout << kUsage;
    return kExitOk;
  }
  if (command == "shape") return RunShape(args);
  if (command == "index") return RunIndex(args);
  if (command == "relayout") return RunRelayout(args);
  if (command == "run") {
    ModuleFlags flags;  // only -o: where --output-format=snapshot writes
    std::vector<char*> rest = {argv[0]};
    if (std::optional<int> exit = TakeOutputFlag(argc, argv, flags, rest)) return *exit;
    return RunRunCommand(SplitArgs(static_cast<int>(rest.size()), rest.data(), 2),
                         flags.out_path);
  }
  if (command == "verify") return RunVerifyCommand(args);
  if (command == "calibrate") return RunCalibrate(args);
  if (command == "explain") return RunExplainCommand(args);
  return RunModule(argc, argv);
}

}  // namespace
}  // namespace xla_layout::cli

// The one place an allocation failure is caught: the library reports sizes
// it can check (input caps, buffer limits) as errors, and anything else that
// runs out of memory (a module too large for the address space) ends here
// with a message instead of an abort.
int main(int argc, char** argv) {
  int code;
  try {
    code = xla_layout::cli::Main(argc, argv);
  } catch (const std::bad_alloc&) {
    code = xla_layout::cli::InputError(
        "out of memory (the input needs more than this process may allocate; "
        "see ulimit -v)");
  }
  return xla_layout::cli::FinishStdout(code);
}
