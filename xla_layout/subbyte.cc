#include "xla_layout/subbyte.h"

namespace xla_layout {

void UnpackSlots(const uint8_t* packed, int64_t slots, int bits, int sign_bits,
                 uint8_t* bytes) {
  int64_t s = 0;
  if (bits == 4 && (sign_bits == 0 || sign_bits == 4)) {
    // Two nibbles a byte, the first slot high: a loop the compiler widens.
    for (; s + 1 < slots; s += 2) {
      const uint8_t b = packed[s / 2];
      if (sign_bits != 0) {
        const auto low_high = static_cast<int8_t>(static_cast<uint8_t>(b << 4));
        bytes[s] = static_cast<uint8_t>(static_cast<int8_t>(b) >> 4);
        bytes[s + 1] = static_cast<uint8_t>(low_high >> 4);
      } else {
        bytes[s] = static_cast<uint8_t>(b >> 4);
        bytes[s + 1] = static_cast<uint8_t>(b & 15);
      }
    }
  }
  for (; s < slots; ++s) {
    uint8_t v = LoadPacked(packed, s, bits);
    bytes[s] = sign_bits ? static_cast<uint8_t>(SignExtend(v, sign_bits)) : v;
  }
}

void PackSlots(const uint8_t* bytes, int64_t slots, int bits, uint8_t* packed) {
  const int per_byte = 8 / bits;
  const uint8_t mask = static_cast<uint8_t>((1u << bits) - 1);
  int64_t s = 0;
  int64_t b = 0;
  if (bits == 4) {
    for (; b < slots / 2; ++b, s += 2) {
      packed[b] = static_cast<uint8_t>((bytes[s] << 4) | (bytes[s + 1] & 15));
    }
  }
  for (; b < slots / per_byte; ++b) {
    uint8_t byte = 0;
    for (int j = 0; j < per_byte; ++j, ++s) {
      byte = static_cast<uint8_t>((byte << bits) | (bytes[s] & mask));
    }
    packed[b] = byte;
  }
  if (s < slots) {
    uint8_t byte = 0;
    int j = 0;
    for (; s < slots; ++s, ++j) byte = static_cast<uint8_t>((byte << bits) | (bytes[s] & mask));
    packed[slots / per_byte] = static_cast<uint8_t>(byte << (bits * (per_byte - j)));
  }
}

}  // namespace xla_layout
