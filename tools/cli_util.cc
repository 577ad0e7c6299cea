#include "tools/cli_util.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include <unistd.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace xla_layout::cli {

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

absl::Status WriteFileAtomically(const std::string& path,
                                 absl::string_view contents) {
  std::string tmp = absl::StrCat(path, ".tmp.", getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot write ", path, ": ", std::strerror(errno)));
    }
    out.write(contents.data(), contents.size());
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      return absl::InternalError(absl::StrCat("writing ", path, " failed"));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    std::remove(tmp.c_str());
    return absl::InternalError(
        absl::StrCat("cannot rename into ", path, ": ", std::strerror(err)));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadFileOrStdin(const std::string& path) {
  std::ostringstream buffer;
  if (path == "-") {
    buffer << std::cin.rdbuf();
    return buffer.str();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
  }
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace xla_layout::cli
