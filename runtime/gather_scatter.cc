#include "runtime/gather_scatter.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xla_layout::runtime {
namespace {

// A gather's or a scatter's dimension numbers under one set of names. The
// "windowed" array is the gather's result or the scatter's updates: its
// window dims index into a slice of the operand, its other (batch) dims
// follow the indices' dims but index_vector_dim, in order.
struct DimensionNumbers {
  std::vector<int64_t> window_dims;       // offset_dims / update_window_dims
  std::vector<int64_t> dropped_dims;      // collapsed_slice_dims / inserted_window_dims
  std::vector<int64_t> start_map;         // start_index_map / scatter_dims_to_operand_dims
  std::vector<int64_t> operand_batching;  // operand_batching_dims / input_batching_dims
  std::vector<int64_t> indices_batching;  // start_indices_batching_dims / scatter_...
  int64_t index_vector_dim = 0;
};

DimensionNumbers ReadDimensionNumbers(const HloInstruction& i, const Shape& indices) {
  const bool gather = i.opcode() == HloOpcode::kGather;
  DimensionNumbers d;
  d.window_dims = i.DimensionNumbers(gather ? "offset_dims" : "update_window_dims");
  d.dropped_dims = i.DimensionNumbers(gather ? "collapsed_slice_dims" : "inserted_window_dims");
  d.start_map = i.DimensionNumbers(gather ? "start_index_map" : "scatter_dims_to_operand_dims");
  d.operand_batching =
      i.DimensionNumbers(gather ? "operand_batching_dims" : "input_batching_dims");
  d.indices_batching = i.DimensionNumbers(gather ? "start_indices_batching_dims"
                                                 : "scatter_indices_batching_dims");
  d.index_vector_dim = i.attributes().rare().index_vector_dim.value_or(indices.rank());
  return d;
}

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

std::string Dims(const std::vector<int64_t>& v) { return absl::StrCat("{", absl::StrJoin(v, ","), "}"); }

// Empty when `dims` are distinct, in [0, bound), and ascending if `sorted`;
// otherwise what is wrong with them.
std::string BadDims(absl::string_view name, const std::vector<int64_t>& dims, int64_t bound,
                    bool sorted) {
  for (size_t k = 0; k < dims.size(); ++k) {
    if (dims[k] < 0 || dims[k] >= bound) {
      return absl::StrCat(name, " ", Dims(dims), " names a dim outside [0, ", bound, ")");
    }
    for (size_t j = 0; j < k; ++j) {
      if (dims[j] == dims[k]) return absl::StrCat(name, " ", Dims(dims), " repeats a dim");
      if (sorted && dims[j] > dims[k]) {
        return absl::StrCat(name, " ", Dims(dims), " is not ascending");
      }
    }
  }
  return "";
}

// How the windowed array and the indices address the operand, derived from
// checked dimension numbers.
struct Mapping {
  std::vector<int64_t> batch_dims;        // windowed dims not in window_dims, ascending
  std::vector<int64_t> window_of_operand; // per operand dim: its windowed dim, or -1
  std::vector<int> start_of_operand;      // per operand dim: its place in start_map, or -1
  std::vector<int> batch_of_operand;      // per operand batching dim: its place in batch_dims
};

// The place among the batch dims of indices dim `d` (index_vector_dim skipped).
int64_t BatchPlace(int64_t d, int64_t index_vector_dim) {
  return d < index_vector_dim ? d : d - 1;
}

Mapping MakeMapping(const DimensionNumbers& dn, int operand_rank, int windowed_rank) {
  Mapping m;
  for (int64_t d = 0; d < windowed_rank; ++d) {
    if (!Contains(dn.window_dims, d)) m.batch_dims.push_back(d);
  }
  size_t next_window = 0;
  m.window_of_operand.assign(operand_rank, -1);
  m.start_of_operand.assign(operand_rank, -1);
  m.batch_of_operand.assign(operand_rank, -1);
  for (int d = 0; d < operand_rank; ++d) {
    if (!Contains(dn.dropped_dims, d) && !Contains(dn.operand_batching, d)) {
      m.window_of_operand[d] = dn.window_dims[next_window++];
    }
  }
  for (size_t k = 0; k < dn.start_map.size(); ++k) {
    m.start_of_operand[dn.start_map[k]] = static_cast<int>(k);
  }
  for (size_t k = 0; k < dn.operand_batching.size(); ++k) {
    m.batch_of_operand[dn.operand_batching[k]] =
        static_cast<int>(BatchPlace(dn.indices_batching[k], dn.index_vector_dim));
  }
  return m;
}

// Empty when the dimension numbers fit the operand, indices and windowed
// shapes (ranks, batch dims sized as the indices' dims, batching dims sized
// alike); otherwise what is wrong. Window sizes are checked by the callers.
std::string BadDimensionNumbers(const DimensionNumbers& dn, const Shape& operand,
                                const Shape& indices, const Shape& windowed) {
  const int r = operand.rank();
  const int64_t ivd = dn.index_vector_dim;
  if (ivd < 0 || ivd > indices.rank()) {
    return absl::StrCat("index_vector_dim ", ivd, " is not a dim of the indices ",
                        indices.ToString(), " or one past them");
  }
  const int64_t vector_size = ivd == indices.rank() ? 1 : indices.dimensions(ivd);
  if (static_cast<int64_t>(dn.start_map.size()) != vector_size) {
    return absl::StrCat("the index vectors hold ", vector_size, " indices but the map to the "
                        "operand ", Dims(dn.start_map), " has ", dn.start_map.size());
  }
  std::string bad = BadDims("the map of indices to operand dims", dn.start_map, r, false);
  if (bad.empty()) bad = BadDims("the dropped window dims", dn.dropped_dims, r, false);
  if (bad.empty()) bad = BadDims("the operand batching dims", dn.operand_batching, r, false);
  if (bad.empty()) {
    bad = BadDims("the indices batching dims", dn.indices_batching, indices.rank(), false);
  }
  if (!bad.empty()) return bad;
  if (dn.operand_batching.size() != dn.indices_batching.size()) {
    return "the operand and indices batching dims differ in number";
  }
  for (size_t k = 0; k < dn.operand_batching.size(); ++k) {
    const int64_t od = dn.operand_batching[k], id = dn.indices_batching[k];
    if (Contains(dn.dropped_dims, od) || Contains(dn.start_map, od)) {
      return absl::StrCat("operand batching dim ", od, " is also dropped or indexed");
    }
    if (id == ivd || operand.dimensions(od) != indices.dimensions(id)) {
      return absl::StrCat("operand batching dim ", od, " and indices dim ", id,
                          " are not a batch dim pair of equal size");
    }
  }
  const int64_t batch_rank = indices.rank() - (ivd < indices.rank() ? 1 : 0);
  const size_t kept = r - dn.dropped_dims.size() - dn.operand_batching.size();
  if (dn.window_dims.size() != kept || windowed.rank() != batch_rank + static_cast<int64_t>(kept)) {
    return absl::StrCat(windowed.ToString(), " does not have ", kept, " window dims (",
                        Dims(dn.window_dims), ") and ", batch_rank, " batch dims");
  }
  bad = BadDims("the window dims", dn.window_dims, windowed.rank(), true);
  if (!bad.empty()) return bad;
  const Mapping m = MakeMapping(dn, r, windowed.rank());
  for (int64_t d = 0, k = 0; d < indices.rank(); ++d) {
    if (d == ivd) continue;
    if (windowed.dimensions(m.batch_dims[k++]) != indices.dimensions(d)) {
      return absl::StrCat("the batch dims of ", windowed.ToString(), " are not the dims of the "
                          "indices ", indices.ToString(), " but index_vector_dim");
    }
  }
  return "";
}

absl::Status Fail(const HloInstruction& i, absl::string_view why) {
  return absl::UnimplementedError(
      absl::StrCat(i.name(), " (", HloOpcodeString(i.opcode()), "): ", why));
}

absl::Status CheckIndices(const HloInstruction& i, const Shape& indices) {
  if (!indices.IsArray()) return Fail(i, "the indices are not an array");
  const Domain d = DomainOf(indices.element_type());
  if (d != Domain::kSigned && d != Domain::kUnsigned) {
    return Fail(i, absl::StrCat("indices of ", indices.ToString(), " are not integers"));
  }
  return absl::OkStatus();
}

// The index vectors of the indices operand, by batch position (the indices'
// dims but index_vector_dim, in order).
class IndexVectors {
 public:
  IndexVectors(const Value& indices, int64_t index_vector_dim)
      : v_(indices),
        ivd_(index_vector_dim),
        implicit_(index_vector_dim == indices.info->rank()),
        unsigned_(DomainOf(indices.info->type()) == Domain::kUnsigned),
        pos_(indices.info->rank(), 0) {}

  void Read(absl::Span<const int64_t> batch, std::vector<int64_t>& out) {
    for (size_t k = 0; k < batch.size(); ++k) {
      pos_[static_cast<int64_t>(k) < ivd_ ? k : k + 1] = batch[k];
    }
    for (size_t j = 0; j < out.size(); ++j) {
      if (!implicit_) pos_[ivd_] = static_cast<int64_t>(j);
      const int64_t n = At(v_, pos_).i;
      // A u64 index past int64's range lies past every dim.
      out[j] = unsigned_ && n < 0 ? std::numeric_limits<int64_t>::max() : n;
    }
  }

 private:
  const Value& v_;
  int64_t ivd_;
  bool implicit_;
  bool unsigned_;
  IndexVector pos_;
};

}  // namespace

absl::Status CheckGather(const HloInstruction& i) {
  if (i.operand_count() != 2 || !i.shape().IsArray()) {
    return Fail(i, "a gather takes an operand and indices and gives an array");
  }
  const Shape& operand = i.operand(0)->shape();
  const Shape& indices = i.operand(1)->shape();
  absl::Status s = CheckIndices(i, indices);
  if (!s.ok()) return s;
  if (i.shape().element_type() != operand.element_type()) {
    return Fail(i, "the result's type differs from the operand's");
  }
  const DimensionNumbers dn = ReadDimensionNumbers(i, indices);
  std::string bad = BadDimensionNumbers(dn, operand, indices, i.shape());
  if (!bad.empty()) return Fail(i, bad);
  const std::vector<int64_t> sizes = Attr(i.attributes().rare().slice_sizes);
  if (static_cast<int>(sizes.size()) != operand.rank()) {
    return Fail(i, absl::StrCat("slice_sizes ", Dims(sizes), " do not have one size per dim of ",
                                operand.ToString()));
  }
  const Mapping m = MakeMapping(dn, operand.rank(), i.shape().rank());
  for (int d = 0; d < operand.rank(); ++d) {
    const int64_t w = m.window_of_operand[d];
    const bool fits = sizes[d] >= 0 && sizes[d] <= operand.dimensions(d);
    const bool batching = m.batch_of_operand[d] >= 0;
    if (!fits || (w < 0 && sizes[d] > 1) || (batching && sizes[d] != 1) ||
        (w >= 0 && i.shape().dimensions(w) != sizes[d])) {
      return Fail(i, absl::StrCat("slice_sizes ", Dims(sizes), " do not fit ", operand.ToString(),
                                  " and the result ", i.shape().ToString(), " at dim ", d));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckScatter(const HloInstruction& i) {
  const int count = i.operand_count();
  if (count < 3 || count % 2 == 0) return Fail(i, "a scatter takes N operands, indices, N updates");
  const int n = (count - 1) / 2;
  const Shape& operand = i.operand(0)->shape();
  const Shape& indices = i.operand(n)->shape();
  const Shape& updates = i.operand(n + 1)->shape();
  absl::Status s = CheckIndices(i, indices);
  if (!s.ok()) return s;
  std::vector<const Shape*> results;
  if (i.shape().IsTuple()) {
    for (const Shape& e : i.shape().tuple_shapes()) results.push_back(&e);
  } else {
    results.push_back(&i.shape());
  }
  if (static_cast<int>(results.size()) != n || (n > 1 && !i.shape().IsTuple())) {
    return Fail(i, absl::StrCat("a scatter of ", n, " operands gives ", n, " results"));
  }
  for (int k = 0; k < n; ++k) {
    const Shape& o = i.operand(k)->shape();
    const Shape& u = i.operand(n + 1 + k)->shape();
    const PrimitiveType t = o.element_type();
    if (!o.IsArray() || !u.IsArray() || !results[k]->IsArray() || o.dimensions() != operand.dimensions() ||
        u.dimensions() != updates.dimensions() || u.element_type() != t ||
        results[k]->element_type() != t || results[k]->dimensions() != o.dimensions()) {
      return Fail(i, absl::StrCat("operand ", k, ", its updates and its result differ in dims or "
                                  "type from each other or from the first operand's"));
    }
  }
  const DimensionNumbers dn = ReadDimensionNumbers(i, indices);
  std::string bad = BadDimensionNumbers(dn, operand, indices, updates);
  if (!bad.empty()) return Fail(i, bad);
  const Mapping m = MakeMapping(dn, operand.rank(), updates.rank());
  for (int d = 0; d < operand.rank(); ++d) {
    const int64_t w = m.window_of_operand[d];
    if (w >= 0 && updates.dimensions(w) > operand.dimensions(d)) {
      return Fail(i, absl::StrCat("the update window dim ", w, " of ", updates.ToString(),
                                  " is larger than dim ", d, " of ", operand.ToString()));
    }
  }
  const HloComputation* to_apply = i.called_computation("to_apply");
  if (to_apply == nullptr || to_apply->root() == nullptr) return Fail(i, "no to_apply");
  const std::vector<HloInstruction*> params = to_apply->parameters();
  bool arity = static_cast<int>(params.size()) == 2 * n;
  for (int k = 0; arity && k < 2 * n; ++k) {
    const Shape& p = params[k] != nullptr ? params[k]->shape() : Shape();
    arity = p.IsArray() && p.rank() == 0 && p.element_type() == results[k % n]->element_type();
  }
  const Shape& root = to_apply->root()->shape();
  std::vector<const Shape*> returned;
  if (root.IsTuple()) {
    for (const Shape& e : root.tuple_shapes()) returned.push_back(&e);
  } else {
    returned.push_back(&root);
  }
  arity = arity && static_cast<int>(returned.size()) == n && (n == 1) != root.IsTuple();
  for (int k = 0; arity && k < n; ++k) {
    arity = returned[k]->IsArray() && returned[k]->rank() == 0 &&
            returned[k]->element_type() == results[k]->element_type();
  }
  if (!arity) {
    return Fail(i, absl::StrCat("to_apply ", to_apply->name(), " must take ", 2 * n,
                                " scalars (the current values, then the updates) and return ", n,
                                " of the operands' types"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Value> Gather(const HloInstruction& i, const Value& operand, const Value& indices,
                             const Info& out) {
  absl::StatusOr<Value> result = Value::Allocate(out);
  if (!result.ok() || operand.info->element_count() == 0) return result;
  const DimensionNumbers dn = ReadDimensionNumbers(i, indices.info->shape());
  const int r = operand.info->rank();
  const Mapping m = MakeMapping(dn, r, out->rank());
  const std::vector<int64_t> sizes = Attr(i.attributes().rare().slice_sizes);
  absl::Span<const int64_t> dims = operand.info->dims();
  std::vector<int64_t> batch_sizes, window_sizes;
  for (int64_t d : m.batch_dims) batch_sizes.push_back(out->dims()[d]);
  for (int64_t d : dn.window_dims) window_sizes.push_back(out->dims()[d]);
  IndexVectors vectors(indices, dn.index_vector_dim);
  std::vector<int64_t> vector(dn.start_map.size());
  IndexVector start(r, 0), from(r, 0), to(out->rank(), 0);
  uint8_t* data = result->mutable_data();
  ForEachIndex(batch_sizes, [&](const IndexVector& b) {
    vectors.Read(b, vector);
    for (int d = 0; d < r; ++d) {
      // A dropped or batching dim's slice is one element wide.
      const int64_t size = m.window_of_operand[d] >= 0 ? sizes[d] : 1;
      if (m.start_of_operand[d] >= 0) {
        start[d] = std::clamp<int64_t>(vector[m.start_of_operand[d]], 0, dims[d] - size);
      } else {
        start[d] = m.batch_of_operand[d] >= 0 ? b[m.batch_of_operand[d]] : 0;
      }
    }
    for (size_t k = 0; k < b.size(); ++k) to[m.batch_dims[k]] = b[k];
    ForEachIndex(window_sizes, [&](const IndexVector& w) {
      for (size_t k = 0; k < w.size(); ++k) to[dn.window_dims[k]] = w[k];
      for (int d = 0; d < r; ++d) {
        const int64_t wd = m.window_of_operand[d];
        from[d] = start[d] + (wd >= 0 ? to[wd] : 0);
      }
      out->StoreBits(data, out->Slot(to), BitsAt(operand, from));
    });
  });
  return result;
}

absl::StatusOr<Value> Scatter(const HloInstruction& i, absl::Span<const Value* const> ops,
                              absl::Span<const Info> out, const ScalarProgram& to_apply) {
  const size_t n = ops.size() / 2;
  const Value& indices = *ops[n];
  absl::Span<const Value* const> updates = ops.subspan(n + 1);
  std::vector<Value> results;
  for (size_t k = 0; k < n; ++k) {
    const Value& operand = *ops[k];
    absl::StatusOr<Value> v = Generate<true>(
        out[k], [&](const IndexVector& index) { return BitsAt(operand, index); });
    if (!v.ok()) return v.status();
    results.push_back(*std::move(v));
  }
  const DimensionNumbers dn = ReadDimensionNumbers(i, indices.info->shape());
  const int r = ops[0]->info->rank();
  absl::Span<const int64_t> udims = updates[0]->info->dims();
  const Mapping m = MakeMapping(dn, r, static_cast<int>(udims.size()));
  absl::Span<const int64_t> dims = ops[0]->info->dims();
  std::vector<int64_t> batch_sizes, window_sizes;
  for (int64_t d : m.batch_dims) batch_sizes.push_back(udims[d]);
  for (int64_t d : dn.window_dims) window_sizes.push_back(udims[d]);
  IndexVectors vectors(indices, dn.index_vector_dim);
  std::vector<int64_t> vector(dn.start_map.size());
  IndexVector start(r, 0), to(r, 0), from(udims.size(), 0);
  std::vector<Num> args(2 * n), news(n);
  ForEachIndex(batch_sizes, [&](const IndexVector& b) {
    vectors.Read(b, vector);
    for (int d = 0; d < r; ++d) {
      const int64_t wd = m.window_of_operand[d];
      const int64_t size = wd >= 0 ? udims[wd] : 1;
      if (m.start_of_operand[d] >= 0) {
        start[d] = vector[m.start_of_operand[d]];
      } else {
        start[d] = m.batch_of_operand[d] >= 0 ? b[m.batch_of_operand[d]] : 0;
      }
      // A window not wholly inside the operand is dropped.
      if (start[d] < 0 || start[d] > dims[d] - size) return;
    }
    for (size_t k = 0; k < b.size(); ++k) from[m.batch_dims[k]] = b[k];
    ForEachIndex(window_sizes, [&](const IndexVector& w) {
      for (size_t k = 0; k < w.size(); ++k) from[dn.window_dims[k]] = w[k];
      for (int d = 0; d < r; ++d) {
        const int64_t wd = m.window_of_operand[d];
        to[d] = start[d] + (wd >= 0 ? from[wd] : 0);
      }
      for (size_t k = 0; k < n; ++k) {
        args[k] = results[k].info->Load(results[k].data(), out[k]->Slot(to));
        args[n + k] = At(*updates[k], from);
      }
      to_apply.Run(args, absl::MakeSpan(news));
      for (size_t k = 0; k < n; ++k) {
        out[k]->Store(results[k].mutable_data(), out[k]->Slot(to), news[k]);
      }
    });
  });
  if (n == 1) return std::move(results[0]);
  return Value::Tuple(std::move(results));
}

}  // namespace xla_layout::runtime
