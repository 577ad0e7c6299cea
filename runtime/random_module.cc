#include "runtime/random_module.h"

#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla_layout/primitive_type.h"
#include "xla_layout/shape.h"
#include "xla_layout/test_util.h"

namespace xla_layout::runtime {
namespace {

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {
    static const char* kTypes[] = {"f32", "bf16", "f16", "f64", "s32", "s8",
                                   "s4",  "u4",   "u8",  "s64", "u32", "f32"};
    type_ = kTypes[rng_() % 12];
  }

  std::string Build() {
    const int params = 1 + rng_() % 3;
    for (int k = 0; k < params; ++k) AddParameter(RandomDims());
    const int ops = 3 + rng_() % 12;
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
    if (rng_() % 2 == 0) {
      std::vector<std::string> ps;
      for (const Value& v : params_) ps.push_back(LaidOut(v));
      header = absl::StrCat(header, ", entry_computation_layout={(", absl::StrJoin(ps, ", "),
                            ")->", result, "}");
    }
    return absl::StrCat(header, "\n\n", extra_, "ENTRY main {\n", body_, root, "}\n");
  }

 private:
  struct Value {
    std::string name;
    std::string type;
    std::vector<int64_t> dims;
  };

  std::vector<int64_t> RandomDims() {
    static constexpr int64_t kSizes[] = {1, 2, 3, 5, 7, 8, 13, 16, 33};
    std::vector<int64_t> dims(1 + rng_() % 3);
    for (auto& d : dims) d = kSizes[rng_() % 9];
    return dims;
  }
  static std::string Text(const Value& v) {
    return absl::StrCat(v.type, "[", absl::StrJoin(v.dims, ","), "]");
  }
  bool IsFloat(const std::string& t) const { return t[0] == 'f' || t[0] == 'b'; }
  bool IsSubByte(const std::string& t) const { return t == "s4" || t == "u4"; }
  // A random layout: any order, tiles (repeated, with '*'), E(4) for s4/u4.
  std::string LaidOut(const Value& v) {
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
  std::string Constant(const std::string& type, int n) {
    if (type == "pred") return n % 2 ? "true" : "false";
    if (IsFloat(type)) return absl::StrCat(n, ".5");
    if (type[0] == 'u' || IsSubByte(type)) return absl::StrCat(std::abs(n) % 7);
    return absl::StrCat(n);
  }
  std::string ScalarConstant(const std::string& type, int n) {
    std::string name = absl::StrCat("c", counter_++);
    absl::StrAppend(&body_, "  ", name, " = ", type, "[] constant(", Constant(type, n), ")\n");
    return name;
  }
  Value New(std::string type, std::vector<int64_t> dims) {
    return {absl::StrCat("v", counter_++), std::move(type), std::move(dims)};
  }
  void Emit(const Value& v, const std::string& rhs) {
    std::string shape = rng_() % 4 == 0 ? LaidOut(v) : Text(v);
    absl::StrAppend(&body_, "  ", v.name, " = ", shape, " ", rhs, "\n");
    values_.push_back(v);
  }
  void AddParameter(std::vector<int64_t> dims) {
    Value v = New(type_, std::move(dims));
    absl::StrAppend(&body_, "  ", v.name, " = ", Text(v), " parameter(", params_.size(), ")\n");
    values_.push_back(v);
    params_.push_back(v);
  }
  const Value& Pick() { return values_[rng_() % values_.size()]; }
  const Value* Partner(const Value& a) {
    const Value* b = &a;
    for (const Value& v : values_) {
      if (v.dims == a.dims && v.type == a.type && rng_() % 2) b = &v;
    }
    return b;
  }
  std::string Dims(const std::vector<int64_t>& d) { return absl::StrJoin(d, ","); }

  void AddOp() {
    const Value a = Pick();
    const bool pred = a.type == "pred";
    switch (rng_() % 19) {
      case 0: case 1: {
        static const char* kOps[] = {"add", "subtract", "multiply", "maximum", "minimum"};
        const char* op = pred ? (rng_() % 2 ? "and" : "or") : kOps[rng_() % 5];
        Emit(New(a.type, a.dims), absl::StrCat(op, "(", a.name, ", ", Partner(a)->name, ")"));
        break;
      }
      case 2: {
        const char* op = pred ? "not" : (IsFloat(a.type) && rng_() % 2) ? "tanh"
                                        : rng_() % 2 ? "negate" : "abs";
        Emit(New(a.type, a.dims), absl::StrCat(op, "(", a.name, ")"));
        break;
      }
      case 3: {  // compare, then select between the two
        if (pred) return;
        static const char* kDirs[] = {"LT", "GE", "EQ", "NE"};
        const Value b = *Partner(a);  // a copy: Emit grows values_
        Value p = New("pred", a.dims);
        Emit(p, absl::StrCat("compare(", a.name, ", ", b.name, "), direction=", kDirs[rng_() % 4]));
        Emit(New(a.type, a.dims), absl::StrCat("select(", p.name, ", ", a.name, ", ", b.name, ")"));
        break;
      }
      case 4: {  // convert to another type and back
        static const char* kTo[] = {"f32", "s32", "bf16", "s8", "u4", "f64"};
        const char* to = kTo[rng_() % 6];
        Value c = New(to, a.dims);
        Emit(c, absl::StrCat("convert(", a.name, ")"));
        Emit(New(a.type, a.dims), absl::StrCat("convert(", c.name, ")"));
        break;
      }
      case 5: {
        std::vector<int64_t> perm(a.dims.size());
        for (size_t k = 0; k < perm.size(); ++k) perm[k] = k;
        std::shuffle(perm.begin(), perm.end(), rng_);
        std::vector<int64_t> dims;
        for (int64_t p : perm) dims.push_back(a.dims[p]);
        Emit(New(a.type, dims), absl::StrCat("transpose(", a.name, "), dimensions={", Dims(perm), "}"));
        break;
      }
      case 6: {
        int64_t n = 1;
        for (int64_t d : a.dims) n *= d;
        std::vector<int64_t> dims = rng_() % 2 ? std::vector<int64_t>{n} : std::vector<int64_t>{1, n};
        if (a.dims.size() == 2 && rng_() % 2) dims = {a.dims[1], a.dims[0]};
        Emit(New(a.type, dims), absl::StrCat("reshape(", a.name, ")"));
        break;
      }
      case 7: {
        if (a.dims.size() >= 3) return;
        std::vector<int64_t> dims = a.dims;
        const size_t at = rng_() % (dims.size() + 1);
        dims.insert(dims.begin() + at, 3);
        std::vector<int64_t> map;
        for (size_t k = 0; k < a.dims.size(); ++k) map.push_back(k < at ? k : k + 1);
        Emit(New(a.type, dims), absl::StrCat("broadcast(", a.name, "), dimensions={", Dims(map), "}"));
        break;
      }
      case 8: {  // strided slice
        std::vector<std::string> ranges;
        std::vector<int64_t> dims;
        for (int64_t d : a.dims) {
          const int64_t begin = d > 2 ? 1 : 0, stride = d > 4 ? 2 : 1;
          ranges.push_back(absl::StrCat("[", begin, ":", d, ":", stride, "]"));
          dims.push_back((d - begin + stride - 1) / stride);
        }
        Emit(New(a.type, dims), absl::StrCat("slice(", a.name, "), slice={", absl::StrJoin(ranges, ", "), "}"));
        break;
      }
      case 9: {  // pad: low, high (sometimes negative), interior
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
        break;
      }
      case 10: {
        const size_t dim = rng_() % a.dims.size();
        std::vector<int64_t> dims = a.dims;
        const Value b = *Partner(a);
        dims[dim] *= 2;
        Emit(New(a.type, dims), absl::StrCat("concatenate(", a.name, ", ", b.name, "), dimensions={", dim, "}"));
        break;
      }
      case 11: {
        std::vector<int64_t> rev;
        for (size_t d = 0; d < a.dims.size(); ++d) {
          if (rng_() % 2) rev.push_back(d);
        }
        Emit(New(a.type, a.dims), absl::StrCat("reverse(", a.name, "), dimensions={", Dims(rev), "}"));
        break;
      }
      case 12: {  // dynamic-slice, starts sometimes out of range (clamped)
        std::vector<std::string> starts;
        std::vector<int64_t> sizes;
        for (int64_t d : a.dims) {
          starts.push_back(ScalarConstant("s32", static_cast<int>(rng_() % 5) - 1));
          sizes.push_back(std::max<int64_t>(1, d / 2));
        }
        Emit(New(a.type, sizes), absl::StrCat("dynamic-slice(", a.name, ", ", absl::StrJoin(starts, ", "),
                                              "), dynamic_slice_sizes={", Dims(sizes), "}"));
        break;
      }
      case 13: {  // dynamic-update-slice of a's own slice
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
        break;
      }
      case 14: {  // iota, added in
        if (pred) return;
        Value i = New(a.type, a.dims);
        Emit(i, absl::StrCat("iota(), iota_dimension=", rng_() % a.dims.size()));
        Emit(New(a.type, a.dims), absl::StrCat("add(", a.name, ", ", i.name, ")"));
        break;
      }
      case 15: {  // a dot on fresh rank-2 operands, sometimes batched
        if (pred) return;
        static constexpr int64_t kSizes[] = {1, 3, 8, 17, 33};
        const int64_t m = kSizes[rng_() % 5], k = kSizes[rng_() % 5], n = kSizes[rng_() % 5];
        AddParameter({m, k});
        const Value l = values_.back();
        AddParameter({k, n});
        const Value r = values_.back();
        Emit(New(type_, {m, n}), absl::StrCat("dot(", l.name, ", ", r.name,
                                              "), lhs_contracting_dims={1}, rhs_contracting_dims={0}"));
        break;
      }
      case 16: {  // reduce one dim with add (and for pred)
        if (a.dims.size() < 2) return;
        const std::string fn = absl::StrCat("reducer_", a.type);
        if (reducers_.insert(fn).second) {
          absl::StrAppend(&extra_, fn, " {\n  l = ", a.type, "[] parameter(0)\n  r = ", a.type,
                          "[] parameter(1)\n  ROOT s = ", a.type, "[] ", pred ? "and" : "add",
                          "(l, r)\n}\n\n");
        }
        const size_t dim = rng_() % a.dims.size();
        std::vector<int64_t> dims = a.dims;
        dims.erase(dims.begin() + dim);
        const std::string init = ScalarConstant(a.type, pred ? 1 : 0);
        Emit(New(a.type, dims), absl::StrCat("reduce(", a.name, ", ", init, "), dimensions={", dim,
                                             "}, to_apply=", fn));
        break;
      }
      case 17: {  // a while loop negating its state three times
        if (pred) return;
        const std::string n = absl::StrCat(counter_++);
        const std::string s = Text(a);
        absl::StrAppend(&extra_, "cond", n, " {\n  p = (s32[], ", s, ") parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n  k = s32[] constant(3)\n  ROOT lt = pred[] compare(i, k), direction=LT\n}\n\n");
        absl::StrAppend(&extra_, "body", n, " {\n  p = (s32[], ", s, ") parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n  one = s32[] constant(1)\n  j = s32[] add(i, one)\n  x = ", s, " get-tuple-element(p), index=1\n  y = ", s, " negate(x)\n  ROOT t = (s32[], ", s, ") tuple(j, y)\n}\n\n");
        const std::string init = ScalarConstant("s32", 0);
        const std::string tup = absl::StrCat("t", n), loop = absl::StrCat("w", n);
        absl::StrAppend(&body_, "  ", tup, " = (s32[], ", s, ") tuple(", init, ", ", a.name, ")\n  ",
                        loop, " = (s32[], ", s, ") while(", tup, "), condition=cond", n, ", body=body", n, "\n");
        Emit(New(a.type, a.dims), absl::StrCat("get-tuple-element(", loop, "), index=1"));
        break;
      }
      default: {  // a fusion, a call or a conditional around an elementwise op
        if (pred) return;
        const std::string n = absl::StrCat(counter_++);
        const std::string s = Text(a);
        const int kind = rng_() % 3;
        if (kind < 2) {
          absl::StrAppend(&extra_, "f", n, " {\n  p = ", s, " parameter(0)\n  ROOT m = ", s,
                          " multiply(p, p)\n}\n\n");
          Emit(New(a.type, a.dims), kind == 0
                   ? absl::StrCat("fusion(", a.name, "), kind=kLoop, calls=f", n)
                   : absl::StrCat("call(", a.name, "), to_apply=f", n));
        } else {
          absl::StrAppend(&extra_, "yes", n, " {\n  p = ", s, " parameter(0)\n  ROOT m = ", s,
                          " negate(p)\n}\n\nno", n, " {\n  p = ", s, " parameter(0)\n  ROOT m = ", s,
                          " abs(p)\n}\n\n");
          const std::string c = ScalarConstant("pred", static_cast<int>(rng_() % 2));
          Emit(New(a.type, a.dims), absl::StrCat("conditional(", c, ", ", a.name, ", ", a.name,
                                                 "), true_computation=yes", n, ", false_computation=no", n));
        }
        break;
      }
    }
  }

  std::mt19937_64 rng_;
  std::string type_;
  int counter_ = 0;
  std::vector<Value> values_, params_;
  std::string body_, extra_;
  std::set<std::string> reducers_;
};

}  // namespace

std::string RandomExecutorModule(uint64_t seed) { return Generator(seed).Build(); }

}  // namespace xla_layout::runtime
