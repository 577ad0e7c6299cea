// Shape inference for the ops with a window (convolution, reduce-window,
// select-and-scatter): the size a window leaves of each dim, computed with
// overflow checks, and the shapes that follow.
#include "hlo/shape_inference_internal.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace xla_layout::shape_inference_internal {
namespace {

// (n - 1) * dilation + 1 elements: n spread `dilation` apart.
std::optional<int64_t> Dilated(int64_t n, int64_t dilation) {
  if (n == 0) return 0;
  std::optional<int64_t> spread = Multiply(n - 1, dilation);
  return spread ? Add(*spread, 1) : std::nullopt;
}

// Output size of one windowed dim, as XLA's window arithmetic has it, or
// nothing where a step overflows int64.
std::optional<int64_t> WindowedSize(int64_t in, const WindowDimension& w) {
  std::optional<int64_t> padded = Dilated(in, w.lhs_dilation);
  if (padded) padded = Add(*padded, w.padding_low);
  if (padded) padded = Add(*padded, w.padding_high);
  std::optional<int64_t> window = Dilated(w.size, w.rhs_dilation);
  if (!padded || !window) return std::nullopt;
  if (*padded < *window) return 0;
  return Add((*padded - *window) / w.stride, 1);
}

// The size `w` leaves of a dim of `in` elements (window dim `d`), or why
// it has none.
absl::StatusOr<int64_t> WindowedDim(int64_t in, const WindowDimension& w, int d) {
  std::optional<int64_t> size = WindowedSize(in, w);
  if (!size) {
    return Bad(absl::StrCat("the window gives dim ", d, " (", in, " elements, lhs_dilate ",
                            w.lhs_dilation, ", rhs_dilate ", w.rhs_dilation, ", pad ",
                            w.padding_low, "_", w.padding_high,
                            ") a size that overflows int64"));
  }
  return *size;
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
    absl::StatusOr<int64_t> size = WindowedDim(in.dimensions(id), window[s], s);
    if (!size.ok()) return size.status();
    dims[od] = *size;
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
    for (int d = 0; d < in.rank(); ++d) {
      absl::StatusOr<int64_t> size = WindowedDim(in.dimensions(d), window[d], d);
      if (!size.ok()) return size.status();
      dims.push_back(*size);
    }
    results.push_back(Shape(i.operand(n + k)->shape().element_type(), dims));
  }
  return n == 1 ? results[0] : Shape::MakeTuple(results);
}

// select-and-scatter scatters its source over windows of its operand: the
// source has the dims the window leaves of the operand; the result is the
// operand's shape.
absl::StatusOr<Shape> InferSelectAndScatter(const HloInstruction& i) {
  absl::Status st = NeedOperands(i, 3);
  if (!st.ok()) return st;
  const Shape& in = i.operand(0)->shape();
  const Shape& source = i.operand(1)->shape();
  std::vector<WindowDimension> window =
      i.attributes().rare().window.value_or(std::vector<WindowDimension>(in.rank()));
  if (static_cast<int>(window.size()) != in.rank()) {
    return Bad(absl::StrCat("the window has ", window.size(), " dims for a rank-", in.rank(),
                            " operand"));
  }
  std::vector<int64_t> windows;
  for (int d = 0; d < in.rank(); ++d) {
    absl::StatusOr<int64_t> size = WindowedDim(in.dimensions(d), window[d], d);
    if (!size.ok()) return size.status();
    windows.push_back(*size);
  }
  if (source.dimensions() != absl::MakeConstSpan(windows)) {
    return Bad(absl::StrCat("select-and-scatter's source is ", source.ToString(),
                            " but the window leaves ", Dims(windows), " of the operand"));
  }
  return Like(in, in.element_type());
}

}  // namespace xla_layout::shape_inference_internal
