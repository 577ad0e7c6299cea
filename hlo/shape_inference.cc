#include "hlo/shape_inference.h"
#include "hlo/shape_inference_internal.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/sparse_dot.h"
#include "xla_layout/primitive_type.h"
#include "xla_layout/tiled_layout.h"

namespace xla_layout {
namespace shape_inference_internal {

absl::Status Bad(const std::string& message) {
  return absl::InvalidArgumentError(message);
}

std::string Dims(absl::Span<const int64_t> dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

// `ref` with another element type and no layout.
Shape Like(const Shape& ref, PrimitiveType type) {
  Shape s = ref;
  s.set_element_type(type);
  s.clear_layout();
  return s;
}

// a + b and a * b, or nothing where they would wrap: sizes come from the
// text, and a wrapped size makes a wrong written shape look right.
std::optional<int64_t> Add(int64_t a, int64_t b) {
  int64_t sum;
  if (__builtin_add_overflow(a, b, &sum)) return std::nullopt;
  return sum;
}
std::optional<int64_t> Multiply(int64_t a, int64_t b) {
  int64_t product;
  if (__builtin_mul_overflow(a, b, &product)) return std::nullopt;
  return product;
}

absl::Status NeedArrays(const HloInstruction& i) {
  for (int k = 0; k < i.operand_count(); ++k) {
    if (!i.operand(k)->shape().IsArray()) {
      return Bad(absl::StrCat("operand ", k, " is ", i.operand(k)->shape().ToString(),
                              ", not an array"));
    }
  }
  return absl::OkStatus();
}

absl::Status NeedOperands(const HloInstruction& i, int n) {
  if (i.operand_count() != n) {
    return Bad(absl::StrCat(HloOpcodeString(i.opcode()), " takes ", n,
                            " operands, not ", i.operand_count()));
  }
  return NeedArrays(i);
}

}  // namespace shape_inference_internal

namespace {

using shape_inference_internal::Add;
using shape_inference_internal::Bad;
using shape_inference_internal::Dims;
using shape_inference_internal::InferConvolution;
using shape_inference_internal::InferReduceWindow;
using shape_inference_internal::InferSelectAndScatter;
using shape_inference_internal::Like;
using shape_inference_internal::Multiply;
using shape_inference_internal::NeedArrays;
using shape_inference_internal::NeedOperands;

Shape NoLayout(Shape s) {
  if (s.IsTuple()) {
    for (Shape& e : s.mutable_tuple_shapes()) e = NoLayout(e);
  } else {
    s.clear_layout();
  }
  return s;
}

bool IsComplex(PrimitiveType t) { return t == C64 || t == C128; }
PrimitiveType ComponentOf(PrimitiveType t) { return t == C64 ? F32 : F64; }

bool IsIntegral(PrimitiveType t) {
  switch (t) {
    case S1: case S2: case S4: case S8: case S16: case S32: case S64:
    case U1: case U2: case U4: case U8: case U16: case U32: case U64:
      return true;
    default:
      return false;
  }
}

// The list, or an empty one; a reference, so that reading it copies nothing.
const std::vector<int64_t>& Attr(const std::optional<std::vector<int64_t>>& a) {
  static const std::vector<int64_t>* const kEmpty = new std::vector<int64_t>();
  return a ? *a : *kEmpty;
}

// Each of `dims` is a distinct dim below `rank`.
absl::Status NeedDims(absl::string_view what, absl::Span<const int64_t> dims, int rank) {
  absl::InlinedVector<bool, 8> seen(rank, false);
  for (int64_t d : dims) {
    if (d < 0 || d >= rank || seen[d]) {
      return Bad(absl::StrCat(what, " ", Dims(dims), " are not distinct dims of a rank-",
                              rank, " operand"));
    }
    seen[d] = true;
  }
  return absl::OkStatus();
}

// The operand whose shape an elementwise result has: select's predicate and
// clamp's bounds may be scalars, so their value operand.
const Shape& ElementwiseReference(const HloInstruction& i) {
  const HloOpcode op = i.opcode();
  return i.operand(op == HloOpcode::kSelect || op == HloOpcode::kClamp ? 1 : 0)->shape();
}

// What clamp and compare need beyond their operands' dims: clamp's bounds
// have its operand's element type (XLA converts nothing implicitly), and a
// compare's direction is one XLA knows (the executor would read any other
// as GE). Operands of the wrong count or kind are reported elsewhere.
absl::Status CheckElementwiseRules(const HloInstruction& i) {
  const HloOpcode op = i.opcode();
  if (op == HloOpcode::kClamp && i.operand_count() == 3) {
    const PrimitiveType t = i.operand(1)->shape().element_type();
    for (int k : {0, 2}) {
      const PrimitiveType bound = i.operand(k)->shape().element_type();
      if (bound != t) {
        return Bad(absl::StrCat("clamp's ", k == 0 ? "lower" : "upper", " bound is ",
                                PrimitiveTypeName(bound), " but its operand is ",
                                PrimitiveTypeName(t), "; the three must have one type"));
      }
    }
  }
  if (op == HloOpcode::kCompare) {
    const std::optional<std::string>& d = i.attributes().keywords().direction;
    constexpr absl::string_view kDirections[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
    if (!d || std::find(std::begin(kDirections), std::end(kDirections), *d) ==
                  std::end(kDirections)) {
      return Bad(absl::StrCat("compare's direction ", d ? absl::StrCat("'", *d, "'") : "(none)",
                              " is not one of EQ, NE, LT, LE, GT, GE"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<PrimitiveType> ElementwiseType(HloOpcode op, PrimitiveType t) {
  switch (op) {
    case HloOpcode::kCompare:
    case HloOpcode::kIsFinite:
      return PRED;
    case HloOpcode::kReal:
    case HloOpcode::kImag:
    case HloOpcode::kAbs:
      return IsComplex(t) ? ComponentOf(t) : t;
    case HloOpcode::kComplex:
      if (t != F32 && t != F64) return Bad("complex needs f32 or f64 parts");
      return t == F32 ? C64 : C128;
    default:
      return t;
  }
}

absl::StatusOr<Shape> InferElementwise(const HloInstruction& i) {
  const HloOpcode op = i.opcode();
  if (op == HloOpcode::kConvert || op == HloOpcode::kStochasticConvert) {
    return absl::NotFoundError("a convert's type is written");
  }
  if (i.operand_count() != ElementwiseArity(op)) {
    return Bad(absl::StrCat(HloOpcodeString(op), " takes ", ElementwiseArity(op),
                            " operands, not ", i.operand_count()));
  }
  absl::Status arrays = NeedArrays(i);
  if (!arrays.ok()) return arrays;
  absl::Status rules = CheckElementwiseRules(i);
  if (!rules.ok()) return rules;
  // select's predicate and clamp's bounds may be scalars: the value operand
  // gives the shape.
  const Shape& ref = ElementwiseReference(i);
  absl::StatusOr<PrimitiveType> type = ElementwiseType(op, ref.element_type());
  if (!type.ok()) return type.status();
  return Like(ref, *type);
}

// lhs, rhs, and one metadata operand per sparsity descriptor.
absl::Status NeedDotOperands(const HloInstruction& i) {
  const size_t sparse = i.attributes().dot().sparsity.size();
  if (sparse == 0) return NeedOperands(i, 2);
  if (static_cast<size_t>(i.operand_count()) != 2 + sparse) {
    return Bad(absl::StrCat("a dot with ", sparse, " sparsity descriptor",
                            sparse > 1 ? "s" : "", " takes ", 2 + sparse,
                            " operands (lhs, rhs and a metadata operand per descriptor), not ",
                            i.operand_count()));
  }
  return NeedArrays(i);
}

absl::StatusOr<Shape> InferDot(const HloInstruction& i) {
  absl::Status st = NeedDotOperands(i);
  if (!st.ok()) return st;
  const Shape& lhs = i.operand(0)->shape();
  const Shape& rhs = i.operand(1)->shape();
  const auto& a = i.attributes();
  const std::vector<int64_t>& lc = Attr(a.dot().lhs_contracting_dims);
  const std::vector<int64_t>& rc = Attr(a.dot().rhs_contracting_dims);
  const std::vector<int64_t>& lb = Attr(a.dot().lhs_batch_dims);
  const std::vector<int64_t>& rb = Attr(a.dot().rhs_batch_dims);
  if (lc.size() != rc.size() || lb.size() != rb.size()) {
    return Bad("dot needs as many lhs as rhs contracting dims, and batch dims");
  }
  absl::InlinedVector<int64_t, 8> lhs_used(lc.begin(), lc.end()), rhs_used(rc.begin(), rc.end());
  lhs_used.insert(lhs_used.end(), lb.begin(), lb.end());
  rhs_used.insert(rhs_used.end(), rb.begin(), rb.end());
  if (!(st = NeedDims("dot's lhs contracting and batch dims", lhs_used, lhs.rank())).ok() ||
      !(st = NeedDims("dot's rhs contracting and batch dims", rhs_used, rhs.rank())).ok() ||
      !(st = CheckSparsity(i, lc, rc)).ok() || !(st = CheckContractedSizes(i, lc, rc)).ok()) {
    return st;
  }
  absl::InlinedVector<int64_t, 8> dims;
  for (size_t k = 0; k < lb.size(); ++k) {
    if (lhs.dimensions(lb[k]) != rhs.dimensions(rb[k])) {
      return Bad(absl::StrCat("dot's batch dims differ: lhs dim ", lb[k], " is ",
                              lhs.dimensions(lb[k]), ", rhs dim ", rb[k], " is ",
                              rhs.dimensions(rb[k])));
    }
    dims.push_back(lhs.dimensions(lb[k]));
  }
  for (int d = 0; d < lhs.rank(); ++d) {
    if (std::find(lhs_used.begin(), lhs_used.end(), d) == lhs_used.end()) {
      dims.push_back(lhs.dimensions(d));
    }
  }
  for (int d = 0; d < rhs.rank(); ++d) {
    if (std::find(rhs_used.begin(), rhs_used.end(), d) == rhs_used.end()) {
      dims.push_back(rhs.dimensions(d));
    }
  }
  return Shape(lhs.element_type(), dims);
}

absl::StatusOr<Shape> InferTranspose(const HloInstruction& i) {
  absl::Status st = NeedOperands(i, 1);
  if (!st.ok()) return st;
  const Shape& in = i.operand(0)->shape();
  const std::vector<int64_t>& perm = Attr(i.attributes().dimensions);
  if (static_cast<int>(perm.size()) != in.rank() ||
      !(st = NeedDims("transpose's dimensions", perm, in.rank())).ok()) {
    return Bad(absl::StrCat("transpose's dimensions ", Dims(perm),
                            " are not a permutation of ", in.rank(), " dims"));
  }
  Shape out = Like(in, in.element_type());
  for (int k = 0; k < in.rank(); ++k) {
    out.set_dimensions(k, in.dimensions(perm[k]));
    out.set_dynamic_dimension(k, in.is_dynamic_dimension(perm[k]));
  }
  return out;
}

// The dims of `in` without `removed`.
Shape Without(const Shape& in, absl::Span<const int64_t> removed, PrimitiveType type) {
  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
  for (int d = 0; d < in.rank(); ++d) {
    if (std::find(removed.begin(), removed.end(), d) != removed.end()) continue;
    dims.push_back(in.dimensions(d));
    dynamic.push_back(in.is_dynamic_dimension(d));
  }
  Shape out(type, dims);
  for (size_t d = 0; d < dynamic.size(); ++d) out.set_dynamic_dimension(d, dynamic[d]);
  return out;
}

absl::StatusOr<Shape> InferReduce(const HloInstruction& i) {
  if (i.operand_count() < 2 || i.operand_count() % 2 != 0) {
    return Bad("reduce takes inputs and as many init values");
  }
  absl::Status st = NeedArrays(i);
  if (!st.ok()) return st;
  const int n = i.operand_count() / 2;
  const std::vector<int64_t> dims = i.attributes().dimensions.value_or(std::vector<int64_t>{});
  const Shape& first = i.operand(0)->shape();
  if (!(st = NeedDims("reduce's dimensions", dims, first.rank())).ok()) return st;
  std::vector<Shape> results;
  for (int k = 0; k < n; ++k) {
    const Shape& in = i.operand(k)->shape();
    const Shape& init = i.operand(n + k)->shape();
    if (in.dimensions() != first.dimensions()) {
      return Bad(absl::StrCat("reduce's inputs differ in dims: ", in.ToString(), " and ",
                              first.ToString()));
    }
    if (init.rank() != 0) {
      return Bad(absl::StrCat("reduce's init value ", k, " is ", init.ToString(),
                              ", not a scalar"));
    }
    results.push_back(Without(in, dims, init.element_type()));
  }
  return n == 1 ? results[0] : Shape::MakeTuple(results);
}

absl::StatusOr<Shape> InferConcatenate(const HloInstruction& i) {
  if (i.operand_count() < 1) return Bad("concatenate needs an operand");
  absl::Status st = NeedArrays(i);
  if (!st.ok()) return st;
  const auto& dims = i.attributes().dimensions;
  const Shape& first = i.operand(0)->shape();
  if (!dims || dims->size() != 1 || (*dims)[0] < 0 || (*dims)[0] >= first.rank()) {
    return Bad("concatenate needs dimensions={d} with d a dim of its operands");
  }
  const int64_t d = (*dims)[0];
  Shape out = Like(first, first.element_type());
  int64_t total = 0;
  for (int k = 0; k < i.operand_count(); ++k) {
    const Shape& s = i.operand(k)->shape();
    if (s.rank() != first.rank() || s.element_type() != first.element_type()) {
      return Bad(absl::StrCat("concatenate's operand ", k, " is ", s.ToString(),
                              ", unlike operand 0 ", first.ToString()));
    }
    for (int e = 0; e < s.rank(); ++e) {
      if (e != d && s.dimensions(e) != first.dimensions(e)) {
        return Bad(absl::StrCat("concatenate's operand ", k, " is ", s.ToString(),
                                ": only dim ", d, " may differ from ", first.ToString()));
      }
    }
    total += s.dimensions(d);
  }
  out.set_dimensions(d, total);
  return out;
}

// lo + hi + n + (n - 1) * interior: the size pad gives a dim of n.
std::optional<int64_t> PaddedSize(int64_t n, const std::array<int64_t, 3>& padding) {
  std::optional<int64_t> size = Multiply(std::max<int64_t>(n - 1, 0), padding[2]);
  for (int64_t term : {n, padding[0], padding[1]}) {
    if (size) size = Add(*size, term);
  }
  return size;
}

absl::StatusOr<Shape> InferPad(const HloInstruction& i) {
  absl::Status st = NeedOperands(i, 2);
  if (!st.ok()) return st;
  const Shape& in = i.operand(0)->shape();
  const auto& padding = i.attributes().rare().padding;
  if (!padding || static_cast<int>(padding->size()) != in.rank()) {
    return Bad(absl::StrCat("pad needs padding for each of the ", in.rank(), " dims"));
  }
  if (i.operand(1)->shape().rank() != 0) return Bad("pad's padding value must be a scalar");
  Shape out = Like(in, in.element_type());
  for (int d = 0; d < in.rank(); ++d) {
    const auto& [lo, hi, interior] = (*padding)[d];
    if (interior < 0) return Bad("pad's interior padding must not be negative");
    const int64_t n = in.dimensions(d);
    std::optional<int64_t> size = PaddedSize(n, (*padding)[d]);
    if (!size) {
      return Bad(absl::StrCat("pad gives dim ", d, " (", n, " elements, padding ", lo, "_", hi,
                              "_", interior, ") a size that overflows int64"));
    }
    if (*size < 0) return Bad(absl::StrCat("pad makes dim ", d, " negative"));
    out.set_dimensions(d, *size);
  }
  return out;
}

absl::StatusOr<Shape> InferSlice(const HloInstruction& i) {
  absl::Status st = NeedOperands(i, 1);
  if (!st.ok()) return st;
  const Shape& in = i.operand(0)->shape();
  const auto& slice = i.attributes().rare().slice;
  if (!slice || static_cast<int>(slice->size()) != in.rank()) {
    return Bad(absl::StrCat("slice needs a [begin:end:stride] for each of the ", in.rank(),
                            " dims"));
  }
  Shape out = Like(in, in.element_type());
  for (int d = 0; d < in.rank(); ++d) {
    const auto& [begin, end, stride] = (*slice)[d];
    if (begin < 0 || begin > end || end > in.dimensions(d) || stride < 1) {
      return Bad(absl::StrCat("slice [", begin, ":", end, ":", stride, "] is out of dim ",
                              d, " of ", in.ToString()));
    }
    out.set_dimensions(d, (end - begin + stride - 1) / stride);
  }
  return out;
}

// The start indices of a dynamic-slice or dynamic-update-slice, operands
// `first` on: integers, as XLA requires (it has no rounding rule for a
// floating-point start).
absl::Status NeedIntegralIndices(const HloInstruction& i, int first) {
  for (int k = first; k < i.operand_count(); ++k) {
    const PrimitiveType t = i.operand(k)->shape().element_type();
    if (!IsIntegral(t)) {
      return Bad(absl::StrCat(HloOpcodeString(i.opcode()), "'s start index (operand ", k,
                              ") is ", PrimitiveTypeName(t), "; start indices are integers"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> InferDynamicSlice(const HloInstruction& i) {
  if (i.operand_count() < 1) return Bad("dynamic-slice needs an operand");
  absl::Status st = NeedArrays(i);
  if (!st.ok()) return st;
  const Shape& in = i.operand(0)->shape();
  const auto& sizes = i.attributes().rare().dynamic_slice_sizes;
  if (!sizes || static_cast<int>(sizes->size()) != in.rank()) {
    return Bad(absl::StrCat("dynamic-slice needs dynamic_slice_sizes for each of the ",
                            in.rank(), " dims"));
  }
  const bool scalar_indices = i.operand_count() == 1 + in.rank();
  if (!scalar_indices && i.operand_count() != 2) {
    return Bad(absl::StrCat("dynamic-slice takes the operand and ", in.rank(),
                            " scalar indices"));
  }
  if (!(st = NeedIntegralIndices(i, 1)).ok()) return st;
  for (int d = 0; d < in.rank(); ++d) {
    if ((*sizes)[d] < 0 || (*sizes)[d] > in.dimensions(d)) {
      return Bad(absl::StrCat("dynamic_slice_sizes ", Dims(*sizes), " do not fit ",
                              in.ToString()));
    }
  }
  return Shape(in.element_type(), *sizes);
}

absl::StatusOr<Shape> InferDynamicUpdateSlice(const HloInstruction& i) {
  if (i.operand_count() < 2) return Bad("dynamic-update-slice needs an operand and an update");
  absl::Status st = NeedArrays(i);
  if (!st.ok()) return st;
  const Shape& in = i.operand(0)->shape();
  const Shape& update = i.operand(1)->shape();
  if (update.rank() != in.rank()) return Bad("the update's rank differs from the operand's");
  if (!(st = NeedIntegralIndices(i, 2)).ok()) return st;
  for (int d = 0; d < in.rank(); ++d) {
    if (update.dimensions(d) > in.dimensions(d)) {
      return Bad(absl::StrCat("the update ", update.ToString(), " does not fit in ",
                              in.ToString()));
    }
  }
  return Like(in, in.element_type());
}

absl::StatusOr<Shape> InferReverse(const HloInstruction& i) {
  absl::Status st = NeedOperands(i, 1);
  if (!st.ok()) return st;
  const Shape& in = i.operand(0)->shape();
  st = NeedDims("reverse's dimensions", Attr(i.attributes().dimensions), in.rank());
  if (!st.ok()) return st;
  return Like(in, in.element_type());
}

absl::StatusOr<Shape> InferGather(const HloInstruction& i) {
  absl::Status st = NeedOperands(i, 2);
  if (!st.ok()) return st;
  const Shape& in = i.operand(0)->shape();
  const Shape& indices = i.operand(1)->shape();
  const auto& a = i.attributes();
  const std::vector<int64_t> offset_dims = i.DimensionNumbers("offset_dims");
  const std::vector<int64_t> collapsed = i.DimensionNumbers("collapsed_slice_dims");
  const std::vector<int64_t> batching = i.DimensionNumbers("operand_batching_dims");
  const std::vector<int64_t> sizes = a.rare().slice_sizes.value_or(std::vector<int64_t>{});
  int64_t index_vector_dim = a.rare().index_vector_dim.value_or(indices.rank());
  if (static_cast<int>(sizes.size()) != in.rank()) {
    return Bad(absl::StrCat("gather needs slice_sizes for each of the ", in.rank(), " dims"));
  }
  for (int d = 0; d < in.rank(); ++d) {
    if (sizes[d] < 0 || sizes[d] > in.dimensions(d)) {
      return Bad(absl::StrCat("slice_sizes ", Dims(sizes), " do not fit ", in.ToString()));
    }
  }
  std::vector<int64_t> window;  // the kept slice dims, in operand order
  for (int d = 0; d < in.rank(); ++d) {
    bool dropped = std::find(collapsed.begin(), collapsed.end(), d) != collapsed.end() ||
                   std::find(batching.begin(), batching.end(), d) != batching.end();
    if (!dropped) window.push_back(sizes[d]);
  }
  if (window.size() != offset_dims.size()) {
    return Bad(absl::StrCat("gather keeps ", window.size(), " slice dims but has ",
                            offset_dims.size(), " offset_dims"));
  }
  std::vector<int64_t> batch;  // the indices' dims but the index vector dim
  for (int d = 0; d < indices.rank(); ++d) {
    if (d != index_vector_dim) batch.push_back(indices.dimensions(d));
  }
  const int rank = static_cast<int>(batch.size() + window.size());
  if ((st = NeedDims("gather's offset_dims", offset_dims, rank)).ok() == false) return st;
  std::vector<int64_t> dims(rank);
  size_t next_batch = 0, next_window = 0;
  for (int d = 0; d < rank; ++d) {
    bool offset = std::find(offset_dims.begin(), offset_dims.end(), d) != offset_dims.end();
    dims[d] = offset ? window[next_window++] : batch[next_batch++];
  }
  return Shape(in.element_type(), dims);
}

absl::StatusOr<Shape> InferScatter(const HloInstruction& i) {
  if (i.operand_count() < 3 || (i.operand_count() - 1) % 2 != 0) {
    return Bad("scatter takes operands, indices and as many updates");
  }
  absl::Status st = NeedArrays(i);
  if (!st.ok()) return st;
  const int n = (i.operand_count() - 1) / 2;
  std::vector<Shape> results;
  for (int k = 0; k < n; ++k) results.push_back(NoLayout(i.operand(k)->shape()));
  return n == 1 ? results[0] : Shape::MakeTuple(results);
}

// collective-permute: one operand's shape; the in-place form (input, output
// buffer, input and output start indices, with slice_sizes) gives the output
// buffer; several operands, as XLA's combined form, a tuple of them.
absl::StatusOr<Shape> InferCollectivePermute(const HloInstruction& i) {
  if (i.operand_count() < 1) return Bad("collective-permute needs an operand");
  if (IsInPlaceCollectivePermute(i)) return NoLayout(i.operand(1)->shape());
  if (i.operand_count() == 1) return NoLayout(i.operand(0)->shape());
  std::vector<Shape> results;
  for (const HloInstruction* o : i.operands()) results.push_back(NoLayout(o->shape()));
  return Shape::MakeTuple(results);
}

// collective-permute-done: the start's (input, output, context...) gives the
// output.
absl::StatusOr<Shape> InferCollectivePermuteDone(const HloInstruction& i) {
  const Shape& state = i.operand_count() == 1 ? i.operand(0)->shape() : Shape();
  if (!state.IsTuple() || state.tuple_shapes().size() < 2) {
    return Bad("collective-permute-done needs the start's (input, output, context...) as "
               "its one operand");
  }
  return NoLayout(state.tuple_shapes()[1]);
}

absl::StatusOr<Shape> InferCalled(const HloInstruction& i, absl::string_view attribute) {
  const HloComputation* c = attribute.empty()
                                ? (i.called_computations().empty()
                                       ? nullptr
                                       : i.called_computations()[0].computation)
                                : i.called_computation(attribute);
  if (c == nullptr || c->root() == nullptr) {
    return Bad(absl::StrCat(HloOpcodeString(i.opcode()), " calls no computation"));
  }
  return NoLayout(c->root()->shape());
}

absl::StatusOr<Shape> InferGetTupleElement(const HloInstruction& i) {
  if (i.operand_count() != 1) return Bad("get-tuple-element takes one operand");
  const Shape& t = i.operand(0)->shape();
  int64_t index = i.attributes().index().value_or(-1);
  if (!t.IsTuple() || index < 0 || index >= static_cast<int64_t>(t.tuple_shapes().size())) {
    return Bad(absl::StrCat("get-tuple-element index ", index, " is not an element of ",
                            t.ToString()));
  }
  return NoLayout(t.tuple_shapes()[index]);
}

absl::StatusOr<Shape> InferMap(const HloInstruction& i) {
  if (i.operand_count() < 1 || !i.operand(0)->shape().IsArray()) {
    return Bad("map needs array operands");
  }
  absl::StatusOr<Shape> scalar = InferCalled(i, "to_apply");
  if (!scalar.ok()) return scalar;
  return Like(i.operand(0)->shape(), scalar->element_type());
}

absl::StatusOr<Shape> InferSort(const HloInstruction& i) {
  std::vector<Shape> results;
  for (const HloInstruction* o : i.operands()) results.push_back(NoLayout(o->shape()));
  if (results.empty()) return Bad("sort needs an operand");
  return results.size() == 1 ? results[0] : Shape::MakeTuple(results);
}

// ((operands...), results, context...): update passes it on, done returns
// the results.
absl::StatusOr<Shape> InferAsyncUpdateOrDone(const HloInstruction& i) {
  const HloOpcode op = i.opcode();
  const Shape& state = i.operand_count() == 1 ? i.operand(0)->shape() : Shape();
  if (!state.IsTuple() || state.tuple_shapes().size() < 2) {
    return Bad(absl::StrCat(HloOpcodeString(op), " needs the async state "
                            "((operands...), results, context...) as its operand"));
  }
  return NoLayout(op == HloOpcode::kAsyncDone ? state.tuple_shapes()[1] : state);
}

// The ops that compute on arrays (not elementwise): one handler each.
absl::StatusOr<Shape> InferArrayOp(const HloInstruction& i) {
  switch (i.opcode()) {
    case HloOpcode::kTranspose:
      return InferTranspose(i);
    case HloOpcode::kDot:
      return InferDot(i);
    case HloOpcode::kReduce:
      return InferReduce(i);
    case HloOpcode::kReduceWindow:
      return InferReduceWindow(i);
    case HloOpcode::kConcatenate:
      return InferConcatenate(i);
    case HloOpcode::kPad:
      return InferPad(i);
    case HloOpcode::kSlice:
      return InferSlice(i);
    case HloOpcode::kDynamicSlice:
      return InferDynamicSlice(i);
    case HloOpcode::kDynamicUpdateSlice:
      return InferDynamicUpdateSlice(i);
    case HloOpcode::kConvolution:
      return InferConvolution(i);
    case HloOpcode::kReverse:
      return InferReverse(i);
    case HloOpcode::kSelectAndScatter:
      return InferSelectAndScatter(i);
    case HloOpcode::kGather:
      return InferGather(i);
    case HloOpcode::kScatter:
      return InferScatter(i);
    case HloOpcode::kCollectivePermute:
      return InferCollectivePermute(i);
    case HloOpcode::kCollectivePermuteDone:
      return InferCollectivePermuteDone(i);
    default:
      return absl::NotFoundError(absl::StrCat("the shape of ", HloOpcodeString(i.opcode()),
                                              " is not inferred"));
  }
}

}  // namespace

// Elementwise ops first; then tuples, control flow, async and the ops of a
// fixed shape here; the array ops in InferArrayOp.
absl::StatusOr<Shape> InferShape(const HloInstruction& i) {
  const HloOpcode op = i.opcode();
  if (IsElementwise(op)) return InferElementwise(i);
  for (int k = 0; k < i.operand_count(); ++k) {
    if (i.operand(k)->shape().element_type() == PRIMITIVE_TYPE_INVALID) {
      return Bad(absl::StrCat("operand '", i.operand(k)->name(), "' has no shape yet"));
    }
  }
  switch (op) {
    case HloOpcode::kTuple: {
      std::vector<Shape> elements;
      for (const HloInstruction* o : i.operands()) elements.push_back(NoLayout(o->shape()));
      return Shape::MakeTuple(elements);
    }
    case HloOpcode::kGetTupleElement:
      return InferGetTupleElement(i);
    case HloOpcode::kWhile:
    case HloOpcode::kAddDependency:
    case HloOpcode::kOptimizationBarrier:
      if (i.operand_count() < 1) return Bad(absl::StrCat(HloOpcodeString(op), " needs an operand"));
      return NoLayout(i.operand(0)->shape());
    case HloOpcode::kConditional:
    case HloOpcode::kCall:
      return InferCalled(i, "");
    case HloOpcode::kMap:
      return InferMap(i);
    case HloOpcode::kSort:
      return InferSort(i);
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
      return InferAsyncUpdateOrDone(i);
    case HloOpcode::kAfterAll:
      return Shape::MakeToken();
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId:
      return Shape(U32, {});
    case HloOpcode::kGetDimensionSize:
      return Shape(S32, {});
    default:
      return InferArrayOp(i);
  }
}

namespace {

// Checks for ops whose shape is written, never inferred.
absl::Status CheckWritten(const HloInstruction& i) {
  const Shape& out = i.shape();
  const HloOpcode op = i.opcode();
  if (i.operand_count() < 1) {
    if (op == HloOpcode::kIota) {
      int64_t d = i.attributes().rare().iota_dimension.value_or(-1);
      if (!out.IsArray() || d < 0 || d >= out.rank()) {
        return Bad(absl::StrCat("iota_dimension ", d, " is not a dim of ", out.ToString()));
      }
    }
    return absl::OkStatus();
  }
  const Shape& in = i.operand(0)->shape();
  switch (op) {
    case HloOpcode::kReshape: {
      absl::StatusOr<int64_t> a = in.ElementCount(), b = out.ElementCount();
      if (a.ok() && b.ok() && *a != *b) {
        return Bad(absl::StrCat("reshape of ", *a, " elements (", in.ToString(), ") cannot be ",
                                *b, " elements"));
      }
      if (in.IsArray() && out.IsArray() && in.element_type() != out.element_type()) {
        return Bad("reshape cannot change the element type");
      }
      return absl::OkStatus();
    }
    case HloOpcode::kBitcast: {
      if (!in.IsArray() || !out.IsArray() || !in.has_layout() || !out.has_layout()) {
        return absl::OkStatus();
      }
      absl::StatusOr<TiledLayout> a = TiledLayout::Create(in), b = TiledLayout::Create(out);
      if (a.ok() && b.ok() && a->byte_size() != b->byte_size()) {
        return Bad(absl::StrCat("bitcast of ", a->byte_size(), " bytes (", in.ToString(),
                                ") cannot be ", b->byte_size(), " bytes (", out.ToString(), ")"));
      }
      return absl::OkStatus();
    }
    case HloOpcode::kConvert:
    case HloOpcode::kStochasticConvert:
      if (in.IsArray() && out.IsArray() && in.dimensions() != out.dimensions()) {
        return Bad(absl::StrCat("convert of ", in.ToString(), " cannot be ", out.ToString()));
      }
      return absl::OkStatus();
    case HloOpcode::kBitcastConvert: {
      if (!in.IsArray() || !out.IsArray()) return absl::OkStatus();
      int64_t a = PrimitiveBitWidth(in.element_type()), b = PrimitiveBitWidth(out.element_type());
      // Equal widths keep the dims; otherwise one side has an extra minor dim
      // of the width ratio.
      bool ok = a == b ? in.dimensions() == out.dimensions()
                       : (a > b ? out.rank() == in.rank() + 1 && out.dimensions(out.rank() - 1) == a / b
                                : in.rank() == out.rank() + 1 && in.dimensions(in.rank() - 1) == b / a);
      if (!ok) {
        return Bad(absl::StrCat("bitcast-convert of ", in.ToString(), " cannot be ",
                                out.ToString()));
      }
      return absl::OkStatus();
    }
    case HloOpcode::kBroadcast: {
      const std::vector<int64_t> dims = i.attributes().dimensions.value_or(std::vector<int64_t>{});
      if (!in.IsArray() || !out.IsArray()) return absl::OkStatus();
      if (static_cast<int>(dims.size()) != in.rank()) {
        return Bad(absl::StrCat("broadcast maps ", dims.size(), " dims for a rank-", in.rank(),
                                " operand"));
      }
      absl::Status st = NeedDims("broadcast's dimensions", dims, out.rank());
      if (!st.ok()) return st;
      for (int k = 0; k < in.rank(); ++k) {
        if (in.dimensions(k) != out.dimensions(dims[k])) {
          return Bad(absl::StrCat("broadcast maps operand dim ", k, " (", in.dimensions(k),
                                  ") to result dim ", dims[k], " (", out.dimensions(dims[k]), ")"));
        }
      }
      return absl::OkStatus();
    }
    default:
      return absl::OkStatus();
  }
}

}  // namespace

absl::Status CheckShape(const HloInstruction& i) {
  const HloOpcode op = i.opcode();
  absl::Status rules = CheckElementwiseRules(i);
  if (!rules.ok()) return rules;
  // The common case, without building a shape: an elementwise op of arrays
  // has its reference operand's dims and a type that follows from its own.
  if (IsElementwise(op) && op != HloOpcode::kConvert &&
      op != HloOpcode::kStochasticConvert && i.operand_count() == ElementwiseArity(op) &&
      i.shape().IsArray()) {
    const Shape& ref = ElementwiseReference(i);
    if (ref.IsArray()) {
      absl::StatusOr<PrimitiveType> type = ElementwiseType(op, ref.element_type());
      if (type.ok() && *type == i.shape().element_type() &&
          ref.dimensions() == i.shape().dimensions()) {
        return absl::OkStatus();
      }
    }
  }
  absl::StatusOr<Shape> inferred = InferShape(i);
  if (absl::IsNotFound(inferred.status())) return CheckWritten(i);
  if (!inferred.ok()) return inferred.status();
  Shape::Equal equal = Shape::Equal().IgnoreLayout().IgnoreDynamicDimensions();
  if (op == HloOpcode::kDot || op == HloOpcode::kConvolution) equal.IgnoreElementType();
  if (!equal(*inferred, i.shape())) {
    return Bad(absl::StrCat("is written ", i.shape().ToString(), " but its operands make it ",
                            inferred->ToString()));
  }
  return absl::OkStatus();
}

}  // namespace xla_layout
