#include "tools/cli_util.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace xla_layout::cli {

int UsageError(absl::string_view message) {
  std::cerr << "hlo-layout: error: " << message << "\n"
            << "Run 'hlo-layout --help' for usage.\n";
  return kExitUsage;
}

int InputError(absl::string_view message) {
  std::cerr << "hlo-layout: error: " << message << "\n";
  return kExitBadInput;
}

Args SplitArgs(int argc, char** argv, int first) {
  Args args;
  bool flags_done = false;
  for (int i = first; i < argc; ++i) {
    absl::string_view a = argv[i];
    if (!flags_done && a == "--") {
      flags_done = true;
    } else if (!flags_done && absl::StartsWith(a, "--")) {
      a.remove_prefix(2);
      size_t eq = a.find('=');
      if (eq == absl::string_view::npos) {
        args.flags.emplace_back(std::string(a), std::nullopt);
      } else {
        args.flags.emplace_back(std::string(a.substr(0, eq)),
                                std::string(a.substr(eq + 1)));
      }
    } else {
      args.positional.emplace_back(a);
    }
  }
  return args;
}

absl::Status Args::CheckKnown(
    const std::vector<absl::string_view>& known) const {
  for (const auto& [name, value] : flags) {
    bool ok = false;
    for (absl::string_view k : known) ok |= name == k;
    if (!ok) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown flag --", name, " (see --help)"));
    }
  }
  return absl::OkStatus();
}

bool Args::Has(absl::string_view name) const {
  for (const auto& f : flags) {
    if (f.first == name) return true;
  }
  return false;
}

std::optional<std::string> Args::Value(absl::string_view name) const {
  std::optional<std::string> value;
  for (const auto& f : flags) {
    if (f.first == name) value = f.second;  // The last one wins.
  }
  return value;
}


absl::StatusOr<bool> Args::Bool(absl::string_view name) const {
  if (!Has(name)) return false;
  std::optional<std::string> v = Value(name);
  if (!v || *v == "true") return true;
  if (*v == "false") return false;
  return absl::InvalidArgumentError(absl::StrCat(
      "--", name, " is a switch: give --", name, ", --", name, "=true or --",
      name, "=false, not '", *v, "'"));
}

absl::StatusOr<std::vector<int64_t>> ParseIntList(absl::string_view text) {
  std::vector<int64_t> values;
  if (absl::StripAsciiWhitespace(text).empty()) return values;
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    int64_t v;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(part), &v)) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", part, "' in '", text, "' is not an integer"));
    }
    values.push_back(v);
  }
  return values;
}

int FinishStdout(int exit_code) {
  errno = 0;
  std::cout.flush();
  bool failed = !std::cout.good() || std::fflush(stdout) != 0 || std::ferror(stdout);
  int err = errno;
  if (!failed) return exit_code;
  std::cerr << "hlo-layout: error: cannot write standard output"
            << (err != 0 ? absl::StrCat(": ", std::strerror(err)) : "") << "\n";
  return exit_code == kExitOk ? kExitBadInput : exit_code;
}

}  // namespace xla_layout::cli
