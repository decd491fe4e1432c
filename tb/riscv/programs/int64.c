/* 64-bit integer arithmetic on rv32: add/sub with carries (sltu chains), multiplication
 * (mul/mulhu sequences), signed and unsigned division and remainder (libgcc __divdi3,
 * __udivdi3, __moddi3, __umoddi3) including INT64_MIN / -1 avoided in C and extreme divisors,
 * variable shifts by 0..63 (both halves), comparisons, and conversions to and from 32 bits.
 * Values are printed with %llx / %lld (picolibc long long printf). */
#include <stdint.h>

#include "testlib.h"

static void show64(const char* name, uint64_t v) {
  printf("%s = 0x%016llx\n", name, (unsigned long long)v);
  mix((uint32_t)v);
  mix((uint32_t)(v >> 32));
}

static volatile uint64_t vals[] = {0, 1, 2, 3, 10, 0xffffffffull, 0x100000000ull, 0x7fffffffffffffffull,
                                   0x8000000000000000ull, 0xffffffffffffffffull, 0x123456789abcdef0ull,
                                   0xfedcba9876543210ull, 1000000007ull, 0x00000001fffffffeull};
#define NV (sizeof vals / sizeof vals[0])

int main(void) {
  for (unsigned i = 0; i < NV; i++)
    for (unsigned j = 0; j < NV; j++) {
      uint64_t a = vals[i], b = vals[j];
      uint64_t sum = a + b, dif = a - b, prod = a * b;
      uint64_t uq = b ? a / b : 0, ur = b ? a % b : 0;
      int64_t sa = (int64_t)a, sb = (int64_t)b;
      int64_t sq = (sb == 0 || (sa == INT64_MIN && sb == -1)) ? 0 : sa / sb;
      int64_t sr = (sb == 0 || (sa == INT64_MIN && sb == -1)) ? 0 : sa % sb;
      int cmp = (sa < sb) * 4 + (a < b) * 2 + (a == b);
      printf("%llx,%llx: + %llx - %llx * %llx /u %llx %%u %llx /s %lld %%s %lld cmp %d\n", (unsigned long long)a,
             (unsigned long long)b, (unsigned long long)sum, (unsigned long long)dif, (unsigned long long)prod,
             (unsigned long long)uq, (unsigned long long)ur, (long long)sq, (long long)sr, cmp);
      mix((uint32_t)sum); mix((uint32_t)(sum >> 32)); mix((uint32_t)dif); mix((uint32_t)(dif >> 32));
      mix((uint32_t)prod); mix((uint32_t)(prod >> 32)); mix((uint32_t)uq); mix((uint32_t)(uq >> 32));
      mix((uint32_t)ur); mix((uint32_t)sq); mix((uint32_t)((uint64_t)sq >> 32)); mix((uint32_t)sr); mix((uint32_t)cmp);
    }
  volatile uint64_t x = 0xf0e1d2c3b4a59687ull;
  for (unsigned s = 0; s < 64; s += 7) {
    uint64_t l = x << s, r = x >> s;
    int64_t ar = (int64_t)x >> s;
    printf("shift %u: << %016llx >> %016llx >>a %016llx\n", s, (unsigned long long)l, (unsigned long long)r,
           (unsigned long long)ar);
    mix((uint32_t)l); mix((uint32_t)(l >> 32)); mix((uint32_t)r); mix((uint32_t)(r >> 32)); mix((uint32_t)ar);
  }
  for (volatile unsigned s = 30; s < 35; s++) {
    uint64_t l = x << s, r = x >> s;
    mix((uint32_t)l); mix((uint32_t)(r >> 32));
  }
  show64("<<63", x << 63);
  show64(">>63", x >> 63);
  /* factorials and a 64-bit LCG, a modular exponentiation with 64-bit intermediates */
  uint64_t f = 1;
  for (uint64_t k = 1; k <= 20; k++) f *= k;
  show64("20!", f);
  uint64_t lcg = 1;
  for (int k = 0; k < 1000; k++) lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
  show64("lcg", lcg);
  uint64_t base = 123456789, e = 1000000005, m = 1000000007, res = 1;
  while (e) {
    if (e & 1) res = res * base % m;
    base = base * base % m;
    e >>= 1;
  }
  show64("modpow (inverse)", res);
  show64("check", res * 123456789ull % m);
  /* conversions */
  volatile int32_t neg = -5;
  show64("sext", (uint64_t)(int64_t)neg);
  show64("zext", (uint64_t)(uint32_t)neg);
  volatile int64_t big = -1234567890123ll;
  show64("truncate", (uint64_t)(uint32_t)big);
  printf("lld %lld llu %llu\n", (long long)big, (unsigned long long)big);
  /* 64-bit <-> float (libgcc __floatdisf / __fixsfdi) */
  volatile float fv = 1.5e18f;
  show64("fixsfdi", (uint64_t)(int64_t)fv);
  show("floatdisf", f2u((float)big));
  show("floatundisf", f2u((float)(uint64_t)0xffffffffffffffffull));
  return finish("int64");
}
