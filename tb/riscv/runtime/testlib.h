/*
 * Small helpers shared by the ISS differential-test programs (tb/riscv/programs): float bit
 * casts, fcsr access, a running checksum that becomes the exit code, and deterministic
 * pseudo-random numbers. Everything a program prints must be the same on qemu-riscv32 and on
 * `flaresim iss`, so nothing here prints addresses or timer values.
 */
#pragma once
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static inline uint32_t f2u(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static inline float u2f(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static inline uint64_t d2u(double d) {
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
}
static inline double u2d(uint64_t u) {
  double d;
  memcpy(&d, &u, 8);
  return d;
}

/* fcsr: fflags (bits 4:0 NV DZ OF UF NX) and frm (bits 7:5). */
static inline uint32_t get_fflags(void) {
  uint32_t v;
  __asm__ volatile("frflags %0" : "=r"(v));
  return v;
}
static inline void clear_fflags(void) { __asm__ volatile("fsflags zero" ::: "memory"); }
static inline uint32_t get_frm(void) {
  uint32_t v;
  __asm__ volatile("frrm %0" : "=r"(v));
  return v;
}
static inline void set_frm(uint32_t rm) { __asm__ volatile("fsrm %0" ::"r"(rm) : "memory"); }
static inline uint32_t get_fcsr(void) {
  uint32_t v;
  __asm__ volatile("frcsr %0" : "=r"(v));
  return v;
}
static inline void set_fcsr(uint32_t v) { __asm__ volatile("fscsr %0" ::"r"(v) : "memory"); }

/* Rounding modes (frm / rm field values). */
enum { RM_RNE = 0, RM_RTZ = 1, RM_RDN = 2, RM_RUP = 3, RM_RMM = 4, RM_DYN = 7 };

/* Running checksum: every printed value can be folded in; main returns checksum & 0x7f etc. */
static uint32_t tl_sum = 0x811c9dc5u;
static inline void mix(uint32_t v) {
  for (int i = 0; i < 4; i++) {
    tl_sum ^= (v >> (8 * i)) & 0xff;
    tl_sum *= 0x01000193u;
  }
}

/* Prints "name = 0xXXXXXXXX" and folds the value into the checksum. */
static inline void show(const char* name, uint32_t v) {
  printf("%s = 0x%08lx\n", name, (unsigned long)v);
  mix(v);
}
static inline void show2(const char* name, uint32_t v, uint32_t flags) {
  printf("%s = 0x%08lx flags=%02lx\n", name, (unsigned long)v, (unsigned long)flags);
  mix(v);
  mix(flags);
}

/* Deterministic xorshift32. */
static uint32_t tl_rng = 2463534242u;
static inline uint32_t rnd(void) {
  uint32_t x = tl_rng;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return tl_rng = x;
}

/* Final line and exit code: the checksum, folded to 7 bits (never 0 unless it really is). */
static inline int finish(const char* prog) {
  printf("%s checksum 0x%08lx\n", prog, (unsigned long)tl_sum);
  return (int)(tl_sum & 0x7f);
}
