// What one run of the layout pass did, and its text and JSON reports
// (`hlo-layout --stats[=json]`).
#ifndef PASSES_LAYOUT_ASSIGNMENT_STATS_H_
#define PASSES_LAYOUT_ASSIGNMENT_STATS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hlo/hlo_module.h"

namespace xla_layout {

// Byte totals saturate at int64's maximum instead of wrapping negative: two
// buffers of 2^62 bytes are "at least 9.2e18 bytes", never a negative count.
inline int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t sum;
  return __builtin_add_overflow(a, b, &sum) ? INT64_MAX : sum;
}

struct LayoutAssignmentStats {
  std::string target;
  struct Copy {
    std::string name;         // the inserted copy
    std::string computation;  // where it runs
    std::string operand;      // the value it copies
    std::string reason;       // e.g. "dot operand packing"
    std::string from;         // layouts, as printed
    std::string to;
    int64_t bytes = 0;  // read + written by one execution of the copy
    bool in_loop = false;  // runs once per iteration of a while loop
    std::string kernel_class;  // the packing core's class for the copy
    // bytes at the class's rate; none without the target's copy_throughput
    std::optional<double> seconds;
  };
  std::vector<Copy> copies;
  // Control-flow computations cloned so that each has one caller.
  int computations_cloned = 0;
  // The census: data_bytes, padded_bytes and instructions_per_layout stay
  // zero and empty
  // when the pass ran with set_collect_stats(false).
  // Over every buffer the pass laid out (views counted once).
  int64_t data_bytes = 0;
  int64_t padded_bytes = 0;  // with the padding of their tiles
  // Values whose target tiling the cost model refused, with the padding
  // ratio (negative when the size is unbounded).
  std::vector<std::pair<std::string, double>> tilings_refused;
  // Each packable dot operand: whether it was packed and why.
  struct Packing {
    std::string dot;
    std::string operand;  // "lhs" or "rhs"
    int64_t reads = 0;    // times the dot reads the operand
    int64_t bytes = 0;    // the operand's data bytes
    bool packed = false;
    std::string why;
  };
  std::vector<Packing> packing;
  // Each convolution operand that came in a layout other than the preferred
  // one: the cost of reading it so, against a copy; the cheaper was taken.
  struct ConvolutionRead {
    std::string conv;
    int operand = 0;
    std::string have, want;  // layouts, as printed
    std::string conv_class;  // ConvReadName: "dense forward, channels-first read"
    double factor = 0;       // the table's read factor for that class
    int64_t read_cost = 0;   // bytes: the operand's bytes times the factor
    int64_t copy_bytes = 0;  // read + written by the copy
    std::string copy_class;  // the packing core's class for that copy
    // The two costs compared: seconds when the target has copy rates
    // (`timed`), else bytes.
    double read_seconds = 0, copy_seconds = 0;
    bool timed = false;
    bool copied = false;
  };
  std::vector<ConvolutionRead> convolution_reads;
  // Free values whose order the search moved off the descending one, or
  // whose consumers had a say: the chosen layout and the runner-up.
  struct FreeOrder {
    std::string value;
    std::string chosen, runner_up;  // layouts, as printed
    double score = 0, runner_up_score = 0;
  };
  std::vector<FreeOrder> free_orders;
  // Transposes and reshapes that move no byte under their layouts, rewritten
  // into bitcasts (outside fusion bodies; counted with or without the census).
  int transposes_as_bitcast = 0;
  int reshapes_as_bitcast = 0;
  std::map<std::string, int64_t> instructions_per_layout;

  // Bytes every copy moves in one run (copy_bytes_per_run), saturating.
  int64_t CopyBytes() const {
    int64_t bytes = 0;
    for (const Copy& c : copies) bytes = SaturatingAdd(bytes, c.bytes);
    return bytes;
  }

  std::string ToText() const;
  // One JSON object on one line, keys in a fixed order. Valid JSON whatever
  // the fields hold: bytes that are not UTF-8 print as U+FFFD, and a
  // non-finite number (a target table refuses what would make one) as null.
  std::string ToJson() const;
};

namespace layout_assignment {

class LayoutConstraints;
class LayoutPropagation;

// Bytes of `shape` in its layout, padding included (0 when it has no size).
int64_t ByteSize(const Shape& shape);

// Fills the buffer, layout and bitcast figures of `stats` from the module
// as the pass left it.
void CollectStats(const HloModule& module, const LayoutConstraints& constraints,
                  LayoutPropagation& propagation, LayoutAssignmentStats& stats);

}  // namespace layout_assignment
}  // namespace xla_layout

#endif  // PASSES_LAYOUT_ASSIGNMENT_STATS_H_
