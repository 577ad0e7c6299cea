// The module header's attributes after `HloModule name`:
// entry_computation_layout, input_output_alias and buffer_donor read into
// the module, every one kept as written.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hlo/hlo_attributes.h"
#include "hlo/hlo_parser_internal.h"

namespace xla_layout::hlo_parser_internal {

absl::Status Parser::ParseHeader(HloModule& module) {
  while (Consume(",")) {
    size_t at = (SkipSpace(), pos_);
    absl::StatusOr<std::string> name = ParseName("a header attribute name");
    if (!name.ok()) return name.status();
    absl::Status s = Expect("=", absl::StrCat("after '", *name, "'"));
    if (!s.ok()) return s;
    if (*name == "entry_computation_layout") {
      s = Expect("{", "to open entry_computation_layout");
      if (!s.ok()) return s;
      absl::StatusOr<Shape> params = ParseShapeHere();
      if (!params.ok()) return params.status();
      if (!params->IsTuple()) {
        return ErrorAt(at, "entry_computation_layout needs (parameters)->result");
      }
      s = Expect("->", "in entry_computation_layout");
      if (!s.ok()) return s;
      absl::StatusOr<Shape> result = ParseShapeHere();
      if (!result.ok()) return result.status();
      s = Expect("}", "to close entry_computation_layout");
      if (!s.ok()) return s;
      module.set_entry_computation_layout(
          ComputationLayout{params->tuple_shapes(), *result});
      continue;
    }
    std::string value = ScanValue();
    if (*name == "input_output_alias") {
      absl::StatusOr<std::vector<InputOutputAlias>> aliases = ParseInputOutputAlias(value);
      if (!aliases.ok()) {
        return ErrorAt(at, absl::StrCat("input_output_alias: ", aliases.status().message()));
      }
      module.set_input_output_aliases(*std::move(aliases));
      aliasing_at_ = at;
    } else if (*name == "buffer_donor") {
      absl::StatusOr<std::vector<BufferDonor>> donors = ParseBufferDonor(value);
      if (!donors.ok()) {
        return ErrorAt(at, absl::StrCat("buffer_donor: ", donors.status().message()));
      }
      module.set_buffer_donors(*std::move(donors));
      donors_at_ = at;
    }
    module.mutable_header_attributes().push_back({*name, std::move(value)});
  }
  return absl::OkStatus();
}

}  // namespace xla_layout::hlo_parser_internal
