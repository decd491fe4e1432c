// Shared by the iss/fpu.h tests: bit casts and a random operand generator biased towards the
// encodings and value ranges where IEEE 754 arithmetic is delicate.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <utility>

namespace fpu_test {

// Multiplier for the random case counts (environment FLARESIM_FPU_TEST_SCALE, default 1): a
// deeper run is e.g. FLARESIM_FPU_TEST_SCALE=50 build/tb/tests_unit --gtest_filter='Fpu*'.
inline int Scale() {
  const char* s = std::getenv("FLARESIM_FPU_TEST_SCALE");
  const int v = s ? std::atoi(s) : 1;
  return v > 0 ? v : 1;
}

inline float F(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint32_t U(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline bool IsNaN(uint32_t u) { return (u & 0x7fffffffu) > 0x7f800000u; }

// Random operands biased towards the interesting encodings: zeros, subnormals, the extremes of
// the exponent range, infinities, quiet and signaling NaNs, all-ones and single-bit fractions.
class Gen {
 public:
  explicit Gen(uint64_t seed) : rng_(seed) {}
  uint64_t Bits() { return rng_(); }

  uint32_t Any() {
    const uint64_t r = rng_();
    if ((r & 7) == 0) return uint32_t(r >> 32);  // uniform bit pattern
    const uint32_t sign = uint32_t(r >> 3 & 1) << 31;
    uint32_t e;
    switch (r >> 4 & 15) {
      case 0: e = 0; break;
      case 1: e = 1; break;
      case 2: e = 0xfe; break;
      case 3: e = 0xff; break;
      case 4: e = 0xfd + (r >> 8 & 1); break;
      case 5: e = 2 + (r >> 8 & 31); break;      // just above the subnormals
      case 6: e = 0xe0 + (r >> 8 & 31); break;   // near overflow
      case 7: case 8: e = 127 - 12 + (r >> 8 & 31); break;  // near 1.0
      default: e = r >> 8 & 0xff; break;
    }
    return sign | e << 23 | Frac(r >> 16);
  }

  // A value near `x` (same or adjacent binade), for cancellation in add/sub/fma.
  uint32_t Near(uint32_t x) {
    const uint64_t r = rng_();
    const int e = int(x >> 23 & 0xff) + int(r & 3) - 1;
    const uint32_t ec = uint32_t(e < 0 ? 0 : e > 0xfe ? 0xfe : e);
    uint32_t frac = x & 0x7fffff;
    if (r & 4) frac ^= Frac(r >> 8) & ((1u << (r >> 40) % 24) - 1);  // differ in low bits only
    return uint32_t(r >> 3 & 1) << 31 | ec << 23 | frac;
  }

  // Operands (a, b) whose product (or, with `quotient`, a/b) lies within a few ulps of
  // (1 - 2^-25) * 2^-126, where rounding decides whether the result is tiny. Built with host
  // double arithmetic (test input generation only).
  std::pair<uint32_t, uint32_t> NearMinNormal(bool quotient) {
    const uint64_t r = rng_();
    const uint32_t b = uint32_t(r >> 3 & 1) << 31 | uint32_t(127 - 20 + (r >> 8) % 40) << 23 |
                       uint32_t(r >> 32 & 0x7fffff);
    const double target = std::ldexp(1.0 - std::ldexp(1.0, -25), -126);
    const double bd = double(F(b));
    uint32_t a = U(float(quotient ? target * bd : target / bd));
    a = uint32_t(int64_t(a) + int64_t(r >> 16 & 7) - 3);
    if (r & 4) a ^= 0x80000000u;
    return {a, b};
  }

  // small_int * 2^k: products and quotients of these often land exactly on ties.
  uint32_t SmallInt() {
    const uint64_t r = rng_();
    const uint32_t m = uint32_t(r & 0xffffff) >> (r >> 24 & 15);
    if (!m) return 0;
    const int top = 31 - __builtin_clz(m);
    const int e = 127 - 40 + int(r >> 32 & 63);
    return uint32_t(r >> 40 & 1) << 31 | uint32_t(e) << 23 | ((m << (23 - top)) & 0x7fffff);
  }

 private:
  uint32_t Frac(uint64_t r) {
    switch (r & 7) {
      case 0: return 0;
      case 1: return 1;
      case 2: return 0x7fffff;
      case 3: return 0x400000 | uint32_t(r >> 3 & 1);  // quiet NaN / signaling NaN boundary
      case 4: return 1u << (r >> 3) % 23;
      case 5: return 0x7fffff ^ (1u << (r >> 3) % 23);
      case 6: return uint32_t(r >> 3) & uint32_t(r >> 30) & 0x7fffff;
      default: return uint32_t(r >> 3) & 0x7fffff;
    }
  }
  std::mt19937_64 rng_;
};

}  // namespace fpu_test
