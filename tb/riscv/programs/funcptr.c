/* Indirect calls: arrays of function pointers (jalr through registers), callbacks taking and
 * returning function pointers, a vtable-style struct of operations, recursion through a
 * pointer, qsort with different comparators, tail calls through pointers, and pointers to
 * functions with float arguments (the ilp32f FP argument registers). */
#include <stdlib.h>

#include "testlib.h"

typedef uint32_t (*binop)(uint32_t, uint32_t);
static uint32_t op_add(uint32_t a, uint32_t b) { return a + b; }
static uint32_t op_sub(uint32_t a, uint32_t b) { return a - b; }
static uint32_t op_mul(uint32_t a, uint32_t b) { return a * b; }
static uint32_t op_xor(uint32_t a, uint32_t b) { return a ^ b; }
static uint32_t op_rot(uint32_t a, uint32_t b) { b &= 31; return b ? (a << b) | (a >> (32 - b)) : a; }
static const binop table[] = {op_add, op_sub, op_mul, op_xor, op_rot};

static binop pick(uint32_t k) { return table[k % 5]; }
static uint32_t apply_n(binop f, uint32_t x, uint32_t y, int n) {
  for (int i = 0; i < n; i++) x = f(x, y + (uint32_t)i);
  return x;
}

struct shape_ops {
  const char* name;
  float (*area)(float, float);
  float (*perimeter)(float, float);
};
static float rect_area(float a, float b) { return a * b; }
static float rect_per(float a, float b) { return 2.0f * (a + b); }
static float tri_area(float a, float b) { return 0.5f * a * b; }
static float tri_per(float a, float b) { return a + b + __builtin_sqrtf(a * a + b * b); }
static const struct shape_ops shapes[] = {{"rect", rect_area, rect_per}, {"triangle", tri_area, tri_per}};

typedef uint32_t (*recfn)(uint32_t, const void*);
static uint32_t fact_via(uint32_t n, const void* self) {
  return n <= 1 ? 1 : n * ((recfn)self)(n - 1, self);
}

static int by_value(const void* a, const void* b) { return *(const int*)a - *(const int*)b; }
static int by_value_desc(const void* a, const void* b) { return *(const int*)b - *(const int*)a; }
static int by_low_bits(const void* a, const void* b) {
  int x = *(const int*)a & 7, y = *(const int*)b & 7;
  return x != y ? x - y : *(const int*)a - *(const int*)b;
}

static uint32_t __attribute__((noinline)) tail_a(uint32_t n, uint32_t acc);
static uint32_t __attribute__((noinline)) tail_b(uint32_t n, uint32_t acc) { return n ? tail_a(n - 1, acc * 3 + 1) : acc; }
static uint32_t __attribute__((noinline)) tail_a(uint32_t n, uint32_t acc) { return n ? tail_b(n - 1, acc ^ n) : acc; }
static uint32_t (*volatile tail_entry)(uint32_t, uint32_t) = tail_a;

int main(void) {
  for (uint32_t k = 0; k < 5; k++) {
    uint32_t r = apply_n(pick(k), 0x12345678u, 0x9e3779b9u, 100);
    printf("op %lu -> %08lx\n", (unsigned long)k, (unsigned long)r);
    mix(r);
  }
  uint32_t acc = 1;
  for (uint32_t k = 0; k < 10000; k++) acc = table[(acc >> 3) % 5](acc, k) | 1;
  show("chaotic dispatch", acc);
  for (unsigned i = 0; i < 2; i++) {
    float a = shapes[i].area(3.0f, 4.0f), p = shapes[i].perimeter(3.0f, 4.0f);
    printf("%s: area %08lx perimeter %08lx\n", shapes[i].name, (unsigned long)f2u(a), (unsigned long)f2u(p));
    mix(f2u(a)); mix(f2u(p));
  }
  show("fact(12) via pointer", fact_via(12, (const void*)fact_via));
  int v[40];
  for (int i = 0; i < 40; i++) v[i] = (int)(rnd() % 1000) - 500;
  int (*cmps[])(const void*, const void*) = {by_value, by_value_desc, by_low_bits};
  for (int c = 0; c < 3; c++) {
    qsort(v, 40, sizeof v[0], cmps[c]);
    uint32_t h = 0;
    for (int i = 0; i < 40; i++) h = h * 31 + (uint32_t)v[i];
    printf("qsort cmp %d: first %d last %d hash %08lx\n", c, v[0], v[39], (unsigned long)h);
    mix(h);
  }
  show("tail calls", tail_entry(100000, 7));
  return finish("funcptr");
}
