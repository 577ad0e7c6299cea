#include "passes/layout_assignment/propagation.h"

#include <algorithm>

#include "xla_layout/layout_util.h"
#include "xla_layout/shape_text.h"

namespace xla_layout::layout_assignment {

std::optional<Layout> RelatedLayout(const OperandEdge& e,
                                    const LayoutConstraints& constraints,
                                    const LayoutCostModel& cost, bool toward_operand,
                                    const Layout& from, const Layout* current) {
  const Shape& result = *constraints.slots()[e.result].shape;
  const Shape& operand = *constraints.slots()[e.operand].shape;
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
      return cost.AdaptTiles(from, source, to);
    }
    case Relation::kPermute: {
      const auto& perm = e.user->attributes().dimensions;
      if (operand.rank() != result.rank() || !perm ||
          static_cast<int>(from.minor_to_major().size()) != result.rank()) {
        return std::nullopt;
      }
      return TransposedLayout(*perm, from, toward_operand);
    }
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
      return cost.TargetTiled(operand, m2m);
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
      return cost.TargetTiled(result, m2m);
    }
  }
  return std::nullopt;
}

LayoutPropagation::LayoutPropagation(const LayoutConstraints& constraints,
                                     const LayoutCostModel& cost)
    : constraints_(constraints), cost_(cost) {
  const size_t n = constraints.slots().size();
  parent_.resize(n);
  for (size_t s = 0; s < n; ++s) parent_[s] = static_cast<int>(s);
  level_.assign(n, kUnset);
  source_.assign(n, -1);
  cause_kind_.assign(n, LayoutCause::kNone);
  cause_index_.assign(n, -1);
  layout_.assign(n, Intern(Layout()));
  for (const auto& [a, b] : constraints.aliases()) Union(a, b);
}

int LayoutPropagation::Find(int s) {
  while (parent_[s] != s) {
    parent_[s] = parent_[parent_[s]];
    s = parent_[s];
  }
  return s;
}

void LayoutPropagation::Union(int a, int b) {
  a = Find(a);
  b = Find(b);
  if (a != b) parent_[std::max(a, b)] = std::min(a, b);
}

void LayoutPropagation::Set(int slot, const Layout& layout, int level, LayoutCause cause,
                            bool propagate, int from) {
  int g = Find(slot);
  const Shape& shape = *constraints_.slots()[g].shape;
  if (from >= 0 && from != g && source_[g] == from && level == level_[g]) {
    if (layout == layouts_[layout_[g]] || !ValidateLayoutForShape(layout, shape).ok()) return;
    layout_[g] = Intern(layout);
    cause_kind_[g] = cause.kind;
    cause_index_[g] = cause.index;
    if (propagate) queue_.push_back(g);
    return;
  }
  if (level <= level_[g]) return;
  if (!ValidateLayoutForShape(layout, shape).ok()) return;
  source_[g] = from;
  level_[g] = static_cast<int8_t>(level);
  layout_[g] = Intern(layout);
  cause_kind_[g] = cause.kind;
  cause_index_[g] = cause.index;
  if (propagate) queue_.push_back(g);
}

int32_t LayoutPropagation::Intern(const Layout& layout) {
  auto [it, inserted] = layout_ids_.try_emplace(layout, static_cast<int32_t>(layouts_.size()));
  if (inserted) layouts_.push_back(layout);
  return it->second;
}

int64_t ConcatenateOperandSizes::Extent(const HloInstruction& concatenate,
                                        const HloInstruction& operand) {
  ++extents_read_;
  const auto& dims = concatenate.attributes().dimensions;
  if (!dims || dims->size() != 1) return 0;
  const int64_t d = (*dims)[0];
  const Shape& s = operand.shape();
  return s.IsArray() && d >= 0 && d < s.rank() ? s.dimensions(static_cast<int>(d)) : 0;
}

bool ConcatenateOperandSizes::IsOutgrown(const OperandEdge& edge) {
  const HloInstruction* user = edge.user;
  if (user == nullptr || user->opcode() != HloOpcode::kConcatenate) return false;
  auto [it, inserted] = largest_.try_emplace(user, 0);
  if (inserted) {
    for (const HloInstruction* sibling : user->operands()) {
      it->second = std::max(it->second, Extent(*user, *sibling));
    }
  }
  return Extent(*user, *user->operand(edge.operand_index)) < it->second;
}

void LayoutPropagation::Drain() {
  const int64_t budget =
      64 * static_cast<int64_t>(constraints_.slots().size()) + 4096;
  const std::vector<OperandEdge>& edges = constraints_.edges();
  // Edges without a copy (reshape, transpose, broadcast, reduce) only carry
  // preferences. They wait until the copy-checked edges have spread what
  // the queue holds, so that a value tied to its neighbours by same-layout
  // edges takes their layout rather than a reader's wish (XLA's
  // ReshapeOperandHasMultipleUsers: tanh follows the broadcast it reads,
  // not the broadcast that reads it).
  std::deque<std::pair<int, int>> deferred;  // (group, edge)
  auto spread = [&](int g, int e, int level) {
    const OperandEdge& edge = edges[e];
    for (bool toward_operand : {true, false}) {
      const int here = toward_operand ? edge.result : edge.operand;
      const int there = toward_operand ? edge.operand : edge.result;
      if (Find(here) != g) continue;
      if (!toward_operand && concatenates_.IsOutgrown(edge)) continue;
      int other = Find(there);
      std::optional<Layout> d = RelatedLayout(
          edge, constraints_, cost_, toward_operand, layouts_[layout_[g]],
          level_[other] != kUnset ? &layouts_[layout_[other]] : nullptr);
      // Only an input kept as delivered is untiled where the target requires
      // tiles; what reads it reads a tiled copy.
      if (d) {
        Set(there, cost_.WithRequiredTiles(*constraints_.slots()[there].shape, *d), level,
            {LayoutCause::kEdge, e}, true, g);
      }
    }
  };
  while ((!queue_.empty() || !deferred.empty()) && ++steps_ < budget) {
    if (queue_.empty()) {
      auto [g, e] = deferred.front();
      deferred.pop_front();
      // Producers bind their own value only; what they propagate is as
      // strong as any other mandatory constraint, and a preference is at
      // most a hint: it never overrides a written layout.
      spread(g, e, std::min<int>({level_[g], kMandatory, kHint}));
      continue;
    }
    int g = queue_.front();
    queue_.pop_front();
    const int level = std::min<int>(level_[g], kMandatory);
    for (int k = adjacent_begin_[g]; k < adjacent_begin_[g + 1]; ++k) {
      const int e = adjacent_[k];
      if (edges[e].reason == nullptr) {
        deferred.emplace_back(g, e);
      } else {
        spread(g, e, level);
      }
    }
  }
}

namespace {

// The dims of `value` its dot consumers want away from the minor end: their
// batch dims (a dot wants its contracting and free dims minor).
std::vector<int64_t> BatchDimsOfConsumers(const HloInstruction& value) {
  std::vector<int64_t> dims;
  for (const HloInstruction* user : value.users()) {
    if (user->opcode() != HloOpcode::kDot) continue;
    for (int k = 0; k < user->operand_count() && k < 2; ++k) {
      if (user->operand(k) != &value) continue;
      const auto& batch = k == 0 ? user->attributes().dot().lhs_batch_dims
                                 : user->attributes().dot().rhs_batch_dims;
      if (batch) dims.insert(dims.end(), batch->begin(), batch->end());
    }
  }
  return dims;
}

}  // namespace

void LayoutPropagation::Run(LayoutAssignmentStats& stats) {
  const std::vector<OperandEdge>& edges = constraints_.edges();
  // Groups are fixed once the aliases are joined: the edges are bucketed
  // by group once, counted first and then placed.
  const size_t n = constraints_.slots().size();
  adjacent_begin_.assign(n + 1, 0);
  for (const OperandEdge& edge : edges) {
    int a = Find(edge.result), b = Find(edge.operand);
    ++adjacent_begin_[a + 1];
    if (b != a) ++adjacent_begin_[b + 1];
  }
  for (size_t g = 0; g < n; ++g) adjacent_begin_[g + 1] += adjacent_begin_[g];
  adjacent_.resize(adjacent_begin_[n]);
  std::vector<int> next(adjacent_begin_.begin(), adjacent_begin_.end() - 1);
  for (size_t e = 0; e < edges.size(); ++e) {
    int a = Find(edges[e].result), b = Find(edges[e].operand);
    adjacent_[next[a]++] = static_cast<int>(e);
    if (b != a) adjacent_[next[b]++] = static_cast<int>(e);
  }
  // Hints are placed first but spread last, so a hint always keeps its own
  // value unless a copy-checked constraint overrides it.
  const std::vector<BufferLayout>& hints = constraints_.hints();
  for (size_t k = 0; k < hints.size(); ++k) {
    Set(hints[k].slot, hints[k].layout, hints[k].level,
        {LayoutCause::kHint, static_cast<int>(k)}, false);
  }
  const std::vector<BufferLayout>& buffers = constraints_.buffer_layouts();
  for (size_t k = 0; k < buffers.size(); ++k) {
    Set(buffers[k].slot, buffers[k].layout, buffers[k].level,
        {LayoutCause::kBuffer, static_cast<int>(k)});
    if (k + 1 == buffers.size() || buffers[k + 1].batch != buffers[k].batch) Drain();
  }
  for (const BufferLayout& hint : hints) {
    int g = Find(hint.slot);
    if (level_[g] == kHint) queue_.push_back(g);
  }
  Drain();
  const std::vector<Slot>& slots = constraints_.slots();
  for (size_t slot = 0; slot < slots.size(); ++slot) {
    PrefetchSlotAhead(slots, slot);
    int g = Find(static_cast<int>(slot));
    if (level_[g] != kUnset) continue;
    const HloInstruction& value = *slots[g].instruction;
    const std::vector<int64_t> keep_major =
        value.shape().IsArray() ? BatchDimsOfConsumers(value) : std::vector<int64_t>{};
    LayoutCostModel::Default d = cost_.ChooseFreeLayout(*slots[g].shape, keep_major);
    if (d.refused_ratio) stats.tilings_refused.push_back({value.name(), *d.refused_ratio});
    const Shape& shape = *slots[g].shape;
    if (d.runner_up &&
        (!keep_major.empty() ||
         !SamePhysicalLayout(shape, Layout(d.layout.minor_to_major()),
                             DefaultLayoutForRank(shape.rank())))) {
      stats.free_orders.push_back({value.name(), PrintLayout(d.layout),
                                   PrintLayout(*d.runner_up), d.score, d.runner_up_score});
    }
    Set(g, d.layout, kDefault, {LayoutCause::kDefault, g});
    Drain();
  }
  queue_.clear();
}

}  // namespace xla_layout::layout_assignment
