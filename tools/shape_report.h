// What `hlo-layout shape` and `hlo-layout index` print: the canonical form,
// the tiled dims, sizes, and the memory map of a 2-D slice.
#ifndef TOOLS_SHAPE_REPORT_H_
#define TOOLS_SHAPE_REPORT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xla_layout/shape_text.h"
#include "xla_layout/tiled_layout.h"

namespace xla_layout::cli {

struct ShapeReportOptions {
  PrintOptions print;
  bool grid = false;
  // Indices of the dims before the last two, for --grid on rank > 2.
  std::vector<int64_t> slice;
  bool json = false;
};

// The report for one shape, as text or as one JSON object. A tuple reports
// its canonical form, then each leaf by its index: an array leaf in full, a
// token or opaque leaf only by name, as having no index map. A shape that is
// itself a token or opaque is an error.
absl::StatusOr<std::string> ShapeReport(const Shape& shape,
                                        const ShapeReportOptions& options);

// Slot of logical element `index` ("17"), or {"slot":17} with json.
absl::StatusOr<std::string> IndexReport(const Shape& shape,
                                        const std::vector<int64_t>& index,
                                        bool json);
// The element in `slot` ("2,3" or "padding").
absl::StatusOr<std::string> SlotReport(const Shape& shape, int64_t slot,
                                       bool json);

}  // namespace xla_layout::cli

#endif  // TOOLS_SHAPE_REPORT_H_
