#include "hlo/random_module.h"

#include <algorithm>
#include <cstdlib>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla_layout/primitive_type.h"
#include "xla_layout/shape.h"
#include "xla_layout/test_util.h"

namespace xla_layout {
namespace {

// The draws are part of each test's modules: reordering them changes what
// a seed builds.
class Generator {
 public:
  Generator(uint64_t seed, const RandomModuleOptions& options)
      : rng_(seed), options_(options) {
    const std::vector<std::string>& types = options_.element_types;
    type_ = types.size() > 1 ? types[rng_() % types.size()] : types[0];
  }

  std::string Build();

 private:
  struct Value {
    std::string name;
    std::string type;
    std::vector<int64_t> dims;
  };

  static std::string Text(const Value& v) {
    return absl::StrCat(v.type, "[", absl::StrJoin(v.dims, ","), "]");
  }
  static std::string Dims(const std::vector<int64_t>& d) { return absl::StrJoin(d, ","); }
  static bool IsFloat(const std::string& t) { return t[0] == 'f' || t[0] == 'b'; }
  static bool IsSubByte(const std::string& t) { return t == "s4" || t == "u4"; }

  std::vector<int64_t> RandomDims();
  std::string LaidOut(const Value& v);
  std::string MaybeLaidOut(const Value& v);
  std::string Constant(const std::string& type, int n);
  std::string ScalarConstant(const std::string& type, int n);
  Value New(std::string type, std::vector<int64_t> dims);
  void Emit(const Value& v, const std::string& rhs);
  void AddParameter(std::vector<int64_t> dims);
  const Value& Pick() { return values_[rng_() % values_.size()]; }
  const Value* Partner(const Value& a);

  // One op on a random value, by RandomOp.
  void AddOp();
  void AddBinary(const Value& a);
  void AddUnary(const Value& a);
  void AddCompareSelect(const Value& a);
  void AddConvertRoundTrip(const Value& a);
  void AddTranspose(const Value& a);
  void AddReshape(const Value& a);
  void AddBroadcast(const Value& a);
  void AddSlice(const Value& a);
  void AddStridedSlice(const Value& a);
  void AddPad(const Value& a);
  void AddConcatenate(const Value& a);
  void AddReverse(const Value& a);
  void AddDynamicSlice(const Value& a);
  void AddDynamicUpdateSlice(const Value& a);
  void AddIota(const Value& a);
  void AddDot();
  void AddReduce(const Value& a);
  void AddWhile(const Value& a);
  std::string SharedLoop(const Value& a, const std::string& n);
  void AddCallee(const Value& a);
  std::string Reducer(const std::string& type);
  std::string RowIndices(int64_t rows, int count);
  void AddGather(const Value& a);
  void AddScatter(const Value& a);
  void AddCollective(const Value& a, bool gather);

  std::mt19937_64 rng_;
  const RandomModuleOptions& options_;
  std::string type_;
  int counter_ = 0;
  std::vector<Value> values_, params_;
  std::string body_, extra_;
  std::set<std::string> reducers_;
  std::vector<std::pair<std::vector<int64_t>, std::string>> loops_;  // dims, id
};

std::string Generator::Build() {
  const int params = 1 + rng_() % 3;
  for (int k = 0; k < params; ++k) AddParameter(RandomDims());
  const int ops = options_.min_ops + rng_() % (options_.max_ops - options_.min_ops + 1);
  for (int k = 0; k < ops; ++k) AddOp();
  std::string root, result;
  if (rng_() % 3 == 0 && values_.size() > 1) {
    const Value a = Pick(), b = Pick();
    root = absl::StrCat("  ROOT root = (", Text(a), ", ", Text(b), ") tuple(", a.name, ", ",
                        b.name, ")\n");
    result = absl::StrCat("(", LaidOut(a), ", ", LaidOut(b), ")");
  } else {
    const Value& a = values_.back();
    root = absl::StrCat("  ROOT root = ", Text(a), " copy(", a.name, ")\n");
    result = LaidOut(a);
  }
  std::string header = "HloModule random";
  if (options_.replicas > 1) absl::StrAppend(&header, ", replica_count=", options_.replicas);
  if (rng_() % options_.entry_layout_one_in == 0) {
    std::vector<std::string> ps;
    for (const Value& v : params_) ps.push_back(LaidOut(v));
    header = absl::StrCat(header, ", entry_computation_layout={(", absl::StrJoin(ps, ", "),
                          ")->", result, "}");
  }
  return absl::StrCat(header, "\n\n", extra_, "ENTRY main {\n", body_, root, "}\n");
}

std::vector<int64_t> Generator::RandomDims() {
  const std::vector<int64_t>& sizes = options_.dim_sizes;
  std::vector<int64_t> dims(1 + rng_() % 3);
  for (auto& d : dims) d = sizes[rng_() % sizes.size()];
  return dims;
}

// A random layout: any order, and with tiled_layouts tiles (repeated, with
// '*') and E(4) for s4/u4.
std::string Generator::LaidOut(const Value& v) {
  if (!options_.tiled_layouts) {
    std::vector<int64_t> m2m(v.dims.size());
    for (size_t k = 0; k < m2m.size(); ++k) m2m[k] = k;
    std::shuffle(m2m.begin(), m2m.end(), rng_);
    return absl::StrCat(Text(v), "{", Dims(m2m), "}");
  }
  absl::StatusOr<PrimitiveType> type = ParsePrimitiveType(v.type);
  Shape shape(*type, v.dims);
  RandomShapeOptions options;
  options.allow_attributes = false;
  options.max_tile = 9;
  options.max_slots = 1 << 16;
  if (rng_() % 3 == 0) options.max_tile_levels = 0;
  Layout layout = RandomLayoutFor(rng_, shape, options);
  if (IsSubByte(v.type) && rng_() % 2) layout.set_element_size_in_bits(4);
  shape.set_layout(layout);
  return shape.ToString();
}

std::string Generator::MaybeLaidOut(const Value& v) {
  return rng_() % options_.written_layout_one_in == 0 ? LaidOut(v) : Text(v);
}

std::string Generator::Constant(const std::string& type, int n) {
  if (type == "pred") return n % 2 ? "true" : "false";
  if (IsFloat(type)) return absl::StrCat(n, ".5");
  if (type[0] == 'u' || IsSubByte(type)) return absl::StrCat(std::abs(n) % 7);
  return absl::StrCat(n);
}

std::string Generator::ScalarConstant(const std::string& type, int n) {
  std::string name = absl::StrCat("c", counter_++);
  absl::StrAppend(&body_, "  ", name, " = ", type, "[] constant(", Constant(type, n), ")\n");
  return name;
}

Generator::Value Generator::New(std::string type, std::vector<int64_t> dims) {
  return {absl::StrCat("v", counter_++), std::move(type), std::move(dims)};
}

void Generator::Emit(const Value& v, const std::string& rhs) {
  absl::StrAppend(&body_, "  ", v.name, " = ", MaybeLaidOut(v), " ", rhs, "\n");
  values_.push_back(v);
}

void Generator::AddParameter(std::vector<int64_t> dims) {
  Value v = New(type_, std::move(dims));
  const std::string shape = options_.parameters_write_layouts ? MaybeLaidOut(v) : Text(v);
  absl::StrAppend(&body_, "  ", v.name, " = ", shape, " parameter(", params_.size(), ")\n");
  values_.push_back(v);
  params_.push_back(v);
}

// A value of a's type and dims, a itself when the draws pick no other.
const Generator::Value* Generator::Partner(const Value& a) {
  const Value* b = &a;
  for (const Value& v : values_) {
    if (v.dims == a.dims && v.type == a.type && rng_() % 2) b = &v;
  }
  return b;
}

void Generator::AddOp() {
  const Value a = Pick();  // a copy: the ops grow values_
  switch (options_.ops[rng_() % options_.ops.size()]) {
    case RandomOp::kBinary: return AddBinary(a);
    case RandomOp::kUnary: return AddUnary(a);
    case RandomOp::kNegate:
      if (a.type != "pred") Emit(New(a.type, a.dims), absl::StrCat("negate(", a.name, ")"));
      return;
    case RandomOp::kCopy:
      return Emit(New(a.type, a.dims), absl::StrCat("copy(", a.name, ")"));
    case RandomOp::kCompareSelect: return AddCompareSelect(a);
    case RandomOp::kConvertRoundTrip: return AddConvertRoundTrip(a);
    case RandomOp::kTranspose: return AddTranspose(a);
    case RandomOp::kReshape: return AddReshape(a);
    case RandomOp::kBroadcast: return AddBroadcast(a);
    case RandomOp::kSlice: return AddSlice(a);
    case RandomOp::kStridedSlice: return AddStridedSlice(a);
    case RandomOp::kPad: return AddPad(a);
    case RandomOp::kConcatenate: return AddConcatenate(a);
    case RandomOp::kReverse: return AddReverse(a);
    case RandomOp::kDynamicSlice: return AddDynamicSlice(a);
    case RandomOp::kDynamicUpdateSlice: return AddDynamicUpdateSlice(a);
    case RandomOp::kIota: return AddIota(a);
    case RandomOp::kDot:
      if (a.type != "pred") AddDot();
      return;
    case RandomOp::kReduce: return AddReduce(a);
    case RandomOp::kWhile: return AddWhile(a);
    case RandomOp::kCallee: return AddCallee(a);
    case RandomOp::kGather: return AddGather(a);
    case RandomOp::kScatter: return AddScatter(a);
    case RandomOp::kAllReduce: return AddCollective(a, /*gather=*/false);
    case RandomOp::kAllGather: return AddCollective(a, /*gather=*/true);
    case RandomOp::kCustomCall:
      return Emit(New(a.type, a.dims),
                  absl::StrCat("custom-call(", a.name, "), custom_call_target=\"RandomVendorOp\""));
  }
}

void Generator::AddBinary(const Value& a) {
  const std::vector<std::string>& ops = options_.binary_ops;
  const std::string op = a.type == "pred" ? (rng_() % 2 ? "and" : "or")
                         : ops.size() > 1 ? ops[rng_() % ops.size()]
                                          : ops[0];
  Emit(New(a.type, a.dims), absl::StrCat(op, "(", a.name, ", ", Partner(a)->name, ")"));
}

void Generator::AddUnary(const Value& a) {
  const char* op = a.type == "pred"                    ? "not"
                   : (IsFloat(a.type) && rng_() % 2) ? "tanh"
                   : rng_() % 2                        ? "negate"
                                                       : "abs";
  Emit(New(a.type, a.dims), absl::StrCat(op, "(", a.name, ")"));
}

void Generator::AddCompareSelect(const Value& a) {
  if (a.type == "pred") return;
  static const char* kDirs[] = {"LT", "GE", "EQ", "NE"};
  const Value b = *Partner(a);  // a copy: Emit grows values_
  Value p = New("pred", a.dims);
  Emit(p, absl::StrCat("compare(", a.name, ", ", b.name, "), direction=", kDirs[rng_() % 4]));
  Emit(New(a.type, a.dims), absl::StrCat("select(", p.name, ", ", a.name, ", ", b.name, ")"));
}

void Generator::AddConvertRoundTrip(const Value& a) {
  static const char* kTo[] = {"f32", "s32", "bf16", "s8", "u4", "f64"};
  const char* to = kTo[rng_() % 6];
  Value c = New(to, a.dims);
  Emit(c, absl::StrCat("convert(", a.name, ")"));
  Emit(New(a.type, a.dims), absl::StrCat("convert(", c.name, ")"));
}

void Generator::AddTranspose(const Value& a) {
  std::vector<int64_t> perm(a.dims.size());
  for (size_t k = 0; k < perm.size(); ++k) perm[k] = k;
  std::shuffle(perm.begin(), perm.end(), rng_);
  std::vector<int64_t> dims;
  for (int64_t p : perm) dims.push_back(a.dims[p]);
  Emit(New(a.type, dims), absl::StrCat("transpose(", a.name, "), dimensions={", Dims(perm), "}"));
}

void Generator::AddReshape(const Value& a) {
  int64_t n = 1;
  for (int64_t d : a.dims) n *= d;
  std::vector<int64_t> dims = rng_() % 2 ? std::vector<int64_t>{n} : std::vector<int64_t>{1, n};
  if (a.dims.size() == 2 && rng_() % 2) {
    dims = options_.reshape_inserts_unit_dim ? std::vector<int64_t>{a.dims[0], 1, a.dims[1]}
                                             : std::vector<int64_t>{a.dims[1], a.dims[0]};
  }
  Emit(New(a.type, dims), absl::StrCat("reshape(", a.name, ")"));
}

void Generator::AddBroadcast(const Value& a) {
  if (a.dims.size() >= 3) return;
  std::vector<int64_t> dims = a.dims;
  const size_t at = rng_() % (dims.size() + 1);
  dims.insert(dims.begin() + at, options_.broadcast_size);
  std::vector<int64_t> map;
  for (size_t k = 0; k < a.dims.size(); ++k) map.push_back(k < at ? k : k + 1);
  Emit(New(a.type, dims), absl::StrCat("broadcast(", a.name, "), dimensions={", Dims(map), "}"));
}

void Generator::AddSlice(const Value& a) {
  std::vector<std::string> ranges;
  std::vector<int64_t> dims;
  for (int64_t d : a.dims) {
    const int64_t end = d > 1 ? d / 2 : 1;
    ranges.push_back(absl::StrCat("[0:", end, "]"));
    dims.push_back(end);
  }
  Emit(New(a.type, dims), absl::StrCat("slice(", a.name, "), slice={", absl::StrJoin(ranges, ","), "}"));
}

void Generator::AddStridedSlice(const Value& a) {
  std::vector<std::string> ranges;
  std::vector<int64_t> dims;
  for (int64_t d : a.dims) {
    const int64_t begin = d > 2 ? 1 : 0, stride = d > 4 ? 2 : 1;
    ranges.push_back(absl::StrCat("[", begin, ":", d, ":", stride, "]"));
    dims.push_back((d - begin + stride - 1) / stride);
  }
  Emit(New(a.type, dims), absl::StrCat("slice(", a.name, "), slice={", absl::StrJoin(ranges, ", "), "}"));
}

void Generator::AddPad(const Value& a) {
  std::vector<std::string> spec;
  std::vector<int64_t> dims;
  for (int64_t d : a.dims) {
    const int64_t lo = static_cast<int64_t>(rng_() % 3) - (d > 2 ? 1 : 0);
    const int64_t hi = rng_() % 3, in = rng_() % 2;
    spec.push_back(absl::StrCat(lo, "_", hi, "_", in));
    dims.push_back(lo + hi + d + std::max<int64_t>(0, d - 1) * in);
  }
  const std::string v = ScalarConstant(a.type, 2);
  Emit(New(a.type, dims), absl::StrCat("pad(", a.name, ", ", v, "), padding=", absl::StrJoin(spec, "x")));
}

void Generator::AddConcatenate(const Value& a) {
  const size_t dim = rng_() % a.dims.size();
  std::vector<int64_t> dims = a.dims;
  const Value b = *Partner(a);
  dims[dim] *= 2;
  Emit(New(a.type, dims), absl::StrCat("concatenate(", a.name, ", ", b.name, "), dimensions={", dim, "}"));
}

void Generator::AddReverse(const Value& a) {
  std::vector<int64_t> rev;
  for (size_t d = 0; d < a.dims.size(); ++d) {
    if (rng_() % 2) rev.push_back(d);
  }
  Emit(New(a.type, a.dims), absl::StrCat("reverse(", a.name, "), dimensions={", Dims(rev), "}"));
}

void Generator::AddDynamicSlice(const Value& a) {
  std::vector<std::string> starts;
  std::vector<int64_t> sizes;
  for (int64_t d : a.dims) {
    starts.push_back(ScalarConstant("s32", static_cast<int>(rng_() % 5) - 1));
    sizes.push_back(std::max<int64_t>(1, d / 2));
  }
  Emit(New(a.type, sizes), absl::StrCat("dynamic-slice(", a.name, ", ", absl::StrJoin(starts, ", "),
                                        "), dynamic_slice_sizes={", Dims(sizes), "}"));
}

void Generator::AddDynamicUpdateSlice(const Value& a) {
  std::vector<std::string> ranges, starts;
  std::vector<int64_t> dims;
  for (int64_t d : a.dims) {
    ranges.push_back(absl::StrCat("[0:", (d + 1) / 2, "]"));
    dims.push_back((d + 1) / 2);
    starts.push_back(ScalarConstant("s32", static_cast<int>(rng_() % 4)));
  }
  Value u = New(a.type, dims);
  Emit(u, absl::StrCat("slice(", a.name, "), slice={", absl::StrJoin(ranges, ", "), "}"));
  Emit(New(a.type, a.dims), absl::StrCat("dynamic-update-slice(", a.name, ", ", u.name, ", ",
                                         absl::StrJoin(starts, ", "), ")"));
}

void Generator::AddIota(const Value& a) {
  if (a.type == "pred") return;
  Value i = New(a.type, a.dims);
  Emit(i, absl::StrCat("iota(), iota_dimension=", rng_() % a.dims.size()));
  Emit(New(a.type, a.dims), absl::StrCat("add(", a.name, ", ", i.name, ")"));
}

void Generator::AddDot() {
  const std::vector<int64_t>& sizes = options_.dot_sizes;
  const int64_t m = sizes[rng_() % sizes.size()], k = sizes[rng_() % sizes.size()],
                n = sizes[rng_() % sizes.size()];
  AddParameter({m, k});
  const Value l = values_.back();
  AddParameter({k, n});
  const Value r = values_.back();
  Emit(New(type_, {m, n}), absl::StrCat("dot(", l.name, ", ", r.name,
                                        "), lhs_contracting_dims={1}, rhs_contracting_dims={0}"));
}

// The name of an add (and on pred) of two `type` scalars, written once.
std::string Generator::Reducer(const std::string& type) {
  const std::string fn = absl::StrCat("reducer_", type);
  if (reducers_.insert(fn).second) {
    absl::StrAppend(&extra_, fn, " {\n  l = ", type, "[] parameter(0)\n  r = ", type,
                    "[] parameter(1)\n  ROOT s = ", type, "[] ", type == "pred" ? "and" : "add",
                    "(l, r)\n}\n\n");
  }
  return fn;
}

// A constant s32[count] of row numbers in [-1, rows]: some out of range.
std::string Generator::RowIndices(int64_t rows, int count) {
  std::vector<int64_t> rows_drawn(count);
  for (auto& r : rows_drawn) r = static_cast<int64_t>(rng_() % (rows + 2)) - 1;
  const std::string name = absl::StrCat("i", counter_++);
  absl::StrAppend(&body_, "  ", name, " = s32[", count, "] constant({", Dims(rows_drawn), "})\n");
  return name;
}

void Generator::AddGather(const Value& a) {
  const int count = 1 + static_cast<int>(rng_() % 4);
  const std::string idx = RowIndices(a.dims[0], count);
  std::vector<int64_t> dims = a.dims, offsets, sizes = a.dims;
  dims[0] = count;
  sizes[0] = 1;
  for (size_t d = 1; d < a.dims.size(); ++d) offsets.push_back(d);
  Emit(New(a.type, dims),
       absl::StrCat("gather(", a.name, ", ", idx, "), offset_dims={", Dims(offsets),
                    "}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, "
                    "slice_sizes={", Dims(sizes), "}"));
}

void Generator::AddScatter(const Value& a) {
  const std::string idx = RowIndices(a.dims[0], 2);
  std::vector<int64_t> rows = a.dims, windows;
  rows[0] = 2;
  for (size_t d = 1; d < a.dims.size(); ++d) windows.push_back(d);
  const Value updates = New(a.type, rows);
  Emit(updates, absl::StrCat("broadcast(", ScalarConstant(a.type, 1), "), dimensions={}"));
  Emit(New(a.type, a.dims),
       absl::StrCat("scatter(", a.name, ", ", idx, ", ", updates.name, "), update_window_dims={",
                    Dims(windows), "}, inserted_window_dims={0}, "
                    "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=",
                    Reducer(a.type)));
}

void Generator::AddCollective(const Value& a, bool gather) {
  if (!gather) {
    return Emit(New(a.type, a.dims), absl::StrCat("all-reduce(", a.name,
                                                  "), replica_groups={}, to_apply=",
                                                  Reducer(a.type)));
  }
  std::vector<int64_t> dims = a.dims;
  dims[0] *= options_.replicas;
  Emit(New(a.type, dims),
       absl::StrCat("all-gather(", a.name, "), dimensions={0}, replica_groups={}"));
}

void Generator::AddReduce(const Value& a) {
  if (a.dims.size() < 2) return;
  const bool pred = a.type == "pred";
  const std::string fn = Reducer(a.type);
  const size_t dim = rng_() % a.dims.size();
  std::vector<int64_t> dims = a.dims;
  dims.erase(dims.begin() + dim);
  const std::string init = ScalarConstant(a.type, pred ? 1 : 0);
  Emit(New(a.type, dims), absl::StrCat("reduce(", a.name, ", ", init, "), dimensions={", dim,
                                       "}, to_apply=", fn));
}

// The state (s32 counter, a) runs three times through a body negating a.
// With loops_share_bodies the state may be written laid out, and a loop
// over dims an earlier loop had may call that loop's computations.
void Generator::AddWhile(const Value& a) {
  if (a.type == "pred") return;
  const std::string n = absl::StrCat(counter_++);
  const std::string s = Text(a);
  std::string state = s, id = n;
  if (options_.loops_share_bodies) {
    if (rng_() % 2) state = LaidOut(a);
    id = SharedLoop(a, n);
  }
  if (id == n) {
    const std::string y = options_.loops_share_bodies && rng_() % 2 ? LaidOut(a) : s;
    absl::StrAppend(&extra_, "cond", n, " {\n  p = (s32[], ", state, ") parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n  k = s32[] constant(3)\n  ROOT lt = pred[] compare(i, k), direction=LT\n}\n\n");
    absl::StrAppend(&extra_, "body", n, " {\n  p = (s32[], ", state, ") parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n  one = s32[] constant(1)\n  j = s32[] add(i, one)\n  x = ", s, " get-tuple-element(p), index=1\n  y = ", y, " negate(x)\n  ROOT t = (s32[], ", s, ") tuple(j, y)\n}\n\n");
  }
  const std::string init = ScalarConstant("s32", 0);
  const std::string tup = absl::StrCat("t", n), loop = absl::StrCat("w", n);
  absl::StrAppend(&body_, "  ", tup, " = (s32[], ", s, ") tuple(", init, ", ", a.name, ")\n  ",
                  loop, " = (s32[], ", state, ") while(", tup, "), condition=cond", id,
                  ", body=body", id, "\n");
  Emit(New(a.type, a.dims), absl::StrCat("get-tuple-element(", loop, "), index=1"));
}

// The id of an earlier loop over a's dims to share, sometimes; else `n`,
// recorded for later loops.
std::string Generator::SharedLoop(const Value& a, const std::string& n) {
  for (const auto& [dims, id] : loops_) {
    if (dims == a.dims && rng_() % 2) return id;
  }
  loops_.push_back({a.dims, n});
  return n;
}

void Generator::AddCallee(const Value& a) {
  if (a.type == "pred") return;
  const std::string n = absl::StrCat(counter_++);
  const std::string s = Text(a);
  const int kind = rng_() % 3;
  if (kind < 2) {
    absl::StrAppend(&extra_, "f", n, " {\n  p = ", s, " parameter(0)\n  ROOT m = ", s,
                    " multiply(p, p)\n}\n\n");
    Emit(New(a.type, a.dims), kind == 0
             ? absl::StrCat("fusion(", a.name, "), kind=kLoop, calls=f", n)
             : absl::StrCat("call(", a.name, "), to_apply=f", n));
    return;
  }
  absl::StrAppend(&extra_, "yes", n, " {\n  p = ", s, " parameter(0)\n  ROOT m = ", s,
                  " negate(p)\n}\n\nno", n, " {\n  p = ", s, " parameter(0)\n  ROOT m = ", s,
                  " abs(p)\n}\n\n");
  const std::string c = ScalarConstant("pred", static_cast<int>(rng_() % 2));
  Emit(New(a.type, a.dims), absl::StrCat("conditional(", c, ", ", a.name, ", ", a.name,
                                         "), true_computation=yes", n, ", false_computation=no", n));
}

}  // namespace

std::string RandomHloModule(uint64_t seed, const RandomModuleOptions& options) {
  return Generator(seed, options).Build();
}

}  // namespace xla_layout
