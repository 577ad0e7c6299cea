#include "runtime/bits.h"

#include <optional>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace xla_layout::runtime {
namespace {

// An integer text attribute, or nullopt when absent or not an integer.
std::optional<int64_t> IntAttr(const HloInstruction& inst, absl::string_view name) {
  const std::optional<std::string> text = RawAttr(inst, name);
  int64_t v = 0;
  if (!text || !absl::SimpleAtoi(*text, &v)) return std::nullopt;
  return v;
}

// Exponent and mantissa widths of the float types.
struct FloatFormat {
  int exponent = 0;
  int mantissa = 0;
};
FloatFormat FormatOf(PrimitiveType type) {
  switch (type) {
    case F16:
      return {5, 10};
    case BF16:
      return {8, 7};
    case F32:
      return {8, 23};
    default:
      return {11, 52};  // f64
  }
}

uint64_t LowMask(int bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

}  // namespace

absl::Status CheckBitcastConvert(const HloInstruction& inst) {
  if (inst.operand_count() != 1 || !inst.operand(0)->shape().IsArray() || !inst.shape().IsArray()) {
    return OpError(inst, "bitcast-convert takes one array and gives one");
  }
  if (inst.operand(0)->shape().element_type() == PRED || inst.shape().element_type() == PRED) {
    return OpError(inst, "a bitcast-convert from or to pred is not supported by the executor");
  }
  return absl::OkStatus();
}

absl::StatusOr<Value> BitcastConvert(const Value& operand, const Info& out) {
  const int from = TypeBits(operand.info->type()), to = TypeBits(out->type());
  if (from == to) {
    return Generate<true>(out, [&](const IndexVector& index) { return BitsAt(operand, index); });
  }
  IndexVector at;
  if (from > to) {
    // out[..., j] is bits [j*to, (j+1)*to) of operand[...].
    return Generate<true>(out, [&](const IndexVector& index) {
      at.assign(index.begin(), index.end() - 1);
      return (BitsAt(operand, at) >> (index.back() * to)) & LowMask(to);
    });
  }
  const int64_t parts = to / from;
  return Generate<true>(out, [&](const IndexVector& index) {
    at.assign(index.begin(), index.end());
    at.push_back(0);
    uint64_t bits = 0;
    for (int64_t j = 0; j < parts; ++j) {
      at.back() = j;
      bits |= (BitsAt(operand, at) & LowMask(from)) << (j * from);
    }
    return bits;
  });
}

absl::Status CheckReducePrecision(const HloInstruction& inst) {
  if (inst.operand_count() != 1 ||
      DomainOf(inst.operand(0)->shape().element_type()) != Domain::kFloat) {
    return OpError(inst, "reduce-precision takes one floating-point operand");
  }
  const std::optional<int64_t> e = IntAttr(inst, "exponent_bits");
  const std::optional<int64_t> m = IntAttr(inst, "mantissa_bits");
  if (!e || !m || *e < 1 || *m < 0 || *e > 64 || *m > 64) {
    return OpError(inst, "needs exponent_bits >= 1 and mantissa_bits >= 0");
  }
  return absl::OkStatus();
}

uint64_t ReducePrecisionBits(uint64_t bits, PrimitiveType type, int exponent_bits,
                             int mantissa_bits) {
  const FloatFormat src = FormatOf(type);
  const int width = src.exponent + src.mantissa + 1;
  const uint64_t in = bits;
  uint64_t x = bits;
  if (mantissa_bits < src.mantissa) {
    // Adding 0111...1, plus one when the last kept bit is odd, then cutting
    // the dropped bits rounds to nearest even; a carry into the exponent is
    // the right next binade (or inf).
    const int dropped = src.mantissa - mantissa_bits;
    const uint64_t last_kept = uint64_t{1} << dropped;
    const uint64_t bias = (last_kept >> 1) - 1 + ((x & last_kept) >> dropped);
    x = (x + bias) & ~(last_kept - 1) & LowMask(width);
  }
  if (exponent_bits < src.exponent) {
    const uint64_t sign = uint64_t{1} << (width - 1);
    const uint64_t exponent_mask = LowMask(src.exponent) << src.mantissa;
    const uint64_t src_bias = LowMask(src.exponent - 1);
    const uint64_t reduced_bias = LowMask(exponent_bits - 1);
    const uint64_t exponent = x & exponent_mask;
    if (exponent > (src_bias + reduced_bias) << src.mantissa) {
      x = (x & sign) | exponent_mask;
    } else if (exponent <= (src_bias - reduced_bias) << src.mantissa) {
      x &= sign;
    }
  }
  const bool nan =
      (in & (LowMask(src.exponent) << src.mantissa)) == (LowMask(src.exponent) << src.mantissa) &&
      (in & LowMask(src.mantissa)) != 0;
  if (nan) return mantissa_bits > 0 ? in : LowMask(src.exponent) << src.mantissa;
  return x;
}

absl::StatusOr<Value> ReducePrecision(const HloInstruction& inst, const Value& operand,
                                      const Info& out) {
  const int e = static_cast<int>(IntAttr(inst, "exponent_bits").value_or(1));
  const int m = static_cast<int>(IntAttr(inst, "mantissa_bits").value_or(0));
  const PrimitiveType type = operand.info->type();
  return Generate<true>(out, [&](const IndexVector& index) {
    return ReducePrecisionBits(BitsAt(operand, index), type, e, m);
  });
}

}  // namespace xla_layout::runtime
