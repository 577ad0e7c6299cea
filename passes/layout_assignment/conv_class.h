// The class of a convolution, for the target table's per-class read factors
// (proto/target.proto, ConvReadFactor): its kind (1x1, grouped, k x k), the
// training pass it belongs to (forward, input gradient, weight gradient),
// and how an operand's layout differs from the one it prefers.
//
// HLO has no "backward" convolution: the pass is recognised by shape, as
// XLA's convolution rewriters do. An input gradient dilates its input
// (lhs_dilate, a strided forward's gradient) or reads a reversed kernel (a
// `reverse` operand or rhs_reversal); a weight gradient's window spans its
// input, so its result (a kernel) is smaller than the window in every
// spatial dim, or it groups by batch (batch_group_count, a grouped
// forward's weight gradient). Everything else is forward. The kind of a
// weight gradient is the kind of the kernel it computes (its result's
// spatial size), not of its window.
#ifndef PASSES_LAYOUT_ASSIGNMENT_CONV_CLASS_H_
#define PASSES_LAYOUT_ASSIGNMENT_CONV_CLASS_H_

#include <string>

#include "hlo/hlo_module.h"
#include "proto/target.pb.h"
#include "xla_layout/layout.h"

namespace xla_layout::layout_assignment {

struct ConvClass {
  ConvKind kind = ANY_CONV;
  ConvPass pass = ANY_PASS;
};

// The class of `conv` (a convolution with dim_labels and a window); ANY_*
// where the attributes do not say.
ConvClass ClassifyConvolution(const HloInstruction& conv);

// How operand `operand_index` of `conv` is read when it comes laid out
// `have` (and not as the convolution prefers): CHANNELS_FIRST_READ when
// its channel dim is not minor, CHANNELS_LAST_READ when it is. The channel
// dim is the one calibrate's NCHW/NHWC runs move: the input's `f` and the
// kernel's `o`, but in a weight gradient the input's `b` (there `f` labels
// the forward batch, and the kernel position holds the output gradient,
// whose channels are `o`). ANY_READ when the labels do not say.
ConvRead ClassifyRead(const HloInstruction& conv, int operand_index, const Layout& have);

// "depthwise forward, channels-first read", for the reports.
std::string ConvReadName(ConvClass c, ConvRead read);

}  // namespace xla_layout::layout_assignment

#endif  // PASSES_LAYOUT_ASSIGNMENT_CONV_CLASS_H_
