// Shape text: parsing never crashes; what parses prints, and the printed text
// parses back to an equal shape that prints the same (both syntaxes). A shape
// that parses and validates gets its tiled index math built, and a few
// elements map to slots and back.
#include <cstdint>
#include <string>

#include "tests/fuzz/fuzz_check.h"
#include "xla_layout/shape_text.h"
#include "xla_layout/tiled_layout.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;
  std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<xla_layout::Shape> shape = xla_layout::ParseShape(text);
  if (!shape.ok()) return 0;
  for (xla_layout::ShapeSyntax syntax :
       {xla_layout::ShapeSyntax::kXla, xla_layout::ShapeSyntax::kAngle}) {
    xla_layout::PrintOptions options;
    options.syntax = syntax;
    std::string printed = xla_layout::PrintShape(*shape, options);
    absl::StatusOr<xla_layout::Shape> again = xla_layout::ParseShape(printed);
    FUZZ_CHECK(again.ok(), printed + ": " + std::string(again.status().message()));
    FUZZ_CHECK(xla_layout::PrintShape(*again, options) == printed, printed);
  }
  absl::StatusOr<xla_layout::TiledLayout> tiled = xla_layout::TiledLayout::Create(*shape);
  if (!tiled.ok() || tiled->element_count() == 0) return 0;
  // The first, the last and one middle element go to slots and back.
  for (int64_t linear : {int64_t{0}, tiled->element_count() / 2, tiled->element_count() - 1}) {
    xla_layout::IndexVector index(tiled->rank());
    int64_t rest = linear;
    for (int d = tiled->rank() - 1; d >= 0; --d) {
      int64_t extent = tiled->logical_dims()[d];
      index[d] = rest % extent;
      rest /= extent;
    }
    absl::StatusOr<int64_t> slot = tiled->CheckedLinearIndex(index);
    FUZZ_CHECK(slot.ok(), text);
    std::optional<xla_layout::IndexVector> back = tiled->LogicalIndex(*slot);
    FUZZ_CHECK(back.has_value() && *back == index, text);
  }
  return 0;
}
