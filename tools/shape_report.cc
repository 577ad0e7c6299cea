#include "tools/shape_report.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/types/span.h"
#include "xla_layout/json.h"

namespace xla_layout::cli {
namespace {

// Larger slices are not drawn: a terminal cannot show them usefully.
constexpr int64_t kMaxGridSide = 256;

struct Grid {
  int64_t rows = 1, cols = 1;
  int row_dim = -1, col_dim = -1;     // logical dims drawn
  int64_t row_tile = 0, col_tile = 0;  // first-level tile sizes, 0 if none
  std::vector<int64_t> slots;          // rows * cols, row-major
};

absl::StatusOr<Grid> BuildGrid(const TiledLayout& t,
                               const std::vector<int64_t>& slice) {
  Grid g;
  int rank = t.rank();
  if (rank == 0) {
    return absl::InvalidArgumentError("--grid needs an array of rank >= 1");
  }
  int lead = std::max(0, rank - 2);
  if (!slice.empty() && static_cast<int>(slice.size()) != lead) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--slice needs ", lead, " indices (one per dim before the last two)"));
  }
  IndexVector index(rank, 0);
  for (int i = 0; i < static_cast<int>(slice.size()); ++i) {
    if (slice[i] < 0 || slice[i] >= t.logical_dims()[i]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--slice index ", slice[i], " is out of range for dim ", i));
    }
    index[i] = slice[i];
  }
  g.col_dim = rank - 1;
  g.cols = t.logical_dims()[rank - 1];
  if (rank >= 2) {
    g.row_dim = rank - 2;
    g.rows = t.logical_dims()[rank - 2];
  }
  if (g.rows > kMaxGridSide || g.cols > kMaxGridSide) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the slice is ", g.rows, "x", g.cols, "; --grid draws at most ",
        kMaxGridSide, "x", kMaxGridSide));
  }
  // Tile boundaries of the first level, where its minor entries fall on the
  // drawn dims.
  const Layout& layout = t.shape().layout();
  if (!layout.tiles().empty()) {
    const Tile& tile = layout.tiles()[0];
    absl::Span<const int64_t> m2m = layout.minor_to_major();
    auto tile_of = [&](int dim) -> int64_t {
      for (int k = 0; k < tile.rank() && k < rank; ++k) {
        int64_t size = tile.dimension(tile.rank() - 1 - k);
        if (m2m[k] == dim) return size == kCombineDimension ? 0 : size;
      }
      return 0;
    };
    g.col_tile = tile_of(g.col_dim);
    if (g.row_dim >= 0) g.row_tile = tile_of(g.row_dim);
  }
  for (int64_t r = 0; r < g.rows; ++r) {
    for (int64_t c = 0; c < g.cols; ++c) {
      if (g.row_dim >= 0) index[g.row_dim] = r;
      index[g.col_dim] = c;
      g.slots.push_back(t.LinearIndex(index));
    }
  }
  return g;
}

std::string DrawGrid(const TiledLayout& t, const Grid& g) {
  int64_t widest = t.slot_count() > 0 ? t.slot_count() - 1 : 0;
  int width = static_cast<int>(absl::StrCat(widest).size());
  std::string out = absl::StrFormat(
      "memory map: slot of each element (rows: dim %s, columns: dim %d)\n",
      g.row_dim >= 0 ? absl::StrCat(g.row_dim) : std::string("-"), g.col_dim);
  for (int64_t r = 0; r < g.rows; ++r) {
    if (r > 0 && g.row_tile > 0 && r % g.row_tile == 0) {
      std::string rule;
      for (int64_t c = 0; c < g.cols; ++c) {
        if (c > 0 && g.col_tile > 0 && c % g.col_tile == 0) rule += "-+";
        rule += std::string(width + 1, '-');
      }
      absl::StrAppend(&out, std::string(5, ' '), rule, "\n");
    }
    absl::StrAppend(&out, absl::StrFormat("%-5s", absl::StrCat("r", r, ":")));
    for (int64_t c = 0; c < g.cols; ++c) {
      if (c > 0 && g.col_tile > 0 && c % g.col_tile == 0) out += " |";
      absl::StrAppend(&out, absl::StrFormat(" %*d", width, g.slots[r * g.cols + c]));
    }
    out += "\n";
  }
  // The buffer in memory order, for arrays small enough to show whole.
  if (t.rank() <= 2 && t.slot_count() <= kMaxGridSide * kMaxGridSide / 4) {
    // A row holds whole minor tiled dims, up to 16 slots.
    int64_t row = 1;
    for (int i = static_cast<int>(t.tiled_dims().size()) - 1; i >= 0; --i) {
      if (row * t.tiled_dims()[i] > 16) break;
      row *= t.tiled_dims()[i];
    }
    absl::StrAppend(&out,
                    "buffer: element in each slot, '.' = padding\n");
    for (int64_t s = 0; s < t.slot_count(); ++s) {
      if (s % row == 0) {
        absl::StrAppend(&out, s > 0 ? "\n" : "",
                        absl::StrFormat("%*d:", width, s));
      }
      std::optional<IndexVector> e = t.LogicalIndex(s);
      std::string cell = e ? absl::StrJoin(*e, ",") : ".";
      absl::StrAppend(&out, absl::StrFormat(" %*s", 2 * t.rank() + 1, cell));
    }
    out += "\n";
  }
  return out;
}

std::string JsonIntList(absl::Span<const int64_t> v) {
  return absl::StrCat("[", absl::StrJoin(v, ","), "]");
}

OrderedJson IntArray(absl::Span<const int64_t> v) {
  return OrderedJson(std::vector<int64_t>(v.begin(), v.end()));
}

// A report as the options ask for it: text, or a JSON object, printed by
// ShapeReport (a tuple's object holds its leaves' objects).
struct Report {
  std::string text;
  OrderedJson json;
};
Report AsText(std::string text) { return {std::move(text), nullptr}; }
Report AsJson(OrderedJson json) { return {"", std::move(json)}; }

absl::StatusOr<Report> AnyReport(const Shape& shape, const ShapeReportOptions& options);

}  // namespace

namespace {

// The leaves of a tuple with their indices, in order.
void CollectLeaves(const Shape& shape, std::vector<int64_t>& index,
                   std::vector<std::pair<std::vector<int64_t>, const Shape*>>& out) {
  if (!shape.IsTuple()) {
    out.push_back({index, &shape});
    return;
  }
  for (size_t k = 0; k < shape.tuple_shapes().size(); ++k) {
    index.push_back(static_cast<int64_t>(k));
    CollectLeaves(shape.tuple_shapes()[k], index, out);
    index.pop_back();
  }
}

// A token or opaque leaf: it holds no elements, so it has no index map to
// report, but the array leaves around it still do.
Report NonArrayLeaf(const std::vector<int64_t>& index, const Shape& leaf,
                    const ShapeReportOptions& options) {
  std::string canonical = PrintShape(leaf, options.print);
  if (options.json) {
    return AsJson({{"index", index}, {"canonical", canonical}, {"index_map", false}});
  }
  return AsText(absl::StrCat("leaf {", absl::StrJoin(index, ","), "}: ", canonical,
                             ": no index map (not an array)\n"));
}

absl::StatusOr<Report> TupleReport(const Shape& shape, const ShapeReportOptions& options) {
  if (options.grid) return absl::InvalidArgumentError("--grid draws one array, not a tuple");
  std::vector<std::pair<std::vector<int64_t>, const Shape*>> leaves;
  std::vector<int64_t> index;
  CollectLeaves(shape, index, leaves);
  Shape laid_out = shape;
  SetDefaultLayouts(laid_out);
  std::string canonical = PrintShape(laid_out, options.print);
  std::vector<std::string> parts;
  OrderedJson leaf_objects = OrderedJson::array();
  for (const auto& [leaf_index, leaf] : leaves) {
    if (!leaf->IsArray()) {
      Report r = NonArrayLeaf(leaf_index, *leaf, options);
      if (options.json) {
        leaf_objects.push_back(std::move(r.json));
      } else {
        parts.push_back(std::move(r.text));
      }
      continue;
    }
    absl::StatusOr<Report> r = AnyReport(*leaf, options);
    if (!r.ok()) {
      return absl::Status(r.status().code(),
                          absl::StrCat("leaf {", absl::StrJoin(leaf_index, ","), "}: ",
                                       r.status().message()));
    }
    if (options.json) {
      // The leaf's index first, then its own report's keys in their order.
      OrderedJson object = {{"index", leaf_index}};
      object.update(r->json);
      leaf_objects.push_back(std::move(object));
    } else {
      parts.push_back(absl::StrCat("leaf {", absl::StrJoin(leaf_index, ","), "}: ", r->text));
    }
  }
  if (options.json) {
    return AsJson({{"canonical", canonical}, {"leaves", std::move(leaf_objects)}});
  }
  return AsText(absl::StrCat(canonical, "\n", "tuple of ", shape.tuple_shapes().size(),
                             " elements, ", leaves.size(), " leaves\n\n",
                             absl::StrJoin(parts, "\n")));
}

// A shape with unbounded dims ('?') has a layout but no size.
absl::StatusOr<Report> UnboundedReport(const Shape& shape, const std::vector<int64_t>& dims,
                                       const ShapeReportOptions& options) {
  if (options.grid) {
    return absl::InvalidArgumentError("--grid needs a size; an unbounded dim has none");
  }
  Shape laid_out = shape;
  SetDefaultLayouts(laid_out);
  std::string canonical = PrintShape(laid_out, options.print);
  if (options.json) {
    return AsJson({{"canonical", canonical}, {"size_known", false}, {"unbounded_dims", dims}});
  }
  return AsText(absl::StrCat(canonical, "\n", "size:            unknown: dim",
                             dims.size() > 1 ? "s " : " ", absl::StrJoin(dims, ","),
                             dims.size() > 1 ? " are" : " is", " unbounded ('?')\n"));
}

absl::StatusOr<Report> AnyReport(const Shape& shape, const ShapeReportOptions& options) {
  if (shape.IsTuple()) return TupleReport(shape, options);
  std::vector<int64_t> unbounded;
  for (int d = 0; shape.IsArray() && d < shape.rank(); ++d) {
    if (shape.is_unbounded_dynamic_dimension(d)) unbounded.push_back(d);
  }
  if (!unbounded.empty()) return UnboundedReport(shape, unbounded, options);
  absl::StatusOr<TiledLayout> t = TiledLayout::Create(shape);
  if (!t.ok()) return t.status();
  std::string canonical = PrintShape(t->shape(), options.print);
  double padding =
      t->element_count() == 0
          ? 0.0
          : 100.0 * static_cast<double>(t->padding_slots()) /
                static_cast<double>(t->element_count());
  std::optional<Grid> grid;
  if (options.grid) {
    absl::StatusOr<Grid> g = BuildGrid(*t, options.slice);
    if (!g.ok()) return g.status();
    grid = *std::move(g);
  }
  if (options.json) {
    OrderedJson out = {{"canonical", canonical},
                       {"physical_dims", IntArray(t->physical_dims())},
                       {"tiled_dims", IntArray(t->tiled_dims())},
                       {"logical_elements", t->element_count()},
                       {"elements", t->slot_count()},
                       {"bytes", t->byte_size()},
                       {"padding_percent", RoundToDecimals(padding, 2)}};
    if (grid) {
      OrderedJson& rows = out["grid"] = OrderedJson::array();
      for (int64_t r = 0; r < grid->rows; ++r) {
        rows.push_back(IntArray(absl::MakeConstSpan(grid->slots)
                                    .subspan(r * grid->cols, grid->cols)));
      }
    }
    return AsJson(std::move(out));
  }
  std::string out = absl::StrCat(
      canonical, "\n", "physical dims:   ", JsonIntList(t->physical_dims()),
      "\n", "tiled dims:      ", JsonIntList(t->tiled_dims()), "\n",
      "elements:        ", t->slot_count(), " slots for ", t->element_count(),
      " elements (", t->padding_slots(), " padding)\n",
      "bytes:           ", t->byte_size(), " (", t->element_size_in_bits(),
      " bits per element)\n",
      absl::StrFormat("padding:         %.2f%%\n", padding));
  if (grid) absl::StrAppend(&out, DrawGrid(*t, *grid));
  return AsText(std::move(out));
}

}  // namespace

absl::StatusOr<std::string> ShapeReport(const Shape& shape,
                                        const ShapeReportOptions& options) {
  absl::StatusOr<Report> report = AnyReport(shape, options);
  if (!report.ok()) return report.status();
  return options.json ? JsonLine(report->json) : report->text;
}

absl::StatusOr<std::string> IndexReport(const Shape& shape,
                                        const std::vector<int64_t>& index,
                                        bool json) {
  absl::StatusOr<TiledLayout> t = TiledLayout::Create(shape);
  if (!t.ok()) return t.status();
  absl::StatusOr<int64_t> slot = t->CheckedLinearIndex(index);
  if (!slot.ok()) return slot.status();
  if (json) return JsonLine({{"slot", *slot}});
  return absl::StrCat(*slot, "\n");
}

absl::StatusOr<std::string> SlotReport(const Shape& shape, int64_t slot,
                                       bool json) {
  absl::StatusOr<TiledLayout> t = TiledLayout::Create(shape);
  if (!t.ok()) return t.status();
  if (slot < 0 || slot >= t->slot_count()) {
    return absl::OutOfRangeError(absl::StrCat(
        "slot ", slot, " is outside the buffer of ", t->slot_count(),
        " slots"));
  }
  std::optional<IndexVector> e = t->LogicalIndex(slot);
  if (json) return JsonLine({{"slot", slot}, {"index", e ? IntArray(*e) : OrderedJson(nullptr)}});
  return absl::StrCat(e ? absl::StrJoin(*e, ",") : std::string("padding"),
                      "\n");
}

}  // namespace xla_layout::cli
