// Helpers shared by the files that implement the executor's array ops
// (internal to runtime/): reading an element at a logical index and filling
// a new buffer index by index.
#ifndef RUNTIME_OPS_UTIL_H_
#define RUNTIME_OPS_UTIL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hlo/hlo_module.h"
#include "runtime/buffer.h"
#include "xla_layout/primitive_type.h"

namespace xla_layout::runtime {

using Info = std::shared_ptr<const ArrayInfo>;

// The slot of `index` in `v`; a scalar operand of a wider op is read at its
// one slot (select's predicate, clamp's bounds).
inline int64_t SlotOf(const ArrayInfo& a, absl::Span<const int64_t> index) {
  return a.rank() == 0 ? a.Slot({}) : a.Slot(index);
}
inline Num At(const Value& v, absl::Span<const int64_t> index) {
  return v.info->Load(v.data(), SlotOf(*v.info, index));
}
inline uint64_t BitsAt(const Value& v, absl::Span<const int64_t> index) {
  return v.info->LoadBits(v.data(), SlotOf(*v.info, index));
}

// Fills every element of a new buffer from `fn(index)`: a Num, or raw
// bits when `kBits`.
template <bool kBits, typename Fn>
absl::StatusOr<Value> Generate(const Info& out, Fn&& fn) {
  absl::StatusOr<Value> v = Value::Allocate(out);
  if (!v.ok()) return v;
  uint8_t* data = v->mutable_data();
  const ArrayInfo& info = *out;
  ForEachIndex(info.dims(), [&](const IndexVector& index) {
    if constexpr (kBits) {
      info.StoreBits(data, info.Slot(index), fn(index));
    } else {
      info.Store(data, info.Slot(index), fn(index));
    }
  });
  return v;
}

inline std::vector<int64_t> Attr(const std::optional<std::vector<int64_t>>& a) {
  return a.value_or(std::vector<int64_t>{});
}

// The value of an attribute the parser keeps as text (is_stable, lower,
// transpose_a, k, exponent_bits...), or nullopt when it is not written.
inline std::optional<std::string> RawAttr(const HloInstruction& inst, absl::string_view name) {
  for (const HloAttribute& a : inst.raw_attributes()) {
    if (a.name == name) return a.value;
  }
  return std::nullopt;
}

// An error naming the instruction: "name (opcode): why".
inline absl::Status OpError(const HloInstruction& inst, absl::string_view why) {
  return absl::UnimplementedError(
      absl::StrCat(inst.name(), " (", HloOpcodeString(inst.opcode()), "): ", why));
}

// A boolean text attribute: `fallback` when absent; an error naming the
// instruction when it is neither true nor false.
inline absl::StatusOr<bool> BoolAttr(const HloInstruction& inst, absl::string_view name,
                                     bool fallback) {
  const std::optional<std::string> v = RawAttr(inst, name);
  if (!v) return fallback;
  if (*v == "true") return true;
  if (*v == "false") return false;
  return OpError(inst, absl::StrCat(name, "=", *v, " is neither true nor false"));
}

// OK when the computation `inst` calls through `attribute` takes
// `parameters` scalars, the j-th of type `types[j]` when `types` is not
// empty, and returns `results` scalars (a tuple when more than one), the
// first of type `result_type` unless it is PRIMITIVE_TYPE_INVALID.
inline absl::Status CheckScalarComputation(const HloInstruction& inst,
                                           absl::string_view attribute, int parameters,
                                           absl::Span<const PrimitiveType> types, int results,
                                           PrimitiveType result_type) {
  const HloComputation* c = inst.called_computation(attribute);
  if (c == nullptr) return OpError(inst, absl::StrCat("no ", attribute, " computation"));
  const std::vector<HloInstruction*> params = c->parameters();
  const Shape& root = c->root()->shape();
  const int got = root.IsTuple() ? static_cast<int>(root.tuple_shapes().size()) : 1;
  const Shape& first = root.IsTuple() && got > 0 ? root.tuple_shapes()[0] : root;
  bool ok = static_cast<int>(params.size()) == parameters && got == results;
  for (size_t j = 0; ok && j < types.size() && j < params.size(); ++j) {
    ok = params[j] != nullptr && params[j]->shape().IsArray() &&
         params[j]->shape().rank() == 0 && params[j]->shape().element_type() == types[j];
  }
  if (ok && result_type != PRIMITIVE_TYPE_INVALID) {
    ok = first.IsArray() && first.rank() == 0 && first.element_type() == result_type;
  }
  if (ok) return absl::OkStatus();
  return OpError(inst, absl::StrCat(attribute, "=", c->name(), " must take ", parameters,
                                    " scalars", types.empty() ? "" : " of the operands' types",
                                    " and return ", results,
                                    result_type == PRIMITIVE_TYPE_INVALID
                                        ? ""
                                        : absl::StrCat(" ", PrimitiveTypeName(result_type)),
                                    results == 1 ? " scalar" : " scalars"));
}

}  // namespace xla_layout::runtime

#endif  // RUNTIME_OPS_UTIL_H_
