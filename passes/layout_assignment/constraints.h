// The layout constraints of a module for one target, as a value (XLA's
// LayoutConstraints): the array leaves that get a layout (slots), which of
// them are one buffer (aliases), what each use needs of the value it reads
// (operand edges, fixed operand layouts), and the layouts values start from
// (buffer layouts, each with a strength). Per-opcode rules in
// constraint_rules.cc and module-wide ones in constraints.cc build it;
// propagation reads it; building it never changes the module.
//
// Strengths: a value's layout is only ever replaced by a stronger one (or
// re-derived at the same strength when its source changes). Producers are
// the strongest: entry parameters, infeed/recv/bitcast results, layouts with
// attributes the pass does not model, chosen or constrained custom-call
// results, a packed dot's or a channels-last convolution's result.
#ifndef PASSES_LAYOUT_ASSIGNMENT_CONSTRAINTS_H_
#define PASSES_LAYOUT_ASSIGNMENT_CONSTRAINTS_H_

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/hlo_module.h"
#include "passes/layout_assignment/cost_model.h"
#include "passes/layout_assignment/stats.h"
#include "xla_layout/layout.h"
#include "xla_layout/shape.h"

namespace xla_layout::layout_assignment {

// Constraint strength, weakest first.
enum Level : int8_t {
  kUnset = 0,
  kDefault = 1,    // the target table's choice
  kHint = 2,       // a layout written in the input
  kMandatory = 3,  // a use needs it: the entry result, dot packing
  kProducer = 4,   // the value comes this way
};

// How the layouts on the two sides of an operand edge relate.
enum class Relation : int8_t {
  kSame,       // identical order and tiles (elementwise, tuple, while)
  kOrder,      // same dimension order; tiles fit each side (slice, pad, ...)
  kPermute,    // transpose: the operand's layout permuted
  kReshape,    // reshape: a bitcast-compatible layout, when one exists
  kBroadcast,  // toward the operand only: the result order restricted
  kReduce,     // toward the result only: the operand order restricted
};

// An array leaf of an instruction's result: the unit that gets a layout.
struct Slot {
  HloInstruction* instruction;
  Shape* shape;  // the array leaf inside instruction->shape()
};

// For a walk over the slots in order: starts loading the instruction of the
// slot as far ahead of `i` as a walk over a computation does (slots follow
// the instructions' order, so this is the same stream of lines).
inline void PrefetchSlotAhead(absl::Span<const Slot> slots, size_t i) {
  constexpr size_t kAhead = HloComputation::InstructionRange::kPrefetchAhead;
  if (i + kAhead < slots.size()) slots[i + kAhead].instruction->PrefetchForWalk();
}

// An edge from a use (operand `operand_index` of `user`, or, when `user` is
// null, the root of the computation that holds the value read) to the value
// it reads. `reason` is null on edges that only carry preferences: reshape,
// transpose, broadcast and reduce read their operand in any layout, so they
// never need a copy. 40 bytes: a module has about an edge per instruction.
struct OperandEdge {
  int result;   // slot on the user's side
  int operand;  // slot of the value read
  Relation relation;
  const char* reason;
  HloInstruction* user;
  int operand_index;
  int leaf;
};

// A use that needs the value in exactly `layout` (a copy when it differs).
struct OperandLayout {
  int operand;
  Layout layout;
  const char* reason;
  HloInstruction* user;
  HloComputation* computation;
  int operand_index;
  int leaf;
};

// What a convolution prefers for an operand; decided once layouts are known
// (read as it comes, or copied), by DecideConvolutionOperands.
struct ConvolutionPreference {
  int operand;  // slot
  Layout layout;
  HloInstruction* conv;
  int operand_index;
};

// A layout a value starts from. Buffer layouts of one instruction (or of the
// entry result) share a `batch` and are propagated together.
struct BufferLayout {
  int slot;
  Layout layout;
  int level;
  int batch = 0;
  // The rule that states it (`hlo-layout explain` names it): "header pin",
  // "infeed", "packed dot result", ... A static string.
  const char* rule = "";
};

// True for arrays of rank > 0: scalars, tokens and tuples get no layout.
bool IsLaidOut(const Shape& shape);
// The laid-out array leaves of `shape`, in order. Inline for one leaf: the
// pass asks for the leaves of every instruction, most of them arrays, and a
// heap vector each would be an allocation per instruction.
using LeafShapes = absl::InlinedVector<Shape*, 1>;
LeafShapes LaidOutLeaves(Shape& shape);
int LaidOutLeafCount(const Shape& shape);

class LayoutConstraints {
 public:
  // Builds the constraints of every computation, callees first; in the
  // entry the result's come before the parameters', as in XLA, so that a
  // conflict puts the copy on the parameter. Fails when the module states a
  // constraint that cannot hold: a custom call whose
  // operand_layout_constraints do not match its operands, or an
  // input_output_alias whose output and parameter the header's
  // entry_computation_layout fixes to different layouts.
  static absl::StatusOr<LayoutConstraints> Build(HloModule& module,
                                                 const LayoutCostModel& cost);

  const std::vector<Slot>& slots() const { return slots_; }
  int SlotOf(const HloInstruction* i, int leaf) const {
    return first_slot_.at(i->parent())[i->local_id()] + leaf;
  }
  // Whether `i` existed when the constraints were built.
  bool Covers(const HloInstruction* i) const {
    auto it = first_slot_.find(i->parent());
    return it != first_slot_.end() && i->local_id() >= 0 &&
           i->local_id() < static_cast<int>(it->second.size()) &&
           it->second[i->local_id()] >= 0;
  }
  // FusedComputations(module) when the constraints were built (one walk
  // of every instruction, shared by the pass's steps).
  const absl::flat_hash_set<const HloComputation*>& fused_computations() const {
    return fused_;
  }
  // Pairs of slots that are one buffer (get-tuple-element and its tuple
  // element, a while and its body's parameter, a fusion's parameter and its
  // operand, ...), in the order the rules found them.
  const std::vector<std::pair<int, int>>& aliases() const { return aliases_; }
  const std::vector<OperandEdge>& edges() const { return edges_; }
  // The computation of `edge`'s use: the user's, or the one whose root it is.
  HloComputation* ComputationOf(const OperandEdge& edge) const {
    return edge.user != nullptr ? edge.user->parent()
                                : slots_[edge.operand].instruction->parent();
  }
  const std::vector<OperandLayout>& operand_layouts() const {
    return operand_layouts_;
  }
  // Producer and mandatory layouts, in the order they apply.
  const std::vector<BufferLayout>& buffer_layouts() const { return buffers_; }
  // Layouts written in the input, which propagation places first and
  // spreads last.
  const std::vector<BufferLayout>& hints() const { return hints_; }
  // Entry parameters and result: printed exactly as pinned.
  const absl::flat_hash_map<int, Layout>& exact() const { return exact_; }
  const std::vector<ConvolutionPreference>& convolution_preferences() const {
    return conv_preferences_;
  }
  // A use that needs its value in `layout`, decided after propagation (a
  // convolution operand the cost model copies).
  void AddOperandLayout(OperandLayout need) { operand_layouts_.push_back(std::move(need)); }
  // The dot-packing decisions, with their figures, for the statistics.
  const std::vector<LayoutAssignmentStats::Packing>& packing() const { return packing_; }

 private:
  friend class ConstraintBuilder;
  std::vector<Slot> slots_;
  // Each instruction's first slot, by computation and local id (-1 for none):
  // vectors, not a hash map over every instruction of the module.
  absl::flat_hash_map<const HloComputation*, std::vector<int>> first_slot_;
  absl::flat_hash_set<const HloComputation*> fused_;
  std::vector<std::pair<int, int>> aliases_;
  std::vector<OperandEdge> edges_;
  std::vector<OperandLayout> operand_layouts_;
  std::vector<BufferLayout> buffers_;
  std::vector<BufferLayout> hints_;
  absl::flat_hash_map<int, Layout> exact_;
  std::vector<LayoutAssignmentStats::Packing> packing_;
  std::vector<ConvolutionPreference> conv_preferences_;
};

}  // namespace xla_layout::layout_assignment

#endif  // PASSES_LAYOUT_ASSIGNMENT_CONSTRAINTS_H_
