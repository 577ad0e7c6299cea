#include "xla_layout/primitive_type.h"

#include <array>
#include <memory>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace xla_layout {
namespace {

struct TypeInfo {
  PrimitiveType type;
  const char* name;
  int64_t bits;
};

// bits == 0 marks the non-array types.
constexpr TypeInfo kTypes[] = {
    {PRED, "pred", 8},
    {S1, "s1", 1},
    {S2, "s2", 2},
    {S4, "s4", 4},
    {S8, "s8", 8},
    {S16, "s16", 16},
    {S32, "s32", 32},
    {S64, "s64", 64},
    {U1, "u1", 1},
    {U2, "u2", 2},
    {U4, "u4", 4},
    {U8, "u8", 8},
    {U16, "u16", 16},
    {U32, "u32", 32},
    {U64, "u64", 64},
    {F16, "f16", 16},
    {F32, "f32", 32},
    {BF16, "bf16", 16},
    {F64, "f64", 64},
    {F8E5M2, "f8e5m2", 8},
    {F8E4M3, "f8e4m3", 8},
    {F8E4M3FN, "f8e4m3fn", 8},
    {F8E4M3B11FNUZ, "f8e4m3b11fnuz", 8},
    {F8E3M4, "f8e3m4", 8},
    {F8E5M2FNUZ, "f8e5m2fnuz", 8},
    {F8E4M3FNUZ, "f8e4m3fnuz", 8},
    {F4E2M1FN, "f4e2m1fn", 4},
    {F8E8M0FNU, "f8e8m0fnu", 8},
    {C64, "c64", 64},
    {C128, "c128", 128},
    {TUPLE, "tuple", 0},
    {OPAQUE_TYPE, "opaque", 0},
    {TOKEN, "token", 0},
};

// Shapes ask for their type's width on every query: index by the enum's
// value instead of scanning the table.
constexpr int kMaxTypeValue = 64;
const TypeInfo* Find(PrimitiveType type) {
  static const std::array<const TypeInfo*, kMaxTypeValue> by_value = [] {
    std::array<const TypeInfo*, kMaxTypeValue> table{};
    for (const TypeInfo& info : kTypes) {
      if (info.type >= 0 && info.type < kMaxTypeValue) table[info.type] = &info;
    }
    return table;
  }();
  if (type >= 0 && type < kMaxTypeValue) return by_value[type];
  for (const TypeInfo& info : kTypes) {
    if (info.type == type) return &info;
  }
  return nullptr;
}

}  // namespace

std::string PrimitiveTypeName(PrimitiveType type) {
  const TypeInfo* info = Find(type);
  return info ? info->name : absl::StrCat("invalid_type_", static_cast<int>(type));
}

std::string PrimitiveTypeText(PrimitiveType type, const PrintOptions& options) {
  const TypeInfo* info = Find(type);
  if (info != nullptr && options.syntax != ShapeSyntax::kAngle) return info->name;
  std::string name = PrimitiveTypeName(type);
  return options.syntax == ShapeSyntax::kAngle ? absl::AsciiStrToUpper(name)
                                               : name;
}

void AppendPrimitiveTypeText(TextAppender& text, PrimitiveType type,
                             const PrintOptions& options) {
  const TypeInfo* info = Find(type);
  if (info != nullptr && options.syntax != ShapeSyntax::kAngle) {
    const absl::string_view name = info->name;
    text.Text(name.data(), name.size());
    return;
  }
  const std::string name = PrimitiveTypeText(type, options);
  text.Text(name.data(), name.size());
}

absl::StatusOr<PrimitiveType> ParsePrimitiveType(absl::string_view name) {
  // Every shape in a module names its type: one hash lookup, no lowering
  // unless the name has capitals (the angle syntax writes F32).
  static const auto* const by_name = [] {
    auto table = std::make_unique<absl::flat_hash_map<absl::string_view, PrimitiveType>>();
    for (const TypeInfo& info : kTypes) {
      if (info.type != TUPLE) table->emplace(info.name, info.type);
    }
    return table.release();
  }();
  auto found = by_name->find(name);
  if (found != by_name->end()) return found->second;
  std::string lower = absl::AsciiStrToLower(name);
  found = by_name->find(lower);
  if (found != by_name->end()) return found->second;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown element type '", name, "'"));
}

bool IsArrayType(PrimitiveType type) {
  const TypeInfo* info = Find(type);
  return info != nullptr && info->bits > 0;
}

int64_t PrimitiveBitWidth(PrimitiveType type) {
  const TypeInfo* info = Find(type);
  return info ? info->bits : 0;
}

int64_t PrimitiveByteSize(PrimitiveType type) {
  int64_t bits = PrimitiveBitWidth(type);
  return bits == 0 ? 0 : (bits + 7) / 8;
}

}  // namespace xla_layout
