// fs_divide (handlers/include/fs_divide.h) against C's own unsigned division and remainder: every
// divisor class the method distinguishes (1, powers of two, just below and above them, the largest
// 32-bit values) with the dividends where a rounding error would show first (0, multiples of the
// divisor and their neighbours, the largest dividend), then a million random pairs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "fs_divide.h"

namespace fs::test {
namespace {

void check(uint32_t x, uint32_t d) {
  const fs_divisor_t v = fs_divisor_make(d);
  const uint32_t q = fs_divide(x, &v);
  ASSERT_EQ(q, x / d) << x << " / " << d;
  ASSERT_EQ(fs_remainder(x, q, &v), x % d) << x << " % " << d;
}

TEST(FsDivide, EdgeDivisorsAndDividends) {
  std::vector<uint32_t> divisors = {1, 3, 5, 6, 7, 10, 64, 939, 1000, 0xFFFFu, 0x10001u, 0x7FFFFFFFu,
                                    0x80000001u, 0xFFFFFFFEu, 0xFFFFFFFFu};
  for (uint32_t k = 1; k < 32; ++k) {
    divisors.push_back(1u << k);
    divisors.push_back((1u << k) - 1);
    divisors.push_back((1u << k) + 1);
  }
  for (uint32_t d : divisors) {
    const std::vector<uint32_t> xs = {0, 1, d - 1, d, d + 1, 2 * d - 1, 2 * d, 0x7FFFFFFFu, 0x80000000u,
                                      0xFFFFFFFFu - d, 0xFFFFFFFEu, 0xFFFFFFFFu, (0xFFFFFFFFu / d) * d,
                                      (0xFFFFFFFFu / d) * d - 1};
    for (uint32_t x : xs) check(x, d);
  }
}

TEST(FsDivide, MagicOfKnownDivisors) {
  // By hand from the definition: d = 7, l = 3: floor(2^32 x 1 / 7) + 1 = 613566756 + 1, shifts
  // 1 and 2; d = 64, l = 6: 2^l - d = 0, so magic 1, shifts 1 and 5; d = 1, l = 0: magic 1,
  // shifts 0 and 0.
  fs_divisor_t v = fs_divisor_make(7);
  EXPECT_EQ(v.magic, 613566757u);
  EXPECT_EQ(v.shift1, 1u);
  EXPECT_EQ(v.shift2, 2u);
  v = fs_divisor_make(64);
  EXPECT_EQ(v.magic, 1u);
  EXPECT_EQ(v.shift2, 5u);
  v = fs_divisor_make(1);
  EXPECT_EQ(v.magic, 1u);
  EXPECT_EQ(v.shift1, 0u);
  EXPECT_EQ(v.shift2, 0u);
  EXPECT_EQ(fs_divisor_make(0).d, 1u);  // no division by zero: treated as 1
}

TEST(FsDivide, RandomPairs) {
  std::mt19937 rng(12);
  for (int i = 0; i < 1000000; ++i) {
    const uint32_t x = uint32_t(rng());
    // Divisors of every size: a random number shifted right by 0..31 bits.
    const uint32_t d = std::max<uint32_t>(1, uint32_t(rng()) >> (rng() % 32));
    check(x, d);
  }
}

}  // namespace
}  // namespace fs::test
