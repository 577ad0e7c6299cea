#include "runtime/custom_call.h"

#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "runtime/executor.h"
#include "runtime/ops_util.h"
#include "xla_layout/layout_util.h"

namespace xla_layout::runtime {
namespace {

// SplitMix64's output function: a bijection that spreads every input bit.
uint64_t Mix(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

struct Hash {
  uint64_t h = 0x6a09e667f3bcc909ULL;
  void Add(uint64_t word) { h = Mix(h ^ word) + 0x9e3779b97f4a7c15ULL; }
};

void AddLeaves(const Value& v, Hash& hash) {
  if (!v.is_array()) {
    hash.Add(0x7475706c65ULL ^ v.elements.size());  // "tuple": keeps structure apart
    for (const Value& e : v.elements) AddLeaves(e, hash);
    return;
  }
  const ArrayInfo& info = *v.info;
  hash.Add(static_cast<uint64_t>(info.type()));
  hash.Add(static_cast<uint64_t>(info.rank()));
  for (int64_t d : info.dims()) hash.Add(static_cast<uint64_t>(d));
  if (info.row_major_dense()) {
    const int64_t n = info.element_count();
    for (int64_t k = 0; k < n; ++k) hash.Add(info.LoadBits(v.data(), k));
    return;
  }
  ForEachIndex(info.dims(), [&](const IndexVector& index) {
    hash.Add(info.LoadBits(v.data(), info.Slot(index)));
  });
}

// SplitMix64: the stand-in's generator.
struct Generator {
  uint64_t state;
  uint64_t Next() { return Mix(state += 0x9e3779b97f4a7c15ULL); }
};

Num StandInElement(PrimitiveType type, uint64_t r) {
  Num n;
  switch (DomainOf(type)) {
    case Domain::kFloat:
      n.f = static_cast<double>(r >> 55) / 256.0 - 1.0;
      break;
    case Domain::kSigned:
      n.i = static_cast<int64_t>(r >> 60) - 8;
      break;
    case Domain::kUnsigned:
      n.i = static_cast<int64_t>(r >> 60);
      break;
    case Domain::kPred:
      n.i = static_cast<int64_t>(r >> 63);
      break;
  }
  return n;
}

// `leaves` (one per array leaf of `shape`, in order) as a value of `shape`.
Value Assemble(const Shape& shape, std::vector<Value>& leaves, size_t& next) {
  if (!shape.IsTuple()) return std::move(leaves[next++]);
  std::vector<Value> elements;
  for (const Shape& s : shape.tuple_shapes()) elements.push_back(Assemble(s, leaves, next));
  return Value::Tuple(std::move(elements));
}

absl::Status Flatten(const Value& v, std::vector<KernelArray>& out) {
  if (!v.is_array()) {
    for (const Value& e : v.elements) {
      absl::Status s = Flatten(e, out);
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }
  absl::StatusOr<LogicalArray> a = ToLogical(v);
  if (!a.ok()) return a.status();
  KernelArray k;
  k.type = a->shape.element_type();
  k.dims.assign(a->shape.dimensions().begin(), a->shape.dimensions().end());
  k.bytes = std::move(a->bytes);
  out.push_back(std::move(k));
  return absl::OkStatus();
}

std::string Where(const HloInstruction& call) {
  return absl::StrCat(call.name(), " (custom-call ", CustomCallTarget(call), ")");
}

}  // namespace

std::string CustomCallTarget(const HloInstruction& call) {
  for (const HloAttribute& a : call.raw_attributes()) {
    if (a.name != "custom_call_target") continue;
    absl::string_view v = a.value;
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
    std::string unescaped;
    if (absl::CUnescape(v, &unescaped)) return unescaped;
    return std::string(v);
  }
  return "";
}

absl::StatusOr<Value> StandInCustomCall(const HloInstruction& call,
                                        absl::Span<const Value* const> operands,
                                        absl::Span<const Info> out) {
  Hash hash;
  for (char c : CustomCallTarget(call)) hash.Add(static_cast<unsigned char>(c));
  hash.Add(operands.size());
  for (const Value* v : operands) AddLeaves(*v, hash);
  Generator g{hash.h};
  std::vector<Value> leaves;
  for (const Info& info : out) {
    const PrimitiveType type = info->type();
    absl::StatusOr<Value> v =
        Generate<false>(info, [&](const IndexVector&) { return StandInElement(type, g.Next()); });
    if (!v.ok()) return v.status();
    leaves.push_back(*std::move(v));
  }
  size_t next = 0;
  return Assemble(call.shape(), leaves, next);
}

absl::StatusOr<Value> KernelCustomCall(const HloInstruction& call,
                                       absl::Span<const Value* const> operands,
                                       absl::Span<const Info> out,
                                       const CustomCallKernel& kernel) {
  std::vector<KernelArray> args;
  for (const Value* v : operands) {
    absl::Status s = Flatten(*v, args);
    if (!s.ok()) return s;
  }
  std::vector<KernelArray> results;
  std::vector<size_t> sizes;
  for (const Info& info : out) {
    KernelArray r;
    r.type = info->type();
    r.dims.assign(info->dims().begin(), info->dims().end());
    const int bits = TypeBits(r.type);
    sizes.push_back(static_cast<size_t>(info->element_count()) * (bits < 8 ? 1 : bits / 8));
    r.bytes.assign(sizes.back(), 0);
    results.push_back(std::move(r));
  }
  absl::Status s = kernel(args, absl::MakeSpan(results));
  if (!s.ok()) return absl::Status(s.code(), absl::StrCat(Where(call), ": ", s.message()));
  std::vector<Value> leaves;
  for (size_t k = 0; k < out.size(); ++k) {
    if (results[k].bytes.size() != sizes[k]) {
      return absl::InternalError(absl::StrCat(Where(call), ": the kernel returned ",
                                              results[k].bytes.size(), " bytes for result ", k,
                                              ", not ", sizes[k]));
    }
    LogicalArray logical;
    logical.shape = out[k]->shape();
    logical.shape.set_layout(DefaultLayoutForRank(logical.shape.rank()));
    logical.bytes = std::move(results[k].bytes);
    absl::StatusOr<Value> v = MakeArgument(out[k]->shape(), logical);
    if (!v.ok()) return v.status();
    leaves.push_back(*std::move(v));
  }
  size_t next = 0;
  return Assemble(call.shape(), leaves, next);
}

}  // namespace xla_layout::runtime
