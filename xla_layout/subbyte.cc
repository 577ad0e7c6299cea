#include "xla_layout/subbyte.h"

#include <emmintrin.h>

namespace xla_layout {

void UnpackSlots(const uint8_t* packed, int64_t slots, int bits, int sign_bits,
                 uint8_t* bytes) {
  int64_t s = 0;
  if (bits == 4 && (sign_bits == 0 || sign_bits == 4)) {
    // 16 bytes hold 32 slots, the first of each byte in its high nibble.
    const __m128i low4 = _mm_set1_epi8(0x0F), eight = _mm_set1_epi8(8);
    for (; s + 32 <= slots; s += 32) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(packed + s / 2));
      __m128i hi = _mm_and_si128(_mm_srli_epi16(v, 4), low4);
      __m128i lo = _mm_and_si128(v, low4);
      if (sign_bits != 0) {  // (x ^ 8) - 8 sign-extends a nibble
        hi = _mm_sub_epi8(_mm_xor_si128(hi, eight), eight);
        lo = _mm_sub_epi8(_mm_xor_si128(lo, eight), eight);
      }
      _mm_storeu_si128(reinterpret_cast<__m128i*>(bytes + s), _mm_unpacklo_epi8(hi, lo));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(bytes + s + 16), _mm_unpackhi_epi8(hi, lo));
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
    // Each 16-bit word holds slots 2i (low byte) and 2i+1: their nibbles
    // make byte i, the first one high.
    const __m128i high4 = _mm_set1_epi16(0x00F0), low4 = _mm_set1_epi16(0x000F);
    for (; s + 32 <= slots; s += 32, b += 16) {
      __m128i w[2];
      for (int h = 0; h < 2; ++h) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + s + 16 * h));
        w[h] = _mm_or_si128(_mm_and_si128(_mm_slli_epi16(v, 4), high4),
                            _mm_and_si128(_mm_srli_epi16(v, 8), low4));
      }
      _mm_storeu_si128(reinterpret_cast<__m128i*>(packed + b), _mm_packus_epi16(w[0], w[1]));
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
