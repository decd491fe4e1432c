/* Bit manipulation in plain RV32IM (no Zb* extension): population count, leading/trailing zero
 * counts (loops and libgcc's __clzsi2/__ctzsi2/__popcountsi2 via builtins), bit reversal,
 * byte swaps, rotations, parity, next power of two, Gray code, sign extension of bit fields
 * and C bit-field structs. */
#include "testlib.h"

static uint32_t pop_loop(uint32_t x) { uint32_t n = 0; while (x) { x &= x - 1; n++; } return n; }
static uint32_t clz_loop(uint32_t x) { uint32_t n = 0; if (!x) return 32; while (!(x & 0x80000000u)) { x <<= 1; n++; } return n; }
static uint32_t ctz_loop(uint32_t x) { uint32_t n = 0; if (!x) return 32; while (!(x & 1)) { x >>= 1; n++; } return n; }
static uint32_t rev(uint32_t x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
  return (x >> 16) | (x << 16);
}
static uint32_t rotl(uint32_t x, uint32_t r) { r &= 31; return r ? (x << r) | (x >> (32 - r)) : x; }
static uint32_t next_pow2(uint32_t x) { x--; x |= x >> 1; x |= x >> 2; x |= x >> 4; x |= x >> 8; x |= x >> 16; return x + 1; }
static int32_t sext(uint32_t v, unsigned bits) { uint32_t m = 1u << (bits - 1); v &= (bits == 32) ? 0xffffffffu : ((1u << bits) - 1); return (int32_t)((v ^ m) - m); }

struct fields {
  unsigned a : 3;
  signed b : 5;
  unsigned c : 12;
  signed d : 12;
};

int main(void) {
  static const uint32_t probes[] = {0, 1, 0x80000000, 0xffffffff, 0x00f00000, 0x12345678, 0xdeadbeef, 0x00010000, 0x7fffffff};
  for (unsigned i = 0; i < sizeof probes / sizeof probes[0]; i++) {
    uint32_t x = probes[i];
    uint32_t p = pop_loop(x), l = clz_loop(x), t = ctz_loop(x);
    uint32_t bp = (uint32_t)__builtin_popcount(x);
    uint32_t bl = x ? (uint32_t)__builtin_clz(x) : 32, bt = x ? (uint32_t)__builtin_ctz(x) : 32;
    printf("%08lx: pop %lu/%lu clz %lu/%lu ctz %lu/%lu rev %08lx bswap %08lx rotl13 %08lx parity %d\n",
           (unsigned long)x, (unsigned long)p, (unsigned long)bp, (unsigned long)l, (unsigned long)bl,
           (unsigned long)t, (unsigned long)bt, (unsigned long)rev(x), (unsigned long)__builtin_bswap32(x),
           (unsigned long)rotl(x, 13), __builtin_parity(x));
    mix(p); mix(l); mix(t); mix(rev(x)); mix(__builtin_bswap32(x)); mix(rotl(x, 13));
    mix(p ^ bp); mix(l ^ bl); mix(t ^ bt);
  }
  uint32_t acc = 0, mism = 0;
  for (int k = 0; k < 5000; k++) {
    uint32_t x = rnd() >> (rnd() & 31);
    uint32_t p = pop_loop(x);
    if (p != (uint32_t)__builtin_popcount(x)) mism++;
    if (x && clz_loop(x) != (uint32_t)__builtin_clz(x)) mism++;
    if (x && ctz_loop(x) != (uint32_t)__builtin_ctz(x)) mism++;
    if (rev(rev(x)) != x) mism++;
    acc = rotl(acc, 5) ^ p ^ rev(x) ^ next_pow2(x | 1) ^ (x ^ (x >> 1));
  }
  show("random acc", acc);
  show("mismatches", mism);
  for (unsigned bits = 1; bits <= 32; bits += 5) show("sext", (uint32_t)sext(0xdeadbeefu, bits));
  uint64_t wide = 0x0123456789abcdefull;
  show("popcountll", (uint32_t)__builtin_popcountll(wide));
  show("clzll", (uint32_t)__builtin_clzll(wide >> 12));
  show("ctzll", (uint32_t)__builtin_ctzll(wide << 20));
  show("bswap64 lo", (uint32_t)__builtin_bswap64(wide));
  show("bswap16", __builtin_bswap16(0xa1b2));
  volatile struct fields f;
  volatile unsigned thirteen = 13;
  f.a = thirteen; /* truncates to 5 */
  f.b = -9;
  f.c = 0xabc;
  f.d = -2048;
  show("field a", f.a);
  show("field b", (uint32_t)f.b);
  show("field c", f.c);
  show("field d", (uint32_t)f.d);
  f.b = f.b + (int)thirteen * 2 + 4; /* 21 does not fit in signed 5 bits: wraps to -11 */
  show("field b wrapped", (uint32_t)(int32_t)f.b);
  uint32_t raw;
  memcpy(&raw, (const void*)&f, 4);
  show("fields raw", raw);
  return finish("bitmanip");
}
