// Where a sub-byte element lives: slots of E(n) bits (n = 1, 2 or 4) are
// packed into bytes as XLA's PackIntN packs them, the first slot of a byte in
// its most significant bits. Everything that reads or writes packed slots
// (the packing core, the executor) goes through these functions.
#ifndef XLA_LAYOUT_SUBBYTE_H_
#define XLA_LAYOUT_SUBBYTE_H_

#include <cstdint>

namespace xla_layout {

// Bytes that `slots` packed slots of `bits` each take (the last byte's unused
// low bits are zero).
inline int64_t PackedByteSize(int64_t slots, int bits) {
  return (slots * bits + 7) / 8;
}

inline int PackedShift(int64_t slot, int bits) {
  const int per_byte = 8 / bits;
  return bits * (per_byte - 1 - static_cast<int>(slot % per_byte));
}

// The `bits` low bits of slot `slot`, zero-extended.
inline uint8_t LoadPacked(const uint8_t* data, int64_t slot, int bits) {
  const uint8_t mask = static_cast<uint8_t>((1u << bits) - 1);
  return (data[slot * bits / 8] >> PackedShift(slot, bits)) & mask;
}

// Writes the `bits` low bits of `value` into slot `slot`.
inline void StorePacked(uint8_t* data, int64_t slot, int bits, uint8_t value) {
  const uint8_t mask = static_cast<uint8_t>((1u << bits) - 1);
  const int shift = PackedShift(slot, bits);
  uint8_t& byte = data[slot * bits / 8];
  byte = static_cast<uint8_t>((byte & ~(mask << shift)) | ((value & mask) << shift));
}

// Sign-extends the `bits` low bits of `value`.
inline int64_t SignExtend(uint64_t value, int bits) {
  if (bits >= 64) return static_cast<int64_t>(value);
  const uint64_t sign = uint64_t{1} << (bits - 1);
  value &= (sign << 1) - 1;
  return static_cast<int64_t>((value ^ sign) - sign);
}

// `slots` packed slots to one byte each, sign-extended from bit `sign_bits`
// (the element type's width: s4 in E(4), s2 in E(2) or E(4)) or zero-extended
// when `sign_bits` is 0; and back (the low bits of each byte; the last byte's
// unused bits are zeroed).
void UnpackSlots(const uint8_t* packed, int64_t slots, int bits, int sign_bits,
                 uint8_t* bytes);
void PackSlots(const uint8_t* bytes, int64_t slots, int bits, uint8_t* packed);

}  // namespace xla_layout

#endif  // XLA_LAYOUT_SUBBYTE_H_
