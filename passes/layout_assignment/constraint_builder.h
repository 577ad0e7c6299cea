// ConstraintBuilder (internal to the layout pass): one walk over a module
// that fills its LayoutConstraints. The rules that span the module are in
// constraints.cc, one handler per opcode class in constraint_rules.cc.
#ifndef PASSES_LAYOUT_ASSIGNMENT_CONSTRAINT_BUILDER_H_
#define PASSES_LAYOUT_ASSIGNMENT_CONSTRAINT_BUILDER_H_

#include <cstdint>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "hlo/hlo_module.h"
#include "passes/layout_assignment/constraints.h"
#include "passes/layout_assignment/cost_model.h"
#include "xla_layout/shape.h"

namespace xla_layout::layout_assignment {

// The laid-out leaves before element `element` of `tuple`: where that
// element's leaves start among the tuple's.
int LeafOffset(const Shape& tuple, int64_t element);

// The leaf number of the single laid-out array at `index` of `shape`, or -1
// when there is none there.
int LeafAt(const Shape& shape, absl::Span<const int64_t> index);

// Fills `out` for `module`: Build creates the slots, then visits each
// computation's instructions, callees first, then the module-wide rules.
class ConstraintBuilder {
 public:
  ConstraintBuilder(HloModule& module, const LayoutCostModel& cost,
                    LayoutConstraints& out)
      : module_(module), cost_(cost), c_(out) {}

  absl::Status Build();

 private:
  int SlotOf(const HloInstruction* i, int leaf) const { return c_.SlotOf(i, leaf); }
  void Alias(const HloInstruction* x, int x_offset, const HloInstruction* y,
             int y_offset, int count) {
    for (int k = 0; k < count; ++k) {
      c_.aliases_.push_back({SlotOf(x, x_offset + k), SlotOf(y, y_offset + k)});
    }
  }
  void AddEdges(HloInstruction* user, int operand_index, int result_offset,
                Relation relation, const char* reason) {
    const HloInstruction* operand = user->operand(operand_index);
    int n = LaidOutLeafCount(operand->shape());
    for (int k = 0; k < n; ++k) {
      c_.edges_.push_back({SlotOf(user, result_offset + k), SlotOf(operand, k),
                           relation, reason, user, operand_index, k});
    }
  }
  void Need(int slot, const Layout& layout, const char* reason,
            HloInstruction* user, HloComputation* computation, int operand_index,
            int leaf) {
    c_.operand_layouts_.push_back(
        {slot, layout, reason, user, computation, operand_index, leaf});
    c_.buffers_.push_back({slot, layout, kMandatory, batch_, reason});
  }
  // `rule` names the rule for `hlo-layout explain` (a static string).
  void Produce(int slot, const Layout& layout, const char* rule) {
    c_.buffers_.push_back({slot, layout, kProducer, batch_, rule});
  }

  void CreateSlots();
  // Entry outputs that input_output_alias makes one buffer with a
  // parameter the header pins untiled where the target requires tiles:
  // they stay untiled (the same bytes), written by a copy at the root.
  void FindUntiledOutputs();
  void AddChannels();
  absl::Status AddInputOutputAliases();
  void AddEntryResult(HloComputation* entry);
  void AddWrittenLayouts(HloInstruction* i);
  void TieVariadic(HloInstruction* i, int inputs, bool inputs_too = true);
  // The rules of each opcode class; Visit dispatches.
  absl::Status Visit(HloInstruction* i);
  void HandleElementwise(HloInstruction* i);
  void HandleGetTupleElement(HloInstruction* i);
  void HandleTuple(HloInstruction* i);
  void HandleWhile(HloInstruction* i);
  void HandleConditional(HloInstruction* i);
  void HandleCallOrFusion(HloInstruction* i);
  // async-start ((operands...), result, context...), -update and -done:
  // the wrapped computation's parameters are the operands, its root the
  // result, as for a call.
  void HandleAsync(HloInstruction* i);
  void HandleShapeChange(HloInstruction* i);
  void HandleReduce(HloInstruction* i);
  void HandleBitcast(HloInstruction* bitcast);
  void HandleBatchNorm(HloInstruction* i);
  void HandleSendRecv(HloInstruction* i);
  void HandleDot(HloInstruction* dot);
  void DecideDotOperand(HloInstruction* dot, int k, const Layout& packed, int64_t reads,
                        bool matrix_vector);
  absl::Status HandleCustomCall(HloInstruction* call);
  void HandleConvolution(HloInstruction* conv);
  void HandleCollective(HloInstruction* i);
  void HandleDataMovement(HloInstruction* i);

  // Inside a fusion body a value is no buffer of its own: the fused ops
  // address their operands through the index math, so their edges carry
  // preferences (no copy) and the parameters keep the fusion operands'
  // layouts, as in XLA.
  const char* UnlessFused(const HloInstruction* i, const char* reason) const {
    return c_.fused_.contains(i->parent()) ? nullptr : reason;
  }

  HloModule& module_;
  const LayoutCostModel& cost_;
  LayoutConstraints& c_;
  int batch_ = 0;
  // Output slot -> the parameter's layout (FindUntiledOutputs).
  absl::flat_hash_map<int, Layout> untiled_outputs_;
  // The sends, recvs and all-reduces, in module order, found by
  // CreateSlots' walk for AddChannels.
  std::vector<HloInstruction*> channel_ops_;
};

}  // namespace xla_layout::layout_assignment

#endif  // PASSES_LAYOUT_ASSIGNMENT_CONSTRAINT_BUILDER_H_
