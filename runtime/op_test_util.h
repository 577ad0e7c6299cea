// What the tests of the executor's op families share: run a module given as
// text (constants only, no parameters) and describe its outputs.
#ifndef RUNTIME_OP_TEST_UTIL_H_
#define RUNTIME_OP_TEST_UTIL_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/hlo_parser.h"
#include "hlo/hlo_verifier.h"
#include "runtime/executor.h"
#include "runtime/logical.h"

namespace xla_layout::runtime {

// Every output of the module `text`, each as DescribeArray writes it,
// joined by " | "; a parse or verifier error as "parse: <message>", an
// executor error as its message. Without `verify` the verifier does not
// run: the executor's own load-time checks must catch what it would.
inline std::string RunModuleText(const std::string& text, bool verify = true) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text, "t.hlo");
  if (!m.ok()) return absl::StrCat("parse: ", m.status().message());
  absl::Status v = verify ? VerifyModule(**m) : absl::OkStatus();
  if (!v.ok()) return absl::StrCat("parse: ", v.message());
  absl::StatusOr<std::vector<LogicalArray>> out = RunLogical(**m, {});
  if (!out.ok()) return std::string(out.status().message());
  std::vector<std::string> parts;
  for (const LogicalArray& a : *out) parts.push_back(DescribeArray(a));
  return absl::StrJoin(parts, " | ");
}

// The outputs of an entry computation whose body is `body`, after the
// computations `computations`.
inline std::string Eval(const std::string& body, const std::string& computations = "",
                        bool verify = true) {
  return RunModuleText(absl::StrCat("HloModule t\n\n", computations, "ENTRY e {\n", body, "}\n"),
                       verify);
}

}  // namespace xla_layout::runtime

#endif  // RUNTIME_OP_TEST_UTIL_H_
