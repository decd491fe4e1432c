/* M extension edge cases via inline asm (C would be undefined): div/rem of INT_MIN by -1,
 * division and remainder by zero (signed and unsigned), mul/mulh/mulhsu/mulhu of extremes, and
 * a C-level check of quotient/remainder identities over pseudo-random operands. */
#include "testlib.h"

#define RR(op, a, b) ({ uint32_t r_; __asm__ volatile(op " %0, %1, %2" : "=r"(r_) : "r"(a), "r"(b)); r_; })

static volatile uint32_t vals[] = {0, 1, 2, 3, 7, 0x7fffffff, 0x80000000, 0x80000001, 0xffffffff, 0xfffffffe,
                                   0xfffffff9, 0x10000, 0xffff, 0x12345678, 0xdeadbeef};
#define NV (sizeof vals / sizeof vals[0])

int main(void) {
  for (unsigned i = 0; i < NV; i++)
    for (unsigned j = 0; j < NV; j++) {
      uint32_t a = vals[i], b = vals[j];
      uint32_t m = RR("mul", a, b), h = RR("mulh", a, b), hsu = RR("mulhsu", a, b), hu = RR("mulhu", a, b);
      uint32_t d = RR("div", a, b), du = RR("divu", a, b), r = RR("rem", a, b), ru = RR("remu", a, b);
      printf("%08lx,%08lx mul %08lx mulh %08lx mulhsu %08lx mulhu %08lx div %08lx divu %08lx rem %08lx remu %08lx\n",
             (unsigned long)a, (unsigned long)b, (unsigned long)m, (unsigned long)h, (unsigned long)hsu,
             (unsigned long)hu, (unsigned long)d, (unsigned long)du, (unsigned long)r, (unsigned long)ru);
      mix(m); mix(h); mix(hsu); mix(hu); mix(d); mix(du); mix(r); mix(ru);
    }
  /* the classic edge cases, spelled out */
  show("INT_MIN/-1", RR("div", 0x80000000u, 0xffffffffu));
  show("INT_MIN%-1", RR("rem", 0x80000000u, 0xffffffffu));
  show("5/0", RR("div", 5u, 0u));
  show("-5/0", RR("div", (uint32_t)-5, 0u));
  show("5%0", RR("rem", 5u, 0u));
  show("-5%0", RR("rem", (uint32_t)-5, 0u));
  show("5u/0", RR("divu", 5u, 0u));
  show("5u%0", RR("remu", 5u, 0u));
  /* rd == rs1 == rs2 forms */
  uint32_t x = 0xfffffff0;
  __asm__ volatile("mulh %0, %0, %0" : "+r"(x));
  show("mulh x,x,x", x);
  x = 0x80000000;
  __asm__ volatile("div %0, %0, %0" : "+r"(x));
  show("div x,x,x", x);
  /* identities over random operands */
  uint32_t bad = 0;
  for (int k = 0; k < 20000; k++) {
    int32_t a = (int32_t)rnd(), b = (int32_t)(rnd() >> (rnd() & 31));
    if (b == 0 || (a == INT32_MIN && b == -1)) continue;
    int32_t q = a / b, rr = a % b;
    if ((int32_t)((uint32_t)q * (uint32_t)b + (uint32_t)rr) != a) bad++;
    if (rr != 0 && ((rr < 0) != (a < 0))) bad++;
    uint32_t ua = (uint32_t)a, ub = (uint32_t)b;
    if ((ua / ub) * ub + ua % ub != ua) bad++;
    uint64_t full = (uint64_t)ua * ub;
    if ((uint32_t)(full >> 32) != RR("mulhu", ua, ub)) bad++;
    int64_t sfull = (int64_t)a * b;
    if ((uint32_t)((uint64_t)sfull >> 32) != RR("mulh", ua, ub)) bad++;
    int64_t sufull = (int64_t)a * (int64_t)(uint64_t)ub;
    if ((uint32_t)((uint64_t)sufull >> 32) != RR("mulhsu", ua, ub)) bad++;
    mix((uint32_t)q); mix((uint32_t)rr);
  }
  show("identity failures", bad);
  return finish("muldiv");
}
