/* Misaligned data accesses (RISC-V allows them; qemu-user performs them directly): lw/sw,
 * lh/lhu/sh and flw/fsw at every offset within a word, through packed structs and memcpy-free
 * pointer casts, including accesses that straddle a 4 KiB page boundary inside the heap/bss. */
#include <stddef.h>

#include "testlib.h"

struct __attribute__((packed)) rec {
  uint8_t tag;
  uint32_t a;
  uint16_t b;
  float f;
  int32_t c;
  int16_t d;
};

static uint8_t raw[8192] __attribute__((aligned(4096)));

#define LOAD(insn, p) ({ uint32_t v_; __asm__ volatile(insn " %0, 0(%1)" : "=r"(v_) : "r"(p) : "memory"); v_; })
#define STORE(insn, v, p) __asm__ volatile(insn " %0, 0(%1)" ::"r"(v), "r"(p) : "memory")

int main(void) {
  for (unsigned i = 0; i < sizeof raw; i++) raw[i] = (uint8_t)(i * 0x9d + 0x83);
  /* loads at every offset */
  for (unsigned off = 0; off < 8; off++) {
    uint8_t* p = raw + 100 + off;
    uint32_t w = LOAD("lw", p), h = LOAD("lh", p), hu = LOAD("lhu", p), b = LOAD("lb", p), bu = LOAD("lbu", p);
    float f;
    __asm__ volatile("flw %0, 0(%1)" : "=f"(f) : "r"(p) : "memory");
    printf("off %u: lw %08lx lh %08lx lhu %08lx lb %08lx lbu %08lx flw %08lx\n", off, (unsigned long)w,
           (unsigned long)h, (unsigned long)hu, (unsigned long)b, (unsigned long)bu, (unsigned long)f2u(f));
    mix(w); mix(h); mix(hu); mix(b); mix(bu); mix(f2u(f));
  }
  /* stores at every offset */
  for (unsigned off = 0; off < 4; off++) {
    uint8_t* p = raw + 200 + off;
    STORE("sw", 0xa1b2c3d4u, p);
    STORE("sh", 0xe5f6u, p + 5);
    float f = u2f(0x7f812345);
    __asm__ volatile("fsw %0, 0(%1)" ::"f"(f), "r"(p + 9) : "memory");
    uint32_t h = 0;
    for (int k = 0; k < 16; k++) h = h * 257 + raw[200 + k];
    printf("store off %u: %08lx\n", off, (unsigned long)h);
    mix(h);
  }
  /* page-straddling accesses (raw is 4 KiB aligned, so raw+4096 is a page boundary) */
  for (unsigned off = 1; off < 4; off++) {
    uint8_t* p = raw + 4096 - off;
    uint32_t before = LOAD("lw", p);
    STORE("sw", before ^ 0xffffffffu, p);
    uint32_t after = LOAD("lw", p);
    uint32_t half = LOAD("lhu", raw + 4095);
    printf("straddle -%u: %08lx -> %08lx, lhu %04lx\n", off, (unsigned long)before, (unsigned long)after,
           (unsigned long)half);
    mix(before); mix(after); mix(half);
  }
  /* packed struct array: the compiler emits byte accesses; casts make real misaligned ones */
  static struct rec recs[5];
  for (int i = 0; i < 5; i++) {
    recs[i].tag = (uint8_t)i;
    recs[i].a = 0x10203040u * (uint32_t)(i + 1);
    recs[i].b = (uint16_t)(0xfff0 + i);
    recs[i].f = (float)i * 1.5f;
    recs[i].c = -1000 * i;
    recs[i].d = (int16_t)(-i);
  }
  uint32_t acc = 0;
  for (int i = 0; i < 5; i++) {
    const uint8_t* base = (const uint8_t*)&recs[i]; /* misaligned field addresses on purpose */
    uint32_t va = LOAD("lw", base + offsetof(struct rec, a));
    int32_t vc = (int32_t)LOAD("lw", base + offsetof(struct rec, c));
    uint32_t vd = LOAD("lh", base + offsetof(struct rec, d));
    acc = acc * 31 + va + (uint32_t)vc + vd + recs[i].b + f2u(recs[i].f);
  }
  show("packed records", acc);
  show("sizeof rec", (uint32_t)sizeof(struct rec));
  /* a misaligned word copy loop */
  uint32_t sum = 0;
  for (unsigned i = 1; i + 4 < 4000; i += 3) sum += LOAD("lw", raw + i) ^ i;
  show("misaligned sum", sum);
  return finish("misaligned");
}
