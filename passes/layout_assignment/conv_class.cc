#include "passes/layout_assignment/conv_class.h"

#include <cctype>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"

namespace xla_layout::layout_assignment {
namespace {

// Spatial dims of `labels` ("bf01"), in window order (the digit's value).
std::vector<int64_t> SpatialDims(const std::string& labels) {
  std::vector<int64_t> dims(labels.size(), -1);
  int64_t count = 0;
  for (size_t d = 0; d < labels.size(); ++d) {
    if (std::isdigit(static_cast<unsigned char>(labels[d]))) {
      const size_t k = static_cast<size_t>(labels[d] - '0');
      if (k < dims.size()) dims[k] = static_cast<int64_t>(d);
      ++count;
    }
  }
  dims.resize(static_cast<size_t>(count));
  return dims;
}

}  // namespace

ConvClass ClassifyConvolution(const HloInstruction& conv) {
  ConvClass c;
  const auto& rare = conv.attributes().rare();
  if (!rare.dim_labels || !rare.window || conv.operand_count() != 2) return c;
  const std::vector<WindowDimension>& window = *rare.window;
  const std::vector<int64_t> out_spatial = SpatialDims(rare.dim_labels->output);
  const bool batch_groups = rare.batch_group_count.value_or(1) > 1;
  const bool grouped = batch_groups || rare.feature_group_count.value_or(1) > 1;
  bool dilated_or_reversed = conv.operand(1)->opcode() == HloOpcode::kReverse;
  bool spans_input = !window.empty() && out_spatial.size() == window.size();
  bool window_1x1 = true, result_1x1 = true;
  for (size_t k = 0; k < window.size(); ++k) {
    dilated_or_reversed |= window[k].lhs_dilation > 1 || window[k].reversal;
    window_1x1 &= window[k].size == 1;
    if (k < out_spatial.size() && out_spatial[k] >= 0 && conv.shape().IsArray() &&
        out_spatial[k] < conv.shape().rank()) {
      const int64_t extent = conv.shape().dimensions(out_spatial[k]);
      spans_input &= extent < window[k].size;
      result_1x1 &= extent == 1;
    } else {
      spans_input = false;
    }
  }
  if (batch_groups || spans_input) {
    c.pass = WEIGHT_GRADIENT;
  } else if (dilated_or_reversed) {
    c.pass = INPUT_GRADIENT;
  } else {
    c.pass = FORWARD;
  }
  const bool pointwise = c.pass == WEIGHT_GRADIENT ? result_1x1 : window_1x1;
  c.kind = grouped ? DEPTHWISE : pointwise ? POINTWISE : DENSE;
  return c;
}

ConvRead ClassifyRead(const HloInstruction& conv, int operand_index, const Layout& have) {
  const auto& labels = conv.attributes().rare().dim_labels;
  if (!labels || have.minor_to_major().empty()) return ANY_READ;
  const bool weight_gradient = ClassifyConvolution(conv).pass == WEIGHT_GRADIENT;
  const std::string& text = operand_index == 0 ? labels->input : labels->kernel;
  const char channel = operand_index != 0 ? 'o' : weight_gradient ? 'b' : 'f';
  const size_t dim = text.find(channel);
  if (dim == std::string::npos) return ANY_READ;
  return have.minor_to_major()[0] == static_cast<int64_t>(dim) ? CHANNELS_LAST_READ
                                                              : CHANNELS_FIRST_READ;
}

std::string ConvReadName(ConvClass c, ConvRead read) {
  const char* kind = c.kind == POINTWISE ? "1x1"
                     : c.kind == DEPTHWISE ? "depthwise"
                     : c.kind == DENSE     ? "dense"
                                           : "unclassified";
  const char* pass = c.pass == FORWARD           ? "forward"
                     : c.pass == INPUT_GRADIENT  ? "input gradient"
                     : c.pass == WEIGHT_GRADIENT ? "weight gradient"
                                                 : "unclassified";
  const char* how = read == CHANNELS_FIRST_READ  ? "channels-first read"
                    : read == CHANNELS_LAST_READ ? "channels-last read"
                                                 : "other read";
  return absl::StrCat(kind, " ", pass, ", ", how);
}

}  // namespace xla_layout::layout_assignment
