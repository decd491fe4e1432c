/* Loads and stores of every width: lb/lbu/lh/lhu/lw sign and zero extension of every byte
 * pattern class, sb/sh/sw updating only their bytes (little-endian order), negative and
 * maximum (+-2047) immediate offsets, flw/fsw of arbitrary bit patterns (no canonicalisation on
 * load/store), and gp-relative small-data accesses. */
#include "testlib.h"

static volatile uint8_t buf[8192] __attribute__((aligned(16)));
static volatile uint32_t small_counter = 5; /* .sdata: reached through gp */

int main(void) {
  volatile uint8_t* mid = buf + 4096;
  for (int i = 0; i < 8192; i++) buf[i] = (uint8_t)(i ^ (i >> 8));
  static const uint8_t pats[] = {0x00, 0x01, 0x7f, 0x80, 0x81, 0xfe, 0xff};
  for (unsigned i = 0; i < sizeof pats; i++)
    for (unsigned j = 0; j < sizeof pats; j++) {
      mid[0] = pats[i];
      mid[1] = pats[j];
      mid[2] = pats[j];
      mid[3] = pats[i];
      uint32_t b, bu, h, hu, w;
      __asm__ volatile("lb %0, 0(%1)" : "=r"(b) : "r"(mid) : "memory");
      __asm__ volatile("lbu %0, 0(%1)" : "=r"(bu) : "r"(mid) : "memory");
      __asm__ volatile("lh %0, 0(%1)" : "=r"(h) : "r"(mid) : "memory");
      __asm__ volatile("lhu %0, 0(%1)" : "=r"(hu) : "r"(mid) : "memory");
      __asm__ volatile("lw %0, 0(%1)" : "=r"(w) : "r"(mid) : "memory");
      mix(b); mix(bu); mix(h); mix(hu); mix(w);
      if (j == 0 || j == 3)
        printf("%02x %02x: lb %08lx lbu %08lx lh %08lx lhu %08lx lw %08lx\n", pats[i], pats[j], (unsigned long)b,
               (unsigned long)bu, (unsigned long)h, (unsigned long)hu, (unsigned long)w);
    }
  /* partial stores */
  for (int i = 0; i < 8; i++) mid[i] = 0xaa;
  __asm__ volatile("sb %0, 1(%1)" ::"r"(0x12345678u), "r"(mid) : "memory");
  __asm__ volatile("sh %0, 2(%1)" ::"r"(0x9abcdef0u), "r"(mid) : "memory");
  __asm__ volatile("sw %0, 4(%1)" ::"r"(0x0badf00du), "r"(mid) : "memory");
  for (int i = 0; i < 8; i++) printf("%02x ", mid[i]);
  printf("\n");
  for (int i = 0; i < 8; i++) mix(mid[i]);
  /* extreme offsets */
  uint32_t lo, hi;
  __asm__ volatile("sw %1, -2048(%2)\n sw %1, 2044(%2)\n lw %0, -2048(%2)" : "=&r"(lo) : "r"(0xfeedfaceu), "r"(mid) : "memory");
  __asm__ volatile("lhu %0, 2046(%1)" : "=r"(hi) : "r"(mid) : "memory");
  show("offset -2048", lo);
  show("offset 2046 lhu", hi);
  show("byte at -2048", mid[-2048]);
  show("byte at 2047", mid[2047]);
  /* float loads/stores move raw bits */
  static const uint32_t fbits[] = {0x7f800001, 0xffffffff, 0x00000001, 0x80000000, 0x7fc00001, 0x12345678};
  for (unsigned i = 0; i < sizeof fbits / sizeof fbits[0]; i++) {
    volatile uint32_t src = fbits[i], dst = 0;
    float f;
    __asm__ volatile("flw %0, 0(%1)" : "=f"(f) : "r"(&src) : "memory");
    __asm__ volatile("fsw %0, 0(%1)" ::"f"(f), "r"(&dst) : "memory");
    show("flw/fsw", dst);
  }
  /* small data through gp */
  for (int i = 0; i < 100; i++) small_counter = small_counter * 3 + 1;
  show("sdata counter", small_counter);
  /* sum over the buffer with mixed widths */
  uint32_t sum = 0;
  for (int i = 0; i < 8192; i += 4) {
    sum += *(volatile uint32_t*)(buf + i);
    sum ^= *(volatile int16_t*)(buf + i + 2);
    sum += *(volatile int8_t*)(buf + i + 1);
  }
  show("mixed-width sum", sum);
  return finish("loadstore");
}
