// A float32's IEEE 754 bits and back (element values travel as little-endian 32-bit words).
#pragma once
#include <cstdint>
#include <cstring>

namespace fs {

inline float float_of_bits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline uint32_t bits_of_float(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

}  // namespace fs
