// Shape inference for the ops with a window (convolution, reduce-window):
// the size a window leaves of each dim, and the shapes that follow.
#include "hlo/shape_inference_internal.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace xla_layout::shape_inference_internal {
namespace {

// Output size of one windowed dim, as XLA's window arithmetic has it.
int64_t WindowedSize(int64_t in, const WindowDimension& w) {
  int64_t dilated_in = in == 0 ? 0 : (in - 1) * w.lhs_dilation + 1;
  int64_t padded = dilated_in + w.padding_low + w.padding_high;
  int64_t window = w.size == 0 ? 0 : (w.size - 1) * w.rhs_dilation + 1;
  if (padded < window) return 0;
  return (padded - window) / w.stride + 1;
}

}  // namespace

absl::StatusOr<Shape> InferConvolution(const HloInstruction& i) {
  absl::Status st = NeedOperands(i, 2);
  if (!st.ok()) return st;
  const auto& a = i.attributes();
  if (!a.rare().dim_labels) return Bad("convolution needs dim_labels");
  const Shape& in = i.operand(0)->shape();
  const Shape& ker = i.operand(1)->shape();
  const ConvolutionDimLabels& l = *a.rare().dim_labels;
  if (static_cast<int>(l.input.size()) != in.rank() ||
      static_cast<int>(l.kernel.size()) != ker.rank() ||
      l.output.size() != l.input.size()) {
    return Bad(absl::StrCat("dim_labels ", l.input, "_", l.kernel, "->", l.output,
                            " do not fit ", in.ToString(), " and ", ker.ToString()));
  }
  const int spatial = in.rank() - 2;
  auto find = [](const std::string& labels, char c) -> int {
    size_t p = labels.find(c);
    return p == std::string::npos ? -1 : static_cast<int>(p);
  };
  int ib = find(l.input, 'b'), ifeat = find(l.input, 'f');
  int ki = find(l.kernel, 'i'), ko = find(l.kernel, 'o');
  int ob = find(l.output, 'b'), of = find(l.output, 'f');
  if (ib < 0 || ifeat < 0 || ki < 0 || ko < 0 || ob < 0 || of < 0) {
    return Bad("dim_labels need b and f on the input and output, i and o on the kernel");
  }
  std::vector<WindowDimension> window =
      a.rare().window.value_or(std::vector<WindowDimension>(spatial));
  if (static_cast<int>(window.size()) != spatial) {
    return Bad(absl::StrCat("the window has ", window.size(), " dims for ", spatial,
                            " spatial dims"));
  }
  const int64_t groups = a.rare().feature_group_count.value_or(1);
  const int64_t batch_groups = a.rare().batch_group_count.value_or(1);
  if (groups < 1 || batch_groups < 1) return Bad("group counts must be positive");
  if (in.dimensions(ifeat) != ker.dimensions(ki) * groups) {
    return Bad(absl::StrCat("the input has ", in.dimensions(ifeat),
                            " features; the kernel takes ", ker.dimensions(ki), " x ",
                            groups, " groups"));
  }
  if (in.dimensions(ib) % batch_groups != 0) {
    return Bad("the batch is not a multiple of batch_group_count");
  }
  std::vector<int64_t> dims(in.rank(), 0);
  dims[ob] = in.dimensions(ib) / batch_groups;
  dims[of] = ker.dimensions(ko);
  for (int s = 0; s < spatial; ++s) {
    char c = static_cast<char>('0' + s);
    int id = find(l.input, c), kd = find(l.kernel, c), od = find(l.output, c);
    if (id < 0 || kd < 0 || od < 0) {
      return Bad(absl::StrCat("dim_labels miss spatial dim ", s));
    }
    if (window[s].size != ker.dimensions(kd)) {
      return Bad(absl::StrCat("window size ", window[s].size, " of spatial dim ", s,
                              " differs from the kernel's ", ker.dimensions(kd)));
    }
    dims[od] = WindowedSize(in.dimensions(id), window[s]);
  }
  return Shape(in.element_type(), dims);
}

absl::StatusOr<Shape> InferReduceWindow(const HloInstruction& i) {
  if (i.operand_count() < 2 || i.operand_count() % 2 != 0) {
    return Bad("reduce-window takes inputs and as many init values");
  }
  absl::Status st = NeedArrays(i);
  if (!st.ok()) return st;
  const int n = i.operand_count() / 2;
  const Shape& first = i.operand(0)->shape();
  std::vector<WindowDimension> window =
      i.attributes().rare().window.value_or(std::vector<WindowDimension>(first.rank()));
  if (static_cast<int>(window.size()) != first.rank()) {
    return Bad(absl::StrCat("the window has ", window.size(), " dims for a rank-",
                            first.rank(), " input"));
  }
  std::vector<Shape> results;
  for (int k = 0; k < n; ++k) {
    const Shape& in = i.operand(k)->shape();
    if (in.dimensions() != first.dimensions()) return Bad("reduce-window's inputs differ");
    std::vector<int64_t> dims;
    for (int d = 0; d < in.rank(); ++d) dims.push_back(WindowedSize(in.dimensions(d), window[d]));
    results.push_back(Shape(i.operand(n + k)->shape().element_type(), dims));
  }
  return n == 1 ? results[0] : Shape::MakeTuple(results);
}

}  // namespace xla_layout::shape_inference_internal
