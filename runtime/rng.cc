#include "runtime/rng.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "runtime/element.h"
#include "runtime/ops_util.h"

namespace xla_layout::runtime {
namespace {

uint32_t Lo(uint64_t x) { return static_cast<uint32_t>(x); }
uint32_t Hi(uint64_t x) { return static_cast<uint32_t>(x >> 32); }
uint64_t Join(uint32_t lo, uint32_t hi) { return lo | (static_cast<uint64_t>(hi) << 32); }
uint32_t RotateLeft(uint32_t v, int n) { return (v << n) | (v >> (32 - n)); }

struct U128 {
  uint64_t lo = 0, hi = 0;
};
U128 Add(U128 a, uint64_t b) {
  U128 r{a.lo + b, a.hi};
  if (r.lo < a.lo) ++r.hi;
  return r;
}

// The value of a raw attribute, "" when absent.
std::string RawAttribute(const HloInstruction& i, absl::string_view name) {
  for (const HloAttribute& a : i.raw_attributes()) {
    if (a.name == name) return a.value;
  }
  return "";
}

enum class Algorithm { kPhilox, kThreeFry, kUnknown };
Algorithm AlgorithmOf(const HloInstruction& i) {
  const std::string a = RawAttribute(i, "algorithm");
  if (a.empty() || a == "rng_default" || a == "rng_philox") return Algorithm::kPhilox;
  if (a == "rng_three_fry") return Algorithm::kThreeFry;
  return Algorithm::kUnknown;
}

// Philox outputs from blocks counter, counter + 1, ...: 32-bit words
// round-robin over each block's four, or (`wide`) 64-bit words from words
// 0-1 and 2-3. Returns the blocks used.
uint64_t PhiloxFill(uint64_t key, U128 counter, bool wide, std::vector<uint64_t>& bits) {
  const uint64_t n = bits.size();
  const uint64_t per_block = wide ? 2 : 4;
  const uint64_t blocks = (n + per_block - 1) / per_block;
  for (uint64_t b = 0; b < blocks; ++b) {
    const U128 c = Add(counter, b);
    const std::array<uint32_t, 4> out =
        Philox4x32({Lo(c.lo), Hi(c.lo), Lo(c.hi), Hi(c.hi)}, {Lo(key), Hi(key)});
    for (uint64_t j = 0; j < per_block && b * per_block + j < n; ++j) {
      bits[b * per_block + j] = wide ? Join(out[2 * j], out[2 * j + 1]) : out[j];
    }
  }
  return blocks;
}

// XLA's choice of the dim a 32-bit Threefry output splits in two: the first
// even one, else the first largest (-1 for a scalar).
int SplitDim(absl::Span<const int64_t> dims) {
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] % 2 == 0) return static_cast<int>(d);
  }
  int split = -1;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (split < 0 || dims[d] > dims[split]) split = static_cast<int>(d);
  }
  return split;
}

// Threefry outputs in row-major order of `dims`; returns how far the counter
// advances.
uint64_t ThreeFryFill(uint64_t key, uint64_t start, absl::Span<const int64_t> dims, bool wide,
                      std::vector<uint64_t>& bits) {
  const std::array<uint32_t, 2> k = {Lo(key), Hi(key)};
  auto block = [&](uint64_t c) { return ThreeFry2x32({Lo(c), Hi(c)}, k); };
  if (wide) {
    for (uint64_t e = 0; e < bits.size(); ++e) {
      const std::array<uint32_t, 2> out = block(start + e);
      bits[e] = Join(out[0], out[1]);
    }
    return bits.size();
  }
  if (dims.empty()) {
    bits[0] = block(start)[0];
    return 1;
  }
  const int split = SplitDim(dims);
  std::vector<int64_t> half(dims.begin(), dims.end());
  half[split] = (half[split] + 1) / 2;
  uint64_t halves = 1;
  for (int64_t d : half) halves *= static_cast<uint64_t>(d);
  uint64_t e = 0;
  ForEachIndex(dims, [&](const IndexVector& index) {
    uint64_t linear = 0;
    for (size_t d = 0; d < half.size(); ++d) {
      const int64_t at = static_cast<int>(d) == split ? index[d] / 2 : index[d];
      linear = linear * static_cast<uint64_t>(half[d]) + static_cast<uint64_t>(at);
    }
    bits[e++] = block(start + linear)[index[split] % 2];
  });
  return halves;
}

Num ScalarOf(const Value& v) { return v.info->Load(v.data(), v.info->Slot({})); }

int MantissaBits(PrimitiveType type) {
  switch (type) {
    case F16: return 10;
    case BF16: return 7;
    case F64: return 52;
    default: return 23;
  }
}

// The largest value of `type` below `b`.
Num Below(Num b, PrimitiveType type) {
  uint64_t bits = ToBits(b, type);
  if (b.f > 0) {
    --bits;
  } else if (b.f < 0) {
    ++bits;
  } else {
    bits = (uint64_t{1} << (TypeBits(type) - 1)) | 1;
  }
  return FromBits(bits, type);
}

bool IsFloatType(PrimitiveType t) { return DomainOf(t) == Domain::kFloat; }
bool IsIntegerType(PrimitiveType t) {
  return DomainOf(t) == Domain::kSigned || DomainOf(t) == Domain::kUnsigned;
}

absl::Status CheckBitGenerator(const HloInstruction& i,
                               const std::function<absl::Status(absl::string_view)>& fail) {
  const Algorithm algorithm = AlgorithmOf(i);
  if (algorithm == Algorithm::kUnknown) {
    return fail(absl::StrCat("unknown algorithm '", RawAttribute(i, "algorithm"), "'"));
  }
  if (i.operand_count() != 1 || !i.shape().IsTuple() || i.shape().tuple_shapes().size() != 2) {
    return fail("takes one state and returns (state, bits)");
  }
  const Shape& state = i.operand(0)->shape();
  const Shape& bits = i.shape().tuple_shapes()[1];
  if (!state.IsArray() || state.rank() != 1 ||
      (state.element_type() != U64 && state.element_type() != S64)) {
    return fail("the state must be u64[n]");
  }
  const int64_t n = state.dimensions(0);
  if (algorithm == Algorithm::kPhilox ? (n != 2 && n != 3) : n != 2) {
    return fail(algorithm == Algorithm::kPhilox ? "a Philox state is u64[2] or u64[3]"
                                                : "a Threefry state is u64[2]");
  }
  const Shape& new_state = i.shape().tuple_shapes()[0];
  if (!new_state.IsArray() || new_state.element_type() != state.element_type() ||
      new_state.rank() != 1 || new_state.dimensions(0) != n) {
    return fail("the new state must have the state's shape");
  }
  if (!bits.IsArray() || !IsIntegerType(bits.element_type())) {
    return fail(absl::StrCat("the bits must be an integer array, not ", bits.ToString()));
  }
  return absl::OkStatus();
}

}  // namespace

std::array<uint32_t, 4> Philox4x32(std::array<uint32_t, 4> x, std::array<uint32_t, 2> key) {
  constexpr uint64_t kMulA = 0xD2511F53, kMulB = 0xCD9E8D57;
  constexpr uint32_t kBumpA = 0x9E3779B9, kBumpB = 0xBB67AE85;
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = kMulA * x[0];
    const uint64_t p1 = kMulB * x[2];
    x = {Hi(p1) ^ x[1] ^ key[0], Lo(p1), Hi(p0) ^ x[3] ^ key[1], Lo(p0)};
    key[0] += kBumpA;
    key[1] += kBumpB;
  }
  return x;
}

std::array<uint32_t, 2> ThreeFry2x32(std::array<uint32_t, 2> x, std::array<uint32_t, 2> key) {
  constexpr int kRotations[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
  const uint32_t ks[3] = {key[0], key[1], 0x1BD11BDA ^ key[0] ^ key[1]};
  x[0] += ks[0];
  x[1] += ks[1];
  // Five groups of four rounds, a key injection after each.
  for (uint32_t group = 0; group < 5; ++group) {
    for (int r : kRotations[group % 2]) {
      x[0] += x[1];
      x[1] = RotateLeft(x[1], r) ^ x[0];
    }
    x[0] += ks[(group + 1) % 3];
    x[1] += ks[(group + 2) % 3] + group + 1;
  }
  return x;
}

absl::Status CheckRng(const HloInstruction& i) {
  auto fail = [&](absl::string_view why) {
    return absl::UnimplementedError(
        absl::StrCat(i.name(), " (", HloOpcodeString(i.opcode()), "): ", why));
  };
  if (i.opcode() == HloOpcode::kRngBitGenerator) return CheckBitGenerator(i, fail);
  const std::string distribution = RawAttribute(i, "distribution");
  if (distribution != "rng_uniform" && distribution != "rng_normal") {
    return fail(absl::StrCat("unknown distribution '", distribution, "'"));
  }
  const PrimitiveType type = i.shape().element_type();
  if (!i.shape().IsArray() || !(IsFloatType(type) || IsIntegerType(type)) ||
      (distribution == "rng_normal" && !IsFloatType(type))) {
    return fail(absl::StrCat(distribution, " does not produce ", i.shape().ToString()));
  }
  if (i.operand_count() != 2) return fail("takes two scalar operands");
  for (const HloInstruction* o : i.operands()) {
    if (!o->shape().IsArray() || o->shape().rank() != 0 || o->shape().element_type() != type) {
      return fail(absl::StrCat("operand ", o->name(), " must be a scalar of the result's type"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Value> RngBitGenerator(const HloInstruction& i,
                                      absl::Span<const Value* const> operands,
                                      absl::Span<const Info> out) {
  const Value& state = *operands[0];
  std::vector<uint64_t> s;
  for (int64_t k = 0; k < state.info->dims()[0]; ++k) s.push_back(BitsAt(state, {k}));
  const int width = TypeBits(out[1]->type());
  std::vector<uint64_t> bits(out[1]->element_count());
  std::vector<uint64_t> next = s;
  if (AlgorithmOf(i) == Algorithm::kThreeFry) {
    next[1] = s[1] + ThreeFryFill(s[0], s[1], out[1]->dims(), width == 64, bits);
  } else {
    // A u64[2] state holds the counter's high word where the key is.
    const U128 counter{s[1], s.size() == 3 ? s[2] : s[0]};
    const U128 advanced = Add(counter, PhiloxFill(s[0], counter, width == 64, bits));
    next[1] = advanced.lo;
    if (s.size() == 3) next[2] = advanced.hi;
  }
  const uint64_t mask = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  size_t e = 0;
  absl::StatusOr<Value> values =
      Generate<true>(out[1], [&](const IndexVector&) { return bits[e++] & mask; });
  if (!values.ok()) return values;
  absl::StatusOr<Value> new_state =
      Generate<true>(out[0], [&](const IndexVector& index) { return next[index[0]]; });
  if (!new_state.ok()) return new_state;
  return Value::Tuple({*std::move(new_state), *std::move(values)});
}

absl::StatusOr<Value> RngOp(const HloInstruction& i, absl::Span<const Value* const> operands,
                            const Info& out, uint64_t seed) {
  const PrimitiveType type = out->type();
  const bool normal = RawAttribute(i, "distribution") == "rng_normal";
  const bool is_float = IsFloatType(type);
  const bool wide = !is_float || TypeBits(type) == 64;
  std::vector<uint64_t> bits(out->element_count() * (normal ? 2 : 1));
  PhiloxFill(seed, U128{}, wide, bits);
  const Num a = ScalarOf(*operands[0]), b = ScalarOf(*operands[1]);
  const int m = MantissaBits(type);
  auto unit = [&](uint64_t w) {
    return std::ldexp(static_cast<double>(w >> ((wide ? 64 : 32) - m)), -m);
  };
  size_t e = 0;
  return Generate<false>(out, [&](const IndexVector&) {
    Num r;
    if (normal) {
      const double u1 = std::max(unit(bits[e]), 1e-7);
      const double z = std::sin(2 * M_PI * unit(bits[e + 1])) * std::sqrt(-2 * std::log(u1));
      e += 2;
      r.f = a.f + b.f * z;
      return Normalize(r, type);
    }
    const uint64_t w = bits[e++];
    if (is_float) {
      r.f = a.f + unit(w) * (b.f - a.f);
      r = Normalize(r, type);
      return r.f >= b.f && b.f > a.f ? Below(b, type) : r;
    }
    const bool empty = DomainOf(type) == Domain::kUnsigned
                           ? static_cast<uint64_t>(b.i) <= static_cast<uint64_t>(a.i)
                           : b.i <= a.i;
    if (empty) return a;
    const uint64_t range = static_cast<uint64_t>(b.i) - static_cast<uint64_t>(a.i);
    r.i = static_cast<int64_t>(static_cast<uint64_t>(a.i) + w % range);
    return Normalize(r, type);
  });
}

uint64_t InstructionSeed(const HloInstruction& i) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
  for (char c : i.name()) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  return h;
}

}  // namespace xla_layout::runtime
