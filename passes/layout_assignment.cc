#include "passes/layout_assignment.h"

#include <algorithm>
#include <deque>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "passes/flatten_call_graph.h"
#include "xla_layout/layout_util.h"
#include "xla_layout/primitive_type.h"
#include "xla_layout/shape_text.h"
#include "xla_layout/tiled_layout.h"

namespace xla_layout {
namespace {

// Constraint strength. A value's layout is replaced by a stronger one, or
// re-derived at the same strength when the value it came from changes;
// levels only rise, so propagation terminates (Drain also keeps a budget).
enum Level : int8_t {
  kUnset = 0,
  kDefault = 1,    // the target table's choice
  kHint = 2,       // a layout written in the input
  kMandatory = 3,  // a use needs it: the entry result, dot packing
  kProducer = 4,   // the value comes this way: entry parameters, infeed,
                   // a packed dot's result
};

// How the layouts on the two sides of an operand edge relate.
enum class Relation {
  kSame,       // identical order and tiles (elementwise, tuple, while)
  kOrder,      // same dimension order; tiles fit each side (slice, pad, ...)
  kPermute,    // transpose: the operand's layout permuted
  kReshape,    // reshape: a bitcast-compatible layout, when one exists
  kBroadcast,  // toward the operand only: the result order restricted
  kReduce,     // toward the result only: the operand order restricted
};

// An edge from a use (an operand of `user`, or the root of `computation`
// when `user` is null) to the value it reads. `reason` is null on edges that
// only carry preferences: reshape, transpose, broadcast and reduce read
// their operand in any layout.
struct Edge {
  int result;
  int operand;
  Relation relation;
  const char* reason;
  HloInstruction* user;
  HloComputation* computation;
  int operand_index;
  int leaf;
};

// A use that needs one fixed layout.
struct Need {
  int operand;
  Layout layout;
  const char* reason;
  HloInstruction* user;
  HloComputation* computation;
  int operand_index;
  int leaf;
};

struct Slot {
  HloInstruction* instruction;
  Shape* shape;  // the array leaf inside instruction->shape()
};

bool IsLaidOut(const Shape& s) { return s.IsArray() && s.rank() > 0; }

void CollectLeaves(Shape& shape, std::vector<Shape*>& out) {
  if (shape.IsTuple()) {
    for (Shape& s : shape.mutable_tuple_shapes()) CollectLeaves(s, out);
  } else if (IsLaidOut(shape)) {
    out.push_back(&shape);
  }
}

int LeafCount(const Shape& shape) {
  if (!shape.IsTuple()) return IsLaidOut(shape) ? 1 : 0;
  int n = 0;
  for (const Shape& s : shape.tuple_shapes()) n += LeafCount(s);
  return n;
}

int LeafOffset(const Shape& tuple, int64_t element) {
  int n = 0;
  for (int64_t k = 0; k < element; ++k) n += LeafCount(tuple.tuple_shapes()[k]);
  return n;
}

}  // namespace

namespace {

// Whether `dims` holds each of 0..rank-1 once (unverified text may not).
bool IsPermutation(const std::optional<std::vector<int64_t>>& dims, int rank) {
  if (!dims || static_cast<int>(dims->size()) != rank) return false;
  std::vector<bool> seen(rank, false);
  for (int64_t d : *dims) {
    if (d < 0 || d >= rank || seen[d]) return false;
    seen[d] = true;
  }
  return true;
}

// The layout a transpose by `perm` relates to `from` so that no data moves:
// the operand's (toward_operand) or the result's, tiles unchanged. None when
// `perm` is not a permutation of `rank` dims.
std::optional<Layout> TransposedLayout(
    const std::optional<std::vector<int64_t>>& perm, int rank,
    const Layout& from, bool toward_operand) {
  if (!IsPermutation(perm, rank) ||
      static_cast<int>(from.minor_to_major().size()) != rank) {
    return std::nullopt;
  }
  std::vector<int64_t> map(rank);  // from's dims to the other side's
  for (int k = 0; k < rank; ++k) {
    if (toward_operand) {
      map[k] = (*perm)[k];
    } else {
      map[(*perm)[k]] = k;
    }
  }
  std::vector<int64_t> m2m;
  for (int64_t d : from.minor_to_major()) m2m.push_back(map[d]);
  Layout layout(m2m);
  layout.set_tiles(from.tiles());
  return layout;
}

// `layout`'s order restricted to the dims larger than 1 in both shapes.
std::vector<int64_t> CommonOrder(const Shape& a, const Shape& b,
                                 const Layout& layout) {
  std::vector<int64_t> order;
  for (int64_t d : layout.minor_to_major()) {
    if (d < a.rank() && d < b.rank() && a.dimensions(d) != 1 &&
        b.dimensions(d) != 1) {
      order.push_back(d);
    }
  }
  return order;
}

// A layout someone chose, as opposed to the default descending untiled one
// that XLA (and this parser) gives every array nobody laid out.
bool IsChosenLayout(const Shape& leaf) {
  if (!leaf.has_layout()) return false;
  const Layout& l = leaf.layout();
  return !l.tiles().empty() || HasAttributesBeyondTiles(l) ||
         !SamePhysicalLayout(leaf, l, DefaultLayoutForRank(leaf.rank()));
}

int64_t ByteSize(const Shape& shape) {
  absl::StatusOr<TiledLayout> t = TiledLayout::Create(shape);
  return t.ok() ? t->byte_size() : 0;
}

int64_t DataBytes(const Shape& shape) {
  absl::StatusOr<int64_t> n = shape.ElementCount();
  if (!n.ok()) return 0;
  return (*n * PrimitiveBitWidth(shape.element_type()) + 7) / 8;
}

bool IsDataMovement(HloOpcode op) {
  switch (op) {
    case HloOpcode::kSlice:
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kPad:
    case HloOpcode::kConcatenate:
    case HloOpcode::kReverse:
      return true;
    default:
      return false;
  }
}

// The shapes of custom-call's operand_layout_constraints={s0, s1, ...}.
absl::StatusOr<std::vector<Shape>> ParseShapeList(absl::string_view text) {
  ShapeParser parser(text);
  auto error = [&](absl::string_view what) {
    return absl::InvalidArgumentError(
        absl::StrCat("column ", parser.pos() + 1, ": ", what));
  };
  parser.SkipSpace();
  if (parser.pos() >= text.size() || text[parser.pos()] != '{') {
    return error("expected '{'");
  }
  ShapeParser rest(text, parser.pos() + 1);
  std::vector<Shape> shapes;
  rest.SkipSpace();
  if (rest.pos() < text.size() && text[rest.pos()] == '}') return shapes;
  while (true) {
    absl::StatusOr<Shape> shape = rest.ParseShape();
    if (!shape.ok()) return shape.status();
    SetDefaultLayouts(*shape);
    shapes.push_back(*std::move(shape));
    rest.SkipSpace();
    if (rest.pos() < text.size() && text[rest.pos()] == ',') {
      rest = ShapeParser(text, rest.pos() + 1);
      rest.SkipSpace();
      continue;
    }
    if (rest.pos() < text.size() && text[rest.pos()] == '}') return shapes;
    return absl::InvalidArgumentError(
        absl::StrCat("column ", rest.pos() + 1, ": expected ',' or '}'"));
  }
}

}  // namespace

namespace {

class Assigner {
 public:
  Assigner(const TargetConfig& target, LayoutAssignmentStats& stats)
      : target_(target), stats_(stats) {}

  absl::StatusOr<bool> Run(HloModule& module);

 private:
  int SlotOf(const HloInstruction* i, int leaf) const {
    return first_slot_.at(i) + leaf;
  }
  int Find(int s) {
    while (parent_[s] != s) {
      parent_[s] = parent_[parent_[s]];
      s = parent_[s];
    }
    return s;
  }
  void Union(int a, int b) {
    a = Find(a);
    b = Find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }
  void UnionLeaves(const HloInstruction* x, int x_offset,
                   const HloInstruction* y, int y_offset, int count) {
    for (int k = 0; k < count; ++k) {
      Union(SlotOf(x, x_offset + k), SlotOf(y, y_offset + k));
    }
  }
  void AddEdges(HloInstruction* user, int operand_index, int result_offset,
                Relation relation, const char* reason) {
    const HloInstruction* operand = user->operand(operand_index);
    int n = LeafCount(operand->shape());
    for (int k = 0; k < n; ++k) {
      edges_.push_back({SlotOf(user, result_offset + k), SlotOf(operand, k),
                        relation, reason, user, user->parent(), operand_index, k});
    }
  }

  void CreateSlots(const HloModule& module);
  void BuildConstraints(HloModule& module);
  void VisitInstruction(HloModule& module, HloInstruction* i);
  void AddDotConstraints(HloInstruction* dot);
  void AddCustomCallConstraints(HloInstruction* call);
  void AddConvolutionConstraints(HloInstruction* conv);
  absl::Status status_;  // the first error found while building constraints

  bool Acceptable(const Shape& shape, const Layout& layout) const;
  Layout TargetTiled(const Shape& shape, absl::Span<const int64_t> m2m) const;
  Layout DefaultLayout(const Shape& shape, const std::string& name);
  Layout AdaptTiles(const Layout& from, const Shape& from_shape,
                    const Shape& to) const;
  // `current` is the other side's layout so far, if any: an order that
  // already agrees where the source has information is kept.
  std::optional<Layout> Derive(const Edge& e, bool toward_operand,
                               const Layout& from,
                               const Layout* current = nullptr) const;

  // Raises the slot's group to `layout` if `level` is stronger; `propagate`
  // queues it for Drain(). `from` is the group whose propagation this is; a
  // value derived from a group is re-derived when that group changes.
  void Set(int slot, const Layout& layout, int level, bool propagate = true,
           int from = -1);
  void Drain();

  void InsertCopies(HloModule& module);
  HloInstruction* MakeCopy(HloComputation* c, HloInstruction* value,
                           const Shape& target,
                           HloInstruction* anchor, const char* reason,
                           std::vector<std::pair<HloInstruction*,
                                                 std::unique_ptr<HloInstruction>>>&
                               batch);
  std::string NewName(absl::string_view base);
  void CollectStats(HloModule& module);
  const std::string& LayoutName(const Layout& layout);
  std::vector<std::pair<Layout, std::string>> printed_;

  const TargetConfig& target_;
  LayoutAssignmentStats& stats_;
  std::vector<Slot> slots_;
  absl::flat_hash_map<const HloInstruction*, int> first_slot_;
  std::vector<int> parent_;
  std::vector<int8_t> level_;
  std::vector<int> source_;     // the group that set this one, or -1
  std::vector<Layout> layout_;
  std::vector<Edge> edges_;
  std::vector<Need> needs_;
  std::vector<std::vector<int>> adjacent_;  // edges by group
  std::deque<int> queue_;
  int64_t steps_ = 0;
  struct Seed {
    int slot;
    Layout layout;
    int level;
    int batch = 0;  // seeds of one instruction (or one result) go together
  };
  int batch_ = 0;
  // Strong seeds in the order they are applied (callees first; in the entry,
  // the result before the parameters), then the hints.
  std::vector<Seed> seeds_, hint_seeds_;
  // Entry parameters and result: printed exactly as pinned.
  absl::flat_hash_map<int, Layout> exact_;
  // Names in use: views of the instructions' own names, plus the new ones.
  absl::flat_hash_set<absl::string_view> names_;
  std::deque<std::string> new_names_;
  absl::flat_hash_map<std::string, int64_t> next_suffix_;
  absl::flat_hash_set<const HloComputation*> in_loop_;
};

void Assigner::CreateSlots(const HloModule& module) {
  for (HloComputation* c : module.computations()) {
    for (HloInstruction* i : c->instructions()) {
      names_.insert(i->name());
      first_slot_[i] = static_cast<int>(slots_.size());
      std::vector<Shape*> leaves;
      CollectLeaves(*i->mutable_shape(), leaves);
      for (Shape* s : leaves) slots_.push_back({i, s});
    }
  }
  parent_.resize(slots_.size());
  for (size_t s = 0; s < slots_.size(); ++s) parent_[s] = static_cast<int>(s);
  level_.assign(slots_.size(), kUnset);
  source_.assign(slots_.size(), -1);
  layout_.resize(slots_.size());
}

bool Assigner::Acceptable(const Shape& shape, const Layout& layout) const {
  if (!ValidateLayoutForShape(layout, shape).ok()) return false;
  if (layout.tiles().empty()) return true;
  Shape laid_out = shape;
  laid_out.set_layout(layout);
  absl::StatusOr<bool> ok = target_.PaddingAcceptable(laid_out);
  return ok.ok() && *ok;
}

Layout Assigner::TargetTiled(const Shape& shape,
                             absl::Span<const int64_t> m2m) const {
  Layout layout(m2m);
  std::vector<Tile> tiles = target_.BaseTiles(shape);
  if (tiles.empty()) return layout;
  Layout tiled = layout;
  tiled.set_tiles(std::move(tiles));
  return Acceptable(shape, tiled) ? tiled : layout;
}

// Descending order with the target's tiles. When the padding rule refuses
// them, size-1 dims move major (free when untiled) if that rescues the
// tiling; otherwise the value stays untiled and the refusal is reported.
Layout Assigner::DefaultLayout(const Shape& shape, const std::string& name) {
  const Layout descending = DefaultLayoutForRank(shape.rank());
  std::vector<int64_t> m2m(descending.minor_to_major().begin(),
                           descending.minor_to_major().end());
  Layout layout = TargetTiled(shape, m2m);
  std::vector<Tile> tiles = target_.BaseTiles(shape);
  if (tiles.empty() || !layout.tiles().empty()) return layout;
  std::vector<int64_t> rescued;
  for (int64_t d : m2m) if (shape.dimensions(d) != 1) rescued.push_back(d);
  for (int64_t d : m2m) if (shape.dimensions(d) == 1) rescued.push_back(d);
  if (rescued != m2m) {
    Layout second = TargetTiled(shape, rescued);
    if (!second.tiles().empty()) return second;
  }
  Shape probe = shape;
  probe.set_layout(Layout(m2m).set_tiles(tiles));
  absl::StatusOr<double> ratio = TargetConfig::PaddingRatio(probe);
  // A negative ratio: the size is unknown (unbounded dynamic dims).
  stats_.tilings_refused.push_back({name, ratio.ok() ? *ratio : -1.0});
  return layout;
}

Layout Assigner::AdaptTiles(const Layout& from, const Shape& from_shape,
                            const Shape& to) const {
  if (PrimitiveBitWidth(from_shape.element_type()) !=
      PrimitiveBitWidth(to.element_type())) {
    return TargetTiled(to, from.minor_to_major());
  }
  if (from.tiles().empty() || Acceptable(to, from)) return from;
  return TargetTiled(to, from.minor_to_major());
}

std::optional<Layout> Assigner::Derive(const Edge& e, bool toward_operand,
                                       const Layout& from,
                                       const Layout* current) const {
  const Shape& result = *slots_[e.result].shape;
  const Shape& operand = *slots_[e.operand].shape;
  const Shape& to = toward_operand ? operand : result;
  const Shape& source = toward_operand ? result : operand;
  switch (e.relation) {
    case Relation::kSame:
      return from;
    case Relation::kOrder: {
      // Size-1 dims sit anywhere in an order; with fewer than two dims larger
      // than 1 on both sides the source says nothing about the other side.
      std::vector<int64_t> common = CommonOrder(source, to, from);
      if (common.size() < 2) return std::nullopt;
      if (current != nullptr && CommonOrder(source, to, *current) == common) {
        return *current;
      }
      return AdaptTiles(from, source, to);
    }
    case Relation::kPermute:
      if (operand.rank() != result.rank()) return std::nullopt;
      return TransposedLayout(e.user->attributes().dimensions, result.rank(), from,
                              toward_operand);
    case Relation::kReshape:
      return ReshapeBitcastLayout(source, from, to);
    case Relation::kBroadcast: {
      const auto& dims = e.user->attributes().dimensions;
      if (!toward_operand || !dims) return std::nullopt;
      std::vector<int64_t> operand_of(result.rank(), -1);
      for (size_t k = 0; k < dims->size(); ++k) {
        if ((*dims)[k] >= 0 && (*dims)[k] < result.rank()) operand_of[(*dims)[k]] = k;
      }
      std::vector<int64_t> m2m;
      for (int64_t d : from.minor_to_major()) {
        if (operand_of[d] >= 0) m2m.push_back(operand_of[d]);
      }
      if (static_cast<int>(m2m.size()) != operand.rank()) return std::nullopt;
      return TargetTiled(operand, m2m);
    }
    case Relation::kReduce: {
      const auto& dims = e.user->attributes().dimensions;
      if (toward_operand || !dims) return std::nullopt;
      std::vector<int64_t> result_of(operand.rank(), 0);
      for (int64_t d : *dims) {
        if (d >= 0 && d < operand.rank()) result_of[d] = -1;
      }
      int64_t next = 0;
      for (auto& r : result_of) r = r < 0 ? -1 : next++;
      std::vector<int64_t> m2m;
      for (int64_t d : from.minor_to_major()) {
        if (result_of[d] >= 0) m2m.push_back(result_of[d]);
      }
      if (static_cast<int>(m2m.size()) != result.rank()) return std::nullopt;
      return TargetTiled(result, m2m);
    }
  }
  return std::nullopt;
}

void Assigner::Set(int slot, const Layout& layout, int level, bool propagate,
                   int from) {
  int g = Find(slot);
  if (from >= 0 && from != g && source_[g] == from && level == level_[g]) {
    if (layout == layout_[g] ||
        !ValidateLayoutForShape(layout, *slots_[g].shape).ok()) {
      return;
    }
    layout_[g] = layout;
    if (propagate) queue_.push_back(g);
    return;
  }
  if (level <= level_[g]) return;
  if (!ValidateLayoutForShape(layout, *slots_[g].shape).ok()) return;
  source_[g] = from;
  level_[g] = static_cast<int8_t>(level);
  layout_[g] = layout;
  if (propagate) queue_.push_back(g);
}

void Assigner::Drain() {
  // Levels only rise and a re-derivation follows a change of its source, so
  // this ends; the budget guards the guarantee (a module laid out so far
  // still gets its copies).
  while (!queue_.empty() && ++steps_ < 64 * static_cast<int64_t>(slots_.size()) + 4096) {
    int g = queue_.front();
    queue_.pop_front();
    // Producers bind their own value only; what they propagate is as strong
    // as any other mandatory constraint.
    int level = std::min<int>(level_[g], kMandatory);
    const Layout layout = layout_[g];
    for (int e : adjacent_[g]) {
      const Edge& edge = edges_[e];
      // Edges without a copy (reshape, transpose, broadcast, reduce) only
      // carry preferences: they never override a written layout.
      int edge_level = edge.reason == nullptr ? std::min<int>(level, kHint) : level;
      if (Find(edge.result) == g) {
        int other = Find(edge.operand);
        std::optional<Layout> d =
            Derive(edge, /*toward_operand=*/true, layout,
                   level_[other] != kUnset ? &layout_[other] : nullptr);
        if (d) Set(edge.operand, *d, edge_level, true, g);
      }
      if (Find(edge.operand) == g) {
        int other = Find(edge.result);
        std::optional<Layout> d =
            Derive(edge, /*toward_operand=*/false, layout,
                   level_[other] != kUnset ? &layout_[other] : nullptr);
        if (d) Set(edge.result, *d, edge_level, true, g);
      }
    }
  }
}

void Assigner::AddDotConstraints(HloInstruction* dot) {
  const auto& a = dot->attributes();
  if (dot->operand_count() != 2 || dot->shape().rank() != 2 ||
      dot->operand(0)->shape().rank() != 2 ||
      dot->operand(1)->shape().rank() != 2 ||
      a.lhs_contracting_dims != std::vector<int64_t>{1} ||
      a.rhs_contracting_dims != std::vector<int64_t>{0} ||
      (a.lhs_batch_dims && !a.lhs_batch_dims->empty()) ||
      (a.rhs_batch_dims && !a.rhs_batch_dims->empty())) {
    return;
  }
  std::optional<DotTiling> tiling = target_.DotTilingFor(dot->shape().element_type());
  if (!tiling) return;
  // IREE-style data tiling: lhs[M,K] in M0xK0 tiles, rhs[K,N] as N-major
  // N0xK0 panels, the result in M0xN0 tiles. A tiling the padding rule
  // refuses (M < M0 for a matrix-vector product) is left out.
  Layout lhs(std::vector<int64_t>{1, 0});
  lhs.add_tile(Tile(std::vector<int64_t>{tiling->m0(), tiling->k0()}));
  Layout rhs(std::vector<int64_t>{0, 1});
  rhs.add_tile(Tile(std::vector<int64_t>{tiling->n0(), tiling->k0()}));
  Layout out(std::vector<int64_t>{1, 0});
  out.add_tile(Tile(std::vector<int64_t>{tiling->m0(), tiling->n0()}));
  const Layout* operands[2] = {&lhs, &rhs};
  for (int k = 0; k < 2; ++k) {
    const HloInstruction* op = dot->operand(k);
    if (!Acceptable(op->shape(), *operands[k])) continue;
    needs_.push_back({SlotOf(op, 0), *operands[k], "dot operand packing", dot,
                      dot->parent(), k, 0});
    seeds_.push_back({SlotOf(op, 0), *operands[k], kMandatory, batch_});
  }
  if (Acceptable(dot->shape(), out)) {
    seeds_.push_back({SlotOf(dot, 0), out, kProducer, batch_});
  }
}

// The minor-to-major order that `labels` (one of dim_labels' three parts,
// e.g. "b01f" or "01io") asks for channels-last: `minor` first, then
// `second` (if any), then the spatial dims from the last, then `major` (if
// any). Empty when the labels do not describe a shape of `rank` dims.
std::vector<int64_t> ChannelsLastOrder(absl::string_view labels, int rank,
                                       char minor, char second, char major) {
  if (static_cast<int>(labels.size()) != rank) return {};
  std::vector<int64_t> spatial;  // dims by spatial index
  int64_t minor_dim = -1, second_dim = -1, major_dim = -1;
  for (int d = 0; d < rank; ++d) {
    char c = labels[d];
    if (c >= '0' && c <= '9') {
      size_t index = c - '0';
      if (spatial.size() <= index) spatial.resize(index + 1, -1);
      if (spatial[index] >= 0) return {};
      spatial[index] = d;
    } else if (c == minor && minor_dim < 0) {
      minor_dim = d;
    } else if (c == second && second_dim < 0) {
      second_dim = d;
    } else if (c == major && major_dim < 0) {
      major_dim = d;
    } else {
      return {};
    }
  }
  std::vector<int64_t> m2m;
  if (minor_dim >= 0) m2m.push_back(minor_dim);
  if (second_dim >= 0) m2m.push_back(second_dim);
  for (auto it = spatial.rbegin(); it != spatial.rend(); ++it) {
    if (*it < 0) return {};
    m2m.push_back(*it);
  }
  if (major_dim >= 0) m2m.push_back(major_dim);
  if (static_cast<int>(m2m.size()) != rank) return {};
  return m2m;
}

// Channels-last convolutions (TargetLayoutConfig.conv_channels_last): the
// operands are needed in that order and the result is written in it, each
// with the target's tiles where the padding rule allows. dim_labels that do
// not parse leave the convolution free.
void Assigner::AddConvolutionConstraints(HloInstruction* conv) {
  if (!target_.proto().conv_channels_last() || conv->operand_count() != 2) return;
  std::string labels;
  for (const HloAttribute& a : conv->raw_attributes()) {
    if (a.name == "dim_labels") labels = a.value;
  }
  std::vector<std::string> parts = absl::StrSplit(labels, absl::ByAnyChar("_->"),
                                                  absl::SkipEmpty());
  if (parts.size() != 3) return;
  const Shape& input = conv->operand(0)->shape();
  const Shape& kernel = conv->operand(1)->shape();
  if (!IsLaidOut(input) || !IsLaidOut(kernel) || !IsLaidOut(conv->shape())) return;
  std::vector<int64_t> in = ChannelsLastOrder(parts[0], input.rank(), 'f', 0, 'b');
  std::vector<int64_t> ker = ChannelsLastOrder(parts[1], kernel.rank(), 'o', 'i', 0);
  std::vector<int64_t> out = ChannelsLastOrder(parts[2], conv->shape().rank(), 'f', 0, 'b');
  if (in.empty() || ker.empty() || out.empty()) return;
  needs_.push_back({SlotOf(conv->operand(0), 0), TargetTiled(input, in),
                    "convolution operand layout", conv, conv->parent(), 0, 0});
  seeds_.push_back({SlotOf(conv->operand(0), 0), TargetTiled(input, in), kMandatory, batch_});
  needs_.push_back({SlotOf(conv->operand(1), 0), TargetTiled(kernel, ker),
                    "convolution operand layout", conv, conv->parent(), 1, 0});
  seeds_.push_back({SlotOf(conv->operand(1), 0), TargetTiled(kernel, ker), kMandatory, batch_});
  seeds_.push_back({SlotOf(conv, 0), TargetTiled(conv->shape(), out), kProducer, batch_});
}

// operand_layout_constraints: each operand is needed in exactly the
// written layouts, as XLA's custom calls with constrained layouts.
void Assigner::AddCustomCallConstraints(HloInstruction* call) {
  for (const HloAttribute& attribute : call->raw_attributes()) {
    if (attribute.name != "operand_layout_constraints") continue;
    absl::StatusOr<std::vector<Shape>> shapes = ParseShapeList(attribute.value);
    if (shapes.ok() && static_cast<int>(shapes->size()) != call->operand_count()) {
      shapes = absl::InvalidArgumentError(
          absl::StrCat("has ", shapes->size(), " shapes for ",
                       call->operand_count(), " operands"));
    }
    for (int k = 0; shapes.ok() && k < call->operand_count(); ++k) {
      if (!Shape::Equal().IgnoreLayout()((*shapes)[k], call->operand(k)->shape())) {
        shapes = absl::InvalidArgumentError(absl::StrCat(
            "gives ", PrintShape((*shapes)[k]), " for operand ", k, " of shape ",
            PrintShape(call->operand(k)->shape())));
      }
    }
    if (!shapes.ok()) {
      if (status_.ok()) {
        status_ = absl::InvalidArgumentError(
            absl::StrCat("custom-call '", call->name(), "': operand_layout_constraints ",
                         shapes.status().message()));
      }
      return;
    }
    for (int k = 0; k < call->operand_count(); ++k) {
      std::vector<Shape*> ls;
      CollectLeaves((*shapes)[k], ls);
      for (int leaf = 0; leaf < static_cast<int>(ls.size()); ++leaf) {
        int slot = SlotOf(call->operand(k), leaf);
        needs_.push_back({slot, ls[leaf]->layout(), "custom-call operand constraint",
                          call, call->parent(), k, leaf});
        seeds_.push_back({slot, ls[leaf]->layout(), kMandatory, batch_});
      }
    }
  }
}

void Assigner::VisitInstruction(HloModule& module, HloInstruction* i) {
  ++batch_;
  HloComputation* c = i->parent();
  const int leaves = LeafCount(i->shape());
  bool fixed = false;
  if (i->opcode() == HloOpcode::kParameter && c == module.entry()) {
    const auto& entry = module.entry_computation_layout();
    int64_t n = i->parameter_number();
    if (entry && n >= 0 && n < static_cast<int64_t>(entry->parameters.size())) {
      Shape pinned = entry->parameters[n];
      std::vector<Shape*> ls;
      CollectLeaves(pinned, ls);
      for (int k = 0; k < leaves && k < static_cast<int>(ls.size()); ++k) {
        if (ls[k]->has_layout()) {
          seeds_.push_back({SlotOf(i, k), ls[k]->layout(), kProducer, batch_});
          exact_[SlotOf(i, k)] = ls[k]->layout();
        }
      }
      fixed = true;
    } else if (!entry) {
      // Without a header, a parameter keeps a layout someone chose: one
      // written other than the default XLA prints for every array.
      fixed = leaves > 0;
      for (int k = 0; k < leaves; ++k) {
        const Shape& leaf = *slots_[SlotOf(i, k)].shape;
        if (!IsChosenLayout(leaf)) {
          fixed = false;
          continue;
        }
        seeds_.push_back({SlotOf(i, k), leaf.layout(), kProducer, batch_});
        exact_[SlotOf(i, k)] = leaf.layout();
      }
    }
  }
  if (!fixed) {
    // Per array leaf:
    // - infeed, recv and bitcast results are what the op delivers, written
    //   or default (as XLA's infeed shape);
    // - a layout with attributes the pass does not model (memory space,
    //   element size, ...) is kept;
    // - a custom call keeps a chosen result layout, and any result layout
    //   when its operands are constrained (XLA's layout-constrained call);
    // - otherwise a written layout is a preference, kept exactly. XLA
    //   prints the default layout for values nobody laid out, so in a
    //   module without an entry_computation_layout (not laid out yet) a
    //   written default (descending, untiled) says nothing: the value is
    //   left to the target as if nothing were written. A copy's layout is
    //   its purpose and always counts.
    const HloOpcode op = i->opcode();
    const bool delivered = op == HloOpcode::kInfeed || op == HloOpcode::kRecv ||
                           op == HloOpcode::kRecvDone || op == HloOpcode::kBitcast;
    bool constrained = false;
    for (const HloAttribute& a : i->raw_attributes()) {
      constrained |= a.name == "operand_layout_constraints";
    }
    for (int k = 0; k < leaves; ++k) {
      const Shape& leaf = *slots_[SlotOf(i, k)].shape;
      if (delivered || HasAttributesBeyondTiles(leaf.layout()) ||
          (op == HloOpcode::kCustomCall && (constrained || IsChosenLayout(leaf)))) {
        seeds_.push_back({SlotOf(i, k), leaf.layout(), kProducer, batch_});
      } else if (i->layout_written() &&
                 (module.entry_computation_layout() || op == HloOpcode::kCopy ||
                  IsChosenLayout(leaf))) {
        hint_seeds_.push_back({SlotOf(i, k), leaf.layout(), kHint});
      }
    }
  }

  const HloOpcode op = i->opcode();
  if (op == HloOpcode::kCopy) return;  // a copy exists to change layout
  if (IsElementwise(op) || op == HloOpcode::kMap ||
      op == HloOpcode::kBitcastConvert || op == HloOpcode::kReducePrecision) {
    for (int k = 0; k < i->operand_count(); ++k) {
      const Shape& s = i->operand(k)->shape();
      if (!s.IsArray() || s.rank() != i->shape().rank() || leaves != 1) continue;
      // Lanes of different widths keep the order and take their own tiles.
      bool same_width = PrimitiveBitWidth(s.element_type()) ==
                        PrimitiveBitWidth(i->shape().element_type());
      AddEdges(i, k, 0, same_width ? Relation::kSame : Relation::kOrder,
               "elementwise operand");
    }
    return;
  }
  switch (op) {
    case HloOpcode::kGetTupleElement: {
      const auto& index = i->attributes().index;
      if (!index || i->operand_count() != 1) return;
      UnionLeaves(i, 0, i->operand(0),
                  LeafOffset(i->operand(0)->shape(), *index), leaves);
      return;
    }
    case HloOpcode::kTuple: {
      int offset = 0;
      for (int k = 0; k < i->operand_count(); ++k) {
        AddEdges(i, k, offset, Relation::kSame, "tuple element");
        offset += LeafCount(i->operand(k)->shape());
      }
      return;
    }
    case HloOpcode::kWhile: {
      HloComputation* body = i->called_computation("body");
      HloComputation* cond = i->called_computation("condition");
      for (HloComputation* callee : {body, cond}) {
        if (callee == nullptr) continue;
        std::vector<HloInstruction*> params = callee->parameters();
        if (!params.empty() && params[0] != nullptr) {
          UnionLeaves(i, 0, params[0], 0, leaves);
        }
      }
      if (i->operand_count() == 1) {
        AddEdges(i, 0, 0, Relation::kSame, "while operand");
      }
      if (body != nullptr && body->root() != nullptr) {
        for (int k = 0; k < leaves; ++k) {
          edges_.push_back({SlotOf(i, k), SlotOf(body->root(), k), Relation::kSame,
                            "while body result", nullptr, body, 0, k});
        }
      }
      return;
    }
    case HloOpcode::kConditional: {
      const auto& called = i->called_computations();
      for (size_t b = 0; b < called.size(); ++b) {
        HloComputation* branch = called[b].computation;
        std::vector<HloInstruction*> params = branch->parameters();
        if (!params.empty() && params[0] != nullptr &&
            static_cast<int>(b) + 1 < i->operand_count()) {
          UnionLeaves(params[0], 0, i->operand(b + 1), 0,
                      LeafCount(params[0]->shape()));
        }
        if (branch->root() == nullptr) continue;
        for (int k = 0; k < leaves; ++k) {
          edges_.push_back({SlotOf(i, k), SlotOf(branch->root(), k),
                            Relation::kSame, "conditional branch result",
                            nullptr, branch, 0, k});
        }
      }
      return;
    }
    case HloOpcode::kCall:
    case HloOpcode::kFusion: {
      // The callee's parameters are views of the operands and its root is
      // the result: a fusion body takes the fusion's layouts.
      if (i->called_computations().empty()) return;
      HloComputation* callee = i->called_computations()[0].computation;
      std::vector<HloInstruction*> params = callee->parameters();
      for (size_t k = 0; k < params.size(); ++k) {
        if (params[k] != nullptr && static_cast<int>(k) < i->operand_count()) {
          UnionLeaves(params[k], 0, i->operand(k), 0, LeafCount(params[k]->shape()));
        }
      }
      if (callee->root() != nullptr) UnionLeaves(i, 0, callee->root(), 0, leaves);
      return;
    }
    case HloOpcode::kDynamicUpdateSlice:
      if (i->operand_count() >= 2 && leaves == 1) {
        AddEdges(i, 0, 0, Relation::kSame, "in-place update buffer");
        AddEdges(i, 1, 0, Relation::kOrder, "operand dimension order");
      }
      return;
    case HloOpcode::kTranspose:
      if (i->operand_count() == 1 && leaves == 1) {
        AddEdges(i, 0, 0, Relation::kPermute, nullptr);
      }
      return;
    case HloOpcode::kReshape:
      if (i->operand_count() == 1 && leaves == 1 &&
          LeafCount(i->operand(0)->shape()) == 1) {
        AddEdges(i, 0, 0, Relation::kReshape, nullptr);
      }
      return;
    case HloOpcode::kBroadcast:
      if (i->operand_count() == 1 && leaves == 1 &&
          LeafCount(i->operand(0)->shape()) == 1) {
        AddEdges(i, 0, 0, Relation::kBroadcast, nullptr);
      }
      return;
    case HloOpcode::kReduce: {
      int inputs = i->operand_count() / 2;
      for (int k = 0; k < inputs && k < leaves; ++k) {
        if (LeafCount(i->operand(k)->shape()) == 1) {
          AddEdges(i, k, k, Relation::kReduce, nullptr);
        }
      }
      return;
    }
    case HloOpcode::kDot:
      AddDotConstraints(i);
      return;
    case HloOpcode::kCustomCall:
      AddCustomCallConstraints(i);
      return;
    case HloOpcode::kConvolution:
      AddConvolutionConstraints(i);
      return;
    default:
      break;
  }
  if (IsDataMovement(op) && leaves == 1) {
    for (int k = 0; k < i->operand_count(); ++k) {
      const Shape& s = i->operand(k)->shape();
      if (s.IsArray() && s.rank() == i->shape().rank()) {
        AddEdges(i, k, 0, Relation::kOrder, "operand dimension order");
      }
    }
  }
}

void Assigner::BuildConstraints(HloModule& module) {
  // Callees first: when mandatory constraints conflict, the one inside a
  // loop body wins and the copy lands outside, where it runs once.
  std::vector<HloComputation*> order = module.MakeComputationPostOrder();
  for (HloComputation* c : order) {
    if (c == module.entry() && c->root() != nullptr) {
      // The result constraint comes first, as in XLA: operands follow the
      // result, and a conflicting parameter gets the copy.
      std::optional<Shape> result;
      if (module.entry_computation_layout()) {
        result = module.entry_computation_layout()->result;
      } else {
        // As for parameters: only a chosen (non-default) layout binds.
        result = c->root()->shape();
        std::vector<Shape*> ls;
        CollectLeaves(*result, ls);
        for (Shape* leaf : ls) {
          if (!IsChosenLayout(*leaf)) leaf->clear_layout();
        }
      }
      if (result) {
        ++batch_;
        std::vector<Shape*> ls;
        CollectLeaves(*result, ls);
        for (int k = 0; k < static_cast<int>(ls.size()) &&
                        k < LeafCount(c->root()->shape());
             ++k) {
          if (!ls[k]->has_layout()) continue;
          needs_.push_back({SlotOf(c->root(), k), ls[k]->layout(),
                            "entry result layout", nullptr, c, 0, k});
          seeds_.push_back({SlotOf(c->root(), k), ls[k]->layout(), kMandatory, batch_});
          exact_[SlotOf(c->root(), k)] = ls[k]->layout();
        }
      }
    }
    for (HloInstruction* i : c->instructions()) VisitInstruction(module, i);
  }
}

std::string Assigner::NewName(absl::string_view base) {
  std::string name(base);
  // Counting on from the last suffix handed out keeps this linear overall.
  int64_t& next = next_suffix_[name];
  while (names_.contains(name)) name = absl::StrCat(base, ".", ++next);
  names_.insert(new_names_.emplace_back(name));
  return name;
}

HloInstruction* Assigner::MakeCopy(
    HloComputation* c, HloInstruction* value, const Shape& target, HloInstruction* anchor,
    const char* reason,
    std::vector<std::pair<HloInstruction*, std::unique_ptr<HloInstruction>>>& batch) {
  if (!value->shape().IsTuple()) {
    auto copy = std::make_unique<HloInstruction>(NewName("copy"), HloOpcode::kCopy,
                                                 target);
    copy->set_layout_written(true);
    copy->AppendOperand(value);
    LayoutAssignmentStats::Copy record;
    record.name = copy->name();
    record.computation = c->name();
    record.operand = value->name();
    record.reason = reason;
    record.from = PrintLayout(value->shape().layout());
    record.to = PrintLayout(target.layout());
    record.bytes = ByteSize(value->shape()) + ByteSize(target);
    record.in_loop = in_loop_.contains(c);
    stats_.copies.push_back(std::move(record));
    HloInstruction* raw = copy.get();
    batch.push_back({anchor, std::move(copy)});
    return raw;
  }
  // Tuples are copied element by element; tokens and unchanged elements
  // pass through.
  std::vector<HloInstruction*> elements;
  for (size_t k = 0; k < target.tuple_shapes().size(); ++k) {
    const Shape& have = value->shape().tuple_shapes()[k];
    auto gte = std::make_unique<HloInstruction>(
        NewName(absl::StrCat(value->name(), ".", k)), HloOpcode::kGetTupleElement,
        have);
    gte->AppendOperand(value);
    gte->mutable_attributes().index = static_cast<int64_t>(k);
    gte->set_layout_written(true);
    gte->mutable_raw_attributes().push_back({"index", absl::StrCat(k)});
    HloInstruction* element = gte.get();
    batch.push_back({anchor, std::move(gte)});
    if (!(have == target.tuple_shapes()[k])) {
      element = MakeCopy(c, element, target.tuple_shapes()[k], anchor, reason, batch);
    }
    elements.push_back(element);
  }
  auto tuple = std::make_unique<HloInstruction>(
      NewName(absl::StrCat(value->name(), ".copy")), HloOpcode::kTuple, target);
  tuple->set_layout_written(true);
  for (HloInstruction* e : elements) tuple->AppendOperand(e);
  HloInstruction* raw = tuple.get();
  batch.push_back({anchor, std::move(tuple)});
  return raw;
}

void Assigner::InsertCopies(HloModule& module) {
  // One entry per use (an operand of an instruction, or a root) with the
  // leaves whose layouts it needs changed.
  struct Use {
    HloInstruction* user;
    HloComputation* computation;
    int operand_index;
    const char* reason;
    std::vector<std::pair<int, Layout>> leaves;
  };
  std::vector<Use> uses;
  absl::flat_hash_map<std::pair<const void*, int>, size_t> use_index;
  auto record = [&](HloInstruction* user, HloComputation* c, int operand_index,
                    int leaf, const Layout& layout, const char* reason) {
    std::pair<const void*, int> key =
        user != nullptr ? std::pair<const void*, int>(user, operand_index)
                        : std::pair<const void*, int>(c, -1);
    auto [it, inserted] = use_index.try_emplace(key, uses.size());
    if (inserted) uses.push_back({user, c, operand_index, reason, {}});
    uses[it->second].leaves.push_back({leaf, layout});
  };
  for (const Edge& e : edges_) {
    if (e.reason == nullptr) continue;
    const Layout& have = layout_[Find(e.operand)];
    const Layout& want = layout_[Find(e.result)];
    const Shape& shape = *slots_[e.operand].shape;
    std::optional<Layout> need;
    if (e.relation == Relation::kOrder) {
      const Shape& result = *slots_[e.result].shape;
      if (CommonOrder(shape, result, have) == CommonOrder(shape, result, want)) continue;
      need = AdaptTiles(want, result, shape);
    } else {
      need = Derive(e, /*toward_operand=*/true, want);
      if (!need || SamePhysicalLayout(shape, have, *need)) continue;
    }
    record(e.user, e.computation, e.operand_index, e.leaf, *need, e.reason);
  }
  for (const Need& n : needs_) {
    if (!SamePhysicalLayout(*slots_[n.operand].shape, layout_[Find(n.operand)],
                         n.layout)) {
      record(n.user, n.computation, n.operand_index, n.leaf, n.layout, n.reason);
    }
  }
  absl::flat_hash_map<
      const HloComputation*,
      std::vector<std::pair<HloInstruction*, std::unique_ptr<HloInstruction>>>>
      batches;
  // Users that need the same copy of a value share it.
  absl::flat_hash_map<std::pair<const HloInstruction*, std::string>, HloInstruction*>
      made;
  for (Use& use : uses) {
    HloInstruction* value =
        use.user != nullptr ? use.user->operand(use.operand_index) : use.computation->root();
    Shape target = value->shape();
    std::vector<Shape*> ls;
    CollectLeaves(target, ls);
    for (const auto& [leaf, layout] : use.leaves) {
      if (leaf < static_cast<int>(ls.size())) ls[leaf]->set_layout(layout);
    }
    std::pair<const HloInstruction*, std::string> key(value, PrintShape(target));
    HloInstruction*& copy = made[key];
    if (copy == nullptr) {
      copy = MakeCopy(value->parent(), value, target, use.user, use.reason,
                      batches[value->parent()]);
    }
    if (use.user != nullptr) {
      use.user->ReplaceOperandWith(use.operand_index, copy);
    } else {
      use.computation->set_root(copy);
    }
  }
  for (HloComputation* c : module.computations()) {
    auto it = batches.find(c);
    if (it != batches.end()) c->InsertInstructions(std::move(it->second));
  }
}

const std::string& Assigner::LayoutName(const Layout& layout) {
  // Modules use few distinct layouts; printing each once keeps the
  // statistics cheap on large modules.
  for (const auto& [known, text] : printed_) {
    if (known == layout) return text;
  }
  if (printed_.size() >= 64) printed_.erase(printed_.begin());
  printed_.push_back({layout, PrintLayout(layout)});
  return printed_.back().second;
}

void Assigner::CollectStats(HloModule& module) {
  stats_.target = target_.name();
  absl::flat_hash_set<int> counted;
  for (size_t s = 0; s < slots_.size(); ++s) {
    if (!counted.insert(Find(static_cast<int>(s))).second) continue;
    stats_.data_bytes += DataBytes(*slots_[s].shape);
    stats_.padded_bytes += ByteSize(*slots_[s].shape);
  }
  for (HloComputation* c : module.computations()) {
    for (HloInstruction* i : c->instructions()) {
      std::vector<Shape*> ls;
      CollectLeaves(*i->mutable_shape(), ls);
      for (Shape* s : ls) ++stats_.instructions_per_layout[LayoutName(s->layout())];
      if (i->opcode() == HloOpcode::kCopy && !first_slot_.contains(i) && !ls.empty()) {
        stats_.data_bytes += DataBytes(*ls[0]);
        stats_.padded_bytes += ByteSize(*ls[0]);
      }
      if (i->operand_count() != 1 || ls.size() != 1 ||
          !IsLaidOut(i->operand(0)->shape())) {
        continue;
      }
      const Shape& in = i->operand(0)->shape();
      if (i->opcode() == HloOpcode::kTranspose) {
        std::optional<Layout> permuted =
            in.rank() == ls[0]->rank()
                ? TransposedLayout(i->attributes().dimensions, in.rank(),
                                   in.layout(), /*toward_operand=*/false)
                : std::nullopt;
        if (permuted && SamePhysicalLayout(*ls[0], *permuted, ls[0]->layout())) {
          ++stats_.transposes_as_bitcast;
        }
      } else if (i->opcode() == HloOpcode::kReshape) {
        std::optional<Layout> b = ReshapeBitcastLayout(in, in.layout(), *ls[0]);
        if (b && SamePhysicalLayout(*ls[0], *b, ls[0]->layout())) {
          ++stats_.reshapes_as_bitcast;
        }
      }
    }
  }
}

absl::StatusOr<bool> Assigner::Run(HloModule& module) {
  if (module.entry() == nullptr) {
    return absl::FailedPreconditionError("the module has no entry computation");
  }
  // One caller per control-flow computation, so each takes one set of
  // layouts (FlattenCallGraph returns only once none is shared).
  absl::StatusOr<int> cloned = FlattenCallGraph(module);
  if (!cloned.ok()) return cloned.status();
  stats_.computations_cloned = *cloned;
  CreateSlots(module);
  // Callers before callees: a computation runs per iteration when a while
  // calls it or when it is called from such a computation.
  std::vector<HloComputation*> order = module.MakeComputationPostOrder();
  for (auto c = order.rbegin(); c != order.rend(); ++c) {
    bool loop = in_loop_.contains(*c);
    for (HloInstruction* i : (*c)->instructions()) {
      if (i->opcode() != HloOpcode::kWhile && !loop) continue;
      for (const auto& called : i->called_computations()) {
        in_loop_.insert(called.computation);
      }
    }
  }
  BuildConstraints(module);
  if (!status_.ok()) return status_;
  adjacent_.resize(slots_.size());
  for (size_t e = 0; e < edges_.size(); ++e) {
    int a = Find(edges_[e].result), b = Find(edges_[e].operand);
    adjacent_[a].push_back(static_cast<int>(e));
    if (b != a) adjacent_[b].push_back(static_cast<int>(e));
  }
  // Hints are placed first but spread last, so a hint always keeps its own
  // value unless a copy-checked constraint overrides it.
  for (const Seed& seed : hint_seeds_) Set(seed.slot, seed.layout, seed.level, false);
  for (size_t k = 0; k < seeds_.size(); ++k) {
    Set(seeds_[k].slot, seeds_[k].layout, seeds_[k].level);
    if (k + 1 == seeds_.size() || seeds_[k + 1].batch != seeds_[k].batch) Drain();
  }
  for (const Seed& seed : hint_seeds_) {
    int g = Find(seed.slot);
    if (level_[g] == kHint) queue_.push_back(g);
  }
  Drain();
  for (size_t slot = 0; slot < slots_.size(); ++slot) {
    int g = Find(static_cast<int>(slot));
    if (level_[g] != kUnset) continue;
    Set(g, DefaultLayout(*slots_[g].shape, slots_[g].instruction->name()), kDefault);
    Drain();
  }
  queue_.clear();

  bool changed = *cloned > 0;
  for (size_t slot = 0; slot < slots_.size(); ++slot) {
    const Layout* layout = &layout_[Find(static_cast<int>(slot))];
    Shape& shape = *slots_[slot].shape;
    auto pinned = exact_.find(static_cast<int>(slot));
    if (pinned != exact_.end() && SamePhysicalLayout(shape, pinned->second, *layout)) {
      layout = &pinned->second;
    }
    // Otherwise a layout is never rewritten into a physically identical one
    // (size-1 dims elsewhere in the order): that keeps the pass idempotent.
    if (!shape.has_layout() ||
        (pinned != exact_.end() ? !(shape.layout() == *layout)
                                : !SamePhysicalLayout(shape, shape.layout(), *layout))) {
      shape.set_layout(*layout);
      changed = true;
    }
  }
  // Every layout is decided now, as if written in the text.
  for (const Slot& slot : slots_) slot.instruction->set_layout_written(true);
  size_t copies_before = stats_.copies.size();
  InsertCopies(module);
  changed |= stats_.copies.size() != copies_before;

  HloComputation* entry = module.entry();
  ComputationLayout entry_layout;
  for (HloInstruction* p : entry->parameters()) {
    if (p == nullptr) {
      return absl::FailedPreconditionError("the entry's parameters are not numbered 0..n-1");
    }
    entry_layout.parameters.push_back(p->shape());
  }
  entry_layout.result = entry->root()->shape();
  const auto& old = module.entry_computation_layout();
  bool same = old && old->parameters.size() == entry_layout.parameters.size() &&
              old->result == entry_layout.result;
  for (size_t k = 0; same && k < entry_layout.parameters.size(); ++k) {
    same = old->parameters[k] == entry_layout.parameters[k];
  }
  if (!same) {
    module.set_entry_computation_layout(std::move(entry_layout));
    changed = true;
  }
  CollectStats(module);
  return changed;
}

}  // namespace

LayoutAssignment::LayoutAssignment()
    : target_(*TargetConfig::Builtin("default")) {}

LayoutAssignment::LayoutAssignment(TargetConfig target)
    : target_(std::move(target)) {}

absl::Status LayoutAssignment::SetOption(absl::string_view key,
                                         absl::string_view value) {
  absl::StatusOr<TargetConfig> target;
  if (key == "target") {
    target = TargetConfig::Builtin(value);
  } else if (key == "target-file") {
    target = TargetConfig::FromFile(std::string(value));
  } else {
    return HloPass::SetOption(key, value);
  }
  if (!target.ok()) return target.status();
  target_ = *std::move(target);
  return absl::OkStatus();
}

absl::StatusOr<bool> LayoutAssignment::Run(HloModule& module) {
  stats_ = LayoutAssignmentStats();
  Assigner assigner(target_, stats_);
  return assigner.Run(module);
}

std::string LayoutAssignment::StatsReport(bool json) const {
  return json ? stats_.ToJson() : stats_.ToText();
}

XLA_LAYOUT_REGISTER_PASS(LayoutAssignment);

}  // namespace xla_layout
