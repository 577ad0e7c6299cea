// Why each value has its layout and why each copy exists, as the layout pass
// decided them (`hlo-layout explain`). Built from the provenance propagation
// records (LayoutPropagation::CauseOf: the buffer layout, hint, operand edge
// or free choice that set each group's layout) and the needs copy insertion
// records (CopyNeed), only when the pass is asked for it
// (LayoutAssignment::set_explain).
//
// A copy's chain starts with the need (the user and operand that want the
// value in another layout, and the rule that says so), follows the layout
// the user wants back to where it was fixed (when an edge carried it), then
// the layout the value has, link by link, to a root cause: a header pin, an
// infeed, a custom-call constraint, a cost decision, a written layout, the
// target's default. Every link names an instruction of the rewritten module
// and a layout that instruction (or its operand) has there.
#ifndef PASSES_LAYOUT_ASSIGNMENT_PROVENANCE_H_
#define PASSES_LAYOUT_ASSIGNMENT_PROVENANCE_H_

#include <cstddef>
#include <string>
#include <vector>

#include "hlo/hlo_module.h"
#include "passes/layout_assignment/stats.h"

namespace xla_layout {

struct LayoutExplanation {
  struct Link {
    std::string instruction;  // an instruction of the rewritten module
    // >= 0: the layout is that of this operand of `instruction` (the need
    // of a copy: the operand is the copy); -1: of `instruction` itself.
    int operand = -1;
    int leaf = 0;        // the array leaf, in LaidOutLeaves order
    std::string layout;  // as printed
    std::string rule;    // "header pin", "elementwise agreement", ...
    std::string detail;  // the rule's figures and the neighbour it names
    int parameter = -1;  // a header pin of entry parameter N ...
    int result_leaf = -1;  // ... or of the entry result's leaf N
  };
  struct CopyChain {
    size_t copy = 0;  // index into LayoutAssignmentStats::copies
    std::vector<Link> chain;
  };
  std::vector<CopyChain> copies;
  // Values whose layout is not the target's default (descending order with
  // the target's tiles), one link each: the rule that chose it.
  std::vector<Link> values;
};

namespace layout_assignment {

class LayoutConstraints;
class LayoutPropagation;
class LayoutCostModel;
struct CopyNeed;

// The explanation of one run: a chain per copy of `needs` (`copies` as
// InsertCopies recorded them), and with `values` the values off the
// default. `had_header`: the module came with an entry_computation_layout
// (pins are the header's, not written layouts).
LayoutExplanation Explain(const HloModule& module, const LayoutConstraints& constraints,
                          LayoutPropagation& propagation, const LayoutCostModel& cost,
                          const std::vector<LayoutAssignmentStats::Copy>& copies,
                          const std::vector<CopyNeed>& needs, bool had_header, bool values);

}  // namespace layout_assignment
}  // namespace xla_layout

#endif  // PASSES_LAYOUT_ASSIGNMENT_PROVENANCE_H_
